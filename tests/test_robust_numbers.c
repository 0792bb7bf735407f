/* Numerical robustness: long runs (10^9 tokens, hours of timestamps),
 * timestamps at the int64 limits and before the epoch, and every counter
 * and sum at its limit. Means and stds must stay accurate where naive
 * summation drifts; an input that would make a counter or a sum wrap must
 * be refused with LLMLAT_EOVERFLOW and change nothing, the same in both
 * modes. */
#include <stdbool.h>

#include "helpers.h"

#define HOUR (3600 * SEC)

/* --------------------------------------------------------------- tools */

/* The serialized bytes: the whole state of an aggregator (a refused call
 * must leave them as they were). Returns a malloc'ed buffer. */
static unsigned char *state_of(const llmlat_agg *a, size_t *len)
{
    assert_int_equal(llmlat_agg_serialize(a, NULL, 0, len), LLMLAT_ENOSPC);
    unsigned char *buf = malloc(*len);
    assert_non_null(buf);
    assert_int_equal(llmlat_agg_serialize(a, buf, *len, len), LLMLAT_OK);
    return buf;
}

/* Asserts that `call` (an expression) returns `want` and leaves a as it
 * was. */
#define ASSERT_REFUSED(a, call, want)                              \
    do {                                                           \
        size_t n_before_, n_after_;                                \
        unsigned char *before_ = state_of((a), &n_before_);        \
        assert_int_equal((call), (want));                          \
        unsigned char *after_ = state_of((a), &n_after_);          \
        assert_int_equal(n_before_, n_after_);                     \
        assert_memory_equal(before_, after_, n_before_);           \
        free(before_);                                             \
        free(after_);                                              \
    } while (0)

static double rel_err(double got, double want)
{
    return want == 0.0 ? fabs(got) : fabs(got - want) / fabs(want);
}

#define assert_rel(got, want, tol)                                                      \
    do {                                                                                \
        double g_ = (got), w_ = (want);                                                 \
        if (!(rel_err(g_, w_) <= (tol)))                                                \
            fail_msg("%s = %.17g, want %.17g (relative error %g > %g)", #got, g_, w_,     \
                     rel_err(g_, w_), (double)(tol));                                   \
    } while (0)

static llmlat_agg *new_agg(int32_t conv, int32_t mode)
{
    llmlat_agg *a = llmlat_agg_new(conv, mode);
    assert_non_null(a);
    return a;
}

/* ------------------------------------------------------ 10^9 tokens */

/* One request of 10^9 tokens: 1000 chunks of 10^6 tokens, 1 ms apart.
 * Per-token ITL: 10^6 - 1 zeros (the first chunk), then 999 x 10^6
 * samples of 1 ms / 10^6. */
static llmlat_request *billion_token_request(int64_t start)
{
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(llmlat_request_event(r, start + SEC + i * MS, 1000000), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, start + SEC + 999 * MS), LLMLAT_OK);
    return r;
}

static void billion_tokens(void **state)
{
    (void)state;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        /* ten shards of one request each, merged: 10^10 tokens */
        llmlat_agg *all = new_agg(LLMLAT_CONV_DEFAULT, mode);
        for (int s = 0; s < 10; s++) {
            llmlat_agg *shard = new_agg(LLMLAT_CONV_DEFAULT, mode);
            llmlat_request *r = billion_token_request(s * 10 * SEC);
            assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 1e9, 0);
            assert_rel(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TPOT), 0.999 / (1e9 - 1), 1e-15);
            assert_int_equal(llmlat_agg_add(shard, r), LLMLAT_OK);
            assert_int_equal(llmlat_agg_merge(all, shard), LLMLAT_OK);
            llmlat_request_free(r);
            llmlat_agg_free(shard);
        }
        assert_int_equal(counter_of(all, LLMLAT_COUNT_OUTPUT_TOKENS), UINT64_C(10000000000));
        /* ITL: 10 x (10^9 - 1) samples */
        double n = 10 * (1e9 - 1), gap = 1e-3 / 1e6;
        long double n_gap = 10 * 999e6L, sum = n_gap * gap, sq = n_gap * gap * gap;
        double mean = (double)(sum / (long double)n);
        double std = (double)sqrtl(sq / (long double)n - (sum / (long double)n) *
                                                             (sum / (long double)n));
        assert_close(stat_of(all, LLMLAT_ITL, LLMLAT_STAT_COUNT), n, 0);
        assert_rel(stat_of(all, LLMLAT_ITL, LLMLAT_STAT_MEAN), mean, 1e-13);
        assert_rel(stat_of(all, LLMLAT_ITL, LLMLAT_STAT_STD), std, 1e-9);
        assert_rel(stat_of(all, LLMLAT_TPOT, LLMLAT_STAT_MEAN), 0.999 / (1e9 - 1), 1e-15);
        assert_close(stat_of(all, LLMLAT_TPOT, LLMLAT_STAT_STD), 0, 1e-24);
        /* the zeros are the lowest 0.1 %, then every sample is 1 ns */
        assert_close(quantile_of(all, LLMLAT_ITL, 0.0005), 0.0, 0);
        double tol = mode == LLMLAT_MODE_EXACT ? 1e-15 : 0.0100001;
        assert_rel(quantile_of(all, LLMLAT_ITL, 0.5), gap, tol);
        assert_rel(stat_of(all, LLMLAT_ITL, LLMLAT_STAT_MEDIAN), gap, tol);
        /* 10^10 tokens from the first start (0) to the last event (91.999 s) */
        assert_rel(rate_of(all, LLMLAT_RATE_OUTPUT_TOKENS), 1e10 / 91.999, 1e-15);
        llmlat_agg_free(all);
    }
}

