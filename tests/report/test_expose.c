/* llmlat_expose and llmlat_expose_write: the argument and buffer
 * contracts, one family's metadata once with a series per aggregator,
 * the refusal of two aggregators with the same labels, label escaping,
 * what OpenMetrics changes, the run gauges (reports only), and the
 * protobuf encoding decoded field by field: the same families and values
 * as the text, labels in name order, native buckets equal to
 * llmlat_agg_buckets (schemas above 8 downscaled for Prometheus 2.x). */
#include "report/expose_check.h"

typedef struct grow {
    char *p;
    size_t len, cap;
    int calls;
    int32_t fail_with; /* returned by the write function on its second call */
} grow;

static int32_t grow_write(void *user, const void *bytes, size_t n)
{
    grow *g = user;
    assert_true(n >= 1);
    if (++g->calls == 2 && g->fail_with)
        return g->fail_with;
    if (g->len + n + 1 > g->cap) {
        g->cap = 2 * (g->len + n + 1);
        g->p = realloc(g->p, g->cap);
        assert_non_null(g->p);
    }
    memcpy(g->p + g->len, bytes, n);
    g->len += n;
    g->p[g->len] = '\0';
    return LLMLAT_OK;
}

/* The exposition of aggs as a NUL-terminated string (len: its bytes),
 * through both calls, which must agree. */
static char *expose(const llmlat_agg *const *aggs, size_t n, int32_t format, size_t *len)
{
    size_t need = 0;
    int32_t st = llmlat_expose(aggs, n, format, NULL, 0, &need);
    assert_true(st == LLMLAT_ENOSPC || (st == LLMLAT_OK && need == 0));
    char *buf = malloc(need + 1);
    assert_non_null(buf);
    assert_int_equal(llmlat_expose(aggs, n, format, buf, need, len), LLMLAT_OK);
    assert_int_equal(*len, need);
    buf[need] = '\0';
    grow g = { 0 };
    assert_int_equal(llmlat_expose_write(aggs, n, format, grow_write, &g), LLMLAT_OK);
    assert_int_equal(g.len, need);
    if (need)
        assert_memory_equal(g.p, buf, need);
    free(g.p);
    return buf;
}

static char *report(const llmlat_agg *a, int32_t format, size_t *len)
{
    assert_int_equal(llmlat_agg_report(a, format, NULL, 0, len), LLMLAT_ENOSPC);
    char *buf = malloc(*len + 1);
    assert_non_null(buf);
    assert_int_equal(llmlat_agg_report(a, format, buf, *len, len), LLMLAT_OK);
    buf[*len] = '\0';
    return buf;
}

/* Three aggregators: bounded default {model="a"} with an SLO, exact vLLM
 * {model="b",route="/v1"}, bounded AIPerf without labels; the same
 * requests in each. */
typedef struct trio {
    llmlat_agg *a[3];
} trio;

static void fill(llmlat_agg *a)
{
    for (int i = 0; i < 20; i++)
        add_request(a, i * SEC,
                    EVS({ i * SEC + (50 + i) * MS, 1 }, { i * SEC + (80 + i) * MS, 3 },
                        { i * SEC + (80 + i) * MS, 0 }, { i * SEC + 200 * MS, 1 }),
                    i % 7 == 6 ? ENDS_FAILED : ENDS_FINISHED, i * SEC + 250 * MS, 10);
    add_request(a, 30 * SEC, EVS({ 30 * SEC, 2 }), ENDS_FINISHED, 30 * SEC, 0); /* TTFT 0 */
}

