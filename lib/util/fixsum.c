/* Exact fixed-point sums: conversions in, merging, and the two reads. */
#include <string.h>

#include "util/fixsum.h"

LLMLAT_PRIVATE void fixsum_add_double(fixsum *f, double x)
{
    uint64_t m, sq[2], v[3];
    int e;
    wide_decompose(x, &m, &e);
    wide_shifted(m, 0, e + 64, v);
    wide_add3(f->s1, 3, v);
    wide_mul(m, m, &sq[0], &sq[1]); /* x^2 = m^2 2^(2e), exactly */
    wide_shifted(sq[0], sq[1], 2 * e + 64, v);
    wide_add3(f->s2, 4, v);
}

LLMLAT_PRIVATE void fixsum_add_square_part(fixsum *f, double y)
{
    uint64_t m, v[3];
    int e;
    wide_decompose(y, &m, &e);
    wide_shifted(m, 0, e + 64, v);
    wide_add3(f->s2, 4, v);
}

LLMLAT_PRIVATE void fixsum_add_square_ratio(fixsum *f, uint64_t g, uint32_t k)
{
    uint64_t v[3] = { 0 }; /* g^2 2^64 < 2^190 */
    wide_mul(g, g, &v[1], &v[2]);
    if (k > 1)
        wide_div32(v, 3, k);
    wide_add3(f->s2, 4, v);
}

LLMLAT_PRIVATE void fixsum_merge(fixsum *dst, const fixsum *src)
{
    wide_add_at(dst->s1, 3, src->s1, 3, 0);
    wide_add_at(dst->s2, 4, src->s2, 4, 0);
}

LLMLAT_PRIVATE double fixsum_mean(const fixsum *f, uint64_t n)
{
    return wide_to_double(f->s1, 3, -64) / (double)n;
}

/* n var (n - ddof) = n sum(x^2) - (sum x)^2: with s1 = 2^64 sum x and
 * s2 = 2^64 sum x^2 that is (n s2 2^64 - s1^2) / 2^128, all in integers. */
LLMLAT_PRIVATE double fixsum_variance(const fixsum *f, uint64_t n, unsigned ddof)
{
    uint64_t ns2[6] = { 0 }, sq[6];
    wide_mul_n(ns2 + 1, f->s2, 4, &n, 1); /* n s2 2^64 */
    wide_mul_n(sq, f->s1, 3, f->s1, 3);
    /* Cutting fractional samples at 2^-64 can leave the difference a hair
     * below zero for a constant set. */
    if (wide_less(ns2, sq, 6))
        return 0.0;
    wide_sub(ns2, sq, 6);
    return wide_to_double(ns2, 6, -128) / (double)n / (double)(n - ddof);
}

LLMLAT_PRIVATE void fixsum_accumulate(uint64_t acc[FIXSUM_WIDE], const double *v,
                                      const uint32_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t m, lo, hi = 0, t[3];
        int e;
        wide_decompose(v[i], &m, &e);
        if (w)
            wide_mul(m, w[i], &lo, &hi);
        else
            lo = m;
        wide_shifted(lo, hi, e + 64, t); /* v w < 2^96 (admitted samples), so t < 2^160 */
        wide_add_at(acc, FIXSUM_WIDE, t, 3, 0);
    }
}

/* q = acc * 2^128 / divisor (n + 2 limbs), the remainder's being nonzero
 * folded into the lowest bit: q >= 2^96 whenever acc > 0, so that bit
 * lies far below a double's rounding position and acts as the sticky
 * bit, and rounding q rounds the exact quotient. */
LLMLAT_PRIVATE double fixsum_total(const uint64_t *acc, int n, uint32_t divisor)
{
    uint64_t q[FIXSUM_WIDE + 2] = { 0 };
    memcpy(q + 2, acc, (size_t)n * sizeof *acc);
    q[0] |= wide_div32(q, n + 2, divisor) != 0;
    return wide_to_double(q, n + 2, -192);
}
