/* The bounded sketch from inside: the bucket layout (sketch_map.c), the
 * window and its quantiles (sketch.c), the exact sums (fixsum.c). The
 * public-API behaviour is in test_bounded_agg.c and test_accuracy.c. */
#include "helpers.h"

#include "util/fixsum.h"
#include "bounded/sketch.h"
#include "bounded/sketch_map.h"

static const llmlat_alloc *std_alloc(void)
{
    static llmlat_alloc al;
    al = alloc_current();
    return &al;
}

static uint64_t rng_state = 88172645463325252u;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static double uniform01(void)
{
    return (double)(rng() >> 11) / 9007199254740992.0;
}

static const double ALPHAS[] = { 1e-4, 1e-3, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25 };

/* Every bucket spans a ratio within (1 + a) / (1 - a), so its value is
 * within alpha of anything in it; and M is within 1.5% of the optimum
 * ln 2 / ln gamma (memory: 9 KiB per metric at 1%). */
static void layout_is_tight_and_covering(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ALPHAS / sizeof ALPHAS[0]; i++) {
        double a = ALPHAS[i], gamma = (1 + a) / (1 - a);
        sketch_map m;
        assert_int_equal(sketch_map_init(&m, std_alloc(), a), LLMLAT_OK);
        uint32_t n = UINT32_C(1) << m.cell_bits;
        assert_int_equal(m.first[0], 0);
        assert_int_equal(m.first[m.per_octave], n);
        for (uint32_t j = 0; j < m.per_octave; j++) {
            double lo = n + m.first[j], hi = n + m.first[j + 1];
            assert_true(hi > lo);
            assert_true(hi / lo <= gamma);
        }
        double optimum = log(2) / log(gamma);
        assert_true(m.per_octave >= optimum);
        assert_true(m.per_octave <= ceil(optimum * 1.015));
        assert_int_equal(m.width, SKETCH_OCTAVES * m.per_octave + 1);
        sketch_map_free(&m, std_alloc());
    }
    sketch_map m;
    assert_int_equal(sketch_map_init(&m, std_alloc(), 0.01), LLMLAT_OK);
    assert_int_equal(m.per_octave, 35);
    assert_true(m.width * sizeof(uint64_t) <= 9 * 1024);
    sketch_map_free(&m, std_alloc());
}

/* index is monotone and value(index(x)) is within alpha of x, over the
 * whole range of positive normal doubles and at every cell edge. */
static void index_and_value(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ALPHAS / sizeof ALPHAS[0]; i++) {
        double a = ALPHAS[i];
        sketch_map m;
        assert_int_equal(sketch_map_init(&m, std_alloc(), a), LLMLAT_OK);
        double prev_x = 0;
        int64_t prev_i = -1;
        for (int e = -1000; e <= 1000; e += 37) {
            for (int j = 0; j < 200; j++) {
                double x = ldexp(1 + j / 200.0, e);
                int64_t idx = sketch_map_index(&m, x);
                assert_true(idx >= prev_i || x < prev_x);
                double v = sketch_map_value(&m, idx);
                if (!(fabs(v - x) <= a * x))
                    fail_msg("alpha %g x %a: bucket value %a", a, x, v);
                prev_x = x;
                prev_i = idx;
            }
        }
        /* both sides of every bucket edge in one octave */
        uint32_t n = UINT32_C(1) << m.cell_bits;
        for (uint32_t j = 1; j < m.per_octave; j++) {
            double edge = ldexp((double)(n + m.first[j]), -(int)m.cell_bits);
            double below = nextafter(edge, 0);
            assert_int_equal(sketch_map_index(&m, edge), sketch_map_index(&m, below) + 1);
            assert_true(fabs(sketch_map_value(&m, sketch_map_index(&m, below)) - below) <=
                        a * below);
        }
        sketch_map_free(&m, std_alloc());
    }
}