static void trio_make(trio *t)
{
    t->a[0] = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    t->a[1] = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    t->a[2] = llmlat_agg_new(LLMLAT_CONV_AIPERF, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_label(t->a[0], "model", "a"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(t->a[0], LLMLAT_PARAM_SLO_TTFT, 0.06), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(t->a[1], "route", "/v1"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(t->a[1], "model", "b"), LLMLAT_OK);
    for (int i = 0; i < 3; i++)
        fill(t->a[i]);
}

static void trio_free(trio *t)
{
    for (int i = 0; i < 3; i++)
        llmlat_agg_free(t->a[i]);
}

#define AGGS(t) ((const llmlat_agg *const *)(t)->a)

static void arguments(void **state)
{
    (void)state;
    trio t;
    trio_make(&t);
    size_t len = 0;
    char buf[16];
    const llmlat_agg *with_null[2] = { t.a[0], NULL };
    assert_int_equal(llmlat_expose(AGGS(&t), 3, LLMLAT_FORMAT_PROMETHEUS, buf, 16, NULL),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_expose(NULL, 1, LLMLAT_FORMAT_PROMETHEUS, buf, 16, &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_expose(with_null, 2, LLMLAT_FORMAT_PROMETHEUS, buf, 16, &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_expose(AGGS(&t), 3, LLMLAT_FORMAT_PROMETHEUS, NULL, 16, &len),
                     LLMLAT_EINVAL);
    const int32_t not_expositions[] = { 0, LLMLAT_FORMAT_TEXT, LLMLAT_FORMAT_JSON, 100, -1 };
    for (size_t i = 0; i < sizeof not_expositions / sizeof not_expositions[0]; i++) {
        assert_int_equal(llmlat_expose(AGGS(&t), 3, not_expositions[i], buf, 16, &len),
                         LLMLAT_EINVAL);
        grow g = { 0 };
        assert_int_equal(llmlat_expose_write(AGGS(&t), 3, not_expositions[i], grow_write, &g),
                         LLMLAT_EINVAL);
        assert_int_equal(g.calls, 0);
    }
    assert_int_equal(llmlat_expose_write(AGGS(&t), 3, LLMLAT_FORMAT_PROMETHEUS, NULL, NULL),
                     LLMLAT_EINVAL);
    /* no aggregator: an empty exposition, "# EOF" alone in OpenMetrics */
    char *e = expose(NULL, 0, LLMLAT_FORMAT_PROMETHEUS, &len);
    assert_int_equal(len, 0);
    free(e);
    e = expose(NULL, 0, LLMLAT_FORMAT_OPENMETRICS, &len);
    assert_string_equal(e, "# EOF\n");
    free(e);
    e = expose(NULL, 0, LLMLAT_FORMAT_PROMETHEUS_PROTOBUF, &len);
    assert_int_equal(len, 0);
    free(e);
    /* content types */
    assert_string_equal(llmlat_format_content_type(LLMLAT_FORMAT_PROMETHEUS),
                        "text/plain; version=0.0.4; charset=utf-8");
    assert_string_equal(llmlat_format_content_type(LLMLAT_FORMAT_OPENMETRICS),
                        "application/openmetrics-text; version=1.0.0; charset=utf-8");
    assert_string_equal(llmlat_format_content_type(LLMLAT_FORMAT_PROMETHEUS_PROTOBUF),
                        "application/vnd.google.protobuf; "
                        "proto=io.prometheus.client.MetricFamily; encoding=delimited");
    assert_non_null(llmlat_format_content_type(LLMLAT_FORMAT_JSON));
    assert_string_equal(llmlat_format_content_type(LLMLAT_FORMAT_HTML), "text/html; charset=utf-8");
    assert_string_equal(llmlat_format_content_type(LLMLAT_FORMAT_REQUESTS_CSV),
                        "text/csv; charset=utf-8");
    assert_null(llmlat_format_content_type(LLMLAT_FORMAT_REQUESTS_JSONL + 1));
    assert_null(llmlat_format_content_type(0));
    trio_free(&t);
}

static void buffer_contract_and_streaming(void **state)
{
    (void)state;
    trio t;
    trio_make(&t);
    for (int32_t f = LLMLAT_FORMAT_PROMETHEUS; f <= LLMLAT_FORMAT_PROMETHEUS_PROTOBUF; f++) {
        size_t need = 0, len = 0;
        free(expose(AGGS(&t), 3, f, &need));
        assert_true(need > 4096); /* several pieces when streamed */
        char *buf = malloc(need + 8);
        memset(buf, 'x', need + 8);
        assert_int_equal(llmlat_expose(AGGS(&t), 3, f, buf, need - 1, &len), LLMLAT_ENOSPC);
        assert_int_equal(len, need);
        for (size_t i = 0; i < need + 8; i++)
            assert_int_equal(buf[i], 'x');
        assert_int_equal(llmlat_expose(AGGS(&t), 3, f, buf, need + 8, &len), LLMLAT_OK);
        assert_int_equal(len, need);
        assert_int_equal(buf[need], 'x');
        free(buf);
        /* the write function's error stops the output and is returned */
        grow g = { .fail_with = 1234 };
        assert_int_equal(llmlat_expose_write(AGGS(&t), 3, f, grow_write, &g), 1234);
        assert_int_equal(g.calls, 2);
        free(g.p);
    }
    trio_free(&t);
}

/* The same label set twice (the same aggregator twice included) would
 * write every series twice: refused, nothing written. */
static void same_labels_refused(void **state)
{
    (void)state;
    trio t;
    trio_make(&t);
    llmlat_agg *twin = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_set_label(twin, "model", "a"), LLMLAT_OK);
    const llmlat_agg *same_ptr[2] = { t.a[1], t.a[1] };
    const llmlat_agg *same_set[3] = { t.a[0], t.a[1], twin };
    const llmlat_agg *no_labels[2] = { t.a[2], llmlat_agg_new(0, 0) };
    for (int32_t f = LLMLAT_FORMAT_PROMETHEUS; f <= LLMLAT_FORMAT_PROMETHEUS_PROTOBUF; f++) {
        size_t len = 0;
        assert_int_equal(llmlat_expose(same_ptr, 2, f, NULL, 0, &len), LLMLAT_EINVAL);
        assert_int_equal(llmlat_expose(same_set, 3, f, NULL, 0, &len), LLMLAT_EINVAL);
        assert_int_equal(llmlat_expose(no_labels, 2, f, NULL, 0, &len), LLMLAT_EINVAL);
        grow g = { 0 };
        assert_int_equal(llmlat_expose_write(same_set, 3, f, grow_write, &g), LLMLAT_EINVAL);
        assert_int_equal(g.calls, 0);
    }
    /* a different value is a different set */
    assert_int_equal(llmlat_agg_set_label(twin, "model", "c"), LLMLAT_OK);
    size_t len;
    free(expose(same_set, 3, LLMLAT_FORMAT_PROMETHEUS, &len));
    llmlat_agg_free((llmlat_agg *)no_labels[1]);
    llmlat_agg_free(twin);
    trio_free(&t);
}

/* Families: metadata once each, then one series per aggregator that has
 * a value, the families one after another. */
static void one_family_many_series(void **state)
{
    (void)state;
    trio t;
    trio_make(&t);
    size_t len;
    char *text = expose(AGGS(&t), 3, LLMLAT_FORMAT_PROMETHEUS, &len);
    text_expo x;
    assert_true(text_parse(text, len, &x));
    assert_int_equal(x.n_help, x.n_type);
    assert_int_equal(occurrences(text, "# TYPE llmlat_ttft_seconds summary\n"), 1);
    assert_int_equal(occurrences(text, "# TYPE llmlat_ttft_hist_seconds histogram\n"), 1);
    assert_int_equal(occurrences(text, "# TYPE llmlat_requests_completed_total counter\n"), 1);
    assert_int_equal(occurrences(text, "\nllmlat_requests_completed_total"), 3);
    assert_int_equal(occurrences(text, "\nllmlat_info{"), 3);
    /* GOOD needs an SLO: one series, the first aggregator's */
    assert_int_equal(occurrences(text, "\nllmlat_requests_good_total"), 1);
    assert_non_null(strstr(text, "\nllmlat_requests_good_total{model=\"a\"} 11\n"));
    /* labels: constant ones first, then llmlat's; none at all: no braces */
    assert_non_null(strstr(text, "\nllmlat_info{model=\"b\",route=\"/v1\",version=\""));
    assert_non_null(strstr(text, "\",convention=\"vllm\",mode=\"exact\"} 1\n"));
    assert_non_null(strstr(text, "\nllmlat_requests_completed_total 18\n"));
    assert_non_null(strstr(text, "\nllmlat_ttft_seconds{model=\"b\",route=\"/v1\",quantile=\"0.99\"} "));
    assert_non_null(strstr(text, "\nllmlat_ttft_hist_seconds_bucket{le=\"+Inf\"} 18\n"));
    /* no run gauge in an exposition */
    assert_null(strstr(text, "llmlat_duration_seconds"));
    assert_null(strstr(text, "throughput"));
    /* a family's series are together: each sample is named after the
     * family of the # TYPE line above it (which comes once) */
    char family[128] = "";
    for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
        if (strncmp(line, "# TYPE ", 7) == 0)
            sscanf(line + 7, "%127s", family);
        else if (line[0] != '#' && strncmp(line, family, strlen(family)) != 0)
            fail_msg("a sample of another family under %s: %.60s", family, line);
    }
    /* _sum is LLMLAT_STAT_SUM, exactly */
    double sum;
    assert_int_equal(llmlat_agg_stat(t.a[1], LLMLAT_ITL, LLMLAT_STAT_SUM, &sum), LLMLAT_OK);
    bool found = false;
    for (size_t i = 0; i < x.n; i++)
        if (strcmp(x.s[i].series, "llmlat_itl_seconds_sum{model=\"b\",route=\"/v1\"}") == 0) {
            assert_true(x.s[i].value == sum);
            found = true;
        }
    assert_true(found);
    text_free(&x);
    free(text);
    trio_free(&t);
}

/* llmlat_agg_report's exposition formats: the exposition of one
 * aggregator, plus the run gauges. */
static void report_is_exposition_plus_run_gauges(void **state)
{
    (void)state;
    trio t;
    trio_make(&t);
    for (int i = 0; i < 3; i++) {
        size_t n_expo, n_report;
        const llmlat_agg *one = t.a[i];
        char *e = expose(&one, 1, LLMLAT_FORMAT_PROMETHEUS, &n_expo);
        char *r = report(one, LLMLAT_FORMAT_PROMETHEUS, &n_report);
        assert_non_null(strstr(r, "\nllmlat_duration_seconds"));
        assert_non_null(strstr(r, "# TYPE llmlat_request_throughput_requests_per_second gauge"));
        /* the report without its gauge families is the exposition */
        char *kept = malloc(n_report + 1);
        size_t k = 0;
        bool gauge = false;
        for (char *line = r; *line;) {
            char *nl = strchr(line, '\n');
            size_t n = (size_t)(nl - line) + 1;
            char name[128];
            if (sscanf(line, "# HELP %127s", name) == 1)
                gauge = (ends_with(name, "_per_second") && !strstr(name, "tps_user")) ||
                        strcmp(name, "llmlat_duration_seconds") == 0 ||
                        strcmp(name, "llmlat_peak_concurrent_requests") == 0;
            if (!gauge) {
                memcpy(kept + k, line, n);
                k += n;
            }
            line += n;
        }
        kept[k] = '\0';
        assert_string_equal(kept, e);
        free(kept);
        free(e);
        free(r);
    }
    trio_free(&t);
}

static void label_values_escaped(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_label(a, "model", "a\"b\\c\nd\xc3\xa9"), LLMLAT_OK);
    fill(a);
    const llmlat_agg *one = a;
    for (int32_t f = LLMLAT_FORMAT_PROMETHEUS; f <= LLMLAT_FORMAT_OPENMETRICS; f++) {
        size_t len;
        char *text = expose(&one, 1, f, &len);
        assert_non_null(strstr(text, "llmlat_info{model=\"a\\\"b\\\\c\\nd\xc3\xa9\",version"));
        assert_null(strstr(text, "c\nd")); /* no raw newline in a label */
        free(text);
    }
    size_t len;
    char *pb = expose(&one, 1, LLMLAT_FORMAT_PROMETHEUS_PROTOBUF, &len);
    pbd_expo x;
    assert_true(pbd_parse(pb, len, &x));
    const pbd_metric *m = x.f[0].metrics[0];
    assert_non_null(strstr(m->key, "model=\"a\"b\\c\nd\xc3\xa9\"")); /* raw bytes */
    pbd_free(&x);
    free(pb);
    /* the JSON and text reports show them too */
    char *json = report(a, LLMLAT_FORMAT_JSON, &len);
    assert_non_null(strstr(json, "\"labels\": {\n    \"model\": \"a\\\"b\\\\c\\nd\xc3\xa9\"\n  },"));
    free(json);
    char *txt = report(a, LLMLAT_FORMAT_TEXT, &len);
    assert_non_null(strstr(txt, "\nlabels: model=\"a\\\"b\\\\c\\nd\xc3\xa9\"\n"));
    free(txt);
    llmlat_agg_free(a);
}

/* OpenMetrics: the counter families without _total (samples keep it),
 * UNIT where the name ends in one, # EOF once at the end; otherwise the
 * same samples as text 0.0.4. */
static void openmetrics_dialect(void **state)
{
    (void)state;
    trio t;
    trio_make(&t);
    size_t n_om, n_prom;
    char *om = expose(AGGS(&t), 3, LLMLAT_FORMAT_OPENMETRICS, &n_om);
    char *prom = expose(AGGS(&t), 3, LLMLAT_FORMAT_PROMETHEUS, &n_prom);
    assert_non_null(strstr(om, "# TYPE llmlat_requests_completed counter\n"));
    assert_non_null(strstr(om, "\nllmlat_requests_completed_total{model=\"a\"} 19\n"));
    assert_non_null(strstr(om, "# TYPE llmlat_output_tokens counter\n"
                               "# UNIT llmlat_output_tokens tokens\n"));
    assert_non_null(strstr(om, "# TYPE llmlat_ttft_hist_seconds histogram\n"
                               "# UNIT llmlat_ttft_hist_seconds seconds\n"));
    assert_null(strstr(om, "# UNIT llmlat_info"));
    assert_null(strstr(prom, "# UNIT"));
    assert_null(strstr(prom, "# EOF"));
    text_expo a, b;
    assert_true(text_parse(om, n_om, &a));
    assert_true(text_parse(prom, n_prom, &b));
    assert_int_equal(a.n_eof, 1);
    assert_true(a.eof_last);
    assert_int_equal(a.n, b.n);
    for (size_t i = 0; i < a.n; i++) {
        assert_string_equal(a.s[i].series, b.s[i].series);
        assert_memory_equal(&a.s[i].value, &b.s[i].value, sizeof(double));
    }
    text_free(&a);
    text_free(&b);
    free(om);
    free(prom);
    trio_free(&t);
}

/* The protobuf says what the text says, family by family; its labels
 * are in name order; its native buckets are llmlat_agg_buckets'. */
static void protobuf_matches_text(void **state)
{
    (void)state;
    trio t;
    trio_make(&t);
    size_t n_pb, n_text;
    char *pb = expose(AGGS(&t), 3, LLMLAT_FORMAT_PROMETHEUS_PROTOBUF, &n_pb);
    char *text = expose(AGGS(&t), 3, LLMLAT_FORMAT_PROMETHEUS, &n_text);
    pbd_expo x;
    text_expo tx;
    assert_true(pbd_parse(pb, n_pb, &x));
    assert_true(text_parse(text, n_text, &tx));
    assert_int_equal(x.n, tx.n_type);
    size_t series = 0;
    for (size_t i = 0; i < x.n; i++) {
        const pbd_family *f = &x.f[i];
        char type_line[200];
        static const char *const TYPES[] = { "counter", "gauge", "summary", "", "histogram" };
        snprintf(type_line, sizeof type_line, "# TYPE %s %s\n", f->name, TYPES[f->type]);
        assert_non_null(strstr(text, type_line));
        assert_true(f->help[0] != '\0');
        for (size_t j = 0; j < f->n_metrics; j++) {
            const pbd_metric *m = f->metrics[j];
            assert_true(m->labels_sorted);
            char key[1100];
            if (f->type == PBD_COUNTER || f->type == PBD_GAUGE) {
                assert_true(m->has_value);
                if (strcmp(f->name, "llmlat_info") != 0)
                    assert_true(m->value == text_value(&tx, m->key));
                series++;
                continue;
            }
            /* "name{labels}" -> "name_sum{labels}" */
            const char *brace = strchr(m->key, '{');
            size_t at = brace ? (size_t)(brace - m->key) : strlen(m->key);
            snprintf(key, sizeof key, "%.*s_sum%s", (int)at, m->key, m->key + at);
            assert_true(m->sum == text_value(&tx, key));
            snprintf(key, sizeof key, "%.*s_count%s", (int)at, m->key, m->key + at);
            assert_true((double)m->count == text_value(&tx, key));
            series += 2;
            if (f->type == PBD_SUMMARY) {
                assert_int_equal(m->n_q, 4);
                series += m->n_q;
                continue;
            }
            /* classic buckets: the text's, but +Inf (the count) */
            char prefix[1100];
            if (brace)
                snprintf(prefix, sizeof prefix, "%.*s_bucket{%.*s,le=\"", (int)at, m->key,
                         (int)(strlen(m->key) - at - 2), m->key + at + 1);
            else
                snprintf(prefix, sizeof prefix, "%s_bucket{le=\"", m->key);
            for (size_t b = 0; b < m->n_b; b++) {
                assert_true(isfinite(m->le[b]));
                assert_true((double)m->cum[b] == text_bucket(&tx, prefix, m->le[b]));
            }
            assert_true((double)m->count == text_bucket(&tx, prefix, INFINITY));
            series += m->n_b + 1;
            /* the native buckets: llmlat_agg_buckets' (every aggregator has
             * a series of each histogram, in the order given) */
            assert_int_equal(f->n_metrics, 3);
            static const struct { const char *name; int32_t id; } HIST[] = {
                { "llmlat_ttft_hist_seconds", LLMLAT_TTFT }, { "llmlat_tpot_hist_seconds", LLMLAT_TPOT },
                { "llmlat_ntpot_hist_seconds", LLMLAT_NTPOT },
                { "llmlat_itl_hist_seconds", LLMLAT_ITL }, { "llmlat_icl_hist_seconds", LLMLAT_ICL },
                { "llmlat_e2e_hist_seconds", LLMLAT_E2E }, { "llmlat_itl_max_hist_seconds", LLMLAT_ITL_MAX },
            };
            int32_t metric = 0;
            for (size_t h = 0; h < sizeof HIST / sizeof HIST[0]; h++)
                if (strcmp(f->name, HIST[h].name) == 0)
                    metric = HIST[h].id;
            assert_true(metric != 0);
            check_native(m, t.a[j], metric);
        }
    }
    assert_int_equal(series, tx.n);
    pbd_free(&x);
    text_free(&tx);
    free(pb);
    free(text);
    trio_free(&t);
}

/* A relative error below 0.135% has a schema above Prometheus 2.x's 8:
 * exported at schema 8, the buckets added 2^(schema - 8) at a time. */
static void fine_schemas_downscaled(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.0003), LLMLAT_OK);
    const double ttft_ms[] = { 0.0, 1.3, 7.0, 7.01, 55.0, 120.0, 121.0, 900.0 };
    for (size_t i = 0; i < sizeof ttft_ms / sizeof ttft_ms[0]; i++)
        add_request(a, 0, EVS({ (int64_t)(ttft_ms[i] * MS), 1 }), ENDS_FINISHED,
                    (int64_t)(ttft_ms[i] * MS), 0);
    int32_t schema, offset;
    double zt;
    uint64_t zc, *counts = malloc(100000 * sizeof *counts);
    size_t n;
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_TTFT, &schema, &zt, &zc, &offset, counts,
                                        100000, &n),
                     LLMLAT_OK);
    free(counts);
    assert_true(schema > 8 && n > 256); /* the finer buckets the exposition merges */
    const llmlat_agg *one = a;
    size_t len;
    char *pb = expose(&one, 1, LLMLAT_FORMAT_PROMETHEUS_PROTOBUF, &len);
    pbd_expo x;
    assert_true(pbd_parse(pb, len, &x));
    const pbd_metric *m = pbd_find_metric(&x, "llmlat_ttft_hist_seconds");
    assert_non_null(m);
    assert_int_equal(m->schema, 8);
    assert_int_equal(m->zc, 1); /* the zero */
    assert_true(m->zt > 0.0 && m->zt < 0.0013);
    /* every sample in the schema-8 bucket of its value: index ceil(log2(v) 256) */
    uint64_t total = m->zc;
    for (size_t i = 1; i < sizeof ttft_ms / sizeof ttft_ms[0]; i++) {
        double v = ttft_ms[i] / 1000.0;
        int64_t index = (int64_t)ceil(log2(v) * 256.0);
        bool in_span;
        uint64_t c = pbd_bucket(m, index, &in_span);
        assert_true(in_span && c >= 1);
    }
    for (size_t i = 0; i < m->n_buckets; i++)
        total += m->counts[i];
    assert_int_equal(total, 8);
    pbd_free(&x);
    free(pb);
    llmlat_agg_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arguments),
        cmocka_unit_test(buffer_contract_and_streaming),
        cmocka_unit_test(same_labels_refused),
        cmocka_unit_test(one_family_many_series),
        cmocka_unit_test(report_is_exposition_plus_run_gauges),
        cmocka_unit_test(label_values_escaped),
        cmocka_unit_test(openmetrics_dialect),
        cmocka_unit_test(protobuf_matches_text),
        cmocka_unit_test(fine_schemas_downscaled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
