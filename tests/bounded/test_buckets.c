/* llmlat_agg_buckets: the native-histogram buckets of a metric, through
 * the public API. Both modes give the same histogram for the same
 * requests; every sample is in its bucket (upper-inclusive, in seconds);
 * counts add up; the buffer rules; and the exported series never go down
 * as requests are added, in Prometheus' sense of a counter reset, even
 * when huge values move the window. */
#include "helpers.h"

enum { MAX_BUCKETS = 1 << 17 };

typedef struct hist {
    int32_t schema;
    double zt;
    uint64_t zc;
    int32_t offset;
    size_t len;
    uint64_t counts[MAX_BUCKETS];
} hist;

static void get_hist(const llmlat_agg *a, int32_t metric, hist *h)
{
    assert_int_equal(llmlat_agg_buckets(a, metric, &h->schema, &h->zt, &h->zc, &h->offset,
                                        h->counts, MAX_BUCKETS, &h->len),
                     LLMLAT_OK);
}

static void assert_same_hist(const hist *x, const hist *y)
{
    assert_int_equal(x->schema, y->schema);
    assert_true(x->zt == y->zt);
    assert_true(x->zc == y->zc);
    assert_int_equal(x->len, y->len);
    if (x->len) {
        assert_int_equal(x->offset, y->offset);
        assert_memory_equal(x->counts, y->counts, x->len * sizeof *x->counts);
    }
}

/* Bucket i's upper bound: 2^(i / 2^schema), as the doubles Prometheus
 * uses (near enough for the tests here: they only compare a sample with
 * the bounds of its own bucket and its neighbours, far from them). */
static double upper_of(int32_t schema, int64_t i)
{
    return exp2((double)i / (double)(1 << schema));
}

static uint64_t rng_state = 0x2545f4914f6cdd1du;

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

/* A random request: empty chunks, multi-token chunks, zero gaps, and one
 * time in `huge` (when not 0) a gap of hours that moves the window. */
static llmlat_request *random_request(int64_t start, unsigned huge)
{
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
    int64_t t = start + (int64_t)(rng() % (500 * MS));
    size_t n = rng() % 12;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = rng() % 100;
        uint32_t k = x < 10 ? 0 : x < 25 ? 2 + (uint32_t)(rng() % 6) : 1;
        assert_int_equal(llmlat_request_event(r, t, k), LLMLAT_OK);
        uint64_t g = rng() % 100;
        t += g < 5 ? 0 : g < 10 ? (int64_t)(rng() % 50) : (int64_t)(rng() % (80 * MS));
        if (huge && rng() % huge == 0)
            t += (int64_t)(rng() % 4) * 3600 * SEC + SEC;
    }
    assert_int_equal(llmlat_request_set_input_tokens(r, rng() % 3 ? rng() % 5000 : 0),
                     LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, t), LLMLAT_OK);
    return r;
}

static const int32_t METRICS[] = { LLMLAT_TTFT, LLMLAT_TPOT, LLMLAT_ITL, LLMLAT_ICL,
                                   LLMLAT_E2E, LLMLAT_TPS_USER, LLMLAT_ITL_MAX,
                                   LLMLAT_OUTPUT_TOKENS, LLMLAT_INPUT_TOKENS };
#define N_METRICS (sizeof METRICS / sizeof METRICS[0])

/* Exact and bounded aggregators of the same requests export the same
 * histogram, and it counts every sample: zero count + buckets = COUNT. */
static void both_modes_agree(void **state)
{
    (void)state;
    static hist x, y;
    const double alphas[] = { 0.01, 0.001, 0.25 };
    for (size_t ai = 0; ai < 3; ai++) {
        llmlat_agg *e = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
        llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
        assert_int_equal(llmlat_agg_set_param(e, LLMLAT_PARAM_RELATIVE_ERROR, alphas[ai]),
                         LLMLAT_OK);
        assert_int_equal(llmlat_agg_set_param(b, LLMLAT_PARAM_RELATIVE_ERROR, alphas[ai]),
                         LLMLAT_OK);
        for (int i = 0; i < 400; i++) {
            llmlat_request *r = random_request((int64_t)i * SEC, i > 300 ? 20 : 0);
            assert_int_equal(llmlat_agg_add(e, r), LLMLAT_OK);
            assert_int_equal(llmlat_agg_add(b, r), LLMLAT_OK);
            llmlat_request_free(r);
        }
        for (size_t m = 0; m < N_METRICS; m++) {
            get_hist(e, METRICS[m], &x);
            get_hist(b, METRICS[m], &y);
            assert_same_hist(&x, &y);
            uint64_t total = x.zc;
            for (size_t j = 0; j < x.len; j++)
                total += x.counts[j];
            assert_true((double)total == stat_of(b, METRICS[m], LLMLAT_STAT_COUNT));
            if (x.len) { /* both ends hold counts */
                assert_true(x.counts[0] > 0 && x.counts[x.len - 1] > 0);
                assert_true(x.zt < upper_of(x.schema, x.offset));
            }
        }
        llmlat_agg_free(e);
        llmlat_agg_free(b);
    }
}