/* 10^9 tokens as a usage count: TPOT stays right, tokens/s too. */
static void billion_token_usage_count(void **state)
{
    (void)state;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = new_agg(LLMLAT_CONV_DEFAULT, mode);
        for (int i = 0; i < 1000; i++) {
            llmlat_request *r = make_request(i * SEC, EVS({ i * SEC + 200 * MS, 1 },
                                                          { i * SEC + 1200 * MS, 1 }),
                                             ENDS_FINISHED, i * SEC + 1200 * MS);
            assert_int_equal(llmlat_request_set_output_tokens(r, 1000000000), LLMLAT_OK);
            assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
            llmlat_request_free(r);
        }
        assert_int_equal(counter_of(a, LLMLAT_COUNT_OUTPUT_TOKENS), UINT64_C(1000000000000));
        assert_rel(stat_of(a, LLMLAT_TPOT, LLMLAT_STAT_MEAN), 1.0 / 999999999, 1e-15);
        assert_rel(stat_of(a, LLMLAT_TPS_USER, LLMLAT_STAT_MEAN), 1e9 / 1.2, 1e-15);
        assert_close(stat_of(a, LLMLAT_TPS_USER, LLMLAT_STAT_STD), 0, 1e-6);
        llmlat_agg_free(a);
    }
}

/* ------------------------------------------------ hours of timestamps */

/* Two hours of one token every 50 ms +- 1 ns (alternating): the gaps'
 * mean is exactly 50 ms and their std exactly 1 ns. A naive running sum
 * of 144000 doubles drifts by ~1e-12 relative; a one-pass variance
 * (E[x^2] - E[x]^2, 2.5e-3 - 2.5e-3) keeps no digit of 1e-18. */
static void hours_of_timestamps(void **state)
{
    (void)state;
    const int n_ev = 144001;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = new_agg(LLMLAT_CONV_VLLM, mode);
        llmlat_request *r = llmlat_request_new();
        assert_int_equal(llmlat_request_start(r, -HOUR), LLMLAT_OK); /* before the epoch */
        int64_t t = -HOUR + 300 * MS;
        for (int i = 0; i < n_ev; i++) {
            assert_int_equal(llmlat_request_event(r, t, 1), LLMLAT_OK);
            t += 50 * MS + (i % 2 ? -1 : 1);
        }
        int64_t last = t - 50 * MS - 1; /* n_ev - 1 is even: the last step was +1 */
        assert_int_equal(llmlat_request_finish(r, last), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        assert_close(stat_of(a, LLMLAT_ICL, LLMLAT_STAT_COUNT), n_ev - 1, 0);
        assert_rel(stat_of(a, LLMLAT_ICL, LLMLAT_STAT_MEAN), 0.05, 2.3e-16);
        assert_rel(stat_of(a, LLMLAT_ICL, LLMLAT_STAT_STD), 1e-9, 1e-6);
        assert_rel(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_MEAN), 0.05, 2.3e-16);
        assert_rel(stat_of(a, LLMLAT_E2E, LLMLAT_STAT_MEAN), 7200.3, 1e-15);
        assert_close(stat_of(a, LLMLAT_ICL, LLMLAT_STAT_MIN), 0.049999999, 1e-18);
        assert_close(stat_of(a, LLMLAT_ICL, LLMLAT_STAT_MAX), 0.050000001, 1e-18);
        llmlat_request_free(r);
        llmlat_agg_free(a);
    }
}

