/* Reading an aggregator: statistics, quantiles, rates, goodput, counters,
 * and the duration rules. */
#include "helpers.h"

/* DESIGN's worked example: A = 100 tokens 10 ms apart, B = 2 tokens 50 ms
 * apart. Mean TPOT weighs requests: (10 + 50) / 2 = 30 ms. Mean ITL weighs
 * tokens: (99 * 10 + 1 * 50) / 100 = 10.4 ms. */
static void tpot_versus_itl(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_request *r = make_request(0, NULL, 0, ENDS_NOT, 0);
    for (int64_t i = 0; i < 100; i++)
        assert_int_equal(llmlat_request_event(r, 200 * MS + i * 10 * MS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 1190 * MS), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    llmlat_request_free(r);
    add_request(a, 0, EVS({ 300 * MS, 1 }, { 350 * MS, 1 }), ENDS_FINISHED, 350 * MS, 0);

    assert_close(stat_of(a, LLMLAT_TPOT, LLMLAT_STAT_MEAN), 0.030, TOL_S);
    assert_close(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_MEAN), 0.0104, TOL_S);
    assert_close(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_COUNT), 100, 0);
    assert_close(stat_of(a, LLMLAT_TPOT, LLMLAT_STAT_COUNT), 2, 0);
    /* numpy.percentile over 99 x 10 ms and 1 x 50 ms at 99: index 98.01 */
    assert_close(quantile_of(a, LLMLAT_ITL, 0.99), 0.010 + 0.040 * 0.01, TOL_S);
    assert_close(quantile_of(a, LLMLAT_ITL, 0.0), 0.010, 0);
    assert_close(quantile_of(a, LLMLAT_ITL, 1.0), 0.050, 0);
    assert_close(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_MIN), 0.010, 0);
    assert_close(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_MAX), 0.050, 0);
    /* population std of TPOT {10, 50} ms */
    assert_close(stat_of(a, LLMLAT_TPOT, LLMLAT_STAT_STD), 0.020, TOL_S);
    llmlat_agg_free(a);
}

/* LLMLAT_STAT_SUM: the exact sum in both modes, 0 for an empty set (under
 * every convention), weighted for ITL, and never decreasing as requests
 * are added, even where mean x count would drop (0.1 s steps). */
static void sums(void **state)
{
    (void)state;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
        double v = -1;
        assert_int_equal(llmlat_agg_stat(a, LLMLAT_TTFT, LLMLAT_STAT_SUM, &v), LLMLAT_OK);
        assert_true(v == 0.0);
        /* TTFT 100 ms; 3 tokens in the second chunk 30 ms later: ITL 10 ms x 3 */
        add_request(a, 0, EVS({ 100 * MS, 1 }, { 130 * MS, 3 }), ENDS_FINISHED, 130 * MS, 7);
        assert_close(stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_SUM), 0.1, 1e-15);
        assert_close(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_SUM), 0.03, 1e-15);
        assert_close(stat_of(a, LLMLAT_ICL, LLMLAT_STAT_SUM), 0.03, 1e-15);
        assert_close(stat_of(a, LLMLAT_OUTPUT_TOKENS, LLMLAT_STAT_SUM), 4, 0);
        assert_close(stat_of(a, LLMLAT_INPUT_TOKENS, LLMLAT_STAT_SUM), 7, 0);
        double prev = stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_SUM);
        for (int i = 1; i <= 300; i++) {
            add_request(a, 0, EVS({ 100 * MS + i * 7919, 1 }), ENDS_FINISHED, 200 * MS, 0);
            double sum = stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_SUM);
            assert_true(sum >= prev);
            prev = sum;
        }
        /* 301 x 0.1 s plus 7919 ns x (1 + ... + 300) */
        assert_close(prev, 30.1 + 7919e-9 * 300 * 301 / 2, 1e-12);
        llmlat_agg_free(a);
    }
    llmlat_agg *vllm = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    assert_close(stat_of(vllm, LLMLAT_TPOT, LLMLAT_STAT_SUM), 0.0, 0);
    llmlat_agg_free(vllm);
}

