/* One trace whose numbers differ under each of the seven conventions.
 * Times in ms.
 *
 *  R1 start 0:    role chunk @50 (k=0), tokens @200 (1), @220 (1), @240 (2),
 *                 keep-alive @300 (k=0), finished @310; input 10; N = 4
 *  R2 start 100:  one token @400, finished @450; input 20; N = 1
 *  R3 start 150:  one empty chunk @160, finished @500 (no content); input 5
 *  R4 start 200:  tokens @300, @800, failed @900; input 7; N = 2
 *  R5 start 250:  tokens @600, @600 (a zero gap), @700, finished @700; input 1
 *  R6 start 300:  3 tokens @350, cancelled @400; input 4 (a failure everywhere)
 *
 * Per request (TTFT / E2E / TPOT; "-" = none):
 *            default,AIPerf      vLLM (empty chunks)   SGLang, LLMPerf (E2E to finish)
 *  R1        200/240/40/3        50/300/250/3          200/310/110/3
 *  R2        300/300/-           300/300/-             300/350/-
 *  R3        -/-/- (AIPerf:      10/10/-               0/350/- (TTFT placeholder 0)
 *            not valid: failed)
 *  R5        350/450/50          350/450/50            350/450/50
 * Chunk gaps (ICL): default R1 20,20  R5 0,100; vLLM R1 150,20,20,60  R5 0,100;
 * AIPerf drops R5's gaps (a zero gap). Per-token ITL: default R1 20,10,10
 * (the 2-token chunk splits its gap) R5 0,100; vLLM R1 150,20,10,10 R5 0,100.
 * LLMPerf's ITL = (last non-empty event - start) / chunks:
 *  R1 240/5 = 48, R2 300/1, R3 0 (no content), R5 450/3 = 150.
 * NTPOT = E2E / N (none for N = 0): default and AIPerf 240/4, 300/1, 450/3
 * (mean 170); vLLM 300/4, 300, 450/3 (175); SGLang, LLMPerf 310/4, 350,
 * 450/3 (192.5).
 * Duration: earliest start 0 to latest event 800 (failed R4 included) = 0.8 s;
 * AIPerf: successes' start..start+E2E: 0..700 = 0.7 s.
 *
 * GuideLLM: a success is finished with content or a usage count: R1, R2,
 * R5; R3 (no content, N = 0) and R4 are errored, R6 incomplete. TTFT 200,
 * 300, 350 (median, its inverse CDF at 0.5: 300); E2E to the finish 310,
 * 350, 450. Its ITL (our TPOT) = (last - first token) / (N - 1) weighted
 * by N - 1: R1 40/3 x 3, R5 100/2 x 2: count 5, mean 140/5 = 28. Its TPOT
 * (our NTPOT) = (last token - start) / N weighted by N: R1 240/4 x 4, R2
 * 300 x 1, R5 450/3 x 3: count 8, mean 990/8 = 123.75. Duration: first
 * start 0 to last end 900 (R4's failure) = 0.9 s; token rates over its
 * token points, R1 200..240, R2 400, R5 600..700: 0.5 s.
 * inference-perf: successes R1, R2, R3, R5. TTFT only with two token
 * times: R1 200, R5 350. E2E to the finish 310, 350, 350, 450. TPOT =
 * (last - first token) / (N - 1): R1 40/3, R5 50. NTPOT = E2E / N, 0 for
 * N = 0: 77.5, 350, 0, 150 (mean 144.375). Every token of a chunk has the
 * chunk's time: ITL R1 20, 20, 0 and R5 0, 100 (median 20, not 10).
 * Duration 0 .. 900 = 0.9 s.
 */
#include "helpers.h"

#include "agg/agg.h"

#define MSF(x) ((x) / 1000.0) /* ms to seconds */

static void add_trace(llmlat_agg *a)
{
    add_request(a, 0,
                EVS({ 50 * MS, 0 }, { 200 * MS, 1 }, { 220 * MS, 1 }, { 240 * MS, 2 },
                    { 300 * MS, 0 }),
                ENDS_FINISHED, 310 * MS, 10);
    add_request(a, 100 * MS, EVS({ 400 * MS, 1 }), ENDS_FINISHED, 450 * MS, 20);
    add_request(a, 150 * MS, EVS({ 160 * MS, 0 }), ENDS_FINISHED, 500 * MS, 5);
    add_request(a, 200 * MS, EVS({ 300 * MS, 1 }, { 800 * MS, 1 }), ENDS_FAILED, 900 * MS, 7);
    add_request(a, 250 * MS, EVS({ 600 * MS, 1 }, { 600 * MS, 1 }, { 700 * MS, 1 }),
                ENDS_FINISHED, 700 * MS, 1);
    add_request(a, 300 * MS, EVS({ 350 * MS, 3 }), ENDS_CANCELLED, 400 * MS, 4);
}

