/* Allocation failure, for every allocation along each path: the n-th
 * allocation of a call fails (alone, or with every later one), for
 * n = 0, 1, ... until the call succeeds. Each failing call must return
 * LLMLAT_ENOMEM (or NULL with ENOMEM for constructors), leak nothing, and
 * leave its object exactly as it was: the object's whole observable state
 * (every counter, statistic, quantile, rate, parameter, each report
 * format and the serialized bytes) is taken before and after and compared
 * byte for byte. After the final, successful call the object must equal a
 * twin that never saw a failure.
 *
 * The one thing a failed call may change is LLMLAT_COUNT_MEMORY_BYTES: a
 * buffer that grew before a later allocation failed is kept for the retry
 * (docs/reliability.md). */
#include <stdbool.h>
#include <stdio.h>

#include "helpers.h"

#include "util/alloc.h" /* the growth helper's size limits */

/* ----------------------------------------------------- the allocator */

/* Fails allocation number `fail_at` (0 = the next one) and, when `all`,
 * every later one; counts calls, failures and live blocks. */
typedef struct inj_alloc {
    long calls, fail_at, failures, live;
    bool all;
} inj_alloc;

static inj_alloc inj;

static bool inj_fails(void)
{
    long n = inj.calls++;
    if (inj.fail_at < 0 || n < inj.fail_at || (n > inj.fail_at && !inj.all))
        return false;
    inj.failures++;
    return true;
}

static void *inj_malloc(void *user, size_t size)
{
    (void)user;
    if (inj_fails())
        return NULL;
    void *p = malloc(size);
    inj.live += p != NULL;
    return p;
}

static void *inj_realloc(void *user, void *p, size_t size)
{
    (void)user;
    if (inj_fails())
        return NULL;
    void *q = realloc(p, size);
    inj.live += q && !p;
    return q;
}

static void inj_free(void *user, void *p)
{
    (void)user;
    inj.live -= p != NULL;
    free(p);
}

/* Every object made by a test uses this allocator. */
static int setup(void **state)
{
    (void)state;
    inj = (inj_alloc){ .fail_at = -1 };
    return llmlat_set_allocator(inj_malloc, inj_realloc, inj_free, NULL) == LLMLAT_OK ? 0 : -1;
}

/* ... and must have given everything back. */
static int teardown(void **state)
{
    (void)state;
    long live = inj.live;
    llmlat_set_allocator(NULL, NULL, NULL, NULL);
    if (live != 0)
        fprintf(stderr, "%ld blocks leaked\n", live);
    return live == 0 ? 0 : -1;
}

static void arm(long n, bool all)
{
    inj.fail_at = inj.calls + n;
    inj.all = all;
    inj.failures = 0;
}

static void disarm(void)
{
    inj.fail_at = -1;
}

/* ------------------------------------------------ observable state */

typedef struct bytes {
    unsigned char *p;
    size_t n, cap;
} bytes;

static void put(bytes *b, const void *x, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap); /* the test's own memory */
        assert_non_null(p);
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, x, n);
    b->n += n;
}

static void put_status_double(bytes *b, int32_t st, double v)
{
    put(b, &st, sizeof st);
    if (st == LLMLAT_OK || st == LLMLAT_EUNDEFINED)
        put(b, &v, sizeof v);
}

static void bytes_free(bytes *b)
{
    free(b->p);
    *b = (bytes){ 0 };
}

/* Everything a caller can read from a (all but MEMORY_BYTES): what the
 * reports print, and the serialized bytes. */
