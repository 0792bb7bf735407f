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

/* What a request's gaps add to one of ITL or ICL besides bucket counts. */
typedef struct gap_part {
    uint64_t count;       /* samples (ITL: tokens) */
    uint64_t sum;         /* sum of w x, ns (for ITL: of the gaps) */
    uint64_t sq_lo, sq_hi; /* sum of w x^2 over integer samples */
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
    sketch_note_range(s, p->min, p->max);
}

/* The k > 1 tokens of a chunk closing gap g, evenly split: k ITL samples
 * of g / k (the value exact mode keeps), which sum to g and whose squares
 * sum to g^2 / k. */
static void fold_chunk(sketch *itl_sk, const sketch_map *m, gap_part *itl, int64_t g,
                       uint32_t k, double v)
{
    itl->count += k;
    itl->sum += (uint64_t)g;
    fixsum_add_square_ratio(&itl_sk->sums, (uint64_t)g, k);
    part_note(itl, v, v);
    sketch_count(itl_sk, m, v, k);
}

/* n ITL samples of 0: tokens that arrived with the one before them. */
static void fold_zeros(sketch *itl_sk, gap_part *itl, uint64_t n)
{
    itl->count += n;
    itl_sk->zero += n;
    part_note(itl, 0.0, 0.0);
}

/* ICL, ITL and ITL_MAX of one request. */
static void fold_gaps(llmlat_agg *a, metric_store *stores, const llmlat_request *r,
                      const req_view *v)
{
    gap_walk w;
    uint32_t k0, k;
    if (!gap_walk_begin(&w, a->conv, r, v, &k0))
        return;
    const sketch_map *m = &a->map;
    sketch *itl_sk = sk(stores, LLMLAT_ITL), *icl_sk = sk(stores, LLMLAT_ICL);
    const bool icl_on = !v->icl_dropped;
    gap_part icl = { .min = INFINITY, .max = -INFINITY }, itl = icl;
    if (k0 > 1) /* the first chunk's extra tokens arrived with no gap */
        fold_zeros(itl_sk, &itl, k0 - 1);
    int64_t gap, max_gap = -1;
    while (gap_walk_next(&w, &gap, &k)) {
        double gs = ns_to_s(gap);
        if (icl_on) {
            part_add_gap(&icl, gap);
            part_note(&icl, gs, gs);
            sketch_count(icl_sk, m, gs, 1);
        }
        if (k) {
            itl_split x = gap_itl_split(a->conv, gap, k);
            if (x.n == 1) {
                part_add_gap(&itl, gap);
                part_note(&itl, gs, gs);
                sketch_count(itl_sk, m, gs, 1);
            } else {
                fold_chunk(itl_sk, m, &itl, gap, k, x.value);
            }
            if (x.zeros)
                fold_zeros(itl_sk, &itl, x.zeros);
        }
        if (gap > max_gap)
            max_gap = gap;
    }
    part_commit(icl_sk, &icl);
    part_commit(itl_sk, &itl);
    if (max_gap >= 0)
        sketch_add_int(sk(stores, LLMLAT_ITL_MAX), m, (uint64_t)max_gap, ns_to_s(max_gap));
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

LLMLAT_PRIVATE void agg_bounded_push(llmlat_agg *a, metric_store *stores,
                                     const llmlat_request *r, const req_view *v)
{
    const sketch_map *m = &a->map;
    if (v->has_ttft)
        sketch_add_int(sk(stores, LLMLAT_TTFT), m, (uint64_t)v->ttft_ns, ns_to_s(v->ttft_ns));
    if (v->has_e2e)
        sketch_add_int(sk(stores, LLMLAT_E2E), m, (uint64_t)v->e2e_ns, ns_to_s(v->e2e_ns));
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
    fold_gaps(a, stores, r, v);
}
