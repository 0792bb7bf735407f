/* An HTTP/1.1 response as its bytes arrive (RFC 9112): the status line and
 * the header fields, then the body as the framing says -- chunked,
 * Content-Length, or up to the connection's close -- handed out as spans
 * of decoded bytes. A pure function of the bytes, which may be split
 * anywhere; no allocation (a header line is held in the parser, up to
 * HTTP_LINE_MAX bytes). Interim 1xx responses are skipped. */
#ifndef LLMLAT_HTTP_RESPONSE_H
#define LLMLAT_HTTP_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http_chunked.h"

/* What http_response_feed and http_response_eof found. */
#define HTTP_MORE 0  /* every byte was used: feed more */
#define HTTP_DONE 1  /* the response is complete */
#define HTTP_ERROR 2 /* malformed, or cut short: .why says how */
#define HTTP_STOP 3  /* the body callback asked to stop */

#define HTTP_LINE_MAX 8192   /* the longest status or header line */
#define HTTP_HEAD_MAX 65536  /* the whole head */

typedef struct http_response {
    /* What the head said, once head_done (status from the status line). */
    int status;
    bool head_done;
    bool chunked;           /* Transfer-Encoding: chunked */
    bool has_length;        /* Content-Length given */
    uint64_t content_length;
    bool keep_alive;        /* the connection may carry another request */
    bool event_stream;      /* Content-Type: text/event-stream */
    bool no_body;           /* 204 or 304 */
    uint64_t body_bytes;    /* decoded body bytes so far */
    const char *why;        /* static, after HTTP_ERROR */
    /* The parser's own. */
    int state;
    int minor;              /* HTTP/1.minor */
    bool saw_close, saw_keep_alive, saw_te;
    bool stopped;           /* the body callback stopped the reading */
    size_t line_len, head_len;
    uint64_t left;          /* Content-Length bytes still to come */
    http_chunked ck;
    char line[HTTP_LINE_MAX];
} http_response;

void http_response_init(http_response *h);

/* The next len bytes from the connection. The body's bytes go to fn (NULL:
 * dropped) as spans. *used is the number of bytes consumed: less than len
 * only after DONE (bytes beyond the response) or STOP. */
int http_response_feed(http_response *h, const char *p, size_t len, size_t *used,
                       http_data_fn fn, void *user);

/* The response was read to its end, without an error (nor a stop). */
bool http_response_complete(const http_response *h);

/* The peer closed the connection: DONE when that ends a body delimited by
 * the close, ERROR when the response was cut short (.why). */
int http_response_eof(http_response *h);

#endif
