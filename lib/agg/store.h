/* The samples of one metric, in the aggregator's mode: the one interface
 * the aggregator and everything above it (queries, reports, exposition,
 * serialization, comparison) use. Each operation is implemented once per
 * mode, by the mode's own structure (exact/exact_store.c,
 * bounded/sketch.c), and store.c is the one place that tells the modes
 * apart. Bounded mode's fold of a request into its sketches
 * (bounded_fold.c, stream.c) is that mode's own code. */
#ifndef LLMLAT_STORE_H
#define LLMLAT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/bytes.h"
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

/* What a report shows of a non-empty store, under convention c (not an
 * inverse-CDF one), with the same bits as the queries one by one: mean,
 * std with c's ddof (NaN when undefined), min, max, the median and n <= 32
 * quantiles. Exact mode does it in fewer passes. */
typedef struct store_summary_values {
    double mean, std, min, max, median;
    double q[32];
} store_summary_values;
LLMLAT_PRIVATE int32_t store_summary(const metric_store *s, const llmlat_alloc *al,
                                     const conv_rules *c, const double *q, size_t n,
                                     store_summary_values *out);

/* Adds the weight of the samples in each bucket of n ascending bounds
 * to per[0 .. n] (per[n]: above the last): a classic histogram. */
LLMLAT_PRIVATE void store_count_classic(const metric_store *s, const double *bounds, size_t n,
                                        uint64_t *per);

/* The native-histogram buckets (llmlat_agg_buckets' outputs and buffer
 * rules) of the schema of relative error alpha: the sketch's, or the
 * samples counted into the buckets and window the same sketch would
 * hold. */
LLMLAT_PRIVATE int32_t store_native_buckets(const metric_store *s, double alpha, int32_t *schema,
                                            double *zero_threshold, uint64_t *zero_count,
                                            int64_t *offset, uint64_t *counts, size_t cap,
                                            size_t *len);

/* The smallest sample above 0 (bounded mode: its lowest bucket's value
 * unless the minimum is above 0); NaN when none. */
LLMLAT_PRIVATE double store_min_positive(const metric_store *s);

/* The samples themselves, in the order they were added, when the store
 * keeps them (exact mode): *v, *w (NULL when every weight is 1) and *n.
 * false (and *n 0) for a store that keeps none (bounded mode). */
LLMLAT_PRIVATE bool store_samples(const metric_store *s, const double **v, const uint32_t **w,
                                  size_t *n);

/* The store's section of the byte format (docs/format.md), written and
 * read by the mode's own code; the reader fills an empty store from bytes
 * of `version` (1: a sketch in version 1's layout): LLMLAT_EFORMAT on
 * bytes that are short or break an invariant, ENOMEM. */
LLMLAT_PRIVATE void store_write(bytes_writer *w, const metric_store *s);
LLMLAT_PRIVATE int32_t store_read(bytes_reader *r, metric_store *s, const llmlat_alloc *al,
                                  uint32_t version);

#endif
