#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_buf.h"

LLMLAT_PRIVATE void rbuf_init(rbuf *b, llmlat_write_fn write, void *user)
{
    b->write = write;
    b->user = user;
    b->status = LLMLAT_OK;
    b->len = 0;
}

LLMLAT_PRIVATE void rbuf_fail(rbuf *b, int32_t st)
{
    if (b->status == LLMLAT_OK)
        b->status = st;
}

LLMLAT_PRIVATE int32_t rbuf_flush(rbuf *b)
{
    if (b->status == LLMLAT_OK && b->len > 0) {
        int32_t st = b->write(b->user, b->chunk, b->len);
        if (st != LLMLAT_OK)
            rbuf_fail(b, st);
    }
    b->len = 0;
    return b->status;
}

LLMLAT_PRIVATE void rbuf_putn(rbuf *b, const char *s, size_t n)
{
    while (n > 0 && b->status == LLMLAT_OK) {
        if (b->len == RBUF_CHUNK)
            rbuf_flush(b);
        size_t room = RBUF_CHUNK - b->len, take = n < room ? n : room;
        memcpy(b->chunk + b->len, s, take);
        b->len += take;
        s += take;
        n -= take;
    }
}

LLMLAT_PRIVATE void rbuf_puts(rbuf *b, const char *s)
{
    rbuf_putn(b, s, strlen(s));
}

LLMLAT_PRIVATE void rbuf_escaped(rbuf *b, const char *s, bool quote)
{
    const char *run = s;
    for (; *s; s++) {
        const char *esc = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n"
                          : (*s == '"' && quote) ? "\\\"" : NULL;
        if (!esc)
            continue;
        rbuf_putn(b, run, (size_t)(s - run));
        rbuf_puts(b, esc);
        run = s + 1;
    }
    rbuf_puts(b, run);
}

LLMLAT_PRIVATE void rbuf_json_escaped(rbuf *b, const char *s)
{
    const char *run = s;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        rbuf_putn(b, run, (size_t)(s - run));
        char esc[8];
        if (c == '"' || c == '\\')
            snprintf(esc, sizeof esc, "\\%c", c);
        else if (c == '\n')
            snprintf(esc, sizeof esc, "\\n");
        else
            snprintf(esc, sizeof esc, "\\u%04x", c);
        rbuf_puts(b, esc);
        run = s + 1;
    }
    rbuf_puts(b, run);
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
    size_t at = sizeof tmp; /* digits from the end: no snprintf on every count */
    do {
        tmp[--at] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    rbuf_putn(b, tmp + at, sizeof tmp - at);
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

LLMLAT_PRIVATE size_t double_text(double v, char out[DOUBLE_TEXT_MAX])
{
    /* An integer below 10^15 is what %.15g writes for it, without the
     * formatting and the read-back (counts, bucket bounds). */
    if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v && !(v == 0.0 && signbit(v))) {
        uint64_t u = (uint64_t)(v < 0 ? -v : v);
        char tmp[24];
        size_t at = sizeof tmp, n = 0;
        do {
            tmp[--at] = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0)
            out[n++] = '-';
        memcpy(out + n, tmp + at, sizeof tmp - at);
        n += sizeof tmp - at;
        out[n] = '\0';
        return n;
    }
    /* %.15g is exact for most values and drops trailing zeros; 17 digits
     * always read back as the same double. */
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(out, DOUBLE_TEXT_MAX, "%.*g", digits, v);
        if (strtod(out, NULL) == v)
            break;
    }
    return with_dot(out);
}

LLMLAT_PRIVATE void rbuf_double(rbuf *b, double v, const char *nan_text)
{
    if (non_finite(b, v, nan_text))
        return;
    char tmp[DOUBLE_TEXT_MAX];
    rbuf_putn(b, tmp, double_text(v, tmp));
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

static void scaled(rbuf *b, bool negative, uint64_t mag, int digits, int decimals)
{
    uint64_t unit = 1;
    for (int i = 0; i < digits; i++)
        unit *= 10;
    char tmp[48];
    int n = snprintf(tmp, sizeof tmp, "%s%" PRIu64 ".%0*" PRIu64, negative ? "-" : "",
                     mag / unit, digits, mag % unit);
    rbuf_putn(b, tmp, (size_t)n - (size_t)(digits - decimals));
}

LLMLAT_PRIVATE void rbuf_scaled(rbuf *b, int64_t ns, int digits, int decimals)
{
    scaled(b, ns < 0, ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns, digits, decimals);
}

LLMLAT_PRIVATE void rbuf_scaled_u64(rbuf *b, uint64_t ns, int digits, int decimals)
{
    scaled(b, false, ns, digits, decimals);
}

LLMLAT_PRIVATE void percent_text(double q, char *out)
{
    /* 15 digits hide the rounding of q * 100 (0.999 * 100 = 99.899...). */
    snprintf(out, PERCENT_TEXT_MAX, "%.15g", q * 100.0);
    with_dot(out);
}

/* ------------------------------------------------------ collection */

LLMLAT_PRIVATE int32_t report_collect_write(void *user, const void *bytes, size_t n)
{
    report_collect *k = user;
    if (n > SIZE_MAX - k->len)
        return LLMLAT_ENOMEM;
    if (k->len + n <= k->limit) {
        void *p = k->p;
        int32_t st = alloc_grow(k->al, &p, &k->cap, k->len + n, 1);
        if (st != LLMLAT_OK)
            return st;
        k->p = p;
        memcpy(k->p + k->len, bytes, n);
    }
    k->len += n;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE int32_t report_collect_end(report_collect *k, int32_t st, void *buf, size_t cap,
                                          size_t *len)
{
    if (st == LLMLAT_OK) {
        *len = k->len;
        if (k->len > cap)
            st = LLMLAT_ENOSPC;
        else if (k->len > 0)
            memcpy(buf, k->p, k->len);
    }
    alloc_free(k->al, k->p);
    return st;
}
