/* A metric's histogram buckets, for reports and exporters: the bounds of
 * its classic histogram (vLLM server's by default, settable with
 * llmlat_agg_set_buckets) and its samples counted into them, and its
 * native-histogram buckets (llmlat_agg_buckets). Both modes give the same
 * native histogram for the same samples: bounded mode hands out its
 * sketch, exact mode counts its samples into the buckets the same sketch
 * would hold (store.h). */
#include <math.h>
#include <string.h>

#include "agg/agg.h"

/* vllm/v1/metrics/loggers.py, PrometheusStatLogger: the buckets of
 * vllm:time_to_first_token_seconds, of vllm:time_per_output_token_seconds
 * (also its inter-token latency) and of vllm:e2e_request_latency_seconds. */
static const double TTFT_BOUNDS[] = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75,
    1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0,
};
static const double PER_TOKEN_BOUNDS[] = {
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
    0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0,
};
static const double E2E_BOUNDS[] = {
    0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
    30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0,
};

#define COUNT_OF(x) (sizeof(x) / sizeof((x)[0]))

/* The default bounds of a time metric; NULL for the others. */
static const double *default_bounds(int32_t metric, size_t *n)
{
    switch (metric) {
    case LLMLAT_TTFT:
    case LLMLAT_SCHEDULED_TTFT:
    case LLMLAT_DISPATCH_DELAY: /* from 1 ms: the warning's threshold */
        *n = COUNT_OF(TTFT_BOUNDS);
        return TTFT_BOUNDS;
    case LLMLAT_TPOT:
    case LLMLAT_NTPOT:
    case LLMLAT_ITL:
    case LLMLAT_ICL:
    case LLMLAT_ITL_MAX:
        *n = COUNT_OF(PER_TOKEN_BOUNDS);
        return PER_TOKEN_BOUNDS;
    case LLMLAT_E2E:
    case LLMLAT_SCHEDULED_E2E:
        *n = COUNT_OF(E2E_BOUNDS);
        return E2E_BOUNDS;
    }
    *n = 0;
    return NULL;
}

LLMLAT_PRIVATE const double *agg_hist_set_bounds(const llmlat_agg *a, int32_t metric, size_t *n)
{
    *n = a->n_bucket_bounds[metric_index(metric)];
    return *n ? a->bucket_bounds[metric_index(metric)] : NULL;
}

LLMLAT_PRIVATE const double *agg_hist_bounds(const llmlat_agg *a, int32_t metric, size_t *n)
{
    const double *def = default_bounds(metric, n);
    if (!def)
        return NULL;
    size_t custom;
    const double *set = agg_hist_set_bounds(a, metric, &custom);
    if (!set)
        return def;
    *n = custom;
    return set;
}

LLMLAT_API int32_t llmlat_agg_set_buckets(llmlat_agg *a, int32_t metric, const double *bounds,
                                          size_t n)
{
    size_t n_default;
    if (!a || !default_bounds(metric, &n_default) || (!bounds && n > 0) ||
        n > MAX_BUCKET_BOUNDS)
        return LLMLAT_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(bounds[i]) || (i > 0 && !(bounds[i] > bounds[i - 1])))
            return LLMLAT_EINVAL;
    int idx = metric_index(metric);
    if (n > 0)
        memcpy(a->bucket_bounds[idx], bounds, n * sizeof *bounds);
    a->n_bucket_bounds[idx] = (uint8_t)n;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE void agg_hist_cumulative(const llmlat_agg *a, int32_t metric,
                                        const double *bounds, size_t n, uint64_t *cum)
{
    memset(cum, 0, (n + 1) * sizeof *cum);
    store_count_classic(agg_store(a, metric), bounds, n, cum);
    for (size_t i = 1; i <= n; i++)
        cum[i] += cum[i - 1];
}

LLMLAT_API int32_t llmlat_agg_buckets(const llmlat_agg *a, int32_t metric, int32_t *schema,
                                      double *zero_threshold, uint64_t *zero_count,
                                      int32_t *offset, uint64_t *counts, size_t cap, size_t *len)
{
    if (!a || !metric_valid(metric) || !schema || !zero_threshold || !zero_count || !offset ||
        !len || (!counts && cap > 0))
        return LLMLAT_EINVAL;
    double alpha = agg_param(a, LLMLAT_PARAM_RELATIVE_ERROR);
    if (agg_lacks_reason(a, LLMLAT_KIND_METRIC, metric)) {
        /* what the data lack has no buckets either, whatever the store holds */
        *schema = sketch_schema_for(alpha);
        *zero_threshold = 0.0;
        *zero_count = 0;
        *offset = 0;
        *len = 0;
        return LLMLAT_EUNDEFINED;
    }
    int32_t sch;
    double zt;
    uint64_t zc;
    int64_t at;
    int32_t st = store_native_buckets(agg_store(a, metric), alpha, &sch, &zt, &zc, &at, counts,
                                      cap, len);
    if (st != LLMLAT_OK)
        return st; /* ENOSPC: *len only */
    *schema = sch;
    *zero_threshold = zt;
    *zero_count = zc;
    *offset = (int32_t)at; /* indexes of finite doubles fit: |index| < 2^23 */
    return LLMLAT_OK;
}
