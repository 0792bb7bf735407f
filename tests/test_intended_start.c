/* The metrics from the intended start (llmlat_request_schedule):
 * DISPATCH_DELAY, SCHEDULED_TTFT, SCHEDULED_E2E, against hand-computed
 * values under every convention, in both modes, per request and
 * aggregated, beside a request that has none. Times in ms.
 *
 *  R1 intended -80, start 0: role chunk @50 (k=0), tokens @200 (1), @220
 *     (1), @240 (2), keep-alive @300 (k=0), finished @310      delay 80
 *  R2 no intended start, start 100: one token @400, finished @450
 *  R3 intended 100, start 150: one empty chunk @160, finished @500 (no
 *     content)                                                  delay 50
 *  R4 intended 150, start 200: tokens @300, @800, failed @900   delay 50
 *  R5 intended 250, start 250: tokens @600, @600, @700, finished @700
 *                                                               delay 0
 *  R6 intended 290, start 300: 3 tokens @350, cancelled @400    delay 10
 *
 * Each metric is the convention's own TTFT or E2E plus the delay, where
 * the convention measured one (a placeholder is not a measurement):
 *  default  successes R1 R2 R3 R5. TTFT at the first token: R1 200 + 80 =
 *           280, R5 350 (R3 has none); E2E to the last token: R1 240 + 80
 *           = 320, R5 450.
 *  vLLM     the same successes; empty chunks count: TTFT R1 50 + 80 =
 *           130, R3 10 + 50 = 60, R5 350; E2E to the last event: R1 380,
 *           R3 60, R5 450.
 *  AIPerf   successes R1 R2 R5 (R3 has no content): TTFT 280, 350; E2E
 *           320, 450.
 *  SGLang, LLMPerf   successes R1 R2 R3 R5; TTFT 280, 350 (R3's TTFT 0 is
 *           a placeholder); E2E to the finish: R1 310 + 80 = 390, R3 350 +
 *           50 = 400, R5 450.
 *  GuideLLM successful R1 R2 R5: delays 80, 0; TTFT 280, 350; E2E to the
 *           finish 390, 450. Errored R3 (no content) and R4: delays 50,
 *           50; TTFT R4 100 + 50 = 150; E2E R3 400 (it closed normally),
 *           R4 none (failed). Incomplete R6: delay 10, TTFT 50 + 10 = 60,
 *           no E2E.
 *  inference-perf    successes R1 R2 R3 R5: delays 80, 50, 0; TTFT needs
 *           two token times: R1 280, R5 350; E2E to the finish 390, 400,
 *           450. Failures R4, R6: delays 50, 10.
 */
#include <stdbool.h>
#include <stdio.h>

#include "helpers.h"

#define MSF(x) ((x) / 1000.0) /* ms to seconds */
#define NONE INT64_MIN        /* no intended start */

typedef struct spec {
    int64_t intended; /* NONE: no intended start */
    int64_t start;
    ev evs[6];
    size_t n;
    int how;
    int64_t end;
} spec;

static const spec TRACE[] = {
    { -80 * MS, 0,
      { { 50 * MS, 0 }, { 200 * MS, 1 }, { 220 * MS, 1 }, { 240 * MS, 2 }, { 300 * MS, 0 } },
      5, ENDS_FINISHED, 310 * MS },
    { NONE, 100 * MS, { { 400 * MS, 1 } }, 1, ENDS_FINISHED, 450 * MS },
    { 100 * MS, 150 * MS, { { 160 * MS, 0 } }, 1, ENDS_FINISHED, 500 * MS },
    { 150 * MS, 200 * MS, { { 300 * MS, 1 }, { 800 * MS, 1 } }, 2, ENDS_FAILED, 900 * MS },
    { 250 * MS, 250 * MS, { { 600 * MS, 1 }, { 600 * MS, 1 }, { 700 * MS, 1 } }, 3, ENDS_FINISHED,
      700 * MS },
    { 290 * MS, 300 * MS, { { 350 * MS, 3 } }, 1, ENDS_CANCELLED, 400 * MS },
};
#define TRACE_N (sizeof TRACE / sizeof TRACE[0])

