/* Bounded mode's speed: folding requests in (ns per request + ns per
 * token), querying (P50/P90/P95/P99 + mean), merging (per metric), with
 * exact mode folded the same way as a same-run reference. Self-contained:
 * the public API and libc only.
 *
 *   bench_bounded [repeats [fold,whole,one,sched,query,merge]]
 *
 * `one` is the one-token add alone (2,000,000 adds of one request), for
 * counting its instructions: `valgrind --tool=callgrind bench_bounded 1
 * one` (as `1 whole` counts the whole path's, beside its reference's).
 * `sched` runs both with requests that have an intended start
 * (llmlat_request_schedule), what a benchmark client keeping a schedule
 * records: the cost of its three metrics.
 * Each figure is the median of `repeats` runs (default 15); the machine's
 * noise shows in the spread printed beside it. Times are the thread's CPU
 * time where the system has it (other processes' time slices do not
 * count), else the monotonic clock. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "llmlat.h"

#define MS INT64_C(1000000)

static int64_t clock_ns(void)
{
#ifdef CLOCK_THREAD_CPUTIME_ID
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#endif
    return llmlat_now_ns();
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void) /* xorshift64* */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

/* A gap of 5..60 ms, skewed low like real decode steps. */
static int64_t gap_ns(void)
{
    uint64_t a = rng() % (20 * MS), b = rng() % (20 * MS);
    return 5 * MS + (int64_t)(a < b ? a : b) + (int64_t)(rng() % 16 == 0 ? rng() % (20 * MS) : 0);
}

/* `count` finished requests of n one-token events each. */
static llmlat_request **make_requests(size_t count, size_t n)
{
    llmlat_request **rs = malloc(count * sizeof *rs);
    if (!rs)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        llmlat_request *r = rs[i] = llmlat_request_new();
        if (!r)
            return NULL;
        int64_t t = (int64_t)i * 50 * MS;
        llmlat_request_start(r, t);
        t += 100 * MS + (int64_t)(rng() % (200 * MS));
        for (size_t j = 0; j < n; j++) {
            llmlat_request_event(r, t, 1);
            t += gap_ns();
        }
        llmlat_request_set_input_tokens(r, 100 + rng() % 2000);
        llmlat_request_finish(r, t);
    }
    return rs;
}

static void free_requests(llmlat_request **rs, size_t count)
{
    for (size_t i = 0; i < count; i++)
        llmlat_request_free(rs[i]);
    free(rs);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct figure {
    double median, lo, hi; /* of the repeats */
} figure;

static figure summarize(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    figure f = { v[n / 2], v[0], v[n - 1] };
    return f;
}

/* ns per request to fold `count` requests of n tokens, cycling through a
 * pool of distinct ones small enough to stay in cache: a server folds a
 * request it has just recorded. */
static figure time_fold(int32_t mode, llmlat_request **pool, size_t pool_n, size_t count,
                        int repeats)
{
    double *v = malloc((size_t)repeats * sizeof *v);
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
    if (!v || !a) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int k = 0; k < repeats; k++) {
        llmlat_agg_reset(a);
        int64_t t0 = clock_ns();
        for (size_t i = 0; i < count; i++)
            if (llmlat_agg_add(a, pool[i % pool_n]) != LLMLAT_OK) {
                fprintf(stderr, "add failed\n");
                exit(1);
            }
        v[k] = (double)(clock_ns() - t0) / (double)count;
    }
    llmlat_agg_free(a);
    figure f = summarize(v, repeats);
    free(v);
    return f;
}

static void print_figure(const char *what, figure f)
{
    printf("  %-34s %9.2f ns   (runs %.2f .. %.2f)\n", what, f.median, f.lo, f.hi);
}

/* Folding: requests of 1, 64 and 1024 tokens; the per-token cost is the
 * slope between 1 and 1024 tokens, the per-request cost what is left at
 * 1 token. */
static void bench_fold(int repeats)
{
    static const size_t lengths[] = { 1, 64, 1024 };
    const size_t tokens = 1u << 20;
    printf("fold (default convention, one token per event):\n");
    for (int32_t mode = LLMLAT_MODE_BOUNDED; mode >= LLMLAT_MODE_EXACT; mode--) {
        double per[3];
        for (int i = 0; i < 3; i++) {
            /* a pool of at most 256 requests and 64K tokens (768 KiB of
             * events), folded 2^20 tokens' worth */
            size_t pool_n = (1u << 16) / lengths[i], count = tokens / lengths[i];
            if (pool_n > 256)
                pool_n = 256;
            if (count < 65536)
                count = 65536;
            llmlat_request **rs = make_requests(pool_n, lengths[i]);
            if (!rs) {
                fprintf(stderr, "out of memory\n");
                exit(1);
            }
            figure f = time_fold(mode, rs, pool_n, count, repeats);
            per[i] = f.median;
            char what[64];
            snprintf(what, sizeof what, "%s, %zu-token request", mode ? "bounded" : "exact",
                     lengths[i]);
            print_figure(what, f);
            free_requests(rs, pool_n);
        }
        double per_token = (per[2] - per[0]) / (double)(lengths[2] - lengths[0]);
        printf("  => %s: %.2f ns per token + %.2f ns per request\n", mode ? "bounded" : "exact",
               per_token, per[0] - per_token);
    }
}