/* numpy's linear quantile of sorted x[0..n). */
static double reference_quantile(const double *x, size_t n, double q)
{
    double vi = (double)(n - 1) * q;
    if (vi >= (double)(n - 1))
        return x[n - 1];
    double lo = floor(vi), t = vi - lo;
    size_t r = (size_t)lo;
    double diff = x[r + 1] - x[r];
    return t >= 0.5 ? x[r + 1] - diff * (1 - t) : x[r] + diff * t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* A sketch (unit 1) of x[0..n), added as doubles. */
static void fill(sketch *s, const sketch_map *m, const double *x, size_t n)
{
    sketch_init(s, 1.0);
    assert_int_equal(sketch_alloc(s, std_alloc(), m), LLMLAT_OK);
    for (size_t i = 0; i < n; i++)
        sketch_add_double(s, m, x[i], x[i]);
}

static void assert_within_guarantee(const sketch *s, const sketch_map *m, double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
    for (int i = 0; i <= 1000; i++) {
        double q = i / 1000.0, want = reference_quantile(x, n, q);
        double got = sketch_quantile(s, m, q);
        if (!(fabs(got - want) <= m->alpha * want))
            fail_msg("n %zu q %g: got %.17g, exact %.17g", n, q, got, want);
    }
    assert_true(s->min == x[0] && s->max == x[n - 1]);
}

/* Small and degenerate sets: one sample, two, all zeros, zeros and one
 * value, values far apart (the guarantee holds with a 2^31 span). */
static void quantiles_of_small_sets(void **state)
{
    (void)state;
    sketch_map m;
    assert_int_equal(sketch_map_init(&m, std_alloc(), 0.01), LLMLAT_OK);
    double sets[][6] = {
        { 5, 0, 0, 0, 0, 0 },     { 1, 2, 0, 0, 0, 0 },      { 0, 0, 0, 0, 0, 0 },
        { 0, 0, 0, 7e-3, 0, 0 },  { 1e-6, 2147, 3, 3, 3, 3 }, { 0, 1, 1e3, 1e6, 0.5, 0 },
    };
    size_t sizes[] = { 1, 2, 6, 6, 6, 6 };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        sketch s;
        fill(&s, &m, sets[i], sizes[i]);
        assert_within_guarantee(&s, &m, sets[i], sizes[i]);
        sketch_free(&s, std_alloc());
    }
    sketch_map_free(&m, std_alloc());
}

/* Random sets at several alphas: values below 1 and above 2^20, a span of
 * 3.3e9 (the guarantee holds within 2^32 of the maximum). */
static void quantiles_of_random_sets(void **state)
{
    (void)state;
    enum { N = 20000 };
    static double x[N];
    for (size_t i = 0; i < sizeof ALPHAS / sizeof ALPHAS[0]; i++) {
        sketch_map m;
        assert_int_equal(sketch_map_init(&m, std_alloc(), ALPHAS[i]), LLMLAT_OK);
        for (int k = 0; k < N; k++)
            x[k] = k % 10 == 0 ? 0 : exp(uniform01() * 18 - 8) * (1 + (k % 3 == 0) * 50);
        sketch s;
        fill(&s, &m, x, N);
        assert_within_guarantee(&s, &m, x, N);
        sketch_free(&s, std_alloc());
        sketch_map_free(&m, std_alloc());
    }
}

/* Two sketches hold the same state: counts, window, extremes, sums. */
static void assert_same_sketch(const sketch *a, const sketch *b, const sketch_map *m)
{
    assert_true(a->count == b->count && a->zero == b->zero);
    assert_true(memcmp(&a->min, &b->min, sizeof a->min) == 0);
    assert_true(memcmp(&a->max, &b->max, sizeof a->max) == 0);
    assert_true(memcmp(&a->sums, &b->sums, sizeof a->sums) == 0);
    assert_true(a->top == b->top);
    if (a->top == SKETCH_NO_TOP)
        return;
    assert_true(a->low == b->low && a->base == b->base);
    assert_memory_equal(a->bucket, b->bucket, m->width * sizeof *a->bucket);
}

/* Far-apart samples: those more than 2^32 below the maximum share the
 * lowest bucket; whatever the order they came in, and however they were
 * split and merged, the sketch is the same. */