/* Spec i as a recorder: a buffered one, or a streaming one of like. */
static llmlat_request *make_spec(const spec *s, const llmlat_agg *streaming_like)
{
    llmlat_request *r = streaming_like ? llmlat_request_new_streaming(streaming_like)
                                       : llmlat_request_new();
    assert_non_null(r);
    if (s->intended != NONE)
        assert_int_equal(llmlat_request_schedule(r, s->intended), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, s->start), LLMLAT_OK);
    for (size_t i = 0; i < s->n; i++)
        assert_int_equal(llmlat_request_event(r, s->evs[i].t, s->evs[i].k), LLMLAT_OK);
    int32_t st = s->how == ENDS_FINISHED ? llmlat_request_finish(r, s->end)
                 : s->how == ENDS_FAILED ? llmlat_request_fail(r, s->end)
                                         : llmlat_request_cancel(r, s->end);
    assert_int_equal(st, LLMLAT_OK);
    return r;
}

static void add_trace(llmlat_agg *a, bool streaming)
{
    for (size_t i = 0; i < TRACE_N; i++) {
        llmlat_request *r = make_spec(&TRACE[i], streaming ? a : NULL);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        llmlat_request_free(r);
    }
}

/* The samples (ms) one metric must hold under a convention: the
 * successes' (what llmlat_agg_stat reads). */
typedef struct want {
    size_t n;
    double v[4];
} want;

typedef struct conv_want {
    int32_t conv;
    want delay, ttft, e2e;
} conv_want;

static const conv_want WANT[] = {
    { LLMLAT_CONV_DEFAULT, { 3, { 80, 50, 0 } }, { 2, { 280, 350 } }, { 2, { 320, 450 } } },
    { LLMLAT_CONV_VLLM, { 3, { 80, 50, 0 } }, { 3, { 130, 60, 350 } }, { 3, { 380, 60, 450 } } },
    { LLMLAT_CONV_AIPERF, { 2, { 80, 0 } }, { 2, { 280, 350 } }, { 2, { 320, 450 } } },
    { LLMLAT_CONV_SGLANG, { 3, { 80, 50, 0 } }, { 2, { 280, 350 } }, { 3, { 390, 400, 450 } } },
    { LLMLAT_CONV_LLMPERF, { 3, { 80, 50, 0 } }, { 2, { 280, 350 } }, { 3, { 390, 400, 450 } } },
    { LLMLAT_CONV_GUIDELLM, { 2, { 80, 0 } }, { 2, { 280, 350 } }, { 2, { 390, 450 } } },
    { LLMLAT_CONV_INFERENCE_PERF, { 3, { 80, 50, 0 } }, { 2, { 280, 350 } },
      { 3, { 390, 400, 450 } } },
};

static double want_mean(const want *w)
{
    double s = 0;
    for (size_t i = 0; i < w->n; i++)
        s += w->v[i];
    return MSF(s / (double)w->n);
}

static double want_min(const want *w)
{
    double m = w->v[0];
    for (size_t i = 1; i < w->n; i++)
        m = w->v[i] < m ? w->v[i] : m;
    return MSF(m);
}

static double want_max(const want *w)
{
    double m = w->v[0];
    for (size_t i = 1; i < w->n; i++)
        m = w->v[i] > m ? w->v[i] : m;
    return MSF(m);
}