static void bad_arguments(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    add_request(a, 0, EVS({ 10 * MS, 1 }, { 20 * MS, 1 }), ENDS_FINISHED, 20 * MS, 0);
    double v;
    uint64_t u;
    assert_int_equal(llmlat_agg_stat(NULL, LLMLAT_TTFT, LLMLAT_STAT_MEAN, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_TTFT, LLMLAT_STAT_MEAN, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_stat(a, 0, LLMLAT_STAT_MEAN, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_stat(a, 15, LLMLAT_STAT_MEAN, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_TTFT, 0, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_TTFT, 8, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_quantile(NULL, LLMLAT_TTFT, 0.5, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_quantile(a, LLMLAT_TTFT, 0.5, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_quantile(a, 42, 0.5, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_quantile(a, LLMLAT_TTFT, -0.01, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_quantile(a, LLMLAT_TTFT, 1.01, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_quantile(a, LLMLAT_TTFT, NAN, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_quantile(a, LLMLAT_TTFT, INFINITY, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_rate(NULL, LLMLAT_RATE_REQUESTS, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_rate(a, LLMLAT_RATE_REQUESTS, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_rate(a, 0, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_rate(a, 6, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_counter(NULL, LLMLAT_COUNT_COMPLETED, &u), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_counter(a, 0, &u), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_counter(a, 9, &u), LLMLAT_EINVAL);
    llmlat_agg_free(a);
}

static void goodput_and_slos(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    /* TTFT 100, E2E 300, TPOT 100 */
    add_request(a, 0, EVS({ 100 * MS, 1 }, { 200 * MS, 1 }, { 300 * MS, 1 }), ENDS_FINISHED,
                300 * MS, 0);
    /* TTFT 50, E2E 50, one token: no TPOT (meets a TPOT SLO) */
    add_request(a, 0, EVS({ 50 * MS, 1 }), ENDS_FINISHED, 1 * SEC, 0);
    /* no token: no TTFT (fails a TTFT SLO) */
    add_request(a, 0, NULL, 0, ENDS_FINISHED, 10 * MS, 0);
    double v;
    uint64_t u;
    /* no SLO, no goodput */
    assert_int_equal(llmlat_agg_rate(a, LLMLAT_RATE_GOODPUT, &v), LLMLAT_EUNDEFINED);
    assert_true(isnan(v));
    assert_int_equal(llmlat_agg_counter(a, LLMLAT_COUNT_GOOD, &u), LLMLAT_EUNDEFINED);
    /* SLOs may be set after the data (exact mode keeps what they need) */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TPOT, 0.050), LLMLAT_OK);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_GOOD), 2); /* the 1-token and empty ones */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.100), LLMLAT_OK);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_GOOD), 1); /* value <= threshold: 50 ms */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TPOT, 0.100), LLMLAT_OK);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_GOOD), 2); /* TPOT 100 <= 100 */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_E2E, 0.299), LLMLAT_OK);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_GOOD), 1);
    /* D = first start 0 to last event 300 ms */
    assert_close(rate_of(a, LLMLAT_RATE_GOODPUT), 1 / 0.3, 1e-9);
    /* 0 clears an SLO */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_E2E, 0), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TPOT, 0), LLMLAT_OK);
    assert_int_equal(llmlat_agg_counter(a, LLMLAT_COUNT_GOOD, &u), LLMLAT_EUNDEFINED);
    llmlat_agg_free(a);
}

static void duration_rules(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    double v;
    /* everything at one instant: D = 0, rates undefined */
    add_request(a, 5 * SEC, EVS({ 5 * SEC, 1 }), ENDS_FINISHED, 5 * SEC, 0);
    assert_int_equal(llmlat_agg_rate(a, LLMLAT_RATE_REQUESTS, &v), LLMLAT_EUNDEFINED);
    /* a failed request's events count toward the span; a request without
     * events counts its start */
    add_request(a, 4 * SEC, NULL, 0, ENDS_FAILED, 20 * SEC, 0);
    add_request(a, 6 * SEC, EVS({ 7 * SEC, 0 }), ENDS_FAILED, 8 * SEC, 0);
    assert_close(rate_of(a, LLMLAT_RATE_REQUESTS), 1 / 3.0, 1e-12); /* 4 s .. 7 s */
    /* the host's wall time wins; 0 returns to the derived span */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, 10), LLMLAT_OK);
    assert_close(rate_of(a, LLMLAT_RATE_REQUESTS), 0.1, 1e-12);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, 0), LLMLAT_OK);
    assert_close(rate_of(a, LLMLAT_RATE_REQUESTS), 1 / 3.0, 1e-12);
    llmlat_agg_free(a);

    /* negative epochs and a span wider than int64 */
    a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    add_request(a, INT64_MIN, EVS({ INT64_MIN + SEC, 1 }), ENDS_FINISHED, INT64_MIN + SEC, 3);
    add_request(a, INT64_MAX - SEC, EVS({ INT64_MAX, 1 }), ENDS_FINISHED, INT64_MAX, 4);
    double span = 18446744073.709551615; /* (2^64 - 1) ns */
    assert_close(rate_of(a, LLMLAT_RATE_OUTPUT_TOKENS), 2 / span, 1e-20);
    assert_close(rate_of(a, LLMLAT_RATE_TOTAL_TOKENS), 9 / span, 1e-20);
    assert_close(stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_MEAN), 1.0, 0);
    llmlat_agg_free(a);
}

static void peaks(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    /* buckets from the earliest successful start (1 s); failures ignored */
    add_request(a, 0, EVS({ 100 * MS, 50 }), ENDS_FAILED, 200 * MS, 0);
    add_request(a, 1 * SEC, EVS({ 1500 * MS, 3 }, { 1999 * MS, 4 }, { 2 * SEC, 5 }),
                ENDS_FINISHED, 2 * SEC, 0);
    add_request(a, 1200 * MS, EVS({ 2100 * MS, 2 }, { 2999 * MS, 1 }), ENDS_FINISHED,
                3 * SEC, 0);
    /* [1 s, 2 s): 3 + 4 = 7; [2 s, 3 s): 5 + 2 + 1 = 8 */
    assert_close(rate_of(a, LLMLAT_RATE_PEAK_OUTPUT_TOKENS), 8, 0);
    /* [1, 2) s and [1.2, 2.999) s overlap */
    assert_int_equal(counter_of(a, LLMLAT_COUNT_PEAK_CONCURRENCY), 2);
    llmlat_agg_free(a);
}

static void memory_is_reported(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    uint64_t empty = counter_of(a, LLMLAT_COUNT_MEMORY_BYTES);
    assert_true(empty > 0);
    llmlat_request *r = make_request(0, NULL, 0, ENDS_NOT, 0);
    for (int64_t i = 0; i < 10000; i++)
        assert_int_equal(llmlat_request_event(r, i * MS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 10 * SEC), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    /* exact mode keeps every gap: at least 8 bytes per ITL and ICL sample */
    assert_true(counter_of(a, LLMLAT_COUNT_MEMORY_BYTES) >= empty + 2 * 8 * 9999);
    llmlat_request_free(r);
    llmlat_agg_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tpot_versus_itl),  cmocka_unit_test(bad_arguments),
        cmocka_unit_test(sums),
        cmocka_unit_test(goodput_and_slos), cmocka_unit_test(duration_rules),
        cmocka_unit_test(peaks),            cmocka_unit_test(memory_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