/* One TTFT sample per aggregator, in both modes: its bucket, at alpha 1%
 * (schema 6), is the i with upper(i - 1) < t <= upper(i), in seconds. A
 * power of two of seconds is the upper bound of its bucket. */
static void a_sample_in_its_bucket(void **state)
{
    (void)state;
    static hist h;
    const int64_t ttfts[] = { 500 * MS, 500 * MS + 1, 250 * MS, 1, 7 * MS, 1234567891, 2 * SEC };
    const int32_t want[] = { -64, -63, -128, -1913, -458, 20, 64 };
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
        for (size_t i = 0; i < sizeof ttfts / sizeof ttfts[0]; i++) {
            llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
            add_request(a, 0, EVS({ ttfts[i], 1 }), ENDS_FINISHED, ttfts[i], 0);
            get_hist(a, LLMLAT_TTFT, &h);
            assert_int_equal(h.schema, 6);
            assert_int_equal(h.len, 1);
            assert_int_equal(h.counts[0], 1);
            assert_int_equal(h.zc, 0);
            assert_int_equal(h.offset, want[i]);
            double s = (double)ttfts[i] / 1e9;
            assert_true(upper_of(6, h.offset - 1) < s);
            assert_true(s <= upper_of(6, h.offset) * (1 + 1e-15));
            /* the window: 31 octaves and a bucket below */
            assert_close(h.zt, upper_of(6, h.offset - 31 * 64 - 1), 1e-15 * h.zt);
            llmlat_agg_free(a);
        }
}

