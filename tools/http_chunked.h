/* HTTP/1.1 chunked transfer coding (RFC 9112, section 7.1), decoded as
 * bytes arrive: a pure function of the bytes, which may be split anywhere.
 * Chunk extensions and trailer fields are read and dropped. */
#ifndef LLMLAT_HTTP_CHUNKED_H
#define LLMLAT_HTTP_CHUNKED_H

#include <stddef.h>
#include <stdint.h>

/* What http_chunked_feed found. */
#define CHUNKED_MORE 0  /* every byte was used: feed more */
#define CHUNKED_DONE 1  /* the last chunk and the trailer were read */
#define CHUNKED_ERROR 2 /* malformed: http_chunked.why says how */
#define CHUNKED_STOP 3  /* the data callback asked to stop */

/* Longest chunk-size line, trailer line or extension kept track of. */
#define CHUNKED_LINE_MAX 4096

typedef struct http_chunked {
    int state;
    uint64_t size;   /* of the chunk being read, then its bytes left */
    size_t line;     /* bytes of the current size or trailer line */
    int digits;
    const char *why; /* static, after CHUNKED_ERROR */
} http_chunked;

/* Receives a span of decoded data; nonzero stops the decoding. */
typedef int (*http_data_fn)(void *user, const char *data, size_t len);

void http_chunked_init(http_chunked *c);

/* Decodes the next len bytes, handing the data to fn as spans of p. *used
 * is the number of bytes consumed: len unless DONE came before the end
 * (the bytes after the message), or STOP (the bytes after the span that
 * stopped). */
int http_chunked_feed(http_chunked *c, const char *p, size_t len, size_t *used, http_data_fn fn,
                      void *user);

#endif
