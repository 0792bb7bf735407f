/* What one request contributes under a convention (its row:
 * record/convention_table.c). */
#include <math.h>

#include "record/convention.h"
#include "record/gaps.h"
#include "record/lacks.h"

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
        return s->first_tok != REQ_NONE && s->t_last_tok > r->start_ns;
    case SUCCESS_OUTPUT: /* GuideLLM refuses "an empty response payload" */
        return s->first_tok != REQ_NONE || req_output_tokens(r, s) > 0;
    }
    return false;
}

/* The convention's TTFT and E2E of a request with an intended start,
 * measured from it (set only where they are measured, before any
 * placeholder): the same span plus the dispatch delay. A span from the
 * intended start fits int64 for a recorded time (req_max_time); a known
 * value that would pass it leaves none. */
static bool view_from_schedule(const req_view *v, int64_t span_ns, int64_t *out)
{
    if (span_ns > INT64_MAX - v->delay_ns) /* both >= 0 */
        return false;
    *out = span_ns + v->delay_ns;
    return true;
}

static void view_sched_ttft(req_view *v, int64_t ttft_ns)
{
    if (v->scheduled)
        v->has_sched_ttft = view_from_schedule(v, ttft_ns, &v->sched_ttft_ns);
}

static void view_sched_e2e(req_view *v, int64_t e2e_ns)
{
    if (v->scheduled)
        v->has_sched_e2e = view_from_schedule(v, e2e_ns, &v->sched_e2e_ns);
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
        (!no_content || c->no_content_ttft_zero) &&
        !(c->ttft_needs_two_tokens && v->n_out < 2)) {
        v->has_ttft = true;
        v->ttft_ns = r->known_ttft_ns;
        if (!no_content)
            view_sched_ttft(v, v->ttft_ns);
    }
    if (r->has_known_e2e && req_ended(r) && lacks_same_measure(source, c, LLMLAT_E2E)) {
        v->has_e2e = true;
        v->e2e_ns = r->known_e2e_ns;
        view_sched_e2e(v, v->e2e_ns);
    }
    if (r->has_known_tool_itl && c->tool_itl == TOOL_ITL_LLMPERF && source == c) {
        v->has_tool_itl = true;
        v->tool_itl_s = r->known_tool_itl_s;
    }
}

/* span / n in seconds. GuideLLM merges equal values (its inverse CDF and
 * mode), so there quotients equal as fractions must be one double: one
 * division of exact integers (while n < 2^53 / 1e9). The other
 * conventions keep llmlat 1.0's doubles (seconds, then per token). */
static double per_token_s(const conv_rules *c, int64_t span_ns, uint64_t n)
{
    if (c->quantile == QUANTILE_INVERSE_CDF)
        return (double)span_ns / (1e9 * (double)n);
    return (double)span_ns / 1e9 / (double)n;
}

/* TTFT and E2E: the anchors, and the placeholders for missing ones. */
static void view_anchors(const conv_rules *c, const llmlat_request *r, const req_summary *s,
                         req_view *v)
{
    bool ended = req_ended(r);
    /* inference-perf's "more than one token time": the events' tokens, or
     * N where the events do not carry theirs */
    uint64_t tokens =
        (r->lacks & (LLMLAT_LACKS_CHUNK_TOKENS | LLMLAT_LACKS_CHUNKS)) ? v->n_out : s->sum_k;
    if (v->anchor != REQ_NONE && !(c->ttft_needs_two_tokens && tokens < 2)) {
        v->has_ttft = true;
        v->ttft_ns = v->t_anchor - r->start_ns;
        view_sched_ttft(v, v->ttft_ns);
    } else if (c->no_content_ttft_zero && v->anchor == REQ_NONE) {
        v->has_ttft = true;
        v->ttft_ns = 0;
    }

    switch (c->e2e) {
    case E2E_LAST_TOKEN:
        v->has_e2e = ended && v->anchor != REQ_NONE;
        if (v->has_e2e)
            v->e2e_ns = v->t_last - r->start_ns;
        break;
    case E2E_END:
    case E2E_FINISH:
        /* the end of a request whose end of stream is unknown is only its
         * last event */
        v->has_e2e = (c->e2e == E2E_END ? ended : r->state == REQ_FINISHED) &&
                     !(r->lacks & LLMLAT_LACKS_END);
        if (v->has_e2e)
            v->e2e_ns = r->end_ns - r->start_ns;
        break;
    }
    if (v->has_e2e)
        view_sched_e2e(v, v->e2e_ns);
    if (!v->has_e2e && ended && c->missing_is_zero) {
        v->has_e2e = true;
        v->e2e_ns = 0;
    }
}