static void snap_agg(const llmlat_agg *a, bytes *b)
{
    int32_t conv, mode;
    assert_int_equal(llmlat_agg_get_convention(a, &conv), LLMLAT_OK);
    assert_int_equal(llmlat_agg_get_mode(a, &mode), LLMLAT_OK);
    put(b, &conv, sizeof conv);
    put(b, &mode, sizeof mode);
    for (int32_t p = LLMLAT_PARAM_RELATIVE_ERROR; p <= LLMLAT_PARAM_MAX_DISPATCH_DELAY; p++) {
        double v;
        assert_int_equal(llmlat_agg_get_param(a, p, &v), LLMLAT_OK);
        put(b, &v, sizeof v);
    }
    for (int32_t c = LLMLAT_COUNT_COMPLETED; c <= LLMLAT_COUNT_PEAK_CONCURRENCY; c++) {
        uint64_t v = 0;
        int32_t st = llmlat_agg_counter(a, c, &v);
        assert_true(st == LLMLAT_OK || st == LLMLAT_EUNDEFINED);
        put(b, &st, sizeof st);
        put(b, &v, sizeof v);
    }
    double q[21];
    for (int i = 0; i <= 20; i++)
        q[i] = i / 20.0;
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
        for (int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MEDIAN; s++) {
            double v = 0;
            int32_t st = llmlat_agg_stat(a, m, s, &v);
            assert_true(st == LLMLAT_OK || st == LLMLAT_EUNDEFINED);
            put_status_double(b, st, v);
        }
        double out[21];
        int32_t st = llmlat_agg_quantiles(a, m, q, 21, out);
        assert_true(st == LLMLAT_OK || st == LLMLAT_EUNDEFINED);
        put(b, &st, sizeof st);
        put(b, out, sizeof out);
    }
    for (int32_t r = LLMLAT_RATE_REQUESTS; r <= LLMLAT_RATE_PEAK_OUTPUT_TOKENS; r++) {
        double v = 0;
        int32_t st = llmlat_agg_rate(a, r, &v);
        assert_true(st == LLMLAT_OK || st == LLMLAT_EUNDEFINED);
        put_status_double(b, st, v);
    }
    /* The Prometheus report adds the histogram buckets (the text and JSON
     * reports print the values above). */
    {
        int32_t f = LLMLAT_FORMAT_PROMETHEUS;
        size_t len = 0;
        assert_int_equal(llmlat_agg_report(a, f, NULL, 0, &len), LLMLAT_ENOSPC);
        char *buf = malloc(len);
        assert_non_null(buf);
        assert_int_equal(llmlat_agg_report(a, f, buf, len, &len), LLMLAT_OK);
        put(b, &len, sizeof len);
        put(b, buf, len);
        free(buf);
    }
    /* The serialized form, once the format exists (EINVAL before). */
    size_t len = 0;
    int32_t st = llmlat_agg_serialize(a, NULL, 0, &len);
    put(b, &st, sizeof st);
    if (st == LLMLAT_ENOSPC) {
        unsigned char *buf = malloc(len);
        assert_non_null(buf);
        assert_int_equal(llmlat_agg_serialize(a, buf, len, &len), LLMLAT_OK);
        put(b, buf, len);
        free(buf);
    }
}

/* Every value of a recorder under every convention. */
static void snap_request(const llmlat_request *r, bytes *b)
{
    for (int32_t c = LLMLAT_CONV_DEFAULT; c <= CONV_LAST; c++)
        for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
            double v = 0;
            int32_t st = llmlat_request_value(r, c, m, &v);
            put_status_double(b, st, v);
        }
}

/* The serialized bytes: the whole state of an aggregator (docs/format.md:
 * a copy made from them answers every query alike), at a fraction of the
 * cost of snap_agg. false where serialization is not available. */
static bool serialized(const llmlat_agg *a, bytes *b)
{
    size_t len = 0;
    if (llmlat_agg_serialize(a, NULL, 0, &len) != LLMLAT_ENOSPC)
        return false;
    unsigned char *buf = malloc(len);
    assert_non_null(buf);
    assert_int_equal(llmlat_agg_serialize(a, buf, len, &len), LLMLAT_OK);
    put(b, buf, len);
    free(buf);
    return true;
}

static void assert_same_bytes(const bytes *x, const bytes *y)
{
    assert_int_equal(x->n, y->n);
    assert_memory_equal(x->p, y->p, x->n);
}

/* -------------------------------------------------- the generic loop */

/* One call under test: returns its status. ctx holds its operands. */
typedef int32_t (*call_fn)(void *ctx);

/* How to tell that an object did not change: `quick` takes a snapshot
 * that determines its state; `full`, when not NULL, checks after a
 * failure that the object answers every query as the state in a quick
 * snapshot does. */
typedef struct checker {
    void (*quick)(const void *obj, bytes *b);
    void (*full)(const void *obj, const bytes *quick_before);
} checker;

static void agg_quick(const void *obj, bytes *b)
{
    if (!serialized(obj, b))
        snap_agg(obj, b); /* no format yet: everything, every time */
}

/* The aggregator rebuilt from its bytes before the call, and the one that
 * lived through the failure, answer alike. */
static void agg_full(const void *obj, const bytes *before)
{
    bytes x = { 0 }, y = { 0 };
    int32_t st = 0;
    llmlat_agg *was = llmlat_agg_deserialize(before->p, before->n, &st);
    if (!was) /* before holds snap_agg itself: already compared */
        return;
    snap_agg(was, &x);
    snap_agg(obj, &y);
    assert_same_bytes(&x, &y);
    bytes_free(&x);
    bytes_free(&y);
    llmlat_agg_free(was);
}

static const checker AGG = { agg_quick, agg_full };

