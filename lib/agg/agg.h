/* The aggregator's layout, shared by its parts (agg.c: life cycle, add,
 * merge; agg_query.c: statistics, rates, counters; agg_params.c) and by the
 * report and serialization code. */
#ifndef LLMLAT_AGG_H
#define LLMLAT_AGG_H

#include <stdbool.h>
#include <stdint.h>

#include "util/alloc.h"
#include "record/convention.h"
#include "util/metric.h"
#include "util/units.h"
#include "agg/store.h"
#include "exact/timeline.h"
#include "record/request_log.h"

#define PARAM_FIRST LLMLAT_PARAM_RELATIVE_ERROR
#define PARAM_LAST LLMLAT_PARAM_SLO_E2E
#define PARAM_COUNT (PARAM_LAST - PARAM_FIRST + 1)
#define MAX_QUANTILES 32
#define MAX_BUCKET_BOUNDS 64

/* [lo, hi] of some requests' times; empty while lo > hi. */
typedef struct span {
    int64_t lo, hi;
} span;

#define SPAN_EMPTY ((span){ INT64_MAX, INT64_MIN })

/* A constant label: one allocation holding "name\0value\0". */
typedef struct agg_label {
    char *name;
    const char *value;
} agg_label;

struct llmlat_agg {
    llmlat_alloc al;
    const conv_rules *conv;
    int32_t mode;
    double params[PARAM_COUNT];
    double quantiles[MAX_QUANTILES];
    size_t n_quantiles;
    /* Prometheus histogram bounds from llmlat_agg_set_buckets, indexed by
     * metric_index(); 0 bounds = the metric's default (report_hist.c). */
    double bucket_bounds[METRIC_COUNT][MAX_BUCKET_BOUNDS];
    uint8_t n_bucket_bounds[METRIC_COUNT];
    agg_label labels[LLMLAT_MAX_LABELS]; /* sorted by name (labels.c) */
    size_t n_labels;

    uint64_t completed, failed, tpot_undefined;
    uint64_t input_tokens, output_tokens;
    span all;    /* every request: start .. last event (or start) */
    span valid;  /* successes with an E2E: start .. start + E2E */
    /* What the requests added lack (LLMLAT_LACKS_*), and the conventions
     * whose values the values-only ones carry, 1 << id (record/lacks.h). */
    uint32_t lacks, sources;

    /* Indexed by metric_index(); TOOL_ITL has samples of its own only
     * under LLMPerf, and aliases ITL, ICL or TPOT otherwise. */
    metric_store stores[METRIC_COUNT];
    timeline tl;      /* exact mode only */
    /* Exact mode: every request added, in order (record/request_log.h).
     * Complete unless some were merged from an aggregator that had none
     * (one read from version-1 bytes): see agg_holds_requests. */
    request_log log;

    /* Bounded mode (bounded_fold.c): the sketches' bucket layout, and the
     * successes that met the SLOs set when they were added. */
    sketch_map map;
    uint64_t good;
};

static inline double agg_param(const llmlat_agg *a, int32_t param)
{
    return a->params[param - PARAM_FIRST];
}

/* The store behind a metric id under a's convention (TOOL_ITL aliases). */
LLMLAT_PRIVATE const metric_store *agg_store(const llmlat_agg *a, int32_t metric);

/* true when a keeps every request it was given: exact mode, none of them
 * known by its values only, nothing merged in from an aggregator without
 * a log. What works per request needs it. */
static inline bool agg_holds_requests(const llmlat_agg *a)
{
    return a->mode == LLMLAT_MODE_EXACT && a->log.n_req == a->completed + a->failed;
}

/* ... and when their start times are on one clock, so that their times can
 * be compared across requests: what windows and timelines need. */
static inline bool agg_holds_timed_requests(const llmlat_agg *a)
{
    return agg_holds_requests(a) && !(a->lacks & LLMLAT_LACKS_START_TIMES);
}

/* Why a's data cannot support metric, rate or counter `id` (kind
 * LLMLAT_KIND_*), NULL when it can (record/lacks.h). */
LLMLAT_PRIVATE const char *agg_lacks_reason(const llmlat_agg *a, int32_t kind, int32_t id);

/* The duration D in seconds; false when undefined (no data, or 0). */
LLMLAT_PRIVATE bool agg_duration(const llmlat_agg *a, double *seconds);

LLMLAT_PRIVATE void agg_default_params(llmlat_agg *a);

/* A new, empty aggregator with a's convention, mode and params (so that it
 * merges into a), NULL when out of memory. */
LLMLAT_PRIVATE llmlat_agg *agg_new_empty_like(const llmlat_agg *a);

/* true when an SLO is set; then whether values (NaN = missing) meet them
 * all (agg_query.c). */
LLMLAT_PRIVATE bool agg_any_slo(const llmlat_agg *a);
LLMLAT_PRIVATE bool agg_meets_slos(const llmlat_agg *a, double ttft_s, double tpot_s, double e2e_s);

/* Labels (labels.c): freed with a; their bytes, for MEMORY_BYTES. */
LLMLAT_PRIVATE void agg_labels_free(llmlat_agg *a);
LLMLAT_PRIVATE size_t agg_labels_memory(const llmlat_agg *a);

/* Adding requests (agg.c), in three parts so that many can be added all
 * or nothing (llmlat_agg_add_columns): check says whether r can be added
 * after the requests `p` sums up (which it then adds r to), reserve makes
 * the room they all need, and commit folds r in, which cannot fail. */
typedef struct agg_pending {
    uint64_t requests, successes;
    uint64_t input_tokens, output_tokens;
    uint64_t tokens;   /* sum of k over the successes' events (ITL samples) */
    size_t events;     /* the successes' events */
    size_t logged, logged_events; /* the requests exact mode logs, and their events */
} agg_pending;

LLMLAT_PRIVATE int32_t agg_add_check(const llmlat_agg *a, const llmlat_request *r,
                                     const req_view *v, agg_pending *p);
LLMLAT_PRIVATE int32_t agg_add_reserve(llmlat_agg *a, const agg_pending *p);
LLMLAT_PRIVATE void agg_add_commit(llmlat_agg *a, const llmlat_request *r, const req_view *v);

/* Bounded mode (bounded_fold.c). setup (re)builds the layout and empty
 * sketches for alpha, all or nothing (ENOMEM leaves a as it was). push
 * folds in a success that agg.c's acceptance rule admitted, and cannot
 * fail. */
LLMLAT_PRIVATE int32_t agg_bounded_setup(llmlat_agg *a, double alpha);
LLMLAT_PRIVATE void agg_bounded_free(llmlat_agg *a);
LLMLAT_PRIVATE void agg_bounded_push(llmlat_agg *a, const llmlat_request *r, const req_view *v);

#endif
