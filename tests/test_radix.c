/* The radix sort behind exact quantiles and the concurrency sweep. */
#include "helpers.h"

#include "util/radix.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t next_random(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void doubles_sort_like_qsort(void **state)
{
    (void)state;
    llmlat_alloc al = alloc_current();
    static const size_t sizes[] = { 0, 1, 2, 63, 64, 65, 1000, 100000 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        double *v = malloc((n + 1) * sizeof *v), *ref = malloc((n + 1) * sizeof *ref);
        uint32_t *p = malloc((n + 1) * sizeof *p);
        for (size_t i = 0; i < n; i++) {
            uint64_t r = next_random();
            /* negatives, zeros, tiny and huge magnitudes, many duplicates */
            double x = (double)(int64_t)(r % 2001 - 1000) * 1e-3;
            if (r % 7 == 0)
                x = ldexp((double)(r >> 40), (int)(r % 200) - 100);
            v[i] = ref[i] = x;
            p[i] = (uint32_t)i;
        }
        assert_int_equal(radix_sort(&al, RADIX_DOUBLE, v, p, n), LLMLAT_OK);
        qsort(ref, n, sizeof *ref, cmp_double);
        for (size_t i = 0; i < n; i++)
            assert_true(v[i] == ref[i]);
        /* stable: equal values keep their original order */
        for (size_t i = 1; i < n; i++)
            if (v[i] == v[i - 1])
                assert_true(p[i] > p[i - 1]);
        free(v);
        free(ref);
        free(p);
    }
}

static void int64_sort_like_qsort(void **state)
{
    (void)state;
    llmlat_alloc al = alloc_current();
    size_t n = 5000;
    int64_t *v = malloc(n * sizeof *v), *ref = malloc(n * sizeof *ref);
    for (size_t i = 0; i < n; i++)
        v[i] = ref[i] = (int64_t)next_random();
    v[0] = ref[0] = INT64_MIN;
    v[1] = ref[1] = INT64_MAX;
    v[2] = ref[2] = 0;
    v[3] = ref[3] = -1;
    assert_int_equal(radix_sort(&al, RADIX_INT64, v, NULL, n), LLMLAT_OK);
    qsort(ref, n, sizeof *ref, cmp_i64);
    assert_memory_equal(v, ref, n * sizeof *v);
    free(v);
    free(ref);
}

static void out_of_memory_leaves_arrays(void **state)
{
    (void)state;
    counting_alloc c;
    use_counting_alloc(&c, 0);
    llmlat_alloc al = alloc_current();
    double v[100];
    for (int i = 0; i < 100; i++)
        v[i] = 100 - i;
    assert_int_equal(radix_sort(&al, RADIX_DOUBLE, v, NULL, 100), LLMLAT_ENOMEM);
    for (int i = 0; i < 100; i++)
        assert_true(v[i] == 100 - i);
    use_default_alloc();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doubles_sort_like_qsort),
        cmocka_unit_test(int64_sort_like_qsort),
        cmocka_unit_test(out_of_memory_leaves_arrays),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
