#include <stdio.h>
#include <string.h>

#include "json_scan.h"
#include "openai_chunk.h"

#define KEY_MAX 32

/* A string that is not empty, or skips whatever else is there (null
 * included): does the value carry output? */
static bool nonempty_string(json_cur *c, bool *nonempty)
{
    if (json_peek(c) != '"')
        return json_skip(c);
    size_t n;
    if (!json_string(c, NULL, 0, &n))
        return false;
    *nonempty |= n > 0;
    return true;
}

/* The number of elements of an array; anything else counts none. */
static bool array_length(json_cur *c, uint64_t *n, bool *is_array)
{
    *n = 0;
    *is_array = json_peek(c) == '[';
    if (!*is_array)
        return json_skip(c);
    bool more;
    if (!json_open(c, '['))
        return false;
    while (json_next(c, ']', &more) && more) {
        if (!json_skip(c))
            return false;
        (*n)++;
    }
    return !c->why;
}

/* A delta: content, reasoning, tool calls (the role alone is no output). */
static bool delta(json_cur *c, chunk_info *out)
{
    if (json_peek(c) != '{')
        return json_skip(c);
    char key[KEY_MAX];
    bool more;
    json_open(c, '{');
    while (json_next(c, '}', &more) && more) {
        if (!json_key(c, key, sizeof key))
            return false;
        bool ok;
        if (strcmp(key, "content") == 0 || strcmp(key, "reasoning_content") == 0 ||
            strcmp(key, "reasoning") == 0 || strcmp(key, "refusal") == 0) {
            ok = nonempty_string(c, &out->content);
        } else if (strcmp(key, "tool_calls") == 0) {
            uint64_t n;
            bool is_array;
            ok = array_length(c, &n, &is_array);
            out->content |= n > 0;
        } else if (strcmp(key, "function_call") == 0) {
            out->content |= json_peek(c) == '{';
            ok = json_skip(c);
        } else {
            ok = json_skip(c);
        }
        if (!ok)
            return false;
    }
    return !c->why;
}

/* logprobs: {"content": [...]} (chat, and llama.cpp's completions) or
 * {"tokens": [...], ...} (the completions API): one entry per token. */
static bool logprobs(json_cur *c, chunk_info *out)
{
    if (json_peek(c) != '{')
        return json_skip(c);
    char key[KEY_MAX];
    bool more, seen = false;
    uint64_t entries = 0;
    json_open(c, '{');
    while (json_next(c, '}', &more) && more) {
        if (!json_key(c, key, sizeof key))
            return false;
        bool is_array = false, ok;
        uint64_t n = 0;
        if ((strcmp(key, "content") == 0 && !seen) || strcmp(key, "tokens") == 0) {
            ok = array_length(c, &n, &is_array);
            if (is_array) {
                entries = n;
                seen = true;
            }
        } else {
            ok = json_skip(c);
        }
        if (!ok)
            return false;
    }
    if (seen) {
        out->has_logprobs = true;
        out->logprobs += entries;
    }
    return !c->why;
}

static bool choice(json_cur *c, chunk_info *out)
{
    if (json_peek(c) != '{')
        return json_skip(c);
    char key[KEY_MAX];
    bool more;
    json_open(c, '{');
    while (json_next(c, '}', &more) && more) {
        if (!json_key(c, key, sizeof key))
            return false;
        bool ok;
        if (strcmp(key, "text") == 0)
            ok = nonempty_string(c, &out->content);
        else if (strcmp(key, "delta") == 0)
            ok = delta(c, out);
        else if (strcmp(key, "logprobs") == 0)
            ok = logprobs(c, out);
        else if (strcmp(key, "finish_reason") == 0 && json_peek(c) == '"')
            ok = json_string(c, out->finish_reason, sizeof out->finish_reason, NULL);
        else
            ok = json_skip(c);
        if (!ok)
            return false;
    }
    return !c->why;
}

static bool choices(json_cur *c, chunk_info *out)
{
    if (json_peek(c) != '[')
        return json_skip(c);
    bool more;
    json_open(c, '[');
    while (json_next(c, ']', &more) && more) {
        out->choices = true;
        if (!choice(c, out))
            return false;
    }
    return !c->why;
}

static bool usage(json_cur *c, chunk_info *out)
{
    if (json_peek(c) != '{')
        return json_skip(c);
    char key[KEY_MAX];
    bool more;
    json_open(c, '{');
    while (json_next(c, '}', &more) && more) {
        if (!json_key(c, key, sizeof key))
            return false;
        int ch = json_peek(c);
        bool ok, prompt = strcmp(key, "prompt_tokens") == 0;
        if ((prompt || strcmp(key, "completion_tokens") == 0) && ch >= '0' && ch <= '9') {
            ok = json_uint(c, prompt ? &out->prompt_tokens : &out->completion_tokens);
            if (prompt)
                out->has_prompt_tokens = true;
            else
                out->has_completion_tokens = true;
        } else {
            ok = json_skip(c);
        }
        if (!ok)
            return false;
    }
    return !c->why;
}

/* "error": an object with a message, or the message itself. */
static bool error(json_cur *c, chunk_info *out)
{
    int ch = json_peek(c);
    if (ch == 'n')
        return json_skip(c); /* "error": null is no error */
    out->error = true;
    if (ch == '"')
        return json_string(c, out->message, sizeof out->message, NULL);
    if (ch != '{')
        return json_skip(c);
    char key[KEY_MAX];
    bool more;
    json_open(c, '{');
    while (json_next(c, '}', &more) && more) {
        if (!json_key(c, key, sizeof key))
            return false;
        bool ok;
        if (strcmp(key, "message") == 0 && json_peek(c) == '"')
            ok = json_string(c, out->message, sizeof out->message, NULL);
        else
            ok = json_skip(c);
        if (!ok)
            return false;
    }
    return !c->why;
}

bool chunk_read(const char *json, size_t len, chunk_info *out)
{
    memset(out, 0, sizeof *out);
    json_cur c;
    json_init(&c, json, len);
    char key[KEY_MAX], top_message[CHUNK_MESSAGE_MAX] = "", object[16] = "";
    bool more, ok = json_open(&c, '{');
    while (ok && json_next(&c, '}', &more) && more) {
        if (!json_key(&c, key, sizeof key))
            break;
        if (strcmp(key, "choices") == 0)
            ok = choices(&c, out);
        else if (strcmp(key, "usage") == 0)
            ok = usage(&c, out);
        else if (strcmp(key, "error") == 0)
            ok = error(&c, out);
        else if (strcmp(key, "object") == 0 && json_peek(&c) == '"')
            ok = json_string(&c, object, sizeof object, NULL);
        else if (strcmp(key, "message") == 0 && json_peek(&c) == '"')
            ok = json_string(&c, top_message, sizeof top_message, NULL);
        else
            ok = json_skip(&c);
    }
    if (!json_end(&c)) {
        char why[96];
        json_error(&c, why, sizeof why);
        memset(out, 0, sizeof *out);
        snprintf(out->message, sizeof out->message, "%s", why);
        return false;
    }
    if (strcmp(object, "error") == 0 && !out->error) {
        out->error = true;
        memcpy(out->message, top_message, sizeof out->message);
    }
    if (out->error && !out->message[0])
        snprintf(out->message, sizeof out->message, "%s", "an error without a message");
    return true;
}
