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
    assert_int_equal(llmlat_param_bounds(7, &lo, &hi), LLMLAT_EINVAL);
    assert_int_equal(llmlat_param_bounds(LLMLAT_PARAM_DURATION, NULL, &hi), LLMLAT_EINVAL);
    assert_int_equal(llmlat_param_bounds(LLMLAT_PARAM_DURATION, &lo, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_param(NULL, LLMLAT_PARAM_DURATION, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_param(a, 0, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_get_param(a, 7, &v), LLMLAT_EINVAL);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bounds_and_defaults),
        cmocka_unit_test(report_quantiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