static void check_metric(const llmlat_agg *a, int32_t metric, const want *w, bool bounded)
{
    double v;
    assert_int_equal(llmlat_agg_stat(a, metric, LLMLAT_STAT_COUNT, &v), LLMLAT_OK);
    assert_close(v, (double)w->n, 0);
    assert_int_equal(llmlat_agg_stat(a, metric, LLMLAT_STAT_MIN, &v), LLMLAT_OK);
    assert_close(v, want_min(w), TOL_S);
    assert_int_equal(llmlat_agg_stat(a, metric, LLMLAT_STAT_MAX, &v), LLMLAT_OK);
    assert_close(v, want_max(w), TOL_S);
    assert_int_equal(llmlat_agg_stat(a, metric, LLMLAT_STAT_MEAN, &v), LLMLAT_OK);
    assert_close(v, want_mean(w), TOL_S);
    /* q = 0 and 1 are the extremes, exactly, in both modes; the median
     * within the sketch's error in bounded mode */
    assert_int_equal(llmlat_agg_quantile(a, metric, 1.0, &v), LLMLAT_OK);
    assert_close(v, want_max(w), TOL_S);
    if (!bounded && w->n == 2) {
        int32_t conv;
        llmlat_agg_get_convention(a, &conv);
        assert_int_equal(llmlat_agg_quantile(a, metric, 0.5, &v), LLMLAT_OK);
        /* numpy's midpoint; GuideLLM's inverse CDF takes the first */
        assert_close(v, conv == LLMLAT_CONV_GUIDELLM ? want_min(w) : (want_min(w) + want_max(w)) / 2,
                     TOL_S);
    }
}

static void every_convention_both_modes(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof WANT / sizeof WANT[0]; c++) {
        for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
            for (int streaming = 0; streaming <= (mode == LLMLAT_MODE_BOUNDED); streaming++) {
                llmlat_agg *a = llmlat_agg_new(WANT[c].conv, mode);
                assert_non_null(a);
                add_trace(a, streaming);
                bool bounded = mode == LLMLAT_MODE_BOUNDED;
                check_metric(a, LLMLAT_DISPATCH_DELAY, &WANT[c].delay, bounded);
                check_metric(a, LLMLAT_SCHEDULED_TTFT, &WANT[c].ttft, bounded);
                check_metric(a, LLMLAT_SCHEDULED_E2E, &WANT[c].e2e, bounded);
                llmlat_agg_free(a);
            }
        }
    }
}

/* Per request, under each convention: the delay from the start on, the
 * others where the convention measures its TTFT or E2E. */
