/* llmlat_agg_report: the buffer contract, streaming (llmlat_agg_report_write), the values of the JSON report
 * against the query API, quantile keys, the tool objects, Prometheus
 * histograms and llmlat_agg_set_buckets, text labels, independence from
 * the C locale, and allocation failures. */
#include <locale.h>
#include <stdio.h>

#include "helpers.h"

/* The report as a NUL-terminated string (the library does not add one). */
static char *report(const llmlat_agg *a, int32_t format)
{
    size_t len = 0;
    assert_int_equal(llmlat_agg_report(a, format, NULL, 0, &len), LLMLAT_ENOSPC);
    assert_true(len > 0);
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    size_t got = 0;
    assert_int_equal(llmlat_agg_report(a, format, buf, len, &got), LLMLAT_OK);
    assert_int_equal(got, len);
    buf[len] = '\0';
    return buf;
}

/* The text right after `"key": ` inside the object named `object` (NULL:
 * the first occurrence anywhere). */
static const char *member(const char *json, const char *object, const char *key)
{
    char pattern[96];
    const char *from = json;
    if (object) {
        snprintf(pattern, sizeof pattern, "\"%s\": {", object);
        from = strstr(json, pattern);
        if (!from)
            fail_msg("no object %s", object);
    }
    snprintf(pattern, sizeof pattern, "\"%s\": ", key);
    const char *at = strstr(from, pattern);
    if (!at)
        fail_msg("no member %s in %s", key, object ? object : "(top)");
    return at + strlen(pattern);
}

/* A member's number, NaN for null. */
static double number(const char *json, const char *object, const char *key)
{
    const char *v = member(json, object, key);
    return strncmp(v, "null", 4) == 0 ? NAN : strtod(v, NULL);
}

/* DESIGN's seed example: A = 100 tokens 10 ms apart, B = 2 tokens 50 ms
 * apart; plus one failure. */
static llmlat_agg *seed_example(int32_t conv)
{
    llmlat_agg *a = llmlat_agg_new(conv, LLMLAT_MODE_EXACT);
    assert_non_null(a);
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    for (int i = 0; i < 100; i++)
        assert_int_equal(llmlat_request_event(r, 100 * MS + i * 10 * MS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_input_tokens(r, 1000), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 2 * SEC), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    llmlat_request_free(r);
    add_request(a, 10 * MS, EVS({ 200 * MS, 1 }, { 250 * MS, 1 }), ENDS_FINISHED, 260 * MS, 10);
    add_request(a, 20 * MS, EVS({ 30 * MS, 1 }), ENDS_FAILED, 40 * MS, 10);
    return a;
}

static void buffer_contract(void **state)
{
    (void)state;
    llmlat_agg *a = seed_example(LLMLAT_CONV_DEFAULT);
    size_t len = 0, need = 0;
    char small[8];
    assert_int_equal(llmlat_agg_report(NULL, LLMLAT_FORMAT_JSON, NULL, 0, &len), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, NULL, 0, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, NULL, 8, &len), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_report(a, 0, small, sizeof small, &len), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_report(a, 100, small, sizeof small, &len), LLMLAT_EINVAL);
    for (int32_t f = LLMLAT_FORMAT_TEXT; f <= LLMLAT_FORMAT_PROMETHEUS_PROTOBUF; f++) {
        assert_int_equal(llmlat_agg_report(a, f, NULL, 0, &need), LLMLAT_ENOSPC);
        char *buf = malloc(need + 16);
        assert_non_null(buf);
        memset(buf, 'x', need + 16);
        /* one byte short: nothing written, the size needed reported */
        len = 0;
        assert_int_equal(llmlat_agg_report(a, f, buf, need - 1, &len), LLMLAT_ENOSPC);
        assert_int_equal(len, need);
        for (size_t i = 0; i < need + 16; i++)
            assert_int_equal(buf[i], 'x');
        /* exactly enough, and more than enough: the same bytes */
        assert_int_equal(llmlat_agg_report(a, f, buf, need, &len), LLMLAT_OK);
        assert_int_equal(len, need);
        assert_int_equal(buf[need], 'x');
        char *again = report(a, f);
        assert_memory_equal(buf, again, need);
        assert_int_equal(llmlat_agg_report(a, f, buf, need + 16, &len), LLMLAT_OK);
        assert_int_equal(len, need);
        free(again);
        free(buf);
    }
    llmlat_agg_free(a);
}

