/* The reader's exact conversions (lib/read/decimal.c): decimal times to
 * integer ns (no double anywhere) in any unit, token counts, and ns back
 * to text for messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "read/decimal.h"

static bool seconds_to_ns(const char *text, int64_t *out)
{
    return dec_to_ns(text, strlen(text), DEC_SECONDS, out);
}

static void ns_is(const char *text, int64_t want)
{
    int64_t got = 12345;
    if (!seconds_to_ns(text, &got))
        fail_msg("\"%s\" refused, want %lld", text, (long long)want);
    if (got != want)
        fail_msg("\"%s\" -> %lld, want %lld", text, (long long)got, (long long)want);
}

static void ns_refused(const char *text)
{
    int64_t got;
    if (seconds_to_ns(text, &got))
        fail_msg("\"%s\" accepted as %lld, want refused", text, (long long)got);
}

static void plain_decimals(void **state)
{
    (void)state;
    ns_is("0", 0);
    ns_is("-0", 0);
    ns_is("1", 1000000000);
    ns_is("1.5", 1500000000);
    ns_is("0.000000001", 1);
    ns_is("-0.5", -500000000);
    ns_is("12.345678901", 12345678901);
    ns_is("1700000000.123456789", INT64_C(1700000000123456789));
    ns_is("0.1000000000000000000000000001", 100000000); /* long tails */
}

static void rounding_to_nearest(void **state)
{
    (void)state;
    ns_is("0.0000000015", 2); /* halves away from zero */
    ns_is("-0.0000000015", -2);
    ns_is("0.0000000014999", 1);
    ns_is("0.00000000049", 0);
    ns_is("0.00000000050", 1);
    ns_is("0.9999999995", 1000000000);
    ns_is("12345.678901234567", 12345678901235); /* what Python's repr writes */
}

static void exponents(void **state)
{
    (void)state;
    ns_is("1e-9", 1);
    ns_is("1E9", INT64_C(1000000000000000000));
    ns_is("1.5e-9", 2);
    ns_is("15e-10", 2);
    ns_is("0.5e1", 5000000000);
    ns_is("100e-2", 1000000000);
    ns_is("2.5E+0", 2500000000);
    ns_is("1e-400", 0);
    ns_is("0e999999999", 0);
    ns_is("-12.5e-3", -12500000);
}

static void limits(void **state)
{
    (void)state;
    ns_is("9223372036.854775807", INT64_MAX);
    ns_is("9223372036.8547758074", INT64_MAX);
    ns_is("-9223372036.854775808", INT64_MIN);
    ns_is("-9223372036.8547758084", INT64_MIN);
    ns_refused("9223372036.854775808");
    ns_refused("9223372036.8547758075"); /* rounds past the limit */
    ns_refused("-9223372036.854775809");
    ns_refused("1e19");
    ns_refused("1e999999999999");
    ns_refused("99999999999999999999");
}

/* Against integer arithmetic done here: seconds and 0-12 decimals. */
static void random_against_integers(void **state)
{
    (void)state;
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t sec = x % 9000000000u;
        int decimals = (int)(x >> 40) % 13;
        uint64_t frac = (x >> 20) % 1000000000000u; /* 12 digits */
        char digits[16];
        snprintf(digits, sizeof digits, "%012llu", (unsigned long long)frac);
        digits[decimals] = '\0';
        bool negative = (x >> 60) & 1;
        char text[48];
        snprintf(text, sizeof text, "%s%llu%s%s", negative ? "-" : "",
                 (unsigned long long)sec, decimals ? "." : "", digits);
        /* expected: the first 9 decimals, then round on the 10th */
        uint64_t ns = sec * 1000000000u, scale = 100000000;
        for (int d = 0; d < decimals && d < 9; d++, scale /= 10)
            ns += (uint64_t)(digits[d] - '0') * scale;
        if (decimals > 9 && digits[9] >= '5')
            ns++;
        ns_is(text, negative ? -(int64_t)ns : (int64_t)ns);
    }
}

static bool u64_of(const char *text, uint64_t max, uint64_t *out)
{
    return dec_to_u64(text, strlen(text), max, out);
}

