/* Streaming recorders (stream.h). An event is stored in the recorder's
 * block of STREAM_BLOCK, as a buffered recorder stores it; a full block
 * is folded at once: when its gaps are all common (agg/gap_fold.h), with
 * one bucket index each for ITL and ICL, a 2-byte count each in the
 * request's runs, and the common sums; else event by event by the gap
 * rule's one step (gap_step_event) and the gap's samples (gap_samples),
 * planning the runs' growth before changing anything. Readers (values in
 * flight, the commit) count the block's held events without folding
 * them. */
#include <string.h>

#include "agg/gap_fold.h"
#include "agg/stream.h"
#include "bounded/bucket_run.h"
#include "record/gaps.h"

/* The events a streaming recorder holds (768 bytes): enough that a block's
 * fold costs little per event, few enough for its memory bound. */
#define STREAM_BLOCK 64

typedef struct stream_state {
    stream_layout *lay;
    gap_step step;     /* the gap rule, one event at a time */
    gap_parts parts;   /* the other gaps; ICL always (AIPerf's drop is
                          decided at commit) */
    common_gaps common; /* the usual gaps: ICL's and ITL's alike */
    fixsum itl_ratio;  /* the chunks' squares (gap_parts_add) */
    bucket_run icl, itl;
    bool zero_gap;     /* a gap of exactly 0 was closed */
} stream_state;

/* parts and common together: what the gaps add to ITL and ICL. */
static gap_parts stream_parts(const stream_state *st)
{
    gap_parts p = st->parts;
    if (st->common.n)
        gap_parts_add_common(&p, &st->common);
    return p;
}

/* ---------------------------------------------------------------- layout */

static void stream_layout_release(stream_layout *lay)
{
    if (lay && atomic_fetch_sub_explicit(&lay->refs, 1, memory_order_acq_rel) == 1) {
        llmlat_alloc al = lay->al;
        sketch_map_free(&lay->map, &al);
        alloc_free(&al, lay);
    }
}

LLMLAT_PRIVATE void stream_layout_forget(llmlat_agg *a)
{
    stream_layout_release(atomic_exchange_explicit(&a->layout, NULL, memory_order_acq_rel));
}

/* a's layout with one more reference, made on first use. a is const to
 * its users: the layout is a cache, published once with a compare and
 * swap, so that threads making recorders of one aggregator at once agree
 * on it. */
static stream_layout *stream_layout_of(const llmlat_agg *ca)
{
    llmlat_agg *a = (llmlat_agg *)ca;
    stream_layout *lay = atomic_load_explicit(&a->layout, memory_order_acquire);
    if (!lay) {
        llmlat_alloc al = alloc_current();
        stream_layout *made = alloc_malloc(&al, sizeof *made);
        if (!made)
            return NULL;
        memset(made, 0, sizeof *made);
        made->al = al;
        made->alpha = agg_param(a, LLMLAT_PARAM_RELATIVE_ERROR);
        made->every = a->conv->empty_events_count;
        made->split = a->conv->split;
        atomic_init(&made->refs, 1); /* a's */
        if (sketch_map_init(&made->map, &al, made->alpha) != LLMLAT_OK) {
            alloc_free(&al, made);
            return NULL;
        }
        if (atomic_compare_exchange_strong_explicit(&a->layout, &lay, made,
                                                    memory_order_acq_rel, memory_order_acquire)) {
            lay = made;
        } else { /* another thread's is in: use it */
            sketch_map_free(&made->map, &al);
            alloc_free(&al, made);
        }
    }
    atomic_fetch_add_explicit(&lay->refs, 1, memory_order_relaxed);
    return lay;
}

LLMLAT_PRIVATE bool stream_fits(const llmlat_agg *a, const llmlat_request *r)
{
    const stream_state *st = r->fold_state;
    return a->mode == LLMLAT_MODE_BOUNDED &&
           agg_param(a, LLMLAT_PARAM_RELATIVE_ERROR) == st->lay->alpha &&
           a->conv->empty_events_count == st->lay->every && a->conv->split == st->lay->split;
}

/* ---------------------------------------------------------------- events */

/* What one event brings: its gap (if it closes one), its samples, and the
 * anchor's extra zeros; from the rule's state *step, which it advances. */
