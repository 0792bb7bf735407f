/* A growable text buffer for the report writers, and the number formats
 * they share. Appends never fail one by one: the first allocation failure
 * is remembered (`status`) and later appends do nothing, so a writer checks
 * once at the end. Numbers are written with '.' whatever the C locale. */
#ifndef LLMLAT_REPORT_BUF_H
#define LLMLAT_REPORT_BUF_H

#include <stdbool.h>
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

LLMLAT_PRIVATE void rbuf_putn(rbuf *b, const char *s, size_t n);
LLMLAT_PRIVATE void rbuf_puts(rbuf *b, const char *s);
/* s with '\\' and newline written as \\ and \n, and '"' as \" when `quote`:
 * Prometheus' escapes for label values (quote) and HELP text. */
LLMLAT_PRIVATE void rbuf_escaped(rbuf *b, const char *s, bool quote);
/* s as the inside of a JSON string: '"', '\\' and control characters
 * escaped (UTF-8 passes through). */
LLMLAT_PRIVATE void rbuf_json_escaped(rbuf *b, const char *s);
/* n bytes inserted at offset `at` <= len, the bytes after it moved up. */
LLMLAT_PRIVATE void rbuf_insert(rbuf *b, size_t at, const char *s, size_t n);
/* The buffer contract of the API's buffer-writing calls: *len = the size,
 * and a copy into buf when it fits (cap), else ENOSPC and nothing
 * written. */
LLMLAT_PRIVATE int32_t rbuf_deliver(const rbuf *b, void *buf, size_t cap, size_t *len);
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
