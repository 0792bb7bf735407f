/* Numbered parameters with queryable bounds, and report quantiles. */
#include "helpers.h"

static void bounds_and_defaults(void **state)
{
    (void)state;
    static const struct {
        int32_t param;
        double def;
    } params[] = {
        { LLMLAT_PARAM_RELATIVE_ERROR, 0.01 }, { LLMLAT_PARAM_DURATION, 0 },
        { LLMLAT_PARAM_SLO_TTFT, 0 },          { LLMLAT_PARAM_SLO_TPOT, 0 },
        { LLMLAT_PARAM_SLO_E2E, 0 },          { LLMLAT_PARAM_MAX_DISPATCH_DELAY, 0.001 },
    };
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    for (size_t i = 0; i < sizeof params / sizeof params[0]; i++) {
        int32_t p = params[i].param;
        double lo, hi, v;
        assert_int_equal(llmlat_param_bounds(p, &lo, &hi), LLMLAT_OK);
        assert_true(lo < hi);
        assert_int_equal(llmlat_agg_get_param(a, p, &v), LLMLAT_OK);
        assert_true(v == params[i].def);
        assert_true(v >= lo && v <= hi);
        /* both ends are accepted, beyond them nothing is */
        assert_int_equal(llmlat_agg_set_param(a, p, lo), LLMLAT_OK);
        assert_int_equal(llmlat_agg_set_param(a, p, hi), LLMLAT_OK);
        assert_int_equal(llmlat_agg_set_param(a, p, hi * 1.5 + 1), LLMLAT_EINVAL);
        assert_int_equal(llmlat_agg_set_param(a, p, lo - 1), LLMLAT_EINVAL);
        assert_int_equal(llmlat_agg_set_param(a, p, NAN), LLMLAT_EINVAL);
        assert_int_equal(llmlat_agg_set_param(a, p, INFINITY), LLMLAT_EINVAL);
        assert_int_equal(llmlat_agg_set_param(a, p, -INFINITY), LLMLAT_EINVAL);
        /* a rejected value leaves the old one */
        assert_int_equal(llmlat_agg_get_param(a, p, &v), LLMLAT_OK);
        assert_true(v == hi);
    }
    double lo, hi, v;
    assert_int_equal(llmlat_param_bounds(0, &lo, &hi), LLMLAT_EINVAL);
    assert_int_equal(llmlat_param_bounds(8, &lo, &hi), LLMLAT_EINVAL);
    assert_int_equal(llmlat_param_bounds(LLMLAT_PARAM_DURATION, NULL, &hi), LLMLAT_EINVAL);
    assert_int_equal(llmlat_param_bounds(LLMLAT_PARAM_DURATION, &lo, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_param(NULL, LLMLAT_PARAM_DURATION, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_param(a, 0, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_get_param(a, 8, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_get_param(a, LLMLAT_PARAM_DURATION, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_get_param(NULL, LLMLAT_PARAM_DURATION, &v), LLMLAT_EINVAL);
    llmlat_agg_free(a);
}

static void report_quantiles(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    const double ok[] = { 0, 0.25, 0.999, 1 };
    assert_int_equal(llmlat_agg_set_quantiles(a, ok, 4), LLMLAT_OK);
    double many[33];
    for (int i = 0; i < 33; i++)
        many[i] = i / 32.0;
    assert_int_equal(llmlat_agg_set_quantiles(a, many, 32), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_quantiles(a, many, 33), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_quantiles(a, many, 0), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_quantiles(a, NULL, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_quantiles(NULL, ok, 1), LLMLAT_EINVAL);
    const double bad[][2] = { { 0.5, 1.5 }, { -0.1, 0.5 }, { 0.5, NAN } };
    for (int i = 0; i < 3; i++)
        assert_int_equal(llmlat_agg_set_quantiles(a, bad[i], 2), LLMLAT_EINVAL);
    llmlat_agg_free(a);
}

/* N under inference-perf: the client's sum of k by default, the server's
 * usage count with LLMLAT_PARAM_SERVER_OUTPUT_TOKENS (DESIGN section 9). A
 * request of 3 tokens in 2 chunks over 20 ms, usage count 5. */
static double tpot_under(double server, int32_t conv)
{
    llmlat_agg *a = llmlat_agg_new(conv, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, server), LLMLAT_OK);
    llmlat_request *r = make_request(0, EVS({ 10 * MS, 2 }, { 30 * MS, 1 }), ENDS_NOT, 0);
    assert_int_equal(llmlat_request_set_output_tokens(r, 5), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 40 * MS), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    double v;
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_TPOT, LLMLAT_STAT_MEAN, &v), LLMLAT_OK);
    llmlat_request_free(r);
    llmlat_agg_free(a);
    return v;
}

static void server_output_tokens(void **state)
{
    (void)state;
    double lo, hi, v;
    assert_int_equal(llmlat_param_bounds(LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, &lo, &hi), LLMLAT_OK);
    assert_true(lo == 0.0 && hi == 1.0);
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_INFERENCE_PERF, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_get_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, &v), LLMLAT_OK);
    assert_true(v == 0.0);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, 0.5), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_agg_get_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, &v), LLMLAT_OK);
    assert_true(v == 1.0);
    /* an aggregator of the other count does not merge into it */
    llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_INFERENCE_PERF, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_merge(a, b), LLMLAT_EMISMATCH);
    llmlat_agg *c = llmlat_agg_new_like(a);
    assert_int_equal(llmlat_agg_get_param(c, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, &v), LLMLAT_OK);
    assert_true(v == 1.0);
    assert_int_equal(llmlat_agg_merge(a, c), LLMLAT_OK);
    /* fixed once a request was added; the bytes carry it */
    add_request(a, 0, EVS({ MS, 1 }), ENDS_FINISHED, 2 * MS, 0);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, 0), LLMLAT_ESTATE);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, 1), LLMLAT_OK);
    size_t len;
    assert_int_equal(llmlat_agg_serialize(a, NULL, 0, &len), LLMLAT_ENOSPC);
    void *buf = malloc(len);
    assert_int_equal(llmlat_agg_serialize(a, buf, len, &len), LLMLAT_OK);
    int32_t st;
    llmlat_agg *d = llmlat_agg_deserialize(buf, len, &st);
    assert_int_equal(st, LLMLAT_OK);
    assert_int_equal(llmlat_agg_get_param(d, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, &v), LLMLAT_OK);
    assert_true(v == 1.0);
    free(buf);
    llmlat_agg_free(a);
    llmlat_agg_free(b);
    llmlat_agg_free(c);
    llmlat_agg_free(d);
    /* inference-perf: the client's 3 tokens, or the server's 5 */
    assert_close(tpot_under(0, LLMLAT_CONV_INFERENCE_PERF), 0.020 / 2, TOL_S);
    assert_close(tpot_under(1, LLMLAT_CONV_INFERENCE_PERF), 0.020 / 4, TOL_S);
    /* the others take the usage count either way */
    assert_close(tpot_under(0, LLMLAT_CONV_VLLM), 0.020 / 4, TOL_S);
    assert_close(tpot_under(1, LLMLAT_CONV_VLLM), 0.020 / 4, TOL_S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bounds_and_defaults),
        cmocka_unit_test(report_quantiles),
        cmocka_unit_test(server_output_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
