/* Bounded mode's side of the aggregator: building its sketches, and
 * folding a request into them. This is a server's hot path: a request's
 * gaps come from the gap rule's walk (record/gaps.h), are summed in
 * integers first, and each costs a bucket lookup and a count in ITL and
 * ICL. */
#include <math.h>
#include <string.h>

#include "agg/agg.h"
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

LLMLAT_PRIVATE int32_t agg_bounded_setup(llmlat_agg *a, double alpha)
{
    sketch_map map;
    sketch fresh[METRIC_COUNT];
    int32_t st = sketch_map_init(&map, &a->al, alpha);
    if (st != LLMLAT_OK)
        return st;
    int i = 0;
    for (; i < METRIC_COUNT && st == LLMLAT_OK; i++) {
        int32_t m = METRIC_FIRST + i;
        sketch_init(&fresh[i], unit_of(m));
        if (has_sketch(a, m))
            st = sketch_alloc(&fresh[i], &a->al, &map);
    }
    if (st != LLMLAT_OK) {
        while (i-- > 0)
            sketch_free(&fresh[i], &a->al);
        sketch_map_free(&map, &a->al);
        return st;
    }
    /* Nothing can fail from here: swap the new layout in. */
    agg_bounded_free(a);
    a->map = map;
    for (i = 0; i < METRIC_COUNT; i++) {
        a->stores[i].sk = fresh[i];
        a->stores[i].map = &a->map;
    }
    return LLMLAT_OK;
}

LLMLAT_PRIVATE void agg_bounded_free(llmlat_agg *a)
{
    for (int i = 0; i < METRIC_COUNT; i++)
        sketch_free(&a->stores[i].sk, &a->al);
    sketch_map_free(&a->map, &a->al);
}

static sketch *sk(llmlat_agg *a, int32_t metric)
{
    return &a->stores[metric_index(metric)].sk;
}

/* What a request's gaps add to one of ITL or ICL besides bucket counts.
 * Their sum needs no work per gap: the gaps of a request add up to the
 * span from its anchor to its last counting event. A chunk's squares go
 * straight to the sketch's exact sums (fixsum_add_square_ratio). */
typedef struct gap_part {
    uint64_t count;        /* samples (ITL: tokens) */
    uint64_t sq_lo, sq_hi; /* sum of w x^2 over integer samples, ns^2 */
    double min, max;       /* exported (s); +inf / -inf when none */
} gap_part;

static void part_add_square(gap_part *p, int64_t g)
{
    uint64_t lo, hi;
    wide_mul((uint64_t)g, (uint64_t)g, &lo, &hi);
    wide_add(&p->sq_lo, &p->sq_hi, lo, hi);
}

static void part_note(gap_part *p, double lo, double hi)
{
    if (lo < p->min)
        p->min = lo;
    if (hi > p->max)
        p->max = hi;
}

/* Adds the part to s, with `sum` the sum of its samples (ns). */
static void part_commit(sketch *s, const gap_part *p, uint64_t sum)
{
    if (!p->count)
        return;
    s->count += p->count;
    fixsum_add_parts(&s->sums, sum, p->sq_lo, p->sq_hi);
    sketch_note_range(s, p->min, p->max);
}

/* A gap's one sample in a part, counted in sketch x. */
static void fold_sample(sketch *x, const sketch_map *m, gap_part *p, int64_t g)
{
    double gs = ns_to_s(g);
    p->count++;
    part_add_square(p, g);
    part_note(p, gs, gs);
    sketch_count(x, m, gs, 1);
}

/* The k > 1 tokens of a chunk closing gap g: k ITL samples of g / k (the
 * value exact mode keeps), which sum to g and whose squares sum to
 * g^2 / k, added exactly but for the cut at 2^-64. The one place a
 * chunk's tokens are split. */
static void fold_chunk(llmlat_agg *a, gap_part *itl, int64_t g, uint32_t k)
{
    double v = ns_to_s(g) / (double)k;
    sketch *s = sk(a, LLMLAT_ITL);
    itl->count += k;
    fixsum_add_square_ratio(&s->sums, (uint64_t)g, k);
    part_note(itl, v, v);
    sketch_count(s, &a->map, v, k);
}

