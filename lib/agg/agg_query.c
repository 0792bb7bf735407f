/* Reading an aggregator: statistics, quantiles, rates, counters. */
#include <math.h>

#include "agg/agg.h"
#include "record/lacks.h"
#include "util/units.h"

/* Nothing to measure: the convention's placeholder, or undefined. */
static int32_t placeholder_value(const llmlat_agg *a, double *out)
{
    if (a->conv->empty == EMPTY_ZERO) {
        *out = 0.0;
        return LLMLAT_OK;
    }
    *out = NAN;
    return LLMLAT_EUNDEFINED;
}

/* An empty store: the same, unless it is one without a placeholder. */
static int32_t empty_value(const llmlat_agg *a, const metric_store *s, double *out)
{
    return s->placeholder ? placeholder_value(a, out) : undefined_value(out);
}

LLMLAT_PRIVATE const char *agg_lacks_reason(const llmlat_agg *a, int32_t kind, int32_t id)
{
    if (a->lacks == 0)
        return NULL;
    lacks_ctx x = {
        .lacks = a->lacks,
        .sources = a->sources,
        .c = a->conv,
        .host_duration = agg_param(a, LLMLAT_PARAM_DURATION) > 0.0,
        .slo = { agg_param(a, LLMLAT_PARAM_SLO_TTFT) > 0.0,
                 agg_param(a, LLMLAT_PARAM_SLO_TPOT) > 0.0,
                 agg_param(a, LLMLAT_PARAM_SLO_E2E) > 0.0 },
    };
    return lacks_reason(&x, kind, id);
}

LLMLAT_API int32_t llmlat_agg_unavailable(const llmlat_agg *a, int32_t kind, int32_t id,
                                          const char **reason)
{
    bool known = (kind == LLMLAT_KIND_METRIC && metric_valid(id)) ||
                 (kind == LLMLAT_KIND_RATE && id >= LLMLAT_RATE_REQUESTS &&
                  id <= LLMLAT_RATE_PEAK_OUTPUT_TOKENS) ||
                 (kind == LLMLAT_KIND_COUNTER && id >= LLMLAT_COUNT_COMPLETED &&
                  id <= LLMLAT_COUNT_MEMORY_BYTES);
    if (!a || !reason || !known)
        return LLMLAT_EINVAL;
    *reason = agg_lacks_reason(a, kind, id);
    return *reason ? LLMLAT_EUNDEFINED : LLMLAT_OK;
}

static bool stat_valid(int32_t stat)
{
    return stat >= LLMLAT_STAT_COUNT && stat <= LLMLAT_STAT_SUM;
}

LLMLAT_PRIVATE int32_t agg_store_stat(const llmlat_agg *a, const metric_store *s, int32_t stat,
                                      double *out)
{
    uint64_t n = store_count(s);
    if (stat == LLMLAT_STAT_COUNT) {
        *out = (double)n;
        return LLMLAT_OK;
    }
    if (n == 0 && stat == LLMLAT_STAT_SUM) { /* the sum of nothing */
        *out = 0.0;
        return LLMLAT_OK;
    }
    if (n == 0)
        return empty_value(a, s, out);
    return store_stat(s, &a->al, a->conv, stat, out);
}

LLMLAT_PRIVATE int32_t agg_store_quantiles(const llmlat_agg *a, const metric_store *s,
                                           const double *q, size_t n, double *out)
{
    if (store_count(s) == 0) {
        int32_t st = LLMLAT_OK;
        for (size_t i = 0; i < n; i++)
            st = empty_value(a, s, &out[i]);
        return st;
    }
    return store_quantiles(s, &a->al, a->conv, q, n, out);
}

LLMLAT_PRIVATE int32_t agg_store_inverse_cdf(const llmlat_agg *a, const metric_store *s,
                                             const double *q, size_t n, double *out,
                                             double *mode)
{
    if (store_count(s) == 0) {
        int32_t st = LLMLAT_OK;
        for (size_t i = 0; i < n; i++)
            st = empty_value(a, s, &out[i]);
        if (mode)
            empty_value(a, s, mode);
        return st;
    }
    return store_inverse_cdf(s, &a->al, q, n, out, mode);
}

