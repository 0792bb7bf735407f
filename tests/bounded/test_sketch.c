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
/* The coarsest schema within each alpha (docs/bounded.md's table). */
static const int32_t SCHEMAS[] = { 12, 9, 7, 6, 5, 3, 2, 1 };

/* The schema of each alpha, its error within alpha, and memory: 31
 * octaves and a bucket of uint64 counts, 15.5 KiB per metric at 1%. */
static void schema_and_memory(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ALPHAS / sizeof ALPHAS[0]; i++) {
        sketch_map m;
        assert_int_equal(sketch_map_init(&m, std_alloc(), ALPHAS[i]), LLMLAT_OK);
        assert_int_equal(m.schema, SCHEMAS[i]);
        double base = pow(2.0, pow(2.0, -m.schema));
        assert_close(m.error, (base - 1) / (base + 1), 1e-15);
        assert_true(m.error <= ALPHAS[i]);
        if (m.schema > 1) { /* and the next coarser one is not */
            double coarser = pow(2.0, pow(2.0, 1 - m.schema));
            assert_true((coarser - 1) / (coarser + 1) > ALPHAS[i]);
        }
        assert_int_equal(m.per_octave, 1u << m.schema);
        assert_int_equal(m.width, SKETCH_OCTAVES * m.per_octave + 1);
        sketch_map_free(&m, std_alloc());
    }
    sketch_map m;
    assert_int_equal(sketch_map_init(&m, std_alloc(), 0.01), LLMLAT_OK);
    sketch s;
    sketch_init(&s, 1.0);
    assert_int_equal(sketch_alloc(&s, std_alloc(), &m), LLMLAT_OK);
    assert_int_equal(m.width, 1985);
    assert_true(sketch_memory(&s, &m) + sizeof s <= 16 * 1024);
    sketch_free(&s, std_alloc());
    sketch_map_free(&m, std_alloc());
}

/* The map's index equals the map-less one (a binary search over the
 * bounds), is monotone, and its bucket holds x: upper(i - 1) < x <=
 * upper(i), the value within the schema's error; over the whole range of
 * positive doubles and on both sides of every boundary of an octave. */
static void index_and_value(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ALPHAS / sizeof ALPHAS[0]; i++) {
        sketch_map m;
        assert_int_equal(sketch_map_init(&m, std_alloc(), ALPHAS[i]), LLMLAT_OK);
        double prev_x = 0;
        int64_t prev_i = INT64_MIN;
        for (int e = -1070; e <= 1020; e += 37) {
            for (int j = 0; j < 200; j++) {
                double x = ldexp(1 + j / 200.0, e);
                int64_t idx = sketch_map_index_any(&m, x);
                assert_true(idx == sketch_schema_index(m.schema, x));
                assert_true(idx >= prev_i && x >= prev_x);
                if (x >= 0x1p-1000) { /* bounds of subnormal buckets round */
                    assert_true(sketch_map_upper(&m, idx - 1) < x &&
                                x <= sketch_map_upper(&m, idx));
                    double v = sketch_map_value(&m, idx);
                    if (!(fabs(v - x) <= (m.error + 1e-14) * x))
                        fail_msg("schema %d x %a: bucket value %a", m.schema, x, v);
                }
                prev_x = x;
                prev_i = idx;
            }
        }
        for (int64_t b = -3 * (int64_t)m.per_octave; b < 3 * (int64_t)m.per_octave; b++) {
            double edge = sketch_map_upper(&m, b), up = nextafter(edge, INFINITY);
            assert_true(sketch_map_index(&m, edge) == b);
            assert_true(sketch_map_index(&m, up) == b + 1);
            assert_true(sketch_map_index(&m, nextafter(edge, 0)) == b);
            assert_true(sketch_schema_index(m.schema, edge) == b);
            assert_true(sketch_schema_index(m.schema, up) == b + 1);
        }
        sketch_map_free(&m, std_alloc());
    }
}

/* The ns cells give the bucket of ns_to_s(ns) (the correctly rounded
 * seconds) for every integer ns below 2^53: on both sides of every
 * boundary crossing in octaves from 1 ns to 2^52 ns, and at random. */
