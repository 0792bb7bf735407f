/* Sliding windows (llmlat_window): which requests a window holds, by their
 * end time, across rotations, late arrivals, gaps longer than the window
 * and time going backwards; rates over the span it covers; fixed memory.
 * The hand-computed cases use a 60 s window in 5 s steps (12 steps). */
#include "helpers.h"

#define W60 (60 * SEC)
#define S5 (5 * SEC)

static llmlat_agg *bounded_like(void)
{
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_non_null(a);
    return a;
}

static llmlat_window *window(const llmlat_agg *like, int64_t width, int64_t step)
{
    int32_t st = -100;
    llmlat_window *w = llmlat_window_new(like, width, step, &st);
    assert_non_null(w);
    assert_int_equal(st, LLMLAT_OK);
    return w;
}

/* A one-token request with TTFT ttft, finished (or failed) at end. */
static llmlat_request *one(int64_t ttft, int64_t end, int how)
{
    return make_request(end - ttft - MS, EVS({ end - MS, 1 }), how, end);
}

static void add_one(llmlat_window *w, int64_t ttft, int64_t end, int how)
{
    llmlat_request *r = one(ttft, end, how);
    assert_int_equal(llmlat_window_add(w, r), LLMLAT_OK);
    llmlat_request_free(r);
}

static const llmlat_agg *view(const llmlat_window *w)
{
    const llmlat_agg *v = NULL;
    assert_int_equal(llmlat_window_view(w, &v), LLMLAT_OK);
    assert_non_null(v);
    return v;
}

static double duration_of(const llmlat_agg *a)
{
    double d;
    assert_int_equal(llmlat_agg_get_param(a, LLMLAT_PARAM_DURATION, &d), LLMLAT_OK);
    return d;
}

/* The view's bytes, malloc'ed (*len set). */
static uint8_t *bytes_of(const llmlat_agg *a, size_t *len)
{
    assert_int_equal(llmlat_agg_serialize(a, NULL, 0, len), LLMLAT_ENOSPC);
    uint8_t *b = malloc(*len);
    assert_non_null(b);
    assert_int_equal(llmlat_agg_serialize(a, b, *len, len), LLMLAT_OK);
    return b;
}

static void assert_unchanged(const llmlat_window *w, const uint8_t *before, size_t len)
{
    size_t n;
    uint8_t *now = bytes_of(view(w), &n);
    assert_int_equal(n, len);
    assert_memory_equal(now, before, len);
    free(now);
}

static void assert_ttfts(const llmlat_window *w, uint64_t count, double min_ms, double max_ms,
                         double mean_ms)
{
    const llmlat_agg *v = view(w);
    assert_int_equal(counter_of(v, LLMLAT_COUNT_COMPLETED), count);
    assert_close(stat_of(v, LLMLAT_TTFT, LLMLAT_STAT_COUNT), (double)count, 0);
    if (count == 0)
        return;
    assert_close(stat_of(v, LLMLAT_TTFT, LLMLAT_STAT_MIN), min_ms / 1e3, TOL_S);
    assert_close(stat_of(v, LLMLAT_TTFT, LLMLAT_STAT_MAX), max_ms / 1e3, TOL_S);
    assert_close(stat_of(v, LLMLAT_TTFT, LLMLAT_STAT_MEAN), mean_ms / 1e3, TOL_S);
}

