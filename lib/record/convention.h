/* The seven conventions as data: each knob of docs/metrics.md's table is a
 * field, and one shared mechanism (conv_view, and the gap walk of gaps.h)
 * reads them; the words a tool calls each figure by are the row's too,
 * read by the reports. A new convention is a new row, not new code paths.
 * The rows, one per tool: record/convention_table.c. */
#ifndef LLMLAT_CONVENTION_H
#define LLMLAT_CONVENTION_H

#include <stdbool.h>
#include <stdint.h>

#include "record/request.h"

enum success_rule {
    SUCCESS_FINISHED,    /* finished, not failed (default, SGLang, LLMPerf, inference-perf) */
    SUCCESS_ANY_EVENT,   /* and at least one event of any k (vLLM) */
    SUCCESS_VALID_TOKEN, /* and a non-empty event, ending after the start (AIPerf) */
    SUCCESS_OUTPUT,      /* and a non-empty event or a usage count above 0 (GuideLLM) */
};

/* Where E2E (the request latency) ends. */
enum e2e_rule {
    E2E_LAST_TOKEN, /* the last counting event (default, vLLM, AIPerf) */
    E2E_END,        /* the end of the stream: finish, or fail time (SGLang, LLMPerf,
                       inference-perf) */
    E2E_FINISH,     /* the end of a stream that closed normally; none for a failure,
                       whose request_end GuideLLM never sets */
};

/* NTPOT, latency / N. */
enum ntpot_rule {
    NTPOT_E2E,           /* E2E / N, N > 0 */
    NTPOT_ZERO_NO_TOKENS, /* and 0.0 for N = 0 (inference-perf) */
    NTPOT_LAST_TOKEN,    /* (last non-empty event, else the end, - start) / N, N > 0
                            (GuideLLM's time_per_output_token) */
};

enum empty_rule {
    EMPTY_UNDEFINED, /* LLMLAT_EUNDEFINED, NaN (default, AIPerf, LLMPerf, inference-perf) */
    EMPTY_ZERO,      /* 0.0, as `np.mean(x or 0)` (vLLM, SGLang) or GuideLLM's empty summary */
};

enum tool_itl_rule {
    TOOL_ITL_IS_ITL,     /* default, inference-perf */
    TOOL_ITL_IS_ICL,     /* vLLM, SGLang */
    TOOL_ITL_IS_TPOT,    /* AIPerf, GuideLLM */
    TOOL_ITL_LLMPERF,    /* (last non-empty event - start) / events */
};

/* How a k-token chunk's gap becomes ITL samples (gaps.h). */
enum chunk_split {
    SPLIT_EVEN, /* k samples of g / k */
    SPLIT_COPY, /* every token has the chunk's time: one sample g, k - 1 of 0
                   (inference-perf) */
};

enum quantile_rule {
    QUANTILE_LINEAR,      /* numpy's default (Hyndman-Fan 7) */
    QUANTILE_INVERSE_CDF, /* the first value whose cumulative weight reaches q (GuideLLM) */
};

/* The lines of the summary block a report writes (its words: a row's
 * `words`, report/report_words.h). */
enum report_item {
    REPORT_ITEM_COMPLETED, REPORT_ITEM_FAILED, REPORT_ITEM_TPOT_UNDEFINED, REPORT_ITEM_DURATION,
    REPORT_ITEM_INPUT_TOKENS, REPORT_ITEM_OUTPUT_TOKENS, REPORT_ITEM_REQUEST_RATE, REPORT_ITEM_GOODPUT,
    REPORT_ITEM_GOOD, REPORT_ITEM_OUTPUT_RATE, REPORT_ITEM_TOTAL_RATE, REPORT_ITEM_PEAK_TOKENS,
    REPORT_ITEM_PEAK_CONCURRENCY, REPORT_ITEM_COUNT
};

typedef struct text_row {
    int32_t metric;
    const char *label;
} text_row;

/* The rows of the metrics from the intended start, shown when some
 * request had one. */
#define SCHED_ROWS 3

/* A tool's words: summary labels where it has its own (NULL: llmlat's,
 * report/report_words.c), the table rows in its order, the rows from the
 * intended start (DISPATCH_DELAY, SCHEDULED_TTFT, SCHEDULED_E2E; a NULL
 * label: llmlat's, for a figure the tool does not have), and what its ITL
 * is. Plain strings: the reports read them (report/report_words.h). */
typedef struct text_words {
    const char *tool;
    const char *items[REPORT_ITEM_COUNT];
    text_row rows[8];
    const char *sched[SCHED_ROWS];
    const char *note;
} text_words;

/* One convention, its fields grouped as the rows of convention_table.c
 * are written: anchors, success, N and spans, weights, names. */
