/* What the exposition writes: llmlat's own metric families, the point
 * of each aggregator in each family of a naming scheme (expose.h; the
 * systems' schemes are in expose_names.c), and the labels a scheme
 * writes; llmlat_expose. Series names are in docs/prometheus.md. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "report/expose.h"
#include "report/report.h"
#include "report/report_hist.h"

static const expose_family FAMILIES[] = {
    { "llmlat_info", EXPOSE_GAUGE, NULL,
      "The llmlat version, convention and mode behind these series (value 1).", FROM_INFO, 0 },
    { "llmlat_requests_completed_total", EXPOSE_COUNTER, NULL,
      "Requests that succeeded under the convention.", FROM_COUNTER, LLMLAT_COUNT_COMPLETED },
    { "llmlat_requests_failed_total", EXPOSE_COUNTER, NULL,
      "Requests that did not succeed under the convention.", FROM_COUNTER, LLMLAT_COUNT_FAILED },
    { "llmlat_requests_tpot_undefined_total", EXPOSE_COUNTER, NULL,
      "Successful requests without a TPOT (one output token or none).", FROM_COUNTER,
      LLMLAT_COUNT_TPOT_UNDEFINED },
    { "llmlat_requests_good_total", EXPOSE_COUNTER, NULL,
      "Successful requests that met every SLO.", FROM_COUNTER, LLMLAT_COUNT_GOOD },
    { "llmlat_input_tokens_total", EXPOSE_COUNTER, "tokens",
      "Prompt tokens of successful requests.", FROM_COUNTER, LLMLAT_COUNT_INPUT_TOKENS },
    { "llmlat_output_tokens_total", EXPOSE_COUNTER, "tokens",
      "Output tokens of successful requests.", FROM_COUNTER, LLMLAT_COUNT_OUTPUT_TOKENS },
    /* The run gauges: reports only (expose.h). */
    { "llmlat_duration_seconds", EXPOSE_GAUGE, "seconds",
      "The duration the rates are computed over.", FROM_DURATION, 0 },
    { "llmlat_request_throughput_requests_per_second", EXPOSE_GAUGE, "requests_per_second",
      "Successful requests per second of the duration.", FROM_RATE, LLMLAT_RATE_REQUESTS },
    { "llmlat_output_throughput_tokens_per_second", EXPOSE_GAUGE, "tokens_per_second",
      "Output tokens per second of the duration.", FROM_RATE, LLMLAT_RATE_OUTPUT_TOKENS },
    { "llmlat_total_throughput_tokens_per_second", EXPOSE_GAUGE, "tokens_per_second",
      "Prompt and output tokens per second of the duration.", FROM_RATE,
      LLMLAT_RATE_TOTAL_TOKENS },
    { "llmlat_goodput_requests_per_second", EXPOSE_GAUGE, "requests_per_second",
      "Requests meeting every SLO per second of the duration.", FROM_RATE, LLMLAT_RATE_GOODPUT },
    { "llmlat_peak_output_tokens_per_second", EXPOSE_GAUGE, "tokens_per_second",
      "Most output tokens (chunks under vLLM) in one 1-second bucket.", FROM_RATE,
      LLMLAT_RATE_PEAK_OUTPUT_TOKENS },
    { "llmlat_peak_concurrent_requests", EXPOSE_GAUGE, "requests",
      "Most successful requests in flight at once.", FROM_PEAK, LLMLAT_COUNT_PEAK_CONCURRENCY },
    /* Per metric: the summary (the report's quantiles), then for times the
     * histogram (classic buckets; native ones in protobuf). A summary and
     * a histogram cannot share a name, and promtool rejects a type in a
     * name: hence llmlat_ttft_seconds and llmlat_ttft_hist_seconds. */
