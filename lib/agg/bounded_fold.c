/* Bounded mode's side of the aggregator: building its sketches, and
 * folding a request into them. This is a server's hot path: a request's
 * gaps come from the gap rule's walk (record/gaps.h), are summed in
 * integers first, and each costs a bucket lookup and a count in ITL and
 * ICL. */
#include <math.h>
#include <string.h>

#include "agg/agg.h"
#include "agg/gap_fold.h"
#include "agg/stream.h"
#include "record/gaps.h"

/* Times are summed in ns inside the sketches (integer gaps stay exact). */
static double unit_of(int32_t metric)
{
    switch (metric) {
    case LLMLAT_TPS_USER:
    case LLMLAT_OUTPUT_TOKENS:
    case LLMLAT_INPUT_TOKENS:
        return 1.0;
    }
    return 1e9;
}

/* TOOL_ITL has samples of its own only under LLMPerf. */
static bool has_sketch(const llmlat_agg *a, int32_t metric)
{
    return metric != LLMLAT_TOOL_ITL || a->conv->tool_itl == TOOL_ITL_LLMPERF;
}

/* The stores that hold sketches: the successes', and the other status
 * groups' where the convention keeps them. */
static size_t sketched_groups(llmlat_agg *a, metric_store **groups)
{
    size_t n = 0;
    groups[n++] = a->stores;
    if (a->conv->status_groups)
        for (int g = 0; g < FAILED_GROUPS; g++)
            groups[n++] = a->failures[g].stores;
    return n;
}

LLMLAT_PRIVATE int32_t agg_bounded_setup(llmlat_agg *a, double alpha)
{
    sketch_map map;
    sketch fresh[GROUP_COUNT][METRIC_COUNT];
    metric_store *groups[GROUP_COUNT];
    size_t ng = sketched_groups(a, groups);
    int32_t st = sketch_map_init(&map, &a->al, alpha);
    if (st != LLMLAT_OK)
        return st;
    size_t done = 0; /* sketches made, in (group, metric) order */
    for (; done < ng * METRIC_COUNT && st == LLMLAT_OK; done++) {
        int32_t m = METRIC_FIRST + (int32_t)(done % METRIC_COUNT);
        sketch *s = &fresh[done / METRIC_COUNT][done % METRIC_COUNT];
        sketch_init(s, unit_of(m));
        if (has_sketch(a, m))
            st = sketch_alloc(s, &a->al, &map);
    }
    if (st != LLMLAT_OK) {
        while (done-- > 0)
            sketch_free(&fresh[done / METRIC_COUNT][done % METRIC_COUNT], &a->al);
        sketch_map_free(&map, &a->al);
        return st;
    }
    /* Nothing can fail from here: swap the new layout in. */
    agg_bounded_free(a);
    a->map = map;
    for (size_t g = 0; g < ng; g++)
        for (int i = 0; i < METRIC_COUNT; i++) {
            groups[g][i].sk = fresh[g][i];
            groups[g][i].map = &a->map;
        }
    return LLMLAT_OK;
}

LLMLAT_PRIVATE void agg_bounded_free(llmlat_agg *a)
{
    metric_store *groups[GROUP_COUNT];
    size_t ng = sketched_groups(a, groups);
    for (size_t g = 0; g < ng; g++)
        for (int i = 0; i < METRIC_COUNT; i++)
            sketch_free(&groups[g][i].sk, &a->al);
    sketch_map_free(&a->map, &a->al);
}

static sketch *sk(metric_store *stores, int32_t metric)
{
    return &stores[metric_index(metric)].sk;
}

/* A request's gaps' sum needs no work per gap: the gaps add up to the
 * span from its anchor to its last counting event. A chunk's squares go
 * straight to the sketch's exact sums (gap_parts_add). */

/* Adds the part to s, with `sum` the sum of its samples (ns). */
static void part_commit(sketch *s, const gap_part *p, uint64_t sum)
{
    if (!p->count)
        return;
    s->count += p->count;
    fixsum_add_parts(&s->sums, sum, p->sq_lo, p->sq_hi);
    sketch_note_range(s, p->min, p->max);
}

