/* The run as a Chrome / Perfetto timeline (Trace Event Format JSON,
 * docs/report-formats.md): each request a span on a track, tracks reused
 * as soon as free (the concurrency sweep's rule: a request that ends when
 * another starts frees its track for it), its wait for the first token
 * and its decoding as nested spans, each chunk an instant event, a
 * failure marked. Times are microseconds from the first start, written
 * exactly from the nanoseconds; every event is written in time order. */
#include <stdio.h>
#include <string.h>

#include "util/radix.h"
#include "report/report.h"

enum chrome_kind {
    CHROME_REQUEST_BEGIN, CHROME_WAIT_BEGIN, CHROME_WAIT_END, CHROME_DECODE_BEGIN,
    CHROME_CHUNK, CHROME_DECODE_END, CHROME_FAILED, CHROME_REQUEST_END,
};

/* One event to write: which request, what, and for a chunk which event. */
typedef struct chrome_ref {
    uint32_t req;
    uint32_t kind;
    uint32_t chunk;
} chrome_ref;

/* Where each request's phases change. */
typedef struct chrome_phases {
    bool has_first;     /* a first token (the convention's TTFT anchor) */
    int64_t first_ns;
    int64_t decode_end_ns; /* the end of its E2E */
} chrome_phases;

static chrome_phases chrome_phases_of(const llmlat_agg *a, size_t i)
{
    llmlat_request q;
    req_view v;
    request_log_view(&a->log, i, &q);
    conv_view(a->conv, &q, &v);
    chrome_phases p = { .has_first = v.anchor != REQ_NONE };
    if (p.has_first) {
        p.first_ns = q.t[v.anchor];
        p.decode_end_ns = v.has_e2e ? q.start_ns + v.e2e_ns : q.t[v.last];
        if (p.decode_end_ns < p.first_ns)
            p.decode_end_ns = p.first_ns;
    }
    return p;
}

/* The events of all requests, as (time, ref) pairs sorted by time; at
 * equal times, in the order made: each request's own in order, and
 * requests by start, so a track's previous request ends before the next
 * begins. */
typedef struct chrome_events {
    int64_t origin;    /* the earliest start */
    int64_t *t;        /* times, sorted (spans from origin can pass INT64_MAX) */
    uint32_t *order;   /* index into ref, permuted along */
    chrome_ref *ref;
    size_t n, cap;
    uint32_t *track;   /* per request, from 1 */
    uint32_t n_tracks;
} chrome_events;

static void chrome_push(chrome_events *e, int64_t t, uint32_t req, uint32_t kind, uint32_t chunk)
{
    e->t[e->n] = t;
    e->order[e->n] = (uint32_t)e->n;
    e->ref[e->n++] = (chrome_ref){ req, kind, chunk };
}

/* Requests in start order (ties by index): the order tracks are handed
 * out and events made in. */
static int32_t chrome_by_start(const llmlat_agg *a, uint32_t *idx)
{
    size_t n = a->log.n_req;
    int64_t *start = alloc_malloc(&a->al, (n ? n : 1) * sizeof *start);
    if (!start)
        return LLMLAT_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        start[i] = a->log.req[i].start_ns;
        idx[i] = (uint32_t)i;
    }
    int32_t st = radix_sort(&a->al, RADIX_INT64, start, idx, n);
    alloc_free(&a->al, start);
    return st;
}

/* A binary min-heap of busy tracks by the time they free up. */
typedef struct chrome_heap {
    int64_t *end;
    uint32_t *track;
    size_t n;
} chrome_heap;

static void chrome_heap_swap(chrome_heap *h, size_t i, size_t j)
{
    int64_t e = h->end[i];
    uint32_t t = h->track[i];
    h->end[i] = h->end[j];
    h->track[i] = h->track[j];
    h->end[j] = e;
    h->track[j] = t;
}

static bool chrome_heap_less(const chrome_heap *h, size_t i, size_t j)
{
    return h->end[i] < h->end[j] || (h->end[i] == h->end[j] && h->track[i] < h->track[j]);
}

