/* Constant labels: validation as Prometheus requires, order, replacement
 * and removal, what reset, merge and serialization do with them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "helpers.h"
#include "llmlat.h"

static void assert_labels(const llmlat_agg *a, const char *const *want, size_t n)
{
    size_t got;
    assert_int_equal(llmlat_agg_label_count(a, &got), LLMLAT_OK);
    assert_int_equal(got, n);
    for (size_t i = 0; i < n; i++) {
        const char *name, *value;
        assert_int_equal(llmlat_agg_get_label(a, i, &name, &value), LLMLAT_OK);
        assert_string_equal(name, want[2 * i]);
        assert_string_equal(value, want[2 * i + 1]);
    }
}

static void names_follow_prometheus(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    const char *good[] = { "model", "_x", "A9_b", "route_2", "l", "leq", "quantiles",
                           "model_version", "modes" };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_int_equal(llmlat_agg_set_label(a, good[i], "v"), LLMLAT_OK);
    /* ... and the ones the expositions write themselves */
    const char *bad[] = { "", "9a", "a-b", "a b", "é", "__name__", "__x",
                          "le", "quantile", "version", "convention", "mode" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(llmlat_agg_set_label(a, bad[i], "v"), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_label(NULL, "a", "v"), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_label(a, NULL, "v"), LLMLAT_EINVAL);
    llmlat_agg_free(a);
}

static void values_are_utf8(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_set_label(a, "a", "llama-3 \"70b\"\\\n\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"),
                     LLMLAT_OK);
    const char *bad[] = {
        "\xff", "\xc3", "\xc3\x28", "\xc0\xaf", /* overlong '/' */
        "\xe0\x80\xaf",                         /* overlong */
        "\xed\xa0\x80",                         /* a surrogate */
        "\xf4\x90\x80\x80",                     /* above U+10FFFF */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(llmlat_agg_set_label(a, "b", bad[i]), LLMLAT_EINVAL);
    const char *want[] = { "a", "llama-3 \"70b\"\\\n\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" };
    assert_labels(a, want, 1);
    llmlat_agg_free(a);
}

static void limits(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    char name[LLMLAT_LABEL_MAX + 2], value[LLMLAT_LABEL_MAX + 2];
    memset(name, 'n', sizeof name);
    memset(value, 'v', sizeof value);
    name[LLMLAT_LABEL_MAX] = value[LLMLAT_LABEL_MAX] = '\0';
    assert_int_equal(llmlat_agg_set_label(a, name, value), LLMLAT_OK);
    name[LLMLAT_LABEL_MAX] = value[LLMLAT_LABEL_MAX] = 'x';
    name[LLMLAT_LABEL_MAX + 1] = value[LLMLAT_LABEL_MAX + 1] = '\0';
    assert_int_equal(llmlat_agg_set_label(a, name, "v"), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_set_label(a, "b", value), LLMLAT_EINVAL);
    for (int i = 1; i < LLMLAT_MAX_LABELS; i++) {
        char n[8];
        snprintf(n, sizeof n, "l%02d", i);
        assert_int_equal(llmlat_agg_set_label(a, n, "v"), LLMLAT_OK);
    }
    assert_int_equal(llmlat_agg_set_label(a, "one_too_many", "v"), LLMLAT_EINVAL);
    /* replacing an existing one is still fine at the limit */
    assert_int_equal(llmlat_agg_set_label(a, "l01", "w"), LLMLAT_OK);
    size_t n;
    assert_int_equal(llmlat_agg_label_count(a, &n), LLMLAT_OK);
    assert_int_equal(n, LLMLAT_MAX_LABELS);
    llmlat_agg_free(a);
}