/* The buffer rules of llmlat_agg_serialize, counted in elements. */
static void buffer_rules(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    int32_t schema = -1, offset = -1;
    double zt = -1;
    uint64_t zc = 99, counts[4] = { 7, 7, 7, 7 };
    size_t len = 99;
    /* empty: nothing to write */
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_ITL, &schema, &zt, &zc, &offset, NULL, 0, &len),
                     LLMLAT_OK);
    assert_true(len == 0 && zc == 0 && zt == 0.0 && schema == 6);
    add_request(a, 0, EVS({ 10 * MS, 1 }, { 20 * MS, 1 }, { 40 * MS, 1 }, { 41 * MS, 2 }),
                ENDS_FINISHED, 41 * MS, 3);
    /* ITL: 10, 20 ms and two of 0.5 ms */
    schema = -1;
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_ITL, &schema, &zt, &zc, &offset, NULL, 0, &len),
                     LLMLAT_ENOSPC);
    size_t need = len;
    assert_true(need > 2 && need < 500);
    assert_int_equal(schema, -1); /* nothing written but len */
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_ITL, &schema, &zt, &zc, &offset, counts, 2,
                                        &len),
                     LLMLAT_ENOSPC);
    assert_true(len == need && counts[0] == 7 && counts[1] == 7 && schema == -1);
    uint64_t *big = calloc(need, sizeof *big);
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_ITL, &schema, &zt, &zc, &offset, big, need,
                                        &len),
                     LLMLAT_OK);
    assert_true(len == need && big[0] == 2 && big[need - 1] == 1 && zc == 0);
    free(big);
    /* bad arguments */
    assert_int_equal(llmlat_agg_buckets(NULL, LLMLAT_ITL, &schema, &zt, &zc, &offset, NULL, 0,
                                        &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_buckets(a, 0, &schema, &zt, &zc, &offset, NULL, 0, &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_buckets(a, 99, &schema, &zt, &zc, &offset, NULL, 0, &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_ITL, &schema, &zt, &zc, &offset, NULL, 4,
                                        &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_ITL, NULL, &zt, &zc, &offset, NULL, 0, &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_ITL, &schema, NULL, &zc, &offset, NULL, 0,
                                        &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_ITL, &schema, &zt, NULL, &offset, NULL, 0,
                                        &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_ITL, &schema, &zt, &zc, NULL, NULL, 0, &len),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_buckets(a, LLMLAT_ITL, &schema, &zt, &zc, &offset, NULL, 0,
                                        NULL),
                     LLMLAT_EINVAL);
    llmlat_agg_free(a);
}

static void copy_hist(hist *to, const hist *from)
{
    to->schema = from->schema;
    to->zt = from->zt;
    to->zc = from->zc;
    to->offset = from->offset;
    to->len = from->len;
    memcpy(to->counts, from->counts, from->len * sizeof *from->counts);
}

/* Prometheus' FloatHistogram.DetectReset, for what llmlat exports: the
 * zero threshold never falls, the count never falls, old buckets at or
 * below the new threshold are merged into a zero count that did not
 * fall, and every other bucket kept at least its count. */
static void assert_no_reset(const hist *old, const hist *now)
{
    assert_int_equal(old->schema, now->schema);
    assert_true(now->zt >= old->zt);
    uint64_t merged = old->zc;
    for (size_t j = 0; j < old->len; j++) {
        int64_t i = old->offset + (int64_t)j;
        if (upper_of(old->schema, i) <= now->zt * (1 + 1e-12)) {
            merged += old->counts[j];
            continue;
        }
        if (!old->counts[j])
            continue;
        int64_t at = i - now->offset;
        if (at < 0 || (size_t)at >= now->len || now->counts[at] < old->counts[j])
            fail_msg("bucket %lld went down: %llu -> %llu", (long long)i,
                     (unsigned long long)old->counts[j],
                     (unsigned long long)(at < 0 || (size_t)at >= now->len ? 0
                                                                           : now->counts[at]));
    }
    assert_true(now->zc >= merged);
}

/* Requests added one by one, a look at every metric after each: no
 * exported series of either mode ever goes down, though huge gaps move
 * the window up several times (the expose suite checks the same of the
 * expositions). */
static void series_never_go_down(void **state)
{
    (void)state;
    static hist before[N_METRICS], after;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_VLLM, mode);
        for (size_t m = 0; m < N_METRICS; m++)
            get_hist(a, METRICS[m], &before[m]);
        int moved = 0;
        for (int i = 0; i < 400; i++) {
            llmlat_request *r = random_request((int64_t)i * SEC, 40);
            assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
            llmlat_request_free(r);
            for (size_t m = 0; m < N_METRICS; m++) {
                get_hist(a, METRICS[m], &after);
                assert_no_reset(&before[m], &after);
                moved += after.zt > before[m].zt && before[m].zt > 0;
                copy_hist(&before[m], &after);
            }
        }
        assert_true(moved > 3); /* the window did move */
        llmlat_agg_free(a);
    }
}

/* Merged shards export the histogram of the union. */
static void merge_is_the_union(void **state)
{
    (void)state;
    static hist x, y;
    llmlat_agg *one = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    llmlat_agg *parts[3], *sum = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    for (int p = 0; p < 3; p++)
        parts[p] = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    for (int i = 0; i < 300; i++) {
        llmlat_request *r = random_request((int64_t)i * SEC, 30);
        assert_int_equal(llmlat_agg_add(one, r), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(parts[rng() % 3], r), LLMLAT_OK);
        llmlat_request_free(r);
    }
    for (int p = 2; p >= 0; p--)
        assert_int_equal(llmlat_agg_merge(sum, parts[p]), LLMLAT_OK);
    for (size_t m = 0; m < N_METRICS; m++) {
        get_hist(one, METRICS[m], &x);
        get_hist(sum, METRICS[m], &y);
        assert_same_hist(&x, &y);
    }
    llmlat_agg_free(one);
    llmlat_agg_free(sum);
    for (int p = 0; p < 3; p++)
        llmlat_agg_free(parts[p]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(both_modes_agree),
        cmocka_unit_test(a_sample_in_its_bucket),
        cmocka_unit_test(buffer_rules),
        cmocka_unit_test(series_never_go_down),
        cmocka_unit_test(merge_is_the_union),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
