/* The JSON report's `tool` object: each tool's own summary fields, named
 * and scaled as its result file has them, so that a user can diff llmlat
 * against that file (docs/report-json.md lists the sources):
 *   vLLM    vllm/benchmarks/serve.py, the `result` dict of benchmark()
 *   AIPerf  profile_export_aiperf.json (metric tags, unit/avg/pN/min/max/std)
 *   SGLang  python/sglang/bench_serving.py, the `result` dict
 *   LLMPerf token_benchmark_ray.py, metrics_summary() */
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
    if (v.count == 0)
        return;
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

LLMLAT_PRIVATE void json_tool(report_ctx *c, jsonw *w)
{
    void (*write)(report_ctx *, jsonw *) = NULL;
    switch (c->a->conv->id) {
    case LLMLAT_CONV_VLLM: write = tool_vllm; break;
    case LLMLAT_CONV_AIPERF: write = tool_aiperf; break;
    case LLMLAT_CONV_SGLANG: write = tool_sglang; break;
    case LLMLAT_CONV_LLMPERF: write = tool_llmperf; break;
    }
    if (!write)
        return;
    jw_object(w, "tool");
    write(c, w);
    jw_close(w);
}
