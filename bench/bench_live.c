/* Live recording's speed (issue 13), each figure beside a reference
 * measured in the same run:
 *
 *   writer   adds per second of one writer through llmlat_live_add while a
 *            reader takes a snapshot every millisecond, as a ratio to the
 *            same writer with no reader (target >= 0.8), and to plain
 *            llmlat_agg_add on an ordinary aggregator;
 *   window   P50/P90/P99 of TTFT over a full 60 s window of 5 s steps
 *            (llmlat_window_advance in the same step + one
 *            llmlat_agg_quantiles on the view; target <= 2 us), beside the
 *            same query on an ordinary aggregator holding the same
 *            requests, and the cost of entering a new step;
 *   stream   llmlat_request_event on a streaming recorder, per event
 *            (target <= 4 ns), beside the buffered recorder's event and
 *            its event plus the bounded fold of llmlat_agg_add, per event.
 *
 *   bench_live [repeats [writer,window,stream]]
 *
 * Medians of `repeats` runs (default 9), the two batches of a pair
 * alternating. Times are the writer's thread CPU time (a run preempted by
 * another process does not count the wait) and, for the writer ratio,
 * wall time too. Needs two cores for the reader to run beside the writer. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "llmlat.h"

#define MS INT64_C(1000000)
#define SEC INT64_C(1000000000)

static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * SEC + ts.tv_nsec;
}

static void check(int32_t st, const char *what)
{
    if (st != LLMLAT_OK) {
        fprintf(stderr, "bench_live: %s: %s\n", what, llmlat_strerror(st));
        exit(1);
    }
}

static void *must(void *p)
{
    if (!p) {
        fprintf(stderr, "bench_live: out of memory\n");
        exit(1);
    }
    return p;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

/* A decode gap of 5..25 ms, skewed low. */
static int64_t gap_ns(void)
{
    uint64_t a = rng() % (20 * MS), b = rng() % (20 * MS);
    return 5 * MS + (int64_t)(a < b ? a : b);
}

