/* Exact fixed-point sums: conversions in, merging, and the two reads. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "compiler.h"
#include "fixsum.h"

/* 64 bits of the little-endian number v[0..n) starting at bit `pos` (which
 * may be negative: bits below bit 0 are zeros). */
static uint64_t bits_at(const uint64_t *v, int n, int pos)
{
    int limb = pos >= 0 ? pos / 64 : -((-pos + 63) / 64);
    int off = pos - 64 * limb;
    uint64_t lo = limb >= 0 && limb < n ? v[limb] >> off : 0;
    uint64_t hi = 0;
    if (off && limb + 1 >= 0 && limb + 1 < n)
        hi = v[limb + 1] << (64 - off);
    return lo | hi;
}

/* out[0..nout) = floor(v * 2^shift). */
static void shifted(uint64_t *out, int nout, const uint64_t *v, int nv, int shift)
{
    for (int i = 0; i < nout; i++)
        out[i] = bits_at(v, nv, 64 * i - shift);
}

/* x = m * 2^e for a finite x >= 0 (m < 2^53). */
static void decompose(double x, uint64_t *m, int *e)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int field = (int)((b >> 52) & 0x7ff);
    *m = b & ((UINT64_C(1) << 52) - 1);
    if (field)
        *m |= UINT64_C(1) << 52;
    *e = (field ? field : 1) - 1075;
}

void fixsum_add_double(fixsum *f, double x)
{
    uint64_t m, sq[2], v[3];
    int e;
    decompose(x, &m, &e);
    shifted(v, 3, &m, 1, e + 64);
    fix_add(f->s1, 3, v, 3, 0);
    wide_mul(m, m, &sq[0], &sq[1]); /* x^2 = m^2 2^(2e), exactly */
    shifted(v, 3, sq, 2, 2 * e + 64);
    fix_add(f->s2, 4, v, 3, 0);
}

void fixsum_add_square_part(fixsum *f, double y)
{
    uint64_t m, v[3];
    int e;
    decompose(y, &m, &e);
    shifted(v, 3, &m, 1, e + 64);
    fix_add(f->s2, 4, v, 3, 0);
}

void fixsum_merge(fixsum *dst, const fixsum *src)
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
    int msb = 64 * top + bit_length(v[top]) - 1;
    uint64_t h = bits_at(v, n, msb - 63); /* leading 1 at bit 63 */
    bool sticky = (h & 0x3ff) != 0;
    for (int i = 0; i < n && !sticky && 64 * i < msb - 63; i++) {
        int below = msb - 63 - 64 * i; /* bits of limb i under the window */
        uint64_t mask = below >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << below) - 1;
        sticky = (v[i] & mask) != 0;
    }
    uint64_t mant = h >> 11;
    if (((h >> 10) & 1) && (sticky || (mant & 1)))
        mant++; /* may reach 2^53: still exact as a double */
    return ldexp((double)mant, msb - 52);
}

double fixsum_mean(const fixsum *f, uint64_t n)
{
    return ldexp(to_double(f->s1, 3), -64) / (double)n;
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
double fixsum_variance(const fixsum *f, uint64_t n, unsigned ddof)
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
    return ldexp(to_double(ns2, 6), -128) / (double)n / (double)(n - ddof);
}