/* What a streamed report delivered: its bytes, the number of pieces, and
 * (to test the stop) the piece whose call returns `fail_with`. */
typedef struct stream_sink {
    char *bytes;
    size_t len, pieces, fail_at;
    int32_t fail_with;
} stream_sink;

static int32_t sink_write(void *user, const void *bytes, size_t len)
{
    stream_sink *s = user;
    assert_non_null(bytes);
    assert_true(len >= 1);
    if (s->fail_with != LLMLAT_OK && s->pieces == s->fail_at)
        return s->fail_with;
    s->pieces++;
    s->bytes = realloc(s->bytes, s->len + len);
    assert_non_null(s->bytes);
    memcpy(s->bytes + s->len, bytes, len);
    s->len += len;
    return LLMLAT_OK;
}

/* 50 requests and a label: reports of several KiB. */
static llmlat_agg *large_example(int32_t mode)
{
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
    assert_non_null(a);
    for (int i = 0; i < 50; i++)
        add_request(a, i * MS, EVS({ 60 * MS + i * US, 1 }, { 90 * MS, 2 }, { 91 * MS, 0 }),
                    ENDS_FINISHED, 100 * MS, 10);
    assert_int_equal(llmlat_agg_set_label(a, "model", "a-model-name"), LLMLAT_OK);
    return a;
}

/* llmlat_agg_report_write delivers, in pieces, exactly the bytes of
 * llmlat_agg_report; a sink's error stops it at once and is returned. */
static void streaming(void **state)
{
    (void)state;
    stream_sink s = { 0 };
    assert_int_equal(llmlat_agg_report_write(NULL, LLMLAT_FORMAT_JSON, sink_write, &s),
                     LLMLAT_EINVAL);
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = large_example(mode);
        s = (stream_sink){ 0 };
        assert_int_equal(llmlat_agg_report_write(a, LLMLAT_FORMAT_JSON, NULL, &s),
                         LLMLAT_EINVAL);
        assert_int_equal(llmlat_agg_report_write(a, 0, sink_write, &s), LLMLAT_EINVAL);
        assert_int_equal(llmlat_agg_report_write(a, 99, sink_write, &s), LLMLAT_EINVAL);
        assert_int_equal(s.pieces, 0);
        for (int32_t f = LLMLAT_FORMAT_TEXT; f <= LLMLAT_FORMAT_PROMETHEUS; f++) {
            char *want = report(a, f);
            size_t want_len = strlen(want);
            s = (stream_sink){ 0 };
            assert_int_equal(llmlat_agg_report_write(a, f, sink_write, &s), LLMLAT_OK);
            assert_int_equal(s.len, want_len);
            assert_memory_equal(s.bytes, want, want_len);
            if (f == LLMLAT_FORMAT_PROMETHEUS)
                assert_true(s.pieces >= 3); /* several KiB: streamed, not built */
            size_t pieces = s.pieces;
            free(s.bytes);
            /* a sink's error at each piece: returned as is, no call after it,
             * what came before a prefix of the report */
            for (size_t at = 0; at < pieces; at++) {
                int32_t err = at % 2 ? LLMLAT_ENOMEM : 12345;
                s = (stream_sink){ .fail_at = at, .fail_with = err };
                assert_int_equal(llmlat_agg_report_write(a, f, sink_write, &s), err);
                assert_int_equal(s.pieces, at);
                assert_true(s.len < want_len);
                if (s.len)
                    assert_memory_equal(s.bytes, want, s.len);
                free(s.bytes);
            }
            free(want);
        }
        llmlat_agg_free(a);
    }
}

static const int32_t JSON_METRICS[] = { LLMLAT_TTFT, LLMLAT_TPOT, LLMLAT_ITL, LLMLAT_ICL,
                                        LLMLAT_E2E, LLMLAT_TPS_USER, LLMLAT_ITL_MAX };

