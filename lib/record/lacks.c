/* What data lacking something cannot support (record/lacks.h). Each
 * metric, rate and counter names what it needs; a need the data lacks is
 * the reason it is not available. */
#include <stddef.h>

#include "record/lacks.h"

#define LR_START "the source has no start times on one clock"
#define LR_DURATION "the source has no start times on one clock, and no benchmark duration " \
                    "was given"
#define LR_END "the source has no end-of-stream times, where this convention's E2E ends"
#define LR_CHUNK_TOKENS "the source has no token counts per chunk, only totals"
#define LR_CHUNKS "the source has per-request values only, no chunk times"
#define LR_OUTPUT "the source has no output token counts"
#define LR_INPUT "the source has no input token counts"
#define LR_TTFT "the source measured TTFT to another chunk than this convention does"
#define LR_E2E "the source measured E2E to another end than this convention does"
#define LR_TOOL_ITL "the source has another tool's per-request ITL figure"
#define LR_GAPS "the source has the first and last chunk times only, not the gaps between them"
/* LLMLAT_LACKS_SCHEDULE: the reason of the metrics measured from the
 * intended start (dispatch delay, scheduled TTFT and E2E) */
#define LR_SCHEDULE "the source has no intended start times"

LLMLAT_PRIVATE bool lacks_same_measure(const conv_rules *source, const conv_rules *c,
                                       int32_t metric)
{
    bool same_anchor = source->empty_events_count == c->empty_events_count;
    if (metric == LLMLAT_TTFT)
        return same_anchor;
    bool source_at_end = source->e2e != E2E_LAST_TOKEN, at_end = c->e2e != E2E_LAST_TOKEN;
    return source_at_end == at_end && (at_end || same_anchor);
}

static bool lr_has(const lacks_ctx *x, uint32_t bit)
{
    return (x->lacks & bit) != 0;
}

/* Every source of known values measures the metric as c does. */
static bool lr_sources_agree(const lacks_ctx *x, int32_t metric)
{
    for (int32_t id = 0; id < 32; id++) {
        const conv_rules *s = (x->sources >> id) & 1u ? conv_get(id) : NULL;
        if (s && !lacks_same_measure(s, x->c, metric))
            return false;
    }
    return true;
}

static const char *lr_metric(const lacks_ctx *x, int32_t metric);

static const char *lr_ttft(const lacks_ctx *x)
{
    return lr_has(x, LLMLAT_LACKS_CHUNKS) && !lr_sources_agree(x, LLMLAT_TTFT) ? LR_TTFT : NULL;
}

static const char *lr_e2e(const lacks_ctx *x)
{
    if (lr_has(x, LLMLAT_LACKS_END) && x->c->e2e != E2E_LAST_TOKEN)
        return LR_END;
    if (lr_has(x, LLMLAT_LACKS_CHUNKS) && !lr_sources_agree(x, LLMLAT_E2E))
        return LR_E2E;
    return NULL;
}

/* (E2E - TTFT) / (N - 1), or first to last token over N - 1 (GuideLLM,
 * inference-perf: the chunks' times) */
static const char *lr_tpot(const lacks_ctx *x)
{
    if (lr_has(x, LLMLAT_LACKS_OUTPUT_TOKENS))
        return LR_OUTPUT;
    if (x->c->tpot_to_last_token)
        return lr_has(x, LLMLAT_LACKS_CHUNKS) ? LR_CHUNKS : NULL;
    const char *why = lr_ttft(x);
    return why ? why : lr_e2e(x);
}

/* latency / N: the latency is E2E, or up to the last token (GuideLLM) */
static const char *lr_ntpot(const lacks_ctx *x)
{
    if (lr_has(x, LLMLAT_LACKS_OUTPUT_TOKENS))
        return LR_OUTPUT;
    if (x->c->ntpot == NTPOT_LAST_TOKEN)
        return lr_has(x, LLMLAT_LACKS_CHUNKS) ? LR_CHUNKS : NULL;
    return lr_e2e(x);
}

/* Every request known by its values only was read from AIPerf's records
 * and is read under AIPerf's convention: such a record had no
 * inter_chunk_latency of its own (AIPerf refuses the metric for a record
 * with a gap that is not positive, as zero_is_missing does), so it adds
 * none to AIPerf's pooled ICL, which the other records' gaps make up. */
static bool lr_icl_of_its_own(const lacks_ctx *x)
{
    return x->c->zero_is_missing && x->sources == 1u << x->c->id;
}

/* The samples of every gap between chunks: ITL, ICL, ITL_MAX. */
static const char *lr_gaps(const lacks_ctx *x, int32_t metric)
{
    if (lr_has(x, LLMLAT_LACKS_CHUNKS) && !(metric == LLMLAT_ICL && lr_icl_of_its_own(x)))
        return LR_CHUNKS;
    if (lr_has(x, LLMLAT_LACKS_GAPS))
        return LR_GAPS;
    if (metric == LLMLAT_ITL && lr_has(x, LLMLAT_LACKS_CHUNK_TOKENS))
        return LR_CHUNK_TOKENS;
    return NULL;
}

static const char *lr_tool_itl(const lacks_ctx *x)
{
    switch (x->c->tool_itl) {
    case TOOL_ITL_IS_ITL: return lr_metric(x, LLMLAT_ITL);
    case TOOL_ITL_IS_ICL: return lr_metric(x, LLMLAT_ICL);
    case TOOL_ITL_IS_TPOT: return lr_metric(x, LLMLAT_TPOT);
    case TOOL_ITL_LLMPERF:
        if (lr_has(x, LLMLAT_LACKS_CHUNKS) && x->sources != (1u << x->c->id))
            return LR_TOOL_ITL;
        return NULL;
    }
    return NULL;
}