typedef struct expected {
    int32_t conv;
    uint64_t completed, failed, tpot_undefined, input_tokens, output_tokens;
    uint64_t peak_concurrency, good;
    double duration;
    double token_span; /* what token rates divide by, when not the duration */
    double ttft_count, ttft_mean, ttft_median;
    double e2e_mean;
    double tpot_count, tpot_mean;
    double itl_count, itl_mean, itl_median;
    double icl_count, icl_mean;
    double tool_itl_mean;
    double tps_count;
    double ntpot_count, ntpot_mean;
    double peak_output_tokens;
} expected;

static const expected EXPECTED[] = {
    {
        .conv = LLMLAT_CONV_DEFAULT,
        .completed = 4, .failed = 2, .tpot_undefined = 2, /* R2 (N = 1), R3 (N = 0) */
        .input_tokens = 36, .output_tokens = 8,
        .peak_concurrency = 2, /* [0,240) [100,400) [250,700) */
        .good = 1,             /* R1 only (R3 has no TTFT: fails) */
        .duration = 0.8,
        .ttft_count = 3, .ttft_mean = MSF((200 + 300 + 350) / 3.0), .ttft_median = MSF(300),
        .e2e_mean = MSF((240 + 300 + 450) / 3.0),
        .tpot_count = 2, .tpot_mean = MSF((40 / 3.0 + 50) / 2),
        .itl_count = 5, .itl_mean = MSF((20 + 10 + 10 + 0 + 100) / 5.0), .itl_median = MSF(10),
        .icl_count = 4, .icl_mean = MSF((20 + 20 + 0 + 100) / 4.0),
        .tool_itl_mean = MSF(28), /* = ITL */
        .tps_count = 3,           /* R1, R2, R5 (R3 has no E2E) */
        .ntpot_count = 3, .ntpot_mean = MSF(170),
        .peak_output_tokens = 8,  /* every token is in the first second */
    },
    {
        .conv = LLMLAT_CONV_VLLM,
        .completed = 4, .failed = 2, .tpot_undefined = 2,
        .input_tokens = 36, .output_tokens = 8,
        .peak_concurrency = 3, /* R3 [150,160) inside R1 [0,300) and R2 [100,400) */
        .good = 1,             /* R3: TTFT 10, TPOT counted as 0; R1's TPOT 83 fails */
        .duration = 0.8,
        .ttft_count = 4, .ttft_mean = MSF((50 + 300 + 10 + 350) / 4.0),
        .ttft_median = MSF((50 + 300) / 2.0),
        .e2e_mean = MSF((300 + 300 + 10 + 450) / 4.0),
        .tpot_count = 2, .tpot_mean = MSF((250 / 3.0 + 50) / 2),
        .itl_count = 6, .itl_mean = MSF((150 + 20 + 10 + 10 + 0 + 100) / 6.0),
        .itl_median = MSF(15),
        .icl_count = 6, .icl_mean = MSF((150 + 20 + 20 + 60 + 0 + 100) / 6.0),
        .tool_itl_mean = MSF(350 / 6.0), /* vLLM's "ITL" is per chunk */
        .tps_count = 4,
        .ntpot_count = 3, .ntpot_mean = MSF(175), /* R3: N = 0 */
        .peak_output_tokens = 10, /* chunks, not tokens: 5 + 1 + 1 + 3 */
    },
    {
        .conv = LLMLAT_CONV_AIPERF,
        .completed = 3, .failed = 3, .tpot_undefined = 1, /* R3 is an error; R2 N = 1 */
        .input_tokens = 31, .output_tokens = 8,
        .peak_concurrency = 2,
        .good = 1,
        .duration = 0.7,
        .ttft_count = 3, .ttft_mean = MSF((200 + 300 + 350) / 3.0), .ttft_median = MSF(300),
        .e2e_mean = MSF((240 + 300 + 450) / 3.0),
        .tpot_count = 2, .tpot_mean = MSF((40 / 3.0 + 50) / 2),
        .itl_count = 5, .itl_mean = MSF(28), .itl_median = MSF(10),
        .icl_count = 2, .icl_mean = MSF(20), /* R5's chunk gaps dropped */
        .tool_itl_mean = MSF((40 / 3.0 + 50) / 2), /* AIPerf's "ITL" is our TPOT */
        .tps_count = 2,                           /* 1 / TPOT: R1 75, R5 20 */
        .ntpot_count = 3, .ntpot_mean = MSF(170),
        .peak_output_tokens = 8,
    },
    {
        .conv = LLMLAT_CONV_SGLANG,
        .completed = 4, .failed = 2, .tpot_undefined = 2,
        .input_tokens = 36, .output_tokens = 8,
        .peak_concurrency = 4, /* all four successes overlap at 250 */
        .good = 2,             /* R1, and R3 (TTFT 0, no TPOT meets the SLO) */
        .duration = 0.8,
        .ttft_count = 4, .ttft_mean = MSF((200 + 300 + 0 + 350) / 4.0),
        .ttft_median = MSF((200 + 300) / 2.0),
        .e2e_mean = MSF((310 + 350 + 350 + 450) / 4.0),
        .tpot_count = 2, .tpot_mean = MSF((110 / 3.0 + 50) / 2),
        .itl_count = 5, .itl_mean = MSF(28), .itl_median = MSF(10),
        .icl_count = 4, .icl_mean = MSF(35),
        .tool_itl_mean = MSF(35),
        .tps_count = 4,
        .ntpot_count = 3, .ntpot_mean = MSF(192.5),
        .peak_output_tokens = 8,
    },
    {
        .conv = LLMLAT_CONV_LLMPERF,
        .completed = 4, .failed = 2, .tpot_undefined = 2,
        .input_tokens = 36, .output_tokens = 8,
        .peak_concurrency = 4,
        .good = 2,
        .duration = 0.8,
        .ttft_count = 4, .ttft_mean = MSF((200 + 300 + 0 + 350) / 4.0),
        .ttft_median = MSF((200 + 300) / 2.0),
        .e2e_mean = MSF((310 + 350 + 350 + 450) / 4.0),
        .tpot_count = 2, .tpot_mean = MSF((110 / 3.0 + 50) / 2),
        .itl_count = 5, .itl_mean = MSF(28), .itl_median = MSF(10),
        .icl_count = 4, .icl_mean = MSF(35),
        .tool_itl_mean = MSF((48 + 300 + 0 + 150) / 4.0),
        .tps_count = 4,
        .ntpot_count = 3, .ntpot_mean = MSF(192.5),
        .peak_output_tokens = 8,
    },
    {
        .conv = LLMLAT_CONV_GUIDELLM,
        .completed = 3, .failed = 3, .tpot_undefined = 1, /* R2: N = 1 */
        .input_tokens = 31, .output_tokens = 8,
        .peak_concurrency = 3, /* [0,310) [100,450) [250,700) */
        .good = 1,             /* R1 only */
        .duration = 0.9, .token_span = 0.5,
        .ttft_count = 3, .ttft_mean = MSF((200 + 300 + 350) / 3.0), .ttft_median = MSF(300),
        .e2e_mean = MSF((310 + 350 + 450) / 3.0),
        .tpot_count = 5, .tpot_mean = MSF(28), /* weighted by N - 1 */
        .itl_count = 5, .itl_mean = MSF(28),
        .itl_median = MSF(10), /* 0 x1, 10 x2, 20, 100: cumulative 0.2, 0.6 */
        .icl_count = 4, .icl_mean = MSF(35),
        .tool_itl_mean = MSF(28), /* GuideLLM's "ITL" is our (weighted) TPOT */
        .tps_count = 3,
        .ntpot_count = 8, .ntpot_mean = MSF(123.75), /* weighted by N */
        .peak_output_tokens = 8,
    },
    {
        .conv = LLMLAT_CONV_INFERENCE_PERF,
        .completed = 4, .failed = 2, .tpot_undefined = 2, /* R2, R3: one token time or none */
        .input_tokens = 36, .output_tokens = 8,
        .peak_concurrency = 4,
        .good = 1,             /* R1; R3 and R2 have no TTFT, which fails */
        .duration = 0.9,
        .ttft_count = 2, .ttft_mean = MSF(275), .ttft_median = MSF(275),
        .e2e_mean = MSF((310 + 350 + 350 + 450) / 4.0),
        .tpot_count = 2, .tpot_mean = MSF((40 / 3.0 + 50) / 2),
        .itl_count = 5, .itl_mean = MSF(28), .itl_median = MSF(20),
        .icl_count = 4, .icl_mean = MSF(35),
        .tool_itl_mean = MSF(28),
        .tps_count = 4,
        .ntpot_count = 4, .ntpot_mean = MSF(144.375),
        .peak_output_tokens = 8,
    },
};