/* Every number of `metrics` reads back as the very double the query API
 * gives, under every convention. */
static void json_matches_queries(void **state)
{
    (void)state;
    static const char *const STATS[] = { NULL, NULL, "mean", "std", "min", "max", "median" };
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= LLMLAT_CONV_LLMPERF; conv++) {
        llmlat_agg *a = seed_example(conv);
        char *json = report(a, LLMLAT_FORMAT_JSON);
        for (size_t i = 0; i < sizeof JSON_METRICS / sizeof JSON_METRICS[0]; i++) {
            int32_t m = JSON_METRICS[i];
            const char *name = llmlat_metric_name(m);
            uint64_t count = (uint64_t)stat_of(a, m, LLMLAT_STAT_COUNT);
            assert_int_equal((uint64_t)number(json, name, "count"), count);
            for (int32_t s = LLMLAT_STAT_MEAN; s <= LLMLAT_STAT_MEDIAN; s++) {
                double want;
                int32_t st = llmlat_agg_stat(a, m, s, &want);
                double got = number(json, name, STATS[s]);
                if (st == LLMLAT_OK)
                    assert_true(got == want);
                else
                    assert_true(isnan(got));
            }
            double q99;
            if (llmlat_agg_quantile(a, m, 0.99, &q99) == LLMLAT_OK)
                assert_true(number(json, name, "p99") == q99);
        }
        char want[32];
        snprintf(want, sizeof want, "\"%s\"", llmlat_convention_name(conv));
        assert_memory_equal(member(json, NULL, "convention"), want, strlen(want));
        assert_int_equal(number(json, NULL, "completed"), counter_of(a, LLMLAT_COUNT_COMPLETED));
        assert_int_equal(number(json, NULL, "failed"), counter_of(a, LLMLAT_COUNT_FAILED));
        assert_true(number(json, NULL, "request_throughput") ==
                    rate_of(a, LLMLAT_RATE_REQUESTS));
        assert_true(isnan(number(json, NULL, "request_goodput")));
        assert_true(isnan(number(json, NULL, "good_requests")));
        assert_true(isnan(number(json, "slo", "ttft_s")));
        /* a named convention has its tool's object, the default none */
        assert_int_equal(strstr(json, "\"tool\": {") != NULL, conv != LLMLAT_CONV_DEFAULT);
        free(json);
        llmlat_agg_free(a);
    }
}

/* DESIGN's numbers: mean TPOT 30 ms, mean ITL 10.4 ms. */
static void json_seed_values(void **state)
{
    (void)state;
    llmlat_agg *a = seed_example(LLMLAT_CONV_DEFAULT);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.15), LLMLAT_OK);
    char *json = report(a, LLMLAT_FORMAT_JSON);
    assert_close(number(json, "tpot", "mean"), 0.030, TOL_S);
    assert_close(number(json, "itl", "mean"), 0.0104, TOL_S);
    assert_int_equal(number(json, "itl", "count"), 100);
    assert_int_equal(number(json, NULL, "schema_version"), 1);
    assert_int_equal(number(json, NULL, "good_requests"), 1); /* B's TTFT is 190 ms */
    assert_close(number(json, "slo", "ttft_s"), 0.15, 0);
    assert_true(number(json, NULL, "request_goodput") == rate_of(a, LLMLAT_RATE_GOODPUT));
    assert_memory_equal(member(json, NULL, "mode"), "\"exact\"", 7);
    assert_memory_equal(member(json, NULL, "relative_error"), "null", 4);
    free(json);
    llmlat_agg_free(a);
}

