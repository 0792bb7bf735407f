/* llmlat_agg_report_write: one writer per format streaming into the
 * caller's write function; llmlat_agg_report: the buffer contract on top of
 * it; and the value queries the writers share. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/expose.h"
#include "report/report.h"
#include "report/svg.h"

typedef void (*report_writer)(report_ctx *c);

static report_writer writer_for(int32_t format)
{
    switch (format) {
    case LLMLAT_FORMAT_TEXT: return report_text;
    case LLMLAT_FORMAT_JSON: return report_json;
    case LLMLAT_FORMAT_HTML: return report_html;
    case LLMLAT_FORMAT_CHROME_TRACE: return report_chrome_trace;
    case LLMLAT_FORMAT_REQUESTS_CSV: return report_requests_csv;
    case LLMLAT_FORMAT_REQUESTS_JSONL: return report_requests_jsonl;
    case LLMLAT_FORMAT_PROMETHEUS:
    case LLMLAT_FORMAT_OPENMETRICS:
    case LLMLAT_FORMAT_PROMETHEUS_PROTOBUF: return report_exposition;
    }
    return NULL;
}

/* The report, written once, through fn: the one place a report is made. */
static int32_t report_stream(const llmlat_agg *a, int32_t format, report_writer write,
                             llmlat_write_fn fn, void *user)
{
    report_ctx c = { .a = a, .format = format }; /* nothing cached yet */
    rbuf_init(&c.out, fn, user);
    write(&c);
    return rbuf_flush(&c.out);
}

LLMLAT_API int32_t llmlat_agg_report_write(const llmlat_agg *a, int32_t format,
                                           llmlat_write_fn fn, void *user)
{
    report_writer write = writer_for(format);
    if (!a || !fn || !write)
        return LLMLAT_EINVAL;
    return report_stream(a, format, write, fn, user);
}