#define TIME_METRIC(m, name, help)                                                     \
    { "llmlat_" name "_seconds", EXPOSE_SUMMARY, "seconds", help, FROM_SUMMARY, m },   \
    { "llmlat_" name "_hist_seconds", EXPOSE_HISTOGRAM, "seconds", help, FROM_HISTOGRAM, m }
    TIME_METRIC(LLMLAT_TTFT, "ttft", "Time to first token."),
    TIME_METRIC(LLMLAT_TPOT, "tpot",
                "Time per output token after the first, one sample per request."),
    TIME_METRIC(LLMLAT_NTPOT, "ntpot", "Latency over output tokens, one sample per request."),
    TIME_METRIC(LLMLAT_ITL, "itl", "Inter-token latency, one sample per token."),
    TIME_METRIC(LLMLAT_ICL, "icl", "Inter-chunk latency, one sample per gap between events."),
    TIME_METRIC(LLMLAT_E2E, "e2e", "End-to-end latency."),
    TIME_METRIC(LLMLAT_ITL_MAX, "itl_max", "Largest gap between events of a request."),
    TIME_METRIC(LLMLAT_DISPATCH_DELAY, "dispatch_delay",
                "Start minus intended start: how late the client sent the request."),
    TIME_METRIC(LLMLAT_SCHEDULED_TTFT, "scheduled_ttft",
                "Time to first token from the intended start."),
    TIME_METRIC(LLMLAT_SCHEDULED_E2E, "scheduled_e2e", "End-to-end latency from the intended start."),
#undef TIME_METRIC
    { "llmlat_tps_user_tokens_per_second", EXPOSE_SUMMARY, "tokens_per_second",
      "Output tokens per second of each request.", FROM_SUMMARY, LLMLAT_TPS_USER },
};

#define FAMILY_COUNT (sizeof FAMILIES / sizeof FAMILIES[0])

/* llmlat_info's labels: no constant label can take them
 * (llmlat_agg_set_label). */
static const char *const INFO_LABELS[EXPOSE_OWN_LABELS] = { "version", "convention", "mode" };

static const expose_scheme LLMLAT_SCHEME = {
    .families = FAMILIES, .n_families = FAMILY_COUNT,
    .own_labels = INFO_LABELS, .n_own_labels = EXPOSE_OWN_LABELS,
};

static const expose_scheme *expose_scheme_of(int32_t names)
{
    return names == LLMLAT_NAMES_LLMLAT ? &LLMLAT_SCHEME : expose_names_scheme(names);
}

static bool is_run_gauge(const expose_family *f)
{
    return f->source == FROM_DURATION || f->source == FROM_RATE || f->source == FROM_PEAK;
}

/* The exposition's state: the output (a hard error stops it), and
 * scratch for points. */
typedef struct expose_ctx {
    const llmlat_alloc *al;
    rbuf *out;
    double q[MAX_QUANTILES], qv[MAX_QUANTILES];
    uint64_t cum[MAX_BUCKET_BOUNDS + 1];
    uint64_t *counts; /* native buckets */
    size_t counts_cap;
} expose_ctx;

/* A query's status: true for a value, false for an undefined one, and a
 * hard error (ENOMEM while selecting ranks) kept. */
static bool expose_ok(expose_ctx *x, int32_t st)
{
    if (st == LLMLAT_OK)
        return true;
    if (st != LLMLAT_EUNDEFINED)
        rbuf_fail(x->out, st);
    return false;
}

/* A counter's or a gauge's value; false when it has none (GOOD without an
 * SLO, a rate without a duration, the peaks in bounded mode). */
static bool scalar_of(expose_ctx *x, const expose_family *f, const llmlat_agg *a,
                      expose_point *p)
{
    uint64_t u;
    switch (f->source) {
    case FROM_INFO:
        p->value = 1.0;
        return true;
    case FROM_COUNTER:
    case FROM_PEAK:
        if (!expose_ok(x, llmlat_agg_counter(a, f->id, &u)))
            return false;
        p->count = u;
        p->value = (double)u;
        return true;
    case FROM_DURATION:
        return agg_duration(a, &p->value);
    case FROM_RATE:
        return expose_ok(x, llmlat_agg_rate(a, f->id, &p->value));
    default:
        return false;
    }
}