static void chrome_heap_push(chrome_heap *h, int64_t end, uint32_t track)
{
    size_t i = h->n++;
    h->end[i] = end;
    h->track[i] = track;
    while (i > 0 && chrome_heap_less(h, i, (i - 1) / 2)) {
        chrome_heap_swap(h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void chrome_heap_pop(chrome_heap *h)
{
    chrome_heap_swap(h, 0, --h->n);
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && chrome_heap_less(h, l, m))
            m = l;
        if (r < h->n && chrome_heap_less(h, r, m))
            m = r;
        if (m == i)
            break;
        chrome_heap_swap(h, i, m);
        i = m;
    }
}

/* Each request's track: the earliest freed one whose request ended at or
 * before this one's start, else a new one. */
static int32_t chrome_tracks(const llmlat_agg *a, const uint32_t *by_start, chrome_events *e)
{
    size_t n = a->log.n_req;
    chrome_heap h = { alloc_malloc(&a->al, (n ? n : 1) * sizeof *h.end),
                      alloc_malloc(&a->al, (n ? n : 1) * sizeof *h.track), 0 };
    int32_t st = h.end && h.track ? LLMLAT_OK : LLMLAT_ENOMEM;
    for (size_t j = 0; j < n && st == LLMLAT_OK; j++) {
        const logged_request *q = &a->log.req[by_start[j]];
        uint32_t track;
        if (h.n && h.end[0] <= q->start_ns) {
            track = h.track[0];
            chrome_heap_pop(&h);
        } else {
            track = ++e->n_tracks;
        }
        e->track[by_start[j]] = track;
        chrome_heap_push(&h, q->end_ns, track);
    }
    alloc_free(&a->al, h.end);
    alloc_free(&a->al, h.track);
    return st;
}

static int32_t chrome_collect(const llmlat_agg *a, int64_t origin, chrome_events *e)
{
    const request_log *g = &a->log;
    size_t n = g->n_req;
    e->origin = origin;
    if (n > UINT32_MAX || g->n_ev > UINT32_MAX - 8 * (uint64_t)n)
        return LLMLAT_ENOMEM; /* refs are 32-bit */
    e->cap = g->n_ev + 8 * n;
    e->t = alloc_malloc(&a->al, (e->cap ? e->cap : 1) * sizeof *e->t);
    e->order = alloc_malloc(&a->al, (e->cap ? e->cap : 1) * sizeof *e->order);
    e->ref = alloc_malloc(&a->al, (e->cap ? e->cap : 1) * sizeof *e->ref);
    e->track = alloc_malloc(&a->al, (n ? n : 1) * sizeof *e->track);
    uint32_t *by_start = alloc_malloc(&a->al, (n ? n : 1) * sizeof *by_start);
    int32_t st = e->t && e->order && e->ref && e->track && by_start ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st == LLMLAT_OK)
        st = chrome_by_start(a, by_start);
    if (st == LLMLAT_OK)
        st = chrome_tracks(a, by_start, e);
    for (size_t j = 0; j < n && st == LLMLAT_OK; j++) {
        uint32_t i = by_start[j];
        const logged_request *q = &g->req[i];
        chrome_phases p = chrome_phases_of(a, i);
        int64_t wait_end = p.has_first ? p.first_ns : q->end_ns;
        chrome_push(e, q->start_ns, i, CHROME_REQUEST_BEGIN, 0);
        chrome_push(e, q->start_ns, i, CHROME_WAIT_BEGIN, 0);
        bool waiting = true;
        for (uint32_t k = 0; k < q->n_events; k++) {
            int64_t t = g->t[q->first_event + k];
            if (waiting && p.has_first && t >= p.first_ns) {
                chrome_push(e, wait_end, i, CHROME_WAIT_END, 0);
                chrome_push(e, p.first_ns, i, CHROME_DECODE_BEGIN, 0);
                waiting = false;
            }
            chrome_push(e, t, i, CHROME_CHUNK, k);
        }
        if (waiting) /* no first token: the wait lasts to the end */
            chrome_push(e, wait_end, i, CHROME_WAIT_END, 0);
        else
            chrome_push(e, p.decode_end_ns, i, CHROME_DECODE_END, 0);
        if (q->flags & LOGGED_FAILED)
            chrome_push(e, q->end_ns, i, CHROME_FAILED, 0);
        chrome_push(e, q->end_ns, i, CHROME_REQUEST_END, 0);
    }
    alloc_free(&a->al, by_start);
    if (st == LLMLAT_OK)
        st = radix_sort(&a->al, RADIX_INT64, e->t, e->order, e->n);
    return st;
}

static void chrome_events_free(const llmlat_agg *a, chrome_events *e)
{
    alloc_free(&a->al, e->t);
    alloc_free(&a->al, e->order);
    alloc_free(&a->al, e->ref);
    alloc_free(&a->al, e->track);
}

/* The fields every event has: "ph", "ts" (µs), "pid", "tid", "name". */
static void chrome_head(rbuf *b, const char *ph, uint64_t t_ns, uint32_t tid, const char *name)
{
    rbuf_puts(b, ",\n{\"ph\": \"");
    rbuf_puts(b, ph);
    rbuf_puts(b, "\", \"ts\": ");
    rbuf_scaled_u64(b, t_ns, 3, 3);
    rbuf_puts(b, ", \"pid\": 1, \"tid\": ");
    rbuf_u64(b, tid);
    rbuf_puts(b, ", \"name\": \"");
    rbuf_puts(b, name);
    rbuf_puts(b, "\"");
}