/* A gap the common path does not take (not one token, a gap of 0 or of
 * 2^53 ns and more, or ICL dropped): its ICL sample (when kept) and ITL
 * samples, one by one. */
LLMLAT_COLD static void fold_odd_gap(llmlat_agg *a, int64_t g, uint32_t k, bool icl_on,
                                     gap_part *icl, gap_part *itl)
{
    if (icl_on)
        fold_sample(sk(a, LLMLAT_ICL), &a->map, icl, g);
    if (k == 1)
        fold_sample(sk(a, LLMLAT_ITL), &a->map, itl, g);
    else if (k > 1)
        fold_chunk(a, itl, g, k);
}

/* A run of common gaps: one token, 0 < gap < 2^53 ns, ICL kept; each one
 * sample of the same value in ITL and ICL. Their squares and extremes. */
typedef struct common_gaps {
    uint64_t n, sq_lo, sq_hi;
    int64_t min, max;
} common_gaps;

/* The ns cells in locals for the gap loop (bucket stores could alias
 * them, and the compiler would reload them after each). */
typedef struct layout {
    sketch_cells cell;
    unsigned shift;
    uint64_t mask;
} layout;

static inline int64_t layout_index_ns(const layout *l, int64_t ns)
{
    return sketch_cells_index(l->cell.bound, l->cell.base, l->shift, l->mask, (double)ns);
}

/* From gap j of b, the common gaps up to the first other one: their
 * bucket indexes into idx, their squares and extremes into *c. Returns
 * where it stopped. `plain` (every k is 1) is a constant at each call, so
 * the loop reads no k when it is. */
static inline size_t take_common(const gap_block *b, size_t j, bool plain, const layout *lay,
                                 common_gaps *c, int64_t *idx)
{
    const uint64_t *bound = lay->cell.bound;
    const int64_t *base = lay->cell.base;
    const unsigned shift = lay->shift;
    const uint64_t mask = lay->mask;
    const uint32_t *k = b->k;
    uint64_t sq_lo = 0, sq_hi = 0;
    double min = INFINITY, max = 0.0; /* exact: the gaps are below 2^53 */
    int64_t *out = idx;
    const size_t end = b->n;
    for (; j < end; j++) {
        int64_t g = gap_block_gap(b, j);
        if ((uint64_t)g - 1 >= (uint64_t)SKETCH_NS_EXACT - 1 || (!plain && k[j] != 1))
            break;
        uint64_t lo, hi;
        wide_mul((uint64_t)g, (uint64_t)g, &lo, &hi);
        wide_add(&sq_lo, &sq_hi, lo, hi);
        double x = (double)g;
        min = x < min ? x : min;
        max = x > max ? x : max;
        *out++ = sketch_cells_index(bound, base, shift, mask, x);
    }
    size_t n = (size_t)(out - idx);
    *c = (common_gaps){ n, sq_lo, sq_hi, n ? (int64_t)min : 0, (int64_t)max };
    return j;
}

/* The two shapes of a run, each its own function: the loop then has the
 * registers to itself. */
LLMLAT_NOINLINE static size_t take_plain(const gap_block *b, size_t j, const layout *lay,
                                         common_gaps *c, int64_t *idx)
{
    return take_common(b, j, true, lay, c, idx);
}

