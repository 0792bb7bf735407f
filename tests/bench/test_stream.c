/* What `llmlat bench` reads from servers, as pure functions of bytes
 * (tools/json_scan, http_chunked, http_response, sse, openai_chunk,
 * completion_stream): each on its own cases, then the whole on transcripts
 * of real servers' responses (tests/bench/data), fed whole, split at every
 * byte, and one byte at a time -- the same events, tokens, usage and
 * outcome every way.
 *
 * Usage: test_stream DATA_DIR */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "completion_stream.h"
#include "http_chunked.h"
#include "http_response.h"
#include "json_scan.h"
#include "openai_chunk.h"
#include "sse.h"

static const char *data_dir;

/* ------------------------------------------------------------ json_scan */

static bool json_valid(const char *s)
{
    json_cur c;
    json_init(&c, s, strlen(s));
    return json_skip(&c) && json_end(&c);
}

static void test_json_grammar(void **state)
{
    (void)state;
    const char *good[] = {
        "0", "-0", "12.5e-3", "1E+2", "\"\"", "\"a\\u00e9\\n\\\"\"", "true", "false", "null",
        "[]", "{}", " [ 1 , [ ] , { \"a\" : [ null ] } ] ", "{\"a\":{\"b\":{\"c\":[1,2,3]}}}",
        "\"\\ud83d\\ude00\"", "\"\\udc00 lone\"",
    };
    const char *bad[] = {
        "", " ", "01", "-", "1.", ".5", "1e", "+1", "\"", "\"\\x\"", "\"\\u12\"", "\"a\nb\"",
        "tru", "nul", "[", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{,}", "{\"a\":1,}", "[1 2]",
        "{1:2}", "1 2", "[]]", "{\"a\":1}}",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(json_valid(good[i]));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (json_valid(bad[i]))
            fail_msg("accepted: %s", bad[i]);
    }
    /* nesting is bounded, not recursive */
    char deep[2 * JSON_MAX_DEPTH + 8];
    memset(deep, '[', JSON_MAX_DEPTH + 1);
    memset(deep + JSON_MAX_DEPTH + 1, ']', JSON_MAX_DEPTH + 1);
    deep[2 * JSON_MAX_DEPTH + 2] = '\0';
    assert_false(json_valid(deep));
    deep[JSON_MAX_DEPTH] = ' ';
    deep[JSON_MAX_DEPTH + 1] = ' ';
    assert_true(json_valid(deep));
}

static void test_json_values(void **state)
{
    (void)state;
    const char *doc = "{\"s\": \"a\\u00e9\\ud83d\\ude00b\", \"n\": 18446744073709551615, "
                      "\"big\": 18446744073709551616, \"f\": 1.5}";
    json_cur c;
    json_init(&c, doc, strlen(doc));
    char key[8], s[32];
    bool more;
    size_t len;
    uint64_t v;
    assert_true(json_open(&c, '{'));
    assert_true(json_next(&c, '}', &more) && more);
    assert_true(json_key(&c, key, sizeof key));
    assert_string_equal(key, "s");
    assert_true(json_string(&c, s, sizeof s, &len));
    assert_string_equal(s, "a\xc3\xa9\xf0\x9f\x98\x80" "b");
    assert_int_equal(len, 8);
    assert_true(json_next(&c, '}', &more) && more);
    assert_true(json_key(&c, key, sizeof key));
    assert_true(json_uint(&c, &v));
    assert_true(v == UINT64_MAX);
    assert_true(json_next(&c, '}', &more) && more);
    assert_true(json_key(&c, key, sizeof key));
    assert_false(json_uint(&c, &v)); /* 2^64 */
    char why[64];
    json_error(&c, why, sizeof why);
    assert_non_null(strstr(why, "too large"));
    assert_int_equal(json_peek(&c), -1); /* stopped for good */

    /* a string cut to its buffer, its whole length still told */
    json_init(&c, "\"abcdef\"", 8);
    assert_true(json_string(&c, s, 4, &len));
    assert_string_equal(s, "abc");
    assert_int_equal(len, 6);
    json_init(&c, "1.5", 3);
    assert_false(json_uint(&c, &v));
}

/* -------------------------------------------------------------- chunked */

typedef struct sink {
    char buf[4096];
    size_t n;
} sink;

static int to_sink(void *user, const char *p, size_t n)
{
    sink *s = user;
    assert_true(s->n + n <= sizeof s->buf);
    memcpy(s->buf + s->n, p, n);
    s->n += n;
    return 0;
}

/* Decodes text in two pieces split at `at`: the status, the data in d. */
static int chunked_split(const char *text, size_t at, sink *d, size_t *used_total)
{
    http_chunked c;
    http_chunked_init(&c);
    d->n = 0;
    size_t n = strlen(text), used;
    int rc = http_chunked_feed(&c, text, at, &used, to_sink, d);
    *used_total = used;
    if (rc == CHUNKED_MORE) {
        rc = http_chunked_feed(&c, text + at, n - at, &used, to_sink, d);
        *used_total += used;
    }
    return rc;
}

static void test_chunked(void **state)
{
    (void)state;
    const char *text = "5;ext=1\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\n"
                       "Trailer: x\r\n\r\nNEXT";
    size_t n = strlen(text);
    for (size_t at = 0; at <= n; at++) {
        sink d;
        size_t used;
        assert_int_equal(chunked_split(text, at, &d, &used), CHUNKED_DONE);
        assert_int_equal(d.n, 31);
        assert_memory_equal(d.buf, "helloabcdefghijklmnopqrstuvwxyz", 31);
        assert_int_equal(used, n - 4); /* "NEXT" is not the body's */
    }
    const char *bad[] = { "x\r\n", "5\r\nhelloXX", "5x\r\nhello\r\n", "fffffffffffffffff\r\n" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sink d;
        size_t used;
        assert_int_equal(chunked_split(bad[i], 0, &d, &used), CHUNKED_ERROR);
    }
    /* bare LF line ends are taken */
    sink d;
    size_t used;
    assert_int_equal(chunked_split("3\nabc\n0\n\n", 2, &d, &used), CHUNKED_DONE);
    assert_int_equal(d.n, 3);
}

/* ---------------------------------------------------------- http_response */

static int http_all(const char *text, http_response *h, sink *d)
{
    http_response_init(h);
    d->n = 0;
    size_t used;
    return http_response_feed(h, text, strlen(text), &used, to_sink, d);
}

static void test_http_framing(void **state)
{
    (void)state;
    http_response h;
    sink d;
    assert_int_equal(http_all("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef", &h, &d),
                     HTTP_DONE);
    assert_int_equal(h.status, 200);
    assert_true(h.keep_alive);
    assert_int_equal(d.n, 3);
    assert_true(http_response_complete(&h));

    /* interim responses are skipped; chunked; Connection: close */
    assert_int_equal(http_all("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n"
                              "Transfer-Encoding: Chunked\r\nConnection: Close\r\n"
                              "Content-Type: text/event-stream; charset=utf-8\r\n\r\n"
                              "2\r\nab\r\n0\r\n\r\n",
                              &h, &d),
                     HTTP_DONE);
    assert_true(h.chunked && h.event_stream && !h.keep_alive);
    assert_int_equal(d.n, 2);

    /* HTTP/1.0 closes unless told otherwise; a body without a length
     * ends at the close */
    assert_int_equal(http_all("HTTP/1.0 200 OK\r\n\r\nabc", &h, &d), HTTP_MORE);
    assert_false(h.keep_alive);
    assert_int_equal(http_response_eof(&h), HTTP_DONE);
    assert_int_equal(d.n, 3);
    assert_int_equal(http_all("HTTP/1.0 204 No Content\r\nConnection: keep-alive\r\n\r\n", &h,
                              &d),
                     HTTP_DONE);
    assert_true(h.keep_alive && h.no_body);

    /* cut short */
    assert_int_equal(http_all("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc", &h, &d),
                     HTTP_MORE);
    assert_int_equal(http_response_eof(&h), HTTP_ERROR);
    assert_non_null(strstr(h.why, "end of the body"));
    http_response_init(&h);
    assert_int_equal(http_response_eof(&h), HTTP_ERROR);
    assert_non_null(strstr(h.why, "before a response"));

    const char *bad[] = {
        "HTTP/2 200\r\n\r\n",
        "HTTP/1.1 2x0 OK\r\n\r\n",
        "HTTP/1.1 200OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nBad Header: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
        "HTTP/1.1 101 Switching Protocols\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (http_all(bad[i], &h, &d) != HTTP_ERROR)
            fail_msg("accepted: %s", bad[i]);

    /* a head line longer than the parser holds */
    static char big[HTTP_LINE_MAX + 64];
    strcpy(big, "HTTP/1.1 200 OK\r\nX: ");
    memset(big + strlen(big), 'a', HTTP_LINE_MAX);
    big[sizeof big - 1] = '\0';
    http_response_init(&h);
    size_t used, half = sizeof big / 2;
    assert_int_equal(http_response_feed(&h, big, half, &used, NULL, NULL), HTTP_MORE);
    assert_int_equal(http_response_feed(&h, big + half, strlen(big) - half, &used, NULL, NULL),
                     HTTP_ERROR);
}

/* ------------------------------------------------------------------ sse */

typedef struct events {
    char text[4096]; /* "type|data;" per event */
    size_t n;
} events;

static int collect(void *user, const sse_event *ev)
{
    events *e = user;
    int w = snprintf(e->text + e->n, sizeof e->text - e->n, "%s|%s;", ev->type, ev->data);
    e->n += (size_t)w;
    return 0;
}

static void sse_split(const char *text, size_t at, events *e)
{
    sse_parser s;
    sse_init(&s, 1 << 20);
    e->n = 0;
    e->text[0] = '\0';
    size_t used, n = strlen(text);
    assert_int_equal(sse_feed(&s, text, at, &used, collect, e), SSE_MORE);
    assert_int_equal(sse_feed(&s, text + at, n - at, &used, collect, e), SSE_MORE);
    sse_free(&s);
}

static void test_sse(void **state)
{
    (void)state;
    const char *text = "\xef\xbb\xbf: comment\r\ndata: a\r\ndata:  b\r\n\r\n"
                       "event: error\ndata\nid: 7\nretry: 10\n\n"
                       "data: x\rdata: y\r\r"
                       "data:\n\n"
                       "\n\n"
                       "event: unused\n\n"
                       "data: last\n\n"
                       "data: incomplete";
    const char *want = "|a\n b;error|;|x\ny;|;|last;";
    for (size_t at = 0; at <= strlen(text); at++) {
        events e;
        sse_split(text, at, &e);
        if (strcmp(e.text, want) != 0)
            fail_msg("split at %zu: %s", at, e.text);
    }
    /* a BOM that is not one is text */
    events e;
    sse_split("\xef\xbb" "data: z\n\n", 1, &e);
    assert_string_equal(e.text, "");
    sse_split("data: a\n\n\xef\xbb\xbf" "data: b\n\n", 3, &e);
    assert_string_equal(e.text, "|a;");

    /* the limit on an event */
    sse_parser s;
    sse_init(&s, 16);
    size_t used;
    assert_int_equal(sse_feed(&s, "data: 0123456789\n", 17, &used, collect, &e), SSE_MORE);
    assert_int_equal(sse_feed(&s, "data: 0123456789\n", 17, &used, collect, &e), SSE_ERROR);
    assert_non_null(s.why);
    sse_free(&s);
}

/* ---------------------------------------------------------- openai_chunk */

static chunk_info read_chunk(const char *json)
{
    chunk_info c;
    assert_true(chunk_read(json, strlen(json), &c));
    return c;
}

static void test_chunk_shapes(void **state)
{
    (void)state;
    chunk_info c = read_chunk("{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
                              "\"content\":null}}]}");
    assert_true(c.choices && !c.content);
    c = read_chunk("{\"choices\":[{\"delta\":{\"reasoning_content\":\"hm\"}}]}");
    assert_true(c.content);
    c = read_chunk("{\"choices\":[{\"delta\":{\"reasoning\":\"hm\",\"content\":\"\"}}]}");
    assert_true(c.content);
    c = read_chunk("{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":"
                   "{\"arguments\":\"{\\\"\"}}]}}]}");
    assert_true(c.content);
    c = read_chunk("{\"choices\":[{\"delta\":{\"tool_calls\":[]}}]}");
    assert_true(c.choices && !c.content);
    c = read_chunk("{\"choices\":[{\"text\":\"\",\"finish_reason\":\"length\"}],"
                   "\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":7,"
                   "\"total_tokens\":10}}");
    assert_true(c.choices && !c.content);
    assert_string_equal(c.finish_reason, "length");
    assert_true(c.has_prompt_tokens && c.prompt_tokens == 3);
    assert_true(c.has_completion_tokens && c.completion_tokens == 7);
    c = read_chunk("{\"choices\":[],\"usage\":{\"completion_tokens\":null}}");
    assert_false(c.choices || c.has_completion_tokens);
    c = read_chunk("{\"choices\":[{\"text\":\"a b\",\"logprobs\":{\"tokens\":[\"a\",\" b\"],"
                   "\"token_logprobs\":[-1,-2]}}]}");
    assert_true(c.has_logprobs && c.logprobs == 2);
    c = read_chunk("{\"choices\":[{\"delta\":{\"content\":\"a\"},\"logprobs\":{\"content\":"
                   "[{\"token\":\"a\",\"top_logprobs\":[]}]}},{\"delta\":{\"content\":\"b\"},"
                   "\"logprobs\":{\"content\":[{},{}]}}]}");
    assert_true(c.logprobs == 3);
    /* unexpected types are skipped, not errors */
    c = read_chunk("{\"choices\":{\"text\":\"x\"},\"usage\":[1],\"error\":null}");
    assert_false(c.choices || c.error);

    c = read_chunk("{\"error\":{\"message\":\"boom\",\"code\":500}}");
    assert_true(c.error);
    assert_string_equal(c.message, "boom");
    c = read_chunk("{\"error\":\"oom\",\"error_type\":\"generation\"}");
    assert_true(c.error);
    assert_string_equal(c.message, "oom");
    c = read_chunk("{\"message\":\"bad\",\"object\":\"error\",\"code\":400}");
    assert_true(c.error);
    assert_string_equal(c.message, "bad");
    c = read_chunk("{\"error\":{}}");
    assert_true(c.error && c.message[0]);

    const char *bad[] = { "", "[]", "{\"choices\":[}", "{} {}", "{\"a\":1", "data" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        chunk_info b;
        assert_false(chunk_read(bad[i], strlen(bad[i]), &b));
        assert_true(b.message[0] != '\0' || bad[i][0] == '\0');
    }
}

/* ------------------------------------------------------------ transcripts */

#define MAX_KS 64

typedef struct result {
    int outcome;
    char reason[STREAM_REASON_MAX];
    uint32_t ks[MAX_KS];
    size_t n;
    bool has_prompt, has_completion, complete;
    uint64_t prompt, completion, missing;
} result;

static int take_event(void *user, uint32_t k)
{
    result *r = user;
    assert_true(r->n < MAX_KS);
    r->ks[r->n++] = k;
    return 0;
}

/* Feeds bytes in pieces ending at cuts[0..ncuts) and n, as the loop feeds
 * its reads: after the outcome, only while the response goes on. */
static result run_stream(const char *bytes, size_t n, int count, const size_t *cuts,
                         size_t ncuts)
{
    completion_stream s;
    stream_init(&s, count);
    result r = { 0 };
    size_t from = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t to = i < ncuts ? cuts[i] : n;
        while (from < to && s.outcome != STREAM_FAILED && !stream_http_complete(&s)) {
            size_t used;
            stream_feed(&s, bytes + from, to - from, &used, take_event, &r);
            from += used;
            if (used == 0)
                break;
        }
    }
    if (s.outcome == STREAM_MORE || !stream_http_complete(&s))
        stream_eof(&s); /* every transcript ends at the server's close */
    r.outcome = s.outcome;
    snprintf(r.reason, sizeof r.reason, "%s", s.reason);
    r.has_prompt = s.has_prompt_tokens;
    r.prompt = s.prompt_tokens;
    r.has_completion = s.has_completion_tokens;
    r.completion = s.completion_tokens;
    r.complete = stream_http_complete(&s);
    r.missing = s.logprobs_missing;
    stream_free(&s);
    return r;
}

static char *read_file(const char *dir, const char *name, size_t *n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    static char buf[1 << 16];
    *n = fread(buf, 1, sizeof buf, f);
    assert_true(*n < sizeof buf);
    fclose(f);
    char *copy = malloc(*n);
    memcpy(copy, buf, *n);
    return copy;
}

static void assert_same(const result *a, const result *b, const char *name, size_t at)
{
    if (a->outcome != b->outcome || strcmp(a->reason, b->reason) != 0 || a->n != b->n ||
        memcmp(a->ks, b->ks, a->n * sizeof a->ks[0]) != 0 || a->prompt != b->prompt ||
        a->completion != b->completion || a->complete != b->complete)
        fail_msg("%s split at %zu: outcome %d/%d, events %zu/%zu, reason '%s'/'%s'", name, at,
                 a->outcome, b->outcome, a->n, b->n, a->reason, b->reason);
}

/* What a transcript must give. */
typedef struct expect {
    const char *file;
    int outcome;
    const char *reason_prefix;         /* failures */
    const char *ks;                    /* one digit per event, chunks counted */
    const char *ks_logprobs;           /* the same, logprobs counted */
    long long prompt, completion;      /* -1: none */
} expect;

static const expect TRANSCRIPTS[] = {
    { "llama-server/completions-usage.http", STREAM_OK, NULL, "111110", "111110", 4, 5 },
    { "llama-server/chat-usage.http", STREAM_OK, NULL, "011110", "011110", 20, 4 },
    { "llama-server/completions-logprobs.http", STREAM_OK, NULL, "1110", "1110", 2, 3 },
    { "llama-server/chat-logprobs.http", STREAM_OK, NULL, "01110", "01110", 17, 3 },
    { "llama-server/too-long.http", STREAM_FAILED,
      "HTTP 400: {\"error\":{\"code\":400,\"message\":\"request (700 tokens) exceeds", "", "",
      -1, -1 },
    { "llama-server/bad-json.http", STREAM_FAILED, "HTTP 500: {\"error\":{\"code\":500", "", "",
      -1, -1 },
    { "vllm/completions-usage.http", STREAM_OK, NULL, "11111", "11111", 6, 5 },
    { "vllm/completions-logprobs-spec.http", STREAM_OK, NULL, "111", "132", 6, 6 },
    { "vllm/chat-usage.http", STREAM_OK, NULL, "01110", "01110", 12, 4 },
    { "vllm/chat-error.http", STREAM_FAILED, "error in the stream: The decoder prompt", "01",
      "01", -1, -1 },
    { "vllm/not-found.http", STREAM_FAILED, "HTTP 404: {\"error\":{\"message\":\"The model", "",
      "", -1, -1 },
    { "sglang/completions-interval4.http", STREAM_OK, NULL, "111", "442", 9, 10 },
    { "sglang/completions-abort.http", STREAM_FAILED, "error in the stream: Generation aborted.",
      "1", "1", -1, -1 },
    { "tgi/chat-usage.http", STREAM_OK, NULL, "11111", "11111", 40, 5 },
    { "tgi/chat-error.http", STREAM_FAILED,
      "error in the stream: Request failed during generation", "1", "1", -1, -1 },
    { "tgi/validation.http", STREAM_FAILED, "HTTP 422: {\"error\":\"Input validation error", "",
      "", -1, -1 },
};

static void check_expect(const expect *e, const result *r, int count)
{
    const char *ks = count == STREAM_COUNT_LOGPROBS ? e->ks_logprobs : e->ks;
    if (r->outcome != e->outcome)
        fail_msg("%s: outcome %d, reason '%s'", e->file, r->outcome, r->reason);
    if (e->reason_prefix && strncmp(r->reason, e->reason_prefix, strlen(e->reason_prefix)) != 0)
        fail_msg("%s: reason '%s'", e->file, r->reason);
    if (r->n != strlen(ks))
        fail_msg("%s: %zu events, want %zu", e->file, r->n, strlen(ks));
    for (size_t i = 0; i < r->n; i++)
        if (r->ks[i] != (uint32_t)(ks[i] - '0'))
            fail_msg("%s: event %zu has %u tokens, want %c", e->file, i, r->ks[i], ks[i]);
    assert_int_equal(r->has_prompt, e->prompt >= 0);
    assert_int_equal(r->has_completion, e->completion >= 0);
    if (e->prompt >= 0)
        assert_int_equal(r->prompt, e->prompt);
    if (e->completion >= 0)
        assert_int_equal(r->completion, e->completion);
    if (e->outcome == STREAM_OK)
        assert_true(r->complete); /* read to the end: the connection is reusable */
}

static void test_transcripts(void **state)
{
    (void)state;
    for (size_t t = 0; t < sizeof TRANSCRIPTS / sizeof TRANSCRIPTS[0]; t++) {
        const expect *e = &TRANSCRIPTS[t];
        size_t n;
        char *bytes = read_file(data_dir, e->file, &n);
        for (int count = 0; count < 2; count++) {
            result whole = run_stream(bytes, n, count, NULL, 0);
            check_expect(e, &whole, count);
            for (size_t at = 0; at <= n; at++) {
                result split = run_stream(bytes, n, count, &at, 1);
                assert_same(&whole, &split, e->file, at);
            }
            size_t *cuts = malloc(n * sizeof *cuts);
            for (size_t i = 0; i < n; i++)
                cuts[i] = i + 1;
            result bytewise = run_stream(bytes, n, count, cuts, n);
            assert_same(&whole, &bytewise, e->file, 1);
            free(cuts);
        }
        free(bytes);
    }
}

/* Logprobs asked for, none sent: each chunk with output counts 1, and
 * says so. */
static void test_logprobs_missing(void **state)
{
    (void)state;
    size_t n;
    char *bytes = read_file(data_dir, "llama-server/completions-usage.http", &n);
    result r = run_stream(bytes, n, STREAM_COUNT_LOGPROBS, NULL, 0);
    assert_int_equal(r.missing, 5);
    r = run_stream(bytes, n, STREAM_COUNT_CHUNKS, NULL, 0);
    assert_int_equal(r.missing, 0);
    free(bytes);
}

/* The stream's own failures, and its successes without [DONE]. */
static void test_stream_outcomes(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        int outcome;
        const char *reason;
    } CASES[] = {
        { "HTTP/1.1 200 OK\r\nContent-Length: 57\r\n\r\n"
          "data: {\"choices\":[{\"text\":\"a\",\"finish_reason\":\"stop\"}]}\n\n",
          STREAM_OK, "" },
        { "HTTP/1.1 200 OK\r\n\r\ndata: {\"choices\":[{\"text\":\"a\"}]}\n\n", STREAM_FAILED,
          "the stream ended before [DONE]" }, /* the close ends such a body */
        { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
          "22\r\ndata: {\"choices\":[{\"text\":\"a\"}]}\n\n\r\n",
          STREAM_FAILED, "connection closed mid-stream" },
        { "HTTP/1.1 200 OK\r\nContent-Length: 34\r\n\r\n"
          "data: {\"choices\":[{\"text\":\"a\"}]}\n\n",
          STREAM_FAILED, "the stream ended before [DONE]" },
        { "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n{\"text\":\"a\"}", STREAM_FAILED,
          "no event stream in the response: {\"text\":\"a\"}" },
        { "HTTP/1.1 200 OK\r\n\r\ndata: {\"choices\":[{\"text\":\"a\"}\n\n", STREAM_FAILED,
          "malformed JSON in a chunk (unterminated container at byte 24): "
          "{\"choices\":[{\"text\":\"a\"}" },
        { "HTTP/1.1 200 OK\r\n\r\nevent: error\ndata: overloaded\n\n", STREAM_FAILED,
          "error in the stream: overloaded" },
        { "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 20\r\n\r\nbusy\r\n",
          STREAM_FAILED, "HTTP 503 (body cut short): busy  " },
        { "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", STREAM_FAILED,
          "malformed HTTP response: chunk size is not hexadecimal" },
        { "HTTP/1.1 200", STREAM_FAILED,
          "connection closed in the response head" },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        result r = run_stream(CASES[i].bytes, strlen(CASES[i].bytes), STREAM_COUNT_CHUNKS,
                              NULL, 0);
        if (r.outcome != CASES[i].outcome || strcmp(r.reason, CASES[i].reason) != 0)
            fail_msg("case %zu: outcome %d, reason '%s'", i, r.outcome, r.reason);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_stream DATA_DIR\n");
        return 2;
    }
    data_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_grammar),
        cmocka_unit_test(test_json_values),
        cmocka_unit_test(test_chunked),
        cmocka_unit_test(test_http_framing),
        cmocka_unit_test(test_sse),
        cmocka_unit_test(test_chunk_shapes),
        cmocka_unit_test(test_transcripts),
        cmocka_unit_test(test_logprobs_missing),
        cmocka_unit_test(test_stream_outcomes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
