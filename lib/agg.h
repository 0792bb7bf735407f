/* The aggregator's layout, shared by its parts (agg.c: life cycle, add,
 * merge; agg_query.c: statistics, rates, counters; agg_params.c) and by the
 * report and serialization code. */
#ifndef LLMLAT_AGG_H
#define LLMLAT_AGG_H

#include <stdbool.h>
#include <stdint.h>

#include "alloc.h"
#include "convention.h"
#include "metric.h"
#include "store.h"
#include "timeline.h"

#define PARAM_FIRST LLMLAT_PARAM_RELATIVE_ERROR
#define PARAM_LAST LLMLAT_PARAM_SLO_E2E
#define PARAM_COUNT (PARAM_LAST - PARAM_FIRST + 1)
#define MAX_QUANTILES 32

/* [lo, hi] of some requests' times; empty while lo > hi. */
typedef struct span {
    int64_t lo, hi;
} span;

struct llmlat_agg {
    llmlat_alloc al;
    const conv_rules *conv;
    int32_t mode;
    double params[PARAM_COUNT];
    double quantiles[MAX_QUANTILES];
    size_t n_quantiles;

    uint64_t completed, failed, tpot_undefined;
    uint64_t input_tokens, output_tokens;
    span all;    /* every request: start .. last event (or start) */
    span valid;  /* successes with an E2E: start .. start + E2E */

    /* Indexed by metric_index(); TOOL_ITL has samples of its own only
     * under LLMPerf, and aliases ITL, ICL or TPOT otherwise. */
    metric_store stores[METRIC_COUNT];
    timeline tl;
};

static inline double agg_param(const llmlat_agg *a, int32_t param)
{
    return a->params[param - PARAM_FIRST];
}

/* The store behind a metric id under a's convention (TOOL_ITL aliases). */
metric_store *agg_store(const llmlat_agg *a, int32_t metric);

/* The duration D in seconds; false when undefined (no data, or 0). */
bool agg_duration(const llmlat_agg *a, double *seconds);

void agg_default_params(llmlat_agg *a);

#endif
