#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_random.h"
#include "bench_workload.h"
#include "completion_stream.h"
#include "json_scan.h"
#include "llmlat.h"

#define PROG "llmlat bench"
#define READ_BLOCK (1u << 20)

/* Words of generated chat prompts: common English words, each one token
 * for the usual BPE and SentencePiece vocabularies (with its space), so
 * that N words are about N tokens. */
static const char *const WORDS[] = {
    "the", "of", "and", "to", "in", "is", "that", "for", "it", "as", "was", "with", "be",
    "by", "on", "not", "he", "this", "are", "or", "his", "from", "at", "which", "but",
    "have", "an", "had", "they", "you", "were", "their", "one", "all", "we", "can", "her",
    "has", "there", "been", "if", "more", "when", "will", "would", "who", "so", "no", "time",
    "people", "year", "day", "way", "man", "world", "life", "hand", "part", "place", "case",
    "week", "work", "number", "point",
};
#define N_WORDS (sizeof WORDS / sizeof WORDS[0])

static int fail_line(const char *path, size_t line, const char *what)
{
    fprintf(stderr, PROG ": %s:%zu: %s\n", path, line, what);
    return 2;
}

/* ---------------------------------------------------------------- dataset */

/* The raw bytes of the value at c (skipped), copied. */
static char *raw_value(json_cur *c)
{
    json_peek(c);
    const char *from = c->p;
    if (!json_skip(c))
        return NULL;
    size_t n = (size_t)(c->p - from);
    char *v = malloc(n + 1);
    if (v) {
        memcpy(v, from, n);
        v[n] = '\0';
    }
    return v;
}

/* Does the array at c hold only token ids (non-negative integers)? Their
 * number in *n (c is not moved). */
static bool id_array(const json_cur *at, uint32_t *n)
{
    json_cur c = *at;
    bool more;
    uint64_t v;
    *n = 0;
    if (!json_open(&c, '['))
        return false;
    while (json_next(&c, ']', &more) && more) {
        if (!json_uint(&c, &v) || v > INT32_MAX)
            return false;
        (*n)++;
    }
    return !c.why;
}

static int dataset_line_parse(workload *w, const char *path, size_t no, const char *text,
                              size_t n, dataset_line *out)
{
    json_cur c;
    json_init(&c, text, n);
    char key[32];
    bool more;
    *out = (dataset_line){ 0 };
    if (!json_open(&c, '{'))
        return fail_line(path, no, "not a JSON object");
    while (json_next(&c, '}', &more) && more) {
        if (!json_key(&c, key, sizeof key))
            break;
        bool prompt = strcmp(key, "prompt") == 0, messages = strcmp(key, "messages") == 0;
        if ((prompt || messages) && out->value)
            return fail_line(path, no, "has both \"prompt\" and \"messages\"");
        if (prompt) {
            int ch = json_peek(&c);
            if (ch != '"' && !(ch == '[' && id_array(&c, &out->ids)))
                return fail_line(path, no,
                                 "\"prompt\" must be a string or an array of token ids");
            out->text = ch == '"';
        } else if (messages && json_peek(&c) != '[') {
            return fail_line(path, no, "\"messages\" must be an array");
        }
        if (prompt || messages) {
            out->messages = messages;
            out->value = raw_value(&c);
            if (!out->value && !c.why)
                return fail_line(path, no, "out of memory");
        } else if (strcmp(key, "max_tokens") == 0) {
            uint64_t v;
            if (!json_uint(&c, &v) || v == 0 || v > 10000000)
                return fail_line(path, no, "\"max_tokens\" must be an integer from 1 to 1e7");
            out->max_tokens = (uint32_t)v;
        } else if (!json_skip(&c)) {
            break;
        }
    }
    if (!json_end(&c)) {
        char why[96], text2[128];
        json_error(&c, why, sizeof why);
        snprintf(text2, sizeof text2, "not JSON (%s)", why);
        return fail_line(path, no, text2);
    }
    if (!out->value)
        return fail_line(path, no, "has neither \"prompt\" nor \"messages\"");
    if (out->messages && !w->o->chat)
        return fail_line(path, no,
                         "\"messages\" need --endpoint /v1/chat/completions");
    if (!out->messages && !out->text && w->o->chat)
        return fail_line(path, no, "token ids need --endpoint /v1/completions");
    return 0;
}

/* One line of the dataset into *out; nothing kept when it is refused. */
static int dataset_line_read(workload *w, const char *path, size_t no, const char *text,
                             size_t n, dataset_line *out)
{
    int rc = dataset_line_parse(w, path, no, text, n, out);
    if (rc != 0) {
        free(out->value);
        out->value = NULL;
    }
    return rc;
}