static void token_counts(void **state)
{
    (void)state;
    uint64_t v;
    assert_true(u64_of("0", UINT32_MAX, &v) && v == 0);
    assert_true(u64_of("4294967295", UINT32_MAX, &v) && v == UINT32_MAX);
    assert_false(u64_of("4294967296", UINT32_MAX, &v));
    assert_true(u64_of("18446744073709551615", UINT64_MAX, &v) && v == UINT64_MAX);
    assert_false(u64_of("18446744073709551616", UINT64_MAX, &v));
    assert_false(u64_of("", UINT64_MAX, &v));
    assert_false(u64_of("-1", UINT64_MAX, &v));
    assert_false(u64_of("1.0", UINT64_MAX, &v));
    assert_false(u64_of("1e2", UINT64_MAX, &v));
}

static void seconds_text(void **state)
{
    (void)state;
    char out[32];
    const struct {
        int64_t ns;
        const char *text;
    } cases[] = {
        { 0, "0" }, { 1500000000, "1.5" }, { 1000000000, "1" }, { -1, "-0.000000001" },
        { 12345678901, "12.345678901" }, { INT64_MIN, "-9223372036.854775808" },
        { INT64_MAX, "9223372036.854775807" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        dec_seconds_text(cases[i].ns, out);
        assert_string_equal(out, cases[i].text);
        int64_t back;
        assert_true(seconds_to_ns(out, &back) && back == cases[i].ns);
    }
}

/* Other units: AIPerf's ms, perf_analyzer's ns. */
static void units(void **state)
{
    (void)state;
    int64_t v;
    assert_true(dec_to_ns("255.88656799999998", 18, DEC_MILLISECONDS, &v));
    assert_int_equal(v, 255886568); /* AIPerf's ms of an integer ns, back to it */
    assert_true(dec_to_ns("4.898437", 8, DEC_MILLISECONDS, &v));
    assert_int_equal(v, 4898437);
    assert_true(dec_to_ns("1759813207532900363", 19, DEC_NANOSECONDS, &v));
    assert_int_equal(v, INT64_C(1759813207532900363));
    assert_true(dec_to_ns("1.5", 3, DEC_NANOSECONDS, &v));
    assert_int_equal(v, 2);
    assert_true(dec_to_ns("2e3", 3, DEC_MILLISECONDS, &v));
    assert_int_equal(v, 2000000000);
    assert_false(dec_to_ns("9223372036854.775808", 20, DEC_MILLISECONDS, &v));
    /* the plain fast path is for seconds only */
    assert_true(dec_to_ns("12", 2, DEC_MILLISECONDS, &v));
    assert_int_equal(v, 12000000);
}

/* The double Python read (tools that write epoch times as floats): its
 * exact value, rounded to ns. 1772471992.229513 is the double
 * 1772471992.2295129299163818359375 (a ulp is 2^-22 s): ...512930 ns,
 * where the decimal text gives ...513000. */
static void as_doubles(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int unit;
        int64_t want;
    } CASES[] = {
        { "1772471992.229513", DEC_SECONDS, INT64_C(1772471992229512930) },
        { "1772471992.4033701", DEC_SECONDS, INT64_C(1772471992403370142) },
        { "-1772471992.229513", DEC_SECONDS, -INT64_C(1772471992229512930) },
        { "0.1", DEC_SECONDS, 100000000 },   /* 0.1000000000000000055511... */
        { "1e-9", DEC_SECONDS, 1 },
        { "4e-10", DEC_SECONDS, 0 },
        { "0", DEC_SECONDS, 0 },
        { "2.5", DEC_MILLISECONDS, 2500000 },
        { "9.2e9", DEC_SECONDS, INT64_C(9200000000000000000) },
        { "1e300", DEC_NANOSECONDS, 0 }, /* refused below */
    };
    for (size_t i = 0; i + 1 < sizeof CASES / sizeof CASES[0]; i++) {
        int64_t got = 0;
        if (!dec_double_to_ns(CASES[i].text, strlen(CASES[i].text), CASES[i].unit, &got) ||
            got != CASES[i].want)
            fail_msg("%s -> %lld, want %lld", CASES[i].text, (long long)got,
                     (long long)CASES[i].want);
    }
    int64_t got;
    assert_false(dec_double_to_ns("1e300", 5, DEC_NANOSECONDS, &got));
    assert_false(dec_double_to_ns("9.3e9", 5, DEC_SECONDS, &got));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_decimals),
        cmocka_unit_test(as_doubles),
        cmocka_unit_test(rounding_to_nearest),
        cmocka_unit_test(exponents),
        cmocka_unit_test(limits),
        cmocka_unit_test(random_against_integers),
        cmocka_unit_test(token_counts),
        cmocka_unit_test(seconds_text),
        cmocka_unit_test(units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
