/* LLMPerf's <model>_<in>_<out>_individual_responses.json: the list
 * token_benchmark_ray.py writes (json.dump(individual_responses)), one
 * object of src/llmperf/common_metrics.py's keys per request: ttft_s,
 * end_to_end_latency_s, inter_token_latency_s (its own per-request
 * figure), number_input_tokens, number_output_tokens, error_code, ... No
 * start time and no chunk time: each request is known by these values
 * only (llmlat_request_set_known), its request_output_throughput_token_per_s
 * too: from 1eac866 (December 2023) until afd137a (April 2024) LLMPerf
 * wrote the client's tokens_received (its data chunks, empty ones
 * included) / E2E there (src/llmperf/ray_clients/
 * openai_chat_completions_client.py: output_throughput), N / E2E since
 * (token_benchmark_ray.py), under the same "version": "2023-08-31". */
#include <string.h>

#include "read/decimal.h"
#include "read/import.h"

enum { L_LIST = 1, L_REQUEST };

enum {
    LH_ERROR = 1 << 0,
    LH_TTFT = 1 << 1,
    LH_E2E = 1 << 2,
    LH_ITL = 1 << 3,
    LH_OUTPUT = 1 << 4,
    LH_INPUT = 1 << 5,
    LH_TPS = 1 << 6,
};

static int l_done(bool ok)
{
    return ok ? RD_STEP_ON : RD_STEP_FAILED;
}

static int l_member(llmlat_reader *rd, const char *key)
{
    import_state *s = &rd->p.f.imp;
    rd_req *q = &rd->p.cur;
    jtok *t = &rd->jt;
    bool ok;
    if (jt_take_null(t, &ok)) /* LLMPerf's "no value" (error_code: no error) */
        return l_done(ok);
    if (strcmp(key, "error_code") == 0) {
        s->have |= LH_ERROR;
        return l_done(jt_skip_value(t));
    }
    if (strcmp(key, "ttft_s") == 0) {
        s->have |= LH_TTFT;
        return l_done(import_duration_ns(rd, "\"ttft_s\"", DEC_SECONDS, &q->known_ttft_ns));
    }
    if (strcmp(key, "end_to_end_latency_s") == 0) {
        s->have |= LH_E2E;
        return l_done(
            import_duration_ns(rd, "\"end_to_end_latency_s\"", DEC_SECONDS, &q->known_e2e_ns));
    }
    if (strcmp(key, "inter_token_latency_s") == 0) {
        s->have |= LH_ITL;
        if (!rd_double(rd, "\"inter_token_latency_s\"", &q->known_tool_itl_s))
            return RD_STEP_FAILED;
        if (q->known_tool_itl_s < 0.0)
            return jt_fail(t, "\"inter_token_latency_s\" must not be negative"), RD_STEP_FAILED;
        return RD_STEP_ON;
    }
    if (strcmp(key, "request_output_throughput_token_per_s") == 0) {
        s->have |= LH_TPS;
        if (!rd_double(rd, "\"request_output_throughput_token_per_s\"", &q->known_tps))
            return RD_STEP_FAILED;
        if (q->known_tps < 0.0)
            return jt_fail(t, "\"request_output_throughput_token_per_s\" must not be negative"),
                   RD_STEP_FAILED;
        return RD_STEP_ON;
    }
    if (strcmp(key, "number_output_tokens") == 0) {
        s->have |= LH_OUTPUT;
        q->has_output_tokens = true;
        return l_done(rd_count(rd, "\"number_output_tokens\"", UINT64_MAX, &q->output_tokens));
    }
    if (strcmp(key, "number_input_tokens") == 0) {
        s->have |= LH_INPUT;
        return l_done(rd_count(rd, "\"number_input_tokens\"", UINT64_MAX, &q->input_tokens));
    }
    return l_done(jt_skip_value(t));
}

static int l_value(llmlat_reader *rd, uint16_t tag, const char *key, uint64_t index)
{
    (void)index;
    jtok *t = &rd->jt;
    switch (tag) {
    case IMPORT_TOP:
        return l_done(walk_enter(rd, false, L_LIST, "LLMPerf's list of responses"));
    case L_LIST:
        jt_peek(t);
        rd_begin_request(rd, t->tok_line, t->tok_col);
        rd->p.f.imp.have = 0;
        return l_done(walk_enter(rd, true, L_REQUEST, "a response"));
    case L_REQUEST:
        return l_member(rd, key);
    }
    return l_done(jt_skip_value(t));
}

/* A response read: a request known by its values, with no start time (so
 * each starts at 0). */
static int l_close(llmlat_reader *rd, uint16_t tag)
{
    if (tag != L_REQUEST)
        return RD_STEP_ON;
    import_state *s = &rd->p.f.imp;
    rd_req *q = &rd->p.cur;
    q->ok = !(s->have & LH_ERROR);
    q->start = 0;
    q->lacks = LLMLAT_LACKS_START_TIMES | LLMLAT_LACKS_SCHEDULE;
    if (!(s->have & LH_OUTPUT))
        q->lacks |= LLMLAT_LACKS_OUTPUT_TOKENS;
    if (!(s->have & LH_INPUT))
        q->lacks |= LLMLAT_LACKS_INPUT_TOKENS;
    if (!q->ok) {
        /* its ttft_s and end_to_end_latency_s are LLMPerf's placeholders
         * (0): no time of it is known, not even its end */
        q->lacks |= LLMLAT_LACKS_END;
        return RD_STEP_REQUEST;
    }
    /* a success has both times (common_metrics.py: TTFT, E2E_LAT) */
    const char *missing = !(s->have & LH_TTFT) ? "ttft_s"
                          : !(s->have & LH_E2E) ? "end_to_end_latency_s"
                                                : NULL;
    if (missing) {
        jt_fail_at(&rd->jt, q->line, q->col, "response %llu has no \"%s\"",
                   (unsigned long long)q->index, missing);
        return RD_STEP_FAILED;
    }
    q->known_conv = LLMLAT_CONV_LLMPERF;
    q->has_known_ttft = s->have & LH_TTFT;
    q->has_known_e2e = s->have & LH_E2E;
    q->has_known_tool_itl = s->have & LH_ITL;
    q->has_known_tps = s->have & LH_TPS;
    q->has_end = q->has_known_e2e;
    q->end = q->known_e2e_ns;
    return RD_STEP_REQUEST;
}

static int l_end(llmlat_reader *rd)
{
    (void)rd;
    return RD_STEP_END;
}

static const import_ops LLMPERF_OPS = {
    LLMLAT_INPUT_LLMPERF, "LLMPerf's individual responses (*_individual_responses.json)", false,
    l_value, l_close, l_end,
};

LLMLAT_PRIVATE const import_ops *import_llmperf_ops(void)
{
    return &LLMPERF_OPS;
}