static void request_quick(const void *obj, bytes *b)
{
    snap_request(obj, b);
}

static const checker REQUEST = { request_quick, NULL };

/* Fails the call's n-th allocation for n = 0, 1, ... (alone, then with all
 * later ones, as `all` says) until it succeeds; every failure must be
 * ENOMEM and leave obj unchanged: its quick snapshot after every failure,
 * every answer after the first. Returns how many failed. */
static long fail_each(call_fn call, void *ctx, const void *obj, const checker *ck, bool all)
{
    long failed = 0;
    bytes before = { 0 }; /* a failed call changes nothing: still valid after one */
    ck->quick(obj, &before);
    for (long n = 0;; n++) {
        arm(n, all);
        int32_t st = call(ctx);
        long injected = inj.failures;
        disarm();
        if (st != LLMLAT_ENOMEM) {
            /* a success that swallowed a failed allocation would be a lie */
            assert_int_equal(st, LLMLAT_OK);
            assert_int_equal(injected, 0);
            bytes_free(&before);
            return failed;
        }
        assert_true(injected > 0);
        bytes after = { 0 };
        ck->quick(obj, &after);
        assert_same_bytes(&before, &after);
        bytes_free(&after);
        if (failed == 0 && ck->full)
            ck->full(obj, &before);
        failed++;
        assert_true(n < 100000); /* a call that never succeeds */
    }
}

/* ------------------------------------------------------ test material */

/* Request i of a varied workload: empty chunks, multi-token chunks, long
 * and short, a few failures, a few without content, most with an
 * intended start (some sent late). */
static llmlat_request *varied(int i, int events)
{
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    int64_t start = (int64_t)i * 23 * MS;
    if (i % 4 != 1)
        assert_int_equal(llmlat_request_schedule(r, start - (i % 3) * 7 * MS), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
    int64_t t = start + (30 + i % 17 * 11) * MS;
    int n = i % 29 == 5 ? 0 : events + i % 7;
    for (int e = 0; e < n; e++) {
        uint32_t k = (uint32_t)((i + e) % 5 == 0 ? 0 : (i * 3 + e) % 4 + 1);
        assert_int_equal(llmlat_request_event(r, t, k), LLMLAT_OK);
        t += (3 + (i * 7 + e * 13) % 41) * MS / 2;
    }
    assert_int_equal(llmlat_request_set_input_tokens(r, (uint64_t)(50 + i % 300)), LLMLAT_OK);
    if (i % 13 == 4)
        assert_int_equal(llmlat_request_fail(r, t), LLMLAT_OK);
    else
        assert_int_equal(llmlat_request_finish(r, t + MS), LLMLAT_OK);
    return r;
}

static void add_varied(llmlat_agg *a, int from, int to, int events)
{
    for (int i = from; i < to; i++) {
        llmlat_request *r = varied(i, events);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        llmlat_request_free(r);
    }
}

/* An aggregator with SLOs, a duration and report quantiles set, so that
 * every part of its state shows in the snapshot. */
static llmlat_agg *configured(int32_t conv, int32_t mode)
{
    llmlat_agg *a = llmlat_agg_new(conv, mode);
    assert_non_null(a);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.4), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TPOT, 0.02), LLMLAT_OK);
    static const double q[] = { 0.25, 0.5, 0.999 };
    assert_int_equal(llmlat_agg_set_quantiles(a, q, 3), LLMLAT_OK);
    return a;
}

/* ----------------------------------------------------------- the calls */

typedef struct agg_ctx {
    llmlat_agg *a;
    const llmlat_agg *src;
    const llmlat_request *r;
    int32_t which;
    double q;
} agg_ctx;

static int32_t call_add(void *ctx)
{
    agg_ctx *c = ctx;
    return llmlat_agg_add(c->a, c->r);
}

static int32_t call_merge(void *ctx)
{
    agg_ctx *c = ctx;
    return llmlat_agg_merge(c->a, c->src);
}

static int32_t call_window(void *ctx)
{
    agg_ctx *c = ctx;
    return llmlat_agg_add_window(c->a, c->src, 100 * MS, 900 * MS, c->which);
}

/* ------------------------------------------------------------ the tests */

