/* Selections of an exact aggregator's requests by time: windows and
 * slices (llmlat_agg_add_window), and the span they are measured from
 * (llmlat_agg_span). Each selected request is read back from the log and
 * added again, so dst computes it under its own convention and settings. */
#include "agg/agg.h"

static bool window_keeps(const logged_request *q, int64_t from, int64_t to, int32_t rule)
{
    switch (rule) {
    case LLMLAT_WINDOW_START:
        return q->start_ns >= from && q->start_ns < to;
    case LLMLAT_WINDOW_END:
        return q->end_ns >= from && q->end_ns < to;
    case LLMLAT_WINDOW_INSIDE:
        return q->start_ns >= from && q->end_ns <= to;
    }
    return false;
}

LLMLAT_API int32_t llmlat_agg_add_window(llmlat_agg *dst, const llmlat_agg *src, int64_t from_ns,
                                         int64_t to_ns, int32_t rule)
{
    if (!dst || !src || dst == src || rule < LLMLAT_WINDOW_START || rule > LLMLAT_WINDOW_INSIDE ||
        from_ns > to_ns)
        return LLMLAT_EINVAL;
    if (!agg_holds_timed_requests(src))
        return LLMLAT_EUNDEFINED;
    /* Into an empty twin first, then one merge: all or nothing. */
    llmlat_agg *tmp = agg_new_empty_like(dst);
    if (!tmp)
        return LLMLAT_ENOMEM;
    int32_t st = LLMLAT_OK;
    for (size_t i = 0; i < src->log.n_req && st == LLMLAT_OK; i++) {
        if (!window_keeps(&src->log.req[i], from_ns, to_ns, rule))
            continue;
        llmlat_request q;
        request_log_view(&src->log, i, &q);
        st = llmlat_agg_add(tmp, &q);
    }
    if (st == LLMLAT_OK)
        st = llmlat_agg_merge(dst, tmp);
    llmlat_agg_free(tmp);
    return st;
}

LLMLAT_API int32_t llmlat_agg_span(const llmlat_agg *a, int64_t *first_start_ns,
                                   int64_t *last_end_ns)
{
    if (!a || !first_start_ns || !last_end_ns)
        return LLMLAT_EINVAL;
    if (!agg_holds_timed_requests(a) || a->log.n_req == 0)
        return LLMLAT_EUNDEFINED;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < a->log.n_req; i++) {
        const logged_request *q = &a->log.req[i];
        if (q->start_ns < lo)
            lo = q->start_ns;
        if (q->end_ns > hi)
            hi = q->end_ns;
    }
    *first_start_ns = lo;
    *last_end_ns = hi;
    return LLMLAT_OK;
}
