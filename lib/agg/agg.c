/* The aggregator's life cycle, and folding requests in (add, merge). */
#include <math.h>
#include <string.h>

#include "agg/agg.h"
#include "agg/stream.h"
#include "record/gaps.h"

static void span_add(span *s, int64_t lo, int64_t hi)
{
    if (lo < s->lo)
        s->lo = lo;
    if (hi > s->hi)
        s->hi = hi;
}

/* The metrics whose exact-mode samples carry weights: ITL (a chunk of k
 * tokens is one value of weight k), and TPOT and NTPOT where the
 * convention weighs them by N - 1 and N (GuideLLM). */
static bool weighted_metric(const conv_rules *c, int32_t m)
{
    return m == LLMLAT_ITL || (c->weighted && (m == LLMLAT_TPOT || m == LLMLAT_NTPOT));
}

static void stores_init(metric_store *stores, const conv_rules *c, int32_t mode)
{
    for (int32_t m = METRIC_FIRST; m <= METRIC_LAST; m++) {
        metric_store *s = &stores[metric_index(m)];
        store_init(s, mode, weighted_metric(c, m));
        s->placeholder = !metric_from_schedule(m);
    }
}

static void stores_free(metric_store *stores, const llmlat_alloc *al)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        store_free(&stores[i], al);
}

static void stores_clear(metric_store *stores)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        store_clear(&stores[i]);
}

static void clear_data(llmlat_agg *a)
{
    a->completed = a->failed = a->tpot_undefined = 0;
    a->input_tokens = a->output_tokens = 0;
    a->all = a->valid = a->tokens = SPAN_EMPTY;
    a->lacks = a->sources = 0;
    a->good = 0;
    stores_clear(a->stores);
    timeline_clear(&a->tl);
    for (int g = 0; g < FAILED_GROUPS; g++) {
        agg_group *f = &a->failures[g];
        f->count = f->input_tokens = f->output_tokens = 0;
        f->tokens = SPAN_EMPTY;
        stores_clear(f->stores);
    }
    request_log_clear(&a->log);
}