typedef struct stream_fx {
    bool closes;
    int64_t gap;
    uint32_t zeros;
    gap_sample icl, itl;
} stream_fx;

static stream_fx stream_effect(gap_step *step, enum chunk_split split, int64_t t, uint32_t k)
{
    stream_fx fx = { 0 };
    bool anchored = step->anchored;
    fx.closes = gap_step_event(step, t, k, &fx.gap);
    if (fx.closes)
        gap_samples(split, fx.gap, k, &fx.icl, &fx.itl);
    else
        fx.zeros = gap_anchor_zeros(!anchored && step->anchored, k);
    return fx;
}

/* The bucket index of a sample (x > 0), or none (0 and no weight go to
 * the zero count). */
static bool stream_indexed(const sketch_map *m, const gap_sample *s, int64_t *index)
{
    if (!s->w || !(s->x > 0.0))
        return false;
    *index = sketch_map_index(m, s->x);
    return true;
}

/* What cannot fail, once the runs have room: the summary, the rule's
 * state, the sums, the zero counts. Event number i of the request. */
static void stream_take(llmlat_request *r, stream_state *st, const gap_step *step,
                        const stream_fx *fx, size_t i, int64_t t, uint32_t k)
{
    req_summary_take(&r->sum, i, t, k);
    st->step = *step;
    if (fx->closes) {
        gap_parts_add(&st->parts, fx->gap, k, true, &fx->icl, &fx->itl, &st->itl_ratio);
        st->itl.zero += fx->itl.zeros; /* tokens given their chunk's time */
        if (fx->gap == 0) {
            st->zero_gap = true;
            st->icl.zero++;
            st->itl.zero += fx->itl.w;
        }
    } else if (fx->zeros) {
        gap_parts_zeros(&st->parts, fx->zeros);
        st->itl.zero += fx->zeros;
    }
}

/* The usual block, folded at once: every gap after the anchor common
 * (agg/gap_fold.h: one bucket index for ICL and ITL, found from the
 * integer as the bounded fold finds it), into room the runs have, with
 * the common sums. false (nothing changed) for any other block. */
static bool stream_fold_plain(llmlat_request *r, stream_state *st, const int64_t *t,
                              const uint32_t *k, size_t n, size_t base)
{
    if (!st->step.anchored || !n || n > STREAM_BLOCK || !gap_all_one(k, n))
        return false;
    const sketch_map *m = &st->lay->map;
    const gap_layout lay = gap_layout_of(m);
    int64_t idx[STREAM_BLOCK];
    common_gaps c;
    if (!gap_common_block(&lay, st->step.prev, t, n, idx, &c))
        return false;
    int64_t lo = gap_layout_index(&lay, c.min), hi = gap_layout_index(&lay, c.max);
    if (!run_add_pair(&st->icl, base + n, &st->itl, r->sum.sum_k + n, idx, n, lo, hi))
        return false;
    c.sum = (uint64_t)(t[n - 1] - st->step.prev); /* the gaps add up to the span */
    common_gaps_merge(&st->common, &c);
    st->step.prev = t[n - 1];
    req_summary_take_run(&r->sum, base, n, t[0], t[n - 1], n); /* n one-token events */
    return true;
}

/* The spread and weight of a run's samples over a batch. */
typedef struct stream_need {
    double lo, hi;
    uint64_t w;
} stream_need;

static void stream_need_add(stream_need *n, const gap_sample *s)
{
    if (!s->w || !(s->x > 0.0))
        return;
    if (s->x < n->lo)
        n->lo = s->x;
    if (s->x > n->hi)
        n->hi = s->x;
    n->w = n->w + s->w < n->w ? UINT64_MAX : n->w + s->w;
}

/* bound: the samples the run can hold after the batch. */
static int32_t stream_plan(bucket_run *run, const sketch_map *m, const llmlat_alloc *al,
                           const stream_need *n, uint64_t bound, run_plan *p)
{
    *p = (run_plan){ 0 };
    if (!n->w)
        return LLMLAT_OK;
    return run_plan_for(run, m, al, sketch_map_index(m, n->lo), sketch_map_index(m, n->hi),
                        bound, p);
}

