/* Requests whose data lacks something (llmlat_request_set_lacks,
 * _set_known; lib/record/lacks.c): what they cannot support is not
 * available, with its reason, under every convention, in queries and
 * reports, per request and aggregated, merged and serialized; what they
 * can support is what the full data would give. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llmlat.h"

#define MS 1000000

/* start 0, chunks at 100, 110, 130 ms, one token each, ending at 130 */
static llmlat_request *chunked(uint32_t lacks)
{
    llmlat_request *r = llmlat_request_new();
    static const int64_t t[3] = { 100 * MS, 110 * MS, 130 * MS };
    static const uint32_t k[3] = { 1, 1, 1 };
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_lacks(r, lacks), LLMLAT_OK);
    assert_int_equal(llmlat_request_events(r, t, k, 3), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_output_tokens(r, 3), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 130 * MS), LLMLAT_OK);
    return r;
}

static const char *reason(const llmlat_agg *a, int32_t kind, int32_t id)
{
    const char *why = (const char *)1;
    int32_t st = llmlat_agg_unavailable(a, kind, id, &why);
    assert_true(st == (why ? LLMLAT_EUNDEFINED : LLMLAT_OK));
    return why;
}

static void recorder_rules(void **state)
{
    (void)state;
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_request_set_lacks(NULL, 0), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_set_lacks(r, 1u << 8), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_set_lacks(r, LLMLAT_LACKS_CHUNKS), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_set_lacks(r, LLMLAT_LACKS_END), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_LLMPERF, LLMLAT_TTFT, 0.1),
                     LLMLAT_ESTATE); /* not started */
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_known(r, 99, LLMLAT_TTFT, 0.1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_LLMPERF, LLMLAT_TPOT, 0.1),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_LLMPERF, LLMLAT_TTFT, -1.0),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_LLMPERF, LLMLAT_TTFT, 0.0 / 0.0),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_LLMPERF, LLMLAT_E2E, 1e10),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_LLMPERF, LLMLAT_TTFT, 0.1),
                     LLMLAT_OK);
    uint32_t lacks;
    assert_int_equal(llmlat_request_get_lacks(r, &lacks), LLMLAT_OK);
    assert_int_equal(lacks, LLMLAT_LACKS_END | LLMLAT_LACKS_CHUNKS);
    /* set_lacks keeps CHUNKS; no event now; no other source */
    assert_int_equal(llmlat_request_set_lacks(r, LLMLAT_LACKS_START_TIMES), LLMLAT_OK);
    assert_int_equal(llmlat_request_get_lacks(r, &lacks), LLMLAT_OK);
    assert_int_equal(lacks, LLMLAT_LACKS_START_TIMES | LLMLAT_LACKS_CHUNKS);
    assert_int_equal(llmlat_request_event(r, 1, 1), LLMLAT_ESTATE);
    int64_t t = 1;
    uint32_t k = 1;
    assert_int_equal(llmlat_request_events(r, &t, &k, 1), LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_SGLANG, LLMLAT_E2E, 1.0),
                     LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_LLMPERF, LLMLAT_E2E, 1.0),
                     LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 1000 * MS), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_lacks(r, 0), LLMLAT_ESTATE);
    /* a request with events takes no known value */
    llmlat_request *e = chunked(0);
    assert_int_equal(llmlat_request_reset(e), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(e, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(e, 5, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_known(e, LLMLAT_CONV_LLMPERF, LLMLAT_TTFT, 0.1),
                     LLMLAT_ESTATE);
    /* reset forgets everything */
    assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    assert_int_equal(llmlat_request_get_lacks(r, &lacks), LLMLAT_OK);
    assert_int_equal(lacks, 0);
    llmlat_request_free(r);
    llmlat_request_free(e);
}

/* Values known under LLMPerf: used where they mean the same. */
static void known_values(void **state)
{
    (void)state;
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_LLMPERF, LLMLAT_TTFT, 0.2),
                     LLMLAT_OK);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_LLMPERF, LLMLAT_E2E, 1.2),
                     LLMLAT_OK);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_LLMPERF, LLMLAT_TOOL_ITL, 0.01),
                     LLMLAT_OK);
    assert_int_equal(llmlat_request_set_output_tokens(r, 101), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 1200 * MS), LLMLAT_OK);
    double v;
    /* LLMPerf itself: all of it */
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_LLMPERF, LLMLAT_TTFT, &v), LLMLAT_OK);
    assert_true(v == 0.2);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_LLMPERF, LLMLAT_TOOL_ITL, &v), LLMLAT_OK);
    assert_true(v == 0.01);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_LLMPERF, LLMLAT_TPOT, &v), LLMLAT_OK);
    assert_true(v == 1.0 / 100.0);
    /* SGLang: the same TTFT anchor and E2E end */
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_SGLANG, LLMLAT_E2E, &v), LLMLAT_OK);
    assert_true(v == 1.2);
    /* default: its TTFT, not its E2E (to the last token, not the end) */
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT, &v), LLMLAT_OK);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, LLMLAT_E2E, &v),
                     LLMLAT_EUNDEFINED);
    /* vLLM anchors TTFT on any chunk */
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_VLLM, LLMLAT_TTFT, &v), LLMLAT_EUNDEFINED);
    /* no chunk: no gap of any kind */
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_LLMPERF, LLMLAT_ICL, &v),
                     LLMLAT_EUNDEFINED);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_LLMPERF, LLMLAT_ITL, &v),
                     LLMLAT_EUNDEFINED);

    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_LLMPERF, LLMLAT_MODE_EXACT);
    llmlat_agg *d = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(d, r), LLMLAT_OK);
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_TOOL_ITL, LLMLAT_STAT_MEAN, &v), LLMLAT_OK);
    assert_true(v == 0.01);
    assert_null(reason(a, LLMLAT_KIND_METRIC, LLMLAT_E2E));
    assert_string_equal(reason(a, LLMLAT_KIND_METRIC, LLMLAT_ICL),
                        "the source has per-request values only, no chunk times");
    assert_null(reason(d, LLMLAT_KIND_METRIC, LLMLAT_TTFT));
    assert_string_equal(reason(d, LLMLAT_KIND_METRIC, LLMLAT_E2E),
                        "the source measured E2E to another end than this convention does");
    assert_int_equal(llmlat_agg_stat(d, LLMLAT_E2E, LLMLAT_STAT_MEAN, &v), LLMLAT_EUNDEFINED);
    assert_int_equal(llmlat_agg_stat(d, LLMLAT_TTFT, LLMLAT_STAT_MEAN, &v), LLMLAT_OK);
    assert_true(v == 0.2);
    /* a values-only request's end counts for the derived duration */
    assert_int_equal(llmlat_agg_rate(a, LLMLAT_RATE_REQUESTS, &v), LLMLAT_OK);
    assert_true(v == 1.0 / 1.2);
    llmlat_agg_free(a);
    llmlat_agg_free(d);
    llmlat_request_free(r);
}