/* Undefined is null, vLLM's placeholder is 0; TEXT prints "-". */
static void empty_aggregator(void **state)
{
    (void)state;
    llmlat_agg *d = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *v = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    char *jd = report(d, LLMLAT_FORMAT_JSON), *jv = report(v, LLMLAT_FORMAT_JSON);
    assert_true(isnan(number(jd, "ttft", "mean")));
    assert_true(isnan(number(jd, "ttft", "p99")));
    assert_true(isnan(number(jd, NULL, "duration_s")));
    assert_true(isnan(number(jd, NULL, "request_throughput")));
    assert_int_equal(number(jd, "ttft", "count"), 0);
    assert_true(number(jv, "ttft", "mean") == 0.0);
    assert_true(number(jv, "tool", "mean_itl_ms") == 0.0);
    char *text = report(d, LLMLAT_FORMAT_TEXT);
    assert_non_null(strstr(text, "TTFT (ms)                       0          -          -"));
    char *prom = report(v, LLMLAT_FORMAT_PROMETHEUS);
    /* no quantile of nothing, whatever the convention prints */
    assert_non_null(strstr(prom, "llmlat_ttft_seconds{quantile=\"0.5\"} NaN\n"));
    assert_non_null(strstr(prom, "llmlat_ttft_seconds_count 0\n"));
    free(jd);
    free(jv);
    free(text);
    free(prom);
    llmlat_agg_free(d);
    llmlat_agg_free(v);
}

static void quantile_keys(void **state)
{
    (void)state;
    llmlat_agg *a = seed_example(LLMLAT_CONV_VLLM);
    const double q[] = { 0.5, 0.999, 0.5, 0.9999, 0 };
    assert_int_equal(llmlat_agg_set_quantiles(a, q, 5), LLMLAT_OK);
    char *json = report(a, LLMLAT_FORMAT_JSON);
    const char *ttft = strstr(json, "\"ttft\": {");
    assert_non_null(strstr(ttft, "\"p99.9\": "));
    assert_non_null(strstr(ttft, "\"p99.99\": "));
    assert_non_null(strstr(ttft, "\"p0\": "));
    /* p50 once in the metric (not twice), and in the tool's names */
    const char *p50 = strstr(ttft, "\"p50\": ");
    assert_non_null(p50);
    assert_true(strstr(p50 + 1, "\"p50\": ") > strstr(ttft, "\"tpot\": {"));
    assert_non_null(strstr(json, "\"p99.9_ttft_ms\": "));
    double want;
    assert_int_equal(llmlat_agg_quantile(a, LLMLAT_ICL, 0.999, &want), LLMLAT_OK);
    assert_true(number(json, "tool", "p99.9_itl_ms") == want * 1000.0);
    free(json);
    llmlat_agg_free(a);
}

/* Each tool object holds what its tool calls that name. */
static void tool_objects(void **state)
{
    (void)state;
    llmlat_agg *a = seed_example(LLMLAT_CONV_AIPERF);
    char *json = report(a, LLMLAT_FORMAT_JSON);
    double tpot;
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_TPOT, LLMLAT_STAT_MEAN, &tpot), LLMLAT_OK);
    assert_true(number(json, "inter_token_latency", "avg") == tpot * 1000.0);
    assert_memory_equal(member(json, "inter_token_latency", "unit"), "\"ms\"", 4);
    assert_non_null(strstr(json, "\"p1\": "));
    assert_true(number(json, "request_count", "avg") == 2);
    assert_true(number(json, "error_request_count", "avg") == 1);
    assert_memory_equal(member(json, "tool", "goodput"), "null", 4);
    free(json);
    llmlat_agg_free(a);

    a = seed_example(LLMLAT_CONV_LLMPERF);
    json = report(a, LLMLAT_FORMAT_JSON);
    double itl, sd;
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_TOOL_ITL, LLMLAT_STAT_MEAN, &itl), LLMLAT_OK);
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_TOOL_ITL, LLMLAT_STAT_STD, &sd), LLMLAT_OK);
    assert_true(number(json, "inter_token_latency_s", "mean") == itl);
    assert_true(number(json, "inter_token_latency_s", "stddev") == sd);
    assert_non_null(strstr(json, "\"quantiles\": {\n        \"p25\": "));
    assert_true(number(json, "tool", "num_requests_started") == 3);
    assert_close(number(json, "tool", "error_rate"), 1.0 / 3.0, 1e-15);
    free(json);
    llmlat_agg_free(a);

    a = seed_example(LLMLAT_CONV_SGLANG);
    json = report(a, LLMLAT_FORMAT_JSON);
    double e2e = stat_of(a, LLMLAT_E2E, LLMLAT_STAT_MEAN) * 2;
    assert_close(number(json, "tool", "concurrency"),
                 e2e / number(json, NULL, "duration_s"), 1e-12);
    assert_true(number(json, "tool", "max_itl_ms") ==
                stat_of(a, LLMLAT_ICL, LLMLAT_STAT_MAX) * 1000.0);
    free(json);
    llmlat_agg_free(a);
}

