/* One request's own metrics, by hand-computed vectors, under every
 * convention. */
#include "helpers.h"

#define ALL_CONVENTIONS(c) for (int32_t c = LLMLAT_CONV_DEFAULT; c <= CONV_LAST; c++)

/* The seed example: TTFT 400 ms, E2E 2000 ms, 41 tokens one per chunk:
 * TPOT = (2000 - 400) / 40 = 40 ms, i.e. 25 tokens/s after the first. */
static void seed_example(void **state)
{
    (void)state;
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_request_start(r, 7), LLMLAT_OK);
    for (int64_t i = 0; i < 41; i++)
        assert_int_equal(llmlat_request_event(r, 7 + 400 * MS + i * 40 * MS, 1), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 7 + 2000 * MS), LLMLAT_OK);
    ALL_CONVENTIONS(c)
    {
        assert_close(value_of(r, c, LLMLAT_TTFT), 0.400, TOL_S);
        assert_close(value_of(r, c, LLMLAT_E2E), 2.000, TOL_S);
        assert_close(value_of(r, c, LLMLAT_TPOT), 0.040, TOL_S);
        assert_close(value_of(r, c, LLMLAT_ICL), 0.040, TOL_S);
        assert_close(value_of(r, c, LLMLAT_ITL_MAX), 0.040, TOL_S);
        /* one token per event and N = sum k: mean ITL = TPOT */
        assert_close(value_of(r, c, LLMLAT_ITL), value_of(r, c, LLMLAT_TPOT), TOL_S);
        assert_close(value_of(r, c, LLMLAT_OUTPUT_TOKENS), 41, 0);
    }
    /* AIPerf's per-user speed is 1 / its ITL (our TPOT): 25 tokens/s */
    assert_close(value_of(r, LLMLAT_CONV_AIPERF, LLMLAT_TPS_USER), 25.0, 1e-9);
    /* everyone else's: N / E2E = 41 / 2 s */
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TPS_USER), 20.5, 1e-9);
    /* what each tool calls ITL: ours per token (40 ms), vLLM/SGLang per
     * chunk (40 ms), AIPerf TPOT (40 ms), LLMPerf (2000 - 0) / 41 events */
    assert_close(value_of(r, LLMLAT_CONV_LLMPERF, LLMLAT_TOOL_ITL), 2.0 / 41, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_VLLM, LLMLAT_TOOL_ITL), 0.040, TOL_S);
    llmlat_request_free(r);
}

/* No event at all, then one event of one token. */
static void zero_and_one_token(void **state)
{
    (void)state;
    llmlat_request *r0 = make_request(0, NULL, 0, ENDS_FINISHED, 300 * MS);
    /* default, vLLM, AIPerf: nothing to anchor TTFT or E2E on */
    assert_value_undefined(r0, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT);
    assert_value_undefined(r0, LLMLAT_CONV_DEFAULT, LLMLAT_E2E);
    assert_value_undefined(r0, LLMLAT_CONV_DEFAULT, LLMLAT_TPOT);
    assert_value_undefined(r0, LLMLAT_CONV_DEFAULT, LLMLAT_TPS_USER);
    assert_value_undefined(r0, LLMLAT_CONV_VLLM, LLMLAT_TTFT);
    assert_value_undefined(r0, LLMLAT_CONV_AIPERF, LLMLAT_TTFT);
    /* SGLang and LLMPerf: TTFT placeholder 0, E2E to the end of the stream */
    assert_close(value_of(r0, LLMLAT_CONV_SGLANG, LLMLAT_TTFT), 0.0, 0);
    assert_close(value_of(r0, LLMLAT_CONV_SGLANG, LLMLAT_E2E), 0.300, TOL_S);
    assert_close(value_of(r0, LLMLAT_CONV_LLMPERF, LLMLAT_TTFT), 0.0, 0);
    assert_close(value_of(r0, LLMLAT_CONV_LLMPERF, LLMLAT_TOOL_ITL), 0.0, 0);
    assert_close(value_of(r0, LLMLAT_CONV_LLMPERF, LLMLAT_TPS_USER), 0.0, 0);
    ALL_CONVENTIONS(c)
    {
        assert_value_undefined(r0, c, LLMLAT_TPOT);
        assert_value_undefined(r0, c, LLMLAT_ITL);
        assert_value_undefined(r0, c, LLMLAT_ICL);
        assert_value_undefined(r0, c, LLMLAT_ITL_MAX);
        assert_close(value_of(r0, c, LLMLAT_OUTPUT_TOKENS), 0, 0);
    }
    llmlat_request_free(r0);

    llmlat_request *r1 = make_request(0, EVS({ 120 * MS, 1 }), ENDS_FINISHED, 130 * MS);
    ALL_CONVENTIONS(c)
    {
        /* inference-perf: one token time is not "streamable", no TTFT */
        if (c == LLMLAT_CONV_INFERENCE_PERF)
            assert_value_undefined(r1, c, LLMLAT_TTFT);
        else
            assert_close(value_of(r1, c, LLMLAT_TTFT), 0.120, TOL_S);
        /* TPOT is undefined for N <= 1, never silently 0 */
        assert_value_undefined(r1, c, LLMLAT_TPOT);
        assert_value_undefined(r1, c, LLMLAT_ITL);
        assert_value_undefined(r1, c, LLMLAT_ICL);
        assert_value_undefined(r1, c, LLMLAT_ITL_MAX);
    }
    assert_close(value_of(r1, LLMLAT_CONV_DEFAULT, LLMLAT_E2E), 0.120, TOL_S);
    assert_close(value_of(r1, LLMLAT_CONV_SGLANG, LLMLAT_E2E), 0.130, TOL_S);
    assert_value_undefined(r1, LLMLAT_CONV_AIPERF, LLMLAT_TPS_USER); /* 1 / no TPOT */
    assert_close(value_of(r1, LLMLAT_CONV_DEFAULT, LLMLAT_TPS_USER), 1 / 0.120, 1e-9);
    llmlat_request_free(r1);
}

