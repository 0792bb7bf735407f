/* A growable text buffer for the report writers, and the number formats
 * they share. Appends never fail one by one: the first allocation failure
 * is remembered (`status`) and later appends do nothing, so a writer checks
 * once at the end. Numbers are written with '.' whatever the C locale. */
#ifndef LLMLAT_REPORT_BUF_H
#define LLMLAT_REPORT_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"

typedef struct rbuf {
    const llmlat_alloc *al;
    char *p;
    size_t len, cap;
    int32_t status; /* LLMLAT_OK, or ENOMEM after a failed growth */
} rbuf;

LLMLAT_PRIVATE void rbuf_init(rbuf *b, const llmlat_alloc *al);
LLMLAT_PRIVATE void rbuf_free(rbuf *b);

/* The buffer contract of the report calls, for a text built in b whose
 * writer ended with status st: on success the text is copied to buf when
 * cap holds it (ENOSPC otherwise, with nothing written), *len is its size.
 * Returns the call's status; b is freed. */
LLMLAT_PRIVATE int32_t rbuf_deliver(rbuf *b, int32_t st, void *buf, size_t cap, size_t *len);

LLMLAT_PRIVATE void rbuf_putn(rbuf *b, const char *s, size_t n);
LLMLAT_PRIVATE void rbuf_puts(rbuf *b, const char *s);
/* s followed by spaces up to `width` bytes (nothing added when longer). */
LLMLAT_PRIVATE void rbuf_pad(rbuf *b, const char *s, size_t width);
LLMLAT_PRIVATE void rbuf_u64(rbuf *b, uint64_t v);
/* The shortest text that reads back as the same double ("0.1", "1e-05");
 * NaN and infinities as `nan_text` / "+Inf" / "-Inf". */
LLMLAT_PRIVATE void rbuf_double(rbuf *b, double v, const char *nan_text);
/* Fixed-point with `decimals` digits after the point, right-aligned in
 * `width` bytes; NaN as `nan_text`. */
LLMLAT_PRIVATE void rbuf_fixed(rbuf *b, double v, int decimals, size_t width, const char *nan_text);
/* A quantile q in [0, 1] as a percentage, NUL-terminated in out (at least
 * PERCENT_TEXT_MAX bytes): 0.5 -> "50", 0.999 -> "99.9". */
#define PERCENT_TEXT_MAX 32
LLMLAT_PRIVATE void percent_text(double q, char *out);

#endif
