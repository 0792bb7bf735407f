/* The JSON report's `tool` object: each tool's own summary fields, named
 * and scaled as its result file has them, so that a user can diff llmlat
 * against that file (docs/report-json.md lists the sources):
 *   vLLM    vllm/benchmarks/serve.py, the `result` dict of benchmark()
 *   AIPerf  profile_export_aiperf.json (metric tags, unit/avg/pN/min/max/std)
 *   SGLang  python/sglang/bench_serving.py, the `result` dict
 *   LLMPerf token_benchmark_ray.py, metrics_summary()
 *   GuideLLM        benchmarks[i] of its JSON report: `start_time`,
 *                   `end_time`, `duration` and GenerativeMetrics
 *                   (benchmark/schemas/metrics.py)
 *   inference-perf  summary_lifecycle_metrics.json (reportgen/base.py,
 *                   summarize_requests) */
#include <math.h>
#include <stdio.h>

#include "report/report_json.h"

#define MS_PER_S 1000.0 /* the tools print times in ms; the library has seconds */

/* "mean_<name>_ms", "median_...", "std_...", "p<P>_<name>_ms" for each q,
 * and "max_<name>_ms" when asked: vLLM's and SGLang's flat keys. The
 * values are left in *v. */
static void flat_ms_stats(report_ctx *c, jsonw *w, int32_t metric, const char *name,
                          const double *q, size_t nq, bool with_max, metric_values *v)
{
    char key[96];
    report_metric(c, metric, q, nq, v);
    snprintf(key, sizeof key, "mean_%s_ms", name);
    jw_number(w, key, v->mean * MS_PER_S);
    snprintf(key, sizeof key, "median_%s_ms", name);
    jw_number(w, key, v->median * MS_PER_S);
    snprintf(key, sizeof key, "std_%s_ms", name);
    jw_number(w, key, v->std * MS_PER_S);
    for (size_t i = 0; i < nq; i++) {
        if (report_quantile_repeats(q, i))
            continue;
        char pct[PERCENT_TEXT_MAX];
        percent_text(q[i], pct);
        snprintf(key, sizeof key, "p%s_%s_ms", pct, name);
        jw_number(w, key, v->q[i] * MS_PER_S);
    }
    if (with_max) {
        snprintf(key, sizeof key, "max_%s_ms", name);
        jw_number(w, key, v->max * MS_PER_S);
    }
}

/* vLLM prints the percentiles the user chose: the report's quantiles. */
static void tool_vllm(report_ctx *c, jsonw *w)
{
    const llmlat_agg *a = c->a;
    jw_number(w, "duration", report_duration(c));
    json_counter(c, w, "completed", LLMLAT_COUNT_COMPLETED);
    json_counter(c, w, "failed", LLMLAT_COUNT_FAILED);
    json_counter(c, w, "total_input_tokens", LLMLAT_COUNT_INPUT_TOKENS);
    json_counter(c, w, "total_output_tokens", LLMLAT_COUNT_OUTPUT_TOKENS);
    jw_number(w, "request_throughput", report_rate(c, LLMLAT_RATE_REQUESTS));
    jw_number(w, "request_goodput", report_rate(c, LLMLAT_RATE_GOODPUT));
    jw_number(w, "output_throughput", report_rate(c, LLMLAT_RATE_OUTPUT_TOKENS));
    jw_number(w, "total_token_throughput", report_rate(c, LLMLAT_RATE_TOTAL_TOKENS));
    jw_number(w, "max_output_tokens_per_s", report_rate(c, LLMLAT_RATE_PEAK_OUTPUT_TOKENS));
    json_counter(c, w, "max_concurrent_requests", LLMLAT_COUNT_PEAK_CONCURRENCY);
    static const struct {
        int32_t metric;
        const char *name;
    } STATS[] = {
        { LLMLAT_TTFT, "ttft" }, { LLMLAT_TPOT, "tpot" },
        { LLMLAT_TOOL_ITL, "itl" }, { LLMLAT_E2E, "e2el" },
    };
    for (size_t i = 0; i < sizeof STATS / sizeof STATS[0]; i++) {
        metric_values v;
        flat_ms_stats(c, w, STATS[i].metric, STATS[i].name, a->quantiles, a->n_quantiles,
                      false, &v);
    }
    /* its client-side queue time (#54136): only when the run had one */
    if (report_has_schedule(c)) {
        metric_values v;
        flat_ms_stats(c, w, LLMLAT_DISPATCH_DELAY, "client_queue_time", a->quantiles,
                      a->n_quantiles, false, &v);
        flat_ms_stats(c, w, LLMLAT_SCHEDULED_E2E, "e2el_including_client_queue", a->quantiles,
                      a->n_quantiles, false, &v);
    }
}

