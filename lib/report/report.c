/* llmlat_agg_report_write: one writer per format streaming into the
 * caller's write function; llmlat_agg_report: the buffer contract on top of
 * it; and the value queries the writers share. */
#include <math.h>
#include <string.h>

#include "report/expose.h"
#include "report/report.h"

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
    expose_run(&c->out, &c->a, 1, c->format, true, &c->a->al);
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

static double query_stat(report_ctx *c, int32_t metric, int32_t which)
{
    double v;
    int32_t st = llmlat_agg_stat(c->a, metric, which, &v);
    return value_or_nan(c, st, v);
}

LLMLAT_PRIVATE void report_metric(report_ctx *c, int32_t metric, const double *q, size_t n,
                                  metric_values *v)
{
    const metric_store *s = agg_store(c->a, metric);
    int i = (int)(s - c->a->stores);
    metric_values *m = &c->cache[i];
    if (!c->known[i] && s->mode == LLMLAT_MODE_EXACT && store_count(s) > 0 &&
        !agg_lacks_reason(c->a, LLMLAT_KIND_METRIC, metric)) {
        /* the same values as the queries below, in fewer passes */
        exact_summary_values e = { 0 };
        int32_t st = exact_summary(&s->exact, &c->a->al, c->a->conv->ddof, q, n, &e);
        c->known[i] = true;
        m->count = store_count(s);
        m->mean = value_or_nan(c, st, e.mean);
        m->std = value_or_nan(c, st, e.std);
        m->min = s->exact.min;
        m->max = s->exact.max;
        m->median = value_or_nan(c, st, e.median);
        for (size_t j = 0; j < n; j++)
            m->q[j] = value_or_nan(c, st, e.q[j]);
        memcpy(c->cache_q[i], q, n * sizeof *q);
        m->n_q = n;
    }
    if (!c->known[i]) {
        c->known[i] = true;
        m->count = store_count(s);
        m->mean = query_stat(c, metric, LLMLAT_STAT_MEAN);
        m->std = query_stat(c, metric, LLMLAT_STAT_STD);
        m->min = query_stat(c, metric, LLMLAT_STAT_MIN);
        m->max = query_stat(c, metric, LLMLAT_STAT_MAX);
        m->median = query_stat(c, metric, LLMLAT_STAT_MEDIAN);
        m->n_q = 0;
    }
    bool same_q = n == m->n_q && (n == 0 || memcmp(q, c->cache_q[i], n * sizeof *q) == 0);
    if (!same_q) {
        int32_t st = llmlat_agg_quantiles(c->a, metric, q, n, m->q);
        for (size_t j = 0; j < n; j++)
            m->q[j] = value_or_nan(c, st, m->q[j]);
        memcpy(c->cache_q[i], q, n * sizeof *q);
        m->n_q = n;
    }
    *v = *m;
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

static double counter_or_nan(report_ctx *c, int32_t counter)
{
    uint64_t v;
    return report_counter(c, counter, &v) ? (double)v : NAN;
}

LLMLAT_PRIVATE bool report_item_value(report_ctx *c, enum report_item item, double *v,
                                      bool *count, const char **why)
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
        *v = counter_or_nan(c, COUNTERS[item]);
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