/* An AIPerf record without inter_chunk_latency (AIPerf refuses it for a
 * record with a gap that is not positive) is known by its values: under
 * AIPerf it adds no ICL, and the other records' gaps are AIPerf's pooled
 * ICL, whatever record came first; under the others its gaps are
 * unknown. ITL max needs every request's gaps. */
static void aiperf_icl_per_record(void **state)
{
    (void)state;
    llmlat_request *values = llmlat_request_new();
    assert_int_equal(llmlat_request_start(values, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_known(values, LLMLAT_CONV_AIPERF, LLMLAT_TTFT, 0.1),
                     LLMLAT_OK);
    assert_int_equal(llmlat_request_set_known(values, LLMLAT_CONV_AIPERF, LLMLAT_E2E, 0.3),
                     LLMLAT_OK);
    assert_int_equal(llmlat_request_set_output_tokens(values, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(values, 300 * MS), LLMLAT_OK);
    llmlat_request *chunks = chunked(LLMLAT_LACKS_CHUNK_TOKENS | LLMLAT_LACKS_END);
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_AIPERF, mode);
        llmlat_agg *v = llmlat_agg_new(LLMLAT_CONV_VLLM, mode);
        assert_int_equal(llmlat_agg_add(a, values), LLMLAT_OK); /* first */
        assert_int_equal(llmlat_agg_add(a, chunks), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(v, values), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(v, chunks), LLMLAT_OK);
        double x;
        assert_null(reason(a, LLMLAT_KIND_METRIC, LLMLAT_ICL));
        assert_int_equal(llmlat_agg_stat(a, LLMLAT_ICL, LLMLAT_STAT_COUNT, &x), LLMLAT_OK);
        assert_true(x == 2);
        assert_int_equal(llmlat_agg_stat(a, LLMLAT_ICL, LLMLAT_STAT_MAX, &x), LLMLAT_OK);
        assert_true(fabs(x - 0.020) <= 0.020 * 0.011); /* bounded: within alpha */
        assert_string_equal(reason(a, LLMLAT_KIND_METRIC, LLMLAT_ITL_MAX),
                            "the source has per-request values only, no chunk times");
        assert_string_equal(reason(v, LLMLAT_KIND_METRIC, LLMLAT_ICL),
                            "the source has per-request values only, no chunk times");
        llmlat_agg_free(a);
        llmlat_agg_free(v);
    }
    llmlat_request_free(values);
    llmlat_request_free(chunks);
}

