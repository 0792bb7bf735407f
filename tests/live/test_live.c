/* The live recorder (llmlat_live): eight writer threads add at full speed
 * while a reader takes a snapshot every millisecond, alternating interval
 * and cumulative ones, and a second reader and a handle-churning thread
 * get in the way. Nothing may be lost or counted twice: the last
 * cumulative snapshot, and the union of all interval snapshots, equal the
 * aggregator one thread builds from the same adds -- in bounded mode the
 * same bytes, in exact mode the same answers. Built twice: plainly and
 * under ThreadSanitizer (meson test --setup tsan --suite thread).
 *
 * A snapshot waits for each writer's add in progress; a writer preempted
 * mid-add (eight of them on two cores are, most of the time) makes it
 * wait for the scheduler, so the writers run until the reader has taken
 * enough snapshots, within a time limit.
 *
 *   test_live [seconds]   how long the writers run at least, bounded mode (1.5) */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "helpers.h"

#define WRITERS 8
#define POOL 48 /* distinct requests per writer */

static double run_seconds = 1.5;

static uint64_t mix(uint64_t x) /* splitmix64 */
{
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

/* Request i: up to 40 events, empty and two-token chunks, zero gaps, one
 * in ten failed. */
static llmlat_request *request_number(int i)
{
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    uint64_t s = mix((uint64_t)i);
    int64_t t = (int64_t)i * 20 * MS;
    int bad = llmlat_request_start(r, t);
    t += (int64_t)(s % (300 * MS));
    for (int j = (int)((s >> 20) % 40); j > 0; j--) {
        s = mix(s);
        bad |= llmlat_request_event(r, t, s % 11 == 0 ? 0 : 1 + (s % 13 == 0));
        t += s % 7 == 0 ? 0 : (int64_t)((s >> 8) % (60 * MS));
    }
    bad |= llmlat_request_set_input_tokens(r, s % 2048);
    bad |= s % 10 == 0 ? llmlat_request_fail(r, t) : llmlat_request_finish(r, t + MS);
    assert_int_equal(bad, 0);
    return r;
}

static int64_t clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(long ns)
{
    struct timespec ts = { 0, ns };
    nanosleep(&ts, NULL);
}

typedef struct run run;

typedef struct writer {
    pthread_t thread;
    run *run;
    llmlat_request *pool[POOL];
    uint64_t adds;   /* pool[j % POOL] for j < adds */
    int status;
} writer;

struct run {
    llmlat_live *live;
    llmlat_agg *like;
    uint64_t max_adds;      /* per writer, or until stop */
    atomic_bool stop;       /* set by the reader */
    atomic_int writing;     /* writers still running */
    writer w[WRITERS];
};

static void *write_loop(void *arg)
{
    writer *w = arg;
    run *rn = w->run;
    llmlat_live_writer *h = llmlat_live_writer_new(rn->live);
    w->status = !h;
    for (uint64_t j = 0; h && j < rn->max_adds; j++) {
        if (j % 256 == 0 && atomic_load(&rn->stop))
            break;
        if (j % 5000 == 4999) { /* hand the slot back and take one again */
            llmlat_live_writer_free(h);
            h = llmlat_live_writer_new(rn->live);
            if (!h) {
                w->status = 1;
                break;
            }
        }
        if (llmlat_live_add(h, w->pool[j % POOL]) != LLMLAT_OK) {
            w->status = 1;
            break;
        }
        w->adds = j + 1;
    }
    llmlat_live_writer_free(h);
    atomic_fetch_sub(&rn->writing, 1);
    return NULL;
}

/* Takes and frees writer handles while the others write. */
static void *churn_loop(void *arg)
{
    run *rn = arg;
    while (atomic_load(&rn->writing) > 0) {
        llmlat_live_writer *h = llmlat_live_writer_new(rn->live);
        if (!h)
            return (void *)1;
        llmlat_live_writer_free(h);
        sleep_ns(200000);
    }
    return NULL;
}

/* A second reader: its snapshots may collide with the main reader's
 * (ESTATE); they are only checked to be growing. */
static void *second_reader(void *arg)
{
    run *rn = arg;
    llmlat_agg *snap = llmlat_agg_new_like(rn->like);
    uint64_t seen = 0;
    intptr_t bad = !snap;
    while (!bad && atomic_load(&rn->writing) > 0) {
        int32_t st = llmlat_live_snapshot(rn->live, LLMLAT_SNAPSHOT_CUMULATIVE, snap);
        if (st == LLMLAT_OK) {
            uint64_t c = 0, f = 0;
            llmlat_agg_counter(snap, LLMLAT_COUNT_COMPLETED, &c);
            llmlat_agg_counter(snap, LLMLAT_COUNT_FAILED, &f);
            bad = c + f < seen;
            seen = c + f;
        } else {
            bad = st != LLMLAT_ESTATE;
        }
        sleep_ns(3000000);
    }
    llmlat_agg_free(snap);
    return (void *)bad;
}

static uint64_t requests_in(const llmlat_agg *a)
{
    return counter_of(a, LLMLAT_COUNT_COMPLETED) + counter_of(a, LLMLAT_COUNT_FAILED);
}

static uint8_t *bytes_of(const llmlat_agg *a, size_t *len)
{
    assert_int_equal(llmlat_agg_serialize(a, NULL, 0, len), LLMLAT_ENOSPC);
    uint8_t *b = malloc(*len);
    assert_non_null(b);
    assert_int_equal(llmlat_agg_serialize(a, b, *len, len), LLMLAT_OK);
    return b;
}

static void assert_same_bytes(const llmlat_agg *x, const llmlat_agg *y)
{
    size_t a, b;
    uint8_t *p = bytes_of(x, &a), *q = bytes_of(y, &b);
    assert_int_equal(a, b);
    assert_memory_equal(p, q, a);
    free(p);
    free(q);
}

/* Every statistic and some quantiles of every metric, and the counters. */
static void assert_same_answers(const llmlat_agg *x, const llmlat_agg *y)
{
    static const double q[5] = { 0, 0.5, 0.9, 0.99, 1 };
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_TOOL_ITL; m++) {
        for (int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MEDIAN; s++) {
            double a, b;
            assert_int_equal(llmlat_agg_stat(x, m, s, &a), llmlat_agg_stat(y, m, s, &b));
            assert_memory_equal(&a, &b, sizeof a);
        }
        double a[5], b[5];
        assert_int_equal(llmlat_agg_quantiles(x, m, q, 5, a), llmlat_agg_quantiles(y, m, q, 5, b));
        assert_memory_equal(a, b, sizeof a);
    }
    for (int32_t c = LLMLAT_COUNT_COMPLETED; c <= LLMLAT_COUNT_PEAK_CONCURRENCY; c++) {
        uint64_t a, b;
        assert_int_equal(llmlat_agg_counter(x, c, &a), llmlat_agg_counter(y, c, &b));
        assert_int_equal(a, b);
    }
}