/* Speculative decoding: chunks of several tokens. start 0; 3 tokens at
 * 100 ms, 2 at 150 ms: N = 5, TPOT = (150 - 100) / 4 = 12.5 ms. Per token
 * ITL: 2 zeros (the first chunk's extra tokens) and 2 x 25 ms: mean 12.5. */
static void multi_token_events(void **state)
{
    (void)state;
    llmlat_request *r = make_request(0, EVS({ 100 * MS, 3 }, { 150 * MS, 2 }), ENDS_FINISHED,
                                     150 * MS);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT), 0.100, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_E2E), 0.150, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TPOT), 0.0125, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_ITL), 0.0125, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_ICL), 0.050, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_ITL_MAX), 0.050, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS), 5, 0);
    /* one chunk of 4 tokens: TPOT 0 (all at once); AIPerf reads the 0 as
     * missing for its per-user speed */
    llmlat_request *one = make_request(0, EVS({ 80 * MS, 4 }), ENDS_FINISHED, 90 * MS);
    assert_close(value_of(one, LLMLAT_CONV_DEFAULT, LLMLAT_TPOT), 0.0, 0);
    assert_close(value_of(one, LLMLAT_CONV_DEFAULT, LLMLAT_ITL), 0.0, 0);
    assert_value_undefined(one, LLMLAT_CONV_DEFAULT, LLMLAT_ICL);
    assert_close(value_of(one, LLMLAT_CONV_AIPERF, LLMLAT_TPOT), 0.0, 0);
    assert_value_undefined(one, LLMLAT_CONV_AIPERF, LLMLAT_TPS_USER);
    llmlat_request_free(one);
    llmlat_request_free(r);
}

/* Empty chunks: role chunk at 50 ms, tokens at 100 and 130 ms, keep-alive at
 * 110 ms, stream closed at 140 ms.
 *   default/AIPerf: TTFT 100, E2E 130, TPOT (130-100)/1 = 30, ICL one gap 30
 *   vLLM: counts empty chunks: TTFT 50, E2E 130, TPOT (130-50)/1 = 80,
 *         chunk gaps 50, 10, 20 (mean 26.67), largest 50; per token: 50 ms
 *         and 20 ms for the two tokens (the gaps ending at token chunks)
 *   SGLang: TTFT 100, E2E to finish 140, TPOT 40
 *   LLMPerf: TTFT 100, E2E 140, its ITL (130 - 0) / 4 chunks = 32.5 */
static void empty_events(void **state)
{
    (void)state;
    llmlat_request *r = make_request(
        0, EVS({ 50 * MS, 0 }, { 100 * MS, 1 }, { 110 * MS, 0 }, { 130 * MS, 1 }), ENDS_FINISHED,
        140 * MS);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT), 0.100, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_E2E), 0.130, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TPOT), 0.030, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_ICL), 0.030, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_ITL), 0.030, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_AIPERF, LLMLAT_TPOT), 0.030, TOL_S);

    assert_close(value_of(r, LLMLAT_CONV_VLLM, LLMLAT_TTFT), 0.050, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_VLLM, LLMLAT_E2E), 0.130, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_VLLM, LLMLAT_TPOT), 0.080, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_VLLM, LLMLAT_ICL), 0.080 / 3, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_VLLM, LLMLAT_ITL_MAX), 0.050, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_VLLM, LLMLAT_ITL), (0.050 + 0.020) / 2, TOL_S);

    assert_close(value_of(r, LLMLAT_CONV_SGLANG, LLMLAT_E2E), 0.140, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_SGLANG, LLMLAT_TPOT), 0.040, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_LLMPERF, LLMLAT_TOOL_ITL), 0.0325, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_LLMPERF, LLMLAT_TPS_USER), 2 / 0.140, 1e-9);
    llmlat_request_free(r);
}

