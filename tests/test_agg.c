/* The aggregator's life cycle: add, merge (= the union), reset, and the
 * promise that a failed call leaves it as it was. */
#include "helpers.h"

/* Everything observable about an aggregator that must not change when a
 * call fails (or must be equal between two aggregators). */
typedef struct snapshot {
    uint64_t counters[7];
    double stats[14][6];
    double quantiles[14][3];
    double peak_rate;
} snapshot;

static void take(const llmlat_agg *a, snapshot *s)
{
    memset(s, 0, sizeof *s);
    for (int32_t c = LLMLAT_COUNT_COMPLETED; c <= LLMLAT_COUNT_PEAK_CONCURRENCY; c++)
        if (c != LLMLAT_COUNT_GOOD)
            s->counters[c - 1] = counter_of(a, c);
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
        for (int32_t st = LLMLAT_STAT_COUNT; st <= LLMLAT_STAT_MEDIAN; st++) {
            double v = -1;
            int32_t status = llmlat_agg_stat(a, m, st, &v);
            assert_true(status == LLMLAT_OK || status == LLMLAT_EUNDEFINED);
            s->stats[m - 1][st - 1] = status == LLMLAT_OK ? v : -1;
        }
        static const double qs[] = { 0.1, 0.5, 0.99 };
        for (int i = 0; i < 3; i++) {
            double v = -1;
            int32_t status = llmlat_agg_quantile(a, m, qs[i], &v);
            s->quantiles[m - 1][i] = status == LLMLAT_OK ? v : -1;
        }
    }
    double v = -1;
    s->peak_rate = llmlat_agg_rate(a, LLMLAT_RATE_PEAK_OUTPUT_TOKENS, &v) == LLMLAT_OK ? v : -1;
}

static void assert_same(const snapshot *x, const snapshot *y)
{
    assert_memory_equal(x, y, sizeof *x); /* bit for bit */
}

/* A varied request i: timings and chunk sizes change with i. */
static llmlat_request *varied_request(int i)
{
    int64_t start = (int64_t)i * 37 * MS;
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
    int64_t t = start + (50 + i % 13 * 20) * MS;
    for (int e = 0; e < 3 + i % 9; e++) {
        assert_int_equal(llmlat_request_event(r, t, (uint32_t)((i + e) % 4)), LLMLAT_OK);
        t += (5 + (i * e) % 17) * MS;
    }
    assert_int_equal(llmlat_request_set_input_tokens(r, (uint64_t)(100 + i)), LLMLAT_OK);
    if (i % 11 == 3)
        assert_int_equal(llmlat_request_fail(r, t), LLMLAT_OK);
    else
        assert_int_equal(llmlat_request_finish(r, t), LLMLAT_OK);
    return r;
}

static void add_varied(llmlat_agg *a, int from, int to)
{
    for (int i = from; i < to; i++) {
        llmlat_request *r = varied_request(i);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        llmlat_request_free(r);
    }
}

static void creation_and_bad_ids(void **state)
{
    (void)state;
    assert_null(llmlat_agg_new(-1, LLMLAT_MODE_EXACT));
    assert_null(llmlat_agg_new(7, LLMLAT_MODE_EXACT));
    assert_null(llmlat_agg_new(LLMLAT_CONV_DEFAULT, -1));
    assert_null(llmlat_agg_new(LLMLAT_CONV_DEFAULT, 2));
    /* llmlat_agg_create tells a bad id (EINVAL) from no memory (ENOMEM,
     * test_alloc_failure.c), and clears *out on an error */
    llmlat_agg *made = (llmlat_agg *)&made;
    assert_int_equal(llmlat_agg_create(7, LLMLAT_MODE_EXACT, &made), LLMLAT_EINVAL);
    assert_null(made);
    made = (llmlat_agg *)&made;
    assert_int_equal(llmlat_agg_create(LLMLAT_CONV_DEFAULT, 2, &made), LLMLAT_EINVAL);
    assert_null(made);
    assert_int_equal(llmlat_agg_create(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT, NULL),
                     LLMLAT_EINVAL);
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        assert_int_equal(llmlat_agg_create(LLMLAT_CONV_VLLM, mode, &made), LLMLAT_OK);
        assert_non_null(made);
        int32_t got;
        assert_int_equal(llmlat_agg_get_mode(made, &got), LLMLAT_OK);
        assert_int_equal(got, mode);
        llmlat_agg_free(made);
    }
    llmlat_agg_free(NULL);
    for (int32_t c = LLMLAT_CONV_DEFAULT; c <= CONV_LAST; c++) {
        llmlat_agg *a = llmlat_agg_new(c, LLMLAT_MODE_EXACT);
        assert_non_null(a);
        int32_t got;
        assert_int_equal(llmlat_agg_get_convention(a, &got), LLMLAT_OK);
        assert_int_equal(got, c);
        assert_int_equal(llmlat_agg_get_mode(a, &got), LLMLAT_OK);
        assert_int_equal(got, LLMLAT_MODE_EXACT);
        assert_int_equal(llmlat_agg_get_convention(a, NULL), LLMLAT_EINVAL);
        assert_int_equal(llmlat_agg_get_mode(NULL, &got), LLMLAT_EINVAL);
        llmlat_agg_free(a);
    }
}

static void add_needs_an_ended_request(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_agg_add(NULL, r), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_add(a, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_ESTATE); /* not started */
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, 5 * MS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_ESTATE); /* in flight */
    assert_int_equal(counter_of(a, LLMLAT_COUNT_COMPLETED), 0);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_FAILED), 0);
    assert_int_equal(llmlat_request_finish(r, 5 * MS), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    /* the aggregator copied what it needs: reusing the request is safe */
    assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, 900 * MS, 1), LLMLAT_OK);
    assert_close(stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_MAX), 0.005, TOL_S);
    llmlat_request_free(r);
    llmlat_agg_free(a);
}

