/* Serialized exact-mode sections besides the stores (each mode's store
 * writes and reads its own: exact/exact_bytes.c, bounded/sketch_bytes.c):
 * the timeline and the request log. Each reader checks what the rest of
 * the library relies on, so that a deserialized aggregator behaves like
 * one built by adding requests. */
#include <math.h>

#include "format/serialize.h"

LLMLAT_PRIVATE void write_timeline(bytes_writer *w, const timeline *tl)
{
    put_u64(w, tl->n_rec);
    for (size_t i = 0; i < tl->n_rec; i++) {
        const success_record *rec = &tl->rec[i];
        put_i64(w, rec->start_ns);
        put_i64(w, rec->e2e_ns);
        put_f64(w, rec->ttft_s);
        put_f64(w, rec->tpot_s);
        put_f64(w, rec->e2e_s);
    }
    put_u64(w, tl->n_tok);
    for (size_t i = 0; i < tl->n_tok; i++) {
        put_i64(w, tl->tok_t[i]);
        put_u32(w, tl->tok_k[i]);
    }
}

/* A value an SLO is checked against: missing (NaN) or a latency. */
static bool slo_value_valid(double v)
{
    return isnan(v) || (v >= 0.0 && isfinite(v));
}

LLMLAT_PRIVATE int32_t read_timeline(bytes_reader *r, timeline *tl, const llmlat_alloc *al)
{
    uint64_t n = get_u64(r);
    if (r->bad || n > r->left / 40)
        return LLMLAT_EFORMAT;
    int32_t st = timeline_reserve(tl, al, (size_t)n, 0);
    if (st != LLMLAT_OK)
        return st;
    for (uint64_t i = 0; i < n; i++) {
        success_record rec;
        rec.start_ns = get_i64(r);
        rec.e2e_ns = get_i64(r);
        rec.ttft_s = get_f64(r);
        rec.tpot_s = get_f64(r);
        rec.e2e_s = get_f64(r);
        if (rec.e2e_ns < -1 || !slo_value_valid(rec.ttft_s) || !slo_value_valid(rec.tpot_s) ||
            !slo_value_valid(rec.e2e_s))
            return LLMLAT_EFORMAT;
        timeline_push_record(tl, &rec);
    }
    /* Events belong to successes and follow their start: the peak's
     * 1-second buckets count from the earliest start on. */
    int64_t origin = INT64_MAX;
    for (size_t i = 0; i < tl->n_rec; i++)
        if (tl->rec[i].start_ns < origin)
            origin = tl->rec[i].start_ns;
    n = get_u64(r);
    if (r->bad || n > r->left / 12)
        return LLMLAT_EFORMAT;
    st = timeline_reserve(tl, al, 0, (size_t)n);
    if (st != LLMLAT_OK)
        return st;
    for (uint64_t i = 0; i < n; i++) {
        int64_t t = get_i64(r);
        uint32_t k = get_u32(r);
        if (k == 0 || t < origin)
            return LLMLAT_EFORMAT;
        timeline_push_event(tl, t, k);
    }
    return r->bad ? LLMLAT_EFORMAT : LLMLAT_OK;
}

LLMLAT_PRIVATE void write_request_log(bytes_writer *w, const request_log *g)
{
    put_u64(w, g->n_req);
    for (size_t i = 0; i < g->n_req; i++) {
        const logged_request *q = &g->req[i];
        put_i64(w, q->start_ns);
        put_i64(w, q->end_ns);
        put_i64(w, q->scheduled_ns);
        put_u32(w, q->flags);
        put_u32(w, q->lacks);
        put_u64(w, q->input_tokens);
        put_u64(w, q->output_tokens);
        put_u32(w, q->n_events);
        for (size_t j = 0; j < q->n_events; j++) {
            put_i64(w, g->t[q->first_event + j]);
            put_u32(w, g->k[q->first_event + j]);
        }
    }
}

/* A logged request's bytes without its events: 44, and from version 3
 * its intended start (8). */
#define LOGGED_REQUEST_BYTES_V2 44
#define LOGGED_REQUEST_BYTES 52
#define LOGGED_EVENT_BYTES 12

/* One request as the recorder would have accepted it: its intended start
 * (when it has one) at or before its start, events in order from the
 * start, the end after the last, every time within INT64_MAX of the
 * earliest. */
static bool logged_times_valid(const logged_request *q, const int64_t *t)
{
    bool scheduled = (q->flags & LOGGED_SCHEDULED) != 0;
    int64_t max_t = req_max_time(scheduled ? q->scheduled_ns : q->start_ns);
    if (scheduled ? q->scheduled_ns > q->start_ns || q->start_ns > max_t : q->scheduled_ns != 0)
        return false;
    int64_t prev = q->start_ns;
    for (uint32_t j = 0; j < q->n_events; j++) {
        if (t[j] < prev || t[j] > max_t)
            return false;
        prev = t[j];
    }
    return q->end_ns >= prev && q->end_ns <= max_t;
}

LLMLAT_PRIVATE int32_t read_request_log(bytes_reader *r, request_log *g, const llmlat_alloc *al,
                                        uint32_t version)
{
    const uint32_t known = LOGGED_FAILED | LOGGED_HAS_USAGE | LOGGED_CANCELLED |
                           (version >= 3 ? LOGGED_SCHEDULED : 0u);
    const uint64_t request_bytes = version >= 3 ? LOGGED_REQUEST_BYTES : LOGGED_REQUEST_BYTES_V2;
    uint64_t n = get_u64(r);
    if (r->bad || n > r->left / request_bytes)
        return LLMLAT_EFORMAT;
    int32_t st = request_log_reserve(g, al, (size_t)n, 0);
    if (st != LLMLAT_OK)
        return st;
    for (uint64_t i = 0; i < n; i++) {
        logged_request q;
        q.start_ns = get_i64(r);
        q.end_ns = get_i64(r);
        q.scheduled_ns = version >= 3 ? get_i64(r) : 0;
        q.flags = get_u32(r);
        q.lacks = get_u32(r);
        q.input_tokens = get_u64(r);
        q.output_tokens = get_u64(r);
        q.n_events = get_u32(r);
        q.first_event = g->n_ev;
        if (r->bad || (q.flags & ~known) ||
            ((q.flags & LOGGED_FAILED) && (q.flags & LOGGED_CANCELLED)) ||
            (q.lacks & ~(uint32_t)(LLMLAT_LACKS_KNOWN & ~LLMLAT_LACKS_CHUNKS)) ||
            (!(q.flags & LOGGED_HAS_USAGE) && q.output_tokens) ||
            q.n_events > r->left / LOGGED_EVENT_BYTES)
            return LLMLAT_EFORMAT;
        st = request_log_reserve(g, al, 0, q.n_events);
        if (st != LLMLAT_OK)
            return st;
        for (uint32_t j = 0; j < q.n_events; j++) {
            g->t[g->n_ev + j] = get_i64(r);
            g->k[g->n_ev + j] = get_u32(r);
        }
        if (r->bad || !logged_times_valid(&q, q.n_events ? g->t + g->n_ev : NULL))
            return LLMLAT_EFORMAT;
        g->n_ev += q.n_events;
        g->req[g->n_req++] = q;
    }
    return LLMLAT_OK;
}