/* GuideLLM's files: the first and last chunk times, not the gaps. */
static void gaps_unknown(void **state)
{
    (void)state;
    llmlat_request *r = chunked(LLMLAT_LACKS_CHUNK_TOKENS | LLMLAT_LACKS_GAPS);
    static const char WHY[] =
        "the source has the first and last chunk times only, not the gaps between them";
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= LLMLAT_CONV_INFERENCE_PERF; conv++) {
        llmlat_agg *a = llmlat_agg_new(conv, LLMLAT_MODE_EXACT);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        assert_string_equal(reason(a, LLMLAT_KIND_METRIC, LLMLAT_ICL), WHY);
        assert_string_equal(reason(a, LLMLAT_KIND_METRIC, LLMLAT_ITL_MAX), WHY);
        assert_string_equal(reason(a, LLMLAT_KIND_RATE, LLMLAT_RATE_PEAK_OUTPUT_TOKENS), WHY);
        assert_null(reason(a, LLMLAT_KIND_METRIC, LLMLAT_TTFT));
        assert_null(reason(a, LLMLAT_KIND_METRIC, LLMLAT_TPOT));
        double v;
        assert_int_equal(llmlat_request_value(r, conv, LLMLAT_ICL, &v), LLMLAT_EUNDEFINED);
        llmlat_agg_free(a);
    }
    llmlat_request_free(r);
}

static void reasons_by_convention(void **state)
{
    (void)state;
    llmlat_request *r = chunked(LLMLAT_LACKS_CHUNK_TOKENS | LLMLAT_LACKS_END);
    /* vLLM counts chunks: everything; SGLang ends E2E at the end of the
     * stream: not its E2E, TPOT or concurrency */
    llmlat_agg *v = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    llmlat_agg *s = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_EXACT);
    llmlat_agg *d = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_add(v, r), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(s, r), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(d, r), LLMLAT_OK);
    assert_null(reason(v, LLMLAT_KIND_METRIC, LLMLAT_TOOL_ITL));
    assert_null(reason(v, LLMLAT_KIND_RATE, LLMLAT_RATE_PEAK_OUTPUT_TOKENS));
    assert_string_equal(reason(v, LLMLAT_KIND_METRIC, LLMLAT_ITL),
                        "the source has no token counts per chunk, only totals");
    const char *end = "the source has no end-of-stream times, where this convention's E2E ends";
    assert_string_equal(reason(s, LLMLAT_KIND_METRIC, LLMLAT_E2E), end);
    assert_string_equal(reason(s, LLMLAT_KIND_METRIC, LLMLAT_TPOT), end);
    assert_string_equal(reason(s, LLMLAT_KIND_COUNTER, LLMLAT_COUNT_PEAK_CONCURRENCY), end);
    assert_null(reason(s, LLMLAT_KIND_METRIC, LLMLAT_TOOL_ITL)); /* its ICL */
    assert_string_equal(reason(d, LLMLAT_KIND_RATE, LLMLAT_RATE_PEAK_OUTPUT_TOKENS),
                        "the source has no token counts per chunk, only totals");
    assert_null(reason(d, LLMLAT_KIND_METRIC, LLMLAT_E2E));
    double x;
    uint64_t u = 5;
    assert_int_equal(llmlat_agg_stat(s, LLMLAT_E2E, LLMLAT_STAT_MEAN, &x), LLMLAT_EUNDEFINED);
    assert_true(x != x); /* NaN, not SGLang's 0.0 placeholder */
    assert_int_equal(llmlat_agg_counter(s, LLMLAT_COUNT_PEAK_CONCURRENCY, &u), LLMLAT_EUNDEFINED);
    assert_int_equal(u, 0);
    assert_int_equal(llmlat_agg_stat(v, LLMLAT_ICL, LLMLAT_STAT_MEAN, &x), LLMLAT_OK);
    assert_true(x == 0.015);
    /* an SLO on E2E takes goodput away under SGLang */
    assert_null(reason(s, LLMLAT_KIND_RATE, LLMLAT_RATE_GOODPUT));
    assert_int_equal(llmlat_agg_set_param(s, LLMLAT_PARAM_SLO_E2E, 1.0), LLMLAT_OK);
    assert_string_equal(reason(s, LLMLAT_KIND_RATE, LLMLAT_RATE_GOODPUT), end);
    assert_int_equal(llmlat_agg_unavailable(s, 9, 1, &end), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_unavailable(s, LLMLAT_KIND_RATE, 99, &end), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_unavailable(NULL, LLMLAT_KIND_RATE, 1, &end), LLMLAT_EINVAL);
    llmlat_agg_free(v);
    llmlat_agg_free(s);
    llmlat_agg_free(d);
    llmlat_request_free(r);
}