/* Constructors: NULL (and no leak) until memory suffices. */
static void constructors(void **state)
{
    (void)state;
    for (int all = 0; all <= 1; all++) {
        for (long n = 0;; n++) {
            arm(n, all);
            llmlat_request *r = llmlat_request_new();
            disarm();
            if (r) {
                llmlat_request_free(r);
                break;
            }
        }
        for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
            for (int32_t c = LLMLAT_CONV_DEFAULT; c <= CONV_LAST; c++) {
                long failed = 0;
                for (long n = 0;; n++) {
                    arm(n, all);
                    llmlat_agg *a = llmlat_agg_new(c, mode);
                    disarm();
                    if (a) {
                        llmlat_agg_free(a);
                        break;
                    }
                    assert_int_equal(inj.live, 0);
                    failed++;
                }
                assert_true(failed >= 1);
                /* llmlat_agg_create says why: ENOMEM at each of the same
                 * allocations */
                for (long n = 0; n < failed; n++) {
                    llmlat_agg *a = (llmlat_agg *)&inj;
                    arm(n, all);
                    assert_int_equal(llmlat_agg_create(c, mode, &a), LLMLAT_ENOMEM);
                    disarm();
                    assert_null(a);
                    assert_int_equal(inj.live, 0);
                }
            }
    }
}

typedef struct req_ctx {
    llmlat_request *r;
    int64_t t;
    uint32_t k;
    const int64_t *ts;
    const uint32_t *ks;
    size_t n;
} req_ctx;

static int32_t call_event(void *ctx)
{
    req_ctx *c = ctx;
    return llmlat_request_event(c->r, c->t, c->k);
}

static int32_t call_events(void *ctx)
{
    req_ctx *c = ctx;
    return llmlat_request_events(c->r, c->ts, c->ks, c->n);
}

/* The recorder's buffers grow geometrically: at every growth, single and
 * bulk, each allocation may fail; the events already taken stay, and the
 * retried call leaves the recorder equal to one that never failed. */
static void recorder_growth(void **state)
{
    (void)state;
    for (int all = 0; all <= 1; all++) {
        llmlat_request *r = llmlat_request_new(), *twin = llmlat_request_new();
        assert_non_null(r);
        assert_non_null(twin);
        assert_int_equal(llmlat_request_start(r, -5 * SEC), LLMLAT_OK);
        assert_int_equal(llmlat_request_start(twin, -5 * SEC), LLMLAT_OK);
        long failed = 0;
        int64_t t = -4 * SEC;
        for (int i = 0; i < 300; i++) { /* through 16, 32, ..., 512 */
            req_ctx c = { .r = r, .t = t, .k = (uint32_t)(i % 3) };
            failed += fail_each(call_event, &c, r, &REQUEST, all);
            assert_int_equal(llmlat_request_event(twin, t, c.k), LLMLAT_OK);
            t += (i % 5) * MS;
        }
        int64_t ts[700];
        uint32_t ks[700];
        for (int i = 0; i < 700; i++) {
            ts[i] = t + i * MS;
            ks[i] = (uint32_t)(i % 2 + 1);
        }
        req_ctx c = { .r = r, .ts = ts, .ks = ks, .n = 700 };
        failed += fail_each(call_events, &c, r, &REQUEST, all);
        assert_int_equal(llmlat_request_events(twin, ts, ks, 700), LLMLAT_OK);
        assert_true(failed >= 2 * 6); /* two buffers, six growths */
        assert_int_equal(llmlat_request_finish(r, ts[699]), LLMLAT_OK);
        assert_int_equal(llmlat_request_finish(twin, ts[699]), LLMLAT_OK);
        bytes x = { 0 }, y = { 0 };
        snap_request(r, &x);
        snap_request(twin, &y);
        assert_same_bytes(&x, &y);
        bytes_free(&x);
        bytes_free(&y);
        /* a reused recorder keeps its buffers: no allocation at all */
        assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
        assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
        arm(0, true);
        for (int i = 0; i < 900; i++)
            assert_int_equal(llmlat_request_event(r, i, 1), LLMLAT_OK);
        disarm();
        llmlat_request_free(r);
        llmlat_request_free(twin);
    }
}

/* add, in every convention and both modes: into an empty aggregator
 * (every store allocates) and into a full one (stores grow). */
static void add_fails_cleanly(void **state)
{
    (void)state;
    for (int all = 0; all <= 1; all++)
        for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
            for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++) {
                llmlat_agg *a = configured(conv, mode), *twin = configured(conv, mode);
                long failed = 0;
                for (int i = 0; i < 16; i++) {
                    llmlat_request *r = varied(i, i == 0 ? 40 : 3 + i * 3);
                    agg_ctx c = { .a = a, .r = r };
                    failed += fail_each(call_add, &c, a, &AGG, all);
                    assert_int_equal(llmlat_agg_add(twin, r), LLMLAT_OK);
                    llmlat_request_free(r);
                }
                /* exact mode allocates; bounded mode never does on add */
                if (mode == LLMLAT_MODE_EXACT)
                    assert_true(failed >= 10);
                else
                    assert_int_equal(failed, 0);
                bytes x = { 0 }, y = { 0 };
                snap_agg(a, &x);
                snap_agg(twin, &y);
                assert_same_bytes(&x, &y);
                bytes_free(&x);
                bytes_free(&y);
                llmlat_agg_free(a);
                llmlat_agg_free(twin);
            }
}

