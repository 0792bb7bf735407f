/* The Prometheus report: text exposition format 0.0.4. Counters and gauges
 * for the totals and rates, and per metric a summary (the report's
 * quantiles) and, for times, a classic histogram (report_hist.c). Names
 * are in docs/report-json.md's Prometheus section. */
#include <math.h>
#include <stdio.h>

#include "report/report.h"
#include "report/report_hist.h"

typedef struct prom_metric {
    int32_t id;
    const char *unit; /* base unit, the name's suffix */
    const char *help;
} prom_metric;

static const prom_metric PROM_METRICS[] = {
    { LLMLAT_TTFT, "seconds", "Time to first token." },
    { LLMLAT_TPOT, "seconds", "Time per output token after the first, one sample per request." },
    { LLMLAT_ITL, "seconds", "Inter-token latency, one sample per token." },
    { LLMLAT_ICL, "seconds", "Inter-chunk latency, one sample per gap between events." },
    { LLMLAT_E2E, "seconds", "End-to-end latency." },
    { LLMLAT_ITL_MAX, "seconds", "Largest gap between events of a request." },
    { LLMLAT_TPS_USER, "tokens_per_second", "Output tokens per second of each request." },
};

/* "# HELP llmlat_<name> help\n# TYPE llmlat_<name> type\n" */
static void header(rbuf *b, const char *name, const char *type, const char *help)
{
    for (int line = 0; line < 2; line++) {
        rbuf_puts(b, line == 0 ? "# HELP llmlat_" : "# TYPE llmlat_");
        rbuf_puts(b, name);
        rbuf_puts(b, " ");
        rbuf_puts(b, line == 0 ? help : type);
        rbuf_puts(b, "\n");
    }
}

/* "llmlat_<name><suffix>"; labels and the value follow. */
static void series(rbuf *b, const char *name, const char *suffix)
{
    rbuf_puts(b, "llmlat_");
    rbuf_puts(b, name);
    rbuf_puts(b, suffix);
}

static void value(rbuf *b, double v)
{
    rbuf_puts(b, " ");
    rbuf_double(b, v, "NaN");
    rbuf_puts(b, "\n");
}

static void value_u64(rbuf *b, uint64_t v)
{
    rbuf_puts(b, " ");
    rbuf_u64(b, v);
    rbuf_puts(b, "\n");
}

static void counter(report_ctx *c, const char *name, int32_t id, const char *help)
{
    uint64_t v;
    if (!report_counter(c, id, &v))
        return; /* undefined (GOOD without SLO): no series at all */
    header(&c->out, name, "counter", help);
    series(&c->out, name, "");
    value_u64(&c->out, v);
}

/* An undefined value (no duration yet, no SLO, bounded mode's peaks) has
 * no series at all. */
static void gauge(report_ctx *c, const char *name, double v, const char *help)
{
    if (isnan(v))
        return;
    header(&c->out, name, "gauge", help);
    series(&c->out, name, "");
    value(&c->out, v);
}

/* "{quantile=\"0.99\"}" or "{le=\"0.25\"}" */
static void label(rbuf *b, const char *key, double v)
{
    rbuf_puts(b, "{");
    rbuf_puts(b, key);
    rbuf_puts(b, "=\"");
    rbuf_double(b, v, "NaN");
    rbuf_puts(b, "\"}");
}

/* The series name: "<metric><infix>_<unit>". A summary and a histogram
 * cannot share a name, and promtool rejects a type in a name: the summary
 * is llmlat_ttft_seconds, the histogram llmlat_ttft_hist_seconds. */
static void series_name(char *out, size_t cap, const prom_metric *m, const char *infix)
{
    snprintf(out, cap, "%s%s_%s", llmlat_metric_name(m->id), infix, m->unit);
}

static void sum_and_count(rbuf *b, const char *name, uint64_t count, double sum)
{
    series(b, name, "_sum");
    value(b, sum);
    series(b, name, "_count");
    value_u64(b, count);
}

static void prom_summary(report_ctx *c, const prom_metric *m, const metric_values *v, double sum)
{
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    char name[64];
    series_name(name, sizeof name, m, "");
    header(b, name, "summary", m->help);
    for (size_t i = 0; i < a->n_quantiles; i++) {
        if (report_quantile_repeats(a->quantiles, i))
            continue;
        double q = a->quantiles[i];
        series(b, name, "");
        label(b, "quantile", q);
        /* an empty set has no quantile, whatever the convention prints */
        value(b, v->count ? v->q[i] : NAN);
    }
    sum_and_count(b, name, v->count, sum);
}