/* ------------------------------------------------- the int64 limits */

static void recorder_at_int64_limits(void **state)
{
    (void)state;
    /* from INT64_MIN, the farthest event is INT64_MIN + INT64_MAX = -1 */
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_request_start(r, INT64_MIN), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, INT64_MIN + 5, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, 0, 1), LLMLAT_EOVERFLOW);
    assert_int_equal(llmlat_request_event(r, INT64_MAX, 1), LLMLAT_EOVERFLOW);
    int64_t ts[] = { -10, 0 };
    uint32_t ks[] = { 1, 1 };
    assert_int_equal(llmlat_request_events(r, ts, ks, 2), LLMLAT_EOVERFLOW); /* all or nothing */
    assert_int_equal(llmlat_request_event(r, -1, 2), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 0), LLMLAT_EOVERFLOW);
    assert_int_equal(llmlat_request_fail(r, 0), LLMLAT_EOVERFLOW);
    assert_int_equal(llmlat_request_finish(r, -1), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT), 5e-9, 0);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_E2E), (double)INT64_MAX / 1e9, 0);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 3, 0);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_ITL_MAX), (double)(INT64_MAX - 5) / 1e9,
                 0);
    /* up to INT64_MAX itself */
    assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, INT64_MAX - 5), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, INT64_MAX, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, INT64_MAX, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, INT64_MAX), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_SGLANG, LLMLAT_E2E), 5e-9, 0);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TPOT), 0, 0);
    llmlat_request_free(r);
}

/* Requests at both ends of the clock: the duration (nearly 2^64 ns) does
 * not fit int64, but is computed exactly; every query works. */
static void aggregator_at_int64_limits(void **state)
{
    (void)state;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
        for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++) {
            llmlat_agg *a = new_agg(conv, mode);
            add_request(a, INT64_MIN, EVS({ INT64_MIN + SEC, 3 }, { INT64_MIN + 2 * SEC, 1 }),
                        ENDS_FINISHED, INT64_MIN + 2 * SEC, 7);
            add_request(a, INT64_MAX - 2 * SEC, EVS({ INT64_MAX - SEC, 1 }, { INT64_MAX, 1 }),
                        ENDS_FINISHED, INT64_MAX, 7);
            /* D = (2^64 - 1) ns */
            double d = 18446744073.709551615;
            assert_rel(rate_of(a, LLMLAT_RATE_REQUESTS), 2 / d, 1e-15);
            /* GuideLLM's token rates span the token points: 1 s less */
            double dt = conv == LLMLAT_CONV_GUIDELLM ? d - 1.0 : d;
            assert_rel(rate_of(a, LLMLAT_RATE_OUTPUT_TOKENS), 6 / dt, 1e-15);
            assert_close(stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_MEAN), 1.0, 1e-15);
            assert_close(stat_of(a, LLMLAT_E2E, LLMLAT_STAT_MAX), 2.0, 0);
            if (mode == LLMLAT_MODE_EXACT) {
                assert_int_equal(counter_of(a, LLMLAT_COUNT_PEAK_CONCURRENCY), 1);
                double peak = rate_of(a, LLMLAT_RATE_PEAK_OUTPUT_TOKENS);
                assert_close(peak, conv == LLMLAT_CONV_VLLM ? 1 : 3, 0);
            }
            size_t len;
            unsigned char *buf = state_of(a, &len);
            int32_t st;
            llmlat_agg *copy = llmlat_agg_deserialize(buf, len, &st);
            assert_int_equal(st, LLMLAT_OK);
            assert_rel(rate_of(copy, LLMLAT_RATE_REQUESTS), 2 / d, 1e-15);
            llmlat_agg_free(copy);
            free(buf);
            llmlat_agg_free(a);
        }
}

/* Everything a query can tell about a (not the serialized bytes, whose
 * spans carry the absolute times). */