/* merge, into an empty and into a non-empty aggregator. */
static void merge_fails_cleanly(void **state)
{
    (void)state;
    for (int all = 0; all <= 1; all++)
        for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
            for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++) {
                llmlat_agg *src = configured(conv, mode);
                add_varied(src, 0, 60, 9);
                for (int filled = 0; filled <= 1; filled++) {
                    llmlat_agg *a = configured(conv, mode), *twin = configured(conv, mode);
                    if (filled) {
                        add_varied(a, 60, 70, 4);
                        add_varied(twin, 60, 70, 4);
                    }
                    bytes src_before = { 0 }, src_after = { 0 };
                    snap_agg(src, &src_before);
                    agg_ctx c = { .a = a, .src = src };
                    long failed = fail_each(call_merge, &c, a, &AGG, all);
                    snap_agg(src, &src_after);
                    assert_same_bytes(&src_before, &src_after); /* src untouched */
                    assert_int_equal(llmlat_agg_merge(twin, src), LLMLAT_OK);
                    if (mode == LLMLAT_MODE_EXACT)
                        assert_true(failed >= 1);
                    bytes x = { 0 }, y = { 0 };
                    snap_agg(a, &x);
                    snap_agg(twin, &y);
                    assert_same_bytes(&x, &y);
                    bytes_free(&x);
                    bytes_free(&y);
                    bytes_free(&src_before);
                    bytes_free(&src_after);
                    llmlat_agg_free(a);
                    llmlat_agg_free(twin);
                }
                llmlat_agg_free(src);
            }
}

/* A query's value under injection, then without: ENOMEM (and NaN-free
 * nothing else) until it succeeds with the very value of a twin. */
typedef int32_t (*query_fn)(const llmlat_agg *a, int32_t which, double q, double *out);

static int32_t q_stat(const llmlat_agg *a, int32_t which, double q, double *out)
{
    return llmlat_agg_stat(a, which, (int32_t)q, out);
}

static int32_t q_quantile(const llmlat_agg *a, int32_t which, double q, double *out)
{
    return llmlat_agg_quantile(a, which, q, out);
}

static int32_t q_quantiles(const llmlat_agg *a, int32_t which, double q, double *out)
{
    double qs[5] = { 0.0, q / 3, q, (1 + q) / 2, 1.0 }, o[5];
    int32_t st = llmlat_agg_quantiles(a, which, qs, 5, o);
    *out = o[0] + o[1] + o[2] + o[3] + o[4];
    return st;
}

static int32_t q_rate(const llmlat_agg *a, int32_t which, double q, double *out)
{
    (void)q;
    return llmlat_agg_rate(a, which, out);
}

static int32_t q_counter(const llmlat_agg *a, int32_t which, double q, double *out)
{
    (void)q;
    uint64_t v = 0;
    int32_t st = llmlat_agg_counter(a, which, &v);
    *out = (double)v;
    return st;
}

typedef struct query_ctx {
    const llmlat_agg *a;
    query_fn fn;
    int32_t which;
    double q, out;
} query_ctx;

static int32_t call_query(void *ctx)
{
    query_ctx *c = ctx;
    return c->fn(c->a, c->which, c->q, &c->out);
}

static void check_query(llmlat_agg *a, query_fn fn, int32_t which, double q, bool all,
                        bool must_allocate)
{
    query_ctx c = { .a = a, .fn = fn, .which = which, .q = q };
    double want;
    assert_int_equal(fn(a, which, q, &want), LLMLAT_OK);
    long failed = fail_each(call_query, &c, a, &AGG, all);
    if (must_allocate)
        assert_true(failed >= 1);
    assert_memory_equal(&c.out, &want, sizeof want);
}

/* Every query that allocates scratch: median, quantiles (small stores are
 * sorted, large ones selected level by level), peak concurrency, peak
 * output tokens/s. */
