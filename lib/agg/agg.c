/* The aggregator's life cycle, and folding requests in (add, merge). */
#include <math.h>
#include <string.h>

#include "agg/agg.h"
#include "record/gaps.h"

static void span_add(span *s, int64_t lo, int64_t hi)
{
    if (lo < s->lo)
        s->lo = lo;
    if (hi > s->hi)
        s->hi = hi;
}

static void clear_data(llmlat_agg *a)
{
    a->completed = a->failed = a->tpot_undefined = 0;
    a->input_tokens = a->output_tokens = 0;
    a->all = a->valid = SPAN_EMPTY;
    a->lacks = a->sources = 0;
    a->good = 0;
    for (int i = 0; i < METRIC_COUNT; i++)
        store_clear(&a->stores[i]);
    timeline_clear(&a->tl);
    request_log_clear(&a->log);
}

LLMLAT_API int32_t llmlat_agg_create(int32_t convention, int32_t mode, llmlat_agg **out)
{
    if (!out)
        return LLMLAT_EINVAL;
    *out = NULL;
    const conv_rules *c = conv_get(convention);
    if (!c || (mode != LLMLAT_MODE_EXACT && mode != LLMLAT_MODE_BOUNDED))
        return LLMLAT_EINVAL;
    llmlat_alloc al = alloc_current();
    llmlat_agg *a = alloc_malloc(&al, sizeof *a);
    if (!a)
        return LLMLAT_ENOMEM;
    memset(a, 0, sizeof *a);
    a->al = al;
    a->conv = c;
    a->mode = mode;
    agg_default_params(a);
    for (int32_t m = METRIC_FIRST; m <= METRIC_LAST; m++)
        store_init(&a->stores[metric_index(m)], mode, m == LLMLAT_ITL);
    timeline_init(&a->tl);
    request_log_init(&a->log);
    if (mode == LLMLAT_MODE_BOUNDED) {
        int32_t st = agg_bounded_setup(a, agg_param(a, LLMLAT_PARAM_RELATIVE_ERROR));
        if (st != LLMLAT_OK) {
            alloc_free(&al, a);
            return st;
        }
    }
    clear_data(a);
    *out = a;
    return LLMLAT_OK;
}

LLMLAT_API llmlat_agg *llmlat_agg_new(int32_t convention, int32_t mode)
{
    llmlat_agg *a; /* NULL on any error */
    llmlat_agg_create(convention, mode, &a);
    return a;
}

LLMLAT_PRIVATE llmlat_agg *agg_new_empty_like(const llmlat_agg *a)
{
    llmlat_agg *b = llmlat_agg_new(a->conv->id, a->mode);
    for (int32_t p = PARAM_FIRST; b && p <= PARAM_LAST; p++) {
        if (llmlat_agg_set_param(b, p, agg_param(a, p)) != LLMLAT_OK) {
            llmlat_agg_free(b);
            b = NULL;
        }
    }
    return b;
}

LLMLAT_API llmlat_agg *llmlat_agg_new_like(const llmlat_agg *a)
{
    llmlat_agg *b = a ? agg_new_empty_like(a) : NULL;
    if (!b)
        return NULL;
    memcpy(b->quantiles, a->quantiles, sizeof a->quantiles);
    b->n_quantiles = a->n_quantiles;
    memcpy(b->bucket_bounds, a->bucket_bounds, sizeof a->bucket_bounds);
    memcpy(b->n_bucket_bounds, a->n_bucket_bounds, sizeof a->n_bucket_bounds);
    for (size_t i = 0; i < a->n_labels; i++) {
        if (llmlat_agg_set_label(b, a->labels[i].name, a->labels[i].value) != LLMLAT_OK) {
            llmlat_agg_free(b);
            return NULL;
        }
    }
    return b;
}

LLMLAT_API void llmlat_agg_free(llmlat_agg *a)
{
    if (!a)
        return;
    llmlat_alloc al = a->al;
    for (int i = 0; i < METRIC_COUNT; i++)
        store_free(&a->stores[i], &al);
    timeline_free(&a->tl, &al);
    request_log_free(&a->log, &al);
    sketch_map_free(&a->map, &al);
    agg_labels_free(a);
    alloc_free(&al, a);
}

