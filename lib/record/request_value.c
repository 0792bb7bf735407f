/* llmlat_request_value: one request's own metrics under a convention. */
#include <math.h>

#include "record/gaps.h"
#include "record/lacks.h"
#include "util/metric.h"
#include "util/units.h"

static int32_t defined(double v, double *out)
{
    *out = v;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_value(const llmlat_request *r, int32_t convention,
                                        int32_t metric, double *out)
{
    const conv_rules *c = conv_get(convention);
    if (!r || !out || !c || !metric_valid(metric))
        return LLMLAT_EINVAL;
    if (r->state == REQ_NEW)
        return LLMLAT_ESTATE;
    /* what its data cannot support (a request rebuilt from a tool's file) */
    lacks_ctx x = { .lacks = r->lacks, .c = c,
                    .sources = req_values_only(r) ? 1u << r->known_conv : 0 };
    if (lacks_reason(&x, LLMLAT_KIND_METRIC, metric))
        return undefined_value(out);

    req_view v;
    conv_view(c, r, &v);
    gap_summary g;
    gap_summarize(c, r, &v, &g);
    /* A streaming recorder has the gaps of its own gap rule only. */
    bool zero;
    bool gaps_known = !r->folder || r->folder->gaps(r, c, &g, &zero);

    if (metric == LLMLAT_TOOL_ITL)
        metric = conv_tool_itl_metric(c);

    if (!gaps_known && (metric == LLMLAT_ITL || metric == LLMLAT_ICL || metric == LLMLAT_ITL_MAX))
        return LLMLAT_EMISMATCH;
    switch (metric) {
    case LLMLAT_TOOL_ITL: /* its own figure (LLMPerf) */
        return v.has_tool_itl ? defined(v.tool_itl_s, out) : undefined_value(out);
    case LLMLAT_NTPOT:
        return v.has_ntpot ? defined(v.ntpot_s, out) : undefined_value(out);
    case LLMLAT_TTFT:
        return v.has_ttft ? defined(ns_to_s(v.ttft_ns), out) : undefined_value(out);
    case LLMLAT_E2E:
        return v.has_e2e ? defined(ns_to_s(v.e2e_ns), out) : undefined_value(out);
    case LLMLAT_TPOT:
        return v.has_tpot ? defined(v.tpot_s, out) : undefined_value(out);
    case LLMLAT_TPS_USER:
        return v.has_tps ? defined(v.tps, out) : undefined_value(out);
    case LLMLAT_ITL:
        if (g.itl_weight == 0)
            return undefined_value(out);
        return defined((double)g.itl_sum_ns / 1e9 / (double)g.itl_weight, out);
    case LLMLAT_ICL:
        if (g.n_gaps == 0 || v.icl_dropped)
            return undefined_value(out);
        return defined((double)g.gap_sum_ns / 1e9 / (double)g.n_gaps, out);
    case LLMLAT_ITL_MAX:
        if (g.n_gaps == 0)
            return undefined_value(out);
        return defined((double)g.gap_max_ns / 1e9, out);
    case LLMLAT_OUTPUT_TOKENS:
        return req_ended(r) ? defined((double)v.n_out, out) : undefined_value(out);
    case LLMLAT_INPUT_TOKENS:
        return defined((double)r->input_tokens, out);
    case LLMLAT_DISPATCH_DELAY:
        return v.scheduled ? defined(ns_to_s(v.delay_ns), out) : undefined_value(out);
    case LLMLAT_SCHEDULED_TTFT:
        return v.scheduled && v.has_sched_ttft ? defined(ns_to_s(v.sched_ttft_ns), out)
                                               : undefined_value(out);
    case LLMLAT_SCHEDULED_E2E:
        return v.scheduled && v.has_sched_e2e ? defined(ns_to_s(v.sched_e2e_ns), out)
                                              : undefined_value(out);
    }
    return LLMLAT_EINVAL;
}
