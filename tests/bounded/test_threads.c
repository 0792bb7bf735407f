/* The thread model (include/llmlat.h): one aggregator per thread, merged
 * when reporting; queries only read, so many threads may query one
 * aggregator that none changes. Eight threads record into their own
 * aggregators; merged, they equal the single-threaded aggregator (bounded:
 * the same bytes; exact: the same answers). Then eight threads query and
 * serialize the merged one at once. Built twice: plainly and under
 * ThreadSanitizer (meson test --setup tsan --suite thread). */
#include <pthread.h>
#include <stdbool.h>

#include "helpers.h"

#define THREADS 8
#define REQUESTS 1600

static uint64_t mix(uint64_t x) /* splitmix64: request i's own random stream */
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Request i, the same whichever thread builds it. */
static int fill_request(llmlat_request *r, int i)
{
    uint64_t s = mix((uint64_t)i);
    int64_t t = (int64_t)i * 20 * MS;
    int bad = llmlat_request_reset(r);
    if (s % 4 != 0) /* most have an intended start, up to 50 ms before */
        bad |= llmlat_request_schedule(r, t - (int64_t)((s >> 40) % (50 * MS)));
    bad |= llmlat_request_start(r, t);
    t += (int64_t)(s % (300 * MS));
    for (int j = (int)((s >> 20) % 40); j > 0; j--) {
        s = mix(s);
        bad |= llmlat_request_event(r, t, s % 11 == 0 ? 0 : 1 + (s % 13 == 0));
        t += s % 7 == 0 ? 0 : (int64_t)((s >> 8) % (60 * MS));
    }
    bad |= llmlat_request_set_input_tokens(r, s % 2048);
    bad |= s % 10 == 0 ? llmlat_request_fail(r, t) : llmlat_request_finish(r, t + MS);
    return bad;
}

typedef struct worker {
    pthread_t thread;
    int id;
    int32_t mode;
    llmlat_agg *agg; /* its own */
    int status;
} worker;

static void *record(void *arg)
{
    worker *w = arg;
    llmlat_request *r = llmlat_request_new();
    w->agg = llmlat_agg_new(LLMLAT_CONV_DEFAULT, w->mode);
    w->status = !r || !w->agg;
    for (int i = w->id; i < REQUESTS && !w->status; i += THREADS) {
        w->status |= fill_request(r, i);
        w->status |= llmlat_agg_add(w->agg, r);
    }
    llmlat_request_free(r);
    return NULL;
}

/* What one query sweep of an aggregator gives: compared across threads. */
typedef struct answers {
    double v[LLMLAT_SCHEDULED_E2E][6 + 5];
    uint8_t *bytes;
    size_t len;
} answers;

static int sweep(const llmlat_agg *a, answers *out)
{
    static const double q[5] = { 0, 0.5, 0.9, 0.99, 1 };
    int bad = 0;
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
        for (int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MEDIAN; s++)
            bad |= llmlat_agg_stat(a, m, s, &out->v[m - 1][s - 1]) != LLMLAT_OK;
        bad |= llmlat_agg_quantiles(a, m, q, 5, &out->v[m - 1][6]) != LLMLAT_OK;
    }
    out->bytes = NULL;
    if (llmlat_agg_serialize(a, NULL, 0, &out->len) != LLMLAT_ENOSPC)
        return 1;
    out->bytes = malloc(out->len);
    return bad | !out->bytes ||
           llmlat_agg_serialize(a, out->bytes, out->len, &out->len) != LLMLAT_OK;
}

typedef struct reader {
    pthread_t thread;
    const llmlat_agg *agg; /* shared, read only */
    answers got;
    int status;
} reader;

static void *query(void *arg)
{
    reader *r = arg;
    r->status = sweep(r->agg, &r->got);
    return NULL;
}

static void assert_same_answers(const answers *x, const answers *y, bool same_bytes)
{
    assert_memory_equal(x->v, y->v, sizeof x->v);
    if (same_bytes) {
        assert_int_equal(x->len, y->len);
        assert_memory_equal(x->bytes, y->bytes, x->len);
    }
}

static void threads_merge_to_the_single_threaded_result(void **state)
{
    (void)state;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        worker w[THREADS];
        for (int i = 0; i < THREADS; i++) {
            w[i] = (worker){ .id = i, .mode = mode };
            assert_int_equal(pthread_create(&w[i].thread, NULL, record, &w[i]), 0);
        }
        for (int i = 0; i < THREADS; i++) {
            assert_int_equal(pthread_join(w[i].thread, NULL), 0);
            assert_int_equal(w[i].status, 0);
        }
        /* merged in thread order into the first */
        for (int i = 1; i < THREADS; i++)
            assert_int_equal(llmlat_agg_merge(w[0].agg, w[i].agg), LLMLAT_OK);
        llmlat_agg *single = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
        llmlat_request *r = llmlat_request_new();
        for (int i = 0; i < REQUESTS; i++) {
            assert_int_equal(fill_request(r, i), 0);
            assert_int_equal(llmlat_agg_add(single, r), LLMLAT_OK);
        }
        llmlat_request_free(r);
        answers want;
        assert_int_equal(sweep(single, &want), 0);
        /* eight readers of the merged aggregator at once */
        reader rd[THREADS];
        for (int i = 0; i < THREADS; i++) {
            rd[i] = (reader){ .agg = w[0].agg };
            assert_int_equal(pthread_create(&rd[i].thread, NULL, query, &rd[i]), 0);
        }
        for (int i = 0; i < THREADS; i++) {
            assert_int_equal(pthread_join(rd[i].thread, NULL), 0);
            assert_int_equal(rd[i].status, 0);
            /* exact mode keeps samples in arrival order: equal answers,
             * bytes in another order */
            assert_same_answers(&rd[i].got, &want, mode == LLMLAT_MODE_BOUNDED);
            free(rd[i].got.bytes);
        }
        free(want.bytes);
        llmlat_agg_free(single);
        for (int i = 0; i < THREADS; i++)
            llmlat_agg_free(w[i].agg);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(threads_merge_to_the_single_threaded_result),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
