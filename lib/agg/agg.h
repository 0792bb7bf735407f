/* The aggregator's layout, shared by its parts (agg.c: life cycle, add,
 * merge; agg_query.c: statistics, rates, counters; agg_params.c) and by the
 * report and serialization code. */
#ifndef LLMLAT_AGG_H
#define LLMLAT_AGG_H

#include <math.h>
#include <stdatomic.h>
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
#define PARAM_LAST LLMLAT_PARAM_SERVER_OUTPUT_TOKENS
#define PARAM_COUNT (PARAM_LAST - PARAM_FIRST + 1)
#define MAX_QUANTILES 32
#define MAX_BUCKET_BOUNDS 64

/* [lo, hi] of some requests' times; empty while lo > hi. */
typedef struct span {
    int64_t lo, hi;
} span;

#define SPAN_EMPTY ((span){ INT64_MAX, INT64_MIN })

/* hi - lo in seconds; false when the span is empty or has length 0. */
static inline bool span_seconds(span s, double *seconds)
{
    if (s.lo >= s.hi)
        return false;
    /* hi - lo may not fit int64 (negative epochs): its uint64 does. */
    *seconds = (double)((uint64_t)s.hi - (uint64_t)s.lo) / 1e9;
    return true;
}

/* The requests of one status group that is not the successes', under a
 * convention with status_groups: GuideLLM's incomplete (cancelled) and
 * errored requests, which inference-perf reports together as its
 * failures. Their samples are folded as a success's are. */
typedef struct agg_group {
    uint64_t count, input_tokens, output_tokens;
    span tokens; /* their token points (token_rates_over_token_span) */
    metric_store stores[METRIC_COUNT];
} agg_group;

#define FAILED_GROUPS (GROUP_COUNT - 1) /* incomplete, errored */

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
     * metric_index(); 0 bounds = the metric's default (agg_buckets.c). */
    double bucket_bounds[METRIC_COUNT][MAX_BUCKET_BOUNDS];
    uint8_t n_bucket_bounds[METRIC_COUNT];
    agg_label labels[LLMLAT_MAX_LABELS]; /* sorted by name (labels.c) */
    size_t n_labels;

    uint64_t completed, failed, tpot_undefined;
    uint64_t input_tokens, output_tokens;
    span all;    /* every request: start .. last event (or start), or its
                    end under span_to_end */
    span valid;  /* successes with an E2E: start .. start + E2E */
    /* What the requests added lack (LLMLAT_LACKS_*), and the conventions
     * whose values the values-only ones carry, 1 << id (record/lacks.h). */
    uint32_t lacks, sources;
    span tokens; /* successes' token points (token_rates_over_token_span) */

    /* Indexed by metric_index(); TOOL_ITL has samples of its own only
     * under LLMPerf, and aliases ITL, ICL or TPOT otherwise. */
    metric_store stores[METRIC_COUNT];
    timeline tl;      /* exact mode only */
    /* The other status groups (conv->status_groups), indexed by
     * group - GROUP_INCOMPLETE: see agg_failed_group. */
    agg_group failures[FAILED_GROUPS];
    /* Exact mode: every request added, in order (record/request_log.h).
     * Complete unless some were merged from an aggregator that had none
     * (one read from version-1 bytes): see agg_holds_requests. */
    request_log log;

    /* Bounded mode (bounded_fold.c): the sketches' bucket layout, and the
     * successes that met the SLOs set when they were added. */
    sketch_map map;
    uint64_t good;

    /* The layout its streaming recorders share (agg/stream.c), made on
     * first use. */
    _Atomic(struct stream_layout *) layout;
};

static inline double agg_param(const llmlat_agg *a, int32_t param)
{
    return a->params[param - PARAM_FIRST];
}

/* The store behind a metric id under a's convention (TOOL_ITL aliases). */
static inline const metric_store *agg_store(const llmlat_agg *a, int32_t metric)
{
    if (metric == LLMLAT_TOOL_ITL)
        metric = conv_tool_itl_metric(a->conv);
    return &a->stores[metric_index(metric)];
}

/* Whether mode is one of the modes (an argument, or read from bytes). */
static inline bool agg_mode_valid(int32_t mode)
{
    return mode == LLMLAT_MODE_EXACT || mode == LLMLAT_MODE_BOUNDED;
}

/* The mode's name, as reports and the exposition write it. */
static inline const char *agg_mode_name(const llmlat_agg *a)
{
    return a->mode == LLMLAT_MODE_BOUNDED ? "bounded" : "exact";
}

/* What a mode keeps besides its stores. Exact mode keeps a timeline of its
 * successes (the peaks, the run over time, the good count under SLOs set
 * later) and a request log: its byte format has their sections. Bounded
 * mode keeps neither: it counts the successes that met its SLOs as they
 * come (its SLOs are fixed once data arrived), and its quantiles are
 * within its relative error. */
static inline bool agg_keeps_timeline(const llmlat_agg *a)
{
    return a->mode == LLMLAT_MODE_EXACT;
}

/* The relative error of a's quantiles; NaN when they are exact. */
static inline double agg_quantile_error(const llmlat_agg *a)
{
    return agg_keeps_timeline(a) ? NAN : a->params[LLMLAT_PARAM_RELATIVE_ERROR - PARAM_FIRST];
}

/* true when a keeps every request it was given: exact mode, none of them
 * known by its values only, nothing merged in from an aggregator without
 * a log. What works per request needs it. */
