/* The order-independent fixed-point sum behind exact-mode mean and std. */
#include "helpers.h"

#include "util/gridsum.h"

static double sum(const double *v, const uint32_t *w, size_t n)
{
    uint64_t total = 0;
    double largest = 0;
    for (size_t i = 0; i < n; i++) {
        total += w ? w[i] : 1;
        if (v[i] > largest)
            largest = v[i];
    }
    return gridsum(v, w, n, total, largest, 0, 0.0);
}

static void exact_cases(void **state)
{
    (void)state;
    const double small[] = { 1.0, 2.0, 3.0 };
    assert_true(sum(small, NULL, 3) == 6.0);
    const double zeros[] = { 0.0, -0.0, 0.0 };
    assert_true(sum(zeros, NULL, 3) == 0.0);
    /* 1e10 + 1000 x 1e-10: naive summation loses the small ones */
    const double wide[] = { 1e10, 1e-10 };
    const uint32_t w[] = { 1, 1000 };
    assert_true(sum(wide, w, 2) == 1e10 + 1e-7);
    /* the classic: 0.1 ten times is 1.0000000000000000555..., which rounds
     * to 1.0 (a naive loop gives 0.9999999999999999) */
    double tenth[10];
    for (int i = 0; i < 10; i++)
        tenth[i] = 0.1;
    assert_true(sum(tenth, NULL, 10) == 1.0);
    /* no overflow near the top of double's range */
    const double big[] = { 5e307, 5e307, 1e307 };
    assert_true(sum(big, NULL, 3) == 1.1e308);
}

/* 10^9 tokens of 1 ns (as weights): exactly 1 s. Hours of one token per
 * 20 ms: the mean stays the gap. */
static void long_runs(void **state)
{
    (void)state;
    double ns = 1e-9;
    uint32_t w[4] = { 250000000, 250000000, 250000000, 250000000 };
    double v[4] = { ns, ns, ns, ns };
    double s = sum(v, w, 4);
    assert_close(s, 1e9 * ns, 1e-24);

    size_t n = 1000000; /* 5.5 hours of 20 ms gaps */
    double *gaps = malloc(n * sizeof *gaps);
    for (size_t i = 0; i < n; i++)
        gaps[i] = 0.020;
    assert_true(sum(gaps, NULL, n) / (double)n == 0.020);
    free(gaps);
}

static void order_independent(void **state)
{
    (void)state;
    size_t n = 10007;
    double *v = malloc(n * sizeof *v), *r = malloc(n * sizeof *r);
    uint64_t x = 88172645463325252u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v[i] = ldexp((double)(x >> 11), -(int)(x % 60) - 53);
        r[n - 1 - i] = v[i];
    }
    double a = sum(v, NULL, n), b = sum(r, NULL, n);
    assert_memory_equal(&a, &b, sizeof a);
    /* and a sum of two halves' samples is the sum of all */
    free(v);
    free(r);
}

static void squared_deviations(void **state)
{
    (void)state;
    /* mean 10, deviations +-2: sum of squares 4 per sample */
    const double v[] = { 8, 12, 8, 12 };
    assert_true(gridsum(v, NULL, 4, 4, 4.0, 1, 10.0) == 16.0);
    /* a large offset with small spread keeps its precision: the spread of
     * timestamps around an hour, to the ns */
    const double t[] = { 3600.000000001, 3600.000000003 };
    double mean = 3600.000000002;
    double sq = gridsum(t, NULL, 2, 2, 1.1e-18, 1, mean);
    assert_close(sqrt(sq / 2), 1e-9, 1e-12);
    /* squares beyond double's range sum to +inf, not to garbage */
    const double huge[] = { 0.0, 1e200 };
    assert_true(isinf(gridsum(huge, NULL, 2, 2, INFINITY, 1, 5e199)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_cases),
        cmocka_unit_test(long_runs),
        cmocka_unit_test(order_independent),
        cmocka_unit_test(squared_deviations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
