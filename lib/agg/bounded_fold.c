/* Bounded mode's side of the aggregator: building its sketches, and
 * folding a request into them (its gaps by gap_fold.c, or by the streaming
 * recorder that took them, stream.c). */
#include <math.h>
#include <string.h>

#include "agg/agg.h"
#include "agg/gap_fold.h"
#include "agg/stream.h"

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
        gap_fold_request(a, stores, r, v);
}
