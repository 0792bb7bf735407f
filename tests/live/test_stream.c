/* Streaming recorders (llmlat_request_new_streaming): the same bits as
 * the buffered recorder, under every convention, on random streams with
 * empty chunks, multi-token chunks, zero gaps (AIPerf drops a request's
 * ICL for one), stalls, spreads beyond a sketch's window, counts past
 * 65535 in a bucket, failures and usage counts; the same per-request
 * values; bounded memory; all-or-nothing events under allocation
 * failure. */
#include <stdbool.h>
#include <stdio.h>

#include "helpers.h"
#include "record/request.h"

static uint64_t rng_state = 0x853c49e6748fea9bu;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static const int32_t CONVS[] = { LLMLAT_CONV_DEFAULT, LLMLAT_CONV_VLLM,
                                 LLMLAT_CONV_AIPERF,  LLMLAT_CONV_SGLANG,
                                 LLMLAT_CONV_LLMPERF, LLMLAT_CONV_GUIDELLM,
                                 LLMLAT_CONV_INFERENCE_PERF };

/* The gap rule a convention folds by: which events make gaps (vLLM counts
 * empty ones) and how a chunk's tokens share its gap (inference-perf gives
 * each the chunk's time). A streaming recorder folds by one of them. */
enum { RULE_DEFAULT, RULE_VLLM, RULE_INFERENCE_PERF, RULES };

static int rule_of(int32_t conv)
{
    return conv == LLMLAT_CONV_VLLM             ? RULE_VLLM
           : conv == LLMLAT_CONV_INFERENCE_PERF ? RULE_INFERENCE_PERF
                                                : RULE_DEFAULT;
}

static const int32_t RULE_CONV[RULES] = { LLMLAT_CONV_DEFAULT, LLMLAT_CONV_VLLM,
                                          LLMLAT_CONV_INFERENCE_PERF };
#define NCONV (sizeof CONVS / sizeof CONVS[0])

/* One random event stream, to replay into both recorders. */
typedef struct stream {
    int64_t start, end;
    size_t n;
    int64_t *t;
    uint32_t *k;
    bool failed;
    uint64_t input, usage; /* usage 0: none */
    int64_t late;          /* start - intended start; -1: none */
} stream;

/* Gaps: mostly 5..60 ms; sometimes 0, a few microseconds, or a stall of
 * up to `stall_s` seconds; chunks of 0..5 tokens. */
static stream random_stream(int64_t start, size_t n, double stall_s)
{
    stream s = { .start = start, .n = n };
    s.t = malloc((n ? n : 1) * sizeof *s.t);
    s.k = malloc((n ? n : 1) * sizeof *s.k);
    int64_t t = start + (int64_t)(rng() % (800 * MS));
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng() % 100;
        s.t[i] = t;
        s.k[i] = r < 8 ? 0 : r < 20 ? 2 + (uint32_t)(rng() % 4) : 1;
        uint64_t g = rng() % 100;
        t += g < 4 ? 0 : g < 8 ? (int64_t)(rng() % (20 * US)) : g < 10 && stall_s > 0
                 ? (int64_t)(rng() % (uint64_t)(stall_s * 1e9))
                 : 5 * MS + (int64_t)(rng() % (55 * MS));
    }
    s.end = (n ? s.t[n - 1] : start) + (int64_t)(rng() % (3 * MS));
    s.failed = rng() % 9 == 0;
    s.input = rng() % 4000;
    s.usage = rng() % 5 == 0 ? 1 + rng() % 3000 : 0;
    s.late = rng() % 3 == 0 ? -1 : (int64_t)(rng() % (900 * MS));
    return s;
}

static void free_stream(stream *s)
{
    free(s->t);
    free(s->k);
}

/* Replays s into r: one event at a time, or in bulk pieces. */
static void replay(llmlat_request *r, const stream *s, bool bulk)
{
    assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    if (s->late >= 0)
        assert_int_equal(llmlat_request_schedule(r, s->start - s->late), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, s->start), LLMLAT_OK);
    for (size_t i = 0; i < s->n;) {
        size_t m = bulk ? 1 + rng() % 300 : 1;
        if (m > s->n - i)
            m = s->n - i;
        if (m == 1)
            assert_int_equal(llmlat_request_event(r, s->t[i], s->k[i]), LLMLAT_OK);
        else
            assert_int_equal(llmlat_request_events(r, s->t + i, s->k + i, m), LLMLAT_OK);
        i += m;
    }
    assert_int_equal(llmlat_request_set_input_tokens(r, s->input), LLMLAT_OK);
    if (s->usage)
        assert_int_equal(llmlat_request_set_output_tokens(r, s->usage), LLMLAT_OK);
    assert_int_equal(s->failed ? llmlat_request_fail(r, s->end) : llmlat_request_finish(r, s->end),
                     LLMLAT_OK);
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

