/* GuideLLM's inverse-CDF quantiles and mode over an exact store
 * (lib/exact/inverse_cdf.c), against numpy's cumsum / searchsorted /
 * argmax worked by hand. */
#include "helpers.h"

#include "exact/exact_store.h"

static const llmlat_alloc *heap(void)
{
    static llmlat_alloc al;
    al = alloc_current();
    return &al;
}

/* A store of n values v[i] with weights w[i] (w NULL: unweighted). */
static exact_store store_of(const double *v, const uint32_t *w, size_t n)
{
    exact_store s;
    exact_init(&s, w != NULL);
    assert_int_equal(exact_reserve(&s, heap(), n), LLMLAT_OK);
    for (size_t i = 0; i < n; i++)
        exact_push(&s, v[i], w ? w[i] : 1);
    return s;
}

/* Ten values of probability 0.1: numpy.cumsum reaches 0.7999999999999999
 * after eight and 0.8999999999999999 after nine (and never 1), so
 * searchsorted puts q = 0.8 on the 9th value and 0.9 on the 10th, where
 * exact sums would take the 8th and 9th; q = 1 is past every sum: the
 * largest. */
static void float_cumsum_boundaries(void **state)
{
    (void)state;
    double v[10];
    for (int i = 0; i < 10; i++)
        v[i] = (double)(10 - i); /* in any order */
    exact_store s = store_of(v, NULL, 10);
    static const double q[] = { 0.0, 0.1, 0.25, 0.3, 0.5, 0.8, 0.9, 1.0 };
    static const double want[] = { 1, 1, 3, 3, 5, 9, 10, 10 };
    double out[8], mode;
    assert_int_equal(exact_inverse_cdf(&s, heap(), q, 8, out, &mode), LLMLAT_OK);
    for (int i = 0; i < 8; i++)
        assert_close(out[i], want[i], 0);
    assert_close(mode, 1, 0); /* all equally likely: argmax takes the first */
    exact_free(&s, heap());
}

/* Equal values merge; the mode is the heaviest value, the smallest of
 * ties; q is reached by the cumulative weight, not interpolated. */
static void weights_and_mode(void **state)
{
    (void)state;
    static const double v[] = { 0.05, 0.02, 0.05, 0.01, 0.02 };
    static const uint32_t w[] = { 3, 1, 1, 2, 3 };
    /* merged: 0.01 x2, 0.02 x4, 0.05 x4 (total 10): cumulative 0.2, 0.6, 1 */
    exact_store s = store_of(v, w, 5);
    static const double q[] = { 0.2, 0.21, 0.6, 0.61, 0.999 };
    static const double want[] = { 0.01, 0.02, 0.02, 0.05, 0.05 };
    double out[5], mode;
    assert_int_equal(exact_inverse_cdf(&s, heap(), q, 5, out, &mode), LLMLAT_OK);
    for (int i = 0; i < 5; i++)
        assert_close(out[i], want[i], 0);
    assert_close(mode, 0.02, 0); /* 0.02 and 0.05 weigh 4: the first */
    /* quantiles asked in any order */
    static const double q2[] = { 0.999, 0.2 };
    assert_int_equal(exact_inverse_cdf(&s, heap(), q2, 2, out, NULL), LLMLAT_OK);
    assert_close(out[0], 0.05, 0);
    assert_close(out[1], 0.01, 0);
    exact_free(&s, heap());
}

/* Three values of probability 1/3 sum to 1 exactly here; a q the sums
 * never reach would be the largest value (numpy would index past the end). */
static void thirds(void **state)
{
    (void)state;
    static const double v[] = { 7, 8, 9 };
    exact_store s = store_of(v, NULL, 3);
    static const double q[] = { 1.0 / 3, 0.34, 2.0 / 3, 1.0 };
    double out[4];
    assert_int_equal(exact_inverse_cdf(&s, heap(), q, 4, out, NULL), LLMLAT_OK);
    assert_close(out[0], 7, 0);
    assert_close(out[1], 8, 0);
    assert_close(out[2], 8, 0); /* 1/3 + 1/3 = 0.6666666666666666 = 2.0 / 3 */
    assert_close(out[3], 9, 0);
    exact_free(&s, heap());
}

/* Through the public API: GuideLLM's quantiles and median are its inverse
 * CDF, the other conventions' numpy's interpolation. TTFT 100 .. 400 ms. */
static void public_quantiles(void **state)
{
    (void)state;
    llmlat_agg *g = llmlat_agg_new(LLMLAT_CONV_GUIDELLM, LLMLAT_MODE_EXACT);
    llmlat_agg *d = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    for (int i = 1; i <= 4; i++) {
        add_request(g, 0, EVS({ i * 100 * MS, 1 }), ENDS_FINISHED, i * 100 * MS, 0);
        add_request(d, 0, EVS({ i * 100 * MS, 1 }), ENDS_FINISHED, i * 100 * MS, 0);
    }
    assert_close(stat_of(g, LLMLAT_TTFT, LLMLAT_STAT_MEDIAN), 0.2, 0);
    assert_close(stat_of(d, LLMLAT_TTFT, LLMLAT_STAT_MEDIAN), 0.25, TOL_S);
    assert_close(quantile_of(g, LLMLAT_TTFT, 0.9), 0.4, 0);
    assert_close(quantile_of(d, LLMLAT_TTFT, 0.9), 0.37, TOL_S);
    llmlat_agg_free(g);
    llmlat_agg_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(float_cumsum_boundaries),
        cmocka_unit_test(weights_and_mode),
        cmocka_unit_test(thirds),
        cmocka_unit_test(public_quantiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