static void per_request(void **state)
{
    (void)state;
    double v;
    /* R1 in flight: the delay once started, TTFT once a token came */
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_request_schedule(r, -80 * MS), LLMLAT_OK);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, LLMLAT_DISPATCH_DELAY, &v),
                     LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_DISPATCH_DELAY), MSF(80), TOL_S);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, LLMLAT_SCHEDULED_TTFT, &v),
                     LLMLAT_EUNDEFINED);
    assert_true(isnan(v));
    assert_int_equal(llmlat_request_event(r, 200 * MS, 1), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_SCHEDULED_TTFT), MSF(280), TOL_S);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, LLMLAT_SCHEDULED_E2E, &v),
                     LLMLAT_EUNDEFINED);
    llmlat_request_free(r);

    static const struct {
        size_t req;
        int32_t conv, metric;
        double ms; /* NAN: undefined */
    } CASES[] = {
        { 0, LLMLAT_CONV_VLLM, LLMLAT_SCHEDULED_TTFT, 130 },
        { 0, LLMLAT_CONV_VLLM, LLMLAT_SCHEDULED_E2E, 380 },
        { 0, LLMLAT_CONV_SGLANG, LLMLAT_SCHEDULED_E2E, 390 },
        { 0, LLMLAT_CONV_DEFAULT, LLMLAT_SCHEDULED_E2E, 320 },
        { 1, LLMLAT_CONV_DEFAULT, LLMLAT_DISPATCH_DELAY, NAN },
        { 1, LLMLAT_CONV_VLLM, LLMLAT_SCHEDULED_TTFT, NAN },
        { 1, LLMLAT_CONV_SGLANG, LLMLAT_SCHEDULED_E2E, NAN },
        { 2, LLMLAT_CONV_VLLM, LLMLAT_SCHEDULED_TTFT, 60 },
        { 2, LLMLAT_CONV_SGLANG, LLMLAT_SCHEDULED_TTFT, NAN }, /* TTFT 0: a placeholder */
        { 2, LLMLAT_CONV_LLMPERF, LLMLAT_SCHEDULED_E2E, 400 },
        { 2, LLMLAT_CONV_GUIDELLM, LLMLAT_SCHEDULED_E2E, 400 },
        { 3, LLMLAT_CONV_GUIDELLM, LLMLAT_SCHEDULED_TTFT, 150 },
        { 3, LLMLAT_CONV_GUIDELLM, LLMLAT_SCHEDULED_E2E, NAN }, /* failed: E2E 0 placeholder */
        { 3, LLMLAT_CONV_INFERENCE_PERF, LLMLAT_SCHEDULED_E2E, 750 },
        { 4, LLMLAT_CONV_AIPERF, LLMLAT_DISPATCH_DELAY, 0 },
        { 5, LLMLAT_CONV_GUIDELLM, LLMLAT_SCHEDULED_TTFT, 60 },
        { 5, LLMLAT_CONV_GUIDELLM, LLMLAT_DISPATCH_DELAY, 10 },
        { 5, LLMLAT_CONV_INFERENCE_PERF, LLMLAT_SCHEDULED_TTFT, 60 },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        r = make_spec(&TRACE[CASES[i].req], NULL);
        int32_t st = llmlat_request_value(r, CASES[i].conv, CASES[i].metric, &v);
        if (isnan(CASES[i].ms)) {
            assert_int_equal(st, LLMLAT_EUNDEFINED);
            assert_true(isnan(v));
        } else {
            assert_int_equal(st, LLMLAT_OK);
            assert_close(v, MSF(CASES[i].ms), TOL_S);
        }
        llmlat_request_free(r);
    }
}

/* The "mean" of a status group in the JSON after `field`, as written. */
static const char *group_mean(const char *field, const char *group)
{
    static char out[32];
    char key[32];
    snprintf(key, sizeof key, "\"%s\": {", group);
    const char *g = strstr(field, key);
    assert_non_null(g);
    const char *m = strstr(g, "\"mean\": ");
    assert_non_null(m);
    m += strlen("\"mean\": ");
    size_t n = strcspn(m, ",\n");
    snprintf(out, sizeof out, "%.*s", (int)n, m);
    return out;
}

/* GuideLLM and inference-perf keep the failures' samples in their status
 * groups: the JSON tool objects show them. */
static void status_groups(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_GUIDELLM, LLMLAT_MODE_EXACT);
    add_trace(a, false);
    size_t len = 0;
    assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, NULL, 0, &len), LLMLAT_ENOSPC);
    char *json = malloc(len + 1);
    assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, json, len, &len), LLMLAT_OK);
    json[len] = '\0';
    /* errored: R3 and R4 (delays 50, 50), incomplete: R6 (10) */
    const char *d = strstr(json, "\"request_dispatch_delay\": {");
    assert_non_null(d);
    assert_string_equal(group_mean(d, "incomplete"), "0.01");
    assert_string_equal(group_mean(d, "errored"), "0.05");
    const char *e = strstr(json, "\"request_scheduled_latency\": {");
    assert_non_null(e);
    assert_string_equal(group_mean(e, "incomplete"), "0"); /* none: GuideLLM's zeros */
    assert_string_equal(group_mean(e, "errored"), "0.4");
    free(json);
    llmlat_agg_free(a);
}

/* A metric nobody recorded is undefined under every convention, vLLM's
 * and GuideLLM's 0.0 placeholders included; COUNT is 0, SUM 0. */
