/* The gap fold (gap_fold.h): a recorded request's gaps into bounded
 * mode's ITL, ICL and ITL_MAX, and any request's gap parts committed.
 * This is a server's hot path: a request's gaps come from the gap rule's
 * walk (record/gaps.h), are summed in integers first, and each costs a
 * bucket lookup and a count in ITL and ICL. */
#include "agg/gap_fold.h"

static sketch *gap_sketch(metric_store *stores, int32_t metric)
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
        part_commit(gap_sketch(stores, LLMLAT_ICL), &p->icl, icl_sum);
    part_commit(gap_sketch(stores, LLMLAT_ITL), &p->itl, itl_sum);
    if (p->max_gap >= 0)
        sketch_add_ns(gap_sketch(stores, LLMLAT_ITL_MAX), &a->map, p->max_gap);
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
    gap_samples(a->conv->split, g, k, &icl, &itl);
    gap_count_samples(p, icl_on ? gap_sketch(stores, LLMLAT_ICL) : NULL,
                      gap_sketch(stores, LLMLAT_ITL), &a->map, g, k, &icl, &itl);
}

/* From gap j of a block with other gaps, the common gaps up to the first
 * other one: their bucket indexes into idx, their squares and extremes
 * into *c. Returns where it stopped. */
LLMLAT_NOINLINE static size_t take_common(const gap_block *b, size_t j, const gap_layout *lay,
                                          common_gaps *c, int64_t *idx)
{
    const uint32_t *k = b->k;
    const size_t from = j;
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
    *c = (common_gaps){ n, (uint64_t)(b->at[j] - b->at[from]), sq_lo, sq_hi, n ? min : 0, max };
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

/* A run of common gaps (idx their buckets) into both sketches and parts. */
static void count_common(gap_parts *p, sketch *itl_sk, sketch *icl_sk, const sketch_map *m,
                         const gap_layout *lay, const common_gaps *c, const int64_t *idx)
{
    bump_both(itl_sk, icl_sk, m, idx, c->n, gap_layout_index(lay, c->min),
              gap_layout_index(lay, c->max));
    gap_parts_add_common(p, c);
}

/* ICL, ITL and ITL_MAX of one request, by the gap rule (record/gaps.h):
 * block after block, each at once when all its gaps are common, else
 * split into runs of common gaps (counted in both sketches at once) and
 * the odd gaps between them. Out of line: a request of one token has no
 * gap, and needs none of this frame. */
LLMLAT_PRIVATE LLMLAT_NOINLINE void gap_fold_request(llmlat_agg *a, metric_store *stores,
                                                     const llmlat_request *r, const req_view *v)
{
    gap_walk w;
    uint32_t k0;
    if (!gap_walk_begin_ended(&w, a->conv, r, v, &k0))
        return;
    const sketch_map *m = &a->map;
    const gap_layout lay = gap_layout_of(m);
    sketch *itl_sk = gap_sketch(stores, LLMLAT_ITL), *icl_sk = gap_sketch(stores, LLMLAT_ICL);
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
            c.sum = (uint64_t)(blk.at[blk.n] - blk.at[0]); /* the gaps add up to the span */
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