static void queries_fail_cleanly(void **state)
{
    (void)state;
    for (int all = 0; all <= 1; all++) {
        llmlat_agg *small = configured(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
        llmlat_agg *large = configured(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
        add_varied(small, 0, 120, 5);    /* > 64: radix sort, < 4096: by sorting */
        add_varied(large, 0, 300, 20);   /* > 4096 ITL values: radix select */
        llmlat_agg *both[2] = { small, large };
        for (int i = 0; i < 2; i++) {
            llmlat_agg *a = both[i];
            for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
                if (a == large && (m != LLMLAT_ITL || all)) /* the one store past 4096 */
                    continue;
                check_query(a, q_stat, m, LLMLAT_STAT_MEDIAN, all, true);
                check_query(a, q_quantile, m, 0.37, all, true);
                check_query(a, q_quantiles, m, 0.9, all, true);
                /* the rest of the statistics do not allocate */
                for (int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MAX; s++)
                    check_query(a, q_stat, m, s, all, false);
            }
            check_query(a, q_counter, LLMLAT_COUNT_PEAK_CONCURRENCY, 0, all, true);
            check_query(a, q_rate, LLMLAT_RATE_PEAK_OUTPUT_TOKENS, 0, all, true);
            check_query(a, q_counter, LLMLAT_COUNT_GOOD, 0, all, false);
            check_query(a, q_rate, LLMLAT_RATE_GOODPUT, 0, all, false);
        }
        /* quantiles of a constant store need no scratch at all */
        llmlat_agg *flat = configured(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
        for (int i = 0; i < 100; i++)
            add_request(flat, 0, EVS({ 10 * MS, 1 }, { 20 * MS, 1 }), ENDS_FINISHED, 20 * MS, 0);
        check_query(flat, q_quantile, LLMLAT_TTFT, 0.5, all, false);
        llmlat_agg_free(flat);
        llmlat_agg_free(small);
        llmlat_agg_free(large);
    }
}

/* Bounded mode: queries read the sketches and never allocate. */
static void bounded_queries_never_allocate(void **state)
{
    (void)state;
    llmlat_agg *a = configured(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    add_varied(a, 0, 200, 8);
    long calls = inj.calls;
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
        double v;
        assert_int_equal(llmlat_agg_stat(a, m, LLMLAT_STAT_MEDIAN, &v), LLMLAT_OK);
        assert_int_equal(llmlat_agg_quantile(a, m, 0.99, &v), LLMLAT_OK);
    }
    assert_int_equal(inj.calls, calls);
    llmlat_agg_free(a);
}

typedef struct param_ctx {
    llmlat_agg *a;
    int32_t param;
    double value;
} param_ctx;

static int32_t call_set_param(void *ctx)
{
    param_ctx *c = ctx;
    return llmlat_agg_set_param(c->a, c->param, c->value);
}

/* A bounded aggregator's relative error rebuilds its layout: all or
 * nothing. */
static void relative_error_rebuild(void **state)
{
    (void)state;
    for (int all = 0; all <= 1; all++) {
        llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_BOUNDED);
        assert_non_null(a);
        param_ctx c = { a, LLMLAT_PARAM_RELATIVE_ERROR, 0.002 };
        assert_true(fail_each(call_set_param, &c, a, &AGG, all) >= 2);
        llmlat_agg *twin = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_BOUNDED);
        assert_int_equal(llmlat_agg_set_param(twin, LLMLAT_PARAM_RELATIVE_ERROR, 0.002),
                         LLMLAT_OK);
        add_varied(a, 0, 50, 6);
        add_varied(twin, 0, 50, 6);
        bytes x = { 0 }, y = { 0 };
        snap_agg(a, &x);
        snap_agg(twin, &y);
        assert_same_bytes(&x, &y);
        bytes_free(&x);
        bytes_free(&y);
        llmlat_agg_free(a);
        llmlat_agg_free(twin);
    }
}

typedef struct report_ctx {
    const llmlat_agg *a;
    int32_t format;
    char *buf;
    size_t cap, len;
} report_ctx;

static int32_t call_report(void *ctx)
{
    report_ctx *c = ctx;
    memset(c->buf, 0x5a, c->cap);
    int32_t st = llmlat_agg_report(c->a, c->format, c->buf, c->cap, &c->len);
    if (st == LLMLAT_ENOMEM) /* nothing written on failure */
        for (size_t i = 0; i < c->cap; i++)
            assert_int_equal((unsigned char)c->buf[i], 0x5a);
    return st;
}

static int32_t call_expose(void *ctx)
{
    report_ctx *c = ctx;
    memset(c->buf, 0x5a, c->cap);
    int32_t st = llmlat_expose(&c->a, 1, c->format, c->buf, c->cap, &c->len);
    if (st == LLMLAT_ENOMEM) /* nothing written on failure */
        for (size_t i = 0; i < c->cap; i++)
            assert_int_equal((unsigned char)c->buf[i], 0x5a);
    return st;
}

