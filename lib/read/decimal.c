/* Decimal text to integer nanoseconds, exactly: the digits are kept as
 * text and shifted by their power of ten, never put through a double. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/decimal.h"
#include "util/wide.h"

#define DEC_EXPONENT_CLAMP 100000 /* far beyond any digit count the reader lets through */
#define DEC_DIGITS_MAX 160        /* the tokenizer hands over at most 127 characters */

/* The parts of a JSON number: its significant digits (integer and
 * fraction concatenated) and the power of ten of the last one. */
typedef struct dec_parts {
    bool negative;
    char digits[DEC_DIGITS_MAX];
    int n;
    long exp10;
} dec_parts;

static void dec_split(const char *s, const char *end, dec_parts *d)
{
    d->negative = false;
    d->n = 0;
    if (s < end && *s == '-') {
        d->negative = true;
        s++;
    }
    long frac = 0;
    bool in_frac = false;
    for (; s < end && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') {
            in_frac = true;
            continue;
        }
        if (d->n < DEC_DIGITS_MAX)
            d->digits[d->n++] = *s;
        frac += in_frac;
    }
    long e = 0;
    if (s < end) { /* 'e' or 'E' */
        s++;
        bool neg = s < end && *s == '-';
        if (s < end && (*s == '-' || *s == '+'))
            s++;
        for (; s < end && *s >= '0' && *s <= '9'; s++)
            if (e < DEC_EXPONENT_CLAMP)
                e = e * 10 + (*s - '0');
        if (neg)
            e = -e;
    }
    d->exp10 = e - frac;
}

/* magnitude = magnitude * 10 + digit, false past limit. */
static bool dec_push_digit(uint64_t *m, int digit, uint64_t limit)
{
    if (*m > (limit - (uint64_t)digit) / 10)
        return false;
    *m = *m * 10 + (uint64_t)digit;
    return true;
}

/* Eight ASCII digits at p (8 readable bytes) as their value; false when
 * they are not all digits. Little-endian machines do it in a few integer
 * operations on one 64-bit word (the simdjson method); the others digit
 * by digit. */