/* Runs the writers, the churner and the second reader while this thread
 * snapshots every millisecond; intervals are merged into *intervals. The
 * writers stop after `seconds` once `enough` snapshots were taken, or
 * after 8 seconds. Returns the last cumulative snapshot, taken after
 * every writer is done. */
static llmlat_agg *run_live(run *rn, llmlat_agg *intervals, double seconds, int enough,
                            int *snapshots)
{
    atomic_init(&rn->writing, WRITERS);
    atomic_init(&rn->stop, false);
    int64_t t0 = clock_ns();
    for (int i = 0; i < WRITERS; i++)
        assert_int_equal(pthread_create(&rn->w[i].thread, NULL, write_loop, &rn->w[i]), 0);
    pthread_t churn, second;
    assert_int_equal(pthread_create(&churn, NULL, churn_loop, rn), 0);
    assert_int_equal(pthread_create(&second, NULL, second_reader, rn), 0);

    llmlat_agg *snap = llmlat_agg_new_like(rn->like);
    assert_non_null(snap);
    uint64_t last_cumulative = 0;
    *snapshots = 0;
    for (int i = 0; atomic_load(&rn->writing) > 0; i++) {
        sleep_ns(1000000);
        int kind = i % 2 ? LLMLAT_SNAPSHOT_CUMULATIVE : LLMLAT_SNAPSHOT_INTERVAL;
        int32_t st = llmlat_live_snapshot(rn->live, kind, snap);
        if (st == LLMLAT_ESTATE) /* the second reader's turn */
            continue;
        assert_int_equal(st, LLMLAT_OK);
        ++*snapshots;
        double elapsed = (double)(clock_ns() - t0) / 1e9;
        if ((elapsed >= seconds && *snapshots >= enough) || elapsed > 8.0)
            atomic_store(&rn->stop, true);
        if (kind == LLMLAT_SNAPSHOT_INTERVAL) {
            assert_int_equal(llmlat_agg_merge(intervals, snap), LLMLAT_OK);
        } else {
            /* it holds every interval so far, and grows */
            uint64_t n = requests_in(snap);
            assert_true(n >= requests_in(intervals) && n >= last_cumulative);
            last_cumulative = n;
        }
    }
    void *bad;
    for (int i = 0; i < WRITERS; i++) {
        assert_int_equal(pthread_join(rn->w[i].thread, NULL), 0);
        assert_int_equal(rn->w[i].status, 0);
    }
    assert_int_equal(pthread_join(churn, &bad), 0);
    assert_null(bad);
    assert_int_equal(pthread_join(second, &bad), 0);
    assert_null(bad);
    /* the rest of the last interval, then everything */
    assert_int_equal(llmlat_live_snapshot(rn->live, LLMLAT_SNAPSHOT_INTERVAL, snap), LLMLAT_OK);
    assert_int_equal(llmlat_agg_merge(intervals, snap), LLMLAT_OK);
    assert_int_equal(llmlat_live_snapshot(rn->live, LLMLAT_SNAPSHOT_CUMULATIVE, snap), LLMLAT_OK);
    /* an interval with nothing new is empty */
    llmlat_agg *empty = llmlat_agg_new_like(rn->like);
    assert_int_equal(llmlat_live_snapshot(rn->live, LLMLAT_SNAPSHOT_INTERVAL, empty), LLMLAT_OK);
    assert_int_equal(requests_in(empty), 0);
    llmlat_agg_free(empty);
    return snap;
}