/* Every metric's value of both recorders under every convention: equal,
 * or (a streaming recorder's gaps under the other gap rule) EMISMATCH. */
static void assert_same_values(const llmlat_request *buf, const llmlat_request *str, int rule)
{
    for (size_t c = 0; c < NCONV; c++) {
        bool other_rule = rule_of(CONVS[c]) != rule;
        for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
            double x = 0, y = 0;
            int32_t sx = llmlat_request_value(buf, CONVS[c], m, &x);
            int32_t sy = llmlat_request_value(str, CONVS[c], m, &y);
            bool gap_metric = m == LLMLAT_ITL || m == LLMLAT_ICL || m == LLMLAT_ITL_MAX ||
                              (m == LLMLAT_TOOL_ITL &&
                               (CONVS[c] == LLMLAT_CONV_DEFAULT || CONVS[c] == LLMLAT_CONV_VLLM ||
                                CONVS[c] == LLMLAT_CONV_SGLANG ||
                                CONVS[c] == LLMLAT_CONV_INFERENCE_PERF));
            if (other_rule && gap_metric) {
                assert_int_equal(sy, LLMLAT_EMISMATCH);
                continue;
            }
            if (sx != sy || memcmp(&x, &y, sizeof x) != 0)
                fail_msg("conv %d metric %d: buffered %d %.17g, streaming %d %.17g", CONVS[c], m,
                         sx, x, sy, y);
        }
    }
}

/* A server's usual stream: one token per event, gaps of 5..60 ms, and
 * one event in `odd` something else (an empty chunk, a chunk of 3, a gap
 * of 0 or of microseconds), so that a streaming recorder folds most of
 * its blocks of held events at once and some one by one. */
static stream plain_stream(int64_t start, size_t n, unsigned odd)
{
    stream s = random_stream(start, n, 0);
    int64_t t = start + 200 * MS;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng() % (4 * odd);
        s.t[i] = t;
        s.k[i] = r == 0 ? 0 : r == 1 ? 3 : 1;
        t += r == 2 ? 0 : r == 3 ? (int64_t)(rng() % (20 * US)) : 5 * MS + (int64_t)(rng() % (55 * MS));
    }
    s.end = (n ? s.t[n - 1] : start) + (int64_t)(rng() % (3 * MS));
    return s;
}

/* Every metric of both recorders in flight, at every event a streaming
 * recorder holds (before, at and after the fold of its block): equal. */
static void replay_in_flight(llmlat_request *buf, llmlat_request *str, const stream *s, int rule)
{
    assert_int_equal(llmlat_request_reset(buf), LLMLAT_OK);
    assert_int_equal(llmlat_request_reset(str), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(buf, s->start), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(str, s->start), LLMLAT_OK);
    if (s->late >= 0) { /* after the start, this time */
        assert_int_equal(llmlat_request_schedule(buf, s->start - s->late), LLMLAT_OK);
        assert_int_equal(llmlat_request_schedule(str, s->start - s->late), LLMLAT_OK);
    }
    for (size_t i = 0; i < s->n; i++) {
        assert_int_equal(llmlat_request_event(buf, s->t[i], s->k[i]), LLMLAT_OK);
        assert_int_equal(llmlat_request_event(str, s->t[i], s->k[i]), LLMLAT_OK);
        if (i < 140 || i % 61 == 0)
            assert_same_values(buf, str, rule);
    }
}

/* n random streams into buffered and streaming recorders, added to one
 * aggregator per convention each: the same bytes, after every add. With
 * odd > 0, usual streams (plain_stream), compared in flight first. */