static void summary_of(expose_ctx *x, int32_t metric, const llmlat_agg *a, expose_point *p)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n_quantiles; i++)
        if (!report_quantile_repeats(a->quantiles, i))
            x->q[n++] = a->quantiles[i];
    p->q = x->q;
    p->qv = x->qv;
    p->n_q = n;
    for (size_t i = 0; i < n; i++)
        x->qv[i] = NAN; /* an empty set has no quantile, whatever the convention prints */
    if (p->count > 0 && !expose_ok(x, llmlat_agg_quantiles(a, metric, x->q, n, x->qv)))
        for (size_t i = 0; i < n; i++)
            x->qv[i] = NAN;
}

/* Prometheus 2.x reads schemas up to 8. A finer one (alpha below 0.135%)
 * nests in it exactly (llmlat_agg_buckets): each 2^(schema - 8)
 * consecutive buckets add into one, bucket i going to ceil(i / 2^(schema
 * - 8)), and the zero threshold rises to the upper bound of the schema-8
 * bucket holding it, whose part joins the zero count. */
#define EXPOSE_SCHEMA_MAX 8

static int64_t expose_ceil_div(int64_t i, int64_t f)
{
    return i >= 0 ? (i + f - 1) / f : -((-i) / f);
}

static void expose_downscale(expose_point *p, uint64_t *counts)
{
    if (p->schema <= EXPOSE_SCHEMA_MAX)
        return;
    int64_t f = INT64_C(1) << (p->schema - EXPOSE_SCHEMA_MAX);
    int64_t zero_at = INT64_MIN; /* schema-8 bucket holding the threshold */
    if (p->zero_threshold > 0.0) {
        zero_at = expose_ceil_div(sketch_schema_index(p->schema, p->zero_threshold), f);
        p->zero_threshold = sketch_schema_upper(EXPOSE_SCHEMA_MAX, zero_at);
    }
    /* in place: bucket j goes to at - first <= j, read before written */
    size_t n = 0;
    int64_t first = 0;
    for (size_t j = 0; j < p->n_counts; j++) {
        uint64_t c = counts[j];
        int64_t at = expose_ceil_div(p->offset + (int64_t)j, f);
        if (at <= zero_at) {
            p->zero_count += c;
            continue;
        }
        if (n == 0)
            first = at;
        for (; (int64_t)n <= at - first; n++)
            counts[n] = 0;
        counts[at - first] += c;
    }
    p->schema = EXPOSE_SCHEMA_MAX;
    p->offset = (int32_t)first;
    p->n_counts = n;
}

/* The native buckets, in the counts scratch (grown to fit). */
static void expose_native(expose_ctx *x, int32_t metric, const llmlat_agg *a, expose_point *p)
{
    size_t n = 0;
    int32_t st;
    while ((st = llmlat_agg_buckets(a, metric, &p->schema, &p->zero_threshold, &p->zero_count,
                                    &p->offset, x->counts, x->counts_cap, &n)) == LLMLAT_ENOSPC) {
        void *grown = x->counts;
        st = alloc_grow(x->al, &grown, &x->counts_cap, n, sizeof *x->counts);
        if (st != LLMLAT_OK)
            break;
        x->counts = grown;
    }
    if (!expose_ok(x, st))
        return;
    p->n_counts = n;
    expose_downscale(p, x->counts);
    /* Prometheus 2.x reads a histogram with no bucket, no zero count and
     * a zero threshold of 0 as a classic one: while no sample is above 0
     * the threshold is the smallest normal double instead, which holds
     * just the zeros too, and only rises when the first sample does. */
    if (p->zero_threshold == 0.0)
        p->zero_threshold = DBL_MIN;
    p->counts = x->counts;
    p->has_native = true;
}

/* How the scheme writes metric's histogram; NULL: as llmlat does. */
static const expose_histogram *histogram_in(const expose_scheme *sc, int32_t metric)
{
    for (size_t i = 0; i < sc->n_histograms; i++)
        if (sc->histograms[i].metric == metric)
            return &sc->histograms[i];
    return NULL;
}

/* A histogram's classic bounds: the aggregator's when set, else the
 * scheme's system's defaults, else llmlat's (vLLM's). */
