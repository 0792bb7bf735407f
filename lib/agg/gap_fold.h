/* What a request's gaps add to bounded mode's ITL, ICL and ITL_MAX: the
 * one unit of the gap fold, for its two users. A recorded request's gaps
 * are folded here (gap_fold.c: gap_fold_request, runs of common gaps
 * counted at once, the other gaps one by one, the sums from the request's
 * span); a streaming recorder (stream.c) folds its blocks with the same
 * pieces into buckets of its own as events come, and commits them with
 * gap_parts_commit. Which events make which gaps is the gap rule
 * (record/gaps.h); this is what each gap is worth: the samples to count
 * in buckets (gap_samples), and the sums and extremes kept per request
 * (gap_parts, with common_gaps for a run of the usual gaps). Called by
 * bounded_fold.c and stream.c, it calls neither. */
#ifndef LLMLAT_GAP_FOLD_H
#define LLMLAT_GAP_FOLD_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "agg/agg.h"
#include "record/gaps.h"
#include "util/fixsum.h"
#include "util/wide.h"

/* What a request's gaps add to one of ITL or ICL besides bucket counts. */
typedef struct gap_part {
    uint64_t count;       /* samples (ITL: tokens) */
    uint64_t sum;         /* sum of w x, ns (for ITL: of the gaps); a
                           * recorded request's fold takes its span instead */
    uint64_t sq_lo, sq_hi; /* sum of w x^2 over integer samples */
    double min, max;      /* exported (s); +inf / -inf when none */
} gap_part;

typedef struct gap_parts {
    gap_part icl, itl;
    int64_t max_gap;      /* ITL_MAX: the largest gap, -1 when none */
} gap_parts;

/* One sample for the buckets: weight w of the exported value x (w 0:
 * none; x 0 goes to the zero bucket), and `zeros` samples of 0 besides
 * (ITL's, where tokens take their chunk's time). */
typedef struct gap_sample {
    double x;
    uint64_t w;
    uint32_t zeros;
} gap_sample;

static inline void gap_parts_init(gap_parts *p)
{
    p->icl = (gap_part){ .min = INFINITY, .max = -INFINITY };
    p->itl = p->icl;
    p->max_gap = -1;
}

static inline void gap_part_note(gap_part *p, double lo, double hi)
{
    if (lo < p->min)
        p->min = lo;
    if (hi > p->max)
        p->max = hi;
}

static inline void gap_part_add_gap(gap_part *p, int64_t g)
{
    uint64_t lo, hi;
    wide_mul((uint64_t)g, (uint64_t)g, &lo, &hi);
    p->count++;
    p->sum += (uint64_t)g;
    wide_add(&p->sq_lo, &p->sq_hi, lo, hi);
}

/* The anchor's n extra tokens (record/gaps.h's gap_anchor_zeros): ITL
 * samples of 0; the caller counts them in its zero bucket. */
static inline void gap_parts_zeros(gap_parts *p, uint32_t n)
{
    p->itl.count += n;
    gap_part_note(&p->itl, 0.0, 0.0);
}

/* The samples of one gap g >= 0 closed by an event of k tokens: *icl
 * one sample of g; *itl the convention's split of the chunk
 * (gap_itl_split): k samples of g / k (the value exact mode keeps: they
 * sum to g, their squares to g^2 / k), or one of g and k - 1 zeros; none
 * when k = 0. */
static inline void gap_samples(enum chunk_split split, int64_t g, uint32_t k, gap_sample *icl,
                               gap_sample *itl)
{
    *icl = (gap_sample){ ns_to_s(g), 1, 0 };
    if (!k) {
        *itl = (gap_sample){ 0.0, 0, 0 };
        return;
    }
    itl_split x = gap_itl_split(split, g, k);
    *itl = (gap_sample){ x.value, x.n, x.zeros };
}

/* That gap's sums and extremes (its samples from gap_samples); ICL's only
 * when icl_on. A k-token chunk's squares, g^2 / k, go straight to the
 * exact sums *ratio (util/fixsum.h): the ITL sketch's, or the streaming
 * recorder's own until it is added (integer sums: the same bits). */
static inline void gap_parts_add(gap_parts *p, int64_t g, uint32_t k, bool icl_on,
                                 const gap_sample *icl, const gap_sample *itl, fixsum *ratio)
{
    if (icl_on) {
        gap_part_add_gap(&p->icl, g);
        gap_part_note(&p->icl, icl->x, icl->x);
    }
    if (itl->w == 1) { /* one sample of g */
        gap_part_add_gap(&p->itl, g);
        gap_part_note(&p->itl, itl->x, itl->x);
    } else if (itl->w > 1) {
        p->itl.count += k;
        p->itl.sum += (uint64_t)g;
        fixsum_add_square_ratio(ratio, (uint64_t)g, k);
        gap_part_note(&p->itl, itl->x, itl->x);
    }
    if (itl->zeros)
        gap_parts_zeros(p, itl->zeros);
    if (g > p->max_gap)
        p->max_gap = g;
}

/* Common gaps: one token each, 0 < gap < 2^53 ns, ICL kept; each is one
 * sample of the same value in ITL and ICL, so both folds count them at
 * once. What a run (or a block, or a streaming recorder's blocks so far)
 * of them adds: their number, sum, squares and extremes (ns); integers,
 * so the order they are added in does not matter. */
typedef struct common_gaps {
    uint64_t n, sum, sq_lo, sq_hi;
    int64_t min, max;
} common_gaps;