typedef struct answers {
    double stats[14][6];
    double quantiles[14][7];
    double rates[5];
    uint64_t counters[7];
} answers;

static void ask(const llmlat_agg *a, answers *x)
{
    memset(x, 0, sizeof *x);
    static const double q[7] = { 0.0, 0.1, 0.25, 0.5, 0.9, 0.99, 1.0 };
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
        for (int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MEDIAN; s++)
            llmlat_agg_stat(a, m, s, &x->stats[m - 1][s - 1]);
        llmlat_agg_quantiles(a, m, q, 7, x->quantiles[m - 1]);
    }
    for (int32_t r = LLMLAT_RATE_REQUESTS; r <= LLMLAT_RATE_PEAK_OUTPUT_TOKENS; r++)
        llmlat_agg_rate(a, r, &x->rates[r - 1]);
    for (int32_t c = LLMLAT_COUNT_COMPLETED; c <= LLMLAT_COUNT_PEAK_CONCURRENCY; c++)
        llmlat_agg_counter(a, c, &x->counters[c - 1]);
}

/* The same traffic at another origin of the clock: after the epoch, long
 * before it, at the very bottom and the very top of int64. Only
 * differences of times count, so every answer is the same double. */
static void negative_epochs_and_shifts(void **state)
{
    (void)state;
    static const int64_t origins[] = {
        0, -INT64_C(1000000000000000000), INT64_MIN, INT64_MAX - 200 * SEC, -1,
    };
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
        for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++) {
            answers first;
            for (size_t o = 0; o < sizeof origins / sizeof origins[0]; o++) {
                llmlat_agg *a = new_agg(conv, mode);
                assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.3), LLMLAT_OK);
                int64_t base = origins[o];
                for (int i = 0; i < 150; i++) {
                    llmlat_request *r = llmlat_request_new();
                    int64_t start = base + i * 613 * MS;
                    assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
                    int64_t t = start + (100 + i % 7 * 60) * MS;
                    for (int e = 0; e < 2 + i % 9; e++) {
                        uint32_t k = (uint32_t)((i + e) % 4);
                        assert_int_equal(llmlat_request_event(r, t, k), LLMLAT_OK);
                        t += (11 + (i * e) % 23) * MS + i % 3;
                    }
                    assert_int_equal(llmlat_request_set_input_tokens(r, (uint64_t)i), LLMLAT_OK);
                    if (i % 17 == 3)
                        assert_int_equal(llmlat_request_fail(r, t), LLMLAT_OK);
                    else
                        assert_int_equal(llmlat_request_finish(r, t + 2 * MS), LLMLAT_OK);
                    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
                    llmlat_request_free(r);
                }
                answers x;
                ask(a, &x);
                if (o == 0)
                    first = x;
                else
                    assert_memory_equal(&first, &x, sizeof x);
                llmlat_agg_free(a);
            }
        }
}

/* ------------------------------------------------ counters and sums */

/* Token counts: a chunk of UINT32_MAX tokens, many of them, and usage
 * counts at UINT64_MAX. Sums that would wrap are refused. */