static const char *lr_scheduled(const lacks_ctx *x, int32_t metric)
{
    if (lr_has(x, LLMLAT_LACKS_SCHEDULE))
        return LR_SCHEDULE;
    if (metric == LLMLAT_SCHEDULED_TTFT)
        return lr_ttft(x);
    return metric == LLMLAT_SCHEDULED_E2E ? lr_e2e(x) : NULL;
}

static const char *lr_metric(const lacks_ctx *x, int32_t metric)
{
    switch (metric) {
    case LLMLAT_TTFT: return lr_ttft(x);
    case LLMLAT_E2E: return lr_e2e(x);
    case LLMLAT_TPOT: return lr_tpot(x);
    case LLMLAT_NTPOT: return lr_ntpot(x);
    case LLMLAT_ITL:
    case LLMLAT_ICL:
    case LLMLAT_ITL_MAX: return lr_gaps(x, metric);
    case LLMLAT_TPS_USER:
        if (x->c->tps_is_inverse_tpot)
            return lr_tpot(x);
        if (lr_has(x, LLMLAT_LACKS_OUTPUT_TOKENS))
            return LR_OUTPUT;
        return lr_e2e(x);
    case LLMLAT_OUTPUT_TOKENS: return lr_has(x, LLMLAT_LACKS_OUTPUT_TOKENS) ? LR_OUTPUT : NULL;
    case LLMLAT_INPUT_TOKENS: return lr_has(x, LLMLAT_LACKS_INPUT_TOKENS) ? LR_INPUT : NULL;
    case LLMLAT_TOOL_ITL: return lr_tool_itl(x);
    /* measured from the intended start: the dispatch delay needs only it
     * and the request's own start */
    case LLMLAT_DISPATCH_DELAY:
    case LLMLAT_SCHEDULED_TTFT:
    case LLMLAT_SCHEDULED_E2E: return lr_scheduled(x, metric);
    }
    return NULL;
}

/* Goodput and the good count need each metric an SLO is set on. */
static const char *lr_slos(const lacks_ctx *x)
{
    static const int32_t SLO_METRICS[3] = { LLMLAT_TTFT, LLMLAT_TPOT, LLMLAT_E2E };
    for (int i = 0; i < 3; i++) {
        const char *why = x->slo[i] ? lr_metric(x, SLO_METRICS[i]) : NULL;
        if (why)
            return why;
    }
    return NULL;
}

/* The duration of the rates, unless the host gave it. */
static const char *lr_duration(const lacks_ctx *x)
{
    return !x->host_duration && lr_has(x, LLMLAT_LACKS_START_TIMES) ? LR_DURATION : NULL;
}

static const char *lr_rate(const lacks_ctx *x, int32_t rate)
{
    const char *why = rate == LLMLAT_RATE_PEAK_OUTPUT_TOKENS ? NULL : lr_duration(x);
    if (why)
        return why;
    switch (rate) {
    case LLMLAT_RATE_OUTPUT_TOKENS: return lr_metric(x, LLMLAT_OUTPUT_TOKENS);
    case LLMLAT_RATE_TOTAL_TOKENS:
        why = lr_metric(x, LLMLAT_OUTPUT_TOKENS);
        return why ? why : lr_metric(x, LLMLAT_INPUT_TOKENS);
    case LLMLAT_RATE_GOODPUT: return lr_slos(x);
    case LLMLAT_RATE_PEAK_OUTPUT_TOKENS:
        if (lr_has(x, LLMLAT_LACKS_START_TIMES))
            return LR_START;
        if (lr_has(x, LLMLAT_LACKS_CHUNKS))
            return LR_CHUNKS;
        if (lr_has(x, LLMLAT_LACKS_GAPS))
            return LR_GAPS;
        if (!x->c->peak_counts_events && lr_has(x, LLMLAT_LACKS_CHUNK_TOKENS))
            return LR_CHUNK_TOKENS;
        return NULL;
    }
    return NULL;
}

static const char *lr_counter(const lacks_ctx *x, int32_t counter)
{
    switch (counter) {
    case LLMLAT_COUNT_TPOT_UNDEFINED: return lr_tpot(x);
    case LLMLAT_COUNT_GOOD: return lr_slos(x);
    case LLMLAT_COUNT_INPUT_TOKENS: return lr_metric(x, LLMLAT_INPUT_TOKENS);
    case LLMLAT_COUNT_OUTPUT_TOKENS: return lr_metric(x, LLMLAT_OUTPUT_TOKENS);
    case LLMLAT_COUNT_PEAK_CONCURRENCY:
        return lr_has(x, LLMLAT_LACKS_START_TIMES) ? LR_START : lr_e2e(x);
    }
    return NULL;
}

LLMLAT_PRIVATE const char *lacks_reason(const lacks_ctx *x, int32_t kind, int32_t id)
{
    if (x->lacks == 0)
        return NULL;
    switch (kind) {
    case LLMLAT_KIND_METRIC: return lr_metric(x, id);
    case LLMLAT_KIND_RATE: return lr_rate(x, id);
    case LLMLAT_KIND_COUNTER: return lr_counter(x, id);
    }
    return NULL;
}
