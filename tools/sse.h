/* Server-sent events (the WHATWG HTML standard, "Parsing an event stream")
 * as the bytes of a response body arrive: lines ending in CRLF, LF or CR,
 * fields "name: value", comments (lines starting with ':'), multi-line
 * data joined by '\n', an event dispatched at each empty line. A pure
 * function of the bytes, which may be split anywhere (a CRLF too). It
 * keeps the unfinished line and the event's data in buffers of its own,
 * each up to `max_event` bytes: a longer line or event is an error. */
#ifndef LLMLAT_SSE_H
#define LLMLAT_SSE_H

#include <stdbool.h>
#include <stddef.h>

/* What sse_feed found. */
#define SSE_MORE 0  /* every byte was used */
#define SSE_ERROR 1 /* a line or event beyond max_event, or no memory: .why */
#define SSE_STOP 2  /* the event callback asked to stop */

#define SSE_TYPE_MAX 64 /* longer event types are cut */

typedef struct sse_event {
    const char *type; /* "" when the event named none ("message") */
    const char *data; /* NUL-terminated; data_len bytes (may hold NULs) */
    size_t data_len;
} sse_event;

/* Receives an event, valid during the call; nonzero stops the parse. */
typedef int (*sse_event_fn)(void *user, const sse_event *ev);

typedef struct sse_parser {
    size_t max_event;
    char *line, *data;
    size_t line_len, line_cap, data_len, data_cap;
    char type[SSE_TYPE_MAX];
    unsigned bom;   /* bytes of a leading byte order mark matched; 4: past it */
    bool cr;        /* the last byte was CR: an LF right after belongs to it */
    const char *why;
} sse_parser;

void sse_init(sse_parser *s, size_t max_event);
/* For a new stream, keeping the buffers. */
void sse_reset(sse_parser *s);
void sse_free(sse_parser *s);

/* Parses the next len bytes of the stream. *used: the bytes consumed (len
 * but after STOP: the bytes up to the end of the line that dispatched). */
int sse_feed(sse_parser *s, const char *p, size_t len, size_t *used, sse_event_fn fn,
             void *user);

#endif