/* SGLang's statistics are fixed: mean, median, std, p90/p95/p99, max. */
static void tool_sglang(report_ctx *c, jsonw *w)
{
    static const double Q[] = { 0.90, 0.95, 0.99 };
    const size_t nq = sizeof Q / sizeof Q[0];
    uint64_t input;
    bool has_input = report_counter(c, LLMLAT_COUNT_INPUT_TOKENS, &input);
    double d = report_duration(c);
    jw_number(w, "duration", d);
    json_counter(c, w, "completed", LLMLAT_COUNT_COMPLETED);
    json_counter(c, w, "total_input_tokens", LLMLAT_COUNT_INPUT_TOKENS);
    json_counter(c, w, "total_output_tokens", LLMLAT_COUNT_OUTPUT_TOKENS);
    jw_number(w, "request_throughput", report_rate(c, LLMLAT_RATE_REQUESTS));
    jw_number(w, "input_throughput", has_input ? (double)input / d : NAN);
    jw_number(w, "output_throughput", report_rate(c, LLMLAT_RATE_OUTPUT_TOKENS));
    jw_number(w, "total_throughput", report_rate(c, LLMLAT_RATE_TOTAL_TOKENS));
    metric_values e2e, v;
    flat_ms_stats(c, w, LLMLAT_E2E, "e2e_latency", Q, nq, true, &e2e);
    flat_ms_stats(c, w, LLMLAT_TTFT, "ttft", Q, nq, true, &v);
    flat_ms_stats(c, w, LLMLAT_TPOT, "tpot", Q, nq, true, &v);
    flat_ms_stats(c, w, LLMLAT_TOOL_ITL, "itl", Q, nq, true, &v);
    /* its "concurrency": the sum of E2E over the duration */
    jw_number(w, "concurrency", e2e.mean * (double)e2e.count / d);
}

/* An AIPerf metric with a distribution: {"unit", "avg", "p1".."p99", "min",
 * "max", "std"}, omitted when it has no value (as AIPerf does). */
static void aiperf_metric(report_ctx *c, jsonw *w, const char *tag, int32_t metric,
                          const char *unit, double scale)
{
    static const double Q[] = { 0.01, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 0.99 };
    const size_t nq = sizeof Q / sizeof Q[0];
    metric_values v;
    report_metric(c, metric, Q, nq, &v);
    if (v.count == 0 || report_unavailable(c, LLMLAT_KIND_METRIC, metric))
        return; /* no value, or none the data can support: listed under "unavailable" */
    jw_object(w, tag);
    jw_string(w, "unit", unit);
    jw_number(w, "avg", v.mean * scale);
    for (size_t i = 0; i < nq; i++) {
        char pct[PERCENT_TEXT_MAX], key[PERCENT_TEXT_MAX + 1];
        percent_text(Q[i], pct);
        snprintf(key, sizeof key, "p%s", pct);
        jw_number(w, key, v.q[i] * scale);
    }
    jw_number(w, "min", v.min * scale);
    jw_number(w, "max", v.max * scale);
    jw_number(w, "std", v.std * scale);
    jw_close(w);
}