/* The line "<series>{le="<bound>"} <count>" is in prom. */
static void assert_bucket(const char *prom, const char *series, const char *le, uint64_t n)
{
    char line[128];
    snprintf(line, sizeof line, "%s_bucket{le=\"%s\"} %llu\n", series, le,
             (unsigned long long)n);
    if (!strstr(prom, line))
        fail_msg("missing: %s", line);
}

static void histograms_and_buckets(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    /* TTFTs 10, 20, 20, 30 ms; the second request has chunks of 1, 1 and
     * 3 tokens (ITL: weight 1 at 10 ms, weight 3 at 10/3 ms) */
    add_request(a, 0, EVS({ 10 * MS, 1 }), ENDS_FINISHED, 11 * MS, 0);
    add_request(a, 0, EVS({ 20 * MS, 1 }, { 30 * MS, 1 }, { 40 * MS, 3 }), ENDS_FINISHED,
                40 * MS, 0);
    add_request(a, 0, EVS({ 20 * MS, 1 }), ENDS_FINISHED, 20 * MS, 0);
    add_request(a, 0, EVS({ 30 * MS, 1 }), ENDS_FINISHED, 30 * MS, 0);
    char *prom = report(a, LLMLAT_FORMAT_PROMETHEUS);
    /* vLLM's TTFT buckets by default; a sample equal to a bound is in it */
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "0.01", 1);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "0.02", 3);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "0.04", 4);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "2560", 4);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "+Inf", 4);
    assert_bucket(prom, "llmlat_itl_hist_seconds", "0.01", 4); /* weights, not samples */
    assert_non_null(strstr(prom, "llmlat_itl_hist_seconds_count 4\n"));
    assert_bucket(prom, "llmlat_icl_hist_seconds", "0.01", 2);
    assert_bucket(prom, "llmlat_e2e_hist_seconds", "7680", 4);
    assert_non_null(strstr(prom, "llmlat_ttft_hist_seconds_count 4\n"));
    assert_non_null(strstr(prom, "# TYPE llmlat_ttft_hist_seconds histogram\n"));
    assert_non_null(strstr(prom, "# TYPE llmlat_ttft_seconds summary\n"));
    assert_null(strstr(prom, "llmlat_tps_user_hist")); /* no histogram for a speed */
    free(prom);

    const double custom[] = { 0.015, 0.025 };
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, custom, 2), LLMLAT_OK);
    assert_int_equal(llmlat_agg_reset(a), LLMLAT_OK); /* kept */
    add_request(a, 0, EVS({ 20 * MS, 1 }), ENDS_FINISHED, 20 * MS, 0);
    prom = report(a, LLMLAT_FORMAT_PROMETHEUS);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "0.015", 0);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "0.025", 1);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "+Inf", 1);
    assert_null(strstr(prom, "llmlat_ttft_hist_seconds_bucket{le=\"0.001\"}"));
    free(prom);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, NULL, 0), LLMLAT_OK);
    prom = report(a, LLMLAT_FORMAT_PROMETHEUS);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "0.001", 0);
    free(prom);
    llmlat_agg_free(a);
}

/* Bounded mode counts each sketch bucket at its representative: exact
 * for samples further than alpha from every bound. */