static void check(const expected *e)
{
    llmlat_agg *a = llmlat_agg_new(e->conv, LLMLAT_MODE_EXACT);
    assert_non_null(a);
    add_trace(a);
    /* goodput SLOs: TTFT <= 250 ms, TPOT <= 40 ms */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.250), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TPOT, 0.040), LLMLAT_OK);

    assert_int_equal(counter_of(a, LLMLAT_COUNT_COMPLETED), e->completed);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_FAILED), e->failed);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_TPOT_UNDEFINED), e->tpot_undefined);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_INPUT_TOKENS), e->input_tokens);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_OUTPUT_TOKENS), e->output_tokens);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_PEAK_CONCURRENCY), e->peak_concurrency);
    assert_int_equal(counter_of(a, LLMLAT_COUNT_GOOD), e->good);

    assert_close(stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_COUNT), e->ttft_count, 0);
    assert_close(stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_MEAN), e->ttft_mean, TOL_S);
    assert_close(stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_MEDIAN), e->ttft_median, TOL_S);
    assert_close(stat_of(a, LLMLAT_E2E, LLMLAT_STAT_MEAN), e->e2e_mean, TOL_S);
    assert_close(stat_of(a, LLMLAT_TPOT, LLMLAT_STAT_COUNT), e->tpot_count, 0);
    assert_close(stat_of(a, LLMLAT_TPOT, LLMLAT_STAT_MEAN), e->tpot_mean, TOL_S);
    assert_close(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_COUNT), e->itl_count, 0);
    assert_close(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_MEAN), e->itl_mean, TOL_S);
    assert_close(stat_of(a, LLMLAT_ITL, LLMLAT_STAT_MEDIAN), e->itl_median, TOL_S);
    assert_close(stat_of(a, LLMLAT_ICL, LLMLAT_STAT_COUNT), e->icl_count, 0);
    assert_close(stat_of(a, LLMLAT_ICL, LLMLAT_STAT_MEAN), e->icl_mean, TOL_S);
    assert_close(stat_of(a, LLMLAT_TOOL_ITL, LLMLAT_STAT_MEAN), e->tool_itl_mean, TOL_S);
    assert_close(stat_of(a, LLMLAT_TPS_USER, LLMLAT_STAT_COUNT), e->tps_count, 0);
    assert_close(stat_of(a, LLMLAT_NTPOT, LLMLAT_STAT_COUNT), e->ntpot_count, 0);
    assert_close(stat_of(a, LLMLAT_NTPOT, LLMLAT_STAT_MEAN), e->ntpot_mean, TOL_S);
    assert_close(stat_of(a, LLMLAT_OUTPUT_TOKENS, LLMLAT_STAT_MAX), 4, 0);

    double d = e->duration, dt = e->token_span ? e->token_span : d;
    assert_close(rate_of(a, LLMLAT_RATE_REQUESTS), (double)e->completed / d, 1e-9);
    assert_close(rate_of(a, LLMLAT_RATE_OUTPUT_TOKENS), (double)e->output_tokens / dt, 1e-9);
    assert_close(rate_of(a, LLMLAT_RATE_TOTAL_TOKENS),
                 (double)(e->input_tokens + e->output_tokens) / dt, 1e-9);
    assert_close(rate_of(a, LLMLAT_RATE_GOODPUT), (double)e->good / d, 1e-9);
    assert_close(rate_of(a, LLMLAT_RATE_PEAK_OUTPUT_TOKENS), e->peak_output_tokens, 0);

    /* a host duration overrides the derived one, in every convention */
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, 2.0), LLMLAT_OK);
    assert_close(rate_of(a, LLMLAT_RATE_REQUESTS), (double)e->completed / 2.0, 1e-12);
    llmlat_agg_free(a);
}