/* The reference for the whole path: the least a histogram recorder does
 * for the same request (as HdrHistogram_c's hdr_record_value: a bucket
 * from the value's bits, one increment) for TTFT, each gap and E2E, from
 * timestamps it stored itself. */
static uint64_t ref_hist[64 * 16];

static void ref_record(int64_t v)
{
    uint64_t x = (uint64_t)v | 1;
    int e = 63 - __builtin_clzll(x);
    unsigned sub = e >= 4 ? (unsigned)(x >> (e - 4)) & 15 : 0;
    ref_hist[e * 16 + sub]++;
}

static int64_t ref_times[512];

static void ref_path(int64_t start, const int64_t *t, size_t n)
{
    for (size_t j = 0; j < n; j++) /* as a recorder stores them */
        ref_times[j] = t[j];
    ref_record(ref_times[0] - start);
    for (size_t j = 1; j < n; j++)
        ref_record(ref_times[j] - ref_times[j - 1]);
    ref_record(ref_times[n - 1] - start);
}

/* Called through a pointer, so that it is never inlined: a profile
 * (callgrind) then shows its instructions apart from main's. */
static void (*volatile ref_path_call)(int64_t, const int64_t *, size_t) = ref_path;

/* Reset + start + 500 events + finish + add to a bounded aggregator, per
 * request, beside the reference recorder given the same timestamps; with
 * `scheduled`, each request has an intended start 3 ms before its start. */
static void bench_whole_path(int repeats, int scheduled)
{
    enum { N = 500, POOL = 64, COUNT = 4000 };
    static int64_t times[POOL][N];
    for (int i = 0; i < POOL; i++) {
        int64_t t = (int64_t)i * 50 * MS + 100 * MS;
        for (int j = 0; j < N; j++) {
            times[i][j] = t;
            t += gap_ns();
        }
    }
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    llmlat_request *r = llmlat_request_new();
    double *v = malloc((size_t)repeats * sizeof *v), *w = malloc((size_t)repeats * sizeof *w);
    if (!a || !r || !v || !w) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (int k = 0; k < repeats; k++) {
        llmlat_agg_reset(a);
        int64_t t0 = clock_ns();
        for (int i = 0; i < COUNT; i++) {
            const int64_t *t = times[i % POOL];
            int64_t start = t[0] - 100 * MS;
            llmlat_request_reset(r);
            if (scheduled)
                llmlat_request_schedule(r, start - 3 * MS);
            llmlat_request_start(r, start);
            for (int j = 0; j < N; j++)
                llmlat_request_event(r, t[j], 1);
            llmlat_request_finish(r, t[N - 1]);
            if (llmlat_agg_add(a, r) != LLMLAT_OK) {
                fprintf(stderr, "add failed\n");
                exit(1);
            }
        }
        v[k] = (double)(clock_ns() - t0) / COUNT;
        t0 = clock_ns();
        for (int i = 0; i < COUNT; i++)
            ref_path_call(times[i % POOL][0] - 100 * MS, times[i % POOL], N);
        w[k] = (double)(clock_ns() - t0) / COUNT;
    }
    printf("whole path (reset + %sstart + %d events + finish + add, bounded):\n",
           scheduled ? "schedule + " : "", N);
    print_figure("llmlat", summarize(v, repeats));
    print_figure("reference: bit-bucket recorder", summarize(w, repeats));
    free(v);
    free(w);
    llmlat_request_free(r);
    llmlat_agg_free(a);
}

/* The one-token add: one recorded request of one token (with an intended
 * start when `scheduled`), added again and again to a bounded aggregator. */
static void bench_one(int repeats, int scheduled)
{
    enum { COUNT = 2000000 };
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    llmlat_request *r = llmlat_request_new();
    double *v = malloc((size_t)repeats * sizeof *v);
    if (!a || !r || !v) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    if (scheduled)
        llmlat_request_schedule(r, -3 * MS);
    llmlat_request_start(r, 0);
    llmlat_request_event(r, 1000000, 1);
    llmlat_request_finish(r, 2000000);
    for (int k = 0; k < repeats; k++) {
        llmlat_agg_reset(a);
        int64_t t0 = clock_ns();
        for (int i = 0; i < COUNT; i++)
            if (llmlat_agg_add(a, r) != LLMLAT_OK) {
                fprintf(stderr, "add failed\n");
                exit(1);
            }
        v[k] = (double)(clock_ns() - t0) / COUNT;
    }
    printf("one-token add (one request%s, %d adds):\n",
           scheduled ? " with an intended start" : "", COUNT);
    print_figure("llmlat_agg_add", summarize(v, repeats));
    free(v);
    llmlat_request_free(r);
    llmlat_agg_free(a);
}