static int dataset_load(workload *w, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, PROG ": cannot open '%s': %s\n", path, strerror(errno));
        return 2;
    }
    char *line = NULL;
    size_t cap = 0, no = 0, alloc = 0;
    ssize_t n;
    int rc = 0;
    while (rc == 0 && (n = getline(&line, &cap, f)) >= 0) {
        no++;
        if (strspn(line, " \t\r\n") == (size_t)n)
            continue;
        if (w->n_lines == alloc) {
            size_t more = alloc ? alloc * 2 : 256;
            dataset_line *grown = realloc(w->lines, more * sizeof *grown);
            if (!grown) {
                rc = fail_line(path, no, "out of memory");
                break;
            }
            w->lines = grown;
            alloc = more;
        }
        rc = dataset_line_read(w, path, no, line, (size_t)n, &w->lines[w->n_lines]);
        if (rc == 0)
            w->n_lines++;
    }
    if (rc == 0 && ferror(f)) {
        fprintf(stderr, PROG ": cannot read '%s': %s\n", path, strerror(errno));
        rc = 2;
    }
    if (rc == 0 && w->n_lines == 0) {
        fprintf(stderr, PROG ": %s: no prompt in the dataset\n", path);
        rc = 2;
    }
    free(line);
    fclose(f);
    return rc;
}

/* ----------------------------------------------------------------- replay */

static int cmp_offset(const void *a, const void *b)
{
    const replay_entry *x = a, *y = b;
    return (x->offset_ns > y->offset_ns) - (x->offset_ns < y->offset_ns);
}

/* One request of the trace: its intended start (else its start) and its
 * lengths. */
static int replay_take(workload *w, llmlat_request *r, size_t *alloc, int64_t *t, uint32_t *lacks)
{
    uint64_t in = 0, out = 0;
    if (llmlat_request_get_schedule(r, t) != LLMLAT_OK)
        llmlat_request_get_start(r, t);
    llmlat_request_get_input_tokens(r, &in);
    llmlat_request_get_output_tokens(r, &out); /* the usage count, else the tokens seen */
    llmlat_request_get_lacks(r, lacks);
    if (w->n_replay == *alloc) {
        size_t more = *alloc ? *alloc * 2 : 1024;
        replay_entry *grown = realloc(w->replay, more * sizeof *grown);
        if (!grown)
            return -1;
        w->replay = grown;
        *alloc = more;
    }
    w->replay[w->n_replay++] = (replay_entry){
        .offset_ns = *t,
        .input_tokens = in > 10000000 ? 10000000 : (uint32_t)in,
        .output_tokens = out == 0 ? 1 : out > 10000000 ? 10000000 : (uint32_t)out,
    };
    return 0;
}

static int replay_load(workload *w, const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, PROG ": cannot open '%s': %s\n", path, strerror(errno));
        return 2;
    }
    llmlat_reader *rd = llmlat_reader_new(LLMLAT_INPUT_AUTO, path);
    llmlat_request *r = llmlat_request_new();
    int rc = rd && r ? 0 : (fprintf(stderr, PROG ": out of memory\n"), 1);
    size_t alloc = 0;
    uint64_t rejected = 0;
    int64_t first = INT64_MAX;
    while (rc == 0) {
        int32_t what, st = llmlat_reader_next(rd, r, &what);
        if (st == LLMLAT_OK && what == LLMLAT_READ_REQUEST) {
            int64_t t;
            uint32_t lacks = 0;
            if (replay_take(w, r, &alloc, &t, &lacks) != 0) {
                fprintf(stderr, PROG ": out of memory\n");
                rc = 1;
            } else if (lacks & LLMLAT_LACKS_START_TIMES) {
                fprintf(stderr, PROG ": %s: its requests' starts are not on one clock: nothing "
                                "to replay\n", path);
                rc = 2;
            }
            first = t < first ? t : first;
        } else if (st == LLMLAT_OK && what == LLMLAT_READ_REJECTED) {
            rejected++;
        } else if (st == LLMLAT_OK && what == LLMLAT_READ_MORE) {
            void *block;
            size_t room;
            st = llmlat_reader_space(rd, READ_BLOCK, &block, &room);
            size_t n = st == LLMLAT_OK ? fread(block, 1, READ_BLOCK, f) : 0;
            if (st == LLMLAT_OK && n > 0)
                st = llmlat_reader_commit(rd, n);
            else if (st == LLMLAT_OK && ferror(f))
                rc = (fprintf(stderr, PROG ": cannot read '%s': %s\n", path, strerror(errno)),
                      2);
            else if (st == LLMLAT_OK)
                st = llmlat_reader_end(rd);
        } else if (st == LLMLAT_OK) { /* END */
            break;
        }
        if (rc == 0 && st != LLMLAT_OK) {
            const char *m = llmlat_reader_message(rd);
            fprintf(stderr, PROG ": %s\n", m[0] ? m : llmlat_strerror(st));
            rc = st == LLMLAT_EFORMAT ? 2 : 1;
        }
    }
    if (rc == 0 && w->n_replay == 0) {
        fprintf(stderr, PROG ": %s: no request to replay\n", path);
        rc = 2;
    }
    if (rc == 0) {
        for (size_t i = 0; i < w->n_replay; i++)
            w->replay[i].offset_ns -= first;
        qsort(w->replay, w->n_replay, sizeof *w->replay, cmp_offset);
        if (rejected)
            fprintf(stderr, PROG ": %s: %llu rejected requests left out of the replay\n", path,
                    (unsigned long long)rejected);
    }
    llmlat_request_free(r);
    llmlat_reader_free(rd);
    fclose(f);
    return rc;
}