static void default_convention(void **state) { (void)state; check(&EXPECTED[0]); }
static void vllm_convention(void **state) { (void)state; check(&EXPECTED[1]); }
static void aiperf_convention(void **state) { (void)state; check(&EXPECTED[2]); }
static void sglang_convention(void **state) { (void)state; check(&EXPECTED[3]); }
static void llmperf_convention(void **state) { (void)state; check(&EXPECTED[4]); }
static void guidellm_convention(void **state) { (void)state; check(&EXPECTED[5]); }
static void inference_perf_convention(void **state) { (void)state; check(&EXPECTED[6]); }

/* A statistic of a metric of a status group (internal: the JSON report's
 * tool object is where they show). */
static double group_stat(const llmlat_agg *a, enum req_group g, int32_t metric, int32_t stat)
{
    double v;
    group_view gv = agg_group_view(a, g);
    assert_int_equal(agg_store_stat(a, &gv.stores[metric_index(metric)], stat, &v), LLMLAT_OK);
    return v;
}

/* GuideLLM's other status groups. Errored: R3 (finished without content
 * nor usage: its latency is real, 350; TTFT missing, 0; no N) and R4
 * (failed: no request_end, latency 0; TTFT 100; ITL (800 - 300) / 1 x 1;
 * TPOT (800 - 200) / 2 x 2). Incomplete: R6 (cancelled: latency 0, TTFT
 * 50, ITL (350 - 350) / 2 x 2, TPOT 50 / 3 x 3). Token points: R3 at its
 * end 500, R4 300..800, R6 350. inference-perf's failures, R4 and R6,
 * keep their latencies to the failure: 700 and 100. */