static void bad_arguments_are_einval(void **state)
{
    (void)state;
    llmlat_agg *b = bounded_like();
    llmlat_agg *e = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    int32_t st = 0;
    assert_null(llmlat_window_new(NULL, W60, S5, &st));
    assert_int_equal(st, LLMLAT_EINVAL);
    assert_null(llmlat_window_new(e, W60, S5, &st)); /* exact mode: not fixed memory */
    assert_int_equal(st, LLMLAT_EINVAL);
    assert_null(llmlat_window_new(b, W60, 0, &st));
    assert_int_equal(st, LLMLAT_EINVAL);
    assert_null(llmlat_window_new(b, -W60, S5, &st));
    assert_int_equal(st, LLMLAT_EINVAL);
    assert_null(llmlat_window_new(b, W60, 7 * SEC, &st)); /* not a multiple */
    assert_int_equal(st, LLMLAT_EINVAL);
    assert_null(llmlat_window_new(b, (LLMLAT_WINDOW_MAX_SLOTS + 1) * SEC, SEC, NULL));
    llmlat_window *w = llmlat_window_new(b, LLMLAT_WINDOW_MAX_SLOTS * MS, MS, NULL);
    assert_non_null(w);
    llmlat_request *r = one(MS, SEC, ENDS_FINISHED);
    const llmlat_agg *v;
    assert_int_equal(llmlat_window_add(NULL, r), LLMLAT_EINVAL);
    assert_int_equal(llmlat_window_add(w, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_window_merge(w, NULL, 0), LLMLAT_EINVAL);
    assert_int_equal(llmlat_window_merge(w, view(w), 0), LLMLAT_EINVAL); /* itself */
    assert_int_equal(llmlat_window_merge(w, e, 0), LLMLAT_EMISMATCH);
    assert_int_equal(llmlat_window_advance(NULL, 0), LLMLAT_EINVAL);
    assert_int_equal(llmlat_window_view(NULL, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_window_view(w, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_window_reset(NULL), LLMLAT_EINVAL);
    /* a request still in flight */
    llmlat_request *open = make_request(0, EVS({ MS, 1 }), ENDS_NOT, 0);
    assert_int_equal(llmlat_window_add(w, open), LLMLAT_ESTATE);
    assert_int_equal(counter_of(view(w), LLMLAT_COUNT_FAILED), 0);
    llmlat_request_free(open);
    llmlat_request_free(r);
    llmlat_window_free(w);
    llmlat_window_free(NULL);
    llmlat_agg_free(b);
    llmlat_agg_free(e);
}

/* Steps are [5k, 5k + 5) s; at a clock in step e the window holds steps
 * e - 11 .. e. */
static void requests_across_rotations(void **state)
{
    (void)state;
    llmlat_agg *like = bounded_like();
    llmlat_window *w = window(like, W60, S5);
    add_one(w, 10 * MS, 2 * SEC, ENDS_FINISHED);  /* step 0 */
    add_one(w, 20 * MS, 7 * SEC, ENDS_FINISHED);  /* step 1 */
    add_one(w, 30 * MS, 58 * SEC, ENDS_FINISHED); /* step 11 */
    /* clock 58 s, step 11: steps 0..11, all three */
    assert_ttfts(w, 3, 10, 30, 20);
    add_one(w, 40 * MS, 61 * SEC, ENDS_FINISHED); /* step 12: step 0 leaves */
    assert_ttfts(w, 3, 20, 40, 30);
    /* still step 12 at 64.999999999 s */
    assert_int_equal(llmlat_window_advance(w, 65 * SEC - 1), LLMLAT_OK);
    assert_ttfts(w, 3, 20, 40, 30);
    /* step 13 at 65 s: step 1 (the 7 s request) leaves */
    assert_int_equal(llmlat_window_advance(w, 65 * SEC), LLMLAT_OK);
    assert_ttfts(w, 2, 30, 40, 35);
    /* step 22 at 110 s: steps 11..22 hold 58 s and 61 s */
    assert_int_equal(llmlat_window_advance(w, 110 * SEC), LLMLAT_OK);
    assert_ttfts(w, 2, 30, 40, 35);
    /* step 23 at 115 s: step 11 leaves, 61 s (step 12) stays */
    assert_int_equal(llmlat_window_advance(w, 115 * SEC), LLMLAT_OK);
    assert_ttfts(w, 1, 40, 40, 40);
    assert_int_equal(llmlat_window_advance(w, 120 * SEC), LLMLAT_OK);
    assert_ttfts(w, 0, 0, 0, 0);
    double v;
    assert_int_equal(llmlat_agg_stat(view(w), LLMLAT_TTFT, LLMLAT_STAT_MEAN, &v),
                     LLMLAT_EUNDEFINED);
    llmlat_window_free(w);
    llmlat_agg_free(like);
}

static void late_requests_join_their_step(void **state)
{
    (void)state;
    llmlat_agg *like = bounded_like();
    llmlat_window *w = window(like, W60, S5);
    add_one(w, 40 * MS, 61 * SEC, ENDS_FINISHED); /* clock 61 s: steps 1..12, from 5 s */
    add_one(w, 20 * MS, 6 * SEC, ENDS_FINISHED);  /* late, step 1: counted */
    add_one(w, 30 * MS, 5 * SEC, ENDS_FAILED);    /* the oldest step's first instant */
    assert_ttfts(w, 2, 20, 40, 30);
    assert_int_equal(counter_of(view(w), LLMLAT_COUNT_FAILED), 1);
    /* ended at 4.999999999 s, step 0: already dropped */
    size_t len;
    uint8_t *before = bytes_of(view(w), &len);
    llmlat_request *old = one(10 * MS, 5 * SEC - 1, ENDS_FINISHED);
    assert_int_equal(llmlat_window_add(w, old), LLMLAT_EORDER);
    assert_int_equal(llmlat_window_merge(w, like, 5 * SEC - 1), LLMLAT_EORDER);
    assert_unchanged(w, before, len);
    /* the late ones leave with their step: at 65 s step 1 goes */
    assert_int_equal(llmlat_window_advance(w, 65 * SEC), LLMLAT_OK);
    assert_ttfts(w, 1, 40, 40, 40);
    assert_int_equal(counter_of(view(w), LLMLAT_COUNT_FAILED), 0);
    free(before);
    llmlat_request_free(old);
    llmlat_window_free(w);
    llmlat_agg_free(like);
}

static void a_gap_longer_than_the_window_empties_it(void **state)
{
    (void)state;
    llmlat_agg *like = bounded_like();
    llmlat_window *w = window(like, W60, S5);
    for (int i = 0; i < 12; i++) /* one request in every step 0..11 */
        add_one(w, (i + 1) * MS, i * S5 + SEC, ENDS_FINISHED);
    assert_ttfts(w, 12, 1, 12, 6.5);
    /* an add 500 s later: every step left; only the new request is held */
    add_one(w, 99 * MS, 556 * SEC, ENDS_FINISHED);
    assert_ttfts(w, 1, 99, 99, 99);
    /* and an advance alone, 1000 s later: nothing */
    assert_int_equal(llmlat_window_advance(w, 1556 * SEC), LLMLAT_OK);
    assert_ttfts(w, 0, 0, 0, 0);
    assert_int_equal(counter_of(view(w), LLMLAT_COUNT_FAILED), 0);
    /* the window watched all along: 0 requests/s over 55 s + 1 s */
    assert_close(duration_of(view(w)), 56.0, 1e-9);
    assert_close(rate_of(view(w), LLMLAT_RATE_REQUESTS), 0.0, 0);
    llmlat_window_free(w);
    llmlat_agg_free(like);
}

static void time_going_backwards_is_eorder(void **state)
{
    (void)state;
    llmlat_agg *like = bounded_like();
    llmlat_window *w = window(like, W60, S5);
    add_one(w, 10 * MS, 100 * SEC, ENDS_FINISHED);
    assert_int_equal(llmlat_window_advance(w, 130 * SEC), LLMLAT_OK);
    size_t len;
    uint8_t *before = bytes_of(view(w), &len);
    /* a query time before the clock: the past is not kept */
    assert_int_equal(llmlat_window_advance(w, 130 * SEC - 1), LLMLAT_EORDER);
    assert_int_equal(llmlat_window_advance(w, 99 * SEC), LLMLAT_EORDER);
    assert_unchanged(w, before, len);
    /* the clock did not move back: 130 s is still in step 26 */
    assert_int_equal(llmlat_window_advance(w, 130 * SEC), LLMLAT_OK);
    assert_unchanged(w, before, len);
    /* a request that ended before the oldest step (75 s) */
    llmlat_request *r = one(MS, 74 * SEC, ENDS_FINISHED);
    assert_int_equal(llmlat_window_add(w, r), LLMLAT_EORDER);
    assert_unchanged(w, before, len);
    /* a request that would overflow a sum is checked against the window
     * as it is, before any rotation: rejected, nothing changed */
    llmlat_request *huge = one(MS, 200 * SEC, ENDS_FINISHED);
    assert_int_equal(llmlat_request_set_input_tokens(huge, UINT64_MAX), LLMLAT_OK);
    assert_int_equal(llmlat_window_add(w, huge), LLMLAT_OK);
    assert_int_equal(llmlat_window_advance(w, 200 * SEC), LLMLAT_OK);
    free(before);
    before = bytes_of(view(w), &len);
    llmlat_request *more = one(MS, 500 * SEC, ENDS_FINISHED);
    assert_int_equal(llmlat_request_set_input_tokens(more, 1), LLMLAT_OK);
    assert_int_equal(llmlat_window_add(w, more), LLMLAT_EOVERFLOW);
    assert_unchanged(w, before, len);
    free(before);
    llmlat_request_free(r);
    llmlat_request_free(huge);
    llmlat_request_free(more);
    llmlat_window_free(w);
    llmlat_agg_free(like);
}

/* D = clock - max(oldest step's start, earliest time given). */
static void rates_and_goodput_over_the_span_covered(void **state)
{
    (void)state;
    llmlat_agg *like = bounded_like();
    assert_int_equal(llmlat_agg_set_param(like, LLMLAT_PARAM_SLO_TTFT, 0.025), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(like, "route", "/v1/chat"), LLMLAT_OK);
    llmlat_window *w = window(like, W60, S5);
    assert_int_equal(llmlat_window_advance(w, 10 * SEC), LLMLAT_OK); /* watching from 10 s */
    add_one(w, 10 * MS, 12 * SEC, ENDS_FINISHED);
    add_one(w, 20 * MS, 20 * SEC, ENDS_FINISHED);
    add_one(w, 30 * MS, 30 * SEC, ENDS_FINISHED);
    add_one(w, 30 * MS, 30 * SEC, ENDS_FAILED);
    /* clock 30 s: 10 s to 30 s */
    const llmlat_agg *v = view(w);
    assert_close(duration_of(v), 20.0, 1e-12);
    assert_close(rate_of(v, LLMLAT_RATE_REQUESTS), 3.0 / 20.0, 1e-15);
    assert_close(rate_of(v, LLMLAT_RATE_GOODPUT), 2.0 / 20.0, 1e-15);
    assert_close(rate_of(v, LLMLAT_RATE_OUTPUT_TOKENS), 3.0 / 20.0, 1e-15);
    assert_int_equal(counter_of(v, LLMLAT_COUNT_GOOD), 2);
    const char *name, *value;
    assert_int_equal(llmlat_agg_get_label(v, 0, &name, &value), LLMLAT_OK);
    assert_string_equal(value, "/v1/chat");
    /* clock 72 s, step 14: steps 3..14, from 15 s: the 12 s request left */
    assert_int_equal(llmlat_window_advance(w, 72 * SEC), LLMLAT_OK);
    assert_close(duration_of(v), 57.0, 1e-12);
    assert_close(rate_of(v, LLMLAT_RATE_REQUESTS), 2.0 / 57.0, 1e-15);
    assert_close(rate_of(v, LLMLAT_RATE_GOODPUT), 1.0 / 57.0, 1e-15);
    /* P50 of the two TTFTs left, within the relative error */
    assert_close(quantile_of(v, LLMLAT_TTFT, 0.5), 0.025, 0.025 * 0.01);
    llmlat_window_free(w);
    llmlat_agg_free(like);
}

/* An interval snapshot merged at its time; negative times (steps are
 * aligned on multiples of the step, floor division). */
static void merges_count_at_their_time(void **state)
{
    (void)state;
    llmlat_agg *like = bounded_like();
    llmlat_agg *part = llmlat_agg_new_like(like);
    llmlat_window *w = window(like, 10 * SEC, 5 * SEC);
    llmlat_request *r = one(7 * MS, -6 * SEC, ENDS_FINISHED);
    assert_int_equal(llmlat_agg_add(part, r), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(part, r), LLMLAT_OK);
    /* merged at -6 s: step -2 = [-10, -5) */
    assert_int_equal(llmlat_window_merge(w, part, -6 * SEC), LLMLAT_OK);
    assert_ttfts(w, 2, 7, 7, 7);
    assert_int_equal(llmlat_window_advance(w, -SEC), LLMLAT_OK); /* step -1: -10 s .. */
    assert_ttfts(w, 2, 7, 7, 7);
    assert_int_equal(llmlat_window_advance(w, 0), LLMLAT_OK); /* step 0: -5 s .. */
    assert_ttfts(w, 0, 0, 0, 0);
    llmlat_request_free(r);
    llmlat_window_free(w);
    llmlat_agg_free(part);
    llmlat_agg_free(like);
}

/* The definition, checked against a brute force: after every call the
 * view is, bit for bit, an aggregator given exactly the requests that
 * ended in [oldest step's start, clock] (with the view's duration). */
typedef struct ended {
    llmlat_request *r;
    int64_t end;
} ended;

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static int64_t floor_div(int64_t t, int64_t s)
{
    return t / s - (t % s < 0);
}

static void assert_view_is(const llmlat_window *w, const llmlat_agg *like, const ended *all,
                           size_t n, int64_t clock, int64_t step, int64_t steps)
{
    llmlat_agg *want = llmlat_agg_new_like(like);
    assert_non_null(want);
    int64_t lo = (floor_div(clock, step) - steps + 1) * step;
    for (size_t i = 0; i < n; i++)
        if (all[i].end >= lo && all[i].end <= clock)
            assert_int_equal(llmlat_agg_add(want, all[i].r), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(want, LLMLAT_PARAM_DURATION, duration_of(view(w))),
                     LLMLAT_OK);
    size_t a, b;
    uint8_t *x = bytes_of(view(w), &a), *y = bytes_of(want, &b);
    assert_int_equal(a, b);
    assert_memory_equal(x, y, a);
    free(x);
    free(y);
    llmlat_agg_free(want);
}

static void the_view_holds_what_the_definition_says(void **state)
{
    (void)state;
    const int64_t step = 2 * SEC, steps = 5;
    llmlat_agg *like = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_param(like, LLMLAT_PARAM_SLO_E2E, 0.5), LLMLAT_OK);
    llmlat_window *w = window(like, steps * step, step);
    enum { N = 600 };
    ended *all = calloc(N, sizeof *all);
    size_t n = 0, late = 0, dropped = 0;
    int64_t clock = -7 * SEC;
    for (int i = 0; i < N; i++) {
        /* mostly forward by up to 1.5 s, now and then late by up to 12 s,
         * or a jump of up to 30 s */
        uint64_t roll = rng() % 16;
        int64_t end = roll < 11   ? clock + (int64_t)(rng() % (1500 * MS))
                      : roll < 15 ? clock - (int64_t)(rng() % (12 * SEC))
                                  : clock + (int64_t)(rng() % (30 * SEC));
        if (i == 0)
            end = clock;
        int64_t start = end - 1 - (int64_t)(rng() % SEC);
        llmlat_request *r = llmlat_request_new();
        assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
        int events = (int)(rng() % 6);
        for (int j = 0; j < events; j++)
            assert_int_equal(llmlat_request_event(r, start + (end - start) * (j + 1) / (events + 1),
                                                  (uint32_t)(rng() % 3)),
                             LLMLAT_OK);
        assert_int_equal(rng() % 7 ? llmlat_request_finish(r, end) : llmlat_request_fail(r, end),
                         LLMLAT_OK);
        int64_t lo = (floor_div(clock, step) - steps + 1) * step;
        int32_t st = llmlat_window_add(w, r);
        if (i > 0 && end < lo) {
            assert_int_equal(st, LLMLAT_EORDER);
            llmlat_request_free(r);
            dropped++;
        } else {
            assert_int_equal(st, LLMLAT_OK);
            late += end < clock;
            all[n++] = (ended){ r, end };
            if (end > clock)
                clock = end;
        }
        if (rng() % 5 == 0) { /* a query at a later time */
            clock += (int64_t)(rng() % (3 * SEC));
            assert_int_equal(llmlat_window_advance(w, clock), LLMLAT_OK);
        }
        assert_view_is(w, like, all, n, clock, step, steps);
    }
    /* every case was seen */
    assert_true(late > 20 && dropped > 20);
    for (size_t i = 0; i < n; i++)
        llmlat_request_free(all[i].r);
    free(all);
    llmlat_window_free(w);
    llmlat_agg_free(like);
}

/* Everything is allocated by llmlat_window_new: adds, merges, rotations
 * and queries allocate nothing, and the memory held does not change. */
static void fixed_memory(void **state)
{
    (void)state;
    llmlat_agg *like = bounded_like();
    llmlat_agg *part = llmlat_agg_new_like(like);
    llmlat_window *w = window(like, W60, S5);
    uint64_t bytes = counter_of(view(w), LLMLAT_COUNT_MEMORY_BYTES);
    llmlat_request *r = one(10 * MS, 0, ENDS_FINISHED);
    assert_int_equal(llmlat_agg_add(part, r), LLMLAT_OK);
    llmlat_request_free(r);
    counting_alloc c;
    use_counting_alloc(&c, -1);
    llmlat_request *rs[64];
    for (int i = 0; i < 64; i++)
        rs[i] = one((i + 1) * MS, i * 3 * SEC, i % 9 ? ENDS_FINISHED : ENDS_FAILED);
    long before = c.calls;
    for (int i = 0; i < 64; i++) {
        assert_int_equal(llmlat_window_add(w, rs[i]), LLMLAT_OK);
        assert_int_equal(llmlat_window_merge(w, part, i * 3 * SEC), LLMLAT_OK);
        assert_int_equal(llmlat_window_advance(w, i * 3 * SEC + SEC), LLMLAT_OK);
        double q[3];
        static const double ps[3] = { 0.5, 0.9, 0.99 };
        assert_int_equal(llmlat_agg_quantiles(view(w), LLMLAT_TTFT, ps, 3, q), LLMLAT_OK);
    }
    assert_int_equal(c.calls, before);
    use_default_alloc();
    assert_int_equal(counter_of(view(w), LLMLAT_COUNT_MEMORY_BYTES), bytes);
    /* 60 s at 3 s per request: the last 20 steps' worth, as merged too */
    assert_int_equal(counter_of(view(w), LLMLAT_COUNT_COMPLETED) +
                         counter_of(view(w), LLMLAT_COUNT_FAILED),
                     2 * 19);
    assert_int_equal(llmlat_window_reset(w), LLMLAT_OK);
    assert_ttfts(w, 0, 0, 0, 0);
    assert_close(duration_of(view(w)), 0.0, 0);
    /* a new clock after reset: any time goes */
    add_one(w, 5 * MS, -1000 * SEC, ENDS_FINISHED);
    assert_ttfts(w, 1, 5, 5, 5);
    for (int i = 0; i < 64; i++)
        llmlat_request_free(rs[i]);
    llmlat_window_free(w);
    llmlat_agg_free(part);
    llmlat_agg_free(like);
}

/* ENOMEM at every allocation of llmlat_window_new: NULL, nothing leaked
 * (valgrind and ASan check the leak). */
static void allocation_failures(void **state)
{
    (void)state;
    llmlat_agg *like = bounded_like();
    for (long k = 0;; k++) {
        counting_alloc c;
        use_counting_alloc(&c, k);
        int32_t st = 0;
        llmlat_window *w = llmlat_window_new(like, 3 * SEC, SEC, &st);
        use_default_alloc();
        if (w) {
            assert_int_equal(st, LLMLAT_OK);
            llmlat_window_free(w);
            break;
        }
        assert_int_equal(st, LLMLAT_ENOMEM);
    }
    llmlat_agg_free(like);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_arguments_are_einval),
        cmocka_unit_test(requests_across_rotations),
        cmocka_unit_test(late_requests_join_their_step),
        cmocka_unit_test(a_gap_longer_than_the_window_empties_it),
        cmocka_unit_test(time_going_backwards_is_eorder),
        cmocka_unit_test(rates_and_goodput_over_the_span_covered),
        cmocka_unit_test(merges_count_at_their_time),
        cmocka_unit_test(the_view_holds_what_the_definition_says),
        cmocka_unit_test(fixed_memory),
        cmocka_unit_test(allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
