/* The recorder: states, ordering, bulk all-or-nothing, reuse, bad input. */
#include "helpers.h"
#include "record/request.h" /* to reach the event limit */

static void null_handles(void **state)
{
    (void)state;
    int64_t t = 0;
    uint32_t k = 1;
    double v;
    llmlat_request_free(NULL); /* a no-op, like free(NULL) */
    assert_int_equal(llmlat_request_reset(NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_start(NULL, 0), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_event(NULL, 0, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_events(NULL, &t, &k, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_set_input_tokens(NULL, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_set_output_tokens(NULL, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_finish(NULL, 0), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_fail(NULL, 0), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_cancel(NULL, 0), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_value(NULL, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT, &v),
                     LLMLAT_EINVAL);
}

static void calls_out_of_state(void **state)
{
    (void)state;
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    /* before start */
    assert_int_equal(llmlat_request_event(r, 10, 1), LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_finish(r, 10), LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_fail(r, 10), LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_cancel(r, 10), LLMLAT_ESTATE);
    double v;
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT, &v),
                     LLMLAT_ESTATE);
    /* started twice */
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, 5), LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_event(r, 10, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 20), LLMLAT_OK);
    /* after finish */
    assert_int_equal(llmlat_request_event(r, 30, 1), LLMLAT_ESTATE);
    int64_t t[] = { 30 };
    uint32_t k[] = { 1 };
    assert_int_equal(llmlat_request_events(r, t, k, 1), LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_finish(r, 30), LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_fail(r, 30), LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_cancel(r, 30), LLMLAT_ESTATE);
    /* the rejected calls left the request as it was */
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_E2E), 10e-9, 0);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 1, 0);
    llmlat_request_free(r);
}

static void timestamps_going_backwards(void **state)
{
    (void)state;
    llmlat_request *r = make_request(100 * MS, EVS({ 200 * MS, 1 }, { 250 * MS, 2 }), ENDS_NOT, 0);
    assert_int_equal(llmlat_request_event(r, 249 * MS, 1), LLMLAT_EORDER);
    assert_int_equal(llmlat_request_event(r, 99 * MS, 1), LLMLAT_EORDER);
    assert_int_equal(llmlat_request_finish(r, 240 * MS), LLMLAT_EORDER);
    assert_int_equal(llmlat_request_fail(r, 240 * MS), LLMLAT_EORDER);
    assert_int_equal(llmlat_request_cancel(r, 240 * MS), LLMLAT_EORDER);
    /* equal times are fine: chunks can share a timestamp */
    assert_int_equal(llmlat_request_event(r, 250 * MS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 250 * MS), LLMLAT_OK);
    /* the rejected events left no trace: 4 tokens, E2E to 250 ms */
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 4, 0);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_E2E), 0.150, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_ICL), 0.025, TOL_S);

    /* an event before the start, as the first event */
    llmlat_request *r2 = make_request(100, NULL, 0, ENDS_NOT, 0);
    assert_int_equal(llmlat_request_event(r2, 99, 1), LLMLAT_EORDER);
    assert_int_equal(llmlat_request_finish(r2, 99), LLMLAT_EORDER);
    llmlat_request_free(r2);
    llmlat_request_free(r);
}