static const double *histogram_bounds(const expose_histogram *h, const llmlat_agg *a,
                                      int32_t metric, size_t *n)
{
    const double *set = hist_set_bounds(a, metric, n);
    if (set || !h || !h->bounds)
        return set ? set : hist_bounds(a, metric, n);
    *n = h->n_bounds;
    return h->bounds;
}

static void histogram_of(expose_ctx *x, const expose_histogram *h, int32_t metric,
                         const llmlat_agg *a, expose_point *p)
{
    p->le = histogram_bounds(h, a, metric, &p->n_le);
    p->cum = x->cum;
    if (!expose_ok(x, hist_cumulative(a, metric, p->le, p->n_le, x->cum)))
        memset(x->cum, 0, (p->n_le + 1) * sizeof *x->cum);
    expose_native(x, metric, a, p);
}

/* The point of a summary or a histogram: always there (count 0 when
 * empty). */
static void distribution_of(expose_ctx *x, const expose_scheme *sc, const expose_family *f,
                            const llmlat_agg *a, expose_point *p)
{
    p->count = store_count(agg_store(a, f->id));
    if (!expose_ok(x, llmlat_agg_stat(a, f->id, LLMLAT_STAT_SUM, &p->sum)))
        p->sum = 0.0;
    if (f->source == FROM_SUMMARY)
        summary_of(x, f->id, a, p);
    else
        histogram_of(x, histogram_in(sc, f->id), f->id, a, p);
}

/* Whether a's requests cannot support the family (rebuilt from a file
 * that lacks what it needs, docs/importers.md): it then has no series. */
static bool lacks_family(const expose_family *f, const llmlat_agg *a)
{
    switch (f->source) {
    case FROM_COUNTER:
    case FROM_PEAK:
        return agg_lacks_reason(a, LLMLAT_KIND_COUNTER, f->id) != NULL;
    case FROM_RATE:
        return agg_lacks_reason(a, LLMLAT_KIND_RATE, f->id) != NULL;
    case FROM_SUMMARY:
    case FROM_HISTOGRAM:
        /* a metric from the intended start has series once some request
         * had one: a server that keeps no schedule writes none */
        return agg_lacks_reason(a, LLMLAT_KIND_METRIC, f->id) != NULL ||
               (metric_from_schedule(f->id) && store_count(agg_store(a, f->id)) == 0);
    default:
        return false;
    }
}

/* The name the scheme writes a constant label under. */
static const char *label_name_in(const expose_scheme *sc, const char *name)
{
    for (size_t i = 0; i < sc->n_renames; i++)
        if (strcmp(sc->renames[i].from, name) == 0)
            return sc->renames[i].to;
    return name;
}

static void point_init(expose_point *p, const expose_scheme *sc, const expose_family *f,
                       const llmlat_agg *a)
{
    memset(p, 0, sizeof *p);
    p->n_labels = a->n_labels;
    for (size_t i = 0; i < a->n_labels; i++) {
        p->label_name[i] = label_name_in(sc, a->labels[i].name);
        p->label_value[i] = a->labels[i].value;
    }
    if (f->source == FROM_INFO) {
        const char *values[EXPOSE_OWN_LABELS] = {
            llmlat_version_string(), a->conv->name,
            a->mode == LLMLAT_MODE_BOUNDED ? "bounded" : "exact",
        };
        for (int i = 0; i < EXPOSE_OWN_LABELS; i++) {
            p->own_name[i] = INFO_LABELS[i];
            p->own_value[i] = values[i];
        }
        p->n_own = EXPOSE_OWN_LABELS;
        return;
    }
    const expose_histogram *h = f->source == FROM_HISTOGRAM ? histogram_in(sc, f->id) : NULL;
    if (h && h->label) {
        p->own_name[0] = h->label;
        p->own_value[0] = h->label_value;
        p->n_own = 1;
    }
}

/* How many entries from f[0] (of n) are one family: those of its name. */
static size_t family_entries(const expose_family *f, size_t n)
{
    size_t k = 1;
    while (k < n && strcmp(f[k].name, f[0].name) == 0)
        k++;
    return k;
}

