/* LLMLAT_MODE_BOUNDED through the public API: fixed memory, parameters,
 * goodput counted at add time, peaks undefined, merges equal to the union
 * bit for bit, every convention agreeing with exact mode, allocation
 * failures. */
#include "helpers.h"

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static llmlat_agg *bounded(int32_t conv)
{
    llmlat_agg *a = llmlat_agg_new(conv, LLMLAT_MODE_BOUNDED);
    assert_non_null(a);
    return a;
}

/* A random request into r: some empty chunks, multi-token chunks, zero
 * gaps, usage counts; one in eight fails. */
static void random_request(llmlat_request *r, int64_t start)
{
    assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
    int64_t t = start + (int64_t)(rng() % (800 * MS));
    int n = (int)(rng() % 40);
    for (int i = 0; i < n; i++) {
        uint32_t k = rng() % 8 == 0 ? 0 : rng() % 6 == 0 ? 1 + rng() % 4 : 1;
        assert_int_equal(llmlat_request_event(r, t, k), LLMLAT_OK);
        t += rng() % 5 == 0 ? 0 : (int64_t)(rng() % (90 * MS));
    }
    assert_int_equal(llmlat_request_set_input_tokens(r, rng() % 3000), LLMLAT_OK);
    if (rng() % 4 == 0)
        assert_int_equal(llmlat_request_set_output_tokens(r, rng() % 50), LLMLAT_OK);
    t += (int64_t)(rng() % (5 * MS));
    if (rng() % 8 == 0)
        assert_int_equal(llmlat_request_fail(r, t), LLMLAT_OK);
    else
        assert_int_equal(llmlat_request_finish(r, t), LLMLAT_OK);
}

/* Adds `n` requests one of aggs[0..naggs) picked at random gets each
 * (naggs = 1: all to one), from the same seed. */
static void add_random(llmlat_agg **aggs, size_t naggs, int n, uint64_t seed)
{
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    rng_state = seed;
    for (int i = 0; i < n; i++) {
        random_request(r, (int64_t)i * 30 * MS);
        size_t pick = naggs > 1 ? (size_t)(i * 7919u % naggs) : 0;
        assert_int_equal(llmlat_agg_add(aggs[pick], r), LLMLAT_OK);
    }
    llmlat_request_free(r);
}

static uint64_t memory_of(const llmlat_agg *a)
{
    return counter_of(a, LLMLAT_COUNT_MEMORY_BYTES);
}

/* One request whose two-event stream gives `tokens` ITL samples. */
static void add_tokens(llmlat_agg *a, int64_t start, uint32_t tokens)
{
    add_request(a, start, EVS({ start + 20 * MS, 1 }, { start + 40 * MS, tokens - 1 }),
                ENDS_FINISHED, start + 40 * MS, 10);
}

/* Memory is fixed at creation: the same at 10^3 and 10^7 ITL samples,
 * 15.5 KiB of counts per metric at alpha 1% (at most 16 KiB in all), and
 * no add allocates. */
static void memory_is_fixed(void **state)
{
    (void)state;
    llmlat_agg *empty_exact = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *a = bounded(LLMLAT_CONV_DEFAULT);
    /* LLMPerf keeps one metric more (its own ITL figure) than the default
     * convention: the cost of a metric, its struct included */
    llmlat_agg *llmperf = bounded(LLMLAT_CONV_LLMPERF);
    uint64_t per_metric = memory_of(llmperf) - memory_of(a) + sizeof(uint64_t) * 20;
    llmlat_agg_free(llmperf);
    assert_true(per_metric <= 16 * 1024);
    assert_true(per_metric >= 1985 * 8);
    /* all 13 metrics, the layout shared by them and the struct */
    assert_true(memory_of(a) - memory_of(empty_exact) <= 13 * 16 * 1024 + 6 * 1024);
    counting_alloc c;
    use_counting_alloc(&c, -1);
    for (int i = 0; i < 10; i++)
        add_tokens(a, i * SEC, 100);
    uint64_t at_1e3 = memory_of(a);
    long per_request = c.calls / 10; /* the recorders' own buffers */
    for (int i = 10; i < 10020; i++)
        add_tokens(a, i * SEC, 1000);
    long calls = c.calls;
    use_default_alloc();
    assert_true(calls == per_request * 10020); /* only the recorders allocated */
    assert_true(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_COUNT) >= 1e7);
    assert_true(memory_of(a) == at_1e3);
    llmlat_agg_free(a);
    llmlat_agg_free(empty_exact);
}

