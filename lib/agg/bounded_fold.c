/* Bounded mode's side of the aggregator: building its sketches, and
 * folding a request into them. This is a server's hot path, so a request's
 * gaps are walked once, summed in integers first, and each token costs a
 * bucket lookup and two increments (ITL and ICL share the index when the
 * event carries one token). */
#include <math.h>
#include <string.h>

#include "agg/agg.h"

/* Times are kept in ns inside the sketches (integer gaps stay exact). */
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

/* What a request's gaps add to one of ITL or ICL besides bucket counts. */
typedef struct gap_part {
    uint64_t count;       /* samples (ITL: tokens) */
    uint64_t zero;        /* of which 0 */
    uint64_t sum;         /* sum of w x, ns (for ITL: of the gaps) */
    uint64_t sq_lo, sq_hi; /* sum of w x^2 over integer samples */
    double min, max;      /* reported (s); +inf / -inf when none */
} gap_part;

static void part_add_gap(gap_part *p, int64_t g)
{
    uint64_t lo, hi;
    wide_mul((uint64_t)g, (uint64_t)g, &lo, &hi);
    p->count++;
    p->sum += (uint64_t)g;
    wide_add(&p->sq_lo, &p->sq_hi, lo, hi);
}

static void part_note(gap_part *p, double lo, double hi)
{
    if (lo < p->min)
        p->min = lo;
    if (hi > p->max)
        p->max = hi;
}

static void part_commit(sketch *s, const gap_part *p)
{
    if (!p->count)
        return;
    s->count += p->count;
    s->zero += p->zero;
    fixsum_add_parts(&s->sums, p->sum, p->sq_lo, p->sq_hi);
    sketch_note_range(s, p->min, p->max);
}

/* An event that is not the common case (one token, a positive gap, ICL
 * kept): its ICL sample (when kept) and ITL samples go to the parts. */
LLMLAT_COLD static void fold_odd_gap(llmlat_agg *a, int64_t g, uint32_t k, bool icl_on,
                                     gap_part *icl, gap_part *itl)
{
    const sketch_map *m = &a->map;
    double gs = ns_to_s(g);
    if (icl_on) {
        part_add_gap(icl, g);
        part_note(icl, gs, gs);
        if (g)
            sketch_bump(sk(a, LLMLAT_ICL), m, sketch_map_index(m, (double)g), 1);
        else
            icl->zero++;
    }
    if (!k)
        return;
    if (k == 1) {
        part_add_gap(itl, g);
        part_note(itl, gs, gs);
    } else { /* k samples of g / k: they sum to g, their squares to g^2 / k */
        double v = gs / (double)k; /* the value exact mode keeps */
        itl->count += k;
        itl->sum += (uint64_t)g;
        fixsum_add_square_ratio(&sk(a, LLMLAT_ITL)->sums, (uint64_t)g, k);
        part_note(itl, v, v);
    }
    if (g)
        sketch_bump(sk(a, LLMLAT_ITL), m, sketch_map_index(m, (double)g / (double)k), k);
    else
        itl->zero += k;
}

/* The layout's fields in locals for the gap loop (bucket stores could
 * alias them, and the compiler would reload them after each). */
typedef struct layout {
    const uint16_t *cell;
    int64_t per_octave;
    unsigned cell_shift;
    uint64_t cell_mask;
} layout;

static inline int64_t layout_index(const layout *l, double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return (int64_t)(b >> 52) * l->per_octave + l->cell[(b >> l->cell_shift) & l->cell_mask];
}

/* Counts one sample at each of idx[0..n) in both sketches (ITL and ICL).
 * An index inside both used ranges [low, top] needs neither a move nor a
 * clamp: that is the loop, with the windows in registers; the rest take
 * sketch_bump. */
