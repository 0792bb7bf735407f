#include <math.h>
#include <string.h>

#include "report/report_hist.h"

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

LLMLAT_PRIVATE const double *hist_set_bounds(const llmlat_agg *a, int32_t metric, size_t *n)
{
    *n = a->n_bucket_bounds[metric_index(metric)];
    return *n ? a->bucket_bounds[metric_index(metric)] : NULL;
}

LLMLAT_PRIVATE const double *hist_bounds(const llmlat_agg *a, int32_t metric, size_t *n)
{
    const double *def = default_bounds(metric, n);
    if (!def)
        return NULL;
    size_t custom;
    const double *set = hist_set_bounds(a, metric, &custom);
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

/* Index of the first bound >= v (the bucket `le` that holds v), or n. */
static size_t hist_bucket_of(const double *bounds, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bounds[mid] >= v)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Exact mode: one pass over the kept samples, no sorting needed. */
static void count_exact(const exact_store *e, const double *bounds, size_t n, uint64_t *cum)
{
    for (size_t i = 0; i < e->n; i++)
        cum[hist_bucket_of(bounds, n, e->v[i])] += e->weighted ? e->w[i] : 1;
}

/* Bounded mode: each sketch bucket counted at its representative value,
 * which is within the schema's error of every sample in it (so a sample
 * that close to a bound may land on either side of it); the zero bucket
 * (zeros, and the samples more than 2^31 below the largest) at 0. A
 * sample keeps its bucket until the window leaves it behind, and then
 * moves to 0, below any representative: counts only ever move down, so
 * no cumulative count drops. (At the minimum instead, a sample could move
 * up across a bound, from its bucket's representative to a minimum above
 * it in the same bucket.) */
static void count_sketch(const sketch *s, const sketch_map *m, const double *bounds,
                         size_t n, uint64_t *cum)
{
    size_t k = hist_bucket_of(bounds, n, 0.0);
    cum[k] += s->zero + s->below;
    if (s->top == SKETCH_NO_TOP)
        return;
    /* representatives ascend with the index: one walk along the bounds */
    for (int64_t i = s->low; i <= s->top; i++) {
        uint64_t w = s->bucket[i - s->base];
        if (!w)
            continue;
        double v = sketch_map_value(m, i);
        while (k < n && bounds[k] < v)
            k++;
        cum[k] += w;
    }
}

LLMLAT_PRIVATE int32_t hist_cumulative(const llmlat_agg *a, int32_t metric, const double *bounds,
                                       size_t n, uint64_t *cum)
{
    const metric_store *s = agg_store(a, metric);
    memset(cum, 0, (n + 1) * sizeof *cum);
    switch (s->mode) {
    case LLMLAT_MODE_EXACT:
        count_exact(&s->exact, bounds, n, cum);
        break;
    case LLMLAT_MODE_BOUNDED:
        count_sketch(&s->sk, s->map, bounds, n, cum);
        break;
    default:
        return LLMLAT_EINVAL;
    }
    for (size_t i = 1; i <= n; i++)
        cum[i] += cum[i - 1];
    return LLMLAT_OK;
}