typedef struct conv_rules {
    int32_t id;
    const char *name;

    /* anchors: the events TTFT and E2E end at, the spans of TPOT and NTPOT,
     * and what stands in for a missing value */
    bool empty_events_count;   /* k = 0 events anchor TTFT/E2E and make gaps */
    bool no_content_ttft_zero; /* a request without content has TTFT 0 */
    bool ttft_needs_two_tokens; /* TTFT (so TPOT) only with >= 2 tokens in events */
    enum e2e_rule e2e;
    bool tpot_to_last_token;   /* TPOT spans first to last counting event, whatever E2E */
    enum ntpot_rule ntpot;
    bool missing_is_zero;      /* a missing E2E or TPOT (N > 1) is 0.0, kept */
    bool zero_is_missing;      /* a 0 input leaves derived values missing */

    /* success: which requests succeed, how failures are kept and judged */
    enum success_rule success;
    bool status_groups;        /* failures kept by status: incomplete, errored */
    bool tpot_missing_fails_slo;

    /* N and spans: a request's token count, and what the run's rates
     * count over which span */
    bool n_client_count;       /* N = sum of k, the client's count, whatever the usage
                                  count (inference-perf), where the events carry their
                                  tokens (not LLMLAT_LACKS_CHUNK_TOKENS) */
    bool errored_n_chunks;     /* a failed request's N = its content chunks: its stream
                                  raised before the usage arrived (GuideLLM) */
    bool tps_is_inverse_tpot;
    bool duration_over_valid;  /* derived D spans successes' start..start+E2E */
    bool span_to_end;          /* derived D spans starts..ends (finish or fail) */
    bool token_rates_over_token_span; /* token rates over first..last token point */
    bool peak_counts_events;   /* peak output tokens/s counts chunks */

    /* weights: how a chunk's gap splits, what a sample weighs, and how
     * samples are summarised */
    enum chunk_split split;
    bool weighted;             /* TPOT samples weigh N - 1, NTPOT samples N */
    unsigned ddof;             /* of STD */
    enum quantile_rule quantile;
    enum empty_rule empty;     /* a statistic over no sample */

    /* names: what the tool's ITL is, and what it calls each figure */
    enum tool_itl_rule tool_itl;
    const text_words *words;
} conv_rules;

/* The rules of a convention id; NULL when unknown. */
LLMLAT_PRIVATE const conv_rules *conv_get(int32_t convention);
/* c where N is the server's usage count when a request has one
 * (LLMLAT_PARAM_SERVER_OUTPUT_TOKENS): c itself unless c counts the
 * client's tokens. */
LLMLAT_PRIVATE const conv_rules *conv_server_output_tokens(const conv_rules *c);

/* The metric LLMLAT_TOOL_ITL names under c: ITL, ICL or TPOT, or
 * TOOL_ITL itself where it has samples of its own (LLMPerf). */
static inline int32_t conv_tool_itl_metric(const conv_rules *c)
{
    switch (c->tool_itl) {
    case TOOL_ITL_IS_ITL: return LLMLAT_ITL;
    case TOOL_ITL_IS_ICL: return LLMLAT_ICL;
    case TOOL_ITL_IS_TPOT: return LLMLAT_TPOT;
    case TOOL_ITL_LLMPERF: break;
    }
    return LLMLAT_TOOL_ITL;
}

/* The status group of a request (GuideLLM's successful, incomplete,
 * errored); conventions without status_groups only count the others. */
enum req_group { GROUP_SUCCESSFUL, GROUP_INCOMPLETE, GROUP_ERRORED };
#define GROUP_COUNT 3

/* What one request contributes under a convention (all but the per-gap
 * samples, which gap_walk enumerates: record/gaps.h). Times in ns. */
typedef struct req_view {
    bool success;
    enum req_group group;
    bool has_ttft, has_e2e, has_tpot, has_tps, has_tool_itl, has_ntpot;
    /* From the intended start (a request with one: `scheduled`; the rest
     * is set, and may be read, only then): the dispatch delay, and TTFT
     * and E2E measured from it where they are measured (a placeholder is
     * not). */
    bool scheduled, has_sched_ttft, has_sched_e2e;
    int64_t delay_ns, sched_ttft_ns, sched_e2e_ns;
    int64_t ttft_ns;
    int64_t e2e_ns;
    double tpot_s;
    double ntpot_s;
    double tps;
    double tool_itl_s;   /* LLMPerf's own per-request ITL */
    uint64_t tpot_w, ntpot_w; /* the samples' weights: 1, or N - 1 and N */
    int64_t tpot_span_ns, ntpot_span_ns; /* their numerators (span / weight) */
    uint64_t n_out;
    /* The events between which gaps are measured: those with k >= 1, or
     * every event when the convention counts empty ones. */
    size_t anchor;       /* first such event, REQ_NONE when none */
    size_t last;         /* last such event */
    int64_t t_anchor, t_last; /* their times (a streaming recorder keeps no
                               * events: from its summary) */
    bool icl_dropped;    /* AIPerf: a zero gap drops the request's ICL */
    /* GuideLLM's token points (token_rates_over_token_span): the first and
     * last time its output token rate places this request's tokens at. */
    int64_t token_lo, token_hi;
} req_view;

/* Fills v for an ended (or, for llmlat_request_value, started) request. */
LLMLAT_PRIVATE void conv_view(const conv_rules *c, const llmlat_request *r, req_view *v);

#endif