/* Any batch, all or nothing: the room both runs need is planned from a
 * first pass of the rule over a copy of its state, then each event folds
 * into room that is there. */
static int32_t stream_fold_any(llmlat_request *r, stream_state *st, const int64_t *t,
                               const uint32_t *k, size_t n, size_t base)
{
    const sketch_map *m = &st->lay->map;
    gap_step step = st->step;
    stream_need ni = { INFINITY, 0, 0 }, nt = ni;
    uint64_t tokens = r->sum.sum_k; /* fits: at most 2^32 - 1 events */
    for (size_t j = 0; j < n; j++) {
        tokens += k[j];
        stream_fx fx = stream_effect(&step, st->lay->split, t[j], k[j]);
        if (fx.closes) {
            stream_need_add(&ni, &fx.icl);
            stream_need_add(&nt, &fx.itl);
        }
    }
    run_plan pi, pt;
    if (stream_plan(&st->icl, m, &r->al, &ni, base + n, &pi) != LLMLAT_OK)
        return LLMLAT_ENOMEM;
    if (stream_plan(&st->itl, m, &r->al, &nt, tokens, &pt) != LLMLAT_OK) {
        run_plan_drop(&pi, &r->al);
        return LLMLAT_ENOMEM;
    }
    run_apply(&st->icl, &r->al, &pi);
    run_apply(&st->itl, &r->al, &pt);
    for (size_t j = 0; j < n; j++) {
        step = st->step;
        stream_fx fx = stream_effect(&step, st->lay->split, t[j], k[j]);
        int64_t index;
        if (fx.closes && stream_indexed(m, &fx.icl, &index))
            run_add(&st->icl, index, 1);
        if (fx.closes && stream_indexed(m, &fx.itl, &index))
            run_add(&st->itl, index, fx.itl.w);
        stream_take(r, st, &step, &fx, base + j, t[j], k[j]);
    }
    run_end(&st->icl, &r->al);
    run_end(&st->itl, &r->al);
    return LLMLAT_OK;
}

/* n events numbered from base, all or nothing. */
static int32_t stream_fold(llmlat_request *r, const int64_t *t, const uint32_t *k, size_t n,
                           size_t base)
{
    stream_state *st = r->fold_state;
    if (stream_fold_plain(r, st, t, k, n, base))
        return LLMLAT_OK;
    return stream_fold_any(r, st, t, k, n, base);
}

static int32_t stream_flush(llmlat_request *r)
{
    return stream_fold(r, r->t, r->k, req_held(r), r->t_base);
}

static int32_t stream_events(llmlat_request *r, const int64_t *t, const uint32_t *k, size_t n)
{
    return stream_fold(r, t, k, n, r->n);
}

/* What the held events add, read without folding them (the recorder is
 * const to its readers): their gaps into *p and *zero_gap, the state's
 * parts and zero check, and, when to is not NULL, their samples counted
 * in its sketches (ICL's only when icl_on) and their chunks' squares in
 * ITL's sums, as a recorded request's odd gaps are (gap_count_samples). */
typedef struct stream_sink {
    sketch *icl, *itl;
    const sketch_map *m;
    bool icl_on;
} stream_sink;

static void stream_held(const llmlat_request *r, const stream_state *st, gap_parts *p,
                        bool *zero_gap, const stream_sink *to)
{
    gap_step step = st->step;
    fixsum squares = { 0 }; /* a reader's: only the sums matter */
    for (size_t j = 0; j < req_held(r); j++) {
        stream_fx fx = stream_effect(&step, st->lay->split, r->t[j], r->k[j]);
        if (fx.closes) {
            *zero_gap = *zero_gap || fx.gap == 0;
            if (to) /* ICL's part is dropped with its sketch: AIPerf's rule */
                gap_count_samples(p, to->icl_on ? to->icl : NULL, to->itl, to->m, fx.gap,
                                  r->k[j], &fx.icl, &fx.itl);
            else
                gap_parts_add(p, fx.gap, r->k[j], true, &fx.icl, &fx.itl, &squares);
        } else if (fx.zeros) {
            gap_parts_zeros(p, fx.zeros);
            if (to)
                to->itl->zero += fx.zeros;
        }
    }
}