/* TPOT = decode span / (N - 1), N > 1: the span is E2E - TTFT, or first
 * to last counting event (tpot_to_last_token). AIPerf reads a TTFT of 0
 * as missing, which leaves no TPOT. */
static void view_tpot(const conv_rules *c, const llmlat_request *r, req_view *v)
{
    if (!req_ended(r) || v->n_out < 2)
        return;
    bool real_ttft = v->has_ttft && v->anchor != REQ_NONE;
    int64_t span = 0;
    bool defined = false;
    if (c->tpot_to_last_token) {
        defined = real_ttft;
        if (defined)
            span = v->t_last - v->t_anchor;
    } else {
        defined = v->has_ttft && v->has_e2e && !(c->zero_is_missing && v->ttft_ns == 0);
        if (defined)
            span = v->e2e_ns - v->ttft_ns;
    }
    if (defined || c->missing_is_zero) {
        v->has_tpot = true;
        v->tpot_s = defined ? per_token_s(c, span, v->n_out - 1) : 0.0;
        v->tpot_span_ns = span; /* 0 when missing */
        v->tpot_w = c->weighted ? v->n_out - 1 : 1;
    }
}

static void view_ntpot(const conv_rules *c, const llmlat_request *r, const req_summary *s,
                       req_view *v)
{
    if (!req_ended(r))
        return;
    if (v->n_out == 0) {
        if (c->ntpot == NTPOT_ZERO_NO_TOKENS) {
            v->has_ntpot = true;
            v->ntpot_s = 0.0;
            v->ntpot_w = 1;
        }
        return;
    }
    int64_t latency;
    if (c->ntpot == NTPOT_LAST_TOKEN)
        latency = (s->last_tok != REQ_NONE ? s->t_last_tok : r->end_ns) - r->start_ns;
    else if (v->has_e2e)
        latency = v->e2e_ns;
    else
        return;
    v->has_ntpot = true;
    v->ntpot_s = per_token_s(c, latency, v->n_out);
    v->ntpot_span_ns = latency;
    v->ntpot_w = c->weighted ? v->n_out : 1;
}

/* GuideLLM's output_tokens_timings: the first token at the first
 * non-empty event and the rest spread up to the last one; a request with
 * fewer than two such events (or N <= 1) has its tokens at one point. */
static void view_token_points(const llmlat_request *r, const req_summary *s, req_view *v)
{
    if (s->first_tok == REQ_NONE) {
        v->token_lo = v->token_hi = r->end_ns;
        return;
    }
    v->token_lo = s->t_first_tok;
    v->token_hi = s->n_tok >= 2 && v->n_out >= 2 ? s->t_last_tok : v->token_lo;
}

/* The anchors, TTFT, E2E and LLMPerf's own ITL from the events. */
static void view_events(const conv_rules *c, const llmlat_request *r, const req_summary *s,
                        req_view *v)
{
    v->success = is_success(c, r, s);

    /* The anchor and last counting events (record/gaps.h), and their times
     * (from the summary: a streaming recorder keeps no events). */
    int64_t t_anchor = 0, t_last = 0;
    if (c->empty_events_count) {
        if (r->n) {
            v->anchor = 0;
            v->last = r->n - 1;
            t_anchor = req_first_time(r);
            t_last = r->last_t;
        }
    } else {
        v->anchor = s->first_tok;
        v->last = s->last_tok;
        t_anchor = s->t_first_tok;
        t_last = s->t_last_tok;
    }
    v->t_anchor = t_anchor;
    v->t_last = t_last;
    view_anchors(c, r, s, v);

    /* LLMPerf: sum of its time_to_next_token list (= last non-empty event
     * - start) over the chunks received, empty ones included; 0 without
     * content. */
    if (c->tool_itl == TOOL_ITL_LLMPERF && req_ended(r)) {
        v->has_tool_itl = true;
        v->tool_itl_s = s->first_tok == REQ_NONE
                            ? 0.0
                            : (double)(s->t_last_tok - r->start_ns) / 1e9 / (double)r->n;
    }
    v->icl_dropped = c->zero_is_missing && gap_any_zero(c, r, v);
}