LLMLAT_NOINLINE static size_t take_general(const gap_block *b, size_t j, const layout *lay,
                                           common_gaps *c, int64_t *idx)
{
    return take_common(b, j, false, lay, c, idx);
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

/* What a run of common gaps adds to a part. */
static void part_add_common(gap_part *p, const common_gaps *c)
{
    p->count += c->n;
    wide_add(&p->sq_lo, &p->sq_hi, c->sq_lo, c->sq_hi);
    part_note(p, ns_to_s(c->min), ns_to_s(c->max));
}

/* ICL, ITL and ITL_MAX of one request, by the gap rule (record/gaps.h):
 * block after block, each split into runs of common gaps (counted in both
 * sketches at once) and the odd gaps between them. Out of line: a request
 * of one token has no gap, and needs none of this frame. */
LLMLAT_NOINLINE static void fold_gaps(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    gap_walk w;
    uint32_t k0;
    if (!gap_walk_begin_ended(&w, a->conv, r, v, &k0))
        return;
    const sketch_map *m = &a->map;
    const layout lay = { m->ns_cell, m->cell_shift, m->cell_mask };
    sketch *itl_sk = sk(a, LLMLAT_ITL), *icl_sk = sk(a, LLMLAT_ICL);
    const bool icl_on = !v->icl_dropped;
    const bool plain = r->sum.n_tok == r->n && r->sum.sum_k == r->n; /* every k is 1 */
    gap_part icl = { .min = INFINITY, .max = -INFINITY }, itl = icl;
    if (k0 > 1) { /* the first chunk's extra tokens arrived with no gap */
        itl.count += k0 - 1;
        itl_sk->zero += k0 - 1;
        part_note(&itl, 0.0, 0.0);
    }
    int64_t max_gap = -1, idx[GAP_BLOCK];
    uint64_t empty_sum = 0; /* of the gaps closed by empty events */
    gap_block blk;
    while (gap_walk_block(&w, &blk)) {
        for (size_t j = 0; j < blk.n;) {
            if (icl_on) { /* else every gap is odd */
                common_gaps c;
                j = plain ? take_plain(&blk, j, &lay, &c, idx)
                          : take_general(&blk, j, &lay, &c, idx);
                if (c.n) {
                    bump_both(itl_sk, icl_sk, m, idx, c.n, layout_index_ns(&lay, c.min),
                              layout_index_ns(&lay, c.max));
                    part_add_common(&icl, &c);
                    part_add_common(&itl, &c);
                    max_gap = c.max > max_gap ? c.max : max_gap;
                }
                if (j == blk.n)
                    break;
            }
            int64_t g = gap_block_gap(&blk, j);
            uint32_t k = blk.k[j];
            fold_odd_gap(a, g, k, icl_on, &icl, &itl);
            empty_sum += k ? 0 : (uint64_t)g;
            max_gap = g > max_gap ? g : max_gap;
            j++;
        }
    }
    uint64_t span = (uint64_t)(r->t[v->last] - r->t[v->anchor]); /* the sum of the gaps */
    part_commit(icl_sk, &icl, span);
    part_commit(itl_sk, &itl, span - empty_sum);
    if (max_gap >= 0)
        sketch_add_ns(sk(a, LLMLAT_ITL_MAX), m, max_gap);
}

LLMLAT_PRIVATE void agg_bounded_push(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    const sketch_map *m = &a->map;
    if (v->has_ttft)
        sketch_add_ns(sk(a, LLMLAT_TTFT), m, v->ttft_ns);
    if (v->has_e2e)
        sketch_add_ns(sk(a, LLMLAT_E2E), m, v->e2e_ns);
    if (v->has_tpot)
        sketch_add_double(sk(a, LLMLAT_TPOT), m, v->tpot_s * 1e9, v->tpot_s);
    if (v->has_tps)
        sketch_add_double(sk(a, LLMLAT_TPS_USER), m, v->tps, v->tps);
    if (v->has_tool_itl)
        sketch_add_double(sk(a, LLMLAT_TOOL_ITL), m, v->tool_itl_s * 1e9, v->tool_itl_s);
    sketch_add_int(sk(a, LLMLAT_OUTPUT_TOKENS), m, v->n_out, (double)v->n_out);
    sketch_add_int(sk(a, LLMLAT_INPUT_TOKENS), m, r->input_tokens, (double)r->input_tokens);
    /* a gap, or tokens beyond the anchor's first */
    if (v->anchor != REQ_NONE && (v->last != v->anchor || r->k[v->anchor] > 1))
        fold_gaps(a, r, v);
    if (agg_any_slo(a))
        a->good += agg_meets_slos(a, v->has_ttft ? ns_to_s(v->ttft_ns) : NAN,
                                  v->has_tpot ? v->tpot_s : NAN,
                                  v->has_e2e ? ns_to_s(v->e2e_ns) : NAN);
}