static void bounded_mode(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    assert_non_null(a);
    add_request(a, 0, EVS({ 10 * MS, 1 }, { 20 * MS, 1 }), ENDS_FINISHED, 20 * MS, 0);
    add_request(a, 0, EVS({ 30 * MS, 1 }), ENDS_FINISHED, 30 * MS, 0);
    add_request(a, 0, EVS({ 30 * MS, 1 }), ENDS_FINISHED, 30 * MS, 0);
    add_request(a, 0, EVS({ 2 * SEC, 1 }), ENDS_FINISHED, 2 * SEC, 0);
    char *prom = report(a, LLMLAT_FORMAT_PROMETHEUS);
    assert_non_null(strstr(prom, "mode=\"bounded\""));
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "0.005", 0);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "0.02", 1);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "0.04", 3);
    assert_bucket(prom, "llmlat_ttft_hist_seconds", "2.5", 4);
    assert_bucket(prom, "llmlat_icl_hist_seconds", "0.01", 1);
    assert_null(strstr(prom, "llmlat_peak_concurrent_requests")); /* no timeline */
    char *json = report(a, LLMLAT_FORMAT_JSON);
    assert_memory_equal(member(json, NULL, "mode"), "\"bounded\"", 9);
    assert_close(number(json, NULL, "relative_error"), 0.01, 0);
    assert_true(isnan(number(json, NULL, "max_concurrent_requests")));
    assert_true(number(json, "ttft", "max") == 2.0); /* exact in bounded mode too */
    free(prom);
    free(json);
    llmlat_agg_free(a);
}

static void set_buckets_rejects(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    const double ok[] = { 0.1, 0.2 };
    double many[65];
    for (int i = 0; i < 65; i++)
        many[i] = i + 1;
    const double flat[] = { 0.1, 0.1 }, down[] = { 0.2, 0.1 };
    const double nan[] = { 0.1, NAN }, inf[] = { 0.1, INFINITY };
    assert_int_equal(llmlat_agg_set_buckets(NULL, LLMLAT_TTFT, ok, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TPS_USER, ok, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_OUTPUT_TOKENS, ok, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TOOL_ITL, ok, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, 0, ok, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, 99, ok, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, NULL, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, many, 65), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, flat, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, down, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, nan, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, inf, 2), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_E2E, many, 64), LLMLAT_OK);
    /* a refused call changed nothing */
    char *prom = report(a, LLMLAT_FORMAT_PROMETHEUS);
    assert_non_null(strstr(prom, "llmlat_ttft_hist_seconds_bucket{le=\"2560\"}"));
    assert_non_null(strstr(prom, "llmlat_e2e_hist_seconds_bucket{le=\"64\"}"));
    free(prom);
    llmlat_agg_free(a);
}

static void text_labels(void **state)
{
    (void)state;
    llmlat_agg *a = seed_example(LLMLAT_CONV_VLLM);
    char *text = report(a, LLMLAT_FORMAT_TEXT);
    assert_non_null(strstr(text, "convention: vllm"));
    assert_non_null(strstr(text, "Benchmark duration (s):"));
    assert_non_null(strstr(text, "\nE2EL (ms) "));
    /* vLLM's ITL row counts chunk gaps (ICL: 99 + 1), the per-token one tokens */
    assert_non_null(strstr(text, "\nITL (ms)                      100"));
    assert_non_null(strstr(text, "\nper-token ITL (ms)            100"));
    assert_non_null(strstr(text, "p99\n"));
    free(text);
    llmlat_agg_free(a);

    a = seed_example(LLMLAT_CONV_AIPERF);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_E2E, 1.0), LLMLAT_OK);
    text = report(a, LLMLAT_FORMAT_TEXT);
    assert_non_null(strstr(text, "\nInter Token Latency (ms) "));
    assert_non_null(strstr(text, "Good Request Count:"));
    free(text);
    llmlat_agg_free(a);
}

/* Counts near 2^64 are written exactly in the text and HTML summaries
 * (a double would round them to 2^64, past what uint64 holds; the fuzz
 * target found it under clang's float-cast-overflow check). */
static void counts_past_2_to_the_53(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, 1000, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_input_tokens(r, UINT64_MAX - 2), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 2000), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    for (int32_t f = LLMLAT_FORMAT_TEXT; f <= LLMLAT_FORMAT_HTML; f += LLMLAT_FORMAT_HTML - 1) {
        char *out = report(a, f);
        assert_non_null(strstr(out, "18446744073709551613")); /* as a double: ...616 */
        free(out);
    }
    llmlat_request_free(r);
    llmlat_agg_free(a);
}

/* A run whose requests lie further apart than INT64_MAX ns (times near
 * both ends of int64): the HTML report's timeline and the Chrome trace
 * measure from the earliest start in unsigned spans (libFuzzer found the
 * HTML one under clang's UBSan). */