static void nobody_recorded(void **state)
{
    (void)state;
    for (int32_t conv = 0; conv <= CONV_LAST; conv++) {
        for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
            llmlat_agg *a = llmlat_agg_new(conv, mode);
            add_request(a, 0, EVS({ 10 * MS, 1 }, { 20 * MS, 1 }), ENDS_FINISHED, 20 * MS, 1);
            for (int32_t m = LLMLAT_DISPATCH_DELAY; m <= LLMLAT_SCHEDULED_E2E; m++) {
                double v = 0, q[2] = { 0.5, 0.99 }, out[2];
                assert_int_equal(llmlat_agg_stat(a, m, LLMLAT_STAT_MEAN, &v), LLMLAT_EUNDEFINED);
                assert_true(isnan(v));
                assert_int_equal(llmlat_agg_stat(a, m, LLMLAT_STAT_MEDIAN, &v), LLMLAT_EUNDEFINED);
                assert_int_equal(llmlat_agg_quantiles(a, m, q, 2, out), LLMLAT_EUNDEFINED);
                assert_true(isnan(out[0]) && isnan(out[1]));
                assert_int_equal(llmlat_agg_stat(a, m, LLMLAT_STAT_COUNT, &v), LLMLAT_OK);
                assert_true(v == 0.0);
                assert_int_equal(llmlat_agg_stat(a, m, LLMLAT_STAT_SUM, &v), LLMLAT_OK);
                assert_true(v == 0.0);
            }
            /* an empty set of another metric keeps the convention's
             * placeholder (vLLM, SGLang, GuideLLM: 0.0) */
            llmlat_agg *none = llmlat_agg_new(conv, mode);
            double v = 0;
            int32_t st = llmlat_agg_stat(none, LLMLAT_TTFT, LLMLAT_STAT_MEAN, &v);
            bool zero = conv == LLMLAT_CONV_VLLM || conv == LLMLAT_CONV_SGLANG ||
                        conv == LLMLAT_CONV_GUIDELLM;
            assert_int_equal(st, zero ? LLMLAT_OK : LLMLAT_EUNDEFINED);
            llmlat_agg_free(none);
            llmlat_agg_free(a);
        }
    }
}

static void same_state(const llmlat_agg *x, const llmlat_agg *y)
{
    size_t nx = 0, ny = 0;
    assert_int_equal(llmlat_agg_serialize(x, NULL, 0, &nx), LLMLAT_ENOSPC);
    assert_int_equal(llmlat_agg_serialize(y, NULL, 0, &ny), LLMLAT_ENOSPC);
    assert_int_equal(nx, ny);
    unsigned char *bx = malloc(nx), *by = malloc(ny);
    assert_int_equal(llmlat_agg_serialize(x, bx, nx, &nx), LLMLAT_OK);
    assert_int_equal(llmlat_agg_serialize(y, by, ny, &ny), LLMLAT_OK);
    assert_memory_equal(bx, by, nx);
    free(bx);
    free(by);
}

