#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_buf.h"

LLMLAT_PRIVATE void rbuf_init(rbuf *b, const llmlat_alloc *al)
{
    *b = (rbuf){ .al = al, .status = LLMLAT_OK };
}

LLMLAT_PRIVATE void rbuf_free(rbuf *b)
{
    alloc_free(b->al, b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

LLMLAT_PRIVATE int32_t rbuf_deliver(rbuf *b, int32_t st, void *buf, size_t cap, size_t *len)
{
    if (st == LLMLAT_OK)
        st = b->status;
    if (st == LLMLAT_OK) {
        *len = b->len;
        if (b->len > cap)
            st = LLMLAT_ENOSPC;
        else if (b->len > 0)
            memcpy(buf, b->p, b->len);
    }
    rbuf_free(b);
    return st;
}

static bool rbuf_reserve(rbuf *b, size_t extra)
{
    if (b->status != LLMLAT_OK)
        return false;
    if (extra > SIZE_MAX - b->len) {
        b->status = LLMLAT_ENOMEM;
        return false;
    }
    void *p = b->p;
    int32_t st = alloc_grow(b->al, &p, &b->cap, b->len + extra, 1);
    if (st != LLMLAT_OK) {
        b->status = st == LLMLAT_EINVAL ? LLMLAT_ENOMEM : st;
        return false;
    }
    b->p = p;
    return true;
}

LLMLAT_PRIVATE void rbuf_putn(rbuf *b, const char *s, size_t n)
{
    if (n == 0 || !rbuf_reserve(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

LLMLAT_PRIVATE void rbuf_puts(rbuf *b, const char *s)
{
    rbuf_putn(b, s, strlen(s));
}

static void spaces(rbuf *b, size_t n)
{
    static const char SPACES[] = "                                ";
    while (n > 0) {
        size_t chunk = n < sizeof SPACES - 1 ? n : sizeof SPACES - 1;
        rbuf_putn(b, SPACES, chunk);
        n -= chunk;
    }
}

LLMLAT_PRIVATE void rbuf_pad(rbuf *b, const char *s, size_t width)
{
    size_t n = strlen(s);
    rbuf_putn(b, s, n);
    if (n < width)
        spaces(b, width - n);
}

LLMLAT_PRIVATE void rbuf_u64(rbuf *b, uint64_t v)
{
    char tmp[24];
    int n = snprintf(tmp, sizeof tmp, "%" PRIu64, v);
    rbuf_putn(b, tmp, (size_t)n);
}

/* snprintf and strtod follow the C locale's decimal point, which may be ','
 * or several bytes; reports always use '.'. Digits, signs and exponent
 * letters are kept and anything else (the point) becomes one '.'. */
static size_t with_dot(char *s)
{
    size_t w = 0;
    bool in_point = false;
    for (size_t r = 0; s[r]; r++) {
        char c = s[r];
        bool keep = (c >= '0' && c <= '9') || c == '-' || c == '+' || c == 'e' || c == 'E';
        if (keep) {
            s[w++] = c;
            in_point = false;
        } else if (!in_point) {
            s[w++] = '.';
            in_point = true;
        }
    }
    s[w] = '\0';
    return w;
}

static bool non_finite(rbuf *b, double v, const char *nan_text)
{
    if (isnan(v))
        rbuf_puts(b, nan_text);
    else if (isinf(v))
        rbuf_puts(b, v > 0 ? "+Inf" : "-Inf");
    else
        return false;
    return true;
}

LLMLAT_PRIVATE void rbuf_double(rbuf *b, double v, const char *nan_text)
{
    if (non_finite(b, v, nan_text))
        return;
    /* %.15g is exact for most values and drops trailing zeros; 17 digits
     * always read back as the same double. */
    char tmp[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(tmp, sizeof tmp, "%.*g", digits, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    rbuf_putn(b, tmp, with_dot(tmp));
}

LLMLAT_PRIVATE void rbuf_fixed(rbuf *b, double v, int decimals, size_t width, const char *nan_text)
{
    char tmp[400]; /* %f of DBL_MAX has 309 digits before the point */
    if (isnan(v))
        snprintf(tmp, sizeof tmp, "%s", nan_text);
    else
        snprintf(tmp, sizeof tmp, "%.*f", decimals, v);
    size_t n = isnan(v) ? strlen(tmp) : with_dot(tmp);
    if (n < width)
        spaces(b, width - n);
    rbuf_putn(b, tmp, n);
}

LLMLAT_PRIVATE void percent_text(double q, char *out)
{
    /* 15 digits hide the rounding of q * 100 (0.999 * 100 = 99.899...). */
    snprintf(out, PERCENT_TEXT_MAX, "%.15g", q * 100.0);
    with_dot(out);
}