/* No start times: no derived duration, no peaks; a host duration gives
 * the rates back. */
static void start_times(void **state)
{
    (void)state;
    llmlat_request *r = chunked(LLMLAT_LACKS_START_TIMES);
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    double v;
    assert_int_equal(llmlat_agg_rate(a, LLMLAT_RATE_REQUESTS, &v), LLMLAT_EUNDEFINED);
    assert_string_equal(reason(a, LLMLAT_KIND_RATE, LLMLAT_RATE_REQUESTS),
                        "the source has no start times on one clock, and no benchmark "
                        "duration was given");
    assert_string_equal(reason(a, LLMLAT_KIND_COUNTER, LLMLAT_COUNT_PEAK_CONCURRENCY),
                        "the source has no start times on one clock");
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, 2.0), LLMLAT_OK);
    assert_int_equal(llmlat_agg_rate(a, LLMLAT_RATE_REQUESTS, &v), LLMLAT_OK);
    assert_true(v == 0.5);
    assert_string_equal(reason(a, LLMLAT_KIND_RATE, LLMLAT_RATE_PEAK_OUTPUT_TOKENS),
                        "the source has no start times on one clock");
    /* the report says so */
    char buf[16384];
    size_t len;
    assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, buf, sizeof buf - 1, &len),
                     LLMLAT_OK);
    buf[len] = '\0';
    assert_non_null(strstr(buf, "\"unavailable\": {"));
    assert_non_null(strstr(buf, "\"max_concurrent_requests\": \"the source has no start times "
                                "on one clock\""));
    assert_null(strstr(buf, "\"request_throughput\": \"the"));
    assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_TEXT, buf, sizeof buf - 1, &len),
                     LLMLAT_OK);
    buf[len] = '\0';
    assert_non_null(strstr(buf, "Peak concurrent requests:                not available: the "
                                "source has no start times on one clock\n"));
    llmlat_agg_free(a);
    llmlat_request_free(r);
}

/* Failures' lacks count for the duration only; merging and the byte
 * format keep what is lacking. */
static void merged_and_serialized(void **state)
{
    (void)state;
    llmlat_request *full = chunked(0), *partial = chunked(LLMLAT_LACKS_CHUNK_TOKENS);
    llmlat_request *failed = llmlat_request_new();
    assert_int_equal(llmlat_request_start(failed, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_lacks(failed, LLMLAT_LACKS_OUTPUT_TOKENS), LLMLAT_OK);
    assert_int_equal(llmlat_request_fail(failed, 5), LLMLAT_OK);
    for (int32_t mode = 0; mode <= 1; mode++) {
        llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
        llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
        assert_int_equal(llmlat_agg_add(a, full), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(a, failed), LLMLAT_OK);
        assert_null(reason(a, LLMLAT_KIND_METRIC, LLMLAT_OUTPUT_TOKENS));
        assert_int_equal(llmlat_agg_add(b, partial), LLMLAT_OK);
        assert_int_equal(llmlat_agg_merge(a, b), LLMLAT_OK);
        assert_non_null(reason(a, LLMLAT_KIND_METRIC, LLMLAT_ITL));
        size_t len;
        assert_int_equal(llmlat_agg_serialize(a, NULL, 0, &len), LLMLAT_ENOSPC);
        char *bytes = malloc(len);
        assert_int_equal(llmlat_agg_serialize(a, bytes, len, &len), LLMLAT_OK);
        int32_t st;
        llmlat_agg *c = llmlat_agg_deserialize(bytes, len, &st);
        assert_non_null(c);
        assert_non_null(reason(c, LLMLAT_KIND_METRIC, LLMLAT_ITL));
        assert_null(reason(c, LLMLAT_KIND_METRIC, LLMLAT_ICL));
        /* reset forgets what was lacking */
        assert_int_equal(llmlat_agg_reset(c), LLMLAT_OK);
        assert_null(reason(c, LLMLAT_KIND_METRIC, LLMLAT_ITL));
        llmlat_agg_free(c);
        free(bytes);
        llmlat_agg_free(a);
        llmlat_agg_free(b);
    }
    llmlat_request_free(full);
    llmlat_request_free(partial);
    llmlat_request_free(failed);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(recorder_rules),
        cmocka_unit_test(known_values),
        cmocka_unit_test(reasons_by_convention),
        cmocka_unit_test(aiperf_icl_per_record),
        cmocka_unit_test(gaps_unknown),
        cmocka_unit_test(start_times),
        cmocka_unit_test(merged_and_serialized),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