static void bulk_events_all_or_nothing(void **state)
{
    (void)state;
    llmlat_request *r = make_request(0, EVS({ 10 * MS, 1 }), ENDS_NOT, 0);
    int64_t bad_t[] = { 20 * MS, 30 * MS, 25 * MS, 40 * MS };
    uint32_t k[] = { 1, 1, 1, 1 };
    assert_int_equal(llmlat_request_events(r, bad_t, k, 4), LLMLAT_EORDER);
    int64_t before_t[] = { 5 * MS };
    assert_int_equal(llmlat_request_events(r, before_t, k, 1), LLMLAT_EORDER);
    assert_int_equal(llmlat_request_events(r, NULL, k, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_events(r, bad_t, NULL, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_events(r, NULL, NULL, 0), LLMLAT_OK);
    /* nothing of the rejected batches is stored */
    assert_int_equal(llmlat_request_finish(r, 10 * MS), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 1, 0);
    assert_value_undefined(r, LLMLAT_CONV_DEFAULT, LLMLAT_ICL);

    /* a good batch equals the same events one by one */
    int64_t t[] = { 10 * MS, 20 * MS, 20 * MS, 45 * MS };
    uint32_t kk[] = { 0, 2, 1, 3 };
    llmlat_request *bulk = make_request(0, NULL, 0, ENDS_NOT, 0);
    assert_int_equal(llmlat_request_events(bulk, t, kk, 4), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(bulk, 50 * MS), LLMLAT_OK);
    llmlat_request *single = make_request(
        0, EVS({ 10 * MS, 0 }, { 20 * MS, 2 }, { 20 * MS, 1 }, { 45 * MS, 3 }), ENDS_FINISHED,
        50 * MS);
    for (int32_t c = LLMLAT_CONV_DEFAULT; c <= CONV_LAST; c++) {
        for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
            double a = NAN, b = NAN;
            int32_t sa = llmlat_request_value(bulk, c, m, &a);
            int32_t sb = llmlat_request_value(single, c, m, &b);
            assert_int_equal(sa, sb);
            if (sa == LLMLAT_OK)
                assert_true(a == b);
        }
    }
    llmlat_request_free(bulk);
    llmlat_request_free(single);
    llmlat_request_free(r);
}

static void overflow_is_rejected(void **state)
{
    (void)state;
    /* the distance to the start must fit int64 */
    llmlat_request *r = make_request(INT64_MIN, NULL, 0, ENDS_NOT, 0);
    assert_int_equal(llmlat_request_event(r, INT64_MAX, 1), LLMLAT_EOVERFLOW);
    assert_int_equal(llmlat_request_event(r, 0, 1), LLMLAT_EOVERFLOW); /* 2^63 ns after */
    assert_int_equal(llmlat_request_event(r, -1, 1), LLMLAT_OK);    /* 2^63 - 1: fits */
    assert_int_equal(llmlat_request_finish(r, INT64_MAX), LLMLAT_EOVERFLOW);
    int64_t t[] = { 0, INT64_MAX };
    uint32_t k[] = { 1, 1 };
    assert_int_equal(llmlat_request_events(r, t, k, 2), LLMLAT_EOVERFLOW);
    llmlat_request_free(r);

    /* a request holds at most 2^32 - 1 events, so the sum of their uint32
     * token counts always fits uint64; the limit is checked where the
     * buffer grows (pretend it is nearly full rather than fill it) */
    r = make_request(0, NULL, 0, ENDS_NOT, 0);
    int64_t tt[] = { 1, 2 };
    uint32_t kk[] = { UINT32_MAX, UINT32_MAX };
    assert_int_equal(llmlat_request_events(r, tt, kk, 2), LLMLAT_OK);
    int64_t more[] = { 3, 4 };
    r->n = REQ_MAX_EVENTS - 1; /* nothing reads the buffer past what was stored */
    assert_int_equal(llmlat_request_events(r, more, kk, 2), LLMLAT_EOVERFLOW);
    r->n = REQ_MAX_EVENTS;
    assert_int_equal(llmlat_request_event(r, 3, 1), LLMLAT_EOVERFLOW);
    r->n = 2;
    assert_int_equal(llmlat_request_finish(r, 3), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 2.0 * UINT32_MAX, 0);
    llmlat_request_free(r);

    /* near the int64 limits, values stay exact */
    r = make_request(INT64_MAX - 3 * SEC, EVS({ INT64_MAX - 2 * SEC, 1 }, { INT64_MAX, 1 }),
                     ENDS_FINISHED, INT64_MAX);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT), 1.0, 0);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_E2E), 3.0, 0);
    llmlat_request_free(r);
}

static void reset_reuses_without_allocating(void **state)
{
    (void)state;
    counting_alloc c;
    use_counting_alloc(&c, -1);
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    for (int round = 0; round < 3; round++) {
        long before = c.calls;
        assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
        for (int i = 0; i < 5000; i++)
            assert_int_equal(llmlat_request_event(r, (int64_t)i * MS, 1), LLMLAT_OK);
        assert_int_equal(llmlat_request_finish(r, 5000 * MS), LLMLAT_OK);
        assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 5000, 0);
        if (round > 0)
            assert_int_equal(c.calls, before); /* no allocation once grown */
        assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
        /* a reset request is new again */
        assert_int_equal(llmlat_request_event(r, 0, 1), LLMLAT_ESTATE);
    }
    llmlat_request_free(r);
    use_default_alloc();
}

