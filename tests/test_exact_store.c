/* Exact mode against numpy, through the public API: quantiles are the same
 * doubles as numpy.percentile (bit for bit), median as numpy.median; mean
 * and std agree to the last few bits. Fixtures: scripts/gen-percentile-fixtures. */
#include <stdio.h>

#include "helpers.h"

#include "data/percentile_fixtures.h"

/* Feeds a fixture: unweighted samples as TTFTs (one token at start + ns),
 * weighted ones as per-token ITL (a 1-token chunk, then g ns later a chunk
 * of k tokens: k samples of (g / 1e9) / k). */
static llmlat_agg *feed(const fixture *f, int32_t conv)
{
    llmlat_agg *a = llmlat_agg_new(conv, LLMLAT_MODE_EXACT);
    assert_non_null(a);
    for (size_t i = 0; i < f->n; i++) {
        if (f->k)
            add_request(a, 0, EVS({ 1 * MS, 1 }, { 1 * MS + f->ns[i], f->k[i] }), ENDS_FINISHED,
                        1 * MS + f->ns[i], 0);
        else
            add_request(a, 0, EVS({ f->ns[i], 1 }), ENDS_FINISHED, f->ns[i], 0);
    }
    return a;
}

static void same_bits(double got, double want, const char *what, const char *set, double p)
{
    if (memcmp(&got, &want, sizeof got) != 0)
        fail_msg("%s %s p=%g: got %a, numpy %a", set, what, p, got, want);
}

static void quantiles_match_numpy(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        const fixture *f = &fixtures[i];
        llmlat_agg *a = feed(f, LLMLAT_CONV_DEFAULT);
        int32_t m = f->k ? LLMLAT_ITL : LLMLAT_TTFT;
        for (int j = 0; j < FIXTURE_NPCT; j++) {
            double p = fixture_percentiles[j];
            /* numpy.percentile divides by 100 too */
            same_bits(quantile_of(a, m, p / 100), f->pct[j], "percentile", f->name, p);
        }
        same_bits(stat_of(a, m, LLMLAT_STAT_MEDIAN), f->median, "median", f->name, 50);
        double mean = stat_of(a, m, LLMLAT_STAT_MEAN);
        assert_close(mean, f->mean, 4e-16 * fabs(f->mean));
        assert_close(stat_of(a, m, LLMLAT_STAT_STD), f->std0, 1e-12 * f->mean);
        llmlat_agg_free(a);
    }
}

/* LLMPerf's statistics are pandas': ddof 1. */
static void std_ddof1_matches_numpy(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
        const fixture *f = &fixtures[i];
        if (f->k)
            continue; /* per-token ITL is no LLMPerf statistic */
        llmlat_agg *a = feed(f, LLMLAT_CONV_LLMPERF);
        double v;
        int32_t st = llmlat_agg_stat(a, LLMLAT_TTFT, LLMLAT_STAT_STD, &v);
        if (f->n == 1) {
            assert_int_equal(st, LLMLAT_EUNDEFINED); /* pandas gives NaN */
            assert_true(isnan(v));
        } else {
            assert_int_equal(st, LLMLAT_OK);
            assert_close(v, f->std1, 1e-12 * f->mean);
        }
        llmlat_agg_free(a);
    }
}

/* Statistics depend on the multiset only: any arrival order gives the same
 * bits (they are computed over the sorted samples). */
static void order_does_not_matter(void **state)
{
    (void)state;
    const fixture *f = &fixtures[sizeof fixtures / sizeof fixtures[0] - 1];
    llmlat_agg *fwd = feed(f, LLMLAT_CONV_DEFAULT);
    fixture rev = *f;
    int64_t *ns = malloc(f->n * sizeof *ns);
    uint32_t *k = malloc(f->n * sizeof *k);
    for (size_t i = 0; i < f->n; i++) {
        ns[i] = f->ns[f->n - 1 - i];
        k[i] = f->k[f->n - 1 - i];
    }
    rev.ns = ns;
    rev.k = k;
    llmlat_agg *back = feed(&rev, LLMLAT_CONV_DEFAULT);
    for (int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MEDIAN; s++) {
        double x = stat_of(fwd, LLMLAT_ITL, s), y = stat_of(back, LLMLAT_ITL, s);
        same_bits(x, y, "stat", f->name, s);
    }
    free(ns);
    free(k);
    llmlat_agg_free(fwd);
    llmlat_agg_free(back);
}

