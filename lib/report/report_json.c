/* The JSON report: docs/report-json.md describes every member. */
#include <math.h>
#include <stdio.h>

#include "report/report_json.h"

/* Bumped on any change a reader could notice (docs/report-json.md). */
#define SCHEMA_VERSION 1

/* The metrics of the `metrics` object, in this order. */
static const int32_t JSON_METRICS[] = {
    LLMLAT_TTFT, LLMLAT_TPOT, LLMLAT_ITL, LLMLAT_ICL,
    LLMLAT_E2E, LLMLAT_TPS_USER, LLMLAT_ITL_MAX, LLMLAT_NTPOT,
    LLMLAT_DISPATCH_DELAY, LLMLAT_SCHEDULED_TTFT, LLMLAT_SCHEDULED_E2E,
};

LLMLAT_PRIVATE void json_counter(report_ctx *c, jsonw *w, const char *key, int32_t counter)
{
    uint64_t v;
    if (report_counter(c, counter, &v))
        jw_u64(w, key, v);
    else
        jw_null(w, key);
}

static void metric_object(report_ctx *c, jsonw *w, int32_t m)
{
    const llmlat_agg *a = c->a;
    metric_values v;
    report_metric(c, m, a->quantiles, a->n_quantiles, &v);
    jw_object(w, llmlat_metric_name(m));
    if (report_unavailable(c, LLMLAT_KIND_METRIC, m))
        jw_null(w, "count"); /* its samples are not all there */
    else
        jw_u64(w, "count", v.count);
    jw_number(w, "mean", v.mean);
    jw_number(w, "std", v.std);
    jw_number(w, "min", v.min);
    jw_number(w, "max", v.max);
    jw_number(w, "median", v.median);
    for (size_t i = 0; i < a->n_quantiles; i++) {
        if (report_quantile_repeats(a->quantiles, i))
            continue;
        char pct[PERCENT_TEXT_MAX], key[PERCENT_TEXT_MAX + 1];
        percent_text(a->quantiles[i], pct);
        snprintf(key, sizeof key, "p%s", pct);
        jw_number(w, key, v.q[i]);
    }
    jw_close(w);
}

/* The members above that the data cannot support, and why: written only
 * when there is one (data rebuilt from a tool's result file). */
static void json_unavailable(report_ctx *c, jsonw *w)
{
    static const struct {
        int32_t kind, id;
        const char *key;
    } ITEMS[] = {
        { LLMLAT_KIND_RATE, LLMLAT_RATE_REQUESTS, "duration_s" },
        { LLMLAT_KIND_COUNTER, LLMLAT_COUNT_INPUT_TOKENS, "total_input_tokens" },
        { LLMLAT_KIND_COUNTER, LLMLAT_COUNT_OUTPUT_TOKENS, "total_output_tokens" },
        { LLMLAT_KIND_RATE, LLMLAT_RATE_REQUESTS, "request_throughput" },
        { LLMLAT_KIND_RATE, LLMLAT_RATE_OUTPUT_TOKENS, "output_throughput" },
        { LLMLAT_KIND_RATE, LLMLAT_RATE_TOTAL_TOKENS, "total_token_throughput" },
        { LLMLAT_KIND_RATE, LLMLAT_RATE_GOODPUT, "request_goodput" },
        { LLMLAT_KIND_COUNTER, LLMLAT_COUNT_GOOD, "good_requests" },
        { LLMLAT_KIND_COUNTER, LLMLAT_COUNT_PEAK_CONCURRENCY, "max_concurrent_requests" },
        { LLMLAT_KIND_RATE, LLMLAT_RATE_PEAK_OUTPUT_TOKENS, "max_output_tokens_per_s" },
        { LLMLAT_KIND_COUNTER, LLMLAT_COUNT_TPOT_UNDEFINED, "tpot_undefined" },
        { LLMLAT_KIND_METRIC, LLMLAT_TTFT, "ttft" },
        { LLMLAT_KIND_METRIC, LLMLAT_TPOT, "tpot" },
        { LLMLAT_KIND_METRIC, LLMLAT_ITL, "itl" },
        { LLMLAT_KIND_METRIC, LLMLAT_ICL, "icl" },
        { LLMLAT_KIND_METRIC, LLMLAT_E2E, "e2e" },
        { LLMLAT_KIND_METRIC, LLMLAT_TPS_USER, "tps_user" },
        { LLMLAT_KIND_METRIC, LLMLAT_ITL_MAX, "itl_max" },
        { LLMLAT_KIND_METRIC, LLMLAT_TOOL_ITL, "tool_itl" },
        { LLMLAT_KIND_METRIC, LLMLAT_SCHEDULED_TTFT, "scheduled_ttft" },
        { LLMLAT_KIND_METRIC, LLMLAT_SCHEDULED_E2E, "scheduled_e2e" },
    };
    bool any = false;
    for (size_t i = 0; i < sizeof ITEMS / sizeof ITEMS[0]; i++) {
        const char *why = report_unavailable(c, ITEMS[i].kind, ITEMS[i].id);
        if (!why)
            continue;
        if (!any)
            jw_object(w, "unavailable");
        any = true;
        jw_string(w, ITEMS[i].key, why);
    }
    if (any)
        jw_close(w);
}