static void spans_past_int64(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_request *r = llmlat_request_new();
    const int64_t starts[2] = { INT64_MIN + 10, INT64_MAX - 10000 };
    for (int i = 0; i < 2; i++) {
        assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
        assert_int_equal(llmlat_request_start(r, starts[i]), LLMLAT_OK);
        assert_int_equal(llmlat_request_event(r, starts[i] + 1000, 1), LLMLAT_OK);
        assert_int_equal(llmlat_request_event(r, starts[i] + 1500, 1), LLMLAT_OK);
        assert_int_equal(llmlat_request_finish(r, starts[i] + 2000), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    }
    char *html = report(a, LLMLAT_FORMAT_HTML);
    assert_non_null(strstr(html, "</html>"));
    free(html);
    char *trace = report(a, LLMLAT_FORMAT_CHROME_TRACE);
    /* the second request begins 2^64 - 1 - 10010 ns after the first */
    assert_non_null(strstr(trace, "\"ts\": 18446744073709541.605"));
    free(trace);
    llmlat_request_free(r);
    llmlat_agg_free(a);
}

/* Reports are the same bytes whatever LC_NUMERIC says (the test build
 * makes a de_DE.UTF-8 locale, whose decimal point is ','). */
static void locale_independent(void **state)
{
    (void)state;
    llmlat_agg *a = seed_example(LLMLAT_CONV_SGLANG);
    char *before[3];
    for (int f = 0; f < 3; f++)
        before[f] = report(a, LLMLAT_FORMAT_TEXT + f);
    assert_non_null(setlocale(LC_NUMERIC, "de_DE.UTF-8"));
    char tmp[16];
    snprintf(tmp, sizeof tmp, "%.1f", 0.5);
    assert_string_equal(tmp, "0,5"); /* the locale is in force */
    for (int f = 0; f < 3; f++) {
        char *after = report(a, LLMLAT_FORMAT_TEXT + f);
        assert_string_equal(after, before[f]);
        free(after);
        free(before[f]);
    }
    assert_non_null(setlocale(LC_NUMERIC, "C"));
    llmlat_agg_free(a);
}

/* Every allocation of a report may fail: ENOMEM, nothing written, and the
 * aggregator still reports fine afterwards. */
static void allocation_failures(void **state)
{
    (void)state;
    counting_alloc c;
    use_counting_alloc(&c, -1);
    llmlat_agg *a = seed_example(LLMLAT_CONV_VLLM);
    use_default_alloc();
    for (int32_t f = LLMLAT_FORMAT_TEXT; f <= LLMLAT_FORMAT_PROMETHEUS; f++) {
        size_t need;
        assert_int_equal(llmlat_agg_report(a, f, NULL, 0, &need), LLMLAT_ENOSPC);
        char *buf = malloc(need);
        assert_non_null(buf);
        long failures = 0;
        for (long n = 0;; n++) {
            c.fail_at = c.calls + n;
            size_t len = 0;
            int32_t st = llmlat_agg_report(a, f, buf, need, &len);
            if (st == LLMLAT_OK) {
                assert_int_equal(len, need);
                break;
            }
            assert_int_equal(st, LLMLAT_ENOMEM);
            failures++;
        }
        assert_true(failures > 0);
        c.fail_at = -1;
        char *full = report(a, f);
        assert_memory_equal(full, buf, need);
        free(full);
        free(buf);
    }
    llmlat_agg_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buffer_contract),
        cmocka_unit_test(streaming),
        cmocka_unit_test(json_matches_queries),
        cmocka_unit_test(json_seed_values),
        cmocka_unit_test(empty_aggregator),
        cmocka_unit_test(quantile_keys),
        cmocka_unit_test(tool_objects),
        cmocka_unit_test(histograms_and_buckets),
        cmocka_unit_test(bounded_mode),
        cmocka_unit_test(set_buckets_rejects),
        cmocka_unit_test(text_labels),
        cmocka_unit_test(counts_past_2_to_the_53),
        cmocka_unit_test(spans_past_int64),
        cmocka_unit_test(locale_independent),
        cmocka_unit_test(allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