/* Reports build their text in a growing buffer and query the aggregator
 * (scratch for quantiles), the protobuf exposition assembles each family
 * and reads the native buckets into scratch: each allocation may fail. */
static void reports_fail_cleanly(void **state)
{
    (void)state;
    for (int all = 0; all <= 1; all++)
        for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
            for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++) {
                if (all && conv != LLMLAT_CONV_DEFAULT) /* the same paths again */
                    continue;
                llmlat_agg *a = configured(conv, mode);
                add_varied(a, 0, 30, 6);
                for (int32_t f = LLMLAT_FORMAT_TEXT; f <= LLMLAT_FORMAT_PROMETHEUS_PROTOBUF; f++) {
                    size_t need = 0;
                    assert_int_equal(llmlat_agg_report(a, f, NULL, 0, &need), LLMLAT_ENOSPC);
                    report_ctx c = { a, f, malloc(need), need, 0 };
                    assert_non_null(c.buf);
                    long failed = fail_each(call_report, &c, a, &AGG, all);
                    if (getenv("LLMLAT_TEST_VERBOSE"))
                        fprintf(stderr, "report %d conv %d mode %d: %ld failures\n", f, conv,
                                mode, failed);
                    assert_true(failed >= 1);
                    assert_int_equal(c.len, need);
                    if (f >= LLMLAT_FORMAT_PROMETHEUS) { /* the exposition alone, too */
                        assert_int_equal(llmlat_expose((const llmlat_agg *const *)&a, 1, f,
                                                       NULL, 0, &need),
                                         LLMLAT_ENOSPC);
                        c.cap = need;
                        c.buf = realloc(c.buf, need);
                        assert_true(fail_each(call_expose, &c, a, &AGG, all) >= 1);
                        assert_int_equal(c.len, need);
                    }
                    free(c.buf);
                }
                llmlat_agg_free(a);
            }
}

/* Deserialization allocates the aggregator and its stores: NULL and
 * ENOMEM, no leak, until it succeeds with an equal aggregator. Skipped
 * silently only while serialization does not exist yet (EINVAL). */
static void deserialize_fails_cleanly(void **state)
{
    (void)state;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
        for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++) {
            llmlat_agg *a = configured(conv, mode);
            add_varied(a, 0, 40, 5);
            size_t len = 0;
            int32_t st = llmlat_agg_serialize(a, NULL, 0, &len);
            if (st == LLMLAT_EINVAL) { /* the format has not landed in this tree */
                llmlat_agg_free(a);
                return;
            }
            assert_int_equal(st, LLMLAT_ENOSPC);
            unsigned char *buf = malloc(len);
            assert_non_null(buf);
            assert_int_equal(llmlat_agg_serialize(a, buf, len, &len), LLMLAT_OK);
            for (int all = 0; all <= 1; all++) {
                long failed = 0;
                for (long n = 0;; n++) {
                    int32_t status = 12345;
                    arm(n, all);
                    llmlat_agg *copy = llmlat_agg_deserialize(buf, len, &status);
                    disarm();
                    if (copy) {
                        assert_int_equal(status, LLMLAT_OK);
                        bytes x = { 0 }, y = { 0 };
                        snap_agg(a, &x);
                        snap_agg(copy, &y);
                        assert_same_bytes(&x, &y);
                        bytes_free(&x);
                        bytes_free(&y);
                        llmlat_agg_free(copy);
                        break;
                    }
                    assert_int_equal(status, LLMLAT_ENOMEM);
                    failed++;
                }
                assert_true(failed >= 1);
            }
            free(buf);
            llmlat_agg_free(a);
        }
}

/* A window goes through a twin of dst and one merge: every failure leaves
 * dst as it was, the retry equals a dst that never failed. */
static void window_fails_cleanly(void **state)
{
    (void)state;
    llmlat_agg *src = configured(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    add_varied(src, 0, 50, 6);
    for (int all = 0; all <= 1; all++)
        for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
            for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= LLMLAT_CONV_LLMPERF; conv++) {
                llmlat_agg *a = configured(conv, mode), *twin = configured(conv, mode);
                add_varied(a, 60, 64, 4);
                add_varied(twin, 60, 64, 4);
                agg_ctx c = { .a = a, .src = src, .which = LLMLAT_WINDOW_START };
                long failed = fail_each(call_window, &c, a, &AGG, all);
                assert_true(failed >= 1);
                assert_int_equal(llmlat_agg_add_window(twin, src, 100 * MS, 900 * MS,
                                                       LLMLAT_WINDOW_START), LLMLAT_OK);
                bytes x = { 0 }, y = { 0 };
                snap_agg(a, &x);
                snap_agg(twin, &y);
                assert_same_bytes(&x, &y);
                bytes_free(&x);
                bytes_free(&y);
                llmlat_agg_free(a);
                llmlat_agg_free(twin);
            }
    llmlat_agg_free(src);
}