static void status_groups(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_GUIDELLM, LLMLAT_MODE_EXACT);
    add_trace(a);
    group_view inc = agg_group_view(a, GROUP_INCOMPLETE), err = agg_group_view(a, GROUP_ERRORED);
    assert_int_equal(inc.count, 1);
    assert_int_equal(err.count, 2);
    assert_int_equal(err.input_tokens, 12);
    assert_int_equal(err.output_tokens, 2);
    assert_int_equal(inc.output_tokens, 3);
    assert_true(err.tokens.lo == 300 * MS && err.tokens.hi == 800 * MS);
    assert_true(inc.tokens.lo == 350 * MS && inc.tokens.hi == 350 * MS);
    const enum req_group E = GROUP_ERRORED, I = GROUP_INCOMPLETE;
    assert_close(group_stat(a, E, LLMLAT_TTFT, LLMLAT_STAT_COUNT), 2, 0);
    assert_close(group_stat(a, E, LLMLAT_TTFT, LLMLAT_STAT_MEAN), MSF(50), TOL_S);
    assert_close(group_stat(a, E, LLMLAT_E2E, LLMLAT_STAT_MEAN), MSF(175), TOL_S);
    assert_close(group_stat(a, E, LLMLAT_E2E, LLMLAT_STAT_MIN), 0, 0);
    assert_close(group_stat(a, E, LLMLAT_TPOT, LLMLAT_STAT_COUNT), 1, 0);
    assert_close(group_stat(a, E, LLMLAT_TPOT, LLMLAT_STAT_MEAN), MSF(500), TOL_S);
    assert_close(group_stat(a, E, LLMLAT_NTPOT, LLMLAT_STAT_COUNT), 2, 0);
    assert_close(group_stat(a, E, LLMLAT_NTPOT, LLMLAT_STAT_MEAN), MSF(300), TOL_S);
    assert_close(group_stat(a, I, LLMLAT_TTFT, LLMLAT_STAT_MEAN), MSF(50), TOL_S);
    assert_close(group_stat(a, I, LLMLAT_E2E, LLMLAT_STAT_MAX), 0, 0);
    assert_close(group_stat(a, I, LLMLAT_TPOT, LLMLAT_STAT_COUNT), 2, 0);
    assert_close(group_stat(a, I, LLMLAT_TPOT, LLMLAT_STAT_MEAN), 0, 0);
    assert_close(group_stat(a, I, LLMLAT_NTPOT, LLMLAT_STAT_COUNT), 3, 0);
    assert_close(group_stat(a, I, LLMLAT_NTPOT, LLMLAT_STAT_MEAN), MSF(50.0 / 3), TOL_S);
    /* the inverse CDF of the successes' TTFT 200, 300, 350: p90 is 350,
     * where numpy would interpolate 340 */
    assert_close(quantile_of(a, LLMLAT_TTFT, 0.9), MSF(350), 0);
    llmlat_agg_free(a);

    a = llmlat_agg_new(LLMLAT_CONV_INFERENCE_PERF, LLMLAT_MODE_EXACT);
    add_trace(a);
    assert_close(group_stat(a, E, LLMLAT_E2E, LLMLAT_STAT_MEAN), MSF(700), TOL_S);
    assert_close(group_stat(a, I, LLMLAT_E2E, LLMLAT_STAT_MEAN), MSF(100), TOL_S);
    /* its ITL: 0, 0, 20, 20, 100; numpy's p90 of them is 68 */
    assert_close(quantile_of(a, LLMLAT_ITL, 0.9), MSF(68), TOL_S);
    llmlat_agg_free(a);

    /* the other conventions keep no status groups */
    a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    add_trace(a);
    assert_int_equal(agg_group_view(a, GROUP_ERRORED).count, 0);
    assert_int_equal(agg_group_view(a, GROUP_INCOMPLETE).count, 0);
    llmlat_agg_free(a);
}