static void order_and_merge_do_not_matter(void **state)
{
    (void)state;
    enum { N = 3000 };
    static double x[N];
    sketch_map m;
    assert_int_equal(sketch_map_init(&m, std_alloc(), 0.02), LLMLAT_OK);
    for (int k = 0; k < N; k++)
        x[k] = k % 7 == 0 ? 0 : ldexp(1 + uniform01(), (int)(rng() % 120) - 60);
    sketch one, rev, parts[3], merged;
    fill(&one, &m, x, N);
    sketch_init(&rev, 1.0);
    assert_int_equal(sketch_alloc(&rev, std_alloc(), &m), LLMLAT_OK);
    for (int k = N - 1; k >= 0; k--)
        sketch_add_double(&rev, &m, x[k], x[k]);
    assert_same_sketch(&one, &rev, &m);
    /* everything more than 2^32 below the maximum is in the lowest bucket */
    assert_true(one.bucket[0] > 1);
    for (int p = 0; p < 3; p++) {
        sketch_init(&parts[p], 1.0);
        assert_int_equal(sketch_alloc(&parts[p], std_alloc(), &m), LLMLAT_OK);
    }
    for (int k = 0; k < N; k++)
        sketch_add_double(&parts[rng() % 3], &m, x[k], x[k]);
    /* (p0 + p1) + p2 and p2 + (p1 + p0) */
    fill(&merged, &m, NULL, 0);
    sketch_merge(&merged, &parts[0], &m);
    sketch_merge(&merged, &parts[1], &m);
    sketch_merge(&merged, &parts[2], &m);
    assert_same_sketch(&one, &merged, &m);
    sketch_merge(&parts[1], &parts[0], &m);
    sketch_merge(&parts[2], &parts[1], &m);
    assert_same_sketch(&one, &parts[2], &m);
    /* quantiles in the collapsed part stay within [min, max] */
    for (int i = 0; i <= 100; i++) {
        double v = sketch_quantile(&one, &m, i / 100.0);
        assert_true(v >= one.min && v <= one.max);
    }
    sketch_clear(&one);
    sketch *all[] = { &one, &rev, &parts[0], &parts[1], &parts[2], &merged };
    for (size_t i = 0; i < 6; i++)
        sketch_free(all[i], std_alloc());
    sketch_map_free(&m, std_alloc());
}

/* Mean and variance from the exact sums: integers, doubles cut at 2^-64,
 * a constant set (std exactly 0), merged sums. */
static void exact_sums(void **state)
{
    (void)state;
    fixsum f = { { 0 }, { 0 } }, g = f;
    /* 10^6 copies of 2^62 + 1: the square does not fit 64 bits */
    uint64_t big = (UINT64_C(1) << 62) + 1;
    for (int i = 0; i < 1000000; i++)
        fixsum_add_int(&f, big);
    assert_true(fixsum_mean(&f, 1000000) == (double)big);
    assert_true(fixsum_variance(&f, 1000000, 0) == 0.0);
    /* 1, 2, 3, 4 as parts and doubles: mean 2.5, variance 1.25 */
    fixsum_add_parts(&g, 3, 5, 0); /* 1 and 2 */
    fixsum_add_double(&g, 3.0);
    fixsum_add_double(&g, 4.0);
    assert_true(fixsum_mean(&g, 4) == 2.5);
    assert_true(fixsum_variance(&g, 4, 0) == 1.25);
    assert_true(fixsum_variance(&g, 4, 1) == 5.0 / 3.0);
    /* constant fractional values: std 0 */
    fixsum c = { { 0 }, { 0 } };
    for (int i = 0; i < 1000; i++)
        fixsum_add_double(&c, 0.1);
    assert_true(fixsum_variance(&c, 1000, 0) == 0.0);
    assert_close(fixsum_mean(&c, 1000), 0.1, 1e-17);
    /* every shift: far below the 2^-64 grid (cut to 0), just on it, above
     * 2^53 (squares past 2^128 * 2^-64), with one sample each */
    const double xs[] = { 0x1p-70, 0x1.8p-60, 0x1.8p-32, 1.0, 0x1.fffffffffffffp+62,
                          0x1.0000000000001p+63 };
    const double means[] = { 0, 0x1.8p-60, 0x1.8p-32, 1.0, 0x1.fffffffffffffp+62,
                             0x1.0000000000001p+63 };
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        fixsum one = { { 0 }, { 0 } };
        fixsum_add_double(&one, xs[i]);
        fixsum_add_double(&one, xs[i]);
        assert_true(fixsum_mean(&one, 2) == means[i]);
        assert_true(fixsum_variance(&one, 2, 0) == 0.0);
    }
    fixsum two = { { 0 }, { 0 } };
    fixsum_add_double(&two, 0x1p40);
    fixsum_add_double(&two, 0x1p40 + 2);
    assert_true(fixsum_variance(&two, 2, 0) == 1.0);
    /* a square part, and merging */
    fixsum h = { { 0 }, { 0 } };
    fixsum_add_parts(&h, 10, 100, 0);
    fixsum_add_square_part(&h, 0.25);
    fixsum_merge(&h, &g);
    assert_true(fixsum_mean(&h, 5) == 4.0);
    /* sum x^2 = 100.25 + 30 = 130.25, n = 5: var = 26.05 - 16 */
    assert_close(fixsum_variance(&h, 5, 0), 10.05, 1e-13);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layout_is_tight_and_covering),
        cmocka_unit_test(index_and_value),
        cmocka_unit_test(quantiles_of_small_sets),
        cmocka_unit_test(quantiles_of_random_sets),
        cmocka_unit_test(order_and_merge_do_not_matter),
        cmocka_unit_test(exact_sums),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
