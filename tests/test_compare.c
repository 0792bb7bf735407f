/* llmlat_compare_new: point differences are exact, the bootstrap intervals
 * find a known shift and, for runs drawn from one distribution, include 0
 * about as often as a 95% interval should; results depend only on the
 * inputs and the seed; bounded runs get points without intervals. */
#include <stdbool.h>
#include <stdio.h>

#include "helpers.h"

#include "analysis/compare.h" /* the bootstrap's weighted view, checked below */

/* A small deterministic generator for the test's own draws. */
static uint64_t lcg_state;

static double uniform01(void)
{
    lcg_state = lcg_state * 6364136223846793005u + 1442695040888963407u;
    return (double)(lcg_state >> 11) / 9007199254740992.0;
}

/* A run of n requests started 50 ms apart: TTFT around 80 ms (a skewed
 * draw), 8 to 15 one-token chunks 10 to 30 ms apart, plus `shift` ns on
 * the TTFT of each. */
static llmlat_agg *run(int32_t mode, int n, uint64_t seed, int64_t shift)
{
    lcg_state = seed;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
    assert_non_null(a);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.1), LLMLAT_OK);
    llmlat_request *r = llmlat_request_new();
    for (int i = 0; i < n; i++) {
        int64_t start = i * 50 * MS;
        double u = uniform01();
        int64_t t = start + (int64_t)((40.0 + 80.0 * u * u) * (double)MS) + shift;
        assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
        assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
        int chunks = 8 + (int)(uniform01() * 8);
        for (int e = 0; e < chunks; e++) {
            assert_int_equal(llmlat_request_event(r, t, 1), LLMLAT_OK);
            t += (int64_t)((10.0 + 20.0 * uniform01()) * (double)MS);
        }
        assert_int_equal(llmlat_request_set_input_tokens(r, 100), LLMLAT_OK);
        assert_int_equal(llmlat_request_finish(r, t), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    }
    llmlat_request_free(r);
    return a;
}

static llmlat_compare *compare(const llmlat_agg *b, const llmlat_agg *c, uint32_t resamples,
                               uint64_t seed)
{
    int32_t st = -99;
    llmlat_compare *x = llmlat_compare_new(b, c, resamples, seed, &st);
    assert_int_equal(st, LLMLAT_OK);
    assert_non_null(x);
    return x;
}

static double field(const llmlat_compare *c, const char *fig, int32_t f)
{
    double v = 0;
    int32_t st = llmlat_compare_get(c, fig, f, &v);
    if (st != LLMLAT_OK)
        fail_msg("%s field %d: status %d", fig, f, st);
    return v;
}

static bool excludes_zero(const llmlat_compare *c, const char *fig)
{
    return field(c, fig, LLMLAT_COMPARE_DIFF_LOW) > 0 || field(c, fig, LLMLAT_COMPARE_DIFF_HIGH) < 0;
}

static char *report_of(const llmlat_compare *c, int32_t format)
{
    size_t len = 0;
    assert_int_equal(llmlat_compare_report(c, format, NULL, 0, &len), LLMLAT_ENOSPC);
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    size_t got = 0;
    assert_int_equal(llmlat_compare_report(c, format, buf, len, &got), LLMLAT_OK);
    assert_int_equal(got, len);
    buf[len] = '\0';
    return buf;
}

