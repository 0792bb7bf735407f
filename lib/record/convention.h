/* The five conventions as data: each knob of docs/metrics.md's table is a
 * field, and one shared mechanism (conv_view, and the gap walk of gaps.h) reads them.
 * A new convention is a new row, not new code paths. */
#ifndef LLMLAT_CONVENTION_H
#define LLMLAT_CONVENTION_H

#include <stdbool.h>
#include <stdint.h>

#include "record/request.h"

enum success_rule {
    SUCCESS_FINISHED,    /* finished, not failed (default, SGLang, LLMPerf) */
    SUCCESS_ANY_EVENT,   /* and at least one event of any k (vLLM) */
    SUCCESS_VALID_TOKEN, /* and a non-empty event, ending after the start (AIPerf) */
};

enum empty_rule {
    EMPTY_UNDEFINED, /* LLMLAT_EUNDEFINED, NaN (default, AIPerf, LLMPerf) */
    EMPTY_ZERO,      /* 0.0, as `np.mean(x or 0)` (vLLM, SGLang) */
};

enum tool_itl_rule {
    TOOL_ITL_IS_ITL,     /* default */
    TOOL_ITL_IS_ICL,     /* vLLM, SGLang */
    TOOL_ITL_IS_TPOT,    /* AIPerf */
    TOOL_ITL_LLMPERF,    /* (last non-empty event - start) / events */
};

typedef struct conv_rules {
    int32_t id;
    const char *name;
    bool empty_events_count;   /* k = 0 events anchor TTFT/E2E and make gaps */
    bool e2e_at_finish;        /* E2E ends at finish, not at the last event */
    bool no_content_ttft_zero; /* a success without content has TTFT 0 */
    bool zero_is_missing;      /* a 0 input leaves derived values missing */
    bool tpot_missing_fails_slo;
    bool tps_is_inverse_tpot;
    bool peak_counts_events;   /* peak output tokens/s counts chunks */
    bool duration_over_valid;  /* derived D spans successes' start..start+E2E */
    enum success_rule success;
    enum empty_rule empty;
    unsigned ddof;
    enum tool_itl_rule tool_itl;
} conv_rules;

/* The rules of a convention id; NULL when unknown. */
LLMLAT_PRIVATE const conv_rules *conv_get(int32_t convention);

/* What one request contributes under a convention (all but the per-gap
 * samples, which gap_walk enumerates: record/gaps.h). Times in ns. */
typedef struct req_view {
    bool success;
    bool has_ttft, has_e2e, has_tpot, has_tps, has_tool_itl;
    int64_t ttft_ns;
    int64_t e2e_ns;
    double tpot_s;
    double tps;
    double tool_itl_s;   /* LLMPerf's own per-request ITL */
    uint64_t n_out;
    /* The events between which gaps are measured: those with k >= 1, or
     * every event when the convention counts empty ones. */
    size_t anchor;       /* first such event, REQ_NONE when none */
    size_t last;         /* last such event */
    bool icl_dropped;    /* AIPerf: a zero gap drops the request's ICL */
} req_view;

/* Fills v for an ended (or, for llmlat_request_value, started) request. */
LLMLAT_PRIVATE void conv_view(const conv_rules *c, const llmlat_request *r, req_view *v);

#endif