/* N as DESIGN section 9 says since 7 December: a GuideLLM errored
 * request's is its content chunks, whatever usage count it carries (a
 * cancelled one keeps its usage count); inference-perf's is the client's
 * sum of k, unless the events do not carry their tokens. */
static void output_tokens_by_convention(void **state)
{
    (void)state;
    llmlat_agg *g = llmlat_agg_new(LLMLAT_CONV_GUIDELLM, LLMLAT_MODE_EXACT);
    llmlat_agg *ip = llmlat_agg_new(LLMLAT_CONV_INFERENCE_PERF, LLMLAT_MODE_EXACT);
    for (int how = ENDS_FINISHED; how <= ENDS_CANCELLED; how++) {
        llmlat_request *r =
            make_request(0, EVS({ 10 * MS, 2 }, { 20 * MS, 0 }, { 30 * MS, 3 }), ENDS_NOT, 0);
        assert_int_equal(llmlat_request_set_output_tokens(r, 9), LLMLAT_OK);
        if (how == ENDS_FINISHED)
            assert_int_equal(llmlat_request_finish(r, 40 * MS), LLMLAT_OK);
        else if (how == ENDS_FAILED)
            assert_int_equal(llmlat_request_fail(r, 40 * MS), LLMLAT_OK);
        else
            assert_int_equal(llmlat_request_cancel(r, 40 * MS), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(g, r), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(ip, r), LLMLAT_OK);
        llmlat_request_free(r);
    }
    uint64_t n;
    assert_int_equal(llmlat_agg_counter(g, LLMLAT_COUNT_OUTPUT_TOKENS, &n), LLMLAT_OK);
    assert_int_equal(n, 9);
    assert_int_equal(agg_group_view(g, GROUP_ERRORED).output_tokens, 2);
    assert_int_equal(agg_group_view(g, GROUP_INCOMPLETE).output_tokens, 9);
    assert_int_equal(llmlat_agg_counter(ip, LLMLAT_COUNT_OUTPUT_TOKENS, &n), LLMLAT_OK);
    assert_int_equal(n, 5);
    llmlat_agg_free(g);
    llmlat_agg_free(ip);
    /* tokens per chunk unknown (a file's totals): the usage count */
    llmlat_request *r = make_request(0, EVS({ 10 * MS, 1 }, { 30 * MS, 1 }), ENDS_NOT, 0);
    assert_int_equal(llmlat_request_set_lacks(r, LLMLAT_LACKS_CHUNK_TOKENS), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_output_tokens(r, 5), LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 40 * MS), LLMLAT_OK);
    assert_close(value_of(r, LLMLAT_CONV_INFERENCE_PERF, LLMLAT_TPOT), 0.020 / 4, TOL_S);
    llmlat_request_free(r);
}