/* An AIPerf single value: {"unit", "avg"}; null when it has no value. */
static void aiperf_value(jsonw *w, const char *tag, const char *unit, double v)
{
    if (isnan(v)) {
        jw_null(w, tag);
        return;
    }
    jw_object(w, tag);
    jw_string(w, "unit", unit);
    jw_number(w, "avg", v);
    jw_close(w);
}

static double count_or_nan(report_ctx *c, int32_t counter)
{
    uint64_t v;
    return report_counter(c, counter, &v) ? (double)v : NAN;
}

static void tool_aiperf(report_ctx *c, jsonw *w)
{
    aiperf_metric(c, w, "time_to_first_token", LLMLAT_TTFT, "ms", MS_PER_S);
    aiperf_metric(c, w, "inter_token_latency", LLMLAT_TOOL_ITL, "ms", MS_PER_S);
    aiperf_metric(c, w, "inter_chunk_latency", LLMLAT_ICL, "ms", MS_PER_S);
    aiperf_metric(c, w, "request_latency", LLMLAT_E2E, "ms", MS_PER_S);
    aiperf_metric(c, w, "output_token_throughput_per_user", LLMLAT_TPS_USER,
                  "tokens/sec/user", 1.0);
    aiperf_metric(c, w, "output_sequence_length", LLMLAT_OUTPUT_TOKENS, "tokens", 1.0);
    aiperf_metric(c, w, "input_sequence_length", LLMLAT_INPUT_TOKENS, "tokens", 1.0);
    aiperf_value(w, "request_throughput", "requests/sec", report_rate(c, LLMLAT_RATE_REQUESTS));
    aiperf_value(w, "output_token_throughput", "tokens/sec",
                 report_rate(c, LLMLAT_RATE_OUTPUT_TOKENS));
    aiperf_value(w, "benchmark_duration", "sec", report_duration(c));
    aiperf_value(w, "request_count", "requests", count_or_nan(c, LLMLAT_COUNT_COMPLETED));
    double failed = count_or_nan(c, LLMLAT_COUNT_FAILED);
    aiperf_value(w, "error_request_count", "requests", failed > 0 ? failed : NAN);
    aiperf_value(w, "total_isl", "tokens", count_or_nan(c, LLMLAT_COUNT_INPUT_TOKENS));
    aiperf_value(w, "total_osl", "tokens", count_or_nan(c, LLMLAT_COUNT_OUTPUT_TOKENS));
    aiperf_value(w, "goodput", "requests/sec", report_rate(c, LLMLAT_RATE_GOODPUT));
    aiperf_value(w, "good_request_count", "requests", count_or_nan(c, LLMLAT_COUNT_GOOD));
}

/* An LLMPerf metric: {"quantiles": {"p25".."p99"}, "mean", "min", "max",
 * "stddev"} in its own unit (seconds for times; stddev with ddof 1, as the
 * convention's STD). Its keys truncate: f"p{int(q * 100)}". */
static void llmperf_metric(report_ctx *c, jsonw *w, const char *key, int32_t metric)
{
    static const double Q[] = { 0.25, 0.50, 0.75, 0.90, 0.95, 0.99 };
    const size_t nq = sizeof Q / sizeof Q[0];
    metric_values v;
    report_metric(c, metric, Q, nq, &v);
    jw_object(w, key);
    jw_object(w, "quantiles");
    for (size_t i = 0; i < nq; i++) {
        char pkey[16];
        snprintf(pkey, sizeof pkey, "p%d", (int)(Q[i] * 100.0));
        jw_number(w, pkey, v.q[i]);
    }
    jw_close(w);
    jw_number(w, "mean", v.mean);
    jw_number(w, "min", v.min);
    jw_number(w, "max", v.max);
    jw_number(w, "stddev", v.std);
    jw_close(w);
}