static void bump_pair(sketch *x, sketch *y, const sketch_map *m, const int64_t *idx, size_t n)
{
    size_t j = 0;
    while (j < n) {
        if (x->top == SKETCH_NO_TOP || y->top == SKETCH_NO_TOP) {
            sketch_bump(x, m, idx[j], 1);
            sketch_bump(y, m, idx[j++], 1);
            continue;
        }
        uint64_t xlow = (uint64_t)x->low, xspan = (uint64_t)(x->top - x->low);
        uint64_t ylow = (uint64_t)y->low, yspan = (uint64_t)(y->top - y->low);
        uint64_t *xb = x->bucket + (x->low - x->base), *yb = y->bucket + (y->low - y->base);
        for (; j < n; j++) {
            uint64_t ox = (uint64_t)idx[j] - xlow, oy = (uint64_t)idx[j] - ylow;
            if (ox > xspan || oy > yspan)
                break;
            xb[ox]++;
            yb[oy]++;
        }
        if (j < n) {
            sketch_bump(x, m, idx[j], 1);
            sketch_bump(y, m, idx[j++], 1);
        }
    }
}

/* The common gaps (one token, gap > 0, ICL kept) are taken in blocks of
 * up to GAP_BLOCK: found and summed in one loop, then counted in both
 * sketches by bump_pair. Split so, each loop keeps its state in
 * registers. */
#define GAP_BLOCK 128

typedef struct common_gaps {
    uint64_t n, sum, sq_lo, sq_hi;
    int64_t min, max;
} common_gaps;

/* A block of a request whose events all carry one token: every event
 * counts and no k need be read. From event *i (previous: *i - 1) to end,
 * stopping before a gap <= 0. Returns the block's size. */
static inline size_t take_plain(const int64_t *t, size_t *i, size_t end, const layout *lay,
                                common_gaps *c, int64_t *idx)
{
    uint64_t sum = 0, sq_lo = 0, sq_hi = 0;
    int64_t min = c->min, max = c->max;
    size_t n = 0, j = *i;
    for (; j <= end; j++) {
        int64_t gap = t[j] - t[j - 1];
        if (gap <= 0)
            break;
        uint64_t lo, hi;
        wide_mul((uint64_t)gap, (uint64_t)gap, &lo, &hi);
        wide_add(&sq_lo, &sq_hi, lo, hi);
        sum += (uint64_t)gap;
        min = gap < min ? gap : min;
        max = gap > max ? gap : max;
        idx[n++] = layout_index(lay, (double)gap);
    }
    *i = j;
    c->n += n;
    c->sum += sum;
    wide_add(&c->sq_lo, &c->sq_hi, sq_lo, sq_hi);
    c->min = min;
    c->max = max;
    return n;
}

/* The same for any request, reading k: stops before an event that is not
 * a one-token event with a gap > 0 from *prev. */
static inline size_t take_general(const int64_t *t, const uint32_t *k, size_t *i, size_t end,
                                  int64_t *prev, const layout *lay, common_gaps *c,
                                  int64_t *idx)
{
    size_t n = 0, j = *i;
    for (; j <= end; j++) {
        int64_t gap = t[j] - *prev;
        if (k[j] != 1 || gap <= 0)
            break;
        uint64_t lo, hi;
        wide_mul((uint64_t)gap, (uint64_t)gap, &lo, &hi);
        wide_add(&c->sq_lo, &c->sq_hi, lo, hi);
        c->sum += (uint64_t)gap;
        c->min = gap < c->min ? gap : c->min;
        c->max = gap > c->max ? gap : c->max;
        idx[n++] = layout_index(lay, (double)gap);
        *prev = t[j];
    }
    *i = j;
    c->n += n;
    return n;
}