LLMLAT_API int32_t llmlat_agg_stat(const llmlat_agg *a, int32_t metric, int32_t stat,
                                   double *out)
{
    if (!a || !out || !metric_valid(metric) || !stat_valid(stat))
        return LLMLAT_EINVAL;
    if (agg_lacks_reason(a, LLMLAT_KIND_METRIC, metric))
        return undefined_value(out);
    return agg_store_stat(a, agg_store(a, metric), stat, out);
}

LLMLAT_API int32_t llmlat_agg_quantiles(const llmlat_agg *a, int32_t metric, const double *q,
                                        size_t n, double *out)
{
    if (!a || !q || !out || !metric_valid(metric) || n == 0 || n > MAX_QUANTILES)
        return LLMLAT_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!(q[i] >= 0.0 && q[i] <= 1.0)) /* also rejects NaN */
            return LLMLAT_EINVAL;
    if (agg_lacks_reason(a, LLMLAT_KIND_METRIC, metric)) {
        for (size_t i = 0; i < n; i++)
            undefined_value(&out[i]);
        return LLMLAT_EUNDEFINED;
    }
    return agg_store_quantiles(a, agg_store(a, metric), q, n, out);
}

LLMLAT_API int32_t llmlat_agg_quantile(const llmlat_agg *a, int32_t metric, double q,
                                       double *out)
{
    if (!out)
        return LLMLAT_EINVAL;
    return llmlat_agg_quantiles(a, metric, &q, 1, out);
}

LLMLAT_PRIVATE bool agg_duration(const llmlat_agg *a, double *seconds)
{
    double host = agg_param(a, LLMLAT_PARAM_DURATION);
    if (host > 0.0) {
        *seconds = host;
        return true;
    }
    if (a->lacks & LLMLAT_LACKS_START_TIMES)
        return false; /* relative starts span nothing */
    return span_seconds(a->conv->duration_over_valid ? a->valid : a->all, seconds);
}

LLMLAT_PRIVATE bool agg_any_slo(const llmlat_agg *a)
{
    return agg_param(a, LLMLAT_PARAM_SLO_TTFT) > 0.0 ||
           agg_param(a, LLMLAT_PARAM_SLO_TPOT) > 0.0 ||
           agg_param(a, LLMLAT_PARAM_SLO_E2E) > 0.0;
}

/* value <= slo, a missing value failing (or, for TPOT, as the convention
 * says). An SLO of 0 is not set. */
static bool meets(double value, double slo, bool missing_meets)
{
    if (slo <= 0.0)
        return true;
    if (isnan(value))
        return missing_meets;
    return value <= slo;
}

LLMLAT_PRIVATE bool agg_meets_slos(const llmlat_agg *a, double ttft_s, double tpot_s, double e2e_s)
{
    return meets(ttft_s, agg_param(a, LLMLAT_PARAM_SLO_TTFT), false) &&
           meets(tpot_s, agg_param(a, LLMLAT_PARAM_SLO_TPOT), !a->conv->tpot_missing_fails_slo) &&
           meets(e2e_s, agg_param(a, LLMLAT_PARAM_SLO_E2E), false);
}

/* Bounded mode counted them as they came (its SLOs are fixed then). */
static uint64_t good_count(const llmlat_agg *a)
{
    if (a->mode == LLMLAT_MODE_BOUNDED)
        return a->good;
    uint64_t good = 0;
    for (size_t i = 0; i < a->tl.n_rec; i++) {
        const success_record *r = &a->tl.rec[i];
        good += agg_meets_slos(a, r->ttft_s, r->tpot_s, r->e2e_s);
    }
    return good;
}