static inline bool dec_eight_digits(const char *p, uint32_t *out)
{
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, sizeof v);
    if (((v & 0xF0F0F0F0F0F0F0F0u) | (((v + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) !=
        0x3333333333333333u)
        return false;
    v -= 0x3030303030303030u;
    v = v * 10 + (v >> 8); /* pairs of digits */
    v = (((v & 0x000000FF000000FFu) * (100 + (UINT64_C(1000000) << 32))) +
         (((v >> 16) & 0x000000FF000000FFu) * (1 + (UINT64_C(10000) << 32)))) >>
        32;
    *out = (uint32_t)v;
    return true;
#else
    uint32_t v = 0;
    for (int i = 0; i < 8; i++) {
        unsigned d = (unsigned)(p[i] - '0');
        if (d > 9)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
#endif
}

static inline bool dec_is_digit(char c)
{
    return (unsigned)(c - '0') < 10;
}

LLMLAT_PRIVATE const char *dec_plain_seconds(const char *s, const char *end, int64_t *out)
{
    bool negative = s < end && *s == '-';
    s += negative;
    const char *digits = s;
    uint64_t seconds = 0, frac = 0;
    for (; s < end && dec_is_digit(*s); s++) {
        if (s - digits == 10)
            return NULL;
        seconds = seconds * 10 + (uint64_t)(*s - '0');
    }
    if (s == digits || (*digits == '0' && s - digits > 1))
        return NULL; /* no digit, or JSON's forbidden leading zero */
    int frac_digits = 0;
    if (s < end && *s == '.') {
        s++;
        uint32_t eight;
        if (end - s >= 8 && dec_eight_digits(s, &eight)) {
            frac = eight;
            frac_digits = 8;
            s += 8;
        }
        for (; s < end && dec_is_digit(*s); s++, frac_digits++) {
            if (frac_digits == 9)
                return NULL;
            frac = frac * 10 + (uint64_t)(*s - '0');
        }
        if (frac_digits == 0)
            return NULL;
    }
    static const uint32_t SCALE[10] = { 1000000000, 100000000, 10000000, 1000000, 100000,
                                        10000,      1000,      100,      10,      1 };
    uint64_t ns = seconds * 1000000000u + frac * SCALE[frac_digits]; /* < 10^19: no wrap */
    if (ns > (uint64_t)INT64_MAX)
        return NULL;
    *out = negative ? -(int64_t)ns : (int64_t)ns;
    return s;
}

LLMLAT_PRIVATE bool dec_to_ns(const char *text, size_t len, int unit, int64_t *out)
{
    const char *end = text + len;
    if (unit == DEC_SECONDS && dec_plain_seconds(text, end, out) == end)
        return true;
    dec_parts d;
    dec_split(text, end, &d);
    uint64_t limit = d.negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    long shift = d.exp10 + unit; /* power of ten of the last digit, in ns */
    long keep = d.n + shift;     /* digits at or above 1 ns */
    uint64_t m = 0;
    for (long i = 0; i < keep && i < d.n; i++)
        if (!dec_push_digit(&m, d.digits[i] - '0', limit))
            return false;
    if (m != 0)
        for (long i = d.n; i < keep; i++)
            if (!dec_push_digit(&m, 0, limit))
                return false;
    if (keep >= 0 && keep < d.n && d.digits[keep] >= '5') {
        if (m == limit)
            return false;
        m++;
    }
    *out = d.negative ? (int64_t)(0 - m) : (int64_t)m;
    return true;
}

/* (hi:lo) >> s for 0 < s < 128. */
static void dec_shr128(uint64_t *lo, uint64_t *hi, int s)
{
    if (s >= 64) {
        *lo = *hi >> (s - 64);
        *hi = 0;
    } else {
        *lo = (*lo >> s) | (*hi << (64 - s));
        *hi >>= s;
    }
}

LLMLAT_PRIVATE bool dec_double_to_ns(const char *text, size_t len, int unit, int64_t *out)
{
    static const uint64_t POW10[10] = { 1,      10,      100,      1000,      10000,
                                        100000, 1000000, 10000000, 100000000, 1000000000 };
    (void)len;
    double d = strtod(text, NULL);
    if (!isfinite(d) || unit < 0 || unit > 9)
        return false;
    if (d == 0.0) {
        *out = 0;
        return true;
    }
    int e;
    double f = frexp(fabs(d), &e);            /* |d| = f 2^e, f in [0.5, 1) */
    uint64_t m = (uint64_t)ldexp(f, 53), lo, hi; /* |d| = m 2^(e - 53), exactly */
    int shift = e - 53;
    wide_mul(m, POW10[unit], &lo, &hi);       /* |d| 10^unit = (hi:lo) 2^shift, < 2^83 2^shift */
    uint64_t ns;
    if (shift >= 0) {
        if (hi || shift >= 63 || lo > ((uint64_t)INT64_MAX >> shift))
            return false;
        ns = lo << shift;
    } else if (-shift >= 128) {
        ns = 0; /* below 2^-45 ns */
    } else {
        uint64_t rlo = lo, rhi = hi;
        if (-shift > 1)
            dec_shr128(&rlo, &rhi, -shift - 1);
        bool half = rlo & 1; /* the first bit below 1 ns */
        dec_shr128(&rlo, &rhi, 1);
        if (rhi || rlo > (uint64_t)INT64_MAX - half)
            return false;
        ns = rlo + half;
    }
    *out = d < 0 ? -(int64_t)ns : (int64_t)ns;
    return true;
}

LLMLAT_PRIVATE bool dec_to_u64(const char *text, size_t len, uint64_t max, uint64_t *out)
{
    if (len == 0)
        return false;
    uint64_t m = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c < '0' || c > '9' || !dec_push_digit(&m, c - '0', max))
            return false;
    }
    *out = m;
    return true;
}

LLMLAT_PRIVATE void dec_seconds_text(int64_t ns, char *out)
{
    uint64_t m = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    int n = snprintf(out, DEC_TEXT_MAX, "%s%llu.%09llu", ns < 0 ? "-" : "",
                     (unsigned long long)(m / 1000000000u),
                     (unsigned long long)(m % 1000000000u));
    while (n > 0 && out[n - 1] == '0')
        out[--n] = '\0';
    if (n > 0 && out[n - 1] == '.')
        out[--n] = '\0';
}
