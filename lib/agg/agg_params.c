/* Numbered parameters with queryable bounds, and the report quantiles. */
#include <math.h>

#include "agg/agg.h"
#include "agg/stream.h"

typedef struct param_info {
    double lo, hi, def;
    /* A bounded aggregator's data were made with it (its buckets, its
     * good count): fixed once data arrived, the same to merge. */
    bool fixes_data;
} param_info;

static const param_info PARAMS[PARAM_COUNT] = {
    [LLMLAT_PARAM_RELATIVE_ERROR - PARAM_FIRST] = { 1e-4, 0.25, 0.01, true },
    [LLMLAT_PARAM_DURATION - PARAM_FIRST] = { 0.0, 1e12, 0.0, false },
    [LLMLAT_PARAM_SLO_TTFT - PARAM_FIRST] = { 0.0, 1e9, 0.0, true },
    [LLMLAT_PARAM_SLO_TPOT - PARAM_FIRST] = { 0.0, 1e9, 0.0, true },
    [LLMLAT_PARAM_SLO_E2E - PARAM_FIRST] = { 0.0, 1e9, 0.0, true },
    [LLMLAT_PARAM_MAX_DISPATCH_DELAY - PARAM_FIRST] = { 0.0, 1e9, 0.001, false },
    /* 0 or 1; it chooses the convention's row (set_server_output_tokens) */
    [LLMLAT_PARAM_SERVER_OUTPUT_TOKENS - PARAM_FIRST] = { 0.0, 1.0, 0.0, false },
};

static const double DEFAULT_QUANTILES[] = { 0.5, 0.9, 0.95, 0.99 };

static bool param_valid(int32_t param)
{
    return param >= PARAM_FIRST && param <= PARAM_LAST;
}

/* N is the server's usage count (1) or the client's (0): the convention's
 * rules change with it, so it is set before any request is added. */
static int32_t set_server_output_tokens(llmlat_agg *a, double value)
{
    if (value != 0.0 && value != 1.0)
        return LLMLAT_EINVAL;
    if (value != agg_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS) && (a->completed || a->failed))
        return LLMLAT_ESTATE;
    const conv_rules *c = conv_get(a->conv->id);
    a->conv = value == 1.0 ? conv_server_output_tokens(c) : c;
    a->params[LLMLAT_PARAM_SERVER_OUTPUT_TOKENS - PARAM_FIRST] = value;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE bool agg_param_fixes_data(int32_t param)
{
    return PARAMS[param - PARAM_FIRST].fixes_data;
}

LLMLAT_PRIVATE void agg_default_params(llmlat_agg *a)
{
    for (int i = 0; i < PARAM_COUNT; i++)
        a->params[i] = PARAMS[i].def;
    a->n_quantiles = sizeof DEFAULT_QUANTILES / sizeof DEFAULT_QUANTILES[0];
    for (size_t i = 0; i < a->n_quantiles; i++)
        a->quantiles[i] = DEFAULT_QUANTILES[i];
}

LLMLAT_API int32_t llmlat_param_bounds(int32_t param, double *lo, double *hi)
{
    if (!param_valid(param) || !lo || !hi)
        return LLMLAT_EINVAL;
    *lo = PARAMS[param - PARAM_FIRST].lo;
    *hi = PARAMS[param - PARAM_FIRST].hi;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_agg_set_param(llmlat_agg *a, int32_t param, double value)
{
    if (!a || !param_valid(param) || !isfinite(value))
        return LLMLAT_EINVAL;
    const param_info *p = &PARAMS[param - PARAM_FIRST];
    if (value < p->lo || value > p->hi)
        return LLMLAT_EINVAL;
    if (param == LLMLAT_PARAM_SERVER_OUTPUT_TOKENS)
        return set_server_output_tokens(a, value);
    if (a->mode == LLMLAT_MODE_BOUNDED && p->fixes_data &&
        value != a->params[param - PARAM_FIRST]) {
        /* The buckets and the good count were built with the old value. */
        if (a->completed || a->failed)
            return LLMLAT_ESTATE;
        if (param == LLMLAT_PARAM_RELATIVE_ERROR) {
            int32_t st = agg_bounded_setup(a, value);
            if (st != LLMLAT_OK)
                return st;
            stream_layout_forget(a); /* new recorders take the new layout */
        }
    }
    a->params[param - PARAM_FIRST] = value;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_agg_get_param(const llmlat_agg *a, int32_t param, double *out)
{
    if (!a || !param_valid(param) || !out)
        return LLMLAT_EINVAL;
    *out = a->params[param - PARAM_FIRST];
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_agg_set_quantiles(llmlat_agg *a, const double *q, size_t n)
{
    if (!a || !q || n == 0 || n > MAX_QUANTILES)
        return LLMLAT_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!(q[i] >= 0.0 && q[i] <= 1.0)) /* also rejects NaN */
            return LLMLAT_EINVAL;
    for (size_t i = 0; i < n; i++)
        a->quantiles[i] = q[i];
    a->n_quantiles = n;
    return LLMLAT_OK;
}
