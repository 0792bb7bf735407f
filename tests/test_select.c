/* Radix select: the value at any rank of the weight-expanded samples, the
 * same as sorting would give, whatever the shape of the data. */
#include "helpers.h"

#include "util/radix.h"
#include "exact/select.h"

static uint64_t rng = 0x243f6a8885a308d3u;
static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Checks the given ranks (ascending), or when nr is 0 ~100 ranks spread
 * over the total weight (the ends included), against a sorted copy. */
static void check_ranks(const double *v, const uint32_t *w, size_t n, const uint64_t *want,
                        size_t nr)
{
    llmlat_alloc al = alloc_current();
    uint64_t total = 0;
    double lo = v[0], hi = v[0];
    for (size_t i = 0; i < n; i++) {
        total += w ? w[i] : 1;
        if (v[i] < lo)
            lo = v[i];
        if (v[i] > hi)
            hi = v[i];
    }
    double *sorted = malloc(n * sizeof *sorted);
    uint32_t *sw = w ? malloc(n * sizeof *sw) : NULL;
    memcpy(sorted, v, n * sizeof *sorted);
    if (w)
        memcpy(sw, w, n * sizeof *sw);
    assert_int_equal(radix_sort(&al, RADIX_DOUBLE, sorted, sw, n), LLMLAT_OK);

    /* up to 100 ranks per call: spread out, plus the ends and neighbours */
    uint64_t ranks[100];
    if (nr) {
        for (size_t j = 0; j < nr; j++)
            ranks[j] = want[j] < total ? want[j] : total - 1;
    } else {
        for (uint64_t r = 0; r < total && nr < 100; r += total / 97 + 1)
            ranks[nr++] = r;
        if (ranks[nr - 1] != total - 1 && nr < 100)
            ranks[nr++] = total - 1;
    }
    double got[100];
    assert_int_equal(select_ranks(&al, v, w, n, double_key(lo), double_key(hi), ranks, nr, got),
                     LLMLAT_OK);
    size_t i = 0;
    uint64_t below = 0;
    for (size_t j = 0; j < nr; j++) {
        while (below + (sw ? sw[i] : 1) <= ranks[j]) {
            below += sw ? sw[i] : 1;
            i++;
        }
        if (got[j] != sorted[i])
            fail_msg("n=%zu rank %llu: got %a, sorted %a", n, (unsigned long long)ranks[j],
                     got[j], sorted[i]);
    }
    free(sorted);
    free(sw);
}

static void check_against_sort(const double *v, const uint32_t *w, size_t n)
{
    check_ranks(v, w, n, NULL, 0);
}

/* The shapes the tests use: see shapes() below. */
static double shape_value(int shape, uint64_t r)
{
    switch (shape) {
    case 0: /* latencies: ns / 1e9 over four decades */
        return (double)(r % 10000000000u) / 1e9;
    case 1: /* many zeros, then a tight cluster */
        return r % 3 ? 0.0 : 0.010 + (double)(r % 1000) * 1e-9;
    case 2: /* constant */
        return 0.25;
    case 3: /* two values far apart: the deepest recursion */
        return r % 2 ? 1e-300 : 1e300;
    case 4: /* heavy duplicates */
        return (double)(r % 7);
    case 5: /* huge dynamic range */
        return ldexp(1.0 + (double)(r >> 12) / 4503599627370496.0, (int)(r % 200) - 100);
    default: /* decode gaps, 5..45 ms, no zero: a narrow key span (the
              * smallest histograms) */
        return (double)(5000000 + r % 40000000) / 1e9;
    }
}

/* Few ranks over many samples: the predicted windows of select.c (a
 * sample foretells the buckets to gather), whatever the shape, and when
 * the prediction misses (sorted input, duplicates, ranks at the ends). */
static void few_ranks(void **state)
{
    (void)state;
    static const size_t sizes[] = { 65536, 250000 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        double *v = malloc(n * sizeof *v);
        uint32_t *w = malloc(n * sizeof *w);
        for (int shape = 0; shape < 8; shape++) {
            uint64_t total = 0;
            for (size_t i = 0; i < n; i++) {
                uint64_t r = next_random();
                /* shape 7: ascending latencies (strided samples see a
                 * sorted array) */
                v[i] = shape == 7 ? (double)i / 1e6 : shape_value(shape, r);
                w[i] = 1 + (uint32_t)(r % 10 == 0 ? r % 4 : 0);
                total += w[i];
            }
            for (int weighted = 0; weighted < 2; weighted++) {
                uint64_t t = weighted ? total : n, last = t - 1;
                /* numpy's P50/P90/P95/P99 ranks: floor((n - 1) q) and + 1 */
                uint64_t p[8] = { last / 2,         last / 2 + 1,
                                  last * 9 / 10,    last * 9 / 10 + 1,
                                  last * 19 / 20,   last * 19 / 20 + 1,
                                  last * 99 / 100,  last * 99 / 100 + 1 };
                uint64_t ends[3] = { 0, last / 2, last };
                const uint32_t *ws = weighted ? w : NULL;
                check_ranks(v, ws, n, p, 8);
                check_ranks(v, ws, n, p, 1);
                check_ranks(v, ws, n, ends, 3);
            }
        }
        free(v);
        free(w);
    }
}

static void shapes(void **state)
{
    (void)state;
    static const size_t sizes[] = { 1, 2, 100, 4096, 4097, 50000, 300000 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        double *v = malloc(n * sizeof *v);
        uint32_t *w = malloc(n * sizeof *w);
        for (int shape = 0; shape < 7; shape++) {
            for (size_t i = 0; i < n; i++) {
                uint64_t r = next_random();
                v[i] = shape_value(shape, r);
                w[i] = 1 + (uint32_t)(r % 5 == 0 ? r % 1000 : 0);
            }
            check_against_sort(v, NULL, n);
            check_against_sort(v, w, n);
        }
        free(v);
        free(w);
    }
}

static void out_of_memory(void **state)
{
    (void)state;
    /* 20000: two passes; 300000: the predicted windows too */
    static const size_t sizes[] = { 20000, 300000 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        double *v = malloc(n * sizeof *v);
        for (size_t i = 0; i < n; i++)
            v[i] = (double)(next_random() % 999000) / 1000.0;
        v[0] = 0.0;
        v[1] = 999.0;
        counting_alloc c;
        use_counting_alloc(&c, -1);
        llmlat_alloc al = alloc_current();
        uint64_t ranks[] = { 0, n / 2, n / 2 + 1, n - 2, n - 1 };
        double out[5];
        int failures = 0;
        for (long k = 0;; k++) {
            c.fail_at = c.calls + k;
            int32_t st = select_ranks(&al, v, NULL, n, double_key(0.0), double_key(999.0),
                                      ranks, 5, out);
            if (st == LLMLAT_OK)
                break;
            assert_int_equal(st, LLMLAT_ENOMEM);
            failures++;
        }
        assert_true(failures > 0);
        assert_true(out[0] == 0.0 && out[4] == 999.0);
        use_default_alloc();
        free(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shapes),
        cmocka_unit_test(few_ranks),
        cmocka_unit_test(out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