/* The interpolation itself, on hand-made samples: numpy's _lerp. */
static void numpy_linear_by_hand(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    static const int64_t ms[] = { 8, 1, 4, 2 };
    for (int i = 0; i < 4; i++)
        add_request(a, 0, EVS({ ms[i] * MS, 1 }), ENDS_FINISHED, ms[i] * MS, 0);
    assert_true(quantile_of(a, LLMLAT_TTFT, 0) == 0.001);
    assert_true(quantile_of(a, LLMLAT_TTFT, 1) == 0.008);
    assert_close(quantile_of(a, LLMLAT_TTFT, 0.5), 0.003, 1e-18);   /* index 1.5 */
    assert_close(quantile_of(a, LLMLAT_TTFT, 0.25), 0.00175, 1e-18); /* index 0.75 */
    /* several at once: the same values as one by one */
    const double q[] = { 0.99, 0, 0.5, 0.25, 1, 0.5 };
    double got[6];
    assert_int_equal(llmlat_agg_quantiles(a, LLMLAT_TTFT, q, 6, got), LLMLAT_OK);
    for (int i = 0; i < 6; i++)
        assert_true(got[i] == quantile_of(a, LLMLAT_TTFT, q[i]));
    assert_int_equal(llmlat_agg_quantiles(a, LLMLAT_TTFT, q, 0, got), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_quantiles(a, LLMLAT_TTFT, q, 33, got), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_quantiles(a, LLMLAT_TTFT, NULL, 1, got), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_quantiles(a, LLMLAT_TTFT, q, 1, NULL), LLMLAT_EINVAL);
    const double bad[] = { 0.5, NAN };
    assert_int_equal(llmlat_agg_quantiles(a, LLMLAT_TTFT, bad, 2, got), LLMLAT_EINVAL);
    llmlat_agg_free(a);
}

/* The number after `"key": ` in the object of a metric of a JSON report. */
static double json_member(const char *json, const char *metric, const char *key)
{
    char want[64];
    snprintf(want, sizeof want, "\"%s\": {", metric);
    const char *obj = strstr(json, want);
    assert_non_null(obj);
    snprintf(want, sizeof want, "\"%s\": ", key);
    const char *at = strstr(obj, want);
    assert_non_null(at);
    at += strlen(want);
    return strncmp(at, "null", 4) == 0 ? NAN : strtod(at, NULL);
}

static void same_or_both_nan(double got, double want, const char *what, const char *set)
{
    if (!(isnan(got) && isnan(want)))
        same_bits(got, want, what, set, 0);
}

/* A report computes each metric's statistics together (the mean once,
 * the median among the quantiles' ranks): the same bits as the queries. */
static void report_matches_queries(void **state)
{
    (void)state;
    const double q[] = { 0.01, 0.25, 0.5, 0.75, 0.9, 0.999 };
    const char *keys[] = { "p1", "p25", "p50", "p75", "p90", "p99.9" };
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= LLMLAT_CONV_LLMPERF; conv += 4)
        for (size_t i = 0; i < sizeof fixtures / sizeof fixtures[0]; i++) {
            const fixture *f = &fixtures[i];
            llmlat_agg *a = feed(f, conv);
            assert_int_equal(llmlat_agg_set_quantiles(a, q, 6), LLMLAT_OK);
            size_t len = 0;
            assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, NULL, 0, &len),
                             LLMLAT_ENOSPC);
            char *json = malloc(len + 1);
            assert_non_null(json);
            assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, json, len, &len),
                             LLMLAT_OK);
            json[len] = 0;
            const char *m = f->k ? "itl" : "ttft";
            int32_t id = f->k ? LLMLAT_ITL : LLMLAT_TTFT;
            const int32_t stats[] = { LLMLAT_STAT_MEAN, LLMLAT_STAT_STD, LLMLAT_STAT_MEDIAN,
                                      LLMLAT_STAT_MIN, LLMLAT_STAT_MAX };
            const char *names[] = { "mean", "std", "median", "min", "max" };
            for (int s = 0; s < 5; s++) {
                double v;
                int32_t st = llmlat_agg_stat(a, id, stats[s], &v);
                same_or_both_nan(json_member(json, m, names[s]), st ? NAN : v, names[s],
                                 f->name);
            }
            for (int j = 0; j < 6; j++)
                same_or_both_nan(json_member(json, m, keys[j]), quantile_of(a, id, q[j]),
                                 keys[j], f->name);
            free(json);
            llmlat_agg_free(a);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quantiles_match_numpy),
        cmocka_unit_test(std_ddof1_matches_numpy),
        cmocka_unit_test(order_does_not_matter),
        cmocka_unit_test(numpy_linear_by_hand),
        cmocka_unit_test(report_matches_queries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