static void merge_equals_union(void **state)
{
    (void)state;
    for (int32_t c = LLMLAT_CONV_DEFAULT; c <= CONV_LAST; c++) {
        llmlat_agg *all = llmlat_agg_new(c, LLMLAT_MODE_EXACT);
        llmlat_agg *x = llmlat_agg_new(c, LLMLAT_MODE_EXACT);
        llmlat_agg *y = llmlat_agg_new(c, LLMLAT_MODE_EXACT);
        llmlat_agg *yx = llmlat_agg_new(c, LLMLAT_MODE_EXACT);
        add_varied(all, 0, 300);
        add_varied(x, 0, 120);
        add_varied(y, 120, 300);
        snapshot sy_before, sy_after, s_all, s_xy, s_yx;
        take(y, &sy_before);
        assert_int_equal(llmlat_agg_merge(x, y), LLMLAT_OK);
        take(y, &sy_after);
        assert_same(&sy_before, &sy_after); /* the source is not changed */
        add_varied(yx, 120, 300);
        llmlat_agg *x2 = llmlat_agg_new(c, LLMLAT_MODE_EXACT);
        add_varied(x2, 0, 120);
        assert_int_equal(llmlat_agg_merge(yx, x2), LLMLAT_OK);
        take(all, &s_all);
        take(x, &s_xy);
        take(yx, &s_yx);
        assert_same(&s_all, &s_xy);
        assert_same(&s_all, &s_yx);
        /* merging an empty aggregator changes nothing */
        llmlat_agg *empty = llmlat_agg_new(c, LLMLAT_MODE_EXACT);
        assert_int_equal(llmlat_agg_merge(x, empty), LLMLAT_OK);
        take(x, &s_xy);
        assert_same(&s_all, &s_xy);
        llmlat_agg_free(empty);
        llmlat_agg_free(x2);
        llmlat_agg_free(all);
        llmlat_agg_free(x);
        llmlat_agg_free(y);
        llmlat_agg_free(yx);
    }
}

static void merge_rejects_mismatch(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    add_varied(b, 0, 10);
    assert_int_equal(llmlat_agg_merge(a, b), LLMLAT_EMISMATCH);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_COMPLETED), 0);
    assert_int_equal(llmlat_agg_merge(a, a), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_merge(NULL, b), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_merge(a, NULL), LLMLAT_EINVAL);
    llmlat_agg_free(a);
    llmlat_agg_free(b);
}

static void reset_keeps_settings(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.5), LLMLAT_OK);
    add_varied(a, 0, 50);
    assert_int_equal(llmlat_agg_reset(NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_reset(a), LLMLAT_OK);
    llmlat_agg *fresh = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    snapshot sa, sf;
    take(a, &sa);
    take(fresh, &sf);
    assert_same(&sa, &sf);
    double v;
    assert_int_equal(llmlat_agg_get_param(a, LLMLAT_PARAM_SLO_TTFT, &v), LLMLAT_OK);
    assert_true(v == 0.5);
    /* and it works again as before */
    add_varied(a, 0, 50);
    add_varied(fresh, 0, 50);
    take(a, &sa);
    take(fresh, &sf);
    assert_same(&sa, &sf);
    llmlat_agg_free(a);
    llmlat_agg_free(fresh);
}

/* Every allocation of an add, of a merge, and of a query fails in turn:
 * the call returns ENOMEM and the aggregator still holds exactly what it
 * held. */
static void out_of_memory_changes_nothing(void **state)
{
    (void)state;
    counting_alloc c;
    use_counting_alloc(&c, -1);
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *src = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    add_varied(a, 0, 40);
    add_varied(src, 40, 400);
    llmlat_request *big = varied_request(1000);
    snapshot before, after;
    take(a, &before);

    int failures = 0;
    for (long n = 0;; n++) {
        c.fail_at = c.calls + n;
        int32_t st = llmlat_agg_add(a, big);
        c.fail_at = -1;
        if (st == LLMLAT_OK)
            break;
        assert_int_equal(st, LLMLAT_ENOMEM);
        take(a, &after);
        assert_same(&before, &after);
        failures++;
    }
    for (long n = 0;; n++) {
        take(a, &before);
        c.fail_at = c.calls + n;
        int32_t st = llmlat_agg_merge(a, src);
        c.fail_at = -1;
        if (st == LLMLAT_OK)
            break;
        assert_int_equal(st, LLMLAT_ENOMEM);
        take(a, &after);
        assert_same(&before, &after);
        failures++;
    }
    /* queries sort lazily: their allocation can fail too, harmlessly */
    add_varied(a, 0, 5);
    c.fail_at = c.calls;
    double v;
    assert_int_equal(llmlat_agg_quantile(a, LLMLAT_TTFT, 0.5, &v), LLMLAT_ENOMEM);
    c.fail_at = -1;
    assert_int_equal(llmlat_agg_quantile(a, LLMLAT_TTFT, 0.5, &v), LLMLAT_OK);
    assert_true(failures >= 2);
    llmlat_request_free(big);
    llmlat_agg_free(a);
    llmlat_agg_free(src);
    use_default_alloc();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(creation_and_bad_ids),
        cmocka_unit_test(add_needs_an_ended_request),
        cmocka_unit_test(merge_equals_union),
        cmocka_unit_test(merge_rejects_mismatch),
        cmocka_unit_test(reset_keeps_settings),
        cmocka_unit_test(out_of_memory_changes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