/* What one thread makes of the same adds. */
static llmlat_agg *single_threaded(const run *rn)
{
    llmlat_agg *a = llmlat_agg_new_like(rn->like);
    assert_non_null(a);
    for (int i = 0; i < WRITERS; i++)
        for (uint64_t j = 0; j < rn->w[i].adds; j++)
            assert_int_equal(llmlat_agg_add(a, rn->w[i].pool[j % POOL]), LLMLAT_OK);
    return a;
}

static run *new_run(int32_t mode, uint64_t max_adds)
{
    run *rn = calloc(1, sizeof *rn);
    assert_non_null(rn);
    rn->like = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
    assert_int_equal(llmlat_agg_set_param(rn->like, LLMLAT_PARAM_SLO_TTFT, 0.2), LLMLAT_OK);
    rn->live = llmlat_live_new(rn->like);
    assert_non_null(rn->live);
    rn->max_adds = max_adds;
    for (int i = 0; i < WRITERS; i++) {
        rn->w[i].run = rn;
        for (int j = 0; j < POOL; j++)
            rn->w[i].pool[j] = request_number(i * POOL + j);
    }
    return rn;
}

static void free_run(run *rn)
{
    for (int i = 0; i < WRITERS; i++)
        for (int j = 0; j < POOL; j++)
            llmlat_request_free(rn->w[i].pool[j]);
    llmlat_live_free(rn->live);
    llmlat_agg_free(rn->like);
    free(rn);
}

