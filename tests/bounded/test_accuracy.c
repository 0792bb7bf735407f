/* Bounded mode against exact mode, through the public API, on one million
 * requests per distribution: uniform, lognormal, bimodal, Pareto, constant
 * and zero-heavy. Every percentile from 0 to 100 in steps of 0.1 must be
 * within the guarantee: |bounded - exact| <= alpha * exact, exact being
 * numpy's linear interpolation (what exact mode returns). COUNT, MIN and
 * MAX must be equal, MEAN and STD equal to rounding.
 *
 * Request i starts at i ms, has a one-token event x ns later (TTFT = x)
 * and a k-token event y ns after that (k = 1, 2 or 3): ITL gets k samples
 * of y / k, ICL and ITL_MAX y, TPOT y / k, E2E x + y. */
#include "helpers.h"

#define N 1000000
#define NQ 1001 /* q = 0, 0.001, ..., 1 */

static uint64_t rng_state;

static uint64_t rng(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

static double uniform01(void) /* (0, 1) */
{
    return ((double)(rng() >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void) /* Box-Muller */
{
    return sqrt(-2 * log(uniform01())) * cos(6.283185307179586 * uniform01());
}

typedef int64_t (*draw_fn)(void);

static int64_t draw_uniform(void) /* 1 ms .. 1 s */
{
    return MS + (int64_t)(uniform01() * 999 * MS);
}

static int64_t draw_lognormal(void) /* median 50 ms, sigma 1 */
{
    return (int64_t)(50 * MS * exp(normal()));
}

static int64_t draw_bimodal(void) /* cache hits around 20 ms, misses around 2 s */
{
    double median = rng() % 2 ? 20e6 : 2e9;
    return (int64_t)(median * exp(0.25 * normal()));
}

static int64_t draw_pareto(void) /* x_m = 1 ms, shape 1.2: a heavy tail */
{
    return (int64_t)(1e6 / pow(uniform01(), 1 / 1.2));
}

static int64_t draw_constant(void)
{
    return 12345678;
}

static int64_t draw_zero_heavy(void) /* 70% zeros (batched chunks), else ~10 ms */
{
    return rng() % 10 < 7 ? 0 : (int64_t)(10 * MS * exp(0.5 * normal()));
}

static const struct {
    const char *name;
    draw_fn draw;
} DISTS[] = {
    { "uniform", draw_uniform },   { "lognormal", draw_lognormal },
    { "bimodal", draw_bimodal },   { "pareto", draw_pareto },
    { "constant", draw_constant }, { "zero-heavy", draw_zero_heavy },
};

static void fill_both(llmlat_agg *exact, llmlat_agg *bounded, draw_fn draw)
{
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    for (int64_t i = 0; i < N; i++) {
        int64_t start = i * MS, x = draw(), y = draw();
        uint32_t k = 1 + (uint32_t)(i % 3);
        assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
        assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
        assert_int_equal(llmlat_request_event(r, start + x, 1), LLMLAT_OK);
        assert_int_equal(llmlat_request_event(r, start + x + y, k), LLMLAT_OK);
        assert_int_equal(llmlat_request_set_input_tokens(r, rng() % 4096), LLMLAT_OK);
        assert_int_equal(llmlat_request_finish(r, start + x + y), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(exact, r), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(bounded, r), LLMLAT_OK);
    }
    llmlat_request_free(r);
}

/* n quantiles in batches of at most 32 (what llmlat_agg_quantiles takes). */
static void quantiles(const llmlat_agg *a, int32_t metric, const double *q, double *out)
{
    for (size_t i = 0; i < NQ; i += 32) {
        size_t n = NQ - i < 32 ? NQ - i : 32;
        assert_int_equal(llmlat_agg_quantiles(a, metric, q + i, n, out + i), LLMLAT_OK);
    }
}

static void compare(const llmlat_agg *exact, const llmlat_agg *bounded, int32_t metric,
                    const char *dist)
{
    static double q[NQ], want[NQ], got[NQ];
    for (int i = 0; i < NQ; i++)
        q[i] = i / 1000.0;
    quantiles(exact, metric, q, want);
    quantiles(bounded, metric, q, got);
    for (int i = 0; i < NQ; i++)
        if (!(fabs(got[i] - want[i]) <= 0.01 * want[i]))
            fail_msg("%s %s p%.1f: bounded %.17g, exact %.17g", dist,
                     llmlat_metric_name(metric), q[i] * 100, got[i], want[i]);
    /* count, min, max: equal; mean, std: to rounding */
    for (int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MEDIAN; s++) {
        double e = stat_of(exact, metric, s), b = stat_of(bounded, metric, s);
        double tol = s == LLMLAT_STAT_MEDIAN ? 0.01 * e
                     : s == LLMLAT_STAT_MEAN || s == LLMLAT_STAT_STD ? 1e-12 * e
                                                                      : 0;
        if (!(fabs(b - e) <= tol))
            fail_msg("%s %s stat %d: bounded %.17g, exact %.17g", dist,
                     llmlat_metric_name(metric), s, b, e);
    }
}

static void every_percentile_within_alpha(void **state)
{
    (void)state;
    for (size_t d = 0; d < sizeof DISTS / sizeof DISTS[0]; d++) {
        rng_state = 0x9e3779b97f4a7c15u + d;
        llmlat_agg *e = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
        llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
        assert_non_null(e);
        assert_non_null(b);
        fill_both(e, b, DISTS[d].draw);
        /* integer ns (TTFT, ICL), fractional and weighted (ITL, TPOT) */
        static const int32_t metrics[] = { LLMLAT_TTFT, LLMLAT_ITL, LLMLAT_ICL, LLMLAT_TPOT };
        for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++)
            compare(e, b, metrics[m], DISTS[d].name);
        llmlat_agg_free(e);
        llmlat_agg_free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_percentile_within_alpha),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