static void out_of_memory_leaves_no_trace(void **state)
{
    (void)state;
    counting_alloc c;
    use_counting_alloc(&c, -1);
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    c.fail_at = c.calls; /* every further allocation fails */
    assert_int_equal(llmlat_request_event(r, 1, 1), LLMLAT_ENOMEM);
    int64_t t[] = { 1, 2 };
    uint32_t k[] = { 1, 1 };
    assert_int_equal(llmlat_request_events(r, t, k, 2), LLMLAT_ENOMEM);
    assert_int_equal(llmlat_request_finish(r, 3), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 0, 0);
    assert_value_undefined(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT);
    llmlat_request_free(r);
    assert_null(llmlat_request_new());
    use_default_alloc();
}

static void token_counts(void **state)
{
    (void)state;
    llmlat_request *r = make_request(0, EVS({ 1 * MS, 3 }, { 2 * MS, 0 }, { 3 * MS, 4 }),
                                     ENDS_FINISHED, 4 * MS);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 7, 0);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_INPUT_TOKENS), 0, 0);
    /* the usage count, when set, is N; set after finish is fine */
    assert_int_equal(llmlat_request_set_output_tokens(r, 9), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_input_tokens(r, 123), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 9, 0);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_INPUT_TOKENS), 123, 0);
    /* TPOT uses N = 9: (3 ms - 1 ms) / 8 */
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TPOT), 0.002 / 8, TOL_S);
    /* a usage count of 0 is a count too */
    assert_int_equal(llmlat_request_set_output_tokens(r, 0), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 0, 0);
    /* reset forgets both */
    assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 1), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 0, 0);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_INPUT_TOKENS), 0, 0);
    llmlat_request_free(r);
}

/* The intended start: before the start or after it, never later than it;
 * every span from it fits int64; reset forgets it. */
static void intended_start(void **state)
{
    (void)state;
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    int64_t t = -1;
    assert_int_equal(llmlat_request_schedule(NULL, 0), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_get_schedule(NULL, &t), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_get_schedule(r, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_get_schedule(r, &t), LLMLAT_EUNDEFINED);
    assert_int_equal(t, 0);
    /* given before the start: the start may not be earlier */
    assert_int_equal(llmlat_request_schedule(r, 100), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, 99), LLMLAT_EORDER);
    assert_int_equal(llmlat_request_start(r, 100), LLMLAT_OK);
    assert_int_equal(llmlat_request_get_schedule(r, &t), LLMLAT_OK);
    assert_int_equal(t, 100);
    /* given again after the start: at or before it */
    assert_int_equal(llmlat_request_schedule(r, 101), LLMLAT_EORDER);
    assert_int_equal(llmlat_request_schedule(r, 40), LLMLAT_OK);
    assert_int_equal(llmlat_request_get_schedule(r, &t), LLMLAT_OK);
    assert_int_equal(t, 40);
    assert_int_equal(llmlat_request_event(r, 200, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 300), LLMLAT_OK);
    assert_int_equal(llmlat_request_schedule(r, 0), LLMLAT_ESTATE);
    assert_int_equal(llmlat_request_get_schedule(r, &t), LLMLAT_OK);
    assert_int_equal(t, 40);
    /* reset forgets it */
    assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    assert_int_equal(llmlat_request_get_schedule(r, &t), LLMLAT_EUNDEFINED);
    /* spans from the intended start fit int64: a start or a later time
     * too far from it is EOVERFLOW, and nothing changes */
    assert_int_equal(llmlat_request_schedule(r, INT64_MIN), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_EOVERFLOW);
    assert_int_equal(llmlat_request_start(r, -1), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, 0, 1), LLMLAT_EOVERFLOW);
    assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_event(r, INT64_MAX, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_schedule(r, -1), LLMLAT_EOVERFLOW);
    assert_int_equal(llmlat_request_get_schedule(r, &t), LLMLAT_EUNDEFINED);
    assert_int_equal(llmlat_request_schedule(r, 0), LLMLAT_OK);
    llmlat_request_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(null_handles),
        cmocka_unit_test(calls_out_of_state),
        cmocka_unit_test(timestamps_going_backwards),
        cmocka_unit_test(bulk_events_all_or_nothing),
        cmocka_unit_test(overflow_is_rejected),
        cmocka_unit_test(reset_reuses_without_allocating),
        cmocka_unit_test(out_of_memory_leaves_no_trace),
        cmocka_unit_test(token_counts),
        cmocka_unit_test(intended_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