static void bounded_snapshots_lose_nothing(void **state)
{
    (void)state;
    /* at most 4.8 million adds: the single-threaded reference takes about
     * as long */
    run *rn = new_run(LLMLAT_MODE_BOUNDED, 600000);
    llmlat_agg *intervals = llmlat_agg_new_like(rn->like);
    int snapshots;
    llmlat_agg *last = run_live(rn, intervals, run_seconds, 40, &snapshots);
    llmlat_agg *want = single_threaded(rn);
    uint64_t adds = 0;
    for (int i = 0; i < WRITERS; i++)
        adds += rn->w[i].adds;
    printf("bounded: %llu adds by %d writers, %d snapshots\n", (unsigned long long)adds,
           WRITERS, snapshots);
    assert_true(snapshots >= 10);
    assert_int_equal(requests_in(last), adds);
    assert_same_bytes(last, want);
    assert_same_bytes(intervals, want);
    llmlat_agg_free(want);
    llmlat_agg_free(last);
    llmlat_agg_free(intervals);
    free_run(rn);
}

/* Exact mode keeps every sample: a fixed number of adds, and answers
 * compared (samples are in another order, so bytes differ). */
static void exact_snapshots_lose_nothing(void **state)
{
    (void)state;
    run *rn = new_run(LLMLAT_MODE_EXACT, 4000);
    llmlat_agg *intervals = llmlat_agg_new_like(rn->like);
    int snapshots;
    llmlat_agg *last = run_live(rn, intervals, 1e9, 0, &snapshots);
    llmlat_agg *want = single_threaded(rn);
    for (int i = 0; i < WRITERS; i++)
        assert_int_equal(rn->w[i].adds, 4000);
    assert_same_answers(last, want);
    assert_same_answers(intervals, want);
    llmlat_agg_free(want);
    llmlat_agg_free(last);
    llmlat_agg_free(intervals);
    free_run(rn);
}

