/* numpy's quantile rule, written once: which order statistics a quantile
 * and the median are made of, and how they combine. Every user follows it:
 * exact mode's store (which finds the values by radix select), bounded
 * mode's sketch (which walks its buckets to the ranks), and the
 * comparison's bootstrap (which walks presorted samples under resampled
 * weights, and takes its intervals from sorted resamples). Ranks are
 * 0-based in the samples expanded by their weights, total weight n >= 1. */
#ifndef LLMLAT_RANKS_H
#define LLMLAT_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

#define RANKS_MAX_Q 32

/* numpy.lib.function_base._lerp: a + (b - a) * t, or from b when t >= 0.5.
 * Separate operations, never fused: the build disables FP contraction
 * (and the single header sets the pragmas), so the result is numpy's
 * double to the bit. */
static inline double numpy_lerp(double a, double b, double t)
{
    double diff = b - a;
    if (t >= 0.5)
        return b - diff * (1.0 - t);
    return a + diff * t;
}

/* numpy's 'linear' method for the quantile q in [0, 1] of n samples: the
 * virtual index (n - 1) q, its floor *r and fraction *gamma, the quantile
 * being numpy_lerp(x(r), x(r + 1), gamma); false (*r the last rank,
 * *gamma 0) when the index is at the last rank or above, where the
 * quantile is the maximum. The index is converted only below the last
 * rank. */
static inline bool quantile_rank(uint64_t n, double q, uint64_t *r, double *gamma)
{
    uint64_t last = n - 1;
    double vi = (double)last * q;
    if (vi >= (double)last) {
        *r = last;
        *gamma = 0.0;
        return false;
    }
    *r = (uint64_t)vi; /* floor: vi >= 0 (and no libm call) */
    *gamma = vi - (double)*r;
    return true;
}

/* numpy.median: the middle rank, or the mean of the two middle ones.
 * Returns how many ranks (1 or 2) it put in r. */
static inline size_t median_ranks(uint64_t n, uint64_t r[2])
{
    if (n % 2) {
        r[0] = n / 2;
        return 1;
    }
    r[0] = n / 2 - 1;
    r[1] = n / 2;
    return 2;
}

/* Every rank that nq <= RANKS_MAX_Q quantiles, the median (when asked)
 * and the maximum (when asked) need, ascending and each once, for one
 * walk or one selection; then what the values at those ranks make. */
#define PLAN_MEDIAN 1u
#define PLAN_MAX 2u
#define PLAN_MAX_RANKS (2 * RANKS_MAX_Q + 3)

typedef struct quantile_plan {
    uint64_t ranks[PLAN_MAX_RANKS];
    size_t n_ranks;
    size_t nq;
    size_t lo[RANKS_MAX_Q];  /* index in ranks of q[i]'s floor; SIZE_MAX: the maximum */
    double gamma[RANKS_MAX_Q];
    size_t med[2], n_med;    /* indexes in ranks of the median's ranks */
    size_t max;              /* index in ranks of rank n - 1 (with PLAN_MAX) */
} quantile_plan;

/* The plan of nq quantiles q[i] in [0, 1] of n samples; `with` adds the
 * median's ranks (PLAN_MEDIAN) and the last rank (PLAN_MAX). */
LLMLAT_PRIVATE void quantile_plan_make(quantile_plan *p, uint64_t n, const double *q, size_t nq,
                                       unsigned with);
/* The quantiles from at[j], the value at ranks[j], and the maximum. */
LLMLAT_PRIVATE void quantile_plan_values(const quantile_plan *p, const double *at, double max,
                                         double *out);
/* The median from the same values (a plan made with PLAN_MEDIAN). */
static inline double quantile_plan_median(const quantile_plan *p, const double *at)
{
    return p->n_med == 1 ? at[p->med[0]] : (at[p->med[0]] + at[p->med[1]]) / 2.0;
}

/* The indexes of q[0..n) by ascending q (insertion sort: n is small), for
 * one walk up the samples. */
LLMLAT_PRIVATE void quantile_order(const double *q, size_t n, size_t *order);

#endif