/* ICL, ITL and ITL_MAX of one request. */
static void fold_gaps(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    if (v->anchor == REQ_NONE || (v->last == v->anchor && r->k[v->anchor] <= 1))
        return; /* no gap, no extra token */
    const sketch_map *m = &a->map;
    const layout lay = { m->cell, m->per_octave, m->cell_shift, m->cell_mask };
    sketch *itl_sk = sk(a, LLMLAT_ITL), *icl_sk = sk(a, LLMLAT_ICL);
    const bool every_event = a->conv->empty_events_count, icl_on = !v->icl_dropped;
    gap_part icl = { .min = INFINITY, .max = -INFINITY }, itl = icl;
    common_gaps common = { 0, 0, 0, 0, INT64_MAX, 0 };
    int64_t odd_max = -1;

    uint32_t k0 = r->k[v->anchor];
    if (k0 > 1) { /* the first chunk's extra tokens arrived with no gap */
        itl.count += k0 - 1;
        itl.zero += k0 - 1;
        part_note(&itl, 0.0, 0.0);
    }
    const int64_t *t = r->t;
    const size_t last = v->last;
    /* With only one-token events (the usual stream), no k need be read. */
    const bool plain = r->sum.n_tok == r->n && r->sum.sum_k == r->n;
    int64_t prev = t[v->anchor], idx[GAP_BLOCK];
    for (size_t i = v->anchor + 1; i <= last;) {
        size_t nb = 0, end = last - i < GAP_BLOCK ? last : i + GAP_BLOCK - 1;
        if (icl_on) { /* else every event is odd */
            nb = plain ? take_plain(t, &i, end, &lay, &common, idx)
                       : take_general(t, r->k, &i, end, &prev, &lay, &common, idx);
            if (plain)
                prev = t[i - 1];
            bump_pair(itl_sk, icl_sk, m, idx, nb);
            if (i > end) /* the block is full, or the request done */
                continue;
        }
        /* an event the blocks do not take */
        uint32_t k = r->k[i];
        int64_t ti = t[i++];
        if (!k && !every_event)
            continue;
        int64_t gap = ti - prev;
        prev = ti;
        if (gap > odd_max)
            odd_max = gap;
        fold_odd_gap(a, gap, k, icl_on, &icl, &itl);
    }
    if (common.n) { /* the common samples, into both parts */
        double lo = ns_to_s(common.min), hi = ns_to_s(common.max);
        gap_part *both[2] = { &icl, &itl };
        for (int j = 0; j < 2; j++) {
            both[j]->count += common.n;
            both[j]->sum += common.sum;
            wide_add(&both[j]->sq_lo, &both[j]->sq_hi, common.sq_lo, common.sq_hi);
            part_note(both[j], lo, hi);
        }
    }
    part_commit(icl_sk, &icl);
    part_commit(itl_sk, &itl);
    int64_t max_gap = common.n && common.max > odd_max ? common.max : odd_max;
    if (max_gap >= 0)
        sketch_add_int(sk(a, LLMLAT_ITL_MAX), m, (uint64_t)max_gap, ns_to_s(max_gap));
}

LLMLAT_PRIVATE void agg_bounded_push(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    const sketch_map *m = &a->map;
    if (v->has_ttft)
        sketch_add_int(sk(a, LLMLAT_TTFT), m, (uint64_t)v->ttft_ns, ns_to_s(v->ttft_ns));
    if (v->has_e2e)
        sketch_add_int(sk(a, LLMLAT_E2E), m, (uint64_t)v->e2e_ns, ns_to_s(v->e2e_ns));
    if (v->has_tpot)
        sketch_add_double(sk(a, LLMLAT_TPOT), m, v->tpot_s * 1e9, v->tpot_s);
    if (v->has_tps)
        sketch_add_double(sk(a, LLMLAT_TPS_USER), m, v->tps, v->tps);
    if (v->has_tool_itl)
        sketch_add_double(sk(a, LLMLAT_TOOL_ITL), m, v->tool_itl_s * 1e9, v->tool_itl_s);
    sketch_add_int(sk(a, LLMLAT_OUTPUT_TOKENS), m, v->n_out, (double)v->n_out);
    sketch_add_int(sk(a, LLMLAT_INPUT_TOKENS), m, r->input_tokens, (double)r->input_tokens);
    fold_gaps(a, r, v);
    if (agg_any_slo(a))
        a->good += agg_meets_slos(a, v->has_ttft ? ns_to_s(v->ttft_ns) : NAN,
                                  v->has_tpot ? v->tpot_s : NAN,
                                  v->has_e2e ? ns_to_s(v->e2e_ns) : NAN);
}