/* Relative error and SLOs are fixed once data arrived; the duration is
 * not. A smaller alpha costs memory in proportion. */
static void parameters(void **state)
{
    (void)state;
    llmlat_agg *a = bounded(LLMLAT_CONV_DEFAULT);
    llmlat_agg *empty_exact = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    uint64_t fixed = memory_of(empty_exact); /* what does not depend on alpha */
    uint64_t at_1pct = memory_of(a) - fixed;
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.001), LLMLAT_OK);
    assert_true(memory_of(a) - fixed > 7 * at_1pct); /* schema 9: 8 times the buckets */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.05), LLMLAT_OK);
    assert_true(memory_of(a) - fixed < at_1pct / 3);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.5), LLMLAT_OK);
    double lo, hi;
    assert_int_equal(llmlat_param_bounds(LLMLAT_PARAM_RELATIVE_ERROR, &lo, &hi), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, hi * 2), LLMLAT_EINVAL);
    add_request(a, 0, EVS({ 100 * MS, 1 }), ENDS_FAILED, 100 * MS, 0);
    /* a failed request is data too */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.01), LLMLAT_ESTATE);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.2), LLMLAT_ESTATE);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_E2E, 1), LLMLAT_ESTATE);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.5), LLMLAT_OK); /* same */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, 10), LLMLAT_OK);
    double v;
    assert_int_equal(llmlat_agg_get_param(a, LLMLAT_PARAM_RELATIVE_ERROR, &v), LLMLAT_OK);
    assert_true(v == 0.05);
    /* reset empties it, keeping the settings; then they may change */
    assert_int_equal(llmlat_agg_reset(a), LLMLAT_OK);
    assert_int_equal(llmlat_agg_get_param(a, LLMLAT_PARAM_DURATION, &v), LLMLAT_OK);
    assert_true(v == 10);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.01), LLMLAT_OK);
    assert_true(memory_of(a) - fixed == at_1pct);
    llmlat_agg_free(empty_exact);
    llmlat_agg_free(a);
}

/* Bounded mode keeps no timeline: peaks are undefined (even under vLLM,
 * whose empty-set placeholder is for empty sets only). */
static void peaks_are_undefined(void **state)
{
    (void)state;
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++) {
        llmlat_agg *a = bounded(conv);
        add_request(a, 0, EVS({ 100 * MS, 1 }, { 200 * MS, 1 }), ENDS_FINISHED, 200 * MS, 5);
        double v = 0;
        uint64_t u = 7;
        assert_int_equal(llmlat_agg_rate(a, LLMLAT_RATE_PEAK_OUTPUT_TOKENS, &v), LLMLAT_EUNDEFINED);
        assert_true(isnan(v));
        assert_int_equal(llmlat_agg_counter(a, LLMLAT_COUNT_PEAK_CONCURRENCY, &u),
                         LLMLAT_EUNDEFINED);
        assert_true(u == 0);
        llmlat_agg_free(a);
    }
}

/* Two values agree as the modes promise: counts, min and max equal; mean
 * and std to rounding; quantiles within alpha. */