static void histogram(report_ctx *c, const prom_metric *m, uint64_t count, double sum)
{
    size_t n;
    const double *bounds = hist_bounds(c->a, m->id, &n);
    if (!bounds)
        return;
    uint64_t cum[MAX_BUCKET_BOUNDS + 1];
    int32_t st = hist_cumulative(c->a, m->id, bounds, n, cum);
    if (st != LLMLAT_OK) {
        rbuf_fail(&c->out, st);
        return;
    }
    rbuf *b = &c->out;
    char name[64];
    series_name(name, sizeof name, m, "_hist");
    header(b, name, "histogram", m->help);
    for (size_t i = 0; i <= n; i++) {
        series(b, name, "_bucket");
        label(b, "le", i < n ? bounds[i] : INFINITY);
        value_u64(b, cum[i]);
    }
    sum_and_count(b, name, count, sum);
}

static void info(report_ctx *c)
{
    rbuf *b = &c->out;
    header(b, "info", "gauge",
           "The llmlat version, convention and mode behind these series (value 1).");
    rbuf_puts(b, "llmlat_info{version=\"");
    rbuf_puts(b, llmlat_version_string());
    rbuf_puts(b, "\",convention=\"");
    rbuf_puts(b, c->a->conv->name);
    rbuf_puts(b, "\",mode=\"");
    rbuf_puts(b, c->a->mode == LLMLAT_MODE_BOUNDED ? "bounded" : "exact");
    rbuf_puts(b, "\"} 1\n");
}

LLMLAT_PRIVATE void report_prometheus(report_ctx *c)
{
    info(c);
    counter(c, "requests_completed_total", LLMLAT_COUNT_COMPLETED,
            "Requests that succeeded under the convention.");
    counter(c, "requests_failed_total", LLMLAT_COUNT_FAILED,
            "Requests that did not succeed under the convention.");
    counter(c, "requests_tpot_undefined_total", LLMLAT_COUNT_TPOT_UNDEFINED,
            "Successful requests without a TPOT (one output token or none).");
    counter(c, "requests_good_total", LLMLAT_COUNT_GOOD,
            "Successful requests that met every SLO.");
    counter(c, "input_tokens_total", LLMLAT_COUNT_INPUT_TOKENS,
            "Prompt tokens of successful requests.");
    counter(c, "output_tokens_total", LLMLAT_COUNT_OUTPUT_TOKENS,
            "Output tokens of successful requests.");
    gauge(c, "duration_seconds", report_duration(c),
          "The duration the rates are computed over.");
    gauge(c, "request_throughput_requests_per_second", report_rate(c, LLMLAT_RATE_REQUESTS),
          "Successful requests per second of the duration.");
    gauge(c, "output_throughput_tokens_per_second", report_rate(c, LLMLAT_RATE_OUTPUT_TOKENS),
          "Output tokens per second of the duration.");
    gauge(c, "total_throughput_tokens_per_second", report_rate(c, LLMLAT_RATE_TOTAL_TOKENS),
          "Prompt and output tokens per second of the duration.");
    gauge(c, "goodput_requests_per_second", report_rate(c, LLMLAT_RATE_GOODPUT),
          "Requests meeting every SLO per second of the duration.");
    gauge(c, "peak_output_tokens_per_second", report_rate(c, LLMLAT_RATE_PEAK_OUTPUT_TOKENS),
          "Most output tokens (chunks under vLLM) in one 1-second bucket.");
    uint64_t peak;
    bool has_peak = report_counter(c, LLMLAT_COUNT_PEAK_CONCURRENCY, &peak);
    gauge(c, "peak_concurrent_requests", has_peak ? (double)peak : NAN,
          "Most successful requests in flight at once.");

    for (size_t i = 0; i < sizeof PROM_METRICS / sizeof PROM_METRICS[0]; i++) {
        const prom_metric *m = &PROM_METRICS[i];
        if (report_unavailable(c, LLMLAT_KIND_METRIC, m->id))
            continue; /* the data cannot support it: no series */
        metric_values v;
        report_metric(c, m->id, c->a->quantiles, c->a->n_quantiles, &v);
        double sum = v.count ? v.mean * (double)v.count : 0.0;
        prom_summary(c, m, &v, sum);
        histogram(c, m, v.count, sum);
    }
}
