#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "completion_stream.h"
#include "openai_chunk.h"

void stream_init(completion_stream *s, int count)
{
    memset(s, 0, sizeof *s);
    s->count = count;
    sse_init(&s->sse, STREAM_EVENT_MAX);
    stream_begin(s);
}

void stream_begin(completion_stream *s)
{
    http_response_init(&s->http);
    sse_reset(&s->sse);
    s->outcome = STREAM_MORE;
    s->reason[0] = '\0';
    s->events = s->logprobs_missing = 0;
    s->has_prompt_tokens = s->has_completion_tokens = false;
    s->prompt_tokens = s->completion_tokens = 0;
    s->finish_reason = false;
    s->body_len = 0;
    s->body[0] = '\0';
    s->stopped = false;
}

void stream_free(completion_stream *s)
{
    sse_free(&s->sse);
}

bool stream_http_complete(const completion_stream *s)
{
    return http_response_complete(&s->http);
}

static void vfail(completion_stream *s, const char *fmt, va_list ap)
{
    if (s->outcome != STREAM_MORE)
        return;
    s->outcome = STREAM_FAILED;
    vsnprintf(s->reason, sizeof s->reason, fmt, ap);
}

void stream_fail(completion_stream *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(s, fmt, ap);
    va_end(ap);
}

static bool status_ok(const completion_stream *s)
{
    return s->http.status >= 200 && s->http.status < 300;
}

/* One event of the stream. */
static int on_event(void *user, const sse_event *ev)
{
    completion_stream *s = user;
    if (s->outcome != STREAM_MORE)
        return 0; /* what follows the decision only drains the body */
    if (strcmp(ev->type, "error") == 0) {
        stream_fail(s, "error in the stream: %.200s", ev->data);
        return 1;
    }
    if (strcmp(ev->data, "[DONE]") == 0) {
        s->outcome = STREAM_OK;
        return 0;
    }
    chunk_info c;
    if (!chunk_read(ev->data, ev->data_len, &c)) {
        stream_fail(s, "malformed JSON in a chunk (%s): %.60s", c.message, ev->data);
        return 1;
    }
    if (c.error) {
        stream_fail(s, "error in the stream: %s", c.message);
        return 1;
    }
    if (c.has_prompt_tokens) {
        s->has_prompt_tokens = true;
        s->prompt_tokens = c.prompt_tokens;
    }
    if (c.has_completion_tokens) {
        s->has_completion_tokens = true;
        s->completion_tokens = c.completion_tokens;
    }
    s->finish_reason |= c.finish_reason[0] != '\0';
    if (!c.choices)
        return 0;
    uint64_t k = c.content ? 1 : 0;
    if (s->count == STREAM_COUNT_LOGPROBS) {
        if (c.has_logprobs && (c.logprobs > 0 || !c.content))
            k = c.logprobs;
        else if (c.content)
            s->logprobs_missing++;
    }
    if (k > UINT32_MAX)
        k = UINT32_MAX;
    s->events++;
    if (s->fn && s->fn(s->user, (uint32_t)k) != 0) {
        s->stopped = true;
        return 1;
    }
    return 0;
}

/* Body bytes: the first ones kept for a reason, then the SSE parser. */
static int on_body(void *user, const char *p, size_t n)
{
    completion_stream *s = user;
    if (s->body_len < STREAM_BODY_KEPT) {
        size_t keep = STREAM_BODY_KEPT - s->body_len < n ? STREAM_BODY_KEPT - s->body_len : n;
        memcpy(s->body + s->body_len, p, keep);
        s->body_len += keep;
        s->body[s->body_len] = '\0';
    }
    if (!status_ok(s))
        return 0;
    size_t used;
    int rc = sse_feed(&s->sse, p, n, &used, on_event, s);
    if (rc == SSE_ERROR) {
        stream_fail(s, "unreadable event stream: %s", s->sse.why);
        return 1;
    }
    return rc == SSE_STOP && s->outcome == STREAM_FAILED ? 1 : 0;
}

/* The body's bytes with control characters shown as spaces: a reason is
 * one line. */
static void body_text(const completion_stream *s, char *out, size_t cap)
{
    size_t n = s->body_len < cap - 1 ? s->body_len : cap - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)s->body[i] < 0x20 ? ' ' : s->body[i];
    out[n] = '\0';
}

/* The response ended (its body read to the end, or cut short by the
 * close when `cut`). */
static void response_end(completion_stream *s, bool cut, const char *why)
{
    char body[STREAM_BODY_KEPT + 1];
    body_text(s, body, sizeof body);
    if (s->http.head_done && !status_ok(s)) {
        stream_fail(s, "HTTP %d%s: %s", s->http.status, cut ? " (body cut short)" : "", body);
    } else if (cut) {
        stream_fail(s, "%s", why);
    } else if (s->outcome == STREAM_MORE && s->finish_reason) {
        s->outcome = STREAM_OK;
    } else if (s->events == 0) {
        stream_fail(s, "no event stream in the response: %s", body);
    } else {
        stream_fail(s, "the stream ended before [DONE]");
    }
}

int stream_feed(completion_stream *s, const char *p, size_t len, size_t *used,
                stream_event_fn fn, void *user)
{
    s->fn = fn;
    s->user = user;
    *used = 0;
    if (s->outcome == STREAM_FAILED)
        return s->outcome;
    int rc = http_response_feed(&s->http, p, len, used, on_body, s);
    s->fn = NULL;
    if (rc == HTTP_ERROR)
        stream_fail(s, "malformed HTTP response: %s", s->http.why);
    else if (rc == HTTP_DONE)
        response_end(s, false, NULL);
    else if (rc == HTTP_STOP && s->stopped)
        stream_fail(s, "the event was refused");
    return s->outcome;
}

int stream_eof(completion_stream *s)
{
    if (s->outcome == STREAM_FAILED)
        return s->outcome;
    if (http_response_eof(&s->http) == HTTP_DONE) {
        response_end(s, false, NULL);
    } else if (s->outcome == STREAM_MORE) {
        const char *why = s->http.why;
        if (s->http.head_done && status_ok(s))
            why = "connection closed mid-stream";
        response_end(s, true, why);
    }
    return s->outcome;
}