LLMLAT_API int32_t llmlat_agg_rate(const llmlat_agg *a, int32_t rate, double *out)
{
    if (!a || !out || rate < LLMLAT_RATE_REQUESTS || rate > LLMLAT_RATE_PEAK_OUTPUT_TOKENS)
        return LLMLAT_EINVAL;
    if (agg_lacks_reason(a, LLMLAT_KIND_RATE, rate))
        return undefined_value(out);
    if (rate == LLMLAT_RATE_PEAK_OUTPUT_TOKENS) {
        if (a->mode == LLMLAT_MODE_BOUNDED) /* no timeline: docs/metrics.md */
            return undefined_value(out);
        uint64_t peak;
        bool defined;
        int32_t st = timeline_peak_per_second(&a->tl, &a->al, &peak, &defined);
        if (st != LLMLAT_OK)
            return st;
        if (!defined)
            return placeholder_value(a, out);
        *out = (double)peak; /* tokens in a 1-second bucket */
        return LLMLAT_OK;
    }
    if (rate == LLMLAT_RATE_GOODPUT && !agg_any_slo(a))
        return undefined_value(out);
    double d;
    bool tokens = rate == LLMLAT_RATE_OUTPUT_TOKENS || rate == LLMLAT_RATE_TOTAL_TOKENS;
    /* GuideLLM's token rates run over its token points, whatever D */
    if (!(tokens && a->conv->token_rates_over_token_span ? span_seconds(a->tokens, &d)
                                                         : agg_duration(a, &d)))
        return undefined_value(out);
    switch (rate) {
    case LLMLAT_RATE_REQUESTS:
        *out = (double)a->completed / d;
        break;
    case LLMLAT_RATE_OUTPUT_TOKENS:
        *out = (double)a->output_tokens / d;
        break;
    case LLMLAT_RATE_TOTAL_TOKENS:
        *out = ((double)a->input_tokens + (double)a->output_tokens) / d;
        break;
    case LLMLAT_RATE_GOODPUT:
        *out = (double)good_count(a) / d;
        break;
    }
    return LLMLAT_OK;
}

static size_t memory_bytes(const llmlat_agg *a)
{
    size_t bytes = sizeof *a + timeline_memory(&a->tl) + request_log_memory(&a->log) +
                   agg_labels_memory(a);
    if (a->mode == LLMLAT_MODE_BOUNDED)
        bytes += sketch_map_memory(&a->map);
    for (int i = 0; i < METRIC_COUNT; i++) {
        bytes += store_memory(&a->stores[i]);
        for (int g = 0; g < FAILED_GROUPS; g++)
            bytes += store_memory(&a->failures[g].stores[i]);
    }
    return bytes;
}

LLMLAT_API int32_t llmlat_agg_counter(const llmlat_agg *a, int32_t counter, uint64_t *out)
{
    if (!a || !out)
        return LLMLAT_EINVAL;
    if (agg_lacks_reason(a, LLMLAT_KIND_COUNTER, counter)) {
        *out = 0;
        return LLMLAT_EUNDEFINED;
    }
    switch (counter) {
    case LLMLAT_COUNT_COMPLETED:
        *out = a->completed;
        return LLMLAT_OK;
    case LLMLAT_COUNT_FAILED:
        *out = a->failed;
        return LLMLAT_OK;
    case LLMLAT_COUNT_TPOT_UNDEFINED:
        *out = a->tpot_undefined;
        return LLMLAT_OK;
    case LLMLAT_COUNT_GOOD:
        if (!agg_any_slo(a)) {
            *out = 0;
            return LLMLAT_EUNDEFINED;
        }
        *out = good_count(a);
        return LLMLAT_OK;
    case LLMLAT_COUNT_INPUT_TOKENS:
        *out = a->input_tokens;
        return LLMLAT_OK;
    case LLMLAT_COUNT_OUTPUT_TOKENS:
        *out = a->output_tokens;
        return LLMLAT_OK;
    case LLMLAT_COUNT_PEAK_CONCURRENCY:
        if (a->mode == LLMLAT_MODE_BOUNDED) { /* no timeline: docs/metrics.md */
            *out = 0;
            return LLMLAT_EUNDEFINED;
        }
        return timeline_peak_concurrency(&a->tl, &a->al, out);
    case LLMLAT_COUNT_MEMORY_BYTES:
        *out = memory_bytes(a);
        return LLMLAT_OK;
    }
    return LLMLAT_EINVAL;
}