static void run_streams(size_t count, size_t max_events, double stall_s, bool bulk, unsigned odd)
{
    for (int family = 0; family < RULES; family++) {
        llmlat_agg *like = llmlat_agg_new(RULE_CONV[family], LLMLAT_MODE_BOUNDED);
        llmlat_request *buf = llmlat_request_new(), *str = llmlat_request_new_streaming(like);
        assert_non_null(str);
        llmlat_agg_free(like); /* only read */
        llmlat_agg *ab[NCONV], *as[NCONV];
        for (size_t c = 0; c < NCONV; c++) {
            ab[c] = llmlat_agg_new(CONVS[c], LLMLAT_MODE_BOUNDED);
            as[c] = llmlat_agg_new(CONVS[c], LLMLAT_MODE_BOUNDED);
        }
        for (size_t i = 0; i < count; i++) {
            int64_t start = (int64_t)i * 100 * MS;
            size_t n = rng() % (max_events + 1);
            stream s = odd ? plain_stream(start, n, odd) : random_stream(start, n, stall_s);
            if (odd && i % 8 == 0)
                replay_in_flight(buf, str, &s, family);
            replay(buf, &s, false);
            replay(str, &s, bulk);
            assert_same_values(buf, str, family);
            for (size_t c = 0; c < NCONV; c++) {
                bool same_rule = rule_of(CONVS[c]) == family;
                assert_int_equal(llmlat_agg_add(ab[c], buf), LLMLAT_OK);
                if (!same_rule) {
                    assert_int_equal(llmlat_agg_add(as[c], str), LLMLAT_EMISMATCH);
                    continue;
                }
                assert_int_equal(llmlat_agg_add(as[c], str), LLMLAT_OK);
                if (i % 16 == 15 || i + 1 == count)
                    assert_same_bytes(ab[c], as[c]);
            }
            free_stream(&s);
        }
        for (size_t c = 0; c < NCONV; c++) {
            llmlat_agg_free(ab[c]);
            llmlat_agg_free(as[c]);
        }
        llmlat_request_free(buf);
        llmlat_request_free(str);
    }
}

static void run_random(size_t count, size_t max_events, double stall_s, bool bulk)
{
    run_streams(count, max_events, stall_s, bulk, 0);
}

static void random_streams_equal_the_buffered_recorder(void **state)
{
    (void)state;
    run_random(400, 120, 3.0, false);
}

/* Usual streams, mostly folded a block at a time: one odd event in 500,
 * in 60, in 8. */
static void usual_streams_equal_the_buffered_recorder(void **state)
{
    (void)state;
    static const unsigned odd[] = { 500, 60, 8 };
    for (int j = 0; j < 3; j++) {
        run_streams(60, 1500, 0, false, odd[j]);
        run_streams(30, 1500, 0, true, odd[j]);
    }
}

static void bulk_events_equal_single_events(void **state)
{
    (void)state;
    run_random(200, 2000, 3.0, true);
}

/* Stalls of hours beside microsecond gaps: more than a sketch's 31
 * octaves within one request, so its own window drops what is below. */
static void spreads_beyond_the_window(void **state)
{
    (void)state;
    run_random(60, 400, 3 * 3600.0, false);
    run_random(60, 400, 3 * 3600.0, true);
}

/* A stream of fixed steps fills one bucket past 65535 (carries), then
 * many (4-byte counts); with zero gaps and multi-token chunks. */
static void long_streams_past_the_counters(void **state)
{
    (void)state;
    llmlat_agg *like = llmlat_agg_new(LLMLAT_CONV_AIPERF, LLMLAT_MODE_BOUNDED);
    for (int bulk = 0; bulk < 2; bulk++) {
        llmlat_request *buf = llmlat_request_new(), *str = llmlat_request_new_streaming(like);
        stream s = { .start = 0, .n = 1200000 };
        s.t = malloc(s.n * sizeof *s.t);
        s.k = malloc(s.n * sizeof *s.k);
        int64_t t = 50 * MS;
        for (size_t i = 0; i < s.n; i++) {
            s.t[i] = t;
            s.k[i] = i % 1000 == 7 ? 3 : 1;
            /* 700k gaps in one bucket; then 12 buckets of 40k each */
            t += i < 700000 ? 20 * MS : (int64_t)(1 + (i / 40000) % 12) * MS;
        }
        s.end = t;
        replay(buf, &s, bulk);
        replay(str, &s, bulk);
        for (size_t c = 0; c < NCONV; c++) {
            if (rule_of(CONVS[c]) != RULE_DEFAULT)
                continue;
            llmlat_agg *x = llmlat_agg_new(CONVS[c], LLMLAT_MODE_BOUNDED);
            llmlat_agg *y = llmlat_agg_new(CONVS[c], LLMLAT_MODE_BOUNDED);
            assert_int_equal(llmlat_agg_add(x, buf), LLMLAT_OK);
            assert_int_equal(llmlat_agg_add(y, str), LLMLAT_OK);
            assert_same_bytes(x, y);
            llmlat_agg_free(x);
            llmlat_agg_free(y);
        }
        free_stream(&s);
        llmlat_request_free(buf);
        llmlat_request_free(str);
    }
    llmlat_agg_free(like);
}