/* An SLO threshold in seconds; NaN (null) when not set. */
static double slo(const llmlat_agg *a, int32_t param)
{
    double v = agg_param(a, param);
    return v > 0.0 ? v : NAN;
}

LLMLAT_PRIVATE void report_json(report_ctx *c)
{
    const llmlat_agg *a = c->a;
    bool bounded = a->mode == LLMLAT_MODE_BOUNDED;
    jsonw w;
    jw_begin(&w, &c->out);
    jw_u64(&w, "schema_version", SCHEMA_VERSION);
    jw_string(&w, "llmlat_version", llmlat_version_string());
    jw_string(&w, "convention", a->conv->name);
    jw_string(&w, "mode", bounded ? "bounded" : "exact");
    jw_object(&w, "labels");
    for (size_t i = 0; i < a->n_labels; i++)
        jw_string(&w, a->labels[i].name, a->labels[i].value);
    jw_close(&w);
    jw_number(&w, "relative_error",
              bounded ? agg_param(a, LLMLAT_PARAM_RELATIVE_ERROR) : NAN);
    jw_object(&w, "slo");
    jw_number(&w, "ttft_s", slo(a, LLMLAT_PARAM_SLO_TTFT));
    jw_number(&w, "tpot_s", slo(a, LLMLAT_PARAM_SLO_TPOT));
    jw_number(&w, "e2e_s", slo(a, LLMLAT_PARAM_SLO_E2E));
    jw_close(&w);

    jw_number(&w, "duration_s", report_duration(c));
    json_counter(c, &w, "completed", LLMLAT_COUNT_COMPLETED);
    json_counter(c, &w, "failed", LLMLAT_COUNT_FAILED);
    json_counter(c, &w, "total_input_tokens", LLMLAT_COUNT_INPUT_TOKENS);
    json_counter(c, &w, "total_output_tokens", LLMLAT_COUNT_OUTPUT_TOKENS);
    jw_number(&w, "request_throughput", report_rate(c, LLMLAT_RATE_REQUESTS));
    jw_number(&w, "output_throughput", report_rate(c, LLMLAT_RATE_OUTPUT_TOKENS));
    jw_number(&w, "total_token_throughput", report_rate(c, LLMLAT_RATE_TOTAL_TOKENS));
    jw_number(&w, "request_goodput", report_rate(c, LLMLAT_RATE_GOODPUT));
    json_counter(c, &w, "good_requests", LLMLAT_COUNT_GOOD);
    json_counter(c, &w, "max_concurrent_requests", LLMLAT_COUNT_PEAK_CONCURRENCY);
    jw_number(&w, "max_output_tokens_per_s", report_rate(c, LLMLAT_RATE_PEAK_OUTPUT_TOKENS));
    json_counter(c, &w, "tpot_undefined", LLMLAT_COUNT_TPOT_UNDEFINED);
    jw_number(&w, "max_dispatch_delay_s", agg_param(a, LLMLAT_PARAM_MAX_DISPATCH_DELAY));
    double p99;
    bool behind = report_behind_schedule(c, &p99);
    if (isnan(p99)) /* no request had an intended start */
        jw_null(&w, "behind_schedule");
    else
        jw_bool(&w, "behind_schedule", behind);

    jw_object(&w, "metrics");
    for (size_t i = 0; i < sizeof JSON_METRICS / sizeof JSON_METRICS[0]; i++)
        metric_object(c, &w, JSON_METRICS[i]);
    jw_close(&w);

    json_unavailable(c, &w);

    json_tool(c, &w);
    jw_end(&w);
}