/* ------------------------------------------------------------------ extra */

static int extra_load(workload *w, const char *json)
{
    json_cur c;
    json_init(&c, json, strlen(json));
    bool more;
    json_open(&c, '{');
    while (json_next(&c, '}', &more) && more) {
        if (w->n_extra == WORKLOAD_MAX_EXTRA) {
            fprintf(stderr, PROG ": --extra-body: more than 64 members\n");
            return 2;
        }
        size_t klen;
        json_string(&c, w->extra_keys[w->n_extra], sizeof w->extra_keys[0], &klen);
        if (klen >= sizeof w->extra_keys[0]) {
            fprintf(stderr, PROG ": --extra-body: a key longer than 63 bytes\n");
            return 2;
        }
        json_peek(&c);
        c.p++; /* ':' (checked by the option's parse) */
        json_peek(&c);
        w->extra_value[w->n_extra] = c.p;
        json_skip(&c);
        w->extra_len[w->n_extra] = (size_t)(c.p - w->extra_value[w->n_extra]);
        w->n_extra++;
    }
    return 0;
}

int workload_load(workload *w, const bench_options *o)
{
    *w = (workload){ .o = o, .model = o->model };
    int rc = 0;
    if (o->extra_body)
        rc = extra_load(w, o->extra_body);
    if (rc == 0 && o->dataset)
        rc = dataset_load(w, o->dataset);
    if (rc == 0 && o->replay)
        rc = replay_load(w, o->replay);
    return rc;
}

void workload_free(workload *w)
{
    for (size_t i = 0; i < w->n_lines; i++)
        free(w->lines[i].value);
    free(w->lines);
    free(w->replay);
    w->lines = NULL;
    w->replay = NULL;
}

uint64_t workload_count(const workload *w)
{
    const bench_options *o = w->o;
    if (w->n_replay)
        return o->has_requests && o->requests < w->n_replay ? o->requests : w->n_replay;
    if (o->has_requests)
        return o->requests;
    if (w->n_lines && !o->duration_s)
        return w->n_lines;
    return UINT64_MAX;
}

/* Request i's lengths; r is left where the prompt's draws start. */
static void item_draw(const workload *w, uint64_t i, work_item *it, bench_rng *r)
{
    const bench_options *o = w->o;
    rng_seed(r, o->seed, i + 1);
    uint32_t in = rng_range(r, o->input_len.lo, o->input_len.hi);
    uint32_t out = rng_range(r, o->output_len.lo, o->output_len.hi);
    *it = (work_item){ .input_len = in, .max_tokens = out };
    if (w->n_replay) {
        const replay_entry *e = &w->replay[i];
        *it = (work_item){ .input_len = e->input_tokens, .max_tokens = e->output_tokens,
                           .offset_ns = e->offset_ns };
    } else if (w->n_lines) {
        const dataset_line *d = &w->lines[i % w->n_lines];
        it->input_len = d->messages || d->text ? 0 : d->ids; /* text: unknown here */
        if (d->max_tokens)
            it->max_tokens = d->max_tokens;
    }
}

void workload_item(const workload *w, uint64_t i, work_item *out)
{
    bench_rng r;
    item_draw(w, i, out, &r);
}

/* The value of a generated prompt: token ids, or a user message of words. */
static void generated_prompt(const workload *w, const work_item *it, bench_rng *r,
                             bench_buf *b)
{
    const bench_options *o = w->o;
    if (!o->chat) {
        buf_add(b, "[", 1);
        for (uint32_t k = 0; k < it->input_len; k++) {
            if (k)
                buf_add(b, ",", 1);
            buf_u64(b, rng_range(r, o->token_ids.lo, o->token_ids.hi));
        }
        buf_add(b, "]", 1);
        return;
    }
    buf_str(b, "[{\"role\":\"user\",\"content\":\"");
    for (uint32_t k = 0; k < it->input_len; k++) {
        if (k)
            buf_add(b, " ", 1);
        buf_str(b, WORDS[rng_range(r, 0, N_WORDS - 1)]);
    }
    buf_str(b, "\"}]");
}