/* The entries f[0..n_entries) of one family: its metadata before the first point,
 * so that a family none of whose aggregators has a value (GOOD without an
 * SLO, the peaks in bounded mode) is left out, and each value is read
 * once. */
static void expose_family_of(expose_ctx *x, expose_encoder *e, const expose_scheme *sc,
                             const expose_family *f, size_t n_entries,
                             const llmlat_agg *const *aggs, size_t n)
{
    bool started = false;
    for (size_t k = 0; k < n_entries; k++) {
        const expose_family *entry = &f[k];
        bool distribution = entry->type == EXPOSE_SUMMARY || entry->type == EXPOSE_HISTOGRAM;
        for (size_t i = 0; i < n; i++) {
            if (lacks_family(entry, aggs[i]))
                continue;
            expose_point p;
            point_init(&p, sc, entry, aggs[i]);
            if (distribution)
                distribution_of(x, sc, entry, aggs[i], &p);
            else if (!scalar_of(x, entry, aggs[i], &p))
                continue;
            if (!started)
                e->family(e, f);
            started = true;
            e->point(e, entry, &p);
        }
    }
    if (started)
        e->family_end(e, f);
}

/* Whether a's labels, under the scheme's names, repeat a name or take
 * one the scheme writes itself. */
static bool own_labels_clash(const expose_scheme *sc, const llmlat_agg *a)
{
    for (size_t i = 0; i < a->n_labels; i++) {
        const char *name = label_name_in(sc, a->labels[i].name);
        for (size_t j = 0; j < i; j++)
            if (strcmp(name, label_name_in(sc, a->labels[j].name)) == 0)
                return true;
        for (size_t j = 0; j < sc->n_own_labels; j++)
            if (strcmp(name, sc->own_labels[j]) == 0)
                return true;
    }
    return false;
}

/* Whether x and y have the same labels under the scheme's names (in any
 * order: a rename can move a label). */
static bool same_labels(const expose_scheme *sc, const llmlat_agg *x, const llmlat_agg *y)
{
    if (x->n_labels != y->n_labels)
        return false;
    for (size_t i = 0; i < x->n_labels; i++) {
        const char *name = label_name_in(sc, x->labels[i].name);
        bool found = false;
        for (size_t j = 0; j < y->n_labels && !found; j++)
            found = strcmp(name, label_name_in(sc, y->labels[j].name)) == 0 &&
                    strcmp(x->labels[i].value, y->labels[j].value) == 0;
        if (!found)
            return false;
    }
    return true;
}

/* Two aggregators with the same labels would write the same series
 * twice, and one with a label twice an invalid series: such an
 * exposition is refused (merge them first). */
static bool labels_clash(const expose_scheme *sc, const llmlat_agg *const *aggs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (own_labels_clash(sc, aggs[i]))
            return true;
        for (size_t j = 0; j < i; j++)
            if (same_labels(sc, aggs[i], aggs[j]))
                return true;
    }
    return false;
}

LLMLAT_PRIVATE void expose_run(rbuf *out, const llmlat_agg *const *aggs, size_t n,
                               int32_t format, int32_t names, bool run_gauges,
                               const llmlat_alloc *al)
{
    const expose_scheme *sc = expose_scheme_of(names);
    if (!sc || labels_clash(sc, aggs, n)) {
        rbuf_fail(out, LLMLAT_EINVAL);
        return;
    }
    expose_encoder e;
    if (!expose_text_encoder(&e, format) && !expose_pb_encoder(&e, format)) {
        rbuf_fail(out, LLMLAT_EINVAL);
        return;
    }
    e.out = out;
    pbuf_init(&e.msg, al);
    expose_ctx x = { .al = al, .out = out };
    const expose_family *f = sc->families;
    size_t i = 0;
    while (i < sc->n_families && out->status == LLMLAT_OK) {
        size_t k = family_entries(&f[i], sc->n_families - i);
        if (run_gauges || !is_run_gauge(&f[i]))
            expose_family_of(&x, &e, sc, &f[i], k, aggs, n);
        i += k;
    }
    e.end(&e);
    if (e.msg.status != LLMLAT_OK)
        rbuf_fail(out, e.msg.status);
    pbuf_free(&e.msg);
    alloc_free(al, x.counts);
}