/* The candidate is the base with every TTFT 20 ms later. */
static void known_shift(void **state)
{
    (void)state;
    llmlat_agg *base = run(LLMLAT_MODE_EXACT, 200, 7, 0);
    llmlat_agg *cand = run(LLMLAT_MODE_EXACT, 200, 7, 20 * MS);
    llmlat_compare *c = compare(base, cand, 400, 1);
    /* points: exactly the aggregators' values and their difference */
    double mb = stat_of(base, LLMLAT_TTFT, LLMLAT_STAT_MEAN);
    double mc = stat_of(cand, LLMLAT_TTFT, LLMLAT_STAT_MEAN);
    assert_true(field(c, "mean_ttft", LLMLAT_COMPARE_BASE) == mb);
    assert_true(field(c, "mean_ttft", LLMLAT_COMPARE_CAND) == mc);
    assert_true(field(c, "mean_ttft", LLMLAT_COMPARE_DIFF) == mc - mb);
    assert_close(field(c, "mean_ttft", LLMLAT_COMPARE_DIFF), 0.020, 1e-9);
    assert_close(field(c, "mean_ttft", LLMLAT_COMPARE_REL_DIFF), (mc - mb) / mb, 1e-15);
    assert_true(field(c, "p99_ttft", LLMLAT_COMPARE_BASE) == quantile_of(base, LLMLAT_TTFT, 0.99));
    assert_close(field(c, "median_ttft", LLMLAT_COMPARE_DIFF), 0.020, 1e-9);
    /* the shift is found: the intervals hold 20 ms and exclude 0 */
    static const char *const SHIFTED[] = { "mean_ttft", "median_ttft", "p90_ttft", "mean_e2e" };
    for (size_t i = 0; i < sizeof SHIFTED / sizeof SHIFTED[0]; i++) {
        if (getenv("LLMLAT_TEST_VERBOSE"))
            fprintf(stderr, "%s: diff %g [%g, %g]\n", SHIFTED[i],
                    field(c, SHIFTED[i], LLMLAT_COMPARE_DIFF),
                    field(c, SHIFTED[i], LLMLAT_COMPARE_DIFF_LOW),
                    field(c, SHIFTED[i], LLMLAT_COMPARE_DIFF_HIGH));
        assert_true(excludes_zero(c, SHIFTED[i]));
        assert_true(field(c, SHIFTED[i], LLMLAT_COMPARE_DIFF_LOW) < 0.020);
        assert_true(field(c, SHIFTED[i], LLMLAT_COMPARE_DIFF_HIGH) > 0.020);
        assert_true(field(c, SHIFTED[i], LLMLAT_COMPARE_REL_LOW) > 0);
    }
    /* what did not move does not look moved: the gaps are the same */
    assert_true(field(c, "mean_itl", LLMLAT_COMPARE_DIFF) == 0.0);
    assert_false(excludes_zero(c, "mean_itl"));
    assert_false(excludes_zero(c, "mean_tpot"));
    /* goodput: the SLO is 100 ms, the shift pushes requests past it */
    assert_true(field(c, "request_goodput", LLMLAT_COMPARE_DIFF) < 0);
    assert_true(excludes_zero(c, "request_goodput"));

    char *text = report_of(c, LLMLAT_FORMAT_TEXT);
    assert_non_null(strstr(text, "  mean_ttft "));
    assert_non_null(strstr(text, "400 resamples"));
    char *line = strstr(text, "  mean_ttft ");
    char *eol = strchr(line, '\n');
    assert_true(eol[-1] == '*'); /* marked */
    line = strstr(text, "  mean_itl ");
    eol = strchr(line, '\n');
    assert_true(eol[-1] != '*');
    free(text);
    char *json = report_of(c, LLMLAT_FORMAT_JSON);
    assert_non_null(strstr(json, "\"mean_ttft\": {"));
    assert_non_null(strstr(json, "\"significant\": true"));
    free(json);
    llmlat_compare_free(c);
    llmlat_agg_free(base);
    llmlat_agg_free(cand);
}

/* Two runs drawn from one distribution, many times: the 95% interval of
 * mean TTFT holds 0 in about 95% of them (it is a calibration check, with
 * deterministic draws: the tolerance is wide, the expectation 5%). */