#define COMMON_GAPS_NONE ((common_gaps){ 0, 0, 0, 0, INT64_MAX, 0 })

static inline void common_gaps_merge(common_gaps *into, const common_gaps *c)
{
    into->n += c->n;
    into->sum += c->sum;
    wide_add(&into->sq_lo, &into->sq_hi, c->sq_lo, c->sq_hi);
    into->min = c->min < into->min ? c->min : into->min;
    into->max = c->max > into->max ? c->max : into->max;
}

/* A run of c->n >= 1 common gaps into both parts and ITL_MAX. */
static inline void gap_parts_add_common(gap_parts *p, const common_gaps *c)
{
    double lo = ns_to_s(c->min), hi = ns_to_s(c->max);
    gap_part *both[2] = { &p->icl, &p->itl };
    for (int j = 0; j < 2; j++) {
        both[j]->count += c->n;
        both[j]->sum += c->sum;
        wide_add(&both[j]->sq_lo, &both[j]->sq_hi, c->sq_lo, c->sq_hi);
        gap_part_note(both[j], lo, hi);
    }
    if (c->max > p->max_gap)
        p->max_gap = c->max;
}

/* One gap g closed by an event of k tokens, its samples icl and itl
 * (gap_samples), counted one by one: into the parts (ICL's only when
 * icl_sk is not NULL) and into the sketches of layout m, itl_sk's exact
 * sums taking a chunk's squares. How a recorded request's odd gaps and a
 * streaming recorder's held events are counted. */
static inline void gap_count_samples(gap_parts *p, sketch *icl_sk, sketch *itl_sk,
                                     const sketch_map *m, int64_t g, uint32_t k,
                                     const gap_sample *icl, const gap_sample *itl)
{
    gap_parts_add(p, g, k, icl_sk != NULL, icl, itl, &itl_sk->sums);
    if (icl_sk)
        sketch_count(icl_sk, m, icl->x, 1);
    if (itl->w)
        sketch_count(itl_sk, m, itl->x, itl->w);
    itl_sk->zero += itl->zeros;
}

/* The ns cells of a's map (bounded/sketch_map.h) in locals for the gap
 * loops (bucket stores could alias them, and the compiler would reload
 * them after each). */
typedef struct gap_layout {
    sketch_cells cell;
    unsigned shift;
    uint64_t mask;
} gap_layout;

static inline gap_layout gap_layout_of(const sketch_map *m)
{
    return (gap_layout){ m->ns_cell, m->cell_shift, m->cell_mask };
}

static inline int64_t gap_layout_index(const gap_layout *l, int64_t ns)
{
    return sketch_cells_index(l->cell.bound, l->cell.base, l->shift, l->mask, (double)ns);
}

/* Whether every k[0..n) is 1 (vectorized: no branch per event). */
static inline bool gap_all_one(const uint32_t *k, size_t n)
{
    uint32_t odd = 0;
    for (size_t j = 0; j < n; j++)
        odd |= k[j] ^ 1;
    return !odd;
}

/* The n >= 1 gaps from prev through t[0 .. n), all closed by one-token
 * events, when every one is common: their bucket indexes into idx, their
 * squares and extremes into *c (its sum the caller's to set). false (idx and *c then mean nothing) when
 * some gap is 0 or 2^53 ns and more: the loop checks nothing, the
 * extremes tell after it ((double)g is monotone). They are converted back
 * to integers only once they are known to be in range: a gap near 2^63
 * rounds to 2^63 as a double, which no int64 holds. */
static inline bool gap_common_block(const gap_layout *lay, int64_t prev, const int64_t *t,
                                    size_t n, int64_t *idx, common_gaps *c)
{
    const uint64_t *bound = lay->cell.bound;
    const int64_t *base = lay->cell.base;
    const unsigned shift = lay->shift;
    const uint64_t mask = lay->mask;
    uint64_t sq_lo = 0, sq_hi = 0;
    double min = INFINITY, max = 0.0;
    for (size_t j = 0; j < n; j++) {
        int64_t g = t[j] - prev;
        prev = t[j];
        uint64_t lo, hi;
        wide_mul((uint64_t)g, (uint64_t)g, &lo, &hi);
        wide_add(&sq_lo, &sq_hi, lo, hi);
        double x = (double)g; /* exact below 2^53 */
        min = min < x ? min : x; /* as written: one minsd, one maxsd */
        max = max > x ? max : x;
        idx[j] = sketch_cells_index(bound, base, shift, mask, x);
    }
    if (!(min >= 1.0 && max < (double)SKETCH_NS_EXACT))
        return false;
    /* the extremes are exact: < 2^53; the sum is the span, t[n - 1] minus
     * the caller's prev (kept out of the loop's registers) */
    *c = (common_gaps){ n, 0, sq_lo, sq_hi, (int64_t)min, (int64_t)max };
    return true;
}

/* The parts into a group's ICL, ITL and ITL_MAX sketches of a (their
 * buckets are the caller's), with the sums the parts kept: ICL's only when
 * icl_on (AIPerf drops a request's ICL for one zero gap). A streaming
 * recorder's commit. */
LLMLAT_PRIVATE void gap_parts_commit(llmlat_agg *a, metric_store *stores, const gap_parts *p,
                                     bool icl_on);

/* ICL, ITL and ITL_MAX of a recorded request r (its view v; with a gap,
 * or tokens beyond its anchor's first) into a group's stores of a
 * (bounded). */
LLMLAT_PRIVATE void gap_fold_request(llmlat_agg *a, metric_store *stores, const llmlat_request *r,
                                     const req_view *v);

#endif