static void token_sums(void **state)
{
    (void)state;
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(llmlat_request_event(r, i * MS, UINT32_MAX), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, SEC), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 1000.0 * UINT32_MAX, 0);
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = new_agg(LLMLAT_CONV_DEFAULT, mode);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        assert_int_equal(counter_of(a, LLMLAT_COUNT_OUTPUT_TOKENS), UINT64_C(1000) * UINT32_MAX);
        assert_close(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_COUNT), 1000.0 * UINT32_MAX - 1, 0);
        llmlat_agg_free(a);
    }
    llmlat_request_free(r);

    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        /* input tokens */
        llmlat_agg *a = new_agg(LLMLAT_CONV_DEFAULT, mode);
        r = make_request(0, EVS({ 10 * MS, 1 }, { 20 * MS, 1 }), ENDS_FINISHED, 30 * MS);
        assert_int_equal(llmlat_request_set_input_tokens(r, UINT64_MAX - 1), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        assert_int_equal(llmlat_request_set_input_tokens(r, 1), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK); /* exactly UINT64_MAX */
        assert_int_equal(counter_of(a, LLMLAT_COUNT_INPUT_TOKENS), UINT64_MAX);
        ASSERT_REFUSED(a, llmlat_agg_add(a, r), LLMLAT_EOVERFLOW);
        /* a failure carries no tokens: still counted */
        llmlat_request *f = make_request(0, EVS({ 10 * MS, 1 }), ENDS_FAILED, 30 * MS);
        assert_int_equal(llmlat_request_set_input_tokens(f, 5), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(a, f), LLMLAT_OK);
        assert_int_equal(counter_of(a, LLMLAT_COUNT_FAILED), 1);
        llmlat_request_free(f);
        /* a merge that would wrap is refused both ways */
        llmlat_agg *b = new_agg(LLMLAT_CONV_DEFAULT, mode);
        assert_int_equal(llmlat_agg_add(b, r), LLMLAT_OK);
        ASSERT_REFUSED(a, llmlat_agg_merge(a, b), LLMLAT_EOVERFLOW);
        ASSERT_REFUSED(b, llmlat_agg_merge(b, a), LLMLAT_EOVERFLOW);
        llmlat_agg_free(b);
        llmlat_agg_free(a);
        llmlat_request_free(r);

        /* output tokens: a usage count of UINT64_MAX */
        a = new_agg(LLMLAT_CONV_VLLM, mode);
        r = make_request(0, EVS({ 10 * MS, 1 }, { 20 * MS, 1 }), ENDS_FINISHED, 30 * MS);
        assert_int_equal(llmlat_request_set_output_tokens(r, UINT64_MAX), LLMLAT_OK);
        assert_close(value_of(r, LLMLAT_CONV_VLLM, LLMLAT_TPOT), 0.01 / 18446744073709551614.0,
                     1e-30);
        /* N / E2E = 9.2e20 tokens/s: beyond 2^64, refused in both modes */
        ASSERT_REFUSED(a, llmlat_agg_add(a, r), LLMLAT_EOVERFLOW);
        assert_int_equal(counter_of(a, LLMLAT_COUNT_COMPLETED), 0);
        llmlat_request_free(r);
        /* over 2 s it is 9.2e18 tokens/s: taken, and the counter is full */
        r = make_request(0, EVS({ 10 * MS, 1 }, { 2 * SEC, 1 }), ENDS_FINISHED, 2 * SEC);
        assert_int_equal(llmlat_request_set_output_tokens(r, UINT64_MAX), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        assert_int_equal(counter_of(a, LLMLAT_COUNT_OUTPUT_TOKENS), UINT64_MAX);
        assert_close(stat_of(a, LLMLAT_TPS_USER, LLMLAT_STAT_MAX), 18446744073709551615.0 / 2,
                     0);
        ASSERT_REFUSED(a, llmlat_agg_add(a, r), LLMLAT_EOVERFLOW);
        llmlat_request_free(r);
        llmlat_agg_free(a);
    }
}

/* A bounded aggregator whose counters sit at the top of uint64 can only
 * come from bytes (nobody adds 2^64 requests): they are written here from
 * docs/format.md, so this also checks the document. */

static uint32_t crc32_zlib(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++)
            c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return c ^ 0xFFFFFFFFu;
}

typedef struct writer {
    unsigned char buf[4096];
    size_t n;
} writer;

static void w_u64(writer *w, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        w->buf[w->n++] = (unsigned char)(v >> (8 * i));
}

static void w_u32(writer *w, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        w->buf[w->n++] = (unsigned char)(v >> (8 * i));
}

static void w_f64(writer *w, double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    w_u64(w, b);
}

/* A sketch of `count` samples, all 0 (count 0: empty). */
static void w_zero_sketch(writer *w, uint64_t count)
{
    w_u64(w, count);
    w_u64(w, count);
    w_f64(w, count ? 0.0 : INFINITY);
    w_f64(w, count ? 0.0 : -INFINITY);
    for (int i = 0; i < 7; i++)
        w_u64(w, 0);
    w_u64(w, (uint64_t)-1); /* top: no sample above 0 */
}

/* Bounded, default convention, α 1 %, no SLO: `completed` successes and
 * `failed` failures, all with zero-valued samples; `itl` ITL samples. */
