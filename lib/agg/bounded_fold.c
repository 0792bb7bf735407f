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

LLMLAT_PRIVATE int32_t agg_bounded_check(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    /* The exact sums take samples below 2^64 of their unit: only an absurd
     * tokens/s (N / E2E) can reach that. */
    if (v->has_tps && !(v->tps >= 0.0 && v->tps < FIXSUM_LIMIT))
        return LLMLAT_EINVAL;
    /* ITL counts tokens, ICL events: bound them by the request's totals
     * (its summary is valid: it ended). */
    if (sk(a, LLMLAT_ITL)->count > UINT64_MAX - r->sum.sum_k ||
        sk(a, LLMLAT_ICL)->count > UINT64_MAX - r->n)
        return LLMLAT_EINVAL;
    return LLMLAT_OK;
}

/* What a request's gaps add to one of ITL or ICL besides bucket counts. */
typedef struct gap_part {
    uint64_t count;       /* samples (ITL: tokens) */
    uint64_t sum;         /* sum of w x, ns (for ITL: of the gaps) */
    uint64_t sq_lo, sq_hi; /* sum of w x^2 over integer samples */
    double sq_frac;       /* ITL: sum of g^2 / k over events with k > 1 */
    double min, max;      /* exported (s); +inf / -inf when none */
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
    fixsum_add_parts(&s->sums, p->sum, p->sq_lo, p->sq_hi);
    if (p->sq_frac > 0.0)
        fixsum_add_square_part(&s->sums, p->sq_frac);
    sketch_note_range(s, p->min, p->max);
}

/* The k > 1 tokens of a chunk closing gap g: k ITL samples of g / k (the
 * value exact mode keeps), which sum to g and whose squares sum to
 * g^2 / k. */
static void fold_chunk(llmlat_agg *a, gap_part *itl, int64_t g, uint32_t k)
{
    double v = ns_to_s(g) / (double)k;
    itl->count += k;
    itl->sum += (uint64_t)g;
    itl->sq_frac += (double)g * (double)g / (double)k;
    part_note(itl, v, v);
    sketch_count(sk(a, LLMLAT_ITL), &a->map, v, k);
}

/* ICL, ITL and ITL_MAX of one request. */
static void fold_gaps(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    gap_walk w;
    uint32_t k0, k;
    if (!gap_walk_begin(&w, a->conv, r, v, &k0))
        return;
    const sketch_map *m = &a->map;
    sketch *itl_sk = sk(a, LLMLAT_ITL), *icl_sk = sk(a, LLMLAT_ICL);
    const bool icl_on = !v->icl_dropped;
    gap_part icl = { .min = INFINITY, .max = -INFINITY }, itl = icl;
    if (k0 > 1) { /* the first chunk's extra tokens arrived with no gap */
        itl.count += k0 - 1;
        itl_sk->zero += k0 - 1;
        part_note(&itl, 0.0, 0.0);
    }
    int64_t gap, max_gap = -1;
    while (gap_walk_next(&w, &gap, &k)) {
        double gs = ns_to_s(gap);
        if (icl_on) {
            part_add_gap(&icl, gap);
            part_note(&icl, gs, gs);
            sketch_count(icl_sk, m, gs, 1);
        }
        if (k == 1) {
            part_add_gap(&itl, gap);
            part_note(&itl, gs, gs);
            sketch_count(itl_sk, m, gs, 1);
        } else if (k > 1) {
            fold_chunk(a, &itl, gap, k);
        }
        if (gap > max_gap)
            max_gap = gap;
    }
    part_commit(icl_sk, &icl);
    part_commit(itl_sk, &itl);
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
