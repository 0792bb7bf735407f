/* Conventions: the table of knobs, and what one request contributes. */
#include <math.h>

#include "record/convention.h"
#include "record/gaps.h"
#include "record/lacks.h"

static const conv_rules RULES[] = {
    {
        .id = LLMLAT_CONV_DEFAULT, .name = "default",
        .success = SUCCESS_FINISHED, .empty = EMPTY_UNDEFINED, .ddof = 0,
        .tool_itl = TOOL_ITL_IS_ITL,
    },
    {
        /* vllm/benchmarks/serve.py::calculate_metrics */
        .id = LLMLAT_CONV_VLLM, .name = "vllm",
        .empty_events_count = true, .peak_counts_events = true,
        .success = SUCCESS_ANY_EVENT, .empty = EMPTY_ZERO, .ddof = 0,
        .tool_itl = TOOL_ITL_IS_ICL,
    },
    {
        /* aiperf/metrics/types/ (*.py), metric_dicts.py */
        .id = LLMLAT_CONV_AIPERF, .name = "aiperf",
        .zero_is_missing = true, .tpot_missing_fails_slo = true,
        .tps_is_inverse_tpot = true, .duration_over_valid = true,
        .success = SUCCESS_VALID_TOKEN, .empty = EMPTY_UNDEFINED, .ddof = 0,
        .tool_itl = TOOL_ITL_IS_TPOT,
    },
    {
        /* python/sglang/bench_serving.py */
        .id = LLMLAT_CONV_SGLANG, .name = "sglang",
        .e2e_at_finish = true, .no_content_ttft_zero = true,
        .success = SUCCESS_FINISHED, .empty = EMPTY_ZERO, .ddof = 0,
        .tool_itl = TOOL_ITL_IS_ICL,
    },
    {
        /* token_benchmark_ray.py, openai_chat_completions_client.py */
        .id = LLMLAT_CONV_LLMPERF, .name = "llmperf",
        .e2e_at_finish = true, .no_content_ttft_zero = true,
        .success = SUCCESS_FINISHED, .empty = EMPTY_UNDEFINED, .ddof = 1,
        .tool_itl = TOOL_ITL_LLMPERF,
    },
};

LLMLAT_PRIVATE const conv_rules *conv_get(int32_t convention)
{
    if (convention < 0 || (size_t)convention >= sizeof RULES / sizeof RULES[0])
        return NULL;
    return &RULES[convention];
}

LLMLAT_API const char *llmlat_convention_name(int32_t convention)
{
    const conv_rules *c = conv_get(convention);
    return c ? c->name : NULL;
}

static bool is_success(const conv_rules *c, const llmlat_request *r, const req_summary *s)
{
    if (r->state != REQ_FINISHED)
        return false;
    switch (c->success) {
    case SUCCESS_FINISHED:
        return true;
    case SUCCESS_ANY_EVENT:
        return r->n > 0;
    case SUCCESS_VALID_TOKEN:
        return s->first_tok != REQ_NONE && r->t[s->last_tok] > r->start_ns;
    }
    return false;
}

/* A request with per-request values only (llmlat_request_set_known): its
 * TTFT and E2E are the source tool's, used where they mean what c means
 * by them (record/lacks.c); it has no event, so no gap. */
static void view_known(const conv_rules *c, const llmlat_request *r, req_view *v)
{
    const conv_rules *source = conv_get(r->known_conv);
    v->success = r->state == REQ_FINISHED;
    /* A tool that gives TTFT 0 to a request without content (LLMPerf)
     * says that it had none. */
    bool no_content = source->no_content_ttft_zero && r->known_ttft_ns == 0;
    if (r->has_known_ttft && lacks_same_measure(source, c, LLMLAT_TTFT) &&
        (!no_content || c->no_content_ttft_zero)) {
        v->has_ttft = true;
        v->ttft_ns = r->known_ttft_ns;
    }
    if (r->has_known_e2e && req_ended(r) && lacks_same_measure(source, c, LLMLAT_E2E)) {
        v->has_e2e = true;
        v->e2e_ns = r->known_e2e_ns;
    }
    if (r->has_known_tool_itl && c->tool_itl == TOOL_ITL_LLMPERF && source == c) {
        v->has_tool_itl = true;
        v->tool_itl_s = r->known_tool_itl_s;
    }
}

/* TTFT and E2E from the events, by the convention's anchors. */
static void view_events(const conv_rules *c, const llmlat_request *r, const req_summary *s,
                        req_view *v)
{
    bool ended = req_ended(r);
    v->success = is_success(c, r, s);
    if (c->empty_events_count) {
        if (r->n) {
            v->anchor = 0;
            v->last = r->n - 1;
        }
    } else {
        v->anchor = s->first_tok;
        v->last = s->last_tok;
    }

    if (v->anchor != REQ_NONE) {
        v->has_ttft = true;
        v->ttft_ns = r->t[v->anchor] - r->start_ns;
    } else if (c->no_content_ttft_zero) {
        v->has_ttft = true;
        v->ttft_ns = 0;
    }

    if (c->e2e_at_finish) {
        /* the finish of a request whose end of stream is unknown is only
         * its last event */
        if (ended && !(r->lacks & LLMLAT_LACKS_END)) {
            v->has_e2e = true;
            v->e2e_ns = r->end_ns - r->start_ns;
        }
    } else if (ended && v->anchor != REQ_NONE) {
        v->has_e2e = true;
        v->e2e_ns = r->t[v->last] - r->start_ns;
    }

    /* LLMPerf: sum of its time_to_next_token list (= last non-empty event
     * - start) over the chunks received, empty ones included; 0 without
     * content. */
    if (c->tool_itl == TOOL_ITL_LLMPERF && ended) {
        v->has_tool_itl = true;
        v->tool_itl_s = s->first_tok == REQ_NONE
                            ? 0.0
                            : (double)(r->t[s->last_tok] - r->start_ns) / 1e9 / (double)r->n;
    }

    v->icl_dropped = c->zero_is_missing && gap_any_zero(c, r, v);
}

LLMLAT_PRIVATE void conv_view(const conv_rules *c, const llmlat_request *r, req_view *v)
{
    req_summary scratch;
    const req_summary *s = req_summary_of(r, &scratch);
    *v = (req_view){ .anchor = REQ_NONE, .last = REQ_NONE };
    v->n_out = req_output_tokens(r, s);
    if (req_values_only(r))
        view_known(c, r, v);
    else
        view_events(c, r, s, v);

    /* TPOT = (E2E - TTFT) / (N - 1), N > 1. AIPerf reads a TTFT of 0 as
     * missing, which leaves no TPOT. */
    if (v->has_ttft && v->has_e2e && v->n_out > 1 &&
        !(c->zero_is_missing && v->ttft_ns == 0)) {
        v->has_tpot = true;
        v->tpot_s = (double)(v->e2e_ns - v->ttft_ns) / 1e9 / (double)(v->n_out - 1);
    }

    if (c->tps_is_inverse_tpot) {
        if (v->has_tpot && v->tpot_s != 0.0) {
            v->has_tps = true;
            v->tps = 1.0 / v->tpot_s;
        }
    } else if (v->has_e2e && v->e2e_ns > 0) {
        v->has_tps = true;
        v->tps = (double)v->n_out / ((double)v->e2e_ns / 1e9);
    }
}