/* The parts into a group's ICL, ITL and ITL_MAX sketches (their buckets
 * are the caller's), with the sums of their samples (ns): ICL's only when
 * icl_on (AIPerf drops a request's ICL for one zero gap). */
static void parts_commit(llmlat_agg *a, metric_store *stores, const gap_parts *p, bool icl_on,
                         uint64_t icl_sum, uint64_t itl_sum)
{
    if (icl_on)
        part_commit(sk(stores, LLMLAT_ICL), &p->icl, icl_sum);
    part_commit(sk(stores, LLMLAT_ITL), &p->itl, itl_sum);
    if (p->max_gap >= 0)
        sketch_add_ns(sk(stores, LLMLAT_ITL_MAX), &a->map, p->max_gap);
}

/* A streaming recorder's parts keep their sums (agg/stream.c). */
LLMLAT_PRIVATE void gap_parts_commit(llmlat_agg *a, metric_store *stores, const gap_parts *p,
                                     bool icl_on)
{
    parts_commit(a, stores, p, icl_on, p->icl.sum, p->itl.sum);
}

/* A gap the common path does not take (not one token, a gap of 0 or of
 * 2^53 ns and more, or ICL dropped): its samples by gap_fold.h's rule
 * (the one place a chunk's tokens are split), counted one by one. */
LLMLAT_COLD static void fold_odd_gap(llmlat_agg *a, metric_store *stores, int64_t g, uint32_t k,
                                     bool icl_on, gap_parts *p)
{
    gap_sample icl, itl;
    sketch *itl_sk = sk(stores, LLMLAT_ITL);
    gap_samples(a->conv->split, g, k, &icl, &itl);
    gap_parts_add(p, g, k, icl_on, &icl, &itl, &itl_sk->sums);
    if (icl_on)
        sketch_count(sk(stores, LLMLAT_ICL), &a->map, icl.x, 1);
    if (itl.w)
        sketch_count(itl_sk, &a->map, itl.x, itl.w);
    itl_sk->zero += itl.zeros;
}

/* From gap j of a block with other gaps, the common gaps up to the first
 * other one: their bucket indexes into idx, their squares and extremes
 * into *c. Returns where it stopped. */
LLMLAT_NOINLINE static size_t take_common(const gap_block *b, size_t j, const gap_layout *lay,
                                          common_gaps *c, int64_t *idx)
{
    const uint32_t *k = b->k;
    uint64_t sq_lo = 0, sq_hi = 0;
    int64_t min = INT64_MAX, max = 0;
    int64_t *out = idx;
    for (; j < b->n; j++) {
        int64_t g = gap_block_gap(b, j);
        if ((uint64_t)g - 1 >= (uint64_t)SKETCH_NS_EXACT - 1 || k[j] != 1)
            break;
        uint64_t lo, hi;
        wide_mul((uint64_t)g, (uint64_t)g, &lo, &hi);
        wide_add(&sq_lo, &sq_hi, lo, hi);
        min = g < min ? g : min;
        max = g > max ? g : max;
        *out++ = gap_layout_index(lay, g);
    }
    size_t n = (size_t)(out - idx);
    *c = (common_gaps){ n, sq_lo, sq_hi, n ? min : 0, max };
    return j;
}

/* A block whose gaps are all common, at once (gap_common_block); its own
 * function, so that the loop has the registers to itself. */
LLMLAT_NOINLINE static bool take_block(const gap_block *b, const gap_layout *lay,
                                       common_gaps *c, int64_t *idx)
{
    return gap_common_block(lay, b->at[0], b->at + 1, b->n, idx, c);
}

/* Counts one sample at each of idx[0..n) in both x and y, the indexes
 * lying in [lo, hi] (those of the run's extremes). Once both windows reach
 * hi and lo is inside both, no index needs a check. */