static void tool_llmperf(report_ctx *c, jsonw *w)
{
    llmperf_metric(c, w, "inter_token_latency_s", LLMLAT_TOOL_ITL);
    llmperf_metric(c, w, "ttft_s", LLMLAT_TTFT);
    llmperf_metric(c, w, "end_to_end_latency_s", LLMLAT_E2E);
    llmperf_metric(c, w, "request_output_throughput_token_per_s", LLMLAT_TPS_USER);
    llmperf_metric(c, w, "number_input_tokens", LLMLAT_INPUT_TOKENS);
    llmperf_metric(c, w, "number_output_tokens", LLMLAT_OUTPUT_TOKENS);
    uint64_t completed = c->a->completed, failed = c->a->failed;
    uint64_t started = completed > UINT64_MAX - failed ? UINT64_MAX : completed + failed;
    jw_u64(w, "num_requests_started", started);
    jw_number(w, "error_rate", started ? (double)failed / (double)started : 0.0);
    jw_u64(w, "number_errors", failed);
    jw_number(w, "mean_output_throughput_token_per_s",
              report_rate(c, LLMLAT_RATE_OUTPUT_TOKENS));
    jw_u64(w, "num_completed_requests", completed);
    jw_number(w, "num_completed_requests_per_min",
              report_rate(c, LLMLAT_RATE_REQUESTS) * 60.0);
}

/* GuideLLM's status groups, in its order, each a mask of llmlat's groups. */
static const struct {
    const char *name;
    unsigned groups;
} GUIDELLM_GROUPS[] = {
    { "successful", 1u << GROUP_SUCCESSFUL },
    { "incomplete", 1u << GROUP_INCOMPLETE },
    { "errored", 1u << GROUP_ERRORED },
    { "total", GROUPS_ALL },
};
#define GUIDELLM_GROUP_COUNT (sizeof GUIDELLM_GROUPS / sizeof GUIDELLM_GROUPS[0])

/* GuideLLM's summary of an empty group: zeros. */
static void guidellm_zeros(metric_values *v, size_t nq)
{
    v->mean = v->median = v->mode = v->std = v->min = v->max = 0.0;
    for (size_t i = 0; i < nq; i++)
        v->q[i] = 0.0;
}

/* A DistributionSummary (schemas/statistics.py) of a metric over groups,
 * in the field's unit (scale per second): mean, median, mode, variance,
 * std_dev, min, max, count (the sum of weights), total_sum (mean x count,
 * as GuideLLM multiplies) and percentiles p001..p999, the inverse CDF. An
 * empty group is GuideLLM's summary of zeros. */
static void guidellm_summary(report_ctx *c, jsonw *w, const char *key, unsigned groups,
                             int32_t metric, double scale)
{
    static const double Q[] = { 0.001, 0.01, 0.05, 0.1, 0.25, 0.5,
                                0.75,  0.9,  0.95, 0.99, 0.999 };
    static const char *const KEYS[] = { "p001", "p01", "p05", "p10", "p25", "p50",
                                        "p75",  "p90", "p95", "p99", "p999" };
    const size_t nq = sizeof Q / sizeof Q[0];
    metric_values v;
    report_groups_metric(c, groups, metric, Q, nq, true, &v);
    if (v.count == 0 && metric_from_schedule(metric)) /* no placeholder in the library */
        guidellm_zeros(&v, nq);
    jw_object(w, key);
    jw_number(w, "mean", v.mean * scale);
    jw_number(w, "median", v.median * scale);
    jw_number(w, "mode", v.mode * scale);
    jw_number(w, "variance", v.std * v.std * scale * scale);
    jw_number(w, "std_dev", v.std * scale);
    jw_number(w, "min", v.min * scale);
    jw_number(w, "max", v.max * scale);
    jw_u64(w, "count", v.count);
    jw_number(w, "total_sum", v.mean * scale * (double)v.count);
    jw_object(w, "percentiles");
    for (size_t i = 0; i < nq; i++)
        jw_number(w, KEYS[i], v.q[i] * scale);
    jw_close(w);
    jw_close(w);
}

