/* Exact fixed-point sums: conversions in, merging, and the two reads. */
#include <stdbool.h>
#include <string.h>

#include "util/fixsum.h"

/* x = m * 2^e for a finite x >= 0 (m < 2^53). */
static inline void decompose(double x, uint64_t *m, int *e)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int field = (int)((b >> 52) & 0x7ff);
    *m = b & ((UINT64_C(1) << 52) - 1);
    if (field)
        *m |= UINT64_C(1) << 52;
    *e = (field ? field : 1) - 1075;
}

/* out[0..3) = floor((hi:lo) * 2^shift), the result being below 2^192. */
static inline void shifted(uint64_t lo, uint64_t hi, int shift, uint64_t *out)
{
    out[0] = out[1] = out[2] = 0;
    if (shift <= -128)
        return;
    if (shift < 0) {
        int b = -shift;
        if (b >= 64) {
            out[0] = hi >> (b - 64);
        } else {
            out[0] = (lo >> b) | (b ? hi << (64 - b) : 0);
            out[1] = hi >> b;
        }
        return;
    }
    int at = shift / 64, b = shift % 64;
    uint64_t t0 = lo << b, t1 = (hi << b) | (b ? lo >> (64 - b) : 0);
    uint64_t t2 = b ? hi >> (64 - b) : 0;
    out[at] = t0;
    if (at < 2) /* at 2 (shift >= 128), t1 and t2 are bits >= 2^192: zero */
        out[at + 1] = t1;
    if (at == 0)
        out[2] = t2;
}

/* acc[0..n) += v[0..3): straight-line, as fix_add's loops cost more than
 * the sum on a request's path. n is 3 or 4; the top limb takes the carry. */
static inline void add3(uint64_t *acc, int n, const uint64_t *v)
{
    uint64_t a = acc[0] + v[0];
    uint64_t c = a < v[0];
    acc[0] = a;
    uint64_t b = acc[1] + v[1];
    uint64_t c2 = b < v[1];
    b += c;
    c2 += b < c;
    acc[1] = b;
    uint64_t d = acc[2] + v[2];
    uint64_t c3 = d < v[2];
    d += c2;
    c3 += d < c2;
    acc[2] = d;
    if (n == 4)
        acc[3] += c3;
}

LLMLAT_PRIVATE void fixsum_add_double(fixsum *f, double x)
{
    uint64_t m, sq[2], v[3];
    int e;
    decompose(x, &m, &e);
    shifted(m, 0, e + 64, v);
    add3(f->s1, 3, v);
    wide_mul(m, m, &sq[0], &sq[1]); /* x^2 = m^2 2^(2e), exactly */
    shifted(sq[0], sq[1], 2 * e + 64, v);
    add3(f->s2, 4, v);
}

LLMLAT_PRIVATE void fixsum_add_square_part(fixsum *f, double y)
{
    uint64_t m, v[3];
    int e;
    decompose(y, &m, &e);
    shifted(m, 0, e + 64, v);
    add3(f->s2, 4, v);
}

LLMLAT_PRIVATE void fixsum_merge(fixsum *dst, const fixsum *src)
{
    fix_add(dst->s1, 3, src->s1, 3, 0);
    fix_add(dst->s2, 4, src->s2, 4, 0);
}

/* v[0..n) as the nearest double (ties to even). */
static double to_double(const uint64_t *v, int n)
{
    int top = n - 1;
    while (top >= 0 && v[top] == 0)
        top--;
    if (top < 0)
        return 0.0;
    /* the leading 64 bits, from the top limb's highest set bit */
    int len = bit_length(v[top]);
    uint64_t below = top > 0 ? v[top - 1] : 0;
    uint64_t h = len == 64 ? v[top] : (v[top] << (64 - len)) | (below >> len);
    bool sticky = (h & 0x3ff) != 0 || (len < 64 && (below & ((UINT64_C(1) << len) - 1)));
    for (int i = top - 2; i >= 0 && !sticky; i--)
        sticky = v[i] != 0;
    uint64_t mant = h >> 11;
    if (((h >> 10) & 1) && (sticky || (mant & 1)))
        mant++; /* may reach 2^53: still exact as a double */
    /* times 2^(64 top + len - 53), between 2^-52 and 2^331: a normal power
     * of two, built from its bits (exact, no libm call) */
    uint64_t scale_bits = (uint64_t)(64 * top + len - 53 + 1023) << 52;
    double scale;
    memcpy(&scale, &scale_bits, sizeof scale);
    return (double)mant * scale;
}