static void assert_agree(const llmlat_agg *e, const llmlat_agg *b, int32_t m)
{
    for (int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MEDIAN; s++) {
        double x = NAN, y = NAN;
        int32_t st = llmlat_agg_stat(e, m, s, &x);
        assert_int_equal(llmlat_agg_stat(b, m, s, &y), st);
        if (st != LLMLAT_OK) {
            assert_true(isnan(x) && isnan(y));
            continue;
        }
        double tol = s == LLMLAT_STAT_MEDIAN                      ? 0.01 * fabs(x)
                     : s == LLMLAT_STAT_MEAN || s == LLMLAT_STAT_STD ? 1e-12 * fabs(x)
                                                                     : 0;
        if (!(fabs(x - y) <= tol))
            fail_msg("%s stat %d: exact %.17g bounded %.17g", llmlat_metric_name(m), s, x, y);
    }
    for (int i = 0; i <= 100; i++) {
        double x = NAN, y = NAN;
        int32_t st = llmlat_agg_quantile(e, m, i / 100.0, &x);
        assert_int_equal(llmlat_agg_quantile(b, m, i / 100.0, &y), st);
        if (st == LLMLAT_OK && !(fabs(x - y) <= 0.01 * x))
            fail_msg("%s p%d: exact %.17g bounded %.17g", llmlat_metric_name(m), i, x, y);
    }
}

/* Every convention: the same requests in both modes agree on every
 * metric, counter and rate but the peaks. */
static void conventions_agree_with_exact(void **state)
{
    (void)state;
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++) {
        llmlat_agg *e = llmlat_agg_new(conv, LLMLAT_MODE_EXACT), *b = bounded(conv);
        assert_non_null(e);
        for (int i = 0; i < 2; i++) {
            llmlat_agg *both = i ? b : e;
            assert_int_equal(llmlat_agg_set_param(both, LLMLAT_PARAM_SLO_TTFT, 0.4), LLMLAT_OK);
            assert_int_equal(llmlat_agg_set_param(both, LLMLAT_PARAM_SLO_TPOT, 0.05), LLMLAT_OK);
        }
        add_random(&e, 1, 3000, 42);
        add_random(&b, 1, 3000, 42);
        for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++)
            assert_agree(e, b, m);
        for (int32_t c = LLMLAT_COUNT_COMPLETED; c <= LLMLAT_COUNT_OUTPUT_TOKENS; c++)
            assert_true(counter_of(e, c) == counter_of(b, c));
        for (int32_t r = LLMLAT_RATE_REQUESTS; r <= LLMLAT_RATE_GOODPUT; r++)
            assert_true(rate_of(e, r) == rate_of(b, r));
        llmlat_agg_free(e);
        llmlat_agg_free(b);
    }
}

/* The serialized bytes of a: equal bytes mean equal aggregators. */
static uint8_t *bytes_of(const llmlat_agg *a, size_t *len)
{
    assert_int_equal(llmlat_agg_serialize(a, NULL, 0, len), LLMLAT_ENOSPC);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    assert_int_equal(llmlat_agg_serialize(a, buf, *len, len), LLMLAT_OK);
    return buf;
}

static void assert_same_state(const llmlat_agg *x, const llmlat_agg *y)
{
    size_t nx, ny;
    uint8_t *bx = bytes_of(x, &nx), *by = bytes_of(y, &ny);
    assert_int_equal(nx, ny);
    assert_memory_equal(bx, by, nx);
    free(bx);
    free(by);
}

/* Shards merged in any order are the aggregator of the union, bit for bit
 * (the serialized bytes are equal): merge is associative and
 * commutative. */