static void no_difference(void **state)
{
    (void)state;
    int pairs = 60, excluded = 0, excluded_p90 = 0;
    for (int p = 0; p < pairs; p++) {
        llmlat_agg *base = run(LLMLAT_MODE_EXACT, 80, 1000 + 2 * (uint64_t)p, 0);
        llmlat_agg *cand = run(LLMLAT_MODE_EXACT, 80, 1001 + 2 * (uint64_t)p, 0);
        llmlat_compare *c = compare(base, cand, 200, (uint64_t)p);
        excluded += excludes_zero(c, "mean_ttft");
        excluded_p90 += excludes_zero(c, "p90_ttft");
        llmlat_compare_free(c);
        llmlat_agg_free(base);
        llmlat_agg_free(cand);
    }
    if (getenv("LLMLAT_TEST_VERBOSE"))
        fprintf(stderr, "mean_ttft excluded 0 in %d of %d, p90 in %d\n", excluded, pairs,
                excluded_p90);
    assert_true(excluded <= pairs / 6);
    assert_true(excluded_p90 <= pairs / 6);
}

/* The same inputs and seed give the same bytes; another seed moves only
 * the intervals. */
static void reproducible(void **state)
{
    (void)state;
    llmlat_agg *base = run(LLMLAT_MODE_EXACT, 60, 3, 0);
    llmlat_agg *cand = run(LLMLAT_MODE_EXACT, 60, 4, 5 * MS);
    llmlat_compare *x = compare(base, cand, 100, 42), *y = compare(base, cand, 100, 42);
    llmlat_compare *z = compare(base, cand, 100, 43);
    char *jx = report_of(x, LLMLAT_FORMAT_JSON), *jy = report_of(y, LLMLAT_FORMAT_JSON);
    char *jz = report_of(z, LLMLAT_FORMAT_JSON);
    assert_string_equal(jx, jy);
    assert_string_not_equal(jx, jz);
    assert_true(field(x, "p99_e2e", LLMLAT_COMPARE_DIFF) == field(z, "p99_e2e", LLMLAT_COMPARE_DIFF));
    assert_true(field(x, "mean_e2e", LLMLAT_COMPARE_DIFF_LOW) !=
                field(z, "mean_e2e", LLMLAT_COMPARE_DIFF_LOW));
    free(jx);
    free(jy);
    free(jz);
    llmlat_compare_free(x);
    llmlat_compare_free(y);
    llmlat_compare_free(z);
    llmlat_agg_free(base);
    llmlat_agg_free(cand);
}