/* AIPerf: a zero gap between token chunks drops the request's chunk gaps;
 * a zero TTFT leaves no TPOT. */
static void aiperf_zero_is_missing(void **state)
{
    (void)state;
    llmlat_request *r = make_request(0, EVS({ 10 * MS, 1 }, { 10 * MS, 1 }, { 30 * MS, 1 }),
                                     ENDS_FINISHED, 30 * MS);
    assert_value_undefined(r, LLMLAT_CONV_AIPERF, LLMLAT_ICL);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_ICL), 0.010, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_AIPERF, LLMLAT_TPOT), 0.010, TOL_S);
    llmlat_request_free(r);

    llmlat_request *z = make_request(5, EVS({ 5, 1 }, { 5 + 20 * MS, 1 }), ENDS_FINISHED,
                                     5 + 20 * MS);
    assert_close(value_of(z, LLMLAT_CONV_AIPERF, LLMLAT_TTFT), 0.0, 0);
    assert_value_undefined(z, LLMLAT_CONV_AIPERF, LLMLAT_TPOT);
    assert_value_undefined(z, LLMLAT_CONV_AIPERF, LLMLAT_TOOL_ITL);
    assert_close(value_of(z, LLMLAT_CONV_DEFAULT, LLMLAT_TPOT), 0.020, TOL_S);
    llmlat_request_free(z);
}

/* The same stream under GuideLLM and inference-perf: start 0, a role chunk
 * at 20 ms, 1 token at 100, 3 at 130, 2 at 190, stream closed at 200 (N 6).
 *   GuideLLM: TTFT 100; E2E (request latency) to the finish 200; its ITL
 *     (our TPOT) (190 - 100) / 5 = 18; its TPOT (our NTPOT) 190 / 6.
 *   inference-perf: TTFT 100; E2E 200; TPOT (190 - 100) / 5 = 18; NTPOT
 *     200 / 6; per token 30, 0, 0 then 60, 0: the same mean ITL, 90 / 5.
 *   default: NTPOT = E2E / N = 190 / 6; SGLang 200 / 6; vLLM (E2E to the
 *     role chunk's stream end, the last event 190) 190 / 6. */
