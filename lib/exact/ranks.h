/* Which order statistics numpy's quantiles and median are made of, and how
 * they combine: the rule written once, for exact mode's store (which
 * finds the values by radix select) and for the comparison's bootstrap
 * (which walks presorted samples under resampled weights). Ranks are
 * 0-based in the samples expanded by their weights, total weight n >= 1. */
#ifndef LLMLAT_RANKS_H
#define LLMLAT_RANKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

#define RANKS_MAX_Q 32

/* numpy's 'linear' method for q[0..nq): virtual index (n - 1) q, its floor
 * and the next rank interpolated by numpy_lerp; at the last rank or above,
 * the maximum. */
typedef struct quantile_plan {
    uint64_t ranks[2 * RANKS_MAX_Q]; /* ascending, each once */
    size_t n_ranks;
    size_t nq;
    size_t lo[RANKS_MAX_Q];      /* index in ranks of q[i]'s floor; SIZE_MAX: the maximum */
    double gamma[RANKS_MAX_Q];
} quantile_plan;

/* nq <= RANKS_MAX_Q quantiles, each in [0, 1]. */
LLMLAT_PRIVATE void quantile_plan_make(quantile_plan *p, uint64_t n, const double *q, size_t nq);
/* The quantiles from the values at the plan's ranks and the maximum. */
LLMLAT_PRIVATE void quantile_plan_values(const quantile_plan *p, const double *at, double max,
                                         double *out);

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

static inline double median_of(const double *at, size_t nr)
{
    return nr == 1 ? at[0] : (at[0] + at[1]) / 2.0;
}

#endif
