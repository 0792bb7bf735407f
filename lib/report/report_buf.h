/* The report writers' output: appends go into a fixed chunk that is handed
 * to the caller's write function whenever it fills, and once more at the
 * end (rbuf_flush), so a report of any size streams through 4 KiB and
 * nothing is allocated for it. Appends never fail one by one: the first
 * error (the write function's, or a query's, see rbuf_fail) is remembered
 * in `status`, later appends do nothing, and a writer checks once at the
 * end. Numbers are written with '.' whatever the C locale. */
#ifndef LLMLAT_REPORT_BUF_H
#define LLMLAT_REPORT_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/compiler.h"
#include "llmlat.h"

#define RBUF_CHUNK 4096

typedef struct rbuf {
    llmlat_write_fn write;
    void *user;
    int32_t status; /* LLMLAT_OK, or the first error: nothing more is written */
    size_t len;     /* bytes waiting in chunk */
    char chunk[RBUF_CHUNK];
} rbuf;

LLMLAT_PRIVATE void rbuf_init(rbuf *b, llmlat_write_fn write, void *user);
/* Hands the waiting bytes to the write function; returns b's status. */
LLMLAT_PRIVATE int32_t rbuf_flush(rbuf *b);
/* Stops the output with status st (kept only if it is the first error). */
LLMLAT_PRIVATE void rbuf_fail(rbuf *b, int32_t st);

LLMLAT_PRIVATE void rbuf_putn(rbuf *b, const char *s, size_t n);
LLMLAT_PRIVATE void rbuf_puts(rbuf *b, const char *s);
/* s with '\\' and newline written as \\ and \n, and '"' as \" when `quote`:
 * Prometheus' escapes for label values (quote) and HELP text. */
LLMLAT_PRIVATE void rbuf_escaped(rbuf *b, const char *s, bool quote);
/* s as the inside of a JSON string: '"', '\\' and control characters
 * escaped (UTF-8 passes through). */
LLMLAT_PRIVATE void rbuf_json_escaped(rbuf *b, const char *s);
/* s followed by spaces up to `width` bytes (nothing added when longer). */
LLMLAT_PRIVATE void rbuf_pad(rbuf *b, const char *s, size_t width);
LLMLAT_PRIVATE void rbuf_u64(rbuf *b, uint64_t v);
/* The shortest text that reads back as the same double ("0.1", "1e-05");
 * NaN and infinities as `nan_text` / "+Inf" / "-Inf". */
LLMLAT_PRIVATE void rbuf_double(rbuf *b, double v, const char *nan_text);
/* The same text of a finite v, NUL-terminated in out; its length. */
#define DOUBLE_TEXT_MAX 40
LLMLAT_PRIVATE size_t double_text(double v, char out[DOUBLE_TEXT_MAX]);
/* Fixed-point with `decimals` digits after the point, right-aligned in
 * `width` bytes; NaN as `nan_text`. */
LLMLAT_PRIVATE void rbuf_fixed(rbuf *b, double v, int decimals, size_t width, const char *nan_text);
/* ns / 10^digits as an exact decimal, sign and all, with `decimals`
 * digits after the point (decimals <= digits <= 9; cut, not rounded, when
 * fewer): rbuf_scaled(b, t, 9, 9) writes seconds, (b, t, 3, 3) microseconds
 * with ns precision. */
LLMLAT_PRIVATE void rbuf_scaled(rbuf *b, int64_t ns, int digits, int decimals);
/* The same for a span that may pass INT64_MAX. */
LLMLAT_PRIVATE void rbuf_scaled_u64(rbuf *b, uint64_t ns, int digits, int decimals);
/* A quantile q in [0, 1] as a percentage, NUL-terminated in out (at least
 * PERCENT_TEXT_MAX bytes): 0.5 -> "50", 0.999 -> "99.9". */
#define PERCENT_TEXT_MAX 32
LLMLAT_PRIVATE void percent_text(double q, char *out);

/* true when q[i] repeats an earlier q[j] (a report writes it once). */
static inline bool report_quantile_repeats(const double *q, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (q[j] == q[i])
            return true;
    return false;
}

/* The sink of the buffer-writing calls (llmlat_agg_report, llmlat_expose,
 * llmlat_compare_report). A too-small buffer must receive nothing, and
 * the size is only known at the end: the bytes are collected while they
 * fit the caller's buffer (beyond, only counted), then copied once by
 * report_collect_end, which applies the buffer contract to the output's
 * status st and frees. */
typedef struct report_collect {
    const llmlat_alloc *al;
    size_t limit; /* the caller's capacity */
    char *p;
    size_t len, cap;
} report_collect;

LLMLAT_PRIVATE int32_t report_collect_write(void *user, const void *bytes, size_t n);
LLMLAT_PRIVATE int32_t report_collect_end(report_collect *k, int32_t st, void *buf, size_t cap,
                                          size_t *len);

#endif