static void index_of_integer_ns(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof ALPHAS / sizeof ALPHAS[0]; i++) {
        sketch_map m;
        assert_int_equal(sketch_map_init(&m, std_alloc(), ALPHAS[i]), LLMLAT_OK);
        int64_t lo = sketch_map_index(&m, 1e-9), hi = sketch_map_index(&m, 0x1p53 / 1e9);
        int64_t step = m.schema > 8 ? 7 : 1; /* every bound, or a sample of them */
        for (int64_t b = lo; b < hi; b += step) {
            double edge = sketch_map_upper(&m, b) * 1e9;
            int64_t g0 = (int64_t)edge;
            for (int64_t g = g0 - 3; g <= g0 + 3; g++) {
                if (g < 1 || g >= SKETCH_NS_EXACT)
                    continue;
                int64_t want = sketch_map_index(&m, (double)g / 1e9);
                if (sketch_map_index_ns(&m, g) != want)
                    fail_msg("schema %d ns %lld: %lld, want %lld", m.schema, (long long)g,
                             (long long)sketch_map_index_ns(&m, g), (long long)want);
            }
        }
        for (int k = 0; k < 200000; k++) {
            int64_t g = (int64_t)(rng() >> (11 + rng() % 53));
            if (g < 1)
                continue;
            assert_true(sketch_map_index_ns(&m, g) == sketch_map_index(&m, (double)g / 1e9));
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
        if (!(fabs(got - want) <= m->alpha * want) ||
            !(fabs(got - want) <= (m->error + 1e-14) * want))
            fail_msg("n %zu q %g: got %.17g, exact %.17g", n, q, got, want);
    }
    assert_true(s->min == x[0] && s->max == x[n - 1]);
}

/* Small and degenerate sets: one sample, two, all zeros, zeros and one
 * value, values far apart (the guarantee holds within a 2^31 span). */
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
 * 2e9 (the guarantee holds within 2^31 of the maximum). */
static void quantiles_of_random_sets(void **state)
{
    (void)state;
    enum { N = 20000 };
    static double x[N];
    for (size_t i = 0; i < sizeof ALPHAS / sizeof ALPHAS[0]; i++) {
        sketch_map m;
        assert_int_equal(sketch_map_init(&m, std_alloc(), ALPHAS[i]), LLMLAT_OK);
        for (int k = 0; k < N; k++)
            x[k] = k % 10 == 0 ? 0 : exp(uniform01() * 17.4 - 8) * (1 + (k % 3 == 0) * 50);
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
    assert_true(a->count == b->count && a->zero == b->zero && a->below == b->below);
    assert_true(memcmp(&a->min, &b->min, sizeof a->min) == 0);
    assert_true(memcmp(&a->max, &b->max, sizeof a->max) == 0);
    assert_true(memcmp(&a->sums, &b->sums, sizeof a->sums) == 0);
    assert_true(a->top == b->top);
    if (a->top == SKETCH_NO_TOP)
        return;
    assert_true(a->low == b->low && a->base == b->base);
    assert_memory_equal(a->bucket, b->bucket, m->width * sizeof *a->bucket);
}

/* Far-apart samples: those more than 2^31 below the maximum are in the
 * zero bucket; whatever the order they came in, and however they were
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
    /* everything more than 2^31 below the maximum is in the zero bucket */
    assert_true(one.below > 1);
    size_t below = 0, zeros = 0;
    double z = sketch_zero_threshold(&one, &m);
    for (int k = 0; k < N; k++) {
        below += x[k] > 0 && x[k] <= z;
        zeros += x[k] == 0;
    }
    assert_true(one.below == below && one.zero == zeros);
    assert_true(z == sketch_map_upper(&m, one.top - (int64_t)m.width));
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
    /* quantiles in the zero bucket stay within [min, max] */
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
        cmocka_unit_test(schema_and_memory),
        cmocka_unit_test(index_and_value),
        cmocka_unit_test(index_of_integer_ns),
        cmocka_unit_test(quantiles_of_small_sets),
        cmocka_unit_test(quantiles_of_random_sets),
        cmocka_unit_test(order_and_merge_do_not_matter),
        cmocka_unit_test(exact_sums),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