static void bump_both(sketch *x, sketch *y, const sketch_map *m, const int64_t *idx, size_t n,
                      int64_t lo, int64_t hi)
{
    if (hi > x->top)
        sketch_raise(x, m, hi);
    if (hi > y->top)
        sketch_raise(y, m, hi);
    if (lo < x->base || lo < y->base) { /* some below a window: rare */
        for (size_t j = 0; j < n; j++) {
            sketch_bump(x, m, idx[j], 1);
            sketch_bump(y, m, idx[j], 1);
        }
        return;
    }
    if (lo < x->low)
        x->low = lo;
    if (lo < y->low)
        y->low = lo;
    uint64_t *xb = x->bucket, *yb = y->bucket;
    const int64_t xo = x->base, yo = y->base;
    for (size_t j = 0; j < n; j++) {
        xb[idx[j] - xo]++;
        yb[idx[j] - yo]++;
    }
}

/* What a run of common gaps adds to a part (its sum: see fold_gaps). */
static void part_add_common(gap_part *p, const common_gaps *c)
{
    p->count += c->n;
    wide_add(&p->sq_lo, &p->sq_hi, c->sq_lo, c->sq_hi);
    gap_part_note(p, ns_to_s(c->min), ns_to_s(c->max));
}

/* A run of common gaps (idx their buckets) into both sketches and parts. */
static void count_common(gap_parts *p, sketch *itl_sk, sketch *icl_sk, const sketch_map *m,
                         const gap_layout *lay, const common_gaps *c, const int64_t *idx)
{
    bump_both(itl_sk, icl_sk, m, idx, c->n, gap_layout_index(lay, c->min),
              gap_layout_index(lay, c->max));
    part_add_common(&p->icl, c);
    part_add_common(&p->itl, c);
    p->max_gap = c->max > p->max_gap ? c->max : p->max_gap;
}

/* ICL, ITL and ITL_MAX of one request, by the gap rule (record/gaps.h):
 * block after block, each at once when all its gaps are common, else
 * split into runs of common gaps (counted in both sketches at once) and
 * the odd gaps between them. Out of line: a request of one token has no
 * gap, and needs none of this frame. */
LLMLAT_NOINLINE static void fold_gaps(llmlat_agg *a, metric_store *stores,
                                      const llmlat_request *r, const req_view *v)
{
    gap_walk w;
    uint32_t k0;
    if (!gap_walk_begin_ended(&w, a->conv, r, v, &k0))
        return;
    const sketch_map *m = &a->map;
    const gap_layout lay = gap_layout_of(m);
    sketch *itl_sk = sk(stores, LLMLAT_ITL), *icl_sk = sk(stores, LLMLAT_ICL);
    const bool icl_on = !v->icl_dropped;
    const bool plain = r->sum.n_tok == r->n && r->sum.sum_k == r->n; /* every k is 1 */
    gap_parts p;
    gap_parts_init(&p);
    uint32_t zeros = gap_anchor_zeros(true, k0); /* arrived with no gap */
    if (zeros) {
        gap_parts_zeros(&p, zeros);
        itl_sk->zero += zeros;
    }
    int64_t idx[GAP_BLOCK];
    uint64_t empty_sum = 0; /* of the gaps closed by empty events */
    gap_block blk;
    while (gap_walk_block(&w, &blk)) {
        common_gaps c;
        if (icl_on && (plain || gap_all_one(blk.k, blk.n)) && /* the usual block: at once */
            take_block(&blk, &lay, &c, idx)) {
            count_common(&p, itl_sk, icl_sk, m, &lay, &c, idx);
            continue;
        }
        for (size_t j = 0; j < blk.n;) {
            if (icl_on) { /* else every gap is odd */
                j = take_common(&blk, j, &lay, &c, idx);
                if (c.n)
                    count_common(&p, itl_sk, icl_sk, m, &lay, &c, idx);
                if (j == blk.n)
                    break;
            }
            int64_t g = gap_block_gap(&blk, j);
            uint32_t k = blk.k[j];
            fold_odd_gap(a, stores, g, k, icl_on, &p);
            empty_sum += k ? 0 : (uint64_t)g;
            j++;
        }
    }
    /* the sum of the gaps (p's own sums have only the odd ones) */
    uint64_t span = (uint64_t)(v->t_last - v->t_anchor);
    parts_commit(a, stores, &p, icl_on, span, span - empty_sum);
}