LLMLAT_PRIVATE int32_t report_collect_write(void *user, const void *bytes, size_t n)
{
    report_collect *k = user;
    if (n > SIZE_MAX - k->len)
        return LLMLAT_ENOMEM;
    if (k->len + n <= k->limit) {
        void *p = k->p;
        int32_t st = alloc_grow(k->al, &p, &k->cap, k->len + n, 1);
        if (st != LLMLAT_OK)
            return st;
        k->p = p;
        memcpy(k->p + k->len, bytes, n);
    }
    k->len += n;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_agg_report(const llmlat_agg *a, int32_t format, void *buf,
                                     size_t cap, size_t *len)
{
    report_writer write = writer_for(format);
    if (!a || !len || (!buf && cap > 0) || !write)
        return LLMLAT_EINVAL;
    report_collect k = { .al = &a->al, .limit = cap };
    int32_t st = report_stream(a, format, write, report_collect_write, &k);
    return report_collect_end(&k, st, buf, cap, len);
}

LLMLAT_PRIVATE int32_t report_collect_end(report_collect *k, int32_t st, void *buf, size_t cap,
                                          size_t *len)
{
    if (st == LLMLAT_OK) {
        *len = k->len;
        if (k->len > cap)
            st = LLMLAT_ENOSPC;
        else if (k->len > 0)
            memcpy(buf, k->p, k->len);
    }
    alloc_free(k->al, k->p);
    return st;
}

LLMLAT_PRIVATE void report_exposition(report_ctx *c)
{
    expose_run(&c->out, &c->a, 1, c->format, LLMLAT_NAMES_LLMLAT, true, &c->a->al);
}

/* A query's status: its value, NaN when undefined, and a hard error kept. */
static double value_or_nan(report_ctx *c, int32_t st, double v)
{
    if (st == LLMLAT_OK)
        return v;
    if (st != LLMLAT_EUNDEFINED)
        rbuf_fail(&c->out, st);
    return NAN;
}

/* Count, mean, std, min and max of a store. */
static void moment_values(report_ctx *c, const metric_store *s, metric_values *v)
{
    static const int32_t STATS[] = { LLMLAT_STAT_MEAN, LLMLAT_STAT_STD, LLMLAT_STAT_MIN,
                                     LLMLAT_STAT_MAX };
    double *out[] = { &v->mean, &v->std, &v->min, &v->max };
    v->count = store_count(s);
    for (size_t i = 0; i < sizeof STATS / sizeof STATS[0]; i++) {
        int32_t st = agg_store_stat(c->a, s, STATS[i], out[i]);
        *out[i] = value_or_nan(c, st, *out[i]);
    }
}

/* n quantiles of a store, its median when asked, and GuideLLM's mode when
 * asked. Under an inverse-CDF convention one sorted copy serves them all
 * (its median is its p50). */
static void order_values(report_ctx *c, const metric_store *s, const double *q, size_t n,
                         bool median, bool mode, metric_values *v)
{
    const llmlat_agg *a = c->a;
    v->n_q = n;
    if (a->conv->quantile == QUANTILE_INVERSE_CDF) {
        double qq[MAX_QUANTILES + 1], out[MAX_QUANTILES + 1];
        memcpy(qq, q, n * sizeof *q);
        qq[n] = 0.5;
        double m = NAN;
        int32_t st = agg_store_inverse_cdf(a, s, qq, n + 1, out, mode ? &m : NULL);
        for (size_t j = 0; j < n; j++)
            v->q[j] = value_or_nan(c, st, out[j]);
        if (median)
            v->median = value_or_nan(c, st, out[n]);
        if (mode)
            v->mode = value_or_nan(c, st, m);
        return;
    }
    if (median) {
        int32_t st = agg_store_stat(a, s, LLMLAT_STAT_MEDIAN, &v->median);
        v->median = value_or_nan(c, st, v->median);
    }
    if (n) {
        int32_t st = agg_store_quantiles(a, s, q, n, v->q);
        for (size_t j = 0; j < n; j++)
            v->q[j] = value_or_nan(c, st, v->q[j]);
    }
}

/* count samples, and no value of the n quantiles or of anything else */
static void undefined_values(metric_values *v, uint64_t count, size_t n)
{
    *v = (metric_values){ .count = count, .mean = NAN, .std = NAN, .min = NAN, .max = NAN,
                          .median = NAN, .mode = NAN, .n_q = n };
    for (size_t j = 0; j < n; j++)
        v->q[j] = NAN;
}

LLMLAT_PRIVATE void report_metric(report_ctx *c, int32_t metric, const double *q, size_t n,
                                  metric_values *v)
{
    const metric_store *s = agg_store(c->a, metric);
    int i = (int)(s - c->a->stores);
    metric_values *m = &c->cache[i];
    if (agg_lacks_reason(c->a, LLMLAT_KIND_METRIC, metric)) {
        undefined_values(v, store_count(s), n); /* the data cannot support it */
        return;
    }
    bool first = !c->known[i];
    bool same_q = !first && n == m->n_q && (n == 0 || memcmp(q, c->cache_q[i], n * sizeof *q) == 0);
    if (first && s->mode == LLMLAT_MODE_EXACT && store_count(s) > 0 &&
        c->a->conv->quantile != QUANTILE_INVERSE_CDF) {
        /* the same values as the queries, in fewer passes */
        exact_summary_values e = { 0 };
        int32_t st = exact_summary(&s->exact, &c->a->al, c->a->conv->ddof, q, n, &e);
        c->known[i] = true;
        m->count = store_count(s);
        m->mean = value_or_nan(c, st, e.mean);
        m->std = value_or_nan(c, st, e.std);
        m->min = s->exact.min;
        m->max = s->exact.max;
        m->median = value_or_nan(c, st, e.median);
        m->mode = NAN;
        for (size_t j = 0; j < n; j++)
            m->q[j] = value_or_nan(c, st, e.q[j]);
        memcpy(c->cache_q[i], q, n * sizeof *q);
        m->n_q = n;
        first = false;
        same_q = true;
    }
    if (first) {
        c->known[i] = true;
        moment_values(c, s, m);
        m->mode = NAN;
    }
    if (!same_q) { /* the median once, with the first quantiles */
        order_values(c, s, q, n, first, false, m);
        memcpy(c->cache_q[i], q, n * sizeof *q);
    }
    *v = *m;
}

static void store_values(report_ctx *c, const metric_store *s, const double *q, size_t n,
                         bool with_mode, metric_values *v)
{
    moment_values(c, s, v);
    v->mode = NAN;
    order_values(c, s, q, n, true, with_mode, v);
}

LLMLAT_PRIVATE void report_groups_metric(report_ctx *c, unsigned groups, int32_t metric,
                                         const double *q, size_t n, bool with_mode,
                                         metric_values *v)
{
    const llmlat_agg *a = c->a;
    if (metric == LLMLAT_TOOL_ITL)
        metric = conv_tool_itl_metric(a->conv);
    if (agg_lacks_reason(a, LLMLAT_KIND_METRIC, metric)) {
        undefined_values(v, 0, n); /* the data cannot support it: no placeholder */
        return;
    }
    const metric_store *src[GROUP_COUNT];
    size_t ns = 0;
    for (int g = 0; g < GROUP_COUNT; g++)
        if (groups & (1u << g))
            src[ns++] = &agg_group_view(a, (enum req_group)g).stores[metric_index(metric)];
    if (ns == 1) {
        store_values(c, src[0], q, n, with_mode, v);
        return;
    }
    metric_store all;
    int32_t st = store_union(&all, &a->al, src, ns);
    if (st != LLMLAT_OK) {
        value_or_nan(c, st, 0.0);
        undefined_values(v, 0, n);
        return;
    }
    store_values(c, &all, q, n, with_mode, v);
    store_free(&all, &a->al);
}

/* Writers pass the library's own ids, so they index the caches. */
LLMLAT_PRIVATE double report_rate(report_ctx *c, int32_t rate)
{
    if (!c->rate_known[rate]) {
        double v;
        int32_t st = llmlat_agg_rate(c->a, rate, &v);
        c->rate[rate] = value_or_nan(c, st, v);
        c->rate_known[rate] = true;
    }
    return c->rate[rate];
}

LLMLAT_PRIVATE double report_duration(const report_ctx *c)
{
    double d;
    return agg_duration(c->a, &d) ? d : NAN;
}

LLMLAT_PRIVATE bool report_counter(report_ctx *c, int32_t counter, uint64_t *out)
{
    if (!c->counter_known[counter]) {
        int32_t st = llmlat_agg_counter(c->a, counter, &c->counter[counter]);
        c->counter_defined[counter] = !isnan(value_or_nan(c, st, 0.0));
        c->counter_known[counter] = true;
    }
    *out = c->counter[counter];
    return c->counter_defined[counter];
}

LLMLAT_PRIVATE bool report_item_value(report_ctx *c, enum report_item item, double *v,
                                      bool *count, uint64_t *n, const char **why)
{
    static const int32_t COUNTERS[REPORT_ITEM_COUNT] = {
        [REPORT_ITEM_COMPLETED] = LLMLAT_COUNT_COMPLETED,
        [REPORT_ITEM_FAILED] = LLMLAT_COUNT_FAILED,
        [REPORT_ITEM_TPOT_UNDEFINED] = LLMLAT_COUNT_TPOT_UNDEFINED,
        [REPORT_ITEM_INPUT_TOKENS] = LLMLAT_COUNT_INPUT_TOKENS,
        [REPORT_ITEM_OUTPUT_TOKENS] = LLMLAT_COUNT_OUTPUT_TOKENS,
        [REPORT_ITEM_GOOD] = LLMLAT_COUNT_GOOD,
        [REPORT_ITEM_PEAK_CONCURRENCY] = LLMLAT_COUNT_PEAK_CONCURRENCY,
    };
    /* the duration has the reason of the requests rate */
    static const int32_t RATES[REPORT_ITEM_COUNT] = {
        [REPORT_ITEM_DURATION] = LLMLAT_RATE_REQUESTS,
        [REPORT_ITEM_REQUEST_RATE] = LLMLAT_RATE_REQUESTS,
        [REPORT_ITEM_GOODPUT] = LLMLAT_RATE_GOODPUT,
        [REPORT_ITEM_OUTPUT_RATE] = LLMLAT_RATE_OUTPUT_TOKENS,
        [REPORT_ITEM_TOTAL_RATE] = LLMLAT_RATE_TOTAL_TOKENS,
        [REPORT_ITEM_PEAK_TOKENS] = LLMLAT_RATE_PEAK_OUTPUT_TOKENS,
    };
    if ((item == REPORT_ITEM_GOODPUT || item == REPORT_ITEM_GOOD) && !agg_any_slo(c->a) &&
        !report_unavailable(c, LLMLAT_KIND_COUNTER, LLMLAT_COUNT_GOOD))
        return false;
    *count = COUNTERS[item] != 0;
    if (*count) {
        *why = report_unavailable(c, LLMLAT_KIND_COUNTER, COUNTERS[item]);
        *n = 0; /* kept exact: a double rounds counts past 2^53 */
        *v = report_counter(c, COUNTERS[item], n) ? 0.0 : NAN;
    } else {
        *why = report_unavailable(c, LLMLAT_KIND_RATE, RATES[item]);
        *v = item == REPORT_ITEM_DURATION ? report_duration(c) : report_rate(c, RATES[item]);
    }
    return true;
}

LLMLAT_PRIVATE bool report_quantile_repeats(const double *q, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (q[j] == q[i])
            return true;
    return false;
}

LLMLAT_PRIVATE const char *report_unavailable(const report_ctx *c, int32_t kind, int32_t id)
{
    return agg_lacks_reason(c->a, kind, id);
}

LLMLAT_PRIVATE bool report_has_schedule(const report_ctx *c)
{
    for (int g = 0; g < GROUP_COUNT; g++)
        if (store_count(&agg_group_view(c->a, (enum req_group)g)
                             .stores[metric_index(LLMLAT_DISPATCH_DELAY)]))
            return true;
    return false;
}

LLMLAT_PRIVATE size_t report_table_rows(const report_ctx *c, const text_words *w,
                                        text_row *rows)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof w->rows / sizeof w->rows[0] && w->rows[i].label; i++)
        rows[n++] = w->rows[i];
    for (size_t i = 0; i < SCHED_ROWS && report_has_schedule(c); i++)
        rows[n++] = (text_row){ report_sched_metric(i),
                                report_metric_label(w, report_sched_metric(i)) };
    return n;
}