/* llmlat_compare_new: NULL with ENOMEM and no leak until memory suffices,
 * then the same report as a comparison that never failed. */
static void compare_fails_cleanly(void **state)
{
    (void)state;
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= LLMLAT_CONV_LLMPERF; conv++) {
        llmlat_agg *base = configured(conv, LLMLAT_MODE_EXACT);
        llmlat_agg *cand = configured(conv, LLMLAT_MODE_EXACT);
        add_varied(base, 0, 30, 5);
        add_varied(cand, 10, 45, 5);
        llmlat_compare *want = llmlat_compare_new(base, cand, 20, 9, NULL);
        assert_non_null(want);
        size_t want_len = 0;
        assert_int_equal(llmlat_compare_report(want, LLMLAT_FORMAT_JSON, NULL, 0, &want_len),
                         LLMLAT_ENOSPC);
        char *want_text = malloc(want_len);
        assert_int_equal(llmlat_compare_report(want, LLMLAT_FORMAT_JSON, want_text, want_len,
                                               &want_len), LLMLAT_OK);
        for (int all = 0; all <= 1; all++) {
            long failed = 0;
            for (long n = 0;; n++) {
                int32_t st = 12345;
                arm(n, all);
                llmlat_compare *c = llmlat_compare_new(base, cand, 20, 9, &st);
                disarm();
                if (c) {
                    assert_int_equal(st, LLMLAT_OK);
                    char *text = malloc(want_len);
                    size_t len = 0;
                    assert_int_equal(llmlat_compare_report(c, LLMLAT_FORMAT_JSON, text,
                                                           want_len, &len), LLMLAT_OK);
                    assert_int_equal(len, want_len);
                    assert_memory_equal(text, want_text, len);
                    free(text);
                    llmlat_compare_free(c);
                    break;
                }
                assert_int_equal(st, LLMLAT_ENOMEM);
                failed++;
            }
            assert_true(failed >= 3);
        }
        /* the report's own allocation */
        for (long n = 0;; n++) {
            size_t len = 0;
            arm(n, false);
            int32_t st = llmlat_compare_report(want, LLMLAT_FORMAT_TEXT, NULL, 0, &len);
            disarm();
            if (st == LLMLAT_ENOSPC)
                break;
            assert_int_equal(st, LLMLAT_ENOMEM);
        }
        free(want_text);
        llmlat_compare_free(want);
        llmlat_agg_free(base);
        llmlat_agg_free(cand);
    }
}

/* The hook itself: all three functions or none; and the growth helper
 * refuses sizes that do not fit size_t, leaving the buffer as it was. */
static void hook_and_size_limits(void **state)
{
    (void)state;
    assert_int_equal(llmlat_set_allocator(inj_malloc, NULL, inj_free, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_set_allocator(NULL, inj_realloc, NULL, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_set_allocator(inj_malloc, inj_realloc, NULL, NULL), LLMLAT_EINVAL);
    llmlat_request *r = llmlat_request_new(); /* still the injecting hook */
    assert_int_equal(inj.live, 1);
    llmlat_request_free(r);

    llmlat_alloc al = alloc_current();
    size_t cap = 0;
    void *p = NULL;
    assert_int_equal(alloc_grow(&al, &p, &cap, SIZE_MAX / 2 + 2, 1), LLMLAT_ENOMEM);
    assert_int_equal(alloc_grow(&al, &p, &cap, SIZE_MAX / 8 + 1, 16), LLMLAT_ENOMEM);
    assert_null(p);
    assert_int_equal(cap, 0);
    assert_int_equal(alloc_grow(&al, &p, &cap, 3, 8), LLMLAT_OK);
    assert_true(cap >= 3);
    alloc_free(&al, p);
}

int main(int argc, char **argv)
{
    if (argc > 1) /* one test by name, for debugging */
        cmocka_set_test_filter(argv[1]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(hook_and_size_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(constructors, setup, teardown),
        cmocka_unit_test_setup_teardown(recorder_growth, setup, teardown),
        cmocka_unit_test_setup_teardown(add_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(merge_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(queries_fail_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(bounded_queries_never_allocate, setup, teardown),
        cmocka_unit_test_setup_teardown(relative_error_rebuild, setup, teardown),
        cmocka_unit_test_setup_teardown(reports_fail_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(deserialize_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(window_fails_cleanly, setup, teardown),
        cmocka_unit_test_setup_teardown(compare_fails_cleanly, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