/* The figures, by name, in their order. */
static void figure_names(void **state)
{
    (void)state;
    llmlat_agg *a = run(LLMLAT_MODE_EXACT, 10, 5, 0);
    static const double q[] = { 0.5, 0.9, 0.999, 0.9 };
    assert_int_equal(llmlat_agg_set_quantiles(a, q, 4), LLMLAT_OK);
    llmlat_compare *c = compare(a, a, 0, 0);
    assert_string_equal(llmlat_compare_figure(c, 0), "mean_ttft");
    assert_string_equal(llmlat_compare_figure(c, 1), "median_ttft");
    assert_string_equal(llmlat_compare_figure(c, 2), "p90_ttft");
    assert_string_equal(llmlat_compare_figure(c, 3), "p99.9_ttft");
    assert_string_equal(llmlat_compare_figure(c, 4), "mean_tpot");
    size_t n = 0;
    while (llmlat_compare_figure(c, n))
        n++;
    assert_int_equal(n, 14 * 4 + 4);
    assert_string_equal(llmlat_compare_figure(c, n - 4), "request_throughput");
    assert_string_equal(llmlat_compare_figure(c, n - 1), "request_goodput");
    assert_null(llmlat_compare_figure(NULL, 0));
    /* a run against itself: no difference, and no interval with 0 resamples */
    assert_true(field(c, "mean_ttft", LLMLAT_COMPARE_DIFF) == 0.0);
    double v = 0;
    assert_int_equal(llmlat_compare_get(c, "mean_ttft", LLMLAT_COMPARE_DIFF_LOW, &v),
                     LLMLAT_EUNDEFINED);
    assert_true(isnan(v));
    assert_int_equal(llmlat_compare_get(c, "p50_ttft", LLMLAT_COMPARE_BASE, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_compare_get(c, "mean_ttft", 0, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_compare_get(c, "mean_ttft", 9, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_compare_get(c, NULL, 1, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_compare_get(c, "mean_ttft", 1, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_compare_get(NULL, "mean_ttft", 1, &v), LLMLAT_EINVAL);
    char *text = report_of(c, LLMLAT_FORMAT_TEXT);
    assert_non_null(strstr(text, "intervals: none (0 resamples)"));
    free(text);
    size_t len;
    assert_int_equal(llmlat_compare_report(c, LLMLAT_FORMAT_PROMETHEUS, NULL, 0, &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_compare_report(NULL, LLMLAT_FORMAT_TEXT, NULL, 0, &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_compare_report(c, LLMLAT_FORMAT_TEXT, NULL, 1, &len), LLMLAT_EINVAL);
    assert_int_equal(llmlat_compare_report(c, LLMLAT_FORMAT_TEXT, NULL, 0, NULL), LLMLAT_EINVAL);
    llmlat_compare_free(c);
    llmlat_compare_free(NULL);
    llmlat_agg_free(a);
}

static void errors_and_bounded(void **state)
{
    (void)state;
    llmlat_agg *a = run(LLMLAT_MODE_EXACT, 30, 5, 0);
    llmlat_agg *b = run(LLMLAT_MODE_BOUNDED, 30, 6, 0);
    llmlat_agg *vllm = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    int32_t st = 0;
    assert_null(llmlat_compare_new(NULL, a, 10, 0, &st));
    assert_int_equal(st, LLMLAT_EINVAL);
    assert_null(llmlat_compare_new(a, NULL, 10, 0, &st));
    assert_int_equal(st, LLMLAT_EINVAL);
    assert_null(llmlat_compare_new(a, a, LLMLAT_COMPARE_MAX_RESAMPLES + 1, 0, &st));
    assert_int_equal(st, LLMLAT_EINVAL);
    assert_null(llmlat_compare_new(a, vllm, 10, 0, &st));
    assert_int_equal(st, LLMLAT_EMISMATCH);
    assert_null(llmlat_compare_new(a, vllm, 10, 0, NULL)); /* status may be NULL */
    /* bounded: the points, no interval */
    llmlat_compare *c = compare(a, b, 50, 0);
    double v;
    assert_int_equal(llmlat_compare_get(c, "mean_ttft", LLMLAT_COMPARE_CAND, &v), LLMLAT_OK);
    assert_true(v == stat_of(b, LLMLAT_TTFT, LLMLAT_STAT_MEAN));
    assert_int_equal(llmlat_compare_get(c, "mean_ttft", LLMLAT_COMPARE_REL_HIGH, &v),
                     LLMLAT_EUNDEFINED);
    char *text = report_of(c, LLMLAT_FORMAT_TEXT);
    assert_non_null(strstr(text, "bounded mode"));
    free(text);
    llmlat_compare_free(c);
    /* an empty run: its figures are undefined, and so are the differences */
    llmlat_agg *empty = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    c = compare(empty, a, 20, 0);
    assert_int_equal(llmlat_compare_get(c, "mean_ttft", LLMLAT_COMPARE_DIFF, &v),
                     LLMLAT_EUNDEFINED);
    assert_int_equal(llmlat_compare_get(c, "mean_ttft", LLMLAT_COMPARE_DIFF_LOW, &v),
                     LLMLAT_EUNDEFINED);
    llmlat_compare_free(c);
    llmlat_agg_free(empty);
    llmlat_agg_free(a);
    llmlat_agg_free(b);
    llmlat_agg_free(vllm);
}

/* Request i of a varied run: empty and multi-token chunks, failures, no
 * content, N = 1. */
static llmlat_request *varied(int i)
{
    llmlat_request *r = llmlat_request_new();
    int64_t start = i * 30 * MS, t = start + (20 + i % 7 * 13) * MS;
    assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
    int n = i % 11 == 4 ? 0 : i % 9 == 2 ? 1 : 2 + i % 6;
    for (int e = 0; e < n; e++) {
        assert_int_equal(llmlat_request_event(r, t, (uint32_t)((i + e) % 4)), LLMLAT_OK);
        t += (3 + (i * 5 + e * 7) % 23) * MS;
    }
    assert_int_equal(llmlat_request_set_input_tokens(r, (uint64_t)(7 * i)), LLMLAT_OK);
    if (i % 8 == 5)
        assert_int_equal(llmlat_request_fail(r, t), LLMLAT_OK);
    else
        assert_int_equal(llmlat_request_finish(r, t + MS), LLMLAT_OK);
    return r;
}

/* The bootstrap's figures of a multiset of requests (request i taken i % 3
 * times) are those of an aggregator given them: the same doubles, but the
 * means, summed another way, to 1e-12. Under every convention. */
static void weighted_view_matches_aggregator(void **state)
{
    (void)state;
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= LLMLAT_CONV_LLMPERF; conv++) {
        llmlat_agg *run_agg = llmlat_agg_new(conv, LLMLAT_MODE_EXACT);
        llmlat_agg *multi = llmlat_agg_new(conv, LLMLAT_MODE_EXACT);
        static const double q[] = { 0.25, 0.5, 0.9, 0.99, 1.0, 0.0 };
        assert_int_equal(llmlat_agg_set_quantiles(run_agg, q, 6), LLMLAT_OK);
        assert_int_equal(llmlat_agg_set_quantiles(multi, q, 6), LLMLAT_OK);
        for (llmlat_agg **a = (llmlat_agg *[]){ run_agg, multi, NULL }; *a; a++) {
            assert_int_equal(llmlat_agg_set_param(*a, LLMLAT_PARAM_SLO_TTFT, 0.08), LLMLAT_OK);
            assert_int_equal(llmlat_agg_set_param(*a, LLMLAT_PARAM_SLO_E2E, 0.15), LLMLAT_OK);
        }
        int n = 40;
        for (int i = 0; i < n; i++) {
            llmlat_request *r = varied(i);
            assert_int_equal(llmlat_agg_add(run_agg, r), LLMLAT_OK);
            for (int k = 0; k < i % 3; k++)
                assert_int_equal(llmlat_agg_add(multi, r), LLMLAT_OK);
            llmlat_request_free(r);
        }
        llmlat_compare *c = compare(run_agg, run_agg, 0, 0);
        llmlat_alloc al = alloc_current();
        compare_run run;
        assert_int_equal(compare_run_prepare(&run, run_agg, &al), LLMLAT_OK);
        assert_int_equal(llmlat_agg_set_param(multi, LLMLAT_PARAM_DURATION, run.duration_s),
                         LLMLAT_OK);
        for (int i = 0; i < n; i++)
            run.mult[i] = (uint32_t)(i % 3);
        double *want = malloc(c->n_fig * sizeof *want), *got = malloc(c->n_fig * sizeof *got);
        assert_int_equal(compare_figures_of(c, multi, want), LLMLAT_OK);
        compare_run_figures(c, &run, run_agg, got);
        for (size_t f = 0; f < c->n_fig; f++) {
            const compare_figure *fig = &c->fig[f];
            if (isnan(want[f]) || isnan(got[f])) {
                if (isnan(want[f]) != isnan(got[f]))
                    fail_msg("conv %d %s: want %g, got %g", conv, fig->name, want[f], got[f]);
                continue;
            }
            if (fig->metric && fig->stat == LLMLAT_STAT_MEAN)
                assert_close(got[f], want[f], 1e-12 * fabs(want[f]));
            else if (got[f] != want[f])
                fail_msg("conv %d %s: want %.17g, got %.17g", conv, fig->name, want[f], got[f]);
        }
        free(want);
        free(got);
        compare_run_free(&run, &al);
        llmlat_compare_free(c);
        llmlat_agg_free(run_agg);
        llmlat_agg_free(multi);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_shift),
        cmocka_unit_test(no_difference),
        cmocka_unit_test(reproducible),
        cmocka_unit_test(figure_names),
        cmocka_unit_test(errors_and_bounded),
        cmocka_unit_test(weighted_view_matches_aggregator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