/* Merges, bytes, windows and columns carry the intended start. */
static void merge_bytes_windows_columns(void **state)
{
    (void)state;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *whole = llmlat_agg_new(LLMLAT_CONV_GUIDELLM, mode);
        llmlat_agg *x = llmlat_agg_new_like(whole), *y = llmlat_agg_new_like(whole);
        for (size_t i = 0; i < TRACE_N; i++) {
            llmlat_request *r = make_spec(&TRACE[i], NULL);
            assert_int_equal(llmlat_agg_add(whole, r), LLMLAT_OK);
            assert_int_equal(llmlat_agg_add(i % 2 ? x : y, r), LLMLAT_OK);
            llmlat_request_free(r);
        }
        assert_int_equal(llmlat_agg_merge(y, x), LLMLAT_OK);
        if (mode == LLMLAT_MODE_BOUNDED) /* exact mode keeps the order of adds */
            same_state(whole, y);
        double v;
        assert_int_equal(llmlat_agg_stat(y, LLMLAT_SCHEDULED_E2E, LLMLAT_STAT_SUM, &v), LLMLAT_OK);
        assert_close(v, MSF(390 + 450), TOL_S);

        /* the bytes read back to the same state (version 3) */
        size_t len = 0;
        llmlat_agg_serialize(whole, NULL, 0, &len);
        unsigned char *buf = malloc(len);
        assert_int_equal(llmlat_agg_serialize(whole, buf, len, &len), LLMLAT_OK);
        assert_int_equal(buf[8], 3);
        int32_t st;
        llmlat_agg *copy = llmlat_agg_deserialize(buf, len, &st);
        assert_int_equal(st, LLMLAT_OK);
        same_state(whole, copy);
        check_metric(copy, LLMLAT_DISPATCH_DELAY, &WANT[5].delay, mode == LLMLAT_MODE_BOUNDED);
        free(buf);

        if (mode == LLMLAT_MODE_EXACT) {
            /* a window of the copy's log: its requests keep their intended start */
            llmlat_agg *w = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
            assert_int_equal(llmlat_agg_add_window(w, copy, 0, 1000 * MS, LLMLAT_WINDOW_START),
                             LLMLAT_OK);
            check_metric(w, LLMLAT_DISPATCH_DELAY, &WANT[0].delay, false);
            check_metric(w, LLMLAT_SCHEDULED_E2E, &WANT[0].e2e, false);
            llmlat_agg_free(w);
        }

        /* columns, with and without intended starts, as one by one */
        llmlat_agg *cols = llmlat_agg_new_like(whole);
        int64_t start[TRACE_N], end[TRACE_N], sched[TRACE_N], t[16];
        uint8_t ok[TRACE_N];
        uint64_t off[TRACE_N + 1] = { 0 };
        uint32_t k[16];
        size_t ne = 0;
        for (size_t i = 0; i < TRACE_N; i++) {
            start[i] = TRACE[i].start;
            end[i] = TRACE[i].end;
            sched[i] = TRACE[i].intended == NONE ? LLMLAT_NO_SCHEDULE : TRACE[i].intended;
            ok[i] = TRACE[i].how == ENDS_FINISHED ? 1
                    : TRACE[i].how == ENDS_FAILED ? 0
                                                  : LLMLAT_COLUMN_CANCELLED;
            for (size_t j = 0; j < TRACE[i].n; j++, ne++) {
                t[ne] = TRACE[i].evs[j].t;
                k[ne] = TRACE[i].evs[j].k;
            }
            off[i + 1] = ne;
        }
        size_t bad = 0;
        assert_int_equal(llmlat_agg_add_columns_scheduled(cols, TRACE_N, start, end, ok, off, t,
                                                          k, NULL, NULL, sched, &bad),
                         LLMLAT_OK);
        same_state(whole, cols);
        /* an intended start after the start: EORDER, that request named,
         * nothing added */
        sched[4] = start[4] + 1;
        assert_int_equal(llmlat_agg_add_columns_scheduled(cols, TRACE_N, start, end, ok, off, t,
                                                          k, NULL, NULL, sched, &bad),
                         LLMLAT_EORDER);
        assert_int_equal(bad, 4);
        same_state(whole, cols);
        /* NULL: none has one, as llmlat_agg_add_columns */
        llmlat_agg *plain = llmlat_agg_new_like(whole), *plain2 = llmlat_agg_new_like(whole);
        assert_int_equal(llmlat_agg_add_columns_scheduled(plain, TRACE_N, start, end, ok, off, t,
                                                          k, NULL, NULL, NULL, &bad),
                         LLMLAT_OK);
        assert_int_equal(llmlat_agg_add_columns(plain2, TRACE_N, start, end, ok, off, t, k, NULL,
                                                NULL, &bad),
                         LLMLAT_OK);
        same_state(plain, plain2);
        assert_int_equal(llmlat_agg_stat(plain, LLMLAT_DISPATCH_DELAY, LLMLAT_STAT_COUNT, &v),
                         LLMLAT_OK);
        assert_true(v == 0.0);
        llmlat_agg_free(plain);
        llmlat_agg_free(plain2);
        llmlat_agg_free(cols);
        llmlat_agg_free(copy);
        llmlat_agg_free(whole);
        llmlat_agg_free(x);
        llmlat_agg_free(y);
    }
}

