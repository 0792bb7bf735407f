/* Exact sums for bounded mode: sum(w x) and sum(w x^2) of samples
 * 0 <= x < 2^64 (in a metric's internal unit: ns, tokens, tokens/s) as
 * integers counting 2^-64 units (util/wide.h holds the arithmetic).
 * Integer samples (ns, tokens) land without any rounding; a fractional
 * double is cut at 2^-64 once, when it is added, and so is the sum of the
 * squares of a k-token chunk's samples (g/k each: g^2 / k in all). The
 * sums therefore depend only on the multiset of samples, so shards merged
 * in any order give the same bits, and mean and variance are computed
 * from them with one exact integer step and few roundings (a constant set
 * has std 0).
 *
 * Exact mode sums its kept samples at query time (gridsum.h); bounded mode
 * keeps no samples, so it sums as they come: an integer sample costs a
 * multiply and a few adds, and the state is 56 bytes per metric. */
#ifndef LLMLAT_FIXSUM_H
#define LLMLAT_FIXSUM_H

#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"
#include "util/wide.h"

/* Samples must be below this (in their unit) to be summed exactly. */
#define FIXSUM_LIMIT 18446744073709551616.0 /* 2^64 */

typedef struct fixsum {
    /* Little-endian 64-bit limbs. With fewer than 2^64 samples (the
     * aggregator's counters guarantee it) neither can overflow:
     * s1 < 2^64 * 2^64 * 2^64, s2 < 2^64 * 2^128 * 2^64. */
    uint64_t s1[3]; /* sum(w x)   * 2^64 */
    uint64_t s2[4]; /* sum(w x^2) * 2^64 */
} fixsum;

/* A batch of integer samples given by their sum (< 2^64) and sum of squares
 * (< 2^128): what one request's gaps add up to. The limbs are spelled out:
 * this is on every request's path. */
static inline void fixsum_add_parts(fixsum *f, uint64_t sum, uint64_t sq_lo, uint64_t sq_hi)
{
    uint64_t a = f->s1[1] + sum;
    f->s1[2] += a < sum;
    f->s1[1] = a;
    uint64_t b = f->s2[1] + sq_lo, c = f->s2[2] + sq_hi;
    uint64_t carry = (c < sq_hi) + ((c + (b < sq_lo)) < c);
    f->s2[2] = c + (b < sq_lo);
    f->s2[1] = b;
    f->s2[3] += carry;
}

/* One integer sample x (weight 1). */
static inline void fixsum_add_int(fixsum *f, uint64_t x)
{
    uint64_t lo, hi;
    wide_mul(x, x, &lo, &hi);
    fixsum_add_parts(f, x, lo, hi);
}

/* One sample 0 <= x < 2^64 (weight 1), cut at 2^-64. */
LLMLAT_PRIVATE void fixsum_add_double(fixsum *f, double x);
/* Adds y >= 0 (< 2^128) to the sum of squares only, cut at 2^-64: the
 * part of a request's per-token squares that is not an integer. */
LLMLAT_PRIVATE void fixsum_add_square_part(fixsum *f, double y);
/* Adds floor(g^2 2^64 / k) to the sum of squares only: the squares of a
 * k-token chunk's k samples g / k (0 <= g < 2^63, k >= 1), exact in
 * integers but for that one cut. Their sum, g, goes in with
 * fixsum_add_parts. */
LLMLAT_PRIVATE void fixsum_add_square_ratio(fixsum *f, uint64_t g, uint32_t k);

LLMLAT_PRIVATE void fixsum_merge(fixsum *dst, const fixsum *src);

/* The mean, s1 2^-64 / n: the sum correctly rounded to double (exactly,
 * when it is one), divided by n in double. */
LLMLAT_PRIVATE double fixsum_mean(const fixsum *f, uint64_t n);
/* The variance sum(w (x - mean)^2) / (n - ddof), n > ddof: D = n s2 2^64 -
 * s1^2 (= n^2 var_0 2^128, var_0 the population variance) is computed
 * exactly in integers, correctly rounded to double, then divided by n and
 * by n - ddof in double. */
LLMLAT_PRIVATE double fixsum_variance(const fixsum *f, uint64_t n, unsigned ddof);

/* The sum itself (LLMLAT_STAT_SUM): the integer acc[0..n) (n <= 4) counting
 * 2^-64 units, divided by `divisor` (1, or 1e9 for ns to s) and correctly
 * rounded. It never decreases as the integer grows, which is what makes an
 * exported _sum a counter. */
LLMLAT_PRIVATE double fixsum_total(const uint64_t *acc, int n, uint32_t divisor);

/* Exact mode's sum, taken at query time on the same fixed grid: acc[0..4)
 * = sum of w[i] v[i] (w NULL: weights 1) in 2^-64 units, each v[i] in
 * [0, 2^64) (what the aggregator admits) cut at 2^-64 once, w[i] < 2^32.
 * The grid never depends on the data (as gridsum's does), so adding a
 * sample never lowers the sum. */
#define FIXSUM_WIDE 4
LLMLAT_PRIVATE void fixsum_accumulate(uint64_t acc[FIXSUM_WIDE], const double *v,
                                      const uint32_t *w, size_t n);

#endif
