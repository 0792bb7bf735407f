/* Exact mode's samples of one metric: every value kept (with an integer
 * weight for per-token ITL, instead of k copies). Queries only read:
 * quantiles by radix select, mean and std by order-independent fixed-point
 * summation (gridsum.h), so results
 * depend only on the multiset of samples (merging shards gives the same
 * bits as one aggregator) and concurrent queries are safe. */
#ifndef LLMLAT_EXACT_STORE_H
#define LLMLAT_EXACT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/bytes.h"

typedef struct exact_store {
    double *v;
    uint32_t *w;       /* weights when `weighted`, else NULL */
    size_t n, cap;
    bool weighted;
    uint64_t total_w;  /* COUNT: sum of weights */
    double min, max;
} exact_store;

LLMLAT_PRIVATE void exact_init(exact_store *s, bool weighted);
LLMLAT_PRIVATE void exact_free(exact_store *s, const llmlat_alloc *al);
LLMLAT_PRIVATE void exact_clear(exact_store *s);

/* Room for `extra` more samples; unchanged on failure. */
LLMLAT_PRIVATE int32_t exact_reserve(exact_store *s, const llmlat_alloc *al, size_t extra);
/* Appends one sample v >= 0 (w >= 1; 1 for unweighted stores). Never
 * allocates: reserve first. */
static inline void exact_push(exact_store *s, double v, uint32_t w)
{
    size_t i = s->n++;
    s->v[i] = v;
    if (s->weighted)
        s->w[i] = w;
    s->total_w += w;
    if (s->total_w == w || v < s->min)
        s->min = v;
    if (s->total_w == w || v > s->max)
        s->max = v;
}
/* The weights, or NULL when every one is 1 (as with one token per event):
 * weights are >= 1, so that is when they sum to the number of samples,
 * and then the queries need not read them. */
static inline const uint32_t *exact_weights(const exact_store *s)
{
    return s->weighted && s->total_w != s->n ? s->w : NULL;
}

/* Appends src's samples into room made by exact_reserve(dst, src->n);
 * the caller checked that total weights cannot overflow. */
LLMLAT_PRIVATE void exact_append(exact_store *dst, const exact_store *src);

/* Queries of a non-empty store. They allocate scratch, hence ENOMEM. */
LLMLAT_PRIVATE int32_t exact_mean(const exact_store *s, double *out);
/* LLMLAT_STAT_SUM: every sample on a fixed 2^-64 grid, summed exactly and
 * rounded once (fixsum.h), so it never decreases as samples are added
 * (the mean's grid follows the largest sample, and may coarsen). One pass
 * at query time keeps the fold as cheap as before. */
LLMLAT_PRIVATE double exact_sum(const exact_store *s);
LLMLAT_PRIVATE int32_t exact_std(const exact_store *s, unsigned ddof, double *out);
LLMLAT_PRIVATE int32_t exact_median(const exact_store *s, const llmlat_alloc *al, double *out);
/* n quantiles (each in [0, 1], n <= 32) in one selection. */
LLMLAT_PRIVATE int32_t exact_quantiles(const exact_store *s, const llmlat_alloc *al,
                                       const double *q, size_t n, double *out);

/* What a report asks of a store, with fewer passes than the queries one
 * by one (the mean computed once, for the std too; the median's ranks in
 * the quantiles' selection), and the same bits: the mean, the std with
 * ddof (NaN when the weight is <= ddof), the median and n <= 32
 * quantiles. */
typedef struct exact_summary_values {
    double mean, std, median;
    double q[32];
} exact_summary_values;
LLMLAT_PRIVATE int32_t exact_summary(const exact_store *s, const llmlat_alloc *al,
                                     unsigned ddof, const double *q, size_t n,
                                     exact_summary_values *out);
/* GuideLLM's inverse-CDF quantiles (each in [0, 1], n <= 64) and, when
 * mode is not NULL, its mode (inverse_cdf.c). Sorts a copy. */
LLMLAT_PRIVATE int32_t exact_inverse_cdf(const exact_store *s, const llmlat_alloc *al,
                                         const double *q, size_t n, double *out, double *mode);

/* Adds the weight of the samples in each bucket of n ascending bounds to
 * per[0 .. n] (per[n]: above the last bound): one pass, no sorting. */
LLMLAT_PRIVATE void exact_count_classic(const exact_store *s, const double *bounds, size_t n,
                                        uint64_t *per);
/* The smallest sample above 0; NaN when none. */
LLMLAT_PRIVATE double exact_min_positive(const exact_store *s);

LLMLAT_PRIVATE size_t exact_memory(const exact_store *s);

/* Its section of the byte format (exact_bytes.c); the reader fills an
 * empty store: LLMLAT_EFORMAT on bytes that are short or break an
 * invariant, ENOMEM. */
LLMLAT_PRIVATE void exact_write(bytes_writer *w, const exact_store *s);
LLMLAT_PRIVATE int32_t exact_read(bytes_reader *r, exact_store *s, const llmlat_alloc *al);

#endif