/* v with nothing known, field by field: this is on every add's path, and a
 * compound literal of the whole struct compiles to `rep stos`, whose
 * start-up cost was a third of the view of a one-token request. */
static void view_clear(req_view *v)
{
    v->success = v->icl_dropped = false;
    v->has_ttft = v->has_e2e = v->has_tpot = v->has_tps = v->has_tool_itl = false;
    v->has_ntpot = false;
    v->scheduled = false; /* the rest of it is set only for a request with one */
    v->group = GROUP_SUCCESSFUL;
    v->ttft_ns = v->e2e_ns = v->tpot_span_ns = v->ntpot_span_ns = 0;
    v->tpot_s = v->ntpot_s = v->tps = v->tool_itl_s = 0.0;
    v->tpot_w = v->ntpot_w = v->n_out = 0;
    v->anchor = v->last = REQ_NONE;
    v->t_anchor = v->t_last = v->token_lo = v->token_hi = 0;
}

/* N under c (DESIGN section 9): the usage count, else the sum of k; the
 * client's sum of k under inference-perf, unless the events do not carry
 * their tokens (a file with per-request totals only: its count is the
 * best there is); a GuideLLM errored request's content chunks, whatever
 * usage count it carries. */
static uint64_t view_output_tokens(const conv_rules *c, const llmlat_request *r,
                                   const req_summary *s)
{
    if (c->errored_n_chunks && r->state == REQ_FAILED)
        return s->n_tok;
    if (c->n_client_count && !(r->lacks & (LLMLAT_LACKS_CHUNK_TOKENS | LLMLAT_LACKS_CHUNKS)))
        return s->sum_k;
    return req_output_tokens(r, s);
}

LLMLAT_PRIVATE void conv_view(const conv_rules *c, const llmlat_request *r, req_view *v)
{
    req_summary scratch;
    const req_summary *s = req_summary_of(r, &scratch);
    view_clear(v);
    v->n_out = view_output_tokens(c, r, s);
    if (r->has_scheduled) { /* start - intended start fits int64 (request.c) */
        v->scheduled = true;
        v->has_sched_ttft = v->has_sched_e2e = false;
        v->delay_ns = r->start_ns - r->scheduled_ns;
    }
    if (req_values_only(r))
        view_known(c, r, v);
    else
        view_events(c, r, s, v);
    v->group = v->success ? GROUP_SUCCESSFUL
                          : r->state == REQ_CANCELLED ? GROUP_INCOMPLETE : GROUP_ERRORED;
    view_tpot(c, r, v);
    view_ntpot(c, r, s, v);

    if (c->tps_is_inverse_tpot) {
        if (v->has_tpot && v->tpot_s != 0.0) {
            v->has_tps = true;
            v->tps = 1.0 / v->tpot_s;
        }
    } else if (r->has_known_tps && r->known_conv == c->id) {
        /* the tool's own figure, under its own convention (LLMPerf before
         * April 2024 wrote chunks / E2E) */
        v->has_tps = true;
        v->tps = r->known_tps;
    } else if (v->has_e2e && v->e2e_ns > 0) {
        v->has_tps = true;
        v->tps = (double)v->n_out / ((double)v->e2e_ns / 1e9);
    }
    if (c->token_rates_over_token_span && req_ended(r))
        view_token_points(r, s, v);
}