static inline bool agg_holds_requests(const llmlat_agg *a)
{
    return agg_keeps_timeline(a) && a->log.n_req == a->completed + a->failed;
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
/* The group of requests that are not successes (GROUP_INCOMPLETE or
 * GROUP_ERRORED). */
static inline agg_group *agg_failed_group(llmlat_agg *a, enum req_group g)
{
    return &a->failures[g - GROUP_INCOMPLETE];
}

/* One status group's counters and stores as the queries read them (the
 * successes are the aggregator's own fields). */
typedef struct group_view {
    uint64_t count, input_tokens, output_tokens;
    span tokens;
    const metric_store *stores; /* METRIC_COUNT, indexed by metric_index() */
} group_view;

LLMLAT_PRIVATE group_view agg_group_view(const llmlat_agg *a, enum req_group g);

/* A statistic or n valid quantiles of one store, as
 * llmlat_agg_stat and llmlat_agg_quantiles compute them under a's
 * convention (its placeholder for an empty store included). */
LLMLAT_PRIVATE int32_t agg_store_stat(const llmlat_agg *a, const metric_store *s, int32_t stat,
                                      double *out);
LLMLAT_PRIVATE int32_t agg_store_quantiles(const llmlat_agg *a, const metric_store *s,
                                           const double *q, size_t n, double *out);
/* GuideLLM's inverse-CDF quantiles, n <= MAX_QUANTILES + 1 (a report's
 * and the median), and its mode when mode is not NULL (NaN in bounded
 * mode), with one sort of the store. */
LLMLAT_PRIVATE int32_t agg_store_inverse_cdf(const llmlat_agg *a, const metric_store *s,
                                             const double *q, size_t n, double *out,
                                             double *mode);

/* A metric's classic histogram (agg_buckets.c): its bounds, NULL (and
 * *n 0) when it has none (not a time); those set with
 * llmlat_agg_set_buckets, NULL (and *n 0) while they are the default; and
 * cum[i] = the weight of the samples <= bounds[i] for i < n, cum[n] that
 * of all of them (n + 1 entries). */
LLMLAT_PRIVATE const double *agg_hist_bounds(const llmlat_agg *a, int32_t metric, size_t *n);
LLMLAT_PRIVATE const double *agg_hist_set_bounds(const llmlat_agg *a, int32_t metric, size_t *n);
LLMLAT_PRIVATE void agg_hist_cumulative(const llmlat_agg *a, int32_t metric,
                                        const double *bounds, size_t n, uint64_t *cum);

/* The duration D in seconds; false when undefined (no data, or 0). */
LLMLAT_PRIVATE bool agg_duration(const llmlat_agg *a, double *seconds);

LLMLAT_PRIVATE void agg_default_params(llmlat_agg *a);
/* Whether a bounded aggregator's data were made with the param (relative
 * error, SLOs): then it is fixed once data arrived, and two aggregators
 * merge only with the same value. */
LLMLAT_PRIVATE bool agg_param_fixes_data(int32_t param);

/* Every check of llmlat_agg_add (ESTATE, EMISMATCH, EOVERFLOW) and of
 * llmlat_agg_merge (EMISMATCH, EOVERFLOW), without changing anything: only
 * an exact store's allocation can still fail after OK. For callers that
 * must know before they change other state. */
LLMLAT_PRIVATE int32_t agg_can_add(llmlat_agg *a, const llmlat_request *r);
LLMLAT_PRIVATE int32_t agg_can_merge(const llmlat_agg *dst, const llmlat_agg *src);
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
typedef struct agg_pending_group {
    uint64_t requests;
    uint64_t scheduled; /* of them, those with an intended start */
    uint64_t input_tokens, output_tokens;
    uint64_t tokens; /* sum of k over their events (ITL samples) */
    size_t events;
} agg_pending_group;

typedef struct agg_pending {
    uint64_t requests; /* every one, kept in a group or only counted */
    /* by enum req_group: the successes, and the other groups' requests
     * where the convention keeps them */
    agg_pending_group group[GROUP_COUNT];
    size_t logged, logged_events; /* the requests exact mode logs, and their events */
} agg_pending;

/* Nothing pending, field by field: on every add's path, where `= { 0 }`
 * of the whole struct compiles to `rep stos` and its start-up cost. */
static inline void agg_pending_init(agg_pending *p)
{
    p->requests = 0;
    for (int g = 0; g < GROUP_COUNT; g++)
        p->group[g] = (agg_pending_group){ 0, 0, 0, 0, 0, 0 };
    p->logged = p->logged_events = 0;
}

LLMLAT_PRIVATE int32_t agg_add_check(const llmlat_agg *a, const llmlat_request *r,
                                     const req_view *v, agg_pending *p);
LLMLAT_PRIVATE int32_t agg_add_reserve(llmlat_agg *a, const agg_pending *p);
LLMLAT_PRIVATE void agg_add_commit(llmlat_agg *a, const llmlat_request *r, const req_view *v);

/* Bounded mode (bounded_fold.c). setup (re)builds the layout and empty
 * sketches for alpha (the successes', and the other status groups' when
 * the convention keeps them), all or nothing (ENOMEM leaves a as it was).
 * push folds a request that agg.c's acceptance rule admitted into a
 * group's stores, and cannot fail. */
LLMLAT_PRIVATE int32_t agg_bounded_setup(llmlat_agg *a, double alpha);
LLMLAT_PRIVATE void agg_bounded_free(llmlat_agg *a);
LLMLAT_PRIVATE void agg_bounded_push(llmlat_agg *a, metric_store *stores,
                                     const llmlat_request *r, const req_view *v);

#endif