/* ------------------------------------------------------------ life cycle */

static void stream_clear_state(stream_state *st)
{
    st->step = (gap_step){ st->lay->every, false, 0 };
    gap_parts_init(&st->parts);
    st->common = COMMON_GAPS_NONE;
    memset(&st->itl_ratio, 0, sizeof st->itl_ratio);
    run_clear(&st->icl);
    run_clear(&st->itl);
    st->zero_gap = false;
}

static void stream_clear(llmlat_request *r)
{
    stream_clear_state(r->fold_state);
}

static void stream_free(llmlat_request *r)
{
    stream_state *st = r->fold_state;
    run_free(&st->icl, &r->al);
    run_free(&st->itl, &r->al);
    stream_layout_release(st->lay);
    alloc_free(&r->al, st);
}

static bool stream_gaps(const llmlat_request *r, const conv_rules *c, gap_summary *g,
                        bool *any_zero)
{
    const stream_state *st = r->fold_state;
    if (c->empty_events_count != st->lay->every || c->split != st->lay->split)
        return false;
    gap_parts p = stream_parts(st);
    *any_zero = st->zero_gap;
    stream_held(r, st, &p, any_zero, NULL);
    *g = (gap_summary){
        .n_gaps = p.icl.count,
        .gap_sum_ns = (int64_t)p.icl.sum,
        .gap_max_ns = p.max_gap > 0 ? p.max_gap : 0,
        .itl_weight = p.itl.count,
        .itl_sum_ns = (int64_t)p.itl.sum,
    };
    return true;
}

static const req_folder STREAM_FOLDER = {
    .flush = stream_flush,
    .events = stream_events,
    .clear = stream_clear,
    .free = stream_free,
    .gaps = stream_gaps,
};

LLMLAT_API int32_t llmlat_request_create_streaming(const llmlat_agg *like, llmlat_request **out)
{
    if (!out)
        return LLMLAT_EINVAL;
    *out = NULL;
    if (!like)
        return LLMLAT_EINVAL;
    if (like->mode != LLMLAT_MODE_BOUNDED)
        return LLMLAT_EMISMATCH;
    llmlat_request *r = llmlat_request_new();
    if (!r)
        return LLMLAT_ENOMEM;
    stream_state *st = alloc_malloc(&r->al, sizeof *st);
    r->t = alloc_malloc(&r->al, STREAM_BLOCK * sizeof *r->t); /* its block */
    r->k = alloc_malloc(&r->al, STREAM_BLOCK * sizeof *r->k);
    stream_layout *lay = st && r->t && r->k ? stream_layout_of(like) : NULL;
    if (!lay) {
        alloc_free(&r->al, st);
        llmlat_request_free(r);
        return LLMLAT_ENOMEM;
    }
    r->cap = STREAM_BLOCK;
    memset(st, 0, sizeof *st);
    st->lay = lay;
    run_init(&st->icl);
    run_init(&st->itl);
    stream_clear_state(st);
    r->folder = &STREAM_FOLDER;
    r->fold_state = st;
    *out = r;
    return LLMLAT_OK;
}

LLMLAT_API llmlat_request *llmlat_request_new_streaming(const llmlat_agg *like)
{
    llmlat_request *r; /* NULL on any error */
    llmlat_request_create_streaming(like, &r);
    return r;
}

/* ---------------------------------------------------------------- commit */

LLMLAT_PRIVATE void stream_commit(llmlat_agg *a, metric_store *stores, const llmlat_request *r,
                                  const req_view *v)
{
    const stream_state *st = r->fold_state;
    const bool icl_on = !v->icl_dropped;
    sketch *icl = &stores[metric_index(LLMLAT_ICL)].sk, *itl = &stores[metric_index(LLMLAT_ITL)].sk;
    if (icl_on)
        run_commit(&st->icl, icl, &a->map);
    run_commit(&st->itl, itl, &a->map);
    fixsum_merge(&itl->sums, &st->itl_ratio);
    gap_parts p = stream_parts(st);
    bool zero_gap = st->zero_gap;
    const stream_sink to = { icl, itl, &a->map, icl_on };
    stream_held(r, st, &p, &zero_gap, &to);
    gap_parts_commit(a, stores, &p, icl_on);
}
