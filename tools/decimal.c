#include <stdio.h>
#include <string.h>

#include "decimal.h"

#define EXPONENT_CLAMP 100000 /* far beyond any digit count the reader lets through */

/* The parts of a JSON number: its significant digits (integer and
 * fraction concatenated) and the power of ten of the last one. */
typedef struct decimal {
    bool negative;
    char digits[160];
    int n;
    long exp10;
} decimal;

static void split(const char *s, decimal *d)
{
    d->negative = false;
    d->n = 0;
    if (*s == '-') {
        d->negative = true;
        s++;
    }
    long frac = 0;
    bool in_frac = false;
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (*s == '.') {
            in_frac = true;
            continue;
        }
        if (d->n < (int)sizeof d->digits)
            d->digits[d->n++] = *s;
        frac += in_frac;
    }
    long e = 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        bool neg = *s == '-';
        if (*s == '-' || *s == '+')
            s++;
        for (; *s >= '0' && *s <= '9'; s++)
            if (e < EXPONENT_CLAMP)
                e = e * 10 + (*s - '0');
        if (neg)
            e = -e;
    }
    d->exp10 = e - frac;
}

/* magnitude = magnitude * 10 + digit, false past limit. */
static bool push_digit(uint64_t *m, int digit, uint64_t limit)
{
    if (*m > (limit - (uint64_t)digit) / 10)
        return false;
    *m = *m * 10 + (uint64_t)digit;
    return true;
}

const char *decimal_plain_ns(const char *s, const char *end, int64_t *out)
{
    bool negative = s < end && *s == '-';
    s += negative;
    const char *digits = s;
    uint64_t seconds = 0, frac = 0;
    for (; s < end && *s >= '0' && *s <= '9'; s++) {
        if (s - digits == 10)
            return NULL;
        seconds = seconds * 10 + (uint64_t)(*s - '0');
    }
    if (s == digits || (*digits == '0' && s - digits > 1))
        return NULL; /* no digit, or JSON's forbidden leading zero */
    int frac_digits = 0;
    if (s < end && *s == '.') {
        for (s++; s < end && *s >= '0' && *s <= '9'; s++, frac_digits++) {
            if (frac_digits == 9)
                return NULL;
            frac = frac * 10 + (uint64_t)(*s - '0');
        }
        if (frac_digits == 0)
            return NULL;
    }
    for (int i = frac_digits; i < 9; i++)
        frac *= 10;
    uint64_t ns = seconds * 1000000000u + frac; /* < 10^19: no wrap */
    if (ns > (uint64_t)INT64_MAX)
        return NULL;
    *out = negative ? -(int64_t)ns : (int64_t)ns;
    return s;
}

bool decimal_seconds_to_ns(const char *text, int64_t *out)
{
    const char *end = text + strlen(text);
    if (decimal_plain_ns(text, end, out) == end)
        return true;
    decimal d;
    split(text, &d);
    uint64_t limit = d.negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    long shift = d.exp10 + 9; /* power of ten of the last digit, in ns */
    long keep = d.n + shift;  /* digits at or above 1 ns */
    uint64_t m = 0;
    for (long i = 0; i < keep && i < d.n; i++)
        if (!push_digit(&m, d.digits[i] - '0', limit))
            return false;
    if (m != 0)
        for (long i = d.n; i < keep; i++)
            if (!push_digit(&m, 0, limit))
                return false;
    if (keep >= 0 && keep < d.n && d.digits[keep] >= '5') {
        if (m == limit)
            return false;
        m++;
    }
    *out = d.negative ? (int64_t)(0 - m) : (int64_t)m;
    return true;
}

bool decimal_to_u64(const char *text, uint64_t max, uint64_t *out)
{
    if (!*text)
        return false;
    uint64_t m = 0;
    for (const char *s = text; *s; s++) {
        if (*s < '0' || *s > '9' || !push_digit(&m, *s - '0', max))
            return false;
    }
    *out = m;
    return true;
}

void ns_to_seconds_text(int64_t ns, char *out)
{
    uint64_t m = ns < 0 ? 0 - (uint64_t)ns : (uint64_t)ns;
    int n = snprintf(out, 32, "%s%llu.%09llu", ns < 0 ? "-" : "",
                     (unsigned long long)(m / 1000000000u),
                     (unsigned long long)(m % 1000000000u));
    while (n > 0 && out[n - 1] == '0')
        out[--n] = '\0';
    if (n > 0 && out[n - 1] == '.')
        out[--n] = '\0';
}
