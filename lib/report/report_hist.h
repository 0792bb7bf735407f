/* The classic histograms of the Prometheus report: the bucket bounds of
 * each time metric (vLLM server's by default, settable with
 * llmlat_agg_set_buckets) and the samples counted into them. */
#ifndef LLMLAT_REPORT_HIST_H
#define LLMLAT_REPORT_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "agg/agg.h"

/* The bounds of the metric's histogram; NULL (and *n = 0) when the metric
 * has no histogram. */
LLMLAT_PRIVATE const double *hist_bounds(const llmlat_agg *a, int32_t metric, size_t *n);

/* The bounds set with llmlat_agg_set_buckets; NULL (and *n = 0) while
 * the metric's are the default. */
LLMLAT_PRIVATE const double *hist_set_bounds(const llmlat_agg *a, int32_t metric, size_t *n);

/* cum[i] = weight of the samples <= bounds[i] for i < n, and cum[n] = the
 * weight of all of them (n + 1 entries). */
LLMLAT_PRIVATE int32_t hist_cumulative(const llmlat_agg *a, int32_t metric, const double *bounds,
                                       size_t n, uint64_t *cum);

#endif