static llmlat_agg *crafted(uint64_t completed, uint64_t failed, uint64_t itl)
{
    writer w = { .n = 0 };
    memcpy(w.buf, "LLMLATAG", 8);
    w.n = 8;
    w_u32(&w, 1);
    w_u32(&w, 0);
    w_u64(&w, 0); /* total size, patched below */
    w_u32(&w, LLMLAT_CONV_DEFAULT);
    w_u32(&w, LLMLAT_MODE_BOUNDED);
    w_f64(&w, 0.01);
    for (int i = 0; i < 4; i++)
        w_f64(&w, 0.0);
    w_u32(&w, 1);
    w_f64(&w, 0.5);
    for (int m = 0; m < 10; m++)
        w_u32(&w, 0);
    w_u64(&w, completed);
    w_u64(&w, failed);
    w_u64(&w, completed); /* tpot_undefined: every success */
    w_u64(&w, 0);         /* input tokens */
    w_u64(&w, 0);         /* output tokens */
    w_u64(&w, 0);         /* good */
    bool any = completed || failed;
    w_u64(&w, any ? 0 : (uint64_t)INT64_MAX);        /* all: [0, 0] */
    w_u64(&w, any ? 0 : (uint64_t)INT64_MIN);
    w_u64(&w, completed ? 0 : (uint64_t)INT64_MAX);  /* valid */
    w_u64(&w, completed ? 0 : (uint64_t)INT64_MIN);
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_TOOL_ITL; m++) {
        uint64_t n = m == LLMLAT_OUTPUT_TOKENS || m == LLMLAT_INPUT_TOKENS ? completed
                     : m == LLMLAT_ITL                                      ? itl
                                                                            : 0;
        w_zero_sketch(&w, n);
    }
    size_t size = w.n + 4;
    for (int i = 0; i < 8; i++)
        w.buf[16 + i] = (unsigned char)((uint64_t)size >> (8 * i));
    w_u32(&w, crc32_zlib(w.buf, w.n));
    int32_t st = 12345;
    llmlat_agg *a = llmlat_agg_deserialize(w.buf, w.n, &st);
    assert_int_equal(st, LLMLAT_OK);
    assert_non_null(a);
    return a;
}

static void request_counters_at_the_top(void **state)
{
    (void)state;
    llmlat_request *ok =
        make_request(0, EVS({ 10 * MS, 1 }, { 20 * MS, 1 }), ENDS_FINISHED, 20 * MS);
    llmlat_request *bad = make_request(0, EVS({ 10 * MS, 1 }), ENDS_FAILED, 20 * MS);

    llmlat_agg *a = crafted(UINT64_MAX - 1, 0, 0);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_COMPLETED), UINT64_MAX - 1);
    assert_int_equal(llmlat_agg_add(a, ok), LLMLAT_OK);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_COMPLETED), UINT64_MAX);
    ASSERT_REFUSED(a, llmlat_agg_add(a, ok), LLMLAT_EOVERFLOW);
    /* requests in all (successes + failures) are a uint64 too: the
     * serialized form requires it */
    ASSERT_REFUSED(a, llmlat_agg_add(a, bad), LLMLAT_EOVERFLOW);
    llmlat_agg_free(a);

    a = crafted(0, UINT64_MAX - 1, 0);
    assert_int_equal(llmlat_agg_add(a, bad), LLMLAT_OK);
    ASSERT_REFUSED(a, llmlat_agg_add(a, bad), LLMLAT_EOVERFLOW);
    ASSERT_REFUSED(a, llmlat_agg_add(a, ok), LLMLAT_EOVERFLOW);
    llmlat_agg_free(a);

    /* merges: each counter, and their sum */
    llmlat_agg *x = crafted(UINT64_C(1) << 63, 0, 0), *y = crafted(UINT64_C(1) << 63, 0, 0);
    ASSERT_REFUSED(x, llmlat_agg_merge(x, y), LLMLAT_EOVERFLOW);
    llmlat_agg_free(y);
    y = crafted(0, UINT64_C(1) << 63, 0);
    ASSERT_REFUSED(x, llmlat_agg_merge(x, y), LLMLAT_EOVERFLOW);
    llmlat_agg_free(y);
    y = crafted(0, (UINT64_C(1) << 63) - 1, 0);
    assert_int_equal(llmlat_agg_merge(x, y), LLMLAT_OK);
    assert_int_equal(counter_of(x, LLMLAT_COUNT_FAILED), (UINT64_C(1) << 63) - 1);
    /* what was merged still round-trips */
    size_t len;
    unsigned char *buf = state_of(x, &len);
    int32_t st;
    llmlat_agg *copy = llmlat_agg_deserialize(buf, len, &st);
    assert_int_equal(st, LLMLAT_OK);
    llmlat_agg_free(copy);
    free(buf);
    llmlat_agg_free(x);
    llmlat_agg_free(y);
    llmlat_request_free(ok);
    llmlat_request_free(bad);
}

