/* The wide integers (lib/util/wide.c) and what they give: the conversion
 * to double against exact rational arithmetic (tests/data/wide_fixtures.h,
 * from scripts/gen-wide-fixtures), the limb operations, the exact square
 * of a k-token chunk (fixsum.c), and bounded mode's COUNT, MEAN and STD
 * against the exact rational values. */
#include <inttypes.h>
#include <stdio.h>

#include "helpers.h"
#include "data/wide_fixtures.h"
#include "util/fixsum.h"
#include "util/wide.h"

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t bits_of(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* Ties to even, one above and below, full top limbs, every limb count,
 * subnormal and infinite results: the nearest double, every time. */
static void conversion_is_correctly_rounded(void **state)
{
    (void)state;
    int limb_counts = 0;
    for (size_t i = 0; i < N_OF(wide_cases); i++) {
        const wide_case *c = &wide_cases[i];
        double got = wide_to_double(c->v, c->n, c->exp2);
        if (bits_of(got) != bits_of(c->want))
            fail_msg("case %zu (%s, %d limbs, 2^%d): %a, want %a", i, c->why, c->n, c->exp2,
                     got, c->want);
        limb_counts |= 1 << c->n;
    }
    assert_int_equal(limb_counts, 0x7e); /* 1 to 6 limbs */
    assert_true(N_OF(wide_cases) > 1000);
}

/* The slip this module fixed: under a full top limb, the limb below is all
 * sticky bits. A tie in the top limb that only that limb breaks rounds up;
 * without it, to even. Seen through a variance of n = 1: D = s2 2^64. */
static void full_top_limb_breaks_a_tie(void **state)
{
    (void)state;
    fixsum f = { { 0 }, { 0, 0, 1, (UINT64_C(1) << 63) | (UINT64_C(1) << 10) } };
    assert_true(fixsum_variance(&f, 1, 0) == 0x1.0000000000001p+191);
    f.s2[2] = 0;
    assert_true(fixsum_variance(&f, 1, 0) == 0x1p+191);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

/* Division by 32-bit digits, multiplication, subtraction and comparison
 * agree with each other: q d + r = v, r < d. */
static void limb_arithmetic(void **state)
{
    (void)state;
    for (int i = 0; i < 2000; i++) {
        uint64_t v[3] = { rng(), rng(), i % 3 ? rng() : 0 }, q[3];
        uint32_t d = (uint32_t)(i % 7 == 0 ? UINT32_MAX : (rng() >> (i % 32)) | 1);
        memcpy(q, v, sizeof q);
        uint32_t r = wide_div32(q, 3, d);
        assert_true(r < d);
        uint64_t back[4], dd = d, rr = r;
        wide_mul_n(back, q, 3, &dd, 1);
        wide_add_at(back, 4, &rr, 1, 0);
        assert_true(back[3] == 0);
        assert_memory_equal(back, v, sizeof v);
        /* v - q = the other part, and ordering */
        uint64_t diff[3];
        memcpy(diff, v, sizeof diff);
        if (d > 1) {
            assert_true(wide_less(q, v, 3));
            wide_sub(diff, q, 3);
            wide_add_at(diff, 3, q, 3, 0);
            assert_memory_equal(diff, v, sizeof v);
        }
        assert_false(wide_less(v, v, 3));
    }
}

/* floor(g^2 2^64 / k), exactly: s2 k <= g^2 2^64 < (s2 + 1) k. */
static void chunk_squares_are_exact(void **state)
{
    (void)state;
    static const uint32_t ks[] = { 1, 2, 3, 7, 16, 1000, UINT32_MAX };
    for (int i = 0; i < 3000; i++) {
        uint64_t g = i < 4 ? (uint64_t[]){ 0, 1, INT64_MAX, 3000001 }[i] : rng() >> (1 + i % 63);
        uint32_t k = ks[i % N_OF(ks)];
        fixsum f = { { 0 }, { 0 } };
        fixsum_add_square_ratio(&f, g, k);
        uint64_t want[4] = { 0 }, kk = k, lo[5], hi[5];
        wide_mul(g, g, &want[1], &want[2]); /* g^2 2^64 */
        wide_mul_n(lo, f.s2, 4, &kk, 1);
        assert_false(wide_less(want, lo, 4) || lo[4]); /* s2 k <= g^2 2^64 */
        uint64_t one = 1, next[4];
        memcpy(next, f.s2, sizeof next);
        wide_add_at(next, 4, &one, 1, 0);
        wide_mul_n(hi, next, 4, &kk, 1);
        assert_true(hi[4] || wide_less(want, hi, 4)); /* < (s2 + 1) k */
        assert_true(f.s1[0] == 0 && f.s1[1] == 0 && f.s1[2] == 0);
    }
}

static double ulp_of(double x)
{
    return nextafter(x, INFINITY) - x;
}

static double stat(const llmlat_agg *a, int32_t stat)
{
    double v;
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_ITL, stat, &v), LLMLAT_OK);
    return v;
}