LLMLAT_API int32_t llmlat_agg_create(int32_t convention, int32_t mode, llmlat_agg **out)
{
    if (!out)
        return LLMLAT_EINVAL;
    *out = NULL;
    const conv_rules *c = conv_get(convention);
    if (!c || !agg_mode_valid(mode))
        return LLMLAT_EINVAL;
    llmlat_alloc al = alloc_current();
    llmlat_agg *a = alloc_malloc(&al, sizeof *a);
    if (!a)
        return LLMLAT_ENOMEM;
    memset(a, 0, sizeof *a);
    atomic_init(&a->layout, NULL);
    a->al = al;
    a->conv = c;
    a->mode = mode;
    agg_default_params(a);
    stores_init(a->stores, c, mode);
    for (int g = 0; g < FAILED_GROUPS; g++)
        stores_init(a->failures[g].stores, c, mode);
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
    stores_free(a->stores, &al);
    for (int g = 0; g < FAILED_GROUPS; g++)
        stores_free(a->failures[g].stores, &al);
    timeline_free(&a->tl, &al);
    request_log_free(&a->log, &al);
    sketch_map_free(&a->map, &al);
    stream_layout_forget(a);
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

LLMLAT_PRIVATE group_view agg_group_view(const llmlat_agg *a, enum req_group g)
{
    if (g == GROUP_SUCCESSFUL)
        return (group_view){ a->completed, a->input_tokens, a->output_tokens, a->tokens,
                             a->stores };
    const agg_group *f = &a->failures[g - GROUP_INCOMPLETE];
    return (group_view){ f->count, f->input_tokens, f->output_tokens, f->tokens, f->stores };
}

static metric_store *own_store(metric_store *stores, int32_t metric)
{
    return &stores[metric_index(metric)];
}

/* The stores of a status group: the successes' are the aggregator's own. */
static metric_store *group_stores(llmlat_agg *a, enum req_group g)
{
    return g == GROUP_SUCCESSFUL ? a->stores : agg_failed_group(a, g)->stores;
}

/* The samples the pending requests `q` of one group add to its stores
 * (and the successes' to the timeline): reserved all at once before
 * anything is pushed, so that a failed add changes nothing. */
static int32_t reserve_for(llmlat_agg *a, enum req_group g, const agg_pending_group *q)
{
    metric_store *stores = group_stores(a, g);
    for (int32_t m = METRIC_FIRST; m <= METRIC_LAST; m++) {
        /* one per request (with an intended start, for the metrics from
         * it), or at most one per event for the gap metrics */
        size_t extra = (m == LLMLAT_ITL || m == LLMLAT_ICL) ? q->events
                       : metric_from_schedule(m)            ? (size_t)q->scheduled
                                                            : (size_t)q->requests;
        if (m == LLMLAT_ITL && a->conv->split == SPLIT_COPY) /* a gap, and zeros */
            extra = q->events > SIZE_MAX / 2 ? SIZE_MAX : 2 * q->events;
        int32_t st = store_reserve(own_store(stores, m), &a->al, extra);
        if (st != LLMLAT_OK)
            return st;
    }
    if (g != GROUP_SUCCESSFUL)
        return LLMLAT_OK;
    return timeline_reserve(&a->tl, &a->al, (size_t)q->requests, q->events);
}

/* ICL, ITL and ITL_MAX samples, by the gap rule (record/gaps.h). */
static void push_gaps(llmlat_agg *a, metric_store *stores, const llmlat_request *r,
                      const req_view *v)
{
    gap_walk w;
    uint32_t k0, k;
    if (!gap_walk_begin(&w, a->conv, r, v, &k0))
        return;
    metric_store *itl = own_store(stores, LLMLAT_ITL), *icl = own_store(stores, LLMLAT_ICL);
    if (k0 > 1) /* the first chunk's extra tokens arrived with no gap */
        store_push(itl, 0.0, k0 - 1);
    int64_t gap, max_gap = -1;
    while (gap_walk_next(&w, &gap, &k)) {
        if (!v->icl_dropped)
            store_push(icl, ns_to_s(gap), 1);
        if (k) {
            itl_split x = gap_itl_split(a->conv->split, gap, k);
            store_push(itl, x.value, x.n);
            if (x.zeros)
                store_push(itl, 0.0, x.zeros);
        }
        if (gap > max_gap)
            max_gap = gap;
    }
    if (max_gap >= 0)
        store_push(own_store(stores, LLMLAT_ITL_MAX), ns_to_s(max_gap), 1);
}

/* The samples from a request's intended start (v->scheduled). */
static void push_scheduled(metric_store *stores, const req_view *v)
{
    store_push(own_store(stores, LLMLAT_DISPATCH_DELAY), ns_to_s(v->delay_ns), 1);
    if (v->has_sched_ttft)
        store_push(own_store(stores, LLMLAT_SCHEDULED_TTFT), ns_to_s(v->sched_ttft_ns), 1);
    if (v->has_sched_e2e)
        store_push(own_store(stores, LLMLAT_SCHEDULED_E2E), ns_to_s(v->sched_e2e_ns), 1);
}

/* Every per-request and per-gap sample of a request, into one group's
 * stores (exact mode; room reserved). */
static void push_samples(llmlat_agg *a, metric_store *stores, const llmlat_request *r,
                         const req_view *v)
{
    if (v->has_ttft)
        store_push(own_store(stores, LLMLAT_TTFT), ns_to_s(v->ttft_ns), 1);
    if (v->has_e2e)
        store_push(own_store(stores, LLMLAT_E2E), ns_to_s(v->e2e_ns), 1);
    if (v->has_tpot)
        store_push(own_store(stores, LLMLAT_TPOT), v->tpot_s, (uint32_t)v->tpot_w);
    if (v->has_ntpot)
        store_push(own_store(stores, LLMLAT_NTPOT), v->ntpot_s, (uint32_t)v->ntpot_w);
    if (v->has_tps)
        store_push(own_store(stores, LLMLAT_TPS_USER), v->tps, 1);
    if (v->has_tool_itl)
        store_push(own_store(stores, LLMLAT_TOOL_ITL), v->tool_itl_s, 1);
    store_push(own_store(stores, LLMLAT_OUTPUT_TOKENS), (double)v->n_out, 1);
    store_push(own_store(stores, LLMLAT_INPUT_TOKENS), (double)r->input_tokens, 1);
    if (v->scheduled)
        push_scheduled(stores, v);
    push_gaps(a, stores, r, v);
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
    return agg_keeps_timeline(a) && !req_values_only(r);
}

/* What r's data lacks, remembered once r is counted: everything for a
 * request whose samples are kept (a success, or a request in a status
 * group); for a failure that adds only a count and its span to the
 * duration, its start times alone. */
static void note_lacks(llmlat_agg *a, const llmlat_request *r, bool kept)
{
    a->lacks |= kept ? r->lacks : r->lacks & LLMLAT_LACKS_START_TIMES;
    if (kept && req_values_only(r))
        a->sources |= 1u << r->known_conv;
}

/* Its latest response: the last event; the end, for a request known by
 * its values only. */
static int64_t last_response(const llmlat_request *r)
{
    return req_values_only(r) ? r->end_ns : r->n ? r->last_t : r->start_ns;
}

/* The acceptance rule, the same in both modes: a request is taken when
 * every counter and sample count it adds to still fits uint64 (requests
 * added, tokens, ITL samples = tokens, ICL samples = events; the others
 * count requests), and each of its samples is below 2^64 in its unit (ns,
 * tokens, tokens/s), which bounded mode's exact sums need (util/fixsum.h).
 * Only TPS_USER can reach that (N / E2E with a usage count near 2^64). A
 * request that is not a success is counted only, or, under a convention
 * with status groups, kept in its group: the same rule holds there. Under
 * GuideLLM its TPOT and NTPOT weigh N - 1 and N, which exact mode keeps
 * as uint32. EOVERFLOW otherwise. The requests `p` sums up (checked, not
 * yet added) count as added; r is then added to p. */
LLMLAT_PRIVATE int32_t agg_add_check(const llmlat_agg *a, const llmlat_request *r,
                                     const req_view *v, agg_pending *p)
{
    /* a streaming recorder folded its events by a layout and gap rule of
     * its own */
    if (r->folder && !stream_fits(a, r))
        return LLMLAT_EMISMATCH;
    /* the serialized form needs the requests added to fit too */
    if (p->requests >= UINT64_MAX - (a->completed + a->failed))
        return LLMLAT_EOVERFLOW;
    if (v->tpot_w > UINT32_MAX || v->ntpot_w > UINT32_MAX)
        return LLMLAT_EOVERFLOW;
    if (v->success || a->conv->status_groups) {
        agg_pending_group *q = &p->group[v->group];
        group_view g = agg_group_view(a, v->group);
        uint64_t tokens = UINT64_MAX - q->tokens, events = UINT64_MAX - q->events;
        if (r->input_tokens > UINT64_MAX - g.input_tokens - q->input_tokens ||
            v->n_out > UINT64_MAX - g.output_tokens - q->output_tokens ||
            r->sum.sum_k > tokens ||
            store_count(&g.stores[metric_index(LLMLAT_ITL)]) > tokens - r->sum.sum_k ||
            r->n > events || store_count(&g.stores[metric_index(LLMLAT_ICL)]) > events - r->n)
            return LLMLAT_EOVERFLOW;
        if (v->has_tps && !(v->tps < FIXSUM_LIMIT))
            return LLMLAT_EOVERFLOW;
        q->requests++;
        q->scheduled += v->scheduled;
        q->input_tokens += r->input_tokens;
        q->output_tokens += v->n_out;
        q->tokens += r->sum.sum_k;
        q->events += r->n;
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
    if (a->mode == LLMLAT_MODE_BOUNDED) /* sketches never grow */
        return LLMLAT_OK;
    for (int g = 0; g < GROUP_COUNT; g++)
        if (p->group[g].requests) {
            int32_t st = reserve_for(a, (enum req_group)g, &p->group[g]);
            if (st != LLMLAT_OK)
                return st;
        }
    return p->logged ? request_log_reserve(&a->log, &a->al, p->logged, p->logged_events)
                     : LLMLAT_OK;
}

/* A request that is not a success, into its status group (admitted, room
 * reserved). */
static void add_to_group(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    agg_group *f = agg_failed_group(a, v->group);
    f->count++;
    f->input_tokens += r->input_tokens;
    f->output_tokens += v->n_out;
    if (a->conv->token_rates_over_token_span)
        span_add(&f->tokens, v->token_lo, v->token_hi);
    if (a->mode == LLMLAT_MODE_BOUNDED)
        agg_bounded_push(a, f->stores, r, v);
    else
        push_samples(a, f->stores, r, v);
}

LLMLAT_PRIVATE void agg_add_commit(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    if (agg_logs(a, r))
        request_log_push(&a->log, r);
    bool grouped = v->success || a->conv->status_groups; /* its samples are kept */
    note_lacks(a, r, grouped);
    span_add(&a->all, r->start_ns, a->conv->span_to_end ? r->end_ns : last_response(r));
    if (!v->success) {
        if (grouped)
            add_to_group(a, r, v);
        a->failed++;
        return;
    }
    a->completed++;
    a->input_tokens += r->input_tokens;
    a->output_tokens += v->n_out;
    a->tpot_undefined += !v->has_tpot;
    if (v->has_e2e)
        span_add(&a->valid, r->start_ns, r->start_ns + v->e2e_ns);
    if (a->conv->token_rates_over_token_span)
        span_add(&a->tokens, v->token_lo, v->token_hi);
    if (a->mode == LLMLAT_MODE_BOUNDED) {
        agg_bounded_push(a, a->stores, r, v);
        if (agg_any_slo(a)) /* the SLOs are fixed once bounded data arrived */
            a->good += agg_meets_slos(a, v->has_ttft ? ns_to_s(v->ttft_ns) : NAN,
                                      v->has_tpot ? v->tpot_s : NAN,
                                      v->has_e2e ? ns_to_s(v->e2e_ns) : NAN);
        return;
    }
    push_samples(a, a->stores, r, v);
    push_timeline(a, r, v);
}

/* The view of r and the acceptance rule's verdict on it alone: what an
 * add commits if the room is there. */
static int32_t check_one(const llmlat_agg *a, const llmlat_request *r, req_view *v,
                         agg_pending *p)
{
    if (!req_ended(r))
        return LLMLAT_ESTATE;
    conv_view(a->conv, r, v);
    agg_pending_init(p);
    return agg_add_check(a, r, v, p);
}

LLMLAT_PRIVATE int32_t agg_can_add(llmlat_agg *a, const llmlat_request *r)
{
    req_view v;
    agg_pending p;
    return check_one(a, r, &v, &p);
}

LLMLAT_API int32_t llmlat_agg_add(llmlat_agg *a, const llmlat_request *r)
{
    if (!a || !r)
        return LLMLAT_EINVAL;
    req_view v;
    agg_pending p;
    int32_t st = check_one(a, r, &v, &p);
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
    for (int32_t p = PARAM_FIRST; p <= PARAM_LAST; p++)
        if (agg_param_fixes_data(p) && agg_param(x, p) != agg_param(y, p))
            return false;
    return true;
}

static void span_merge(span *dst, span src)
{
    if (src.lo <= src.hi)
        span_add(dst, src.lo, src.hi);
}

static int32_t stores_reserve_merge(llmlat_agg *dst, metric_store *d, const metric_store *s)
{
    for (int i = 0; i < METRIC_COUNT; i++) {
        int32_t st = store_reserve_merge(&d[i], &dst->al, &s[i]);
        if (st != LLMLAT_OK)
            return st;
    }
    return LLMLAT_OK;
}

static void stores_append(metric_store *d, const metric_store *s)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        store_append(&d[i], &s[i]);
}

static bool stores_overflow(const metric_store *d, const metric_store *s)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        if (add_overflows(store_count(&d[i]), store_count(&s[i])))
            return true;
    return false;
}