/* ITL and ICL counts are sums of tokens and chunks: at the top of uint64,
 * one more request is refused, in add and in merge (one rule for both
 * modes, agg.c; only a bounded aggregator can be crafted that full). */
static void sample_counts_at_the_top(void **state)
{
    (void)state;
    llmlat_request *r =
        make_request(0, EVS({ 10 * MS, 1 }, { 20 * MS, 4 }), ENDS_FINISHED, 20 * MS);
    /* add bounds a request's ITL samples by its tokens (5 here, for 4
     * samples): it refuses what could pass the top, one early at worst */
    llmlat_agg *a = crafted(0, 0, UINT64_MAX - 5);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    assert_close(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_COUNT), 18446744073709551614.0, 0);
    ASSERT_REFUSED(a, llmlat_agg_add(a, r), LLMLAT_EOVERFLOW);
    llmlat_agg *b = crafted(0, 0, 1);
    assert_int_equal(llmlat_agg_merge(a, b), LLMLAT_OK); /* exactly the top */
    llmlat_agg_free(b);
    b = crafted(0, 0, 1);
    ASSERT_REFUSED(a, llmlat_agg_merge(a, b), LLMLAT_EOVERFLOW);
    llmlat_agg_free(b);
    llmlat_agg_free(a);
    llmlat_request_free(r);
}

/* Gaps of centuries split among k > 1 tokens: the bounded sums' square
 * terms reach 2^187 (a stack overflow in fixsum.c once, found by
 * fuzz_ops). Means and stds agree with exact mode. */
static void huge_gaps_split_among_tokens(void **state)
{
    (void)state;
    llmlat_agg *x = new_agg(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *b = new_agg(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    for (int i = 0; i < 3; i++) {
        int64_t start = INT64_MIN + i;
        llmlat_request *r = make_request(
            start, EVS({ start + 1, 1 }, { start + (INT64_C(1) << 62), 2 + (uint32_t)i },
                       { INT64_MIN + INT64_MAX, 3 }),
            ENDS_FINISHED, -1);
        assert_int_equal(llmlat_agg_add(x, r), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(b, r), LLMLAT_OK);
        llmlat_request_free(r);
    }
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_ITL_MAX; m++) {
        double want = stat_of(x, m, LLMLAT_STAT_MEAN);
        /* bounded sums cut a fraction at 2^-64 of the internal unit (ns,
         * or tokens/s: a TPS_USER of 7.6e-10 here) */
        assert_close(stat_of(b, m, LLMLAT_STAT_MEAN), want, 1e-14 * want + 0x1p-64);
        /* The squares are cut at 2^-64 too (tokens/s^2 of 5.8e-19 here).
         * And exact mode keeps seconds as doubles: at 4.6e9 s a value is
         * rounded to 1e-6 s, where bounded mode's ns are exact (ICL
         * gaps 1 and 2 ns apart have a std exact mode cannot see). */
        want = stat_of(x, m, LLMLAT_STAT_STD);
        double slack = m == LLMLAT_TPS_USER ? 0x1p-30 : 1e-15 * stat_of(x, m, LLMLAT_STAT_MAX);
        assert_close(stat_of(b, m, LLMLAT_STAT_STD), want, 1e-9 * want + slack);
        assert_close(stat_of(b, m, LLMLAT_STAT_MAX), stat_of(x, m, LLMLAT_STAT_MAX), 0);
    }
    llmlat_agg_free(x);
    llmlat_agg_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(billion_tokens),
        cmocka_unit_test(billion_token_usage_count),
        cmocka_unit_test(hours_of_timestamps),
        cmocka_unit_test(recorder_at_int64_limits),
        cmocka_unit_test(aggregator_at_int64_limits),
        cmocka_unit_test(negative_epochs_and_shifts),
        cmocka_unit_test(token_sums),
        cmocka_unit_test(request_counters_at_the_top),
        cmocka_unit_test(sample_counts_at_the_top),
        cmocka_unit_test(huge_gaps_split_among_tokens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