/* A finished request of n one-token events ending at `end`. */
static llmlat_request *request_of(size_t n, int64_t end)
{
    llmlat_request *r = must(llmlat_request_new());
    int64_t *t = must(malloc((n + 1) * sizeof *t));
    t[n] = end;
    for (size_t i = n; i-- > 0;)
        t[i] = t[i + 1] - gap_ns();
    check(llmlat_request_start(r, t[0] - 100 * MS - (int64_t)(rng() % (200 * MS))), "start");
    for (size_t i = 0; i < n; i++)
        check(llmlat_request_event(r, t[i], 1), "event");
    check(llmlat_request_set_input_tokens(r, 100 + rng() % 2000), "input");
    check(llmlat_request_finish(r, end), "finish");
    free(t);
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* ------------------------------------------------------------ writer */

#define POOL 64

typedef struct reader_ctx {
    llmlat_live *live;
    llmlat_agg *snap;
    atomic_bool stop;
    long snapshots;
} reader_ctx;

static void *reader(void *arg)
{
    reader_ctx *c = arg;
    struct timespec ms = { 0, 1000000 };
    while (!atomic_load(&c->stop)) {
        nanosleep(&ms, NULL);
        check(llmlat_live_snapshot(c->live, c->snapshots % 2 ? LLMLAT_SNAPSHOT_CUMULATIVE
                                                             : LLMLAT_SNAPSHOT_INTERVAL,
                                   c->snap),
              "snapshot");
        c->snapshots++;
    }
    return NULL;
}

typedef struct timing {
    double cpu, wall; /* ns per add */
} timing;

/* `adds` adds of the pool: through w (live) or into a. */
static timing time_adds(llmlat_live_writer *w, llmlat_agg *a, llmlat_request **pool, long adds)
{
    int64_t c0 = cpu_ns(), w0 = llmlat_now_ns();
    for (long i = 0; i < adds; i++)
        check(w ? llmlat_live_add(w, pool[i % POOL]) : llmlat_agg_add(a, pool[i % POOL]), "add");
    return (timing){ (double)(cpu_ns() - c0) / (double)adds,
                     (double)(llmlat_now_ns() - w0) / (double)adds };
}

static void bench_writer(int repeats, size_t tokens)
{
    llmlat_request *pool[POOL];
    for (int i = 0; i < POOL; i++)
        pool[i] = request_of(tokens, (int64_t)(i + 1) * SEC);
    llmlat_agg *like = must(llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED));
    llmlat_agg *plain = must(llmlat_agg_new_like(like));
    llmlat_live *live = must(llmlat_live_new(like));
    llmlat_live_writer *w = must(llmlat_live_writer_new(live));
    /* about 0.3 s per batch */
    long adds = (long)(3e8 / (60.0 + 5.0 * (double)tokens));
    double *ratio = must(malloc(3 * (size_t)repeats * sizeof *ratio));
    double *wall_ratio = ratio + repeats, *plain_ratio = ratio + 2 * repeats;
    double *alone = must(malloc(3 * (size_t)repeats * sizeof *alone));
    double *with = alone + repeats, *direct = alone + 2 * repeats;
    long snapshots = 0;
    time_adds(w, NULL, pool, adds / 4); /* warm up */
    for (int k = 0; k < repeats; k++) {
        timing lone = { 0, 0 }, busy = { 0, 0 }, agg = { 0, 0 };
        for (int order = 0; order < 2; order++) {
            if ((order == 0) == (k % 2 == 0)) {
                lone = time_adds(w, NULL, pool, adds);
                agg = time_adds(NULL, plain, pool, adds);
            } else {
                reader_ctx c = { .live = live, .snap = must(llmlat_agg_new_like(like)) };
                atomic_init(&c.stop, false);
                pthread_t th;
                if (pthread_create(&th, NULL, reader, &c) != 0)
                    exit(1);
                busy = time_adds(w, NULL, pool, adds);
                atomic_store(&c.stop, true);
                pthread_join(th, NULL);
                snapshots += c.snapshots;
                llmlat_agg_free(c.snap);
            }
        }
        llmlat_agg_reset(plain);
        alone[k] = lone.cpu;
        with[k] = busy.cpu;
        direct[k] = agg.cpu;
        ratio[k] = lone.cpu / busy.cpu;          /* throughput ratio */
        wall_ratio[k] = lone.wall / busy.wall;
        plain_ratio[k] = agg.cpu / busy.cpu;
    }
    printf("writer, %zu-token requests (%ld adds per run, %ld snapshots in all):\n", tokens,
           adds, snapshots);
    printf("  llmlat_agg_add, plain aggregator      %8.1f ns/add\n", median(direct, repeats));
    printf("  llmlat_live_add, no reader            %8.1f ns/add\n", median(alone, repeats));
    printf("  llmlat_live_add, reader every 1 ms    %8.1f ns/add\n", median(with, repeats));
    printf("  => throughput with reader / lone writer: %.3f (CPU time), %.3f (wall)"
           "   target >= 0.8\n",
           median(ratio, repeats), median(wall_ratio, repeats));
    printf("  => with reader / plain llmlat_agg_add:  %.3f (CPU time)\n",
           median(plain_ratio, repeats));
    free(ratio);
    free(alone);
    llmlat_live_writer_free(w);
    llmlat_live_free(live);
    llmlat_agg_free(plain);
    llmlat_agg_free(like);
    for (int i = 0; i < POOL; i++)
        llmlat_request_free(pool[i]);
}

/* ------------------------------------------------------------ window */

static volatile double sink;

