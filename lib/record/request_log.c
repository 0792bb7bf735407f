#include <string.h>

#include "record/request_log.h"

LLMLAT_PRIVATE void request_log_init(request_log *g)
{
    memset(g, 0, sizeof *g);
}

LLMLAT_PRIVATE void request_log_free(request_log *g, const llmlat_alloc *al)
{
    alloc_free(al, g->req);
    alloc_free(al, g->t);
    alloc_free(al, g->k);
    request_log_init(g);
}

LLMLAT_PRIVATE void request_log_clear(request_log *g)
{
    g->n_req = 0;
    g->n_ev = 0;
}

LLMLAT_PRIVATE int32_t request_log_reserve(request_log *g, const llmlat_alloc *al,
                                           size_t requests, size_t events)
{
    if (requests > SIZE_MAX - g->n_req || events > SIZE_MAX - g->n_ev)
        return LLMLAT_EINVAL;
    void *p = g->req;
    int32_t st = alloc_grow(al, &p, &g->cap_req, g->n_req + requests, sizeof *g->req);
    if (st != LLMLAT_OK)
        return st;
    g->req = p;
    if (g->n_ev + events <= g->cap_ev)
        return LLMLAT_OK;
    void *t = g->t, *k = g->k;
    st = alloc_grow_pair(al, &t, sizeof *g->t, &k, sizeof *g->k, &g->cap_ev, g->n_ev + events);
    g->t = t;
    g->k = k;
    return st;
}

LLMLAT_PRIVATE void request_log_push(request_log *g, const llmlat_request *r)
{
    logged_request *q = &g->req[g->n_req++];
    *q = (logged_request){
        .start_ns = r->start_ns,
        .end_ns = r->end_ns,
        .scheduled_ns = r->has_scheduled ? r->scheduled_ns : 0,
        .input_tokens = r->input_tokens,
        .output_tokens = r->output_tokens,
        .first_event = g->n_ev,
        .n_events = (uint32_t)r->n,
        .flags = (r->state == REQ_FAILED ? LOGGED_FAILED : 0u) |
                 (r->state == REQ_CANCELLED ? LOGGED_CANCELLED : 0u) |
                 (r->has_output_tokens ? LOGGED_HAS_USAGE : 0u) |
                 (r->has_scheduled ? LOGGED_SCHEDULED : 0u),
        .lacks = r->lacks,
    };
    if (r->n) {
        memcpy(g->t + g->n_ev, r->t, r->n * sizeof *r->t);
        memcpy(g->k + g->n_ev, r->k, r->n * sizeof *r->k);
    }
    g->n_ev += r->n;
}

LLMLAT_PRIVATE void request_log_append(request_log *dst, const request_log *src)
{
    for (size_t i = 0; i < src->n_req; i++) {
        logged_request q = src->req[i];
        q.first_event += dst->n_ev; /* src's events land after dst's */
        dst->req[dst->n_req + i] = q;
    }
    if (src->n_ev) {
        memcpy(dst->t + dst->n_ev, src->t, src->n_ev * sizeof *src->t);
        memcpy(dst->k + dst->n_ev, src->k, src->n_ev * sizeof *src->k);
    }
    dst->n_req += src->n_req;
    dst->n_ev += src->n_ev;
}

LLMLAT_PRIVATE void request_log_view(const request_log *g, size_t i, llmlat_request *out)
{
    const logged_request *q = &g->req[i];
    req_spec s = {
        .start = q->start_ns,
        /* a log without events has no arrays (NULL + 0 is undefined) */
        .t = q->n_events ? g->t + q->first_event : NULL,
        .k = q->n_events ? g->k + q->first_event : NULL,
        .n = q->n_events,
        .has_scheduled = (q->flags & LOGGED_SCHEDULED) != 0,
        .scheduled = q->scheduled_ns,
        .has_end = true,
        .end = q->end_ns,
        .failed = (q->flags & LOGGED_FAILED) != 0,
        .cancelled = (q->flags & LOGGED_CANCELLED) != 0,
        .input_tokens = q->input_tokens,
        .has_output_tokens = (q->flags & LOGGED_HAS_USAGE) != 0,
        .output_tokens = q->output_tokens,
        .lacks = q->lacks,
        .checked = true, /* they were when logged (or deserialized) */
    };
    req_make_view(out, &s);
}

LLMLAT_PRIVATE size_t request_log_memory(const request_log *g)
{
    return g->cap_req * sizeof *g->req + g->cap_ev * (sizeof *g->t + sizeof *g->k);
}