static void merge_is_the_union(void **state)
{
    (void)state;
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++) {
        llmlat_agg *whole = bounded(conv), *s[3], *t[3];
        for (int i = 0; i < 3; i++) {
            s[i] = bounded(conv);
            t[i] = bounded(conv);
        }
        add_random(&whole, 1, 2000, 7);
        add_random(s, 3, 2000, 7);
        add_random(t, 3, 2000, 7);
        /* (s0 + s1) + s2 */
        assert_int_equal(llmlat_agg_merge(s[0], s[1]), LLMLAT_OK);
        assert_int_equal(llmlat_agg_merge(s[0], s[2]), LLMLAT_OK);
        assert_same_state(whole, s[0]);
        /* t2 + (t1 + t0) */
        assert_int_equal(llmlat_agg_merge(t[1], t[0]), LLMLAT_OK);
        assert_int_equal(llmlat_agg_merge(t[2], t[1]), LLMLAT_OK);
        assert_same_state(whole, t[2]);
        /* merging an empty aggregator changes nothing, nor does src change */
        llmlat_agg *empty = bounded(conv);
        assert_int_equal(llmlat_agg_merge(s[0], empty), LLMLAT_OK);
        assert_same_state(whole, s[0]);
        assert_int_equal(llmlat_agg_merge(empty, whole), LLMLAT_OK);
        assert_same_state(whole, empty);
        llmlat_agg_free(empty);
        llmlat_agg_free(whole);
        for (int i = 0; i < 3; i++) {
            llmlat_agg_free(s[i]);
            llmlat_agg_free(t[i]);
        }
    }
}

/* Buckets of different widths or good counts under other SLOs cannot be
 * added; a different duration can (dst keeps its own). */
static void merge_mismatch(void **state)
{
    (void)state;
    llmlat_agg *a = bounded(LLMLAT_CONV_DEFAULT), *b = bounded(LLMLAT_CONV_DEFAULT);
    llmlat_agg *e = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *v = bounded(LLMLAT_CONV_VLLM);
    add_random(&a, 1, 50, 1);
    add_random(&b, 1, 50, 2);
    uint64_t before = counter_of(a, LLMLAT_COUNT_COMPLETED);
    assert_int_equal(llmlat_agg_merge(a, e), LLMLAT_EMISMATCH);
    assert_int_equal(llmlat_agg_merge(a, v), LLMLAT_EMISMATCH);
    llmlat_agg *c = bounded(LLMLAT_CONV_DEFAULT);
    assert_int_equal(llmlat_agg_set_param(c, LLMLAT_PARAM_RELATIVE_ERROR, 0.02), LLMLAT_OK);
    assert_int_equal(llmlat_agg_merge(a, c), LLMLAT_EMISMATCH);
    assert_int_equal(llmlat_agg_set_param(c, LLMLAT_PARAM_RELATIVE_ERROR, 0.01), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(c, LLMLAT_PARAM_SLO_E2E, 3), LLMLAT_OK);
    assert_int_equal(llmlat_agg_merge(a, c), LLMLAT_EMISMATCH);
    assert_int_equal(llmlat_agg_merge(c, a), LLMLAT_EMISMATCH);
    assert_true(counter_of(a, LLMLAT_COUNT_COMPLETED) == before);
    assert_int_equal(llmlat_agg_set_param(b, LLMLAT_PARAM_DURATION, 99), LLMLAT_OK);
    assert_int_equal(llmlat_agg_merge(a, b), LLMLAT_OK);
    double d;
    assert_int_equal(llmlat_agg_get_param(a, LLMLAT_PARAM_DURATION, &d), LLMLAT_OK);
    assert_true(d == 0);
    assert_int_equal(llmlat_agg_merge(a, a), LLMLAT_EINVAL);
    llmlat_agg *all[] = { a, b, c, e, v };
    for (int i = 0; i < 5; i++)
        llmlat_agg_free(all[i]);
}

/* The good count is taken at add time with the SLOs then set, and merges
 * with its shards: the same as exact mode computes at query time. */
