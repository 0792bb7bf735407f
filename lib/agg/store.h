/* The samples of one metric, in the aggregator's mode. The aggregator
 * talks to this interface only; each mode's structure lives in its own
 * file (exact_store.c, sketch.c). Bounded mode folds requests straight
 * into the sketches (bounded_fold.c); everything else goes through here. */
#ifndef LLMLAT_STORE_H
#define LLMLAT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "record/convention.h"
#include "exact/exact_store.h"
#include "bounded/sketch.h"

typedef struct metric_store {
    int32_t mode;
    /* Empty, it reads as the convention's placeholder (vLLM's 0.0): true
     * but for the metrics from the intended start (metric_from_schedule),
     * whose empty set is nobody's measurement. */
    bool placeholder;
    exact_store exact;
    sketch sk;               /* bounded mode */
    const sketch_map *map;   /* bounded mode: the aggregator's layout */
} metric_store;

LLMLAT_PRIVATE void store_init(metric_store *s, int32_t mode, bool weighted);
LLMLAT_PRIVATE void store_free(metric_store *s, const llmlat_alloc *al);
LLMLAT_PRIVATE void store_clear(metric_store *s);

/* Room for `extra` more samples; unchanged on failure. */
LLMLAT_PRIVATE int32_t store_reserve(metric_store *s, const llmlat_alloc *al, size_t extra);
/* One sample of weight w >= 1, into reserved room (never fails). Exact
 * mode only. */
static inline void store_push(metric_store *s, double v, uint32_t w)
{
    exact_push(&s->exact, v, w);
}
/* Room for src's samples in dst (the caller checked that the counts'
 * sum fits), then the append itself (never fails). */
LLMLAT_PRIVATE int32_t store_reserve_merge(metric_store *dst, const llmlat_alloc *al,
                                           const metric_store *src);
LLMLAT_PRIVATE void store_append(metric_store *dst, const metric_store *src);

/* *dst = a new store holding the samples of n stores of one metric (the
 * same mode, weighting and layout), which the caller frees: the "total"
 * of status groups. EINVAL when the counts would overflow, ENOMEM. */
LLMLAT_PRIVATE int32_t store_union(metric_store *dst, const llmlat_alloc *al,
                                   const metric_store *const *src, size_t n);

LLMLAT_PRIVATE uint64_t store_count(const metric_store *s);
/* Statistic of a non-empty store (LLMLAT_STAT_* other than COUNT), as
 * convention c computes it (its ddof, its quantile rule for MEDIAN). */
LLMLAT_PRIVATE int32_t store_stat(const metric_store *s, const llmlat_alloc *al,
                                  const conv_rules *c, int32_t stat, double *out);
/* n <= 32 quantiles (each in [0, 1]) of a non-empty store by c's rule, in
 * one pass. */
LLMLAT_PRIVATE int32_t store_quantiles(const metric_store *s, const llmlat_alloc *al,
                                       const conv_rules *c, const double *q, size_t n,
                                       double *out);
/* GuideLLM's inverse-CDF quantiles (n <= 64) of a non-empty store and,
 * when mode is not NULL, its mode (the value of the largest weight; NaN in
 * bounded mode, whose buckets keep no values), in one pass. */
LLMLAT_PRIVATE int32_t store_inverse_cdf(const metric_store *s, const llmlat_alloc *al,
                                         const double *q, size_t n, double *out,
                                         double *mode);
LLMLAT_PRIVATE size_t store_memory(const metric_store *s);

#endif