static void sorted_replaced_removed(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_label(a, "route", "/v1/chat"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(a, "model", "llama-3-70b"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(a, "zone", "eu"), LLMLAT_OK);
    const char *three[] = { "model", "llama-3-70b", "route", "/v1/chat", "zone", "eu" };
    assert_labels(a, three, 3);
    assert_int_equal(llmlat_agg_set_label(a, "model", "qwen"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(a, "route", NULL), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(a, "zone", ""), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(a, "absent", NULL), LLMLAT_OK);
    const char *one[] = { "model", "qwen" };
    assert_labels(a, one, 1);
    const char *name, *value;
    assert_int_equal(llmlat_agg_get_label(a, 1, &name, &value), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_get_label(a, 0, NULL, &value), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_label_count(NULL, &(size_t){ 0 }), LLMLAT_EINVAL);
    llmlat_agg_free(a);
}

static void kept_by_reset_and_merge(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_label(a, "model", "a"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(b, "model", "b"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(b, "route", "r"), LLMLAT_OK);
    add_request(b, 0, EVS({ 5 * MS, 1 }, { 9 * MS, 1 }), ENDS_FINISHED, 9 * MS, 3);
    assert_int_equal(llmlat_agg_merge(a, b), LLMLAT_OK);
    const char *mine[] = { "model", "a" };
    assert_labels(a, mine, 1);
    assert_int_equal(llmlat_agg_reset(a), LLMLAT_OK);
    assert_labels(a, mine, 1);
    llmlat_agg_free(a);
    llmlat_agg_free(b);
}

static void serialized(void **state)
{
    (void)state;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_SGLANG, mode);
        assert_int_equal(llmlat_agg_set_label(a, "route", "/v1/chat"), LLMLAT_OK);
        assert_int_equal(llmlat_agg_set_label(a, "model", "m\xc3\xa9"), LLMLAT_OK);
        add_request(a, 0, EVS({ 5 * MS, 2 }), ENDS_FINISHED, 6 * MS, 3);
        size_t len;
        assert_int_equal(llmlat_agg_serialize(a, NULL, 0, &len), LLMLAT_ENOSPC);
        unsigned char *buf = malloc(len);
        assert_int_equal(llmlat_agg_serialize(a, buf, len, &len), LLMLAT_OK);
        int32_t st;
        llmlat_agg *b = llmlat_agg_deserialize(buf, len, &st);
        assert_int_equal(st, LLMLAT_OK);
        const char *both[] = { "model", "m\xc3\xa9", "route", "/v1/chat" };
        assert_labels(b, both, 2);
        /* equal states, equal bytes */
        size_t len2;
        unsigned char *buf2 = malloc(len);
        assert_int_equal(llmlat_agg_serialize(b, buf2, len, &len2), LLMLAT_OK);
        assert_int_equal(len2, len);
        assert_memory_equal(buf, buf2, len);
        free(buf);
        free(buf2);
        llmlat_agg_free(a);
        llmlat_agg_free(b);
    }
}

static void counted_in_memory(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    uint64_t before = counter_of(a, LLMLAT_COUNT_MEMORY_BYTES);
    assert_int_equal(llmlat_agg_set_label(a, "model", "abc"), LLMLAT_OK);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_MEMORY_BYTES), before + 10);
    llmlat_agg_free(a);
}

static void no_memory_changes_nothing(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_set_label(a, "model", "old"), LLMLAT_OK);
    counting_alloc c;
    /* objects keep the allocator they were made with: make one under it */
    use_counting_alloc(&c, 1);
    llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    use_default_alloc();
    assert_non_null(b);
    assert_int_equal(llmlat_agg_set_label(b, "model", "new"), LLMLAT_ENOMEM);
    assert_labels(b, NULL, 0);
    c.fail_at = -1;
    assert_int_equal(llmlat_agg_set_label(b, "model", "new"), LLMLAT_OK);
    c.fail_at = c.calls;
    assert_int_equal(llmlat_agg_set_label(b, "model", "newer"), LLMLAT_ENOMEM);
    const char *kept[] = { "model", "new" };
    assert_labels(b, kept, 1);
    llmlat_agg_free(b);
    llmlat_agg_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_follow_prometheus),
        cmocka_unit_test(values_are_utf8),
        cmocka_unit_test(limits),
        cmocka_unit_test(sorted_replaced_removed),
        cmocka_unit_test(kept_by_reset_and_merge),
        cmocka_unit_test(serialized),
        cmocka_unit_test(counted_in_memory),
        cmocka_unit_test(no_memory_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