/* The rules around the threads: arguments, settings kept, mismatches. */
static void api_rules(void **state)
{
    (void)state;
    llmlat_agg *like = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_param(like, LLMLAT_PARAM_RELATIVE_ERROR, 0.02), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(like, "model", "m1"), LLMLAT_OK);
    assert_null(llmlat_live_new(NULL));
    assert_null(llmlat_live_writer_new(NULL));
    llmlat_live *l = llmlat_live_new(like);
    assert_non_null(l);
    llmlat_agg_free(like); /* only read by llmlat_live_new */
    llmlat_live_writer *w = llmlat_live_writer_new(l);
    assert_non_null(w);
    llmlat_request *r = make_request(0, EVS({ 10 * MS, 1 }, { 20 * MS, 1 }), ENDS_FINISHED, 30 * MS);
    llmlat_request *open = make_request(0, EVS({ 10 * MS, 1 }), ENDS_NOT, 0);
    assert_int_equal(llmlat_live_add(NULL, r), LLMLAT_EINVAL);
    assert_int_equal(llmlat_live_add(w, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_live_add(w, open), LLMLAT_ESTATE);
    assert_int_equal(llmlat_live_add(w, r), LLMLAT_OK);

    llmlat_agg *other = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED); /* alpha 1% */
    llmlat_agg *good = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_param(good, LLMLAT_PARAM_RELATIVE_ERROR, 0.02), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(good, LLMLAT_PARAM_DURATION, 7.0), LLMLAT_OK);
    assert_int_equal(llmlat_live_snapshot(NULL, LLMLAT_SNAPSHOT_INTERVAL, good), LLMLAT_EINVAL);
    assert_int_equal(llmlat_live_snapshot(l, LLMLAT_SNAPSHOT_INTERVAL, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_live_snapshot(l, 0, good), LLMLAT_EINVAL);
    assert_int_equal(llmlat_live_snapshot(l, 3, good), LLMLAT_EINVAL);
    assert_int_equal(llmlat_live_snapshot(l, LLMLAT_SNAPSHOT_INTERVAL, other), LLMLAT_EMISMATCH);
    /* the mismatch took nothing: the interval is still to come */
    assert_int_equal(llmlat_live_snapshot(l, LLMLAT_SNAPSHOT_INTERVAL, good), LLMLAT_OK);
    assert_int_equal(requests_in(good), 1);
    double d;
    assert_int_equal(llmlat_agg_get_param(good, LLMLAT_PARAM_DURATION, &d), LLMLAT_OK);
    assert_close(d, 7.0, 0); /* out's own settings */
    assert_close(rate_of(good, LLMLAT_RATE_REQUESTS), 1.0 / 7.0, 1e-15);
    assert_int_equal(llmlat_live_snapshot(l, LLMLAT_SNAPSHOT_INTERVAL, good), LLMLAT_OK);
    assert_int_equal(requests_in(good), 0);
    /* a released handle's data stays; the next handle takes its slot */
    assert_int_equal(llmlat_live_add(w, r), LLMLAT_OK);
    llmlat_live_writer_free(w);
    llmlat_live_writer_free(NULL);
    llmlat_live_writer *again = llmlat_live_writer_new(l);
    assert_ptr_equal(again, w);
    llmlat_live_writer *second = llmlat_live_writer_new(l);
    assert_non_null(second);
    assert_ptr_not_equal(second, again);
    assert_int_equal(llmlat_live_add(second, r), LLMLAT_OK);
    /* new_like carried the label and the relative error */
    llmlat_agg *snap = llmlat_agg_new_like(good);
    assert_int_equal(llmlat_live_snapshot(l, LLMLAT_SNAPSHOT_CUMULATIVE, snap), LLMLAT_OK);
    assert_int_equal(requests_in(snap), 3);
    assert_int_equal(llmlat_live_snapshot(l, LLMLAT_SNAPSHOT_INTERVAL, snap), LLMLAT_OK);
    assert_int_equal(requests_in(snap), 2);
    assert_null(llmlat_agg_new_like(NULL));
    llmlat_agg_free(snap);
    llmlat_agg_free(other);
    llmlat_agg_free(good);
    llmlat_request_free(r);
    llmlat_request_free(open);
    llmlat_live_writer_free(again);
    llmlat_live_writer_free(second);
    llmlat_live_free(l);
    llmlat_live_free(NULL);
}

/* llmlat_agg_new_like copies every setting and no data. */
static void new_like_copies_the_settings(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_AIPERF, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.05), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_E2E, 2.5), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, 60), LLMLAT_OK);
    static const double q[3] = { 0.25, 0.75, 0.999 };
    static const double bounds[3] = { 0.1, 1, 10 };
    assert_int_equal(llmlat_agg_set_quantiles(a, q, 3), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, bounds, 3), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(a, "model", "m"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(a, "route", "r"), LLMLAT_OK);
    llmlat_agg *empty = llmlat_agg_new_like(a);
    add_request(a, 0, EVS({ 10 * MS, 1 }, { 20 * MS, 1 }), ENDS_FINISHED, 30 * MS, 5);
    llmlat_agg *b = llmlat_agg_new_like(a);
    assert_non_null(b);
    assert_int_equal(requests_in(b), 0);
    /* the same bytes as a reset copy of a */
    assert_same_bytes(b, empty);
    assert_int_equal(llmlat_agg_reset(a), LLMLAT_OK);
    assert_same_bytes(b, a);
    assert_int_equal(llmlat_agg_merge(b, a), LLMLAT_OK);
    llmlat_agg_free(empty);
    llmlat_agg_free(a);
    llmlat_agg_free(b);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        run_seconds = atof(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(api_rules),
        cmocka_unit_test(new_like_copies_the_settings),
        cmocka_unit_test(bounded_snapshots_lose_nothing),
        cmocka_unit_test(exact_snapshots_lose_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