static char *report_of(const llmlat_agg *a, int32_t format)
{
    size_t len = 0;
    llmlat_agg_report(a, format, NULL, 0, &len);
    char *s = malloc(len + 1);
    assert_int_equal(llmlat_agg_report(a, format, s, len, &len), LLMLAT_OK);
    s[len] = '\0';
    return s;
}

/* The warning: when the P99 dispatch delay passes the param (1 ms by
 * default), text and HTML say so, in the convention's words. */
static void warning(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    add_trace(a, false);
    char *text = report_of(a, LLMLAT_FORMAT_TEXT);
    assert_non_null(strstr(text, "WARNING: the client fell behind its schedule (P99 Client "
                                 "Queue Time "));
    assert_non_null(strstr(text, "read scheduled TTFT and E2EL incl. Client Queue, measured "
                                 "from the intended start."));
    assert_non_null(strstr(text, "\nClient Queue Time (ms) "));
    free(text);
    char *html = report_of(a, LLMLAT_FORMAT_HTML);
    assert_non_null(strstr(html, "<p class=\"warning\" id=\"behind-schedule\">"));
    assert_non_null(strstr(html, "id=\"cdf-dispatch-delay\""));
    free(html);
    char *json = report_of(a, LLMLAT_FORMAT_JSON);
    assert_non_null(strstr(json, "\"behind_schedule\": true"));
    free(json);
    /* a reporting threshold: settable once the bounded aggregator holds
     * data, and not one that merges must agree on */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_MAX_DISPATCH_DELAY, 0.1), LLMLAT_OK);
    llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_merge(b, a), LLMLAT_OK);
    text = report_of(a, LLMLAT_FORMAT_TEXT);
    assert_null(strstr(text, "WARNING"));
    assert_non_null(strstr(text, "Client Queue Time (ms)")); /* the rows stay */
    free(text);
    json = report_of(a, LLMLAT_FORMAT_JSON);
    assert_non_null(strstr(json, "\"behind_schedule\": false"));
    free(json);
    llmlat_agg_free(a);
    llmlat_agg_free(b);
    /* no intended start: no rows, no warning, no chart; null in JSON */
    a = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    add_request(a, 0, EVS({ 10 * MS, 1 }), ENDS_FINISHED, 20 * MS, 1);
    text = report_of(a, LLMLAT_FORMAT_TEXT);
    assert_null(strstr(text, "Client Queue"));
    free(text);
    html = report_of(a, LLMLAT_FORMAT_HTML);
    assert_null(strstr(html, "dispatch"));
    free(html);
    json = report_of(a, LLMLAT_FORMAT_JSON);
    assert_non_null(strstr(json, "\"behind_schedule\": null"));
    assert_null(strstr(json, "client_queue_time"));
    free(json);
    llmlat_agg_free(a);
}

/* The per-request tables: the intended start and the values from it. */
static void per_request_tables(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    add_trace(a, false);
    char *csv = report_of(a, LLMLAT_FORMAT_REQUESTS_CSV);
    assert_non_null(strstr(csv, "input_tokens,scheduled_s,dispatch_delay_s,scheduled_ttft_s,"
                                "scheduled_e2e_s,success\n"));
    /* R1: intended -0.08 s; R2: none */
    assert_non_null(strstr(csv, ",-0.080000000,0.08,0.28,0.32,true\n"));
    assert_non_null(strstr(csv, "\n1,0.100000000,0.450000000,0.3,,0.3,,1,0,,,,,true\n"));
    free(csv);
    char *jsonl = report_of(a, LLMLAT_FORMAT_REQUESTS_JSONL);
    assert_non_null(strstr(jsonl, "\"scheduled_s\": null, \"dispatch_delay_s\": null"));
    assert_non_null(strstr(jsonl, "\"scheduled_s\": 0.250000000, \"dispatch_delay_s\": 0,"));
    free(jsonl);
    llmlat_agg_free(a);
}