/* A StatusDistributionSummary: the summary of each status group. */
static void guidellm_field(report_ctx *c, jsonw *w, const char *field, int32_t metric,
                           double scale)
{
    if (report_unavailable(c, LLMLAT_KIND_METRIC, metric)) {
        jw_null(w, field); /* the data cannot support it: no summary of zeros */
        return;
    }
    jw_object(w, field);
    for (size_t g = 0; g < GUIDELLM_GROUP_COUNT; g++)
        guidellm_summary(c, w, GUIDELLM_GROUPS[g].name, GUIDELLM_GROUPS[g].groups, metric,
                         scale);
    jw_close(w);
}

/* What a mask of groups adds up to: requests, output tokens, token points. */
static void groups_total(const llmlat_agg *a, unsigned groups, uint64_t *count,
                         double *output_tokens, span *tokens)
{
    *count = 0;
    *output_tokens = 0.0;
    *tokens = SPAN_EMPTY;
    for (int g = 0; g < GROUP_COUNT; g++) {
        if (!(groups & (1u << g)))
            continue;
        group_view v = agg_group_view(a, (enum req_group)g);
        *count += v.count;
        *output_tokens += (double)v.output_tokens;
        if (v.tokens.lo < tokens->lo)
            tokens->lo = v.tokens.lo;
        if (v.tokens.hi > tokens->hi)
            tokens->hi = v.tokens.hi;
    }
}

/* x / d, or GuideLLM's 0.0 for a rate without two distinct times. */
static double guidellm_rate(double x, double d, bool defined)
{
    return defined && d > 0.0 ? x / d : 0.0;
}

/* The means of requests_per_second (a group's requests over the benchmark
 * duration) and output_tokens_per_second (its output tokens over the span
 * of its token points), per group: {"<group>": {"mean": x}}. */
static void guidellm_rates(report_ctx *c, jsonw *w)
{
    double d = report_duration(c);
    /* what the data cannot support is null, not GuideLLM's 0.0 */
    bool lacks[2] = { report_unavailable(c, LLMLAT_KIND_RATE, LLMLAT_RATE_REQUESTS) != NULL,
                      report_unavailable(c, LLMLAT_KIND_RATE, LLMLAT_RATE_OUTPUT_TOKENS) != NULL };
    const char *const FIELDS[] = { "requests_per_second", "output_tokens_per_second" };
    for (int f = 0; f < 2; f++) {
        jw_object(w, FIELDS[f]);
        for (size_t g = 0; g < GUIDELLM_GROUP_COUNT; g++) {
            uint64_t count;
            double tokens;
            span points;
            groups_total(c->a, GUIDELLM_GROUPS[g].groups, &count, &tokens, &points);
            double span_s = 0.0;
            bool has_span = span_seconds(points, &span_s);
            jw_object(w, GUIDELLM_GROUPS[g].name);
            jw_number(w, "mean", lacks[f] ? NAN
                                 : f == 0 ? guidellm_rate((double)count, d, !isnan(d))
                                          : guidellm_rate(tokens, span_s, has_span));
            jw_close(w);
        }
        jw_close(w);
    }
}