static void chrome_request_args(rbuf *b, const llmlat_agg *a, uint32_t i)
{
    const logged_request *q = &a->log.req[i];
    llmlat_request r;
    req_view v;
    request_log_view(&a->log, i, &r);
    conv_view(a->conv, &r, &v);
    rbuf_puts(b, ", \"cat\": \"request\", \"args\": {\"index\": ");
    rbuf_u64(b, i);
    rbuf_puts(b, v.success ? ", \"success\": true" : ", \"success\": false");
    rbuf_puts(b, (q->flags & LOGGED_FAILED) ? ", \"failed\": true" : ", \"failed\": false");
    rbuf_puts(b, ", \"output_tokens\": ");
    rbuf_u64(b, v.n_out);
    rbuf_puts(b, ", \"input_tokens\": ");
    rbuf_u64(b, q->input_tokens);
    rbuf_puts(b, ", \"events\": ");
    rbuf_u64(b, q->n_events);
    rbuf_puts(b, "}");
    if (q->flags & LOGGED_FAILED)
        rbuf_puts(b, ", \"cname\": \"terrible\"");
}

static void chrome_event(rbuf *b, const llmlat_agg *a, const chrome_events *e, size_t j)
{
    const chrome_ref *r = &e->ref[e->order[j]];
    uint64_t t = span_from(e->origin, e->t[j]);
    uint32_t tid = e->track[r->req];
    switch (r->kind) {
    case CHROME_REQUEST_BEGIN: {
        char name[40];
        snprintf(name, sizeof name, "request %u%s", r->req,
                 (a->log.req[r->req].flags & LOGGED_FAILED) ? " (failed)" : "");
        chrome_head(b, "B", t, tid, name);
        chrome_request_args(b, a, r->req);
        break;
    }
    case CHROME_REQUEST_END:
        chrome_head(b, "E", t, tid, "request");
        break;
    case CHROME_WAIT_BEGIN:
        chrome_head(b, "B", t, tid, "waiting for first token");
        rbuf_puts(b, ", \"cat\": \"phase\"");
        break;
    case CHROME_WAIT_END:
        chrome_head(b, "E", t, tid, "waiting for first token");
        break;
    case CHROME_DECODE_BEGIN:
        chrome_head(b, "B", t, tid, "decoding");
        rbuf_puts(b, ", \"cat\": \"phase\"");
        break;
    case CHROME_DECODE_END:
        chrome_head(b, "E", t, tid, "decoding");
        break;
    case CHROME_CHUNK: {
        const logged_request *q = &a->log.req[r->req];
        chrome_head(b, "i", t, tid, "chunk");
        rbuf_puts(b, ", \"s\": \"t\", \"cat\": \"chunk\", \"args\": {\"tokens\": ");
        rbuf_u64(b, a->log.k[q->first_event + r->chunk]);
        rbuf_puts(b, "}");
        break;
    }
    case CHROME_FAILED:
        chrome_head(b, "i", t, tid, "failed");
        rbuf_puts(b, ", \"s\": \"t\", \"cat\": \"failure\", \"cname\": \"terrible\"");
        break;
    }
    rbuf_puts(b, "}");
}

LLMLAT_PRIVATE void report_chrome_trace(report_ctx *c)
{
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    if (!agg_holds_timed_requests(a)) {
        rbuf_fail(b, LLMLAT_EUNDEFINED);
        return;
    }
    int64_t origin = 0, last;
    if (a->log.n_req)
        llmlat_agg_span(a, &origin, &last);
    chrome_events e;
    memset(&e, 0, sizeof e);
    int32_t st = chrome_collect(a, origin, &e);
    if (st != LLMLAT_OK) {
        rbuf_fail(b, st);
        chrome_events_free(a, &e);
        return;
    }
    rbuf_puts(b, "{\"displayTimeUnit\": \"ms\",\n\"otherData\": {\"generator\": \"llmlat ");
    rbuf_puts(b, llmlat_version_string());
    rbuf_puts(b, "\", \"convention\": \"");
    rbuf_puts(b, a->conv->name);
    rbuf_puts(b, "\", \"origin_s\": ");
    rbuf_scaled(b, origin, 9, 9);
    rbuf_puts(b, ", \"tracks\": ");
    rbuf_u64(b, e.n_tracks);
    rbuf_puts(b, "},\n\"traceEvents\": [\n{\"ph\": \"M\", \"ts\": 0, \"pid\": 1, \"tid\": 0, "
                 "\"name\": \"process_name\", \"args\": {\"name\": \"llmlat run (");
    rbuf_puts(b, a->conv->name);
    rbuf_puts(b, ")\"}}");
    for (uint32_t t = 1; t <= e.n_tracks; t++) {
        char name[32];
        snprintf(name, sizeof name, "track %u", t);
        chrome_head(b, "M", 0, t, "thread_name");
        rbuf_puts(b, ", \"args\": {\"name\": \"");
        rbuf_puts(b, name);
        rbuf_puts(b, "\"}}");
    }
    for (size_t j = 0; j < e.n && b->status == LLMLAT_OK; j++)
        chrome_event(b, a, &e, j);
    rbuf_puts(b, "\n]}\n");
    chrome_events_free(a, &e);
}