static bool expose_format(int32_t format)
{
    return format == LLMLAT_FORMAT_PROMETHEUS || format == LLMLAT_FORMAT_OPENMETRICS ||
           format == LLMLAT_FORMAT_PROMETHEUS_PROTOBUF;
}

static bool expose_args_valid(const llmlat_agg *const *aggs, size_t n, int32_t format,
                              int32_t names)
{
    if ((!aggs && n > 0) || !expose_format(format) || !expose_scheme_of(names))
        return false;
    for (size_t i = 0; i < n; i++)
        if (!aggs[i])
            return false;
    return true;
}

/* The scratch's allocator: the first aggregator's (there is no other). */
static llmlat_alloc expose_alloc(const llmlat_agg *const *aggs, size_t n)
{
    return n > 0 ? aggs[0]->al : alloc_current();
}

LLMLAT_API int32_t llmlat_expose_write_names(const llmlat_agg *const *aggs, size_t n,
                                             int32_t format, int32_t names, llmlat_write_fn fn,
                                             void *user)
{
    if (!fn || !expose_args_valid(aggs, n, format, names))
        return LLMLAT_EINVAL;
    llmlat_alloc al = expose_alloc(aggs, n);
    rbuf out;
    rbuf_init(&out, fn, user);
    expose_run(&out, aggs, n, format, names, false, &al);
    return rbuf_flush(&out);
}

LLMLAT_API int32_t llmlat_expose_names(const llmlat_agg *const *aggs, size_t n, int32_t format,
                                       int32_t names, void *buf, size_t cap, size_t *len)
{
    if (!len || (!buf && cap > 0) || !expose_args_valid(aggs, n, format, names))
        return LLMLAT_EINVAL;
    llmlat_alloc al = expose_alloc(aggs, n);
    report_collect k = { .al = &al, .limit = cap };
    rbuf out;
    rbuf_init(&out, report_collect_write, &k);
    expose_run(&out, aggs, n, format, names, false, &al);
    return report_collect_end(&k, rbuf_flush(&out), buf, cap, len);
}

LLMLAT_API int32_t llmlat_expose_write(const llmlat_agg *const *aggs, size_t n, int32_t format,
                                       llmlat_write_fn fn, void *user)
{
    return llmlat_expose_write_names(aggs, n, format, LLMLAT_NAMES_LLMLAT, fn, user);
}

LLMLAT_API int32_t llmlat_expose(const llmlat_agg *const *aggs, size_t n, int32_t format,
                                 void *buf, size_t cap, size_t *len)
{
    return llmlat_expose_names(aggs, n, format, LLMLAT_NAMES_LLMLAT, buf, cap, len);
}

LLMLAT_API const char *llmlat_format_content_type(int32_t format)
{
    switch (format) {
    case LLMLAT_FORMAT_TEXT: return "text/plain; charset=utf-8";
    case LLMLAT_FORMAT_JSON: return "application/json";
    case LLMLAT_FORMAT_PROMETHEUS: return "text/plain; version=0.0.4; charset=utf-8";
    case LLMLAT_FORMAT_OPENMETRICS:
        return "application/openmetrics-text; version=1.0.0; charset=utf-8";
    case LLMLAT_FORMAT_PROMETHEUS_PROTOBUF:
        return "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily; "
               "encoding=delimited";
    case LLMLAT_FORMAT_HTML: return "text/html; charset=utf-8";
    case LLMLAT_FORMAT_CHROME_TRACE: return "application/json";
    case LLMLAT_FORMAT_REQUESTS_CSV: return "text/csv; charset=utf-8";
    case LLMLAT_FORMAT_REQUESTS_JSONL: return "application/x-ndjson";
    }
    return NULL;
}