static void goodput_counted_at_add(void **state)
{
    (void)state;
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++) {
        llmlat_agg *e = llmlat_agg_new(conv, LLMLAT_MODE_EXACT), *b[2] = { bounded(conv),
                                                                          bounded(conv) };
        assert_non_null(e);
        llmlat_agg *all[] = { e, b[0], b[1] };
        for (int i = 0; i < 3; i++) {
            assert_int_equal(llmlat_agg_set_param(all[i], LLMLAT_PARAM_SLO_E2E, 1.0), LLMLAT_OK);
            assert_int_equal(llmlat_agg_set_param(all[i], LLMLAT_PARAM_SLO_TPOT, 0.04), LLMLAT_OK);
        }
        add_random(&e, 1, 1000, 5);
        add_random(b, 2, 1000, 5);
        assert_int_equal(llmlat_agg_merge(b[0], b[1]), LLMLAT_OK);
        uint64_t good = counter_of(e, LLMLAT_COUNT_GOOD);
        assert_true(good > 0 && good < counter_of(e, LLMLAT_COUNT_COMPLETED));
        assert_true(counter_of(b[0], LLMLAT_COUNT_GOOD) == good);
        assert_true(rate_of(b[0], LLMLAT_RATE_GOODPUT) == rate_of(e, LLMLAT_RATE_GOODPUT));
        for (int i = 0; i < 3; i++)
            llmlat_agg_free(all[i]);
    }
    /* without an SLO there is no good count */
    llmlat_agg *a = bounded(LLMLAT_CONV_DEFAULT);
    add_random(&a, 1, 10, 5);
    uint64_t u;
    assert_int_equal(llmlat_agg_counter(a, LLMLAT_COUNT_GOOD, &u), LLMLAT_EUNDEFINED);
    llmlat_agg_free(a);
}

/* Allocation fails at each step of creating an aggregator or changing its
 * relative error: NULL or ENOMEM, and the old state intact. */
static void allocation_failures(void **state)
{
    (void)state;
    counting_alloc c;
    long needed = 0;
    use_counting_alloc(&c, -1);
    llmlat_agg *a = bounded(LLMLAT_CONV_LLMPERF);
    needed = c.calls;
    llmlat_agg_free(a);
    assert_true(needed > 3);
    for (long fail_at = 0; fail_at < needed; fail_at++) {
        use_counting_alloc(&c, fail_at);
        assert_null(llmlat_agg_new(LLMLAT_CONV_LLMPERF, LLMLAT_MODE_BOUNDED));
    }
    use_default_alloc();
    a = bounded(LLMLAT_CONV_DEFAULT);
    uint64_t mem = memory_of(a);
    for (long fail_at = 0; fail_at < needed; fail_at++) {
        use_counting_alloc(&c, fail_at);
        int32_t st = llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.003);
        use_default_alloc();
        if (st == LLMLAT_OK)
            break;
        assert_int_equal(st, LLMLAT_ENOMEM);
        double v;
        assert_int_equal(llmlat_agg_get_param(a, LLMLAT_PARAM_RELATIVE_ERROR, &v), LLMLAT_OK);
        assert_true(v == 0.01 && memory_of(a) == mem);
        add_random(&a, 1, 20, 3); /* still works */
        assert_int_equal(llmlat_agg_reset(a), LLMLAT_OK);
    }
    llmlat_agg_free(a);
}

/* A sum that would overflow (tokens/s beyond 2^64) is refused, as in
 * exact mode, and nothing changes. */
static void absurd_values_refused(void **state)
{
    (void)state;
    llmlat_agg *a = bounded(LLMLAT_CONV_DEFAULT);
    llmlat_request *r = make_request(0, EVS({ 1, 1 }, { 2, 1 }), ENDS_FINISHED, 2);
    assert_int_equal(llmlat_request_set_output_tokens(r, UINT64_C(1) << 62), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_EOVERFLOW);
    assert_true(counter_of(a, LLMLAT_COUNT_COMPLETED) == 0);
    assert_true(stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_COUNT) == 0);
    llmlat_request_free(r);
    llmlat_agg_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(memory_is_fixed),
        cmocka_unit_test(parameters),
        cmocka_unit_test(peaks_are_undefined),
        cmocka_unit_test(conventions_agree_with_exact),
        cmocka_unit_test(merge_is_the_union),
        cmocka_unit_test(merge_mismatch),
        cmocka_unit_test(goodput_counted_at_add),
        cmocka_unit_test(allocation_failures),
        cmocka_unit_test(absurd_values_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