/* n queries; the window's at times *now, *now + 1, ... (all in one step). */
static double time_queries(llmlat_window *w, const llmlat_agg *a, int64_t *now, long n)
{
    static const double q[3] = { 0.5, 0.9, 0.99 };
    double out[3];
    int64_t c0 = cpu_ns();
    for (long i = 0; i < n; i++) {
        const llmlat_agg *v = a;
        if (w) {
            check(llmlat_window_advance(w, (*now)++), "advance");
            check(llmlat_window_view(w, &v), "view");
        }
        check(llmlat_agg_quantiles(v, LLMLAT_TTFT, q, 3, out), "quantiles");
        sink += out[0] + out[1] + out[2];
    }
    return (double)(cpu_ns() - c0) / (double)n;
}

static void bench_window(int repeats)
{
    const int per_step = 2000; /* requests ending in each 5 s step */
    llmlat_agg *like = must(llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED));
    llmlat_agg *ref = must(llmlat_agg_new_like(like));
    int32_t st;
    llmlat_window *w = llmlat_window_new(like, 60 * SEC, 5 * SEC, &st);
    check(st, "window");
    /* 12 steps, 0 .. 59 s, with TTFTs of 50 ms .. 2 s */
    for (int s = 0; s < 12; s++)
        for (int i = 0; i < per_step; i++) {
            int64_t end = s * 5 * SEC + (int64_t)(rng() % (4 * SEC)); /* before 59 s */
            llmlat_request *r = must(llmlat_request_new());
            int64_t ttft = 50 * MS + (int64_t)(rng() % (1950 * MS));
            check(llmlat_request_start(r, end - ttft - 10 * MS), "start");
            check(llmlat_request_event(r, end - 10 * MS, 1), "event");
            check(llmlat_request_event(r, end, 1), "event");
            check(llmlat_request_finish(r, end), "finish");
            check(llmlat_window_add(w, r), "window add");
            check(llmlat_agg_add(ref, r), "add");
            llmlat_request_free(r);
        }
    int64_t now = 59 * SEC; /* in the last step (55..60 s): 12 steps held */
    check(llmlat_window_advance(w, now), "advance");
    const long n = 200000;
    double *win = must(malloc(2 * (size_t)repeats * sizeof *win)), *plain = win + repeats;
    time_queries(w, ref, &now, n / 10);
    for (int k = 0; k < repeats; k++) {
        if (k % 2) {
            win[k] = time_queries(w, ref, &now, n);
            plain[k] = time_queries(NULL, ref, &now, n);
        } else {
            plain[k] = time_queries(NULL, ref, &now, n);
            win[k] = time_queries(w, ref, &now, n);
        }
    }
    /* entering a new step: each llmlat_window_merge of a 2000-request
     * aggregator at the next step drops one slot, rebuilds the union from
     * the other 11, then merges into the union and the new slot; beside
     * one llmlat_agg_merge of the same aggregator */
    llmlat_agg *part = must(llmlat_agg_new_like(like));
    for (int i = 0; i < per_step; i++) {
        llmlat_request *r = request_of(2, 1 + (int64_t)(rng() % (5 * SEC)));
        check(llmlat_agg_add(part, r), "add");
        llmlat_request_free(r);
    }
    double *rot = must(malloc(2 * (size_t)repeats * sizeof *rot)), *one = rot + repeats;
    const int steps = 2000;
    llmlat_window *c = llmlat_window_new(like, 60 * SEC, 5 * SEC, &st);
    check(st, "window");
    llmlat_agg *m = must(llmlat_agg_new_like(like));
    int64_t at = 0;
    for (int s = 0; s < 12; s++, at += 5 * SEC)
        check(llmlat_window_merge(c, part, at), "merge");
    for (int k = 0; k < repeats; k++) {
        int64_t c0 = cpu_ns();
        for (int s = 0; s < steps; s++, at += 5 * SEC)
            check(llmlat_window_merge(c, part, at), "merge");
        int64_t c1 = cpu_ns();
        for (int s = 0; s < steps; s++) {
            llmlat_agg_reset(m);
            check(llmlat_agg_merge(m, part), "merge");
        }
        int64_t c2 = cpu_ns();
        rot[k] = (double)(c1 - c0) / steps;
        one[k] = (double)(c2 - c1) / steps;
    }
    llmlat_agg_free(m);
    llmlat_agg_free(part);
    llmlat_window_free(c);
    printf("window, 60 s in 5 s steps, %d requests per step (24000 in the window):\n", per_step);
    printf("  P50/P90/P99 of the ordinary aggregator    %8.1f ns\n", median(plain, repeats));
    printf("  advance + view + P50/P90/P99 (window)     %8.1f ns   target <= 2000 ns\n",
           median(win, repeats));
    printf("  llmlat_window_merge entering a new step   %8.1f ns   (one llmlat_agg_merge: %.1f ns)\n",
           median(rot, repeats), median(one, repeats));
    free(win);
    free(rot);
    llmlat_window_free(w);
    llmlat_agg_free(ref);
    llmlat_agg_free(like);
}