static void tool_guidellm(report_ctx *c, jsonw *w)
{
    const llmlat_agg *a = c->a;
    double d = report_duration(c);
    double start = a->all.lo <= a->all.hi && !(a->lacks & LLMLAT_LACKS_START_TIMES)
                       ? ns_to_s(a->all.lo)
                       : NAN;
    jw_object(w, "benchmark");
    jw_number(w, "start_time", start);
    jw_number(w, "end_time", start + d);
    jw_number(w, "duration", d);
    jw_close(w);
    jw_object(w, "metrics");
    jw_object(w, "request_totals");
    for (size_t g = 0; g < GUIDELLM_GROUP_COUNT; g++) {
        uint64_t count;
        double tokens;
        span points;
        groups_total(a, GUIDELLM_GROUPS[g].groups, &count, &tokens, &points);
        jw_u64(w, GUIDELLM_GROUPS[g].name, count);
    }
    jw_close(w);
    guidellm_rates(c, w);
    guidellm_field(c, w, "request_latency", LLMLAT_E2E, 1.0);
    /* #1053: null where the run has no schedule (its strategies without
     * one), else per group as the others */
    if (report_has_schedule(c)) {
        guidellm_field(c, w, "request_dispatch_delay", LLMLAT_DISPATCH_DELAY, 1.0);
        guidellm_field(c, w, "request_scheduled_latency", LLMLAT_SCHEDULED_E2E, 1.0);
    } else {
        jw_null(w, "request_dispatch_delay");
        jw_null(w, "request_scheduled_latency");
    }
    guidellm_field(c, w, "prompt_token_count", LLMLAT_INPUT_TOKENS, 1.0);
    guidellm_field(c, w, "output_token_count", LLMLAT_OUTPUT_TOKENS, 1.0);
    guidellm_field(c, w, "time_to_first_token_ms", LLMLAT_TTFT, MS_PER_S);
    guidellm_field(c, w, "time_per_output_token_ms", LLMLAT_NTPOT, MS_PER_S);
    guidellm_field(c, w, "inter_token_latency_ms", LLMLAT_TOOL_ITL, MS_PER_S);
    jw_close(w);
}

/* inference-perf's summarize() of a metric over groups: numpy's mean,
 * min, max and linear percentiles of its default list, in seconds or
 * tokens. false when empty (inference-perf: None). */
static const double IP_PERCENTILES[] = { 0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9 };
static const char *const IP_KEYS[] = { "p0.1", "p1",  "p5",  "p10", "p25",  "median",
                                       "p75",  "p90", "p95", "p99", "p99.9" };
#define IP_NQ (sizeof IP_PERCENTILES / sizeof IP_PERCENTILES[0])

static bool ip_values(report_ctx *c, unsigned groups, int32_t metric, metric_values *v)
{
    double q[IP_NQ];
    for (size_t i = 0; i < IP_NQ; i++)
        q[i] = IP_PERCENTILES[i] / 100.0; /* as numpy.percentile divides */
    report_groups_metric(c, groups, metric, q, IP_NQ, false, v);
    return v->count > 0;
}

/* Its members, "mean", "min", "max", then the percentiles ("median" for
 * 50), into the object open in w. */
static void ip_members(jsonw *w, const metric_values *v)
{
    jw_number(w, "mean", v->mean);
    jw_number(w, "min", v->min);
    jw_number(w, "max", v->max);
    for (size_t i = 0; i < IP_NQ; i++)
        jw_number(w, IP_KEYS[i], v->q[i]);
}

static void ip_summary(report_ctx *c, jsonw *w, const char *key, unsigned groups,
                       int32_t metric)
{
    metric_values v;
    if (!ip_values(c, groups, metric, &v)) {
        jw_null(w, key);
        return;
    }
    jw_object(w, key);
    ip_members(w, &v);
    jw_close(w);
}

/* A token total with its per-request summary merged in, as
 * summarize_prompt_token_usage and summarize_output_token_usage write it;
 * prompt tokens also split by the server's cached count, which llmlat
 * does not know (inference-perf's sum without prompt_tokens_details: 0). */
static void ip_tokens(report_ctx *c, jsonw *w, const char *key, unsigned groups,
                      int32_t metric, double total)
{
    if (report_unavailable(c, LLMLAT_KIND_METRIC, metric)) {
        jw_null(w, key);
        return;
    }
    jw_object(w, key);
    jw_number(w, "total", total);
    if (metric == LLMLAT_INPUT_TOKENS) {
        jw_number(w, "cached", 0.0);
        jw_number(w, "uncached", total);
    }
    metric_values v;
    if (ip_values(c, groups, metric, &v))
        ip_members(w, &v);
    jw_close(w);
}

/* x / d, or inference-perf's 0.0 when the benchmark time is not positive;
 * NaN (null) when the data have no such time (no start times on one clock
 * and no duration given). */
static double ip_rate(double x, double d, bool no_time)
{
    if (no_time)
        return NAN;
    return d > 0.0 ? x / d : 0.0; /* d NaN: no requests, no time */
}