LLMLAT_PRIVATE double fixsum_mean(const fixsum *f, uint64_t n)
{
    return to_double(f->s1, 3) * 0x1p-64 / (double)n; /* scaling by 2^-64 is exact */
}

/* acc[0..6) = a[0..3) * b[0..3). */
static void mul3(uint64_t *acc, const uint64_t *a, const uint64_t *b)
{
    memset(acc, 0, 6 * sizeof *acc);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            uint64_t p[2];
            wide_mul(a[i], b[j], &p[0], &p[1]);
            fix_add(acc, 6, p, 2, i + j);
        }
}

/* a[0..n) -= b[0..n), a >= b. */
static void sub_limbs(uint64_t *a, const uint64_t *b, int n)
{
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        uint64_t d = a[i] - b[i];
        uint64_t b1 = a[i] < b[i];
        a[i] = d - borrow;
        borrow = b1 | (d < borrow);
    }
}

static bool less(const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] < b[i];
    return false;
}

/* n var (n - ddof) = n sum(x^2) - (sum x)^2: with s1 = 2^64 sum x and
 * s2 = 2^64 sum x^2 that is (n s2 2^64 - s1^2) / 2^128, all in integers. */
LLMLAT_PRIVATE double fixsum_variance(const fixsum *f, uint64_t n, unsigned ddof)
{
    uint64_t ns2[6] = { 0 }, sq[6];
    for (int i = 0; i < 4; i++) {
        uint64_t p[2];
        wide_mul(f->s2[i], n, &p[0], &p[1]);
        fix_add(ns2, 6, p, 2, i + 1);
    }
    mul3(sq, f->s1, f->s1);
    /* Cutting fractional samples at 2^-64 can leave the difference a hair
     * below zero for a constant set. */
    if (less(ns2, sq, 6))
        return 0.0;
    sub_limbs(ns2, sq, 6);
    return to_double(ns2, 6) * 0x1p-128 / (double)n / (double)(n - ddof);
}

/* acc[0..n) += floor((hi:lo) * 2^shift); the caller knows it fits. */
static void add_shifted(uint64_t *acc, int n, uint64_t lo, uint64_t hi, int shift)
{
    uint64_t t[3];
    if (shift <= -128)
        return;
    if (shift < 0) {
        int b = -shift;
        t[0] = b >= 64 ? hi >> (b - 64) : (lo >> b) | (b ? hi << (64 - b) : 0);
        t[1] = b >= 64 ? 0 : hi >> b;
        fix_add(acc, n, t, 2, 0);
        return;
    }
    int at = shift / 64, b = shift % 64;
    t[0] = lo << b;
    t[1] = (hi << b) | (b ? lo >> (64 - b) : 0);
    t[2] = b ? hi >> (64 - b) : 0;
    int nt = n - at < 3 ? n - at : 3; /* limbs beyond acc are zero */
    if (nt > 0)
        fix_add(acc, n, t, nt, at);
}

LLMLAT_PRIVATE void fixsum_accumulate(uint64_t acc[FIXSUM_WIDE], const double *v,
                                      const uint32_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t m, lo, hi = 0;
        int e;
        decompose(v[i], &m, &e);
        if (w)
            wide_mul(m, w[i], &lo, &hi);
        else
            lo = m;
        add_shifted(acc, FIXSUM_WIDE, lo, hi, e + 64);
    }
}

/* q = acc * 2^128 / divisor (n + 2 limbs) by 32-bit digits, the remainder's
 * being nonzero folded into the lowest bit: q >= 2^96 whenever acc > 0, so
 * that bit lies far below a double's rounding position and acts as the
 * sticky bit, and rounding q rounds the exact quotient. */
LLMLAT_PRIVATE double fixsum_total(const uint64_t *acc, int n, uint32_t divisor)
{
    uint64_t q[FIXSUM_WIDE + 2] = { 0 }, rem = 0;
    for (int i = n + 1; i >= 0; i--) {
        uint64_t limb = i >= 2 ? acc[i - 2] : 0, out = 0;
        for (int half = 1; half >= 0; half--) {
            uint64_t cur = (rem << 32) | ((limb >> (32 * half)) & 0xffffffffu);
            out |= (cur / divisor) << (32 * half);
            rem = cur % divisor;
        }
        q[i] = out;
    }
    q[0] |= rem != 0;
    return to_double(q, n + 2) * 0x1p-192; /* scaling by a power of two is exact */
}