/* An aggregator holding `count` requests of n tokens. */
static llmlat_agg *filled(size_t count, size_t n)
{
    llmlat_request **rs = make_requests(count, n);
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    if (!rs || !a) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < count; i++)
        llmlat_agg_add(a, rs[i]);
    free_requests(rs, count);
    return a;
}

/* P50, P90, P95, P99 and the mean: four llmlat_agg_quantile calls, or one
 * llmlat_agg_quantiles call (one pass over the buckets). */
static double query_once(const llmlat_agg *a, int32_t metric, int batch)
{
    static const double qs[] = { 0.5, 0.9, 0.95, 0.99 };
    double x[4], mean, sink = 0;
    if (batch) {
        llmlat_agg_quantiles(a, metric, qs, 4, x);
    } else {
        for (int j = 0; j < 4; j++)
            llmlat_agg_quantile(a, metric, qs[j], &x[j]);
    }
    llmlat_agg_stat(a, metric, LLMLAT_STAT_MEAN, &mean);
    for (int j = 0; j < 4; j++)
        sink += x[j];
    return sink + mean;
}

static void bench_query(int repeats)
{
    llmlat_agg *a = filled(20000, 100);
    static const int32_t metrics[] = { LLMLAT_ITL, LLMLAT_TTFT, LLMLAT_E2E };
    double *v = malloc((size_t)repeats * sizeof *v), sink = 0;
    printf("query (P50, P90, P95, P99 + mean; 2M ITL samples):\n");
    for (int batch = 0; batch < 2; batch++)
        for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++) {
            const int inner = 2000;
            for (int k = 0; k < repeats; k++) {
                int64_t t0 = clock_ns();
                for (int i = 0; i < inner; i++)
                    sink += query_once(a, metrics[m], batch);
                v[k] = (double)(clock_ns() - t0) / inner;
            }
            char what[64];
            snprintf(what, sizeof what, "%s, %s", llmlat_metric_name(metrics[m]),
                     batch ? "llmlat_agg_quantiles" : "4 x llmlat_agg_quantile");
            print_figure(what, summarize(v, repeats));
        }
    if (sink == 42.0)
        printf("\n");
    free(v);
    llmlat_agg_free(a);
}

static void bench_merge(int repeats)
{
    llmlat_agg *src = filled(20000, 100), *dst = filled(20000, 100);
    double *v = malloc((size_t)repeats * sizeof *v);
    const int inner = 2000, metrics = 9; /* sketches of the default convention */
    for (int k = 0; k < repeats; k++) {
        int64_t t0 = clock_ns();
        for (int i = 0; i < inner; i++)
            if (llmlat_agg_merge(dst, src) != LLMLAT_OK) {
                fprintf(stderr, "merge failed\n");
                exit(1);
            }
        v[k] = (double)(clock_ns() - t0) / inner / metrics;
    }
    printf("merge:\n");
    print_figure("per metric", summarize(v, repeats));
    uint64_t bytes;
    llmlat_agg_counter(dst, LLMLAT_COUNT_MEMORY_BYTES, &bytes);
    printf("memory: %llu bytes per bounded aggregator\n", (unsigned long long)bytes);
    free(v);
    llmlat_agg_free(src);
    llmlat_agg_free(dst);
}

/* The cycles a nanosecond holds here and now, from a chain of dependent
 * 64-bit multiplies (3 cycles each on current x86 and ARM cores): on a
 * shared machine this moves with the load, and cycles compare better
 * across runs than nanoseconds. */
static double ghz(int repeats)
{
    double *v = malloc((size_t)repeats * sizeof *v);
    uint64_t x = 1;
    const int64_t n = 20000000;
    for (int k = 0; k < repeats; k++) {
        int64_t t0 = clock_ns();
        for (int64_t i = 0; i < n; i++)
            x = x * 0x9e3779b97f4a7c15u + 1;
        v[k] = 3.0 * (double)n / (double)(clock_ns() - t0);
    }
    figure f = summarize(v, repeats);
    free(v);
    return x == 42 ? 0 : f.median;
}

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 15;
    if (repeats < 1)
        repeats = 1;
    printf("llmlat %s bounded-mode benchmark, median of %d runs\n", llmlat_version_string(),
           repeats);
    const char *parts = argc > 2 ? argv[2] : "fold,whole,one,sched,query,merge";
    printf("clock: %.2f GHz (a dependent multiply chain)\n", ghz(repeats));
    if (strstr(parts, "fold"))
        bench_fold(repeats);
    if (strstr(parts, "whole"))
        bench_whole_path(repeats, 0);
    if (strstr(parts, "one"))
        bench_one(repeats, 0);
    if (strstr(parts, "sched")) {
        bench_whole_path(repeats, 1);
        bench_one(repeats, 1);
    }
    if (strstr(parts, "query"))
        bench_query(repeats);
    if (strstr(parts, "merge"))
        bench_merge(repeats);
    return 0;
}
