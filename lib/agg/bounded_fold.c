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

static void part_commit(sketch *s, const gap_part *p)
{
    if (!p->count)
        return;
    s->count += p->count;
    fixsum_add_parts(&s->sums, p->sum, p->sq_lo, p->sq_hi);
    sketch_note_range(s, p->min, p->max);
}

LLMLAT_PRIVATE void gap_parts_commit(llmlat_agg *a, const gap_parts *p, bool icl_on)
{
    if (icl_on)
        part_commit(sk(a, LLMLAT_ICL), &p->icl);
    part_commit(sk(a, LLMLAT_ITL), &p->itl);
    if (p->max_gap >= 0)
        sketch_add_int(sk(a, LLMLAT_ITL_MAX), &a->map, (uint64_t)p->max_gap,
                       ns_to_s(p->max_gap));
}

/* ICL, ITL and ITL_MAX of a recorded request, by the gap rule's walk
 * (record/gaps.h), each sample counted at once (gap_fold.h). */
static void fold_gaps(llmlat_agg *a, const llmlat_request *r, const req_view *v)
{
    gap_walk w;
    uint32_t k0, k;
    if (!gap_walk_begin(&w, a->conv, r, v, &k0))
        return;
    const sketch_map *m = &a->map;
    sketch *itl_sk = sk(a, LLMLAT_ITL), *icl_sk = sk(a, LLMLAT_ICL);
    const bool icl_on = !v->icl_dropped;
    gap_parts p;
    gap_parts_init(&p);
    uint32_t zeros = gap_anchor_zeros(true, k0);
    if (zeros) {
        gap_parts_zeros(&p, zeros);
        itl_sk->zero += zeros;
    }
    int64_t gap;
    gap_sample icl, itl;
    while (gap_walk_next(&w, &gap, &k)) {
        gap_samples(gap, k, &icl, &itl);
        gap_parts_add(&p, gap, k, icl_on, &icl, &itl, &itl_sk->sums);
        if (icl_on)
            sketch_count(icl_sk, m, icl.x, 1);
        if (itl.w)
            sketch_count(itl_sk, m, itl.x, itl.w);
    }
    gap_parts_commit(a, &p, icl_on);
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
    if (r->folder) /* a streaming recorder's, counted as its events came */
        stream_commit(a, r, v);
    else
        fold_gaps(a, r, v);
    if (agg_any_slo(a))
        a->good += agg_meets_slos(a, v->has_ttft ? ns_to_s(v->ttft_ns) : NAN,
                                  v->has_tpot ? v->tpot_s : NAN,
                                  v->has_e2e ? ns_to_s(v->e2e_ns) : NAN);
}