LLMLAT_PRIVATE bool report_behind_schedule(report_ctx *c, double *p99)
{
    double v = NAN;
    int32_t st = llmlat_agg_quantile(c->a, LLMLAT_DISPATCH_DELAY, 0.99, &v);
    *p99 = value_or_nan(c, st, v);
    return *p99 > agg_param(c->a, LLMLAT_PARAM_MAX_DISPATCH_DELAY);
}

/* A row label without its unit ("E2EL incl. Client Queue (ms)" is named
 * "E2EL incl. Client Queue" in a sentence). */
static void label_stem(rbuf *b, const char *label, bool html)
{
    char stem[64];
    size_t n = strlen(label);
    if (n > 5 && strcmp(label + n - 5, " (ms)") == 0)
        n -= 5;
    snprintf(stem, sizeof stem, "%.*s", (int)n, label);
    if (html)
        rbuf_html_escaped(b, stem);
    else
        rbuf_puts(b, stem);
}

LLMLAT_PRIVATE bool report_schedule_warning(report_ctx *c, const text_words *w, bool html,
                                            const char *before, const char *sep,
                                            const char *after)
{
    double p99;
    if (!report_behind_schedule(c, &p99))
        return false;
    rbuf *b = &c->out;
    rbuf_puts(b, before);
    rbuf_puts(b, "the client fell behind its schedule (P99 ");
    label_stem(b, report_metric_label(w, LLMLAT_DISPATCH_DELAY), html);
    rbuf_puts(b, " ");
    rbuf_fixed(b, p99 * 1000.0, 2, 0, "-");
    rbuf_puts(b, " ms > ");
    rbuf_fixed(b, agg_param(c->a, LLMLAT_PARAM_MAX_DISPATCH_DELAY) * 1000.0, 2, 0, "-");
    rbuf_puts(b, " ms):");
    rbuf_puts(b, sep);
    rbuf_puts(b, "latencies measured from the send understate what users waited;");
    rbuf_puts(b, sep);
    rbuf_puts(b, "read ");
    label_stem(b, report_metric_label(w, LLMLAT_SCHEDULED_TTFT), html);
    rbuf_puts(b, " and ");
    label_stem(b, report_metric_label(w, LLMLAT_SCHEDULED_E2E), html);
    rbuf_puts(b, ", measured from the intended start.");
    rbuf_puts(b, after);
    return true;
}
