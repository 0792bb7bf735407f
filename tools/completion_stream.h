/* One streamed completion as its bytes arrive: the HTTP response
 * (http_response), its server-sent events (sse), each event's chunk
 * (openai_chunk), and what a latency measurement takes from them -- the
 * events and their tokens, the usage counts, how the request ended and
 * why. A pure function of the bytes, which may be split anywhere; the one
 * place that says what counts as an event, a success and a failure:
 *
 *   event    a chunk with a non-empty "choices" array (the role chunk and
 *            an empty final chunk too, with 0 tokens; a usage-only chunk
 *            with "choices": [] is none). Its tokens: 1 when it carries
 *            output, else 0; with STREAM_COUNT_LOGPROBS, its logprobs
 *            entries (a chunk with output but no logprobs counts 1).
 *   success  "data: [DONE]"; or the body's proper end after a chunk with a
 *            finish_reason (servers that send no [DONE]).
 *   failure  an HTTP status other than 2xx (the reason: the status and the
 *            body's first 200 bytes, once the body ended), an error object
 *            in the stream, a chunk that is not JSON, a malformed response,
 *            the body's end with neither, the connection closed early. */
#ifndef LLMLAT_COMPLETION_STREAM_H
#define LLMLAT_COMPLETION_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http_response.h"
#include "sse.h"

/* How tokens are counted. */
#define STREAM_COUNT_CHUNKS 0   /* one per chunk with output */
#define STREAM_COUNT_LOGPROBS 1 /* the chunk's logprobs entries */

/* What stream_feed and stream_eof found. */
#define STREAM_MORE 0   /* nothing decided yet */
#define STREAM_OK 1     /* the request succeeded (the body may go on) */
#define STREAM_FAILED 2 /* the request failed: .reason */

#define STREAM_BODY_KEPT 200     /* bytes of a body kept for a reason */
#define STREAM_REASON_MAX 320
#define STREAM_EVENT_MAX (16u << 20) /* the largest event */

/* Receives an event of the stream carrying k tokens; nonzero stops the
 * reading (the request then fails with the reason the caller sets). */
typedef int (*stream_event_fn)(void *user, uint32_t k);

typedef struct completion_stream {
    int count;                     /* STREAM_COUNT_* */
    http_response http;
    sse_parser sse;
    int outcome;                   /* STREAM_MORE until decided */
    char reason[STREAM_REASON_MAX];
    uint64_t events, logprobs_missing; /* chunks with output but no logprobs */
    bool has_prompt_tokens, has_completion_tokens;
    uint64_t prompt_tokens, completion_tokens;
    bool finish_reason;            /* a chunk gave one */
    char body[STREAM_BODY_KEPT + 1];
    size_t body_len;
    stream_event_fn fn;            /* during stream_feed */
    void *user;
    bool stopped;                  /* fn asked to stop */
} completion_stream;

void stream_init(completion_stream *s, int count);
/* For the next response, keeping the buffers. */
void stream_begin(completion_stream *s);
void stream_free(completion_stream *s);

/* The next len bytes of the connection, all read at one time. Returns the
 * outcome once decided (and keeps returning it); after STREAM_OK, bytes
 * up to the end of the response are still taken, and http_complete says
 * when it ended. *used: the bytes consumed (fewer than len only when the
 * response ended before them). */
int stream_feed(completion_stream *s, const char *p, size_t len, size_t *used,
                stream_event_fn fn, void *user);

/* The connection was closed by the peer. */
int stream_eof(completion_stream *s);

/* The response was read to its end (the connection may then carry another
 * request when the response allows it: s->http.keep_alive). */
bool stream_http_complete(const completion_stream *s);

/* Sets a failure decided by the caller (a timeout, a reset connection),
 * unless the outcome was already decided. */
void stream_fail(completion_stream *s, const char *fmt, ...);

#endif