static void tool_inference_perf(report_ctx *c, jsonw *w)
{
    const unsigned ok = 1u << GROUP_SUCCESSFUL;
    const llmlat_agg *a = c->a;
    double d = report_duration(c);
    double failed_input = (double)a->failures[0].input_tokens + (double)a->failures[1].input_tokens;
    bool no_time = report_unavailable(c, LLMLAT_KIND_RATE, LLMLAT_RATE_REQUESTS) != NULL;
    jw_number(w, "benchmark_time_seconds", no_time ? NAN : isnan(d) ? 0.0 : d);
    jw_object(w, "load_summary");
    jw_u64(w, "count", a->completed + a->failed);
    /* start - scheduled time of every request, failures too */
    ip_summary(c, w, "schedule_delay", GROUPS_ALL, LLMLAT_DISPATCH_DELAY);
    jw_close(w);

    jw_object(w, "successes");
    jw_u64(w, "count", a->completed);
    jw_object(w, "latency");
    ip_summary(c, w, "request_latency", ok, LLMLAT_E2E);
    ip_summary(c, w, "normalized_time_per_output_token", ok, LLMLAT_NTPOT);
    ip_summary(c, w, "time_per_output_token", ok, LLMLAT_TPOT);
    ip_summary(c, w, "time_to_first_token", ok, LLMLAT_TTFT);
    ip_summary(c, w, "inter_token_latency", ok, LLMLAT_TOOL_ITL);
    jw_close(w);
    /* what the data cannot support is null, not inference-perf's 0.0 */
    bool no_in = report_unavailable(c, LLMLAT_KIND_COUNTER, LLMLAT_COUNT_INPUT_TOKENS) != NULL;
    bool no_out = report_unavailable(c, LLMLAT_KIND_COUNTER, LLMLAT_COUNT_OUTPUT_TOKENS) != NULL;
    jw_object(w, "throughput");
    jw_number(w, "input_tokens_per_sec", ip_rate((double)a->input_tokens, d, no_time || no_in));
    jw_number(w, "output_tokens_per_sec",
              ip_rate((double)a->output_tokens, d, no_time || no_out));
    jw_number(w, "total_tokens_per_sec",
              ip_rate((double)a->input_tokens + (double)a->output_tokens, d,
                      no_time || no_in || no_out));
    jw_number(w, "requests_per_sec", ip_rate((double)a->completed, d, no_time));
    jw_close(w);
    ip_tokens(c, w, "prompt_tokens", ok, LLMLAT_INPUT_TOKENS, (double)a->input_tokens);
    ip_summary(c, w, "output_len", ok, LLMLAT_OUTPUT_TOKENS);
    ip_tokens(c, w, "output_tokens", ok, LLMLAT_OUTPUT_TOKENS, (double)a->output_tokens);
    jw_close(w);

    jw_object(w, "failures");
    jw_u64(w, "count", a->failed);
    ip_summary(c, w, "request_latency", GROUPS_FAILED, LLMLAT_E2E);
    ip_tokens(c, w, "prompt_tokens", GROUPS_FAILED, LLMLAT_INPUT_TOKENS, failed_input);
    jw_close(w);
}

LLMLAT_PRIVATE void json_tool(report_ctx *c, jsonw *w)
{
    void (*write)(report_ctx *, jsonw *) = NULL;
    switch (c->a->conv->id) {
    case LLMLAT_CONV_VLLM: write = tool_vllm; break;
    case LLMLAT_CONV_AIPERF: write = tool_aiperf; break;
    case LLMLAT_CONV_SGLANG: write = tool_sglang; break;
    case LLMLAT_CONV_LLMPERF: write = tool_llmperf; break;
    case LLMLAT_CONV_GUIDELLM: write = tool_guidellm; break;
    case LLMLAT_CONV_INFERENCE_PERF: write = tool_inference_perf; break;
    }
    if (!write)
        return;
    jw_object(w, "tool");
    write(c, w);
    jw_close(w);
}