/* A body being written: which --extra-body members were used in place. */
typedef struct body_writer {
    const workload *w;
    bench_buf *b;
    bool first;
    bool used[WORKLOAD_MAX_EXTRA];
} body_writer;

/* "key": and, when --extra-body gives the key, its value there: true when
 * the caller is to write the value. */
static bool member(body_writer *bw, const char *key)
{
    buf_str(bw->b, bw->first ? "\"" : ",\"");
    bw->first = false;
    buf_str(bw->b, key);
    buf_str(bw->b, "\":");
    for (size_t x = 0; x < bw->w->n_extra; x++) {
        if (strcmp(bw->w->extra_keys[x], key) == 0) {
            buf_add(bw->b, bw->w->extra_value[x], bw->w->extra_len[x]);
            bw->used[x] = true;
            return false;
        }
    }
    return true;
}

static void body(const workload *w, uint64_t i, const work_item *it, bench_buf *b)
{
    const bench_options *o = w->o;
    bench_rng r;
    work_item drawn;
    item_draw(w, i, &drawn, &r); /* r: where the prompt's draws start */
    body_writer bw = { .w = w, .b = b, .first = true };
    buf_add(b, "{", 1);
    if (w->model && member(&bw, "model"))
        buf_json_string(b, w->model, strlen(w->model));
    const dataset_line *d = w->n_lines ? &w->lines[i % w->n_lines] : NULL;
    if (member(&bw, o->chat ? "messages" : "prompt")) {
        if (!d) {
            generated_prompt(w, it, &r, b);
        } else if (o->chat && !d->messages) { /* a text prompt as the user's message */
            buf_str(b, "[{\"role\":\"user\",\"content\":");
            buf_str(b, d->value);
            buf_str(b, "}]");
        } else {
            buf_str(b, d->value);
        }
    }
    if (member(&bw, "max_tokens"))
        buf_u64(b, it->max_tokens);
    if (o->ignore_eos && member(&bw, "ignore_eos"))
        buf_str(b, "true");
    if (member(&bw, "stream"))
        buf_str(b, "true");
    if (member(&bw, "stream_options"))
        buf_str(b, "{\"include_usage\":true}");
    /* logprobs of the sampled token and one alternative: llama-server sends
     * none for 0 (vLLM and SGLang send them either way) */
    if (o->count_tokens == STREAM_COUNT_LOGPROBS && member(&bw, "logprobs"))
        buf_str(b, o->chat ? "true" : "1");
    if (o->count_tokens == STREAM_COUNT_LOGPROBS && o->chat && member(&bw, "top_logprobs"))
        buf_str(b, "1");
    for (size_t x = 0; x < w->n_extra; x++) {
        if (bw.used[x])
            continue;
        buf_str(b, bw.first ? "\"" : ",\"");
        bw.first = false;
        buf_str(b, w->extra_keys[x]);
        buf_str(b, "\":");
        buf_add(b, w->extra_value[x], w->extra_len[x]);
    }
    buf_add(b, "}", 1);
}

void workload_request(const workload *w, uint64_t i, const work_item *it, const char *id,
                      bench_buf *b)
{
    const bench_options *o = w->o;
    buf_reset(b);
    buf_printf(b, "POST %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: llmlat-bench/%s\r\n"
                  "Accept: text/event-stream\r\nContent-Type: application/json\r\n"
                  "X-Request-Id: %s\r\n",
               o->path, o->url.authority, llmlat_version_string(), id);
    if (o->api_key)
        buf_printf(b, "Authorization: Bearer %s\r\n", o->api_key);
    for (size_t h = 0; h < o->n_headers; h++) {
        const char *colon = strchr(o->headers[h], ':');
        const char *value = colon + 1 + strspn(colon + 1, " \t");
        buf_add(b, o->headers[h], (size_t)(colon - o->headers[h]));
        buf_str(b, ": ");
        buf_str(b, value);
        buf_str(b, "\r\n");
    }
    /* the body after a placeholder for its length, then moved into place */
    buf_str(b, "Content-Length: ");
    size_t at = b->len;
    buf_str(b, "0000000000\r\n\r\n");
    size_t start = b->len;
    body(w, i, it, b);
    if (b->failed)
        return;
    size_t n = b->len - start;
    char digits[16];
    int nd = snprintf(digits, sizeof digits, "%zu\r\n\r\n", n);
    memmove(b->p + at + nd, b->p + start, n);
    memcpy(b->p + at, digits, (size_t)nd);
    b->len = at + (size_t)nd + n;
    b->p[b->len] = '\0';
}