/* The per-user speeds, where they differ in kind (AIPerf: 1 / TPOT). */
static void per_user_speed(void **state)
{
    (void)state;
    llmlat_agg *def = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *aip = llmlat_agg_new(LLMLAT_CONV_AIPERF, LLMLAT_MODE_EXACT);
    add_trace(def);
    add_trace(aip);
    /* default: R1 4/0.24, R2 1/0.3, R5 3/0.45 */
    assert_close(stat_of(def, LLMLAT_TPS_USER, LLMLAT_STAT_MEAN),
                 (4 / 0.24 + 1 / 0.3 + 3 / 0.45) / 3, 1e-9);
    /* AIPerf: R1 1/(0.04/3) = 75, R5 1/0.05 = 20 */
    assert_close(stat_of(aip, LLMLAT_TPS_USER, LLMLAT_STAT_MEAN), (75 + 20) / 2.0, 1e-9);
    llmlat_agg_free(def);
    llmlat_agg_free(aip);
}

/* Standard deviation: ddof 0 everywhere but LLMLAT_CONV_LLMPERF (pandas,
 * ddof 1). TTFT 200, 300, 0, 350 ms: mean 212.5, squared deviations sum
 * to 71875 ms^2. */
static void std_ddof(void **state)
{
    (void)state;
    llmlat_agg *sg = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_EXACT);
    llmlat_agg *lp = llmlat_agg_new(LLMLAT_CONV_LLMPERF, LLMLAT_MODE_EXACT);
    add_trace(sg);
    add_trace(lp);
    assert_close(stat_of(sg, LLMLAT_TTFT, LLMLAT_STAT_STD), MSF(sqrt(71875 / 4.0)), TOL_S);
    assert_close(stat_of(lp, LLMLAT_TTFT, LLMLAT_STAT_STD), MSF(sqrt(71875 / 3.0)), TOL_S);
    llmlat_agg_free(sg);
    llmlat_agg_free(lp);
}

/* An empty set: undefined (NaN) by default, AIPerf, LLMPerf and
 * inference-perf; 0.0 under vLLM and SGLang, as `np.mean(x or 0)` prints,
 * and under GuideLLM, whose empty summary is all zeros. */
static void empty_set_placeholders(void **state)
{
    (void)state;
    static const struct {
        int32_t conv;
        int32_t status;
    } cases[] = {
        { LLMLAT_CONV_DEFAULT, LLMLAT_EUNDEFINED }, { LLMLAT_CONV_VLLM, LLMLAT_OK },
        { LLMLAT_CONV_AIPERF, LLMLAT_EUNDEFINED },  { LLMLAT_CONV_SGLANG, LLMLAT_OK },
        { LLMLAT_CONV_LLMPERF, LLMLAT_EUNDEFINED }, { LLMLAT_CONV_GUIDELLM, LLMLAT_OK },
        { LLMLAT_CONV_INFERENCE_PERF, LLMLAT_EUNDEFINED },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        llmlat_agg *a = llmlat_agg_new(cases[i].conv, LLMLAT_MODE_EXACT);
        for (int32_t s = LLMLAT_STAT_MEAN; s <= LLMLAT_STAT_MEDIAN; s++) {
            double v = 42;
            assert_int_equal(llmlat_agg_stat(a, LLMLAT_TTFT, s, &v), cases[i].status);
            assert_true(cases[i].status == LLMLAT_OK ? v == 0.0 : isnan(v));
        }
        double v = 42;
        assert_int_equal(llmlat_agg_quantile(a, LLMLAT_ITL, 0.99, &v), cases[i].status);
        assert_true(cases[i].status == LLMLAT_OK ? v == 0.0 : isnan(v));
        assert_int_equal(llmlat_agg_rate(a, LLMLAT_RATE_PEAK_OUTPUT_TOKENS, &v), cases[i].status);
        /* COUNT is always defined */
        assert_close(stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_COUNT), 0, 0);
        /* no data, no duration: rates are undefined in every convention */
        assert_int_equal(llmlat_agg_rate(a, LLMLAT_RATE_REQUESTS, &v), LLMLAT_EUNDEFINED);
        llmlat_agg_free(a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_convention), cmocka_unit_test(vllm_convention),
        cmocka_unit_test(aiperf_convention),  cmocka_unit_test(sglang_convention),
        cmocka_unit_test(llmperf_convention), cmocka_unit_test(guidellm_convention),
        cmocka_unit_test(inference_perf_convention), cmocka_unit_test(status_groups),
        cmocka_unit_test(per_user_speed),
        cmocka_unit_test(output_tokens_by_convention),
        cmocka_unit_test(std_ddof),           cmocka_unit_test(empty_set_placeholders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