/* What docs/bounded.md says of COUNT, MEAN and STD: COUNT exact; MEAN and
 * STD the very bits of the documented formula (exact integers, one
 * correct rounding, then a few double operations), so within 2^-51 of the
 * exact rational values (and 0 for samples all equal). Default convention
 * (ddof 0) and LLMPerf's (ddof 1) over the same requests. */
static void bounded_stats_against_exact_rationals(void **state)
{
    (void)state;
    for (size_t s = 0; s < N_OF(wide_stats_sets); s++) {
        const wide_stats_set *w = &wide_stats_sets[s];
        for (int ddof = 0; ddof <= 1; ddof++) {
            llmlat_agg *a = llmlat_agg_new(ddof ? LLMLAT_CONV_LLMPERF : LLMLAT_CONV_DEFAULT,
                                           LLMLAT_MODE_BOUNDED);
            assert_non_null(a);
            llmlat_request *r = llmlat_request_new();
            size_t at = 0;
            for (size_t q = 0; q < w->n_requests; q++) {
                size_t n = w->n_events[q];
                assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
                assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
                assert_int_equal(llmlat_request_events(r, w->t_ns + at, w->k + at, n), LLMLAT_OK);
                assert_int_equal(llmlat_request_finish(r, w->t_ns[at + n - 1]), LLMLAT_OK);
                assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
                at += n;
            }
            llmlat_request_free(r);
            double count = stat(a, LLMLAT_STAT_COUNT), mean = stat(a, LLMLAT_STAT_MEAN);
            double std = stat(a, LLMLAT_STAT_STD);
            double want_std = ddof ? w->std1 : w->std0, true_std = ddof ? w->true_std1 : w->true_std0;
            if (count != (double)w->count || bits_of(mean) != bits_of(w->mean) ||
                bits_of(std) != bits_of(want_std))
                fail_msg("%s, ddof %d: count %.17g mean %a std %a, want %" PRIu64 " %a %a",
                         w->name, ddof, count, mean, std, w->count, w->mean, want_std);
            assert_true(fabs(mean - w->true_mean) <= 0x1p-51 * w->true_mean);
            assert_true(fabs(std - true_std) <= 0x1p-51 * true_std);
            if (bits_of(mean) != bits_of(w->true_mean) && getenv("LLMLAT_TEST_VERBOSE"))
                fprintf(stderr, "%s: mean %.1f ulp from exact\n", w->name,
                        (mean - w->true_mean) / ulp_of(w->true_mean));
            llmlat_agg_free(a);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conversion_is_correctly_rounded),
        cmocka_unit_test(full_top_limb_breaks_a_tie),
        cmocka_unit_test(limb_arithmetic),
        cmocka_unit_test(chunk_squares_are_exact),
        cmocka_unit_test(bounded_stats_against_exact_rationals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