static bool groups_overflow(const agg_group *d, const agg_group *s)
{
    return add_overflows(d->input_tokens, s->input_tokens) ||
           add_overflows(d->output_tokens, s->output_tokens) || stores_overflow(d->stores, s->stores);
}

/* Every check llmlat_agg_merge makes but the exact stores' allocation. */
LLMLAT_PRIVATE int32_t agg_can_merge(const llmlat_agg *dst, const llmlat_agg *src)
{
    if (dst->conv != src->conv || dst->mode != src->mode ||
        (dst->mode == LLMLAT_MODE_BOUNDED && !same_bounded_params(dst, src)))
        return LLMLAT_EMISMATCH;
    if (add_overflows(dst->completed + dst->failed, src->completed + src->failed) ||
        add_overflows(dst->good, src->good) ||
        add_overflows(dst->tpot_undefined, src->tpot_undefined) ||
        add_overflows(dst->input_tokens, src->input_tokens) ||
        add_overflows(dst->output_tokens, src->output_tokens) ||
        stores_overflow(dst->stores, src->stores) ||
        groups_overflow(&dst->failures[0], &src->failures[0]) ||
        groups_overflow(&dst->failures[1], &src->failures[1]))
        return LLMLAT_EOVERFLOW;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_agg_merge(llmlat_agg *dst, const llmlat_agg *src)
{
    if (!dst || !src || dst == src)
        return LLMLAT_EINVAL;
    int32_t st = agg_can_merge(dst, src);
    if (st == LLMLAT_OK)
        st = stores_reserve_merge(dst, dst->stores, src->stores);
    for (int g = 0; g < FAILED_GROUPS && st == LLMLAT_OK; g++)
        st = stores_reserve_merge(dst, dst->failures[g].stores, src->failures[g].stores);
    if (st == LLMLAT_OK)
        st = timeline_reserve(&dst->tl, &dst->al, src->tl.n_rec, src->tl.n_tok);
    if (st == LLMLAT_OK)
        st = request_log_reserve(&dst->log, &dst->al, src->log.n_req, src->log.n_ev);
    if (st != LLMLAT_OK)
        return st;

    /* From here on nothing can fail. */
    stores_append(dst->stores, src->stores);
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
    span_merge(&dst->all, src->all);
    span_merge(&dst->valid, src->valid);
    span_merge(&dst->tokens, src->tokens);
    for (int g = 0; g < FAILED_GROUPS; g++) {
        agg_group *d = &dst->failures[g];
        const agg_group *s = &src->failures[g];
        stores_append(d->stores, s->stores);
        d->count += s->count;
        d->input_tokens += s->input_tokens;
        d->output_tokens += s->output_tokens;
        span_merge(&d->tokens, s->tokens);
    }
    return LLMLAT_OK;
}