/* Zero gaps under AIPerf drop the request's ICL, in both recorders; a
 * hand-made case. */
static void aiperf_zero_gap_drops_the_icl(void **state)
{
    (void)state;
    llmlat_agg *like = llmlat_agg_new(LLMLAT_CONV_AIPERF, LLMLAT_MODE_BOUNDED);
    llmlat_request *str = llmlat_request_new_streaming(like);
    assert_int_equal(llmlat_request_start(str, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(str, 10 * MS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(str, 20 * MS, 0), LLMLAT_OK); /* empty: no gap */
    assert_int_equal(llmlat_request_event(str, 30 * MS, 2), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(str, 30 * MS, 1), LLMLAT_OK); /* a zero gap */
    assert_int_equal(llmlat_request_finish(str, 31 * MS), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(like, str), LLMLAT_OK);
    assert_close(stat_of(like, LLMLAT_ICL, LLMLAT_STAT_COUNT), 0, 0);
    /* ITL: 2 samples of 10 ms (the chunk), one of 0 */
    assert_close(stat_of(like, LLMLAT_ITL, LLMLAT_STAT_COUNT), 3, 0);
    assert_close(stat_of(like, LLMLAT_ITL, LLMLAT_STAT_MAX), 0.010, TOL_S);
    assert_close(stat_of(like, LLMLAT_ITL, LLMLAT_STAT_MIN), 0.0, 0);
    assert_close(stat_of(like, LLMLAT_ITL_MAX, LLMLAT_STAT_MAX), 0.020, TOL_S);
    /* the default convention keeps the ICL: 20 ms and 0 */
    llmlat_agg *d = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_add(d, str), LLMLAT_OK);
    assert_close(stat_of(d, LLMLAT_ICL, LLMLAT_STAT_COUNT), 2, 0);
    assert_close(stat_of(d, LLMLAT_ICL, LLMLAT_STAT_MEAN), 0.010, TOL_S);
    llmlat_agg_free(d);
    llmlat_request_free(str);
    llmlat_agg_free(like);
}

static void mismatches_and_bad_arguments(void **state)
{
    (void)state;
    llmlat_agg *exact = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *like = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_null(llmlat_request_new_streaming(NULL));
    assert_null(llmlat_request_new_streaming(exact));
    llmlat_request *r = llmlat_request_new_streaming(like);
    llmlat_request *other = llmlat_request_new_streaming(like); /* shares the layout */
    assert_non_null(other);
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, 10 * MS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, 5 * MS, 1), LLMLAT_EORDER);
    int64_t ts[2] = { 20 * MS, 15 * MS };
    uint32_t ks[2] = { 1, 1 };
    assert_int_equal(llmlat_request_events(r, ts, ks, 2), LLMLAT_EORDER);
    double v;
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT, &v), LLMLAT_OK);
    assert_close(v, 0.010, TOL_S);
    assert_int_equal(llmlat_agg_add(like, r), LLMLAT_ESTATE); /* in flight */
    assert_int_equal(llmlat_request_finish(r, 20 * MS), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, 30 * MS, 1), LLMLAT_ESTATE);
    const int64_t *got_t = ts;
    const uint32_t *got_k = ks;
    size_t got_n = 0;
    assert_int_equal(llmlat_request_get_events(r, &got_t, &got_k, &got_n), LLMLAT_EMISMATCH);
    assert_null(got_t); /* it keeps none */
    assert_null(got_k);
    assert_int_equal(got_n, 1);
    assert_int_equal(llmlat_agg_add(exact, r), LLMLAT_EMISMATCH);
    llmlat_agg *coarse = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_param(coarse, LLMLAT_PARAM_RELATIVE_ERROR, 0.05), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(coarse, r), LLMLAT_EMISMATCH);
    assert_int_equal(counter_of(coarse, LLMLAT_COUNT_FAILED), 0);
    llmlat_agg *vllm = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_add(vllm, r), LLMLAT_EMISMATCH);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_VLLM, LLMLAT_ICL, &v), LLMLAT_EMISMATCH);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_VLLM, LLMLAT_TTFT, &v), LLMLAT_OK);
    /* like's relative error changed while empty: new recorders follow it */
    assert_int_equal(llmlat_agg_set_param(like, LLMLAT_PARAM_RELATIVE_ERROR, 0.05), LLMLAT_OK);
    llmlat_request *r5 = llmlat_request_new_streaming(like);
    assert_int_equal(llmlat_request_start(r5, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r5, 0), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(coarse, r5), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(like, r), LLMLAT_EMISMATCH);
    /* reset: reusable, events buffered nowhere */
    assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT, &v), LLMLAT_ESTATE);
    llmlat_agg_free(like); /* the recorders keep the layout */
    assert_int_equal(llmlat_request_start(other, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(other, 7 * MS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(other, 9 * MS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(other, 9 * MS), LLMLAT_OK);
    llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_add(b, other), LLMLAT_OK);
    assert_close(stat_of(b, LLMLAT_ITL, LLMLAT_STAT_MEAN), 0.002, TOL_S);
    llmlat_agg_free(b);
    llmlat_agg_free(vllm);
    llmlat_agg_free(coarse);
    llmlat_agg_free(exact);
    llmlat_request_free(r);
    llmlat_request_free(r5);
    llmlat_request_free(other);
}

/* An allocator that tracks the bytes it holds (a size header per block). */
typedef struct tracking {
    size_t live, peak;
    long fail_at, calls; /* fail from the fail_at-th allocation on (-1: never) */
} tracking;

static void *track_malloc(void *user, size_t size)
{
    tracking *t = user;
    if (t->fail_at >= 0 && t->calls >= t->fail_at)
        return NULL;
    t->calls++;
    size_t *p = malloc(size + sizeof(size_t) * 2);
    if (!p)
        return NULL;
    p[0] = size;
    t->live += size;
    if (t->live > t->peak)
        t->peak = t->live;
    return p + 2;
}

static void track_free(void *user, void *ptr)
{
    tracking *t = user;
    if (!ptr)
        return;
    size_t *p = (size_t *)ptr - 2;
    t->live -= p[0];
    free(p);
}

static void *track_realloc(void *user, void *ptr, size_t size)
{
    tracking *t = user;
    if (t->fail_at >= 0 && t->calls >= t->fail_at)
        return NULL;
    void *q = track_malloc(user, size);
    if (q && ptr) {
        size_t old = ((size_t *)ptr - 2)[0];
        memcpy(q, ptr, old < size ? old : size);
        track_free(user, ptr);
    }
    return q;
}

/* The memory of one in-flight request (beyond the layout its aggregator
 * shares with all its recorders): a 100,000-token stream of usual gaps
 * (5..60 ms, 1..4 tokens), bursts of chunks microseconds apart and stalls
 * of up to 10 s; then the widest spread there is. */
static void memory_follows_the_spread_not_the_length(void **state)
{
    (void)state;
    llmlat_agg *like = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    tracking t = { 0, 0, -1, 0 };
    assert_int_equal(llmlat_set_allocator(track_malloc, track_realloc, track_free, &t), LLMLAT_OK);
    llmlat_request *first = llmlat_request_new_streaming(like); /* makes the layout */
    size_t layout = t.live;
    llmlat_request *r = llmlat_request_new_streaming(like);
    size_t empty = t.live - layout;
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    int64_t at = 0;
    uint64_t tokens = 0;
    while (tokens < 100000) {
        uint64_t roll = rng() % 1000;
        at += roll < 30 ? 1 * US + (int64_t)(rng() % (50 * US))          /* a burst */
              : roll < 32 ? 100 * MS + (int64_t)(rng() % (10 * SEC))      /* a stall */
                          : 5 * MS + (int64_t)(rng() % (55 * MS));
        uint32_t k = 1 + (uint32_t)(rng() % 4 == 0 ? rng() % 4 : 0);
        assert_int_equal(llmlat_request_event(r, at, k), LLMLAT_OK);
        tokens += k;
    }
    size_t held = t.live - layout;
    /* an empty batch holds nothing more: the block stays 64 events */
    assert_int_equal(llmlat_request_events(r, NULL, NULL, 0), LLMLAT_OK);
    assert_int_equal(t.live - layout, held);
    printf("streaming recorder: %zu bytes empty, %zu after a %llu-token stream of %zu events "
           "(a buffered recorder: %zu); the layout its aggregator shares: %zu\n",
           empty, held, (unsigned long long)tokens, r->n, r->n * 12, layout - empty);
    assert_true(held <= 8192);
    /* the widest spread: gaps from 1 ns to a day and chunks of up to 16
     * tokens: each run is then a whole window, and no more */
    assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    at = 0;
    for (int i = 0; i < 20000; i++) {
        at += (int64_t)1 << (rng() % 47);
        assert_int_equal(llmlat_request_event(r, at, 1 + (uint32_t)(rng() % 16)), LLMLAT_OK);
    }
    size_t widest = t.live - layout;
    printf("widest spread: %zu bytes\n", widest);
    assert_true(widest <= empty + 2 * 2 * (31 * 64 + 1));
    llmlat_request_free(r);
    llmlat_request_free(first);
    assert_int_equal(t.live, layout - empty); /* like still holds the layout */
    llmlat_agg_free(like);
    assert_int_equal(t.live, 0);
    assert_int_equal(llmlat_set_allocator(NULL, NULL, NULL, NULL), LLMLAT_OK);
}

/* ENOMEM at every allocation an event makes: the event is refused and
 * changes nothing, so replaying it once memory is back gives the buffered
 * recorder's bits. */
static void events_are_all_or_nothing(void **state)
{
    (void)state;
    llmlat_agg *like = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    /* like's layout, made now with malloc: it lives as long as like */
    llmlat_request_free(llmlat_request_new_streaming(like));
    stream s = random_stream(0, 3000, 3.0);
    for (int bulk = 0; bulk < 2; bulk++) {
        tracking t = { 0, 0, -1, 0 };
        assert_int_equal(llmlat_set_allocator(track_malloc, track_realloc, track_free, &t),
                         LLMLAT_OK);
        llmlat_request *r = llmlat_request_new_streaming(like);
        assert_int_equal(llmlat_set_allocator(NULL, NULL, NULL, NULL), LLMLAT_OK);
        assert_int_equal(llmlat_request_start(r, s.start), LLMLAT_OK);
        long refused = 0;
        for (size_t i = 0; i < s.n;) {
            size_t m = bulk ? 1 + rng() % 50 : 1;
            if (m > s.n - i)
                m = s.n - i;
            /* the next allocation fails: when the recorder folds its
             * block into runs that must grow */
            t.fail_at = t.calls;
            int32_t st = bulk ? llmlat_request_events(r, s.t + i, s.k + i, m)
                              : llmlat_request_event(r, s.t[i], s.k[i]);
            t.fail_at = -1;
            if (st == LLMLAT_ENOMEM) { /* nothing taken: again, with memory */
                refused++;
                st = bulk ? llmlat_request_events(r, s.t + i, s.k + i, m)
                          : llmlat_request_event(r, s.t[i], s.k[i]);
            }
            assert_int_equal(st, LLMLAT_OK);
            i += m;
        }
        assert_true(refused > 3);
        assert_int_equal(llmlat_request_set_input_tokens(r, s.input), LLMLAT_OK);
        assert_int_equal(llmlat_request_finish(r, s.end), LLMLAT_OK);
        llmlat_request *buf = llmlat_request_new();
        s.failed = false;
        s.usage = 0;
        replay(buf, &s, false);
        llmlat_agg *x = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
        llmlat_agg *y = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
        assert_int_equal(llmlat_agg_add(x, buf), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(y, r), LLMLAT_OK);
        assert_same_bytes(x, y);
        llmlat_agg_free(x);
        llmlat_agg_free(y);
        llmlat_request_free(buf);
        llmlat_request_free(r);
    }
    free_stream(&s);
    llmlat_agg_free(like);
}

/* Through a live recorder and a window, as a server uses them. */
static void into_live_and_window(void **state)
{
    (void)state;
    llmlat_agg *like = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    llmlat_live *l = llmlat_live_new(like);
    llmlat_live_writer *w = llmlat_live_writer_new(l);
    llmlat_window *win = llmlat_window_new(like, 60 * SEC, 5 * SEC, NULL);
    llmlat_request *str = llmlat_request_new_streaming(like), *buf = llmlat_request_new();
    llmlat_agg *want = llmlat_agg_new_like(like);
    for (int i = 0; i < 50; i++) {
        stream s = random_stream((int64_t)i * SEC, 200, 0);
        replay(str, &s, false);
        replay(buf, &s, false);
        assert_int_equal(llmlat_live_add(w, str), LLMLAT_OK);
        assert_int_equal(llmlat_window_add(win, str), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(want, buf), LLMLAT_OK);
        free_stream(&s);
    }
    llmlat_agg *snap = llmlat_agg_new_like(like);
    assert_int_equal(llmlat_live_snapshot(l, LLMLAT_SNAPSHOT_CUMULATIVE, snap), LLMLAT_OK);
    assert_same_bytes(snap, want);
    const llmlat_agg *v;
    assert_int_equal(llmlat_window_view(win, &v), LLMLAT_OK);
    assert_true(counter_of(v, LLMLAT_COUNT_COMPLETED) + counter_of(v, LLMLAT_COUNT_FAILED) > 0);
    llmlat_agg_free(snap);
    llmlat_agg_free(want);
    llmlat_request_free(str);
    llmlat_request_free(buf);
    llmlat_window_free(win);
    llmlat_live_writer_free(w);
    llmlat_live_free(l);
    llmlat_agg_free(like);
}

/* The library's reader hands its requests over through the public event
 * calls: into a streaming recorder, they fold as any events. */
static void read_into_a_streaming_recorder(void **state)
{
    (void)state;
    static const char trace[] =
        "{\"start\": 0, \"events\": [[0.1, 1], [0.12, 2], [0.12, 0], [0.15, 1]], \"end\": 0.15}\n"
        "{\"start\": 1, \"events\": [[1.2, 3]], \"ok\": false}\n"
        "{\"start\": 2, \"events\": [[2.01, 1], [2.05, 1], [2.3, 4]]}\n";
    llmlat_agg *like = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    llmlat_agg *via_stream = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    llmlat_agg *via_buffer = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    llmlat_request *r = llmlat_request_new_streaming(like);
    llmlat_reader *rd = llmlat_reader_new(LLMLAT_INPUT_TRACE, "t");
    assert_int_equal(llmlat_reader_feed(rd, trace, sizeof trace - 1), LLMLAT_OK);
    assert_int_equal(llmlat_reader_end(rd), LLMLAT_OK);
    int32_t what = 0;
    size_t n = 0;
    while (llmlat_reader_next(rd, r, &what) == LLMLAT_OK && what == LLMLAT_READ_REQUEST) {
        assert_int_equal(llmlat_agg_add(via_stream, r), LLMLAT_OK);
        n++;
    }
    assert_int_equal(what, LLMLAT_READ_END);
    assert_int_equal(n, 3);
    llmlat_reader_free(rd);
    rd = llmlat_reader_new(LLMLAT_INPUT_TRACE, "t");
    assert_int_equal(llmlat_reader_feed(rd, trace, sizeof trace - 1), LLMLAT_OK);
    assert_int_equal(llmlat_reader_end(rd), LLMLAT_OK);
    assert_int_equal(llmlat_reader_add_to(rd, via_buffer, &what), LLMLAT_OK);
    assert_int_equal(what, LLMLAT_READ_END);
    assert_int_equal(counter_of(via_stream, LLMLAT_COUNT_COMPLETED), 2);
    assert_same_bytes(via_stream, via_buffer);
    llmlat_reader_free(rd);
    llmlat_request_free(r);
    llmlat_agg_free(via_buffer);
    llmlat_agg_free(via_stream);
    llmlat_agg_free(like);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(random_streams_equal_the_buffered_recorder),
        cmocka_unit_test(usual_streams_equal_the_buffered_recorder),
        cmocka_unit_test(bulk_events_equal_single_events),
        cmocka_unit_test(spreads_beyond_the_window),
        cmocka_unit_test(long_streams_past_the_counters),
        cmocka_unit_test(aiperf_zero_gap_drops_the_icl),
        cmocka_unit_test(mismatches_and_bad_arguments),
        cmocka_unit_test(memory_follows_the_spread_not_the_length),
        cmocka_unit_test(events_are_all_or_nothing),
        cmocka_unit_test(into_live_and_window),
        cmocka_unit_test(read_into_a_streaming_recorder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