static void guidellm_and_inference_perf(void **state)
{
    (void)state;
    const int32_t G = LLMLAT_CONV_GUIDELLM, P = LLMLAT_CONV_INFERENCE_PERF;
    llmlat_request *r = make_request(
        0, EVS({ 20 * MS, 0 }, { 100 * MS, 1 }, { 130 * MS, 3 }, { 190 * MS, 2 }), ENDS_FINISHED,
        200 * MS);
    assert_close(value_of(r, G, LLMLAT_TTFT), 0.100, TOL_S);
    assert_close(value_of(r, G, LLMLAT_E2E), 0.200, TOL_S);
    assert_close(value_of(r, G, LLMLAT_TPOT), 0.018, TOL_S);
    assert_close(value_of(r, G, LLMLAT_TOOL_ITL), 0.018, TOL_S);
    assert_close(value_of(r, G, LLMLAT_NTPOT), 0.190 / 6, TOL_S);
    assert_close(value_of(r, P, LLMLAT_TPOT), 0.018, TOL_S);
    assert_close(value_of(r, P, LLMLAT_NTPOT), 0.200 / 6, TOL_S);
    assert_close(value_of(r, P, LLMLAT_ITL), 0.090 / 5, TOL_S);
    assert_close(value_of(r, P, LLMLAT_TOOL_ITL), 0.090 / 5, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_NTPOT), 0.190 / 6, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_SGLANG, LLMLAT_NTPOT), 0.200 / 6, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_VLLM, LLMLAT_NTPOT), 0.190 / 6, TOL_S);
    llmlat_request_free(r);

    /* One chunk of one token: inference-perf has one token time, no TTFT;
     * a chunk of 2 has two, and a TPOT of 0. */
    llmlat_request *one = make_request(0, EVS({ 50 * MS, 1 }), ENDS_FINISHED, 60 * MS);
    assert_value_undefined(one, P, LLMLAT_TTFT);
    assert_value_undefined(one, P, LLMLAT_TPOT);
    assert_close(value_of(one, P, LLMLAT_NTPOT), 0.060, TOL_S);
    assert_close(value_of(one, G, LLMLAT_NTPOT), 0.050, TOL_S);
    llmlat_request_free(one);
    llmlat_request *two = make_request(0, EVS({ 50 * MS, 2 }), ENDS_FINISHED, 60 * MS);
    assert_close(value_of(two, P, LLMLAT_TTFT), 0.050, TOL_S);
    assert_close(value_of(two, P, LLMLAT_TPOT), 0.0, 0);
    llmlat_request_free(two);

    /* No content: GuideLLM keeps TTFT and ITL as 0 (its `or 0.0`) and, with
     * a usage count, a TPOT to the end; inference-perf's NTPOT is 0 for
     * N = 0, nobody else's is defined. */
    llmlat_request *none = make_request(0, EVS({ 40 * MS, 0 }), ENDS_FINISHED, 80 * MS);
    assert_close(value_of(none, G, LLMLAT_TTFT), 0.0, 0);
    assert_close(value_of(none, P, LLMLAT_NTPOT), 0.0, 0);
    assert_value_undefined(none, G, LLMLAT_NTPOT);
    assert_value_undefined(none, LLMLAT_CONV_DEFAULT, LLMLAT_NTPOT);
    assert_int_equal(llmlat_request_reset(none), LLMLAT_OK);
    assert_int_equal(llmlat_request_start(none, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_output_tokens(none, 4), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(none, 80 * MS), LLMLAT_OK);
    assert_close(value_of(none, G, LLMLAT_TPOT), 0.0, 0);
    assert_close(value_of(none, G, LLMLAT_NTPOT), 0.020, TOL_S);
    llmlat_request_free(none);

    /* A failure has no request latency under GuideLLM (it never sets
     * request_end): 0; the others measure to the failure. Cancelling is a
     * failure too. */
    llmlat_request *f = make_request(0, EVS({ 30 * MS, 1 }, { 50 * MS, 1 }), ENDS_CANCELLED,
                                     70 * MS);
    assert_close(value_of(f, G, LLMLAT_E2E), 0.0, 0);
    assert_close(value_of(f, P, LLMLAT_E2E), 0.070, TOL_S);
    assert_close(value_of(f, G, LLMLAT_NTPOT), 0.025, TOL_S);
    assert_int_equal(llmlat_request_cancel(f, 80 * MS), LLMLAT_ESTATE);
    llmlat_request_free(f);
}

/* While a request is in flight, what is known is defined; what needs its
 * end is not. */
static void in_flight(void **state)
{
    (void)state;
    llmlat_request *r = make_request(0, EVS({ 0, 0 }), ENDS_NOT, 0);
    assert_value_undefined(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT);
    assert_close(value_of(r, LLMLAT_CONV_VLLM, LLMLAT_TTFT), 0.0, 0);
    assert_int_equal(llmlat_request_event(r, 250 * MS, 2), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT), 0.250, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_ITL), 0.0, 0);
    assert_value_undefined(r, LLMLAT_CONV_DEFAULT, LLMLAT_E2E);
    assert_value_undefined(r, LLMLAT_CONV_DEFAULT, LLMLAT_TPOT);
    assert_value_undefined(r, LLMLAT_CONV_DEFAULT, LLMLAT_OUTPUT_TOKENS);
    assert_value_undefined(r, LLMLAT_CONV_SGLANG, LLMLAT_E2E);
    assert_int_equal(llmlat_request_fail(r, 300 * MS), LLMLAT_OK);
    /* a failed request still has its own values */
    assert_close(value_of(r, LLMLAT_CONV_DEFAULT, LLMLAT_E2E), 0.250, TOL_S);
    assert_close(value_of(r, LLMLAT_CONV_SGLANG, LLMLAT_E2E), 0.300, TOL_S);
    llmlat_request_free(r);
}

static void bad_arguments(void **state)
{
    (void)state;
    llmlat_request *r = make_request(0, EVS({ 1, 1 }), ENDS_FINISHED, 1);
    double v;
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT, NULL),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_value(r, -1, LLMLAT_TTFT, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_value(r, 7, LLMLAT_TTFT, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, 0, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_DEFAULT, 15, &v), LLMLAT_EINVAL);
    llmlat_request_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_example),
        cmocka_unit_test(zero_and_one_token),
        cmocka_unit_test(multi_token_events),
        cmocka_unit_test(empty_events),
        cmocka_unit_test(aiperf_zero_is_missing),
        cmocka_unit_test(guidellm_and_inference_perf),
        cmocka_unit_test(in_flight),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
