/* Version, status strings, names, the clock, the allocator hook. */
#include <stdio.h>

#include "helpers.h"

static void version(void **state)
{
    (void)state;
    assert_int_equal(llmlat_version_number(), LLMLAT_VERSION_NUMBER);
    assert_int_equal(llmlat_version_number() / 10000, LLMLAT_VERSION_MAJOR);
    char want[32];
    snprintf(want, sizeof want, "%d.%d.%d", LLMLAT_VERSION_MAJOR, LLMLAT_VERSION_MINOR,
             LLMLAT_VERSION_PATCH);
    assert_string_equal(llmlat_version_string(), want);
}

static void status_strings(void **state)
{
    (void)state;
    /* fixed values, never reused */
    assert_int_equal(LLMLAT_OK, 0);
    assert_int_equal(LLMLAT_EINVAL, -1);
    assert_int_equal(LLMLAT_ENOMEM, -2);
    assert_int_equal(LLMLAT_EORDER, -3);
    assert_int_equal(LLMLAT_ESTATE, -4);
    assert_int_equal(LLMLAT_EUNDEFINED, -5);
    assert_int_equal(LLMLAT_EFORMAT, -6);
    assert_int_equal(LLMLAT_EMISMATCH, -7);
    assert_int_equal(LLMLAT_ENOSPC, -8);
    assert_int_equal(LLMLAT_EOVERFLOW, -9);
    for (int32_t s = 0; s >= -9; s--) {
        const char *text = llmlat_strerror(s);
        assert_non_null(text);
        assert_string_not_equal(text, "unknown status");
        for (int32_t t = s - 1; t >= -9; t--)
            assert_string_not_equal(text, llmlat_strerror(t));
    }
    assert_string_equal(llmlat_strerror(LLMLAT_EOVERFLOW), "a count or sum would overflow");
    assert_string_equal(llmlat_strerror(-10), "unknown status");
    assert_string_equal(llmlat_strerror(1), "unknown status");
    assert_string_equal(llmlat_strerror(INT32_MIN), "unknown status");
}

static void names(void **state)
{
    (void)state;
    assert_string_equal(llmlat_metric_name(LLMLAT_TTFT), "ttft");
    assert_string_equal(llmlat_metric_name(LLMLAT_TPS_USER), "tps_user");
    assert_string_equal(llmlat_metric_name(LLMLAT_TOOL_ITL), "tool_itl");
    assert_string_equal(llmlat_metric_name(LLMLAT_NTPOT), "ntpot");
    assert_string_equal(llmlat_metric_name(LLMLAT_DISPATCH_DELAY), "dispatch_delay");
    assert_string_equal(llmlat_metric_name(LLMLAT_SCHEDULED_TTFT), "scheduled_ttft");
    assert_string_equal(llmlat_metric_name(LLMLAT_SCHEDULED_E2E), "scheduled_e2e");
    assert_null(llmlat_metric_name(0));
    assert_null(llmlat_metric_name(15));
    assert_string_equal(llmlat_convention_name(LLMLAT_CONV_DEFAULT), "default");
    assert_string_equal(llmlat_convention_name(LLMLAT_CONV_VLLM), "vllm");
    assert_string_equal(llmlat_convention_name(LLMLAT_CONV_AIPERF), "aiperf");
    assert_string_equal(llmlat_convention_name(LLMLAT_CONV_SGLANG), "sglang");
    assert_string_equal(llmlat_convention_name(LLMLAT_CONV_LLMPERF), "llmperf");
    assert_string_equal(llmlat_convention_name(LLMLAT_CONV_GUIDELLM), "guidellm");
    assert_string_equal(llmlat_convention_name(LLMLAT_CONV_INFERENCE_PERF), "inference-perf");
    assert_null(llmlat_convention_name(-1));
    assert_null(llmlat_convention_name(7));
}

static void clock_is_monotonic(void **state)
{
    (void)state;
    int64_t prev = llmlat_now_ns();
    assert_true(prev > 0);
    for (int i = 0; i < 1000; i++) {
        int64_t now = llmlat_now_ns();
        assert_true(now >= prev);
        prev = now;
    }
}

static void allocator_hook(void **state)
{
    (void)state;
    counting_alloc c = { 0, -1 };
    assert_int_equal(llmlat_set_allocator(counting_malloc, NULL, counting_free, &c),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_set_allocator(NULL, counting_realloc, NULL, &c), LLMLAT_EINVAL);
    use_counting_alloc(&c, -1);
    llmlat_request *r = llmlat_request_new();
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_true(c.calls >= 2);
    /* objects keep the functions they were made with: switching back now
     * must not free them with the wrong ones (valgrind/ASan would tell) */
    use_default_alloc();
    long before = c.calls;
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, 1, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 1), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    assert_true(c.calls > before); /* still the counting allocator */
    llmlat_request_free(r);
    llmlat_agg_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(version),
        cmocka_unit_test(status_strings),
        cmocka_unit_test(names),
        cmocka_unit_test(clock_is_monotonic),
        cmocka_unit_test(allocator_hook),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
