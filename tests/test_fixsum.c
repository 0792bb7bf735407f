/* The exported sums (LLMLAT_STAT_SUM): fixsum_total rounds the exact
 * quotient correctly (ties to even, the remainder as a sticky bit) and
 * never decreases as the integer grows; fixsum_accumulate puts every
 * sample on the fixed 2^-64 grid, weights included, whatever the order. */
#include <float.h>
#include <stdbool.h>

#include "helpers.h"
#include "util/fixsum.h"

/* acc = v * 2^64 for an integer v < 2^64 (three limbs). */
static void from_integer(uint64_t acc[3], uint64_t lo, uint64_t hi)
{
    acc[0] = 0;
    acc[1] = lo;
    acc[2] = hi;
}

static void integers_and_ties(void **state)
{
    (void)state;
    uint64_t acc[3];
    from_integer(acc, 0, 0);
    assert_true(fixsum_total(acc, 3, 1) == 0.0);
    assert_true(fixsum_total(acc, 3, 1000000000u) == 0.0);
    from_integer(acc, 123456789, 0);
    assert_true(fixsum_total(acc, 3, 1) == 123456789.0);
    /* 1.5 s in ns */
    from_integer(acc, 1500000000u, 0);
    assert_true(fixsum_total(acc, 3, 1000000000u) == 1.5);
    /* 2^53 + 1 is a tie between 2^53 and 2^53 + 2: even wins */
    uint64_t odd = (UINT64_C(1) << 53) + 1;
    from_integer(acc, odd, 0);
    assert_true(fixsum_total(acc, 3, 1) == 0x1p53);
    /* anything above the tie rounds up: the remainder is the sticky bit */
    acc[0] = 1;
    assert_true(fixsum_total(acc, 3, 1) == 0x1p53 + 2.0);
    /* the same tie, scaled by 1e9: (2^53 + 1) * 1e9 ns; then 1 more ns
     * (a remainder of the division, not of the grid) */
    uint64_t lo, hi;
    wide_mul(odd, 1000000000u, &lo, &hi);
    from_integer(acc, lo, hi);
    assert_true(fixsum_total(acc, 3, 1000000000u) == 0x1p53);
    from_integer(acc, lo + 1, hi + (lo + 1 == 0));
    assert_true(fixsum_total(acc, 3, 1000000000u) == 0x1p53 + 2.0);
    /* the smallest sum, 2^-64 ns, is a normal double */
    uint64_t one[3] = { 1, 0, 0 };
    double tiny = fixsum_total(one, 3, 1000000000u);
    assert_true(tiny > 0.0 && tiny >= DBL_MIN);
    assert_true(fabs(tiny - 0x1p-64 / 1e9) <= 0x1p-64 / 1e9 * DBL_EPSILON);
}

/* Random integers: within half an ulp of a long double reference, and a
 * growing integer never gives a smaller double. The reference needs long
 * double's 64-bit mantissa, which valgrind's emulation does not give (it
 * computes them as doubles): there, only the monotony is checked. */
static void rounding_and_monotone(void **state)
{
    (void)state;
    volatile long double one = 1.0L;
    bool wide = one + 0x1p-60L != one;
    uint64_t seed = 0x9e3779b97f4a7c15u;
    double prev = 0.0;
    uint64_t acc[3] = { 0, 0, 0 };
    for (int i = 0; i < 200000; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        uint64_t step = seed >> (seed & 63); /* steps of every size */
        uint64_t before = acc[0];
        acc[0] += step;
        if (acc[0] < before && ++acc[1] == 0)
            acc[2]++;
        for (int d = 0; d < 2; d++) {
            uint32_t divisor = d ? 1000000000u : 1;
            double got = fixsum_total(acc, 3, divisor);
            long double want = ((long double)acc[2] * 0x1p128L + (long double)acc[1] * 0x1p64L +
                                (long double)acc[0]) * 0x1p-64L / divisor;
            if (wide)
                assert_true(fabsl((long double)got - want) <= want * 0x1p-53L * 1.0001L);
            if (d) {
                assert_true(got >= prev);
                prev = got;
            }
        }
    }
}

static void accumulate_is_exact_and_weighted(void **state)
{
    (void)state;
    /* ten doubles 0.1 sum, in integers, to exactly ten times that double
     * (1 + 5.6e-17), in any order; plus 3 that rounds to 4 */
    double v[12] = { 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.0, 3.0 };
    uint64_t a[FIXSUM_WIDE] = { 0 }, b[FIXSUM_WIDE] = { 0 };
    fixsum_accumulate(a, v, NULL, 12);
    for (int i = 11; i >= 0; i--)
        fixsum_accumulate(b, &v[i], NULL, 1);
    assert_memory_equal(a, b, sizeof a);
    assert_true(fixsum_total(a, FIXSUM_WIDE, 1) == 4.0);
    /* weights multiply exactly: 0.1 x 10 in one sample is the same sum */
    uint64_t c[FIXSUM_WIDE] = { 0 };
    double tenth[2] = { 0.1, 3.0 };
    uint32_t w[2] = { 10, 1 };
    fixsum_accumulate(c, tenth, w, 2);
    assert_memory_equal(a, c, sizeof a);
    /* the largest values admitted (tokens/s just below 2^64) and weights */
    uint64_t d[FIXSUM_WIDE] = { 0 };
    double big[2] = { 0x1p63, 0x1p63 };
    uint32_t wbig[2] = { UINT32_MAX, UINT32_MAX };
    fixsum_accumulate(d, big, wbig, 2);
    assert_true(fixsum_total(d, FIXSUM_WIDE, 1) == 0x1p64 * (double)UINT32_MAX);
    /* below the grid, a sample adds nothing, and never anything negative */
    uint64_t e[FIXSUM_WIDE] = { 0 };
    double small = 0x1p-70;
    fixsum_accumulate(e, &small, NULL, 1);
    assert_true(fixsum_total(e, FIXSUM_WIDE, 1) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_and_ties),
        cmocka_unit_test(rounding_and_monotone),
        cmocka_unit_test(accumulate_is_exact_and_weighted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