/* a's Prometheus exposition, NUL-terminated (free it). */
static char *exposition_of(const llmlat_agg *a)
{
    const llmlat_agg *aggs[1] = { a };
    size_t len = 0;
    llmlat_expose(aggs, 1, LLMLAT_FORMAT_PROMETHEUS, NULL, 0, &len);
    char *text = malloc(len + 1);
    assert_non_null(text);
    assert_int_equal(llmlat_expose(aggs, 1, LLMLAT_FORMAT_PROMETHEUS, text, len, &len),
                     LLMLAT_OK);
    text[len] = '\0';
    return text;
}

/* The exposition writes their families once a request had one. */
static void exposition(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    add_request(a, 0, EVS({ 10 * MS, 1 }), ENDS_FINISHED, 20 * MS, 1);
    char *text = exposition_of(a);
    assert_null(strstr(text, "dispatch_delay"));
    free(text);
    add_trace(a, false);
    text = exposition_of(a);
    assert_non_null(strstr(text, "# TYPE llmlat_dispatch_delay_hist_seconds histogram\n"));
    assert_non_null(strstr(text, "llmlat_dispatch_delay_hist_seconds_count 3\n"));
    assert_non_null(strstr(text, "llmlat_scheduled_ttft_seconds_count 2\n"));
    assert_non_null(strstr(text, "llmlat_scheduled_e2e_hist_seconds_sum 0.77\n"));
    assert_non_null(strstr(text, "llmlat_dispatch_delay_hist_seconds_bucket{le=\"0.001\"} 1\n"));
    free(text);
    llmlat_agg_free(a);
}

/* Live recording and sliding windows fold them as llmlat_agg_add does. */
static void live_and_window(void **state)
{
    (void)state;
    llmlat_agg *like = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_BOUNDED);
    llmlat_live *l = llmlat_live_new(like);
    llmlat_live_writer *w = llmlat_live_writer_new(l);
    int32_t st;
    llmlat_window *win = llmlat_window_new(like, 10 * SEC, SEC, &st);
    assert_non_null(win);
    for (size_t i = 0; i < TRACE_N; i++) {
        llmlat_request *r = make_spec(&TRACE[i], i % 2 ? like : NULL);
        assert_int_equal(llmlat_live_add(w, r), LLMLAT_OK);
        assert_int_equal(llmlat_window_add(win, r), LLMLAT_OK);
        llmlat_request_free(r);
    }
    llmlat_agg *snap = llmlat_agg_new_like(like);
    assert_int_equal(llmlat_live_snapshot(l, LLMLAT_SNAPSHOT_CUMULATIVE, snap), LLMLAT_OK);
    const llmlat_agg *view;
    assert_int_equal(llmlat_window_view(win, &view), LLMLAT_OK);
    const llmlat_agg *both[2] = { snap, view };
    for (int i = 0; i < 2; i++) {
        check_metric(both[i], LLMLAT_DISPATCH_DELAY, &WANT[3].delay, true);
        check_metric(both[i], LLMLAT_SCHEDULED_TTFT, &WANT[3].ttft, true);
        check_metric(both[i], LLMLAT_SCHEDULED_E2E, &WANT[3].e2e, true);
    }
    llmlat_agg_free(snap);
    llmlat_window_free(win);
    llmlat_live_writer_free(w);
    llmlat_live_free(l);
    llmlat_agg_free(like);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_convention_both_modes),
        cmocka_unit_test(per_request),
        cmocka_unit_test(status_groups),
        cmocka_unit_test(nobody_recorded),
        cmocka_unit_test(merge_bytes_windows_columns),
        cmocka_unit_test(warning),
        cmocka_unit_test(per_request_tables),
        cmocka_unit_test(exposition),
        cmocka_unit_test(live_and_window),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