LLMLAT_API int32_t llmlat_agg_reset(llmlat_agg *a)
{
    if (!a)
        return LLMLAT_EINVAL;
    clear_data(a);
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_agg_get_convention(const llmlat_agg *a, int32_t *out)
{
    if (!a || !out)
        return LLMLAT_EINVAL;
    *out = a->conv->id;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_agg_get_mode(const llmlat_agg *a, int32_t *out)
{
    if (!a || !out)
        return LLMLAT_EINVAL;
    *out = a->mode;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE const metric_store *agg_store(const llmlat_agg *a, int32_t metric)
{
    if (metric == LLMLAT_TOOL_ITL) {
        switch (a->conv->tool_itl) {
        case TOOL_ITL_IS_ITL: metric = LLMLAT_ITL; break;
        case TOOL_ITL_IS_ICL: metric = LLMLAT_ICL; break;
        case TOOL_ITL_IS_TPOT: metric = LLMLAT_TPOT; break;
        case TOOL_ITL_LLMPERF: break;
        }
    }
    return &a->stores[metric_index(metric)];
}

static metric_store *own_store(llmlat_agg *a, int32_t metric)
{
    return &a->stores[metric_index(metric)];
}

/* The samples `p`'s successes add to every store: reserved all at once
 * before anything is pushed, so that a failed add changes nothing. */
static int32_t reserve_for(llmlat_agg *a, const agg_pending *p)
{
    for (int32_t m = METRIC_FIRST; m <= METRIC_LAST; m++) {
        /* one per request, or at most one per event for the gap metrics */
        size_t extra = (m == LLMLAT_ITL || m == LLMLAT_ICL) ? p->events : p->successes;
        int32_t st = store_reserve(own_store(a, m), &a->al, extra);
        if (st != LLMLAT_OK)
            return st;
    }
    return timeline_reserve(&a->tl, &a->al, p->successes, p->events);
}

/* ICL, ITL and ITL_MAX samples, by the gap rule (record/gaps.h). */
static void push_gaps(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    gap_walk w;
    uint32_t k0, k;
    if (!gap_walk_begin(&w, a->conv, r, v, &k0))
        return;
    metric_store *itl = own_store(a, LLMLAT_ITL), *icl = own_store(a, LLMLAT_ICL);
    if (k0 > 1) /* the first chunk's extra tokens arrived with no gap */
        store_push(itl, 0.0, k0 - 1);
    int64_t gap, max_gap = -1;
    while (gap_walk_next(&w, &gap, &k)) {
        double g = ns_to_s(gap);
        if (!v->icl_dropped)
            store_push(icl, g, 1);
        if (k)
            store_push(itl, k == 1 ? g : g / (double)k, k);
        if (gap > max_gap)
            max_gap = gap;
    }
    if (max_gap >= 0)
        store_push(own_store(a, LLMLAT_ITL_MAX), ns_to_s(max_gap), 1);
}

static void push_timeline(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    success_record rec = {
        .start_ns = r->start_ns,
        .e2e_ns = v->has_e2e ? v->e2e_ns : -1,
        .ttft_s = v->has_ttft ? ns_to_s(v->ttft_ns) : NAN,
        .tpot_s = v->has_tpot ? v->tpot_s : NAN,
        .e2e_s = v->has_e2e ? ns_to_s(v->e2e_ns) : NAN,
    };
    timeline_push_record(&a->tl, &rec);
    for (size_t i = 0; i < r->n; i++) {
        if (a->conv->peak_counts_events)
            timeline_push_event(&a->tl, r->t[i], 1);
        else if (r->k[i])
            timeline_push_event(&a->tl, r->t[i], r->k[i]);
    }
}

/* Exact mode logs every request that has its events (with what its data
 * lack); one known by its values only could not be added again from them
 * (agg_holds_requests then says no). */
static bool agg_logs(const llmlat_agg *a, const llmlat_request *r)
{
    return a->mode == LLMLAT_MODE_EXACT && !req_values_only(r);
}

/* What r's data lacks, remembered once r is counted: everything for a
 * success; for a failure, which adds only a count and its span to the
 * duration, its start times alone. */
static void note_lacks(llmlat_agg *a, const llmlat_request *r, bool success)
{
    a->lacks |= success ? r->lacks : r->lacks & LLMLAT_LACKS_START_TIMES;
    if (success && req_values_only(r))
        a->sources |= 1u << r->known_conv;
}

/* Its latest response: the last event; the end, for a request known by
 * its values only. */
static int64_t last_response(const llmlat_request *r)
{
    return req_values_only(r) ? r->end_ns : r->n ? r->t[r->n - 1] : r->start_ns;
}

/* The acceptance rule, the same in both modes: a request is taken when
 * every counter and sample count it adds to still fits uint64 (requests
 * added, tokens, ITL samples = tokens, ICL samples = events; the others
 * count requests), and each of its samples is below 2^64 in its unit (ns,
 * tokens, tokens/s), which bounded mode's exact sums need (util/fixsum.h).
 * Only TPS_USER can reach that (N / E2E with a usage count near 2^64).
 * EOVERFLOW otherwise. The requests `p` sums up (checked, not yet added)
 * count as added; r is then added to p. */
LLMLAT_PRIVATE int32_t agg_add_check(const llmlat_agg *a, const llmlat_request *r,
                                     const req_view *v, agg_pending *p)
{
    /* the serialized form needs the requests added to fit too */
    if (p->requests >= UINT64_MAX - (a->completed + a->failed))
        return LLMLAT_EOVERFLOW;
    if (v->success) {
        uint64_t tokens = UINT64_MAX - p->tokens, events = UINT64_MAX - p->events;
        if (r->input_tokens > UINT64_MAX - a->input_tokens - p->input_tokens ||
            v->n_out > UINT64_MAX - a->output_tokens - p->output_tokens ||
            r->sum.sum_k > tokens ||
            store_count(agg_store(a, LLMLAT_ITL)) > tokens - r->sum.sum_k ||
            r->n > events || store_count(agg_store(a, LLMLAT_ICL)) > events - r->n)
            return LLMLAT_EOVERFLOW;
        if (v->has_tps && !(v->tps < FIXSUM_LIMIT))
            return LLMLAT_EOVERFLOW;
        p->successes++;
        p->input_tokens += r->input_tokens;
        p->output_tokens += v->n_out;
        p->tokens += r->sum.sum_k;
        p->events += r->n;
    }
    if (agg_logs(a, r)) {
        p->logged++;
        p->logged_events += r->n;
    }
    p->requests++;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE int32_t agg_add_reserve(llmlat_agg *a, const agg_pending *p)
{
    int32_t st = a->mode == LLMLAT_MODE_BOUNDED || p->successes == 0 ? LLMLAT_OK
                                                                      : reserve_for(a, p);
    if (st == LLMLAT_OK && p->logged)
        st = request_log_reserve(&a->log, &a->al, p->logged, p->logged_events);
    return st;
}

LLMLAT_PRIVATE void agg_add_commit(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    if (agg_logs(a, r))
        request_log_push(&a->log, r);
    note_lacks(a, r, v->success);
    span_add(&a->all, r->start_ns, last_response(r));
    if (!v->success) {
        a->failed++;
        return;
    }
    a->completed++;
    a->input_tokens += r->input_tokens;
    a->output_tokens += v->n_out;
    a->tpot_undefined += !v->has_tpot;
    if (v->has_e2e)
        span_add(&a->valid, r->start_ns, r->start_ns + v->e2e_ns);
    if (a->mode == LLMLAT_MODE_BOUNDED) {
        agg_bounded_push(a, r, v);
        return;
    }

    if (v->has_ttft)
        store_push(own_store(a, LLMLAT_TTFT), ns_to_s(v->ttft_ns), 1);
    if (v->has_e2e)
        store_push(own_store(a, LLMLAT_E2E), ns_to_s(v->e2e_ns), 1);
    if (v->has_tpot)
        store_push(own_store(a, LLMLAT_TPOT), v->tpot_s, 1);
    if (v->has_tps)
        store_push(own_store(a, LLMLAT_TPS_USER), v->tps, 1);
    if (v->has_tool_itl)
        store_push(own_store(a, LLMLAT_TOOL_ITL), v->tool_itl_s, 1);
    store_push(own_store(a, LLMLAT_OUTPUT_TOKENS), (double)v->n_out, 1);
    store_push(own_store(a, LLMLAT_INPUT_TOKENS), (double)r->input_tokens, 1);
    push_gaps(a, r, v);
    push_timeline(a, r, v);
}

LLMLAT_API int32_t llmlat_agg_add(llmlat_agg *a, const llmlat_request *r)
{
    if (!a || !r)
        return LLMLAT_EINVAL;
    if (!req_ended(r))
        return LLMLAT_ESTATE;
    req_view v;
    conv_view(a->conv, r, &v);
    agg_pending p = { 0 };
    int32_t st = agg_add_check(a, r, &v, &p);
    if (st == LLMLAT_OK)
        st = agg_add_reserve(a, &p);
    if (st != LLMLAT_OK)
        return st;
    /* From here on nothing can fail. */
    agg_add_commit(a, r, &v);
    return LLMLAT_OK;
}

static bool add_overflows(uint64_t x, uint64_t y)
{
    return y > UINT64_MAX - x;
}

/* Bounded aggregators share buckets only with the same relative error, and
 * a good count only with the same SLOs. */
static bool same_bounded_params(const llmlat_agg *x, const llmlat_agg *y)
{
    for (int32_t p = LLMLAT_PARAM_RELATIVE_ERROR; p <= LLMLAT_PARAM_SLO_E2E; p++)
        if (p != LLMLAT_PARAM_DURATION && agg_param(x, p) != agg_param(y, p))
            return false;
    return true;
}

LLMLAT_API int32_t llmlat_agg_merge(llmlat_agg *dst, const llmlat_agg *src)
{
    if (!dst || !src || dst == src)
        return LLMLAT_EINVAL;
    if (dst->conv != src->conv || dst->mode != src->mode ||
        (dst->mode == LLMLAT_MODE_BOUNDED && !same_bounded_params(dst, src)))
        return LLMLAT_EMISMATCH;
    if (add_overflows(dst->completed + dst->failed, src->completed + src->failed) ||
        add_overflows(dst->good, src->good) ||
        add_overflows(dst->tpot_undefined, src->tpot_undefined) ||
        add_overflows(dst->input_tokens, src->input_tokens) ||
        add_overflows(dst->output_tokens, src->output_tokens))
        return LLMLAT_EOVERFLOW;
    for (int i = 0; i < METRIC_COUNT; i++) {
        int32_t st = store_reserve_merge(&dst->stores[i], &dst->al, &src->stores[i]);
        if (st != LLMLAT_OK)
            return st;
    }
    int32_t st = timeline_reserve(&dst->tl, &dst->al, src->tl.n_rec, src->tl.n_tok);
    if (st == LLMLAT_OK)
        st = request_log_reserve(&dst->log, &dst->al, src->log.n_req, src->log.n_ev);
    if (st != LLMLAT_OK)
        return st;

    for (int i = 0; i < METRIC_COUNT; i++)
        store_append(&dst->stores[i], &src->stores[i]);
    timeline_append(&dst->tl, &src->tl);
    request_log_append(&dst->log, &src->log);
    dst->completed += src->completed;
    dst->failed += src->failed;
    dst->tpot_undefined += src->tpot_undefined;
    dst->input_tokens += src->input_tokens;
    dst->output_tokens += src->output_tokens;
    dst->good += src->good;
    dst->lacks |= src->lacks;
    dst->sources |= src->sources;
    if (src->all.lo <= src->all.hi)
        span_add(&dst->all, src->all.lo, src->all.hi);
    if (src->valid.lo <= src->valid.hi)
        span_add(&dst->valid, src->valid.lo, src->valid.hi);
    return LLMLAT_OK;
}
