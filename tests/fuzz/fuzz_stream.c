/* Fuzz target (e): what `llmlat bench` reads from a server -- an HTTP
 * response, its chunked coding, its server-sent events and their chunks
 * (tools/completion_stream.c and the parsers under it) -- on arbitrary
 * bytes. Besides memory errors it checks that the bytes fed in pieces give
 * exactly what they give fed whole (the events, their tokens, the usage,
 * the outcome and its reason), as a network splits them anywhere; and the
 * chunk reader on the bytes themselves, which it must take exactly when
 * the JSON scanner finds one object there.
 *
 * The first byte chooses the token counting (bit 0) and the piece size
 * (the rest, 1 to 128 bytes); the bytes after it are the response. The
 * seeds are the transcripts of tests/bench/data behind such a byte. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "completion_stream.h"
#include "json_scan.h"
#include "openai_chunk.h"

#define MAX_EVENTS 4096

typedef struct outcome {
    int outcome;
    char reason[STREAM_REASON_MAX];
    uint32_t ks[MAX_EVENTS];
    size_t n;
    uint64_t prompt, completion, events;
    bool has_prompt, has_completion, complete;
} outcome;

static int take(void *user, uint32_t k)
{
    outcome *o = user;
    if (o->n < MAX_EVENTS)
        o->ks[o->n] = k;
    o->n++;
    return 0;
}

static void run(const uint8_t *p, size_t n, int count, size_t piece, outcome *o)
{
    completion_stream s;
    stream_init(&s, count);
    memset(o, 0, sizeof *o);
    size_t from = 0;
    while (from < n && s.outcome != STREAM_FAILED && !stream_http_complete(&s)) {
        size_t len = n - from < piece ? n - from : piece, used;
        stream_feed(&s, (const char *)p + from, len, &used, take, o);
        if (used > len)
            abort();
        from += used;
        if (used < len) /* the response ended before these bytes */
            break;
    }
    if (s.outcome == STREAM_MORE || !stream_http_complete(&s))
        stream_eof(&s);
    if (s.outcome == STREAM_MORE)
        abort(); /* the close always decides */
    o->outcome = s.outcome;
    memcpy(o->reason, s.reason, sizeof o->reason);
    o->has_prompt = s.has_prompt_tokens;
    o->prompt = s.prompt_tokens;
    o->has_completion = s.has_completion_tokens;
    o->completion = s.completion_tokens;
    o->events = s.events;
    o->complete = stream_http_complete(&s);
    stream_free(&s);
}

static bool same(const outcome *a, const outcome *b)
{
    size_t kept = a->n < MAX_EVENTS ? a->n : MAX_EVENTS;
    return a->outcome == b->outcome && strcmp(a->reason, b->reason) == 0 && a->n == b->n &&
           memcmp(a->ks, b->ks, kept * sizeof a->ks[0]) == 0 && a->prompt == b->prompt &&
           a->completion == b->completion && a->has_prompt == b->has_prompt &&
           a->has_completion == b->has_completion && a->events == b->events &&
           a->complete == b->complete;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int count = data[0] & 1;
    size_t piece = 1 + (data[0] >> 1);
    static outcome whole, pieces;
    run(data + 1, size - 1, count, size, &whole);
    run(data + 1, size - 1, count, piece, &pieces);
    if (!same(&whole, &pieces))
        abort();
    if (whole.events != whole.n || strlen(whole.reason) >= STREAM_REASON_MAX)
        abort();

    /* the chunk reader takes exactly the bytes that are one JSON object */
    chunk_info c;
    bool read = chunk_read((const char *)data + 1, size - 1, &c);
    json_cur j;
    json_init(&j, data + 1, size - 1);
    bool object = json_peek(&j) == '{' && json_skip(&j) && json_end(&j);
    if (read != object)
        abort();
    return 0;
}