/* ------------------------------------------------------------ stream */

/* ns per event of recording `n` one-token events (times t) into r, then
 * finishing it and, when a is not NULL, adding it to a. */
static double time_stream(llmlat_request *r, llmlat_agg *a, const int64_t *t, size_t n)
{
    int64_t c0 = cpu_ns();
    check(llmlat_request_reset(r), "reset");
    check(llmlat_request_start(r, t[0] - 100 * MS), "start");
    for (size_t i = 0; i < n; i++)
        check(llmlat_request_event(r, t[i], 1), "event");
    check(llmlat_request_finish(r, t[n - 1]), "finish");
    if (a) {
        llmlat_agg_reset(a);
        check(llmlat_agg_add(a, r), "add");
    }
    return (double)(cpu_ns() - c0) / (double)n;
}

static void bench_stream(int repeats)
{
    const size_t n = 1u << 20;
    int64_t *t = must(malloc(n * sizeof *t));
    t[0] = SEC;
    for (size_t i = 1; i < n; i++)
        t[i] = t[i - 1] + gap_ns();
    llmlat_agg *like = must(llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED));
    llmlat_request *st = must(llmlat_request_new_streaming(like));
    llmlat_request *buf = must(llmlat_request_new());
    double *s_ev = must(malloc(3 * (size_t)repeats * sizeof *s_ev));
    double *b_ev = s_ev + repeats, *b_all = s_ev + 2 * repeats;
    time_stream(st, NULL, t, n); /* warm: buffers grown */
    time_stream(buf, like, t, n);
    for (int k = 0; k < repeats; k++) {
        s_ev[k] = time_stream(st, NULL, t, n);
        b_ev[k] = time_stream(buf, NULL, t, n);
        b_all[k] = time_stream(buf, like, t, n);
    }
    printf("stream, %zu one-token events of 5..25 ms (default convention, bounded, 1%%):\n", n);
    printf("  buffered llmlat_request_event                 %6.2f ns/event\n",
           median(b_ev, repeats));
    printf("  buffered event + its fold in llmlat_agg_add   %6.2f ns/event\n",
           median(b_all, repeats));
    printf("  streaming llmlat_request_event                %6.2f ns/event   target <= 4 ns\n",
           median(s_ev, repeats));
    printf("  => streaming / buffered event: %.2f; / buffered event + its fold: %.2f\n",
           median(s_ev, repeats) / median(b_ev, repeats),
           median(s_ev, repeats) / median(b_all, repeats));
    free(s_ev);
    free(t);
    llmlat_request_free(st);
    llmlat_request_free(buf);
    llmlat_agg_free(like);
}

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 9;
    const char *parts = argc > 2 ? argv[2] : "writer,window,stream";
    if (repeats < 1)
        repeats = 1;
    if (strstr(parts, "writer")) {
        bench_writer(repeats, 64);
        bench_writer(repeats, 1);
    }
    if (strstr(parts, "window"))
        bench_window(repeats);
    if (strstr(parts, "stream"))
        bench_stream(repeats);
    return 0;
}