/* w samples of span / w (exported: v seconds): a TPOT or NTPOT weighed by
 * N - 1 or N (GuideLLM; w < 2^32, the acceptance rule's). Like a chunk of
 * w tokens closing a gap of span, they sum to span exactly and their
 * squares to span^2 / w. */
static void add_weighted(sketch *s, const sketch_map *m, int64_t span_ns, uint64_t w, double v)
{
    s->count += w;
    sketch_count(s, m, v, w);
    fixsum_add_parts(&s->sums, (uint64_t)span_ns, 0, 0);
    fixsum_add_square_ratio(&s->sums, (uint64_t)span_ns, (uint32_t)w);
    sketch_note_range(s, v, v);
}

/* TPOT or NTPOT: one sample, or its weighted samples. */
static void add_per_token(llmlat_agg *a, sketch *s, int64_t span_ns, uint64_t w, double v)
{
    if (a->conv->weighted)
        add_weighted(s, &a->map, span_ns, w, v);
    else
        sketch_add_double(s, &a->map, v * 1e9, v);
}

/* The samples from a request's intended start (v->scheduled): out of
 * line, so that a request without one pays a test only. */
LLMLAT_NOINLINE static void push_scheduled_sketches(const sketch_map *m, metric_store *stores,
                                                    const req_view *v)
{
    sketch_add_ns(sk(stores, LLMLAT_DISPATCH_DELAY), m, v->delay_ns);
    if (v->has_sched_ttft)
        sketch_add_ns(sk(stores, LLMLAT_SCHEDULED_TTFT), m, v->sched_ttft_ns);
    if (v->has_sched_e2e)
        sketch_add_ns(sk(stores, LLMLAT_SCHEDULED_E2E), m, v->sched_e2e_ns);
}

LLMLAT_PRIVATE void agg_bounded_push(llmlat_agg *a, metric_store *stores,
                                     const llmlat_request *r, const req_view *v)
{
    const sketch_map *m = &a->map;
    if (v->has_ttft)
        sketch_add_ns(sk(stores, LLMLAT_TTFT), m, v->ttft_ns);
    if (v->has_e2e)
        sketch_add_ns(sk(stores, LLMLAT_E2E), m, v->e2e_ns);
    if (v->has_tpot)
        add_per_token(a, sk(stores, LLMLAT_TPOT), v->tpot_span_ns, v->tpot_w, v->tpot_s);
    if (v->has_ntpot)
        add_per_token(a, sk(stores, LLMLAT_NTPOT), v->ntpot_span_ns, v->ntpot_w, v->ntpot_s);
    if (v->has_tps)
        sketch_add_double(sk(stores, LLMLAT_TPS_USER), m, v->tps, v->tps);
    if (v->has_tool_itl)
        sketch_add_double(sk(stores, LLMLAT_TOOL_ITL), m, v->tool_itl_s * 1e9, v->tool_itl_s);
    sketch_add_int(sk(stores, LLMLAT_OUTPUT_TOKENS), m, v->n_out, (double)v->n_out);
    sketch_add_int(sk(stores, LLMLAT_INPUT_TOKENS), m, r->input_tokens,
                   (double)r->input_tokens);
    if (v->scheduled)
        push_scheduled_sketches(m, stores, v);
    if (r->folder) /* a streaming recorder's, counted as its events came */
        stream_commit(a, stores, r, v);
    /* a gap, or tokens beyond the anchor's first */
    else if (v->anchor != REQ_NONE && (v->last != v->anchor || r->k[v->anchor] > 1))
        fold_gaps(a, stores, r, v);
}
