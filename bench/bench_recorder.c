/* The recorder's figures: ns per token event (one call per event, with the
 * host's timestamp or llmlat_now_ns()) and per event of the bulk call,
 * each beside a floor measured in the same run.
 *
 * A batch records `requests` requests of `events` one-token events on one
 * reused recorder (llmlat_request_reset keeps its buffers, as a server's
 * pool of recorders does), so the buffers stay in cache and no call
 * allocates: what is measured is the per-event path itself. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

#define STEP 997 /* ns between events: any positive step will do */

typedef struct rec_ctx {
    llmlat_request *r;
    size_t requests, events;
    const int64_t *t;  /* events timestamps (the bulk call's input) */
    const uint32_t *k; /* events ones */
    int64_t *buf;      /* the floors' destination */
    uint32_t *kbuf;
    bench_sink sink;
    int32_t status;    /* OR of every status: checked after the batches */
} rec_ctx;

static void restart(rec_ctx *c)
{
    c->status |= llmlat_request_reset(c->r);
    c->status |= llmlat_request_start(c->r, 0);
}

/* llmlat_request_event with a timestamp the host already has. */
static void event_host_time(void *ctx)
{
    rec_ctx *c = ctx;
    int32_t st = 0;
    for (size_t j = 0; j < c->requests; j++) {
        restart(c);
        int64_t t = STEP;
        for (size_t i = 0; i < c->events; i++, t += STEP)
            st |= llmlat_request_event(c->r, t, 1);
    }
    c->status |= st;
}

/* Floor: a plain append of the same int64 into a preallocated array. */
static void plain_append(void *ctx)
{
    rec_ctx *c = ctx;
    for (size_t j = 0; j < c->requests; j++) {
        size_t n = 0;
        int64_t t = STEP;
        for (size_t i = 0; i < c->events; i++, t += STEP) {
            int64_t x = t;
            OPAQUE(x);
            c->buf[n++] = x;
        }
    }
}

/* Floor: the same append behind an opaque handle and a call. */
static void opaque_append(void *ctx)
{
    rec_ctx *c = ctx;
    bench_sink_fn append = bench_sink_append;
    int32_t st = 0;
    for (size_t j = 0; j < c->requests; j++) {
        c->sink.n = 0;
        int64_t t = STEP;
        for (size_t i = 0; i < c->events; i++, t += STEP)
            st |= append(&c->sink, t, 1);
    }
    c->status |= st;
}

/* llmlat_request_event(r, llmlat_now_ns(), 1). */
static void event_now(void *ctx)
{
    rec_ctx *c = ctx;
    int32_t st = 0;
    for (size_t j = 0; j < c->requests; j++) {
        restart(c);
        for (size_t i = 0; i < c->events; i++)
            st |= llmlat_request_event(c->r, llmlat_now_ns(), 1);
    }
    c->status |= st;
}

/* Floor: reading CLOCK_MONOTONIC directly, plain append. */
static void clock_append(void *ctx)
{
    rec_ctx *c = ctx;
    for (size_t j = 0; j < c->requests; j++) {
        size_t n = 0;
        for (size_t i = 0; i < c->events; i++) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            c->buf[n++] = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        }
    }
}

/* llmlat_request_events: a request's events in one call. */
static void events_bulk(void *ctx)
{
    rec_ctx *c = ctx;
    int32_t st = 0;
    for (size_t j = 0; j < c->requests; j++) {
        restart(c);
        st |= llmlat_request_events(c->r, c->t, c->k, c->events);
    }
    c->status |= st;
}

/* Floor: copying the same two arrays. */
static void copy_arrays(void *ctx)
{
    rec_ctx *c = ctx;
    for (size_t j = 0; j < c->requests; j++) {
        memcpy(c->buf, c->t, c->events * sizeof *c->t);
        memcpy(c->kbuf, c->k, c->events * sizeof *c->k);
        int64_t *b = c->buf;
        OPAQUE(b);
    }
}

/* A request's 1024 events in one call, then finished, or not: the
 * difference is llmlat_request_finish, whose summary reads every k. */
static void bulk_then_finish(void *ctx)
{
    rec_ctx *c = ctx;
    int32_t st = 0;
    for (size_t j = 0; j < c->requests; j++) {
        restart(c);
        st |= llmlat_request_events(c->r, c->t, c->k, c->events);
        st |= llmlat_request_finish(c->r, c->t[c->events - 1]);
    }
    c->status |= st;
}

static void bulk_unfinished(void *ctx)
{
    events_bulk(ctx);
}

/* The whole per-event path of a request as a host records it: reset,
 * start, PATH_EVENTS calls of event() with the host's timestamps, finish. */
#define PATH_EVENTS 500

static void whole_path(void *ctx)
{
    rec_ctx *c = ctx;
    int32_t st = 0;
    for (size_t j = 0; j < c->requests; j++) {
        restart(c);
        int64_t t = STEP;
        for (size_t i = 0; i < PATH_EVENTS; i++, t += STEP)
            st |= llmlat_request_event(c->r, t, 1);
        st |= llmlat_request_finish(c->r, t);
    }
    c->status |= st;
}

/* Floor: the same PATH_EVENTS appends behind an opaque call. */
static void whole_path_floor(void *ctx)
{
    rec_ctx *c = ctx;
    bench_sink_fn append = bench_sink_append;
    int32_t st = 0;
    for (size_t j = 0; j < c->requests; j++) {
        c->sink.n = 0;
        int64_t t = STEP;
        for (size_t i = 0; i < PATH_EVENTS; i++, t += STEP)
            st |= append(&c->sink, t, 1);
    }
    c->status |= st;
}

static void add(const char *id, const char *label, bench_batch fn, bench_batch ref,
                const char *ref_label, rec_ctx *c, int repeats, double target_ns)
{
    double events = (double)(c->requests * c->events);
    measure m = bench_pair(fn, events, ref, events, c, repeats);
    bench_check(c->status, label);
    bench_row *row = bench_add("recorder (per event)", id, label, "ns", m, ref_label);
    if (target_ns > 0) {
        char text[96];
        snprintf(text, sizeof text, "<= %.0f ns per token event", target_ns);
        bench_target(row, m.value <= target_ns, text);
    }
}

void bench_recorder(const bench_opts *o)
{
    rec_ctx c = { .requests = o->quick ? 64 : 256, .events = 1024 };
    int64_t *t = bench_alloc(c.events * sizeof *t);
    uint32_t *k = bench_alloc(c.events * sizeof *k);
    for (size_t i = 0; i < c.events; i++) {
        t[i] = (int64_t)(i + 1) * STEP;
        k[i] = 1;
    }
    c.t = t;
    c.k = k;
    c.buf = bench_alloc(c.events * sizeof *c.buf);
    c.kbuf = bench_alloc(c.events * sizeof *c.kbuf);
    c.sink = (bench_sink){ bench_alloc(c.events * sizeof(int64_t)),
                           bench_alloc(c.events * sizeof(uint32_t)), 0, c.events };
    c.r = llmlat_request_new();
    if (!c.r)
        bench_check(LLMLAT_ENOMEM, "llmlat_request_new");

    add("event", "event(r, t, 1), host's timestamp", event_host_time, opaque_append,
        "opaque append (call via pointer)", &c, o->repeats, 2.0);
    add("event_vs_plain", "event(r, t, 1), host's timestamp", event_host_time, plain_append,
        "plain append to an int64 array", &c, o->repeats, 0);
    add("opaque_append", "opaque append (call via pointer)", opaque_append, plain_append,
        "plain append to an int64 array", &c, o->repeats, 0);
    add("event_now", "event(r, llmlat_now_ns(), 1)", event_now, clock_append,
        "clock_gettime + plain append", &c, o->repeats, 0);
    add("events_bulk", "events(r, t[], k[], 1024) per event", events_bulk, copy_arrays,
        "memcpy of the same t[] and k[]", &c, o->repeats, 0);
    add("events_bulk_vs_plain", "events(r, t[], k[], 1024) per event", events_bulk,
        plain_append, "plain append to an int64 array", &c, o->repeats, 0);

    double tokens = (double)(c.requests * c.events);
    measure fin = bench_difference(bulk_then_finish, bulk_unfinished, tokens, &c, o->repeats);
    bench_check(c.status, "finish");
    bench_row *row = bench_add("recorder (per event)", "finish",
                               "finish(r, t) per token, 1024 tokens", "ns", fin,
                               "events(r, t[], k[], 1024) per event");
    bench_target(row, fin.value <= 0.5, "<= 0.5 ns per token");
    double path = (double)(c.requests * PATH_EVENTS);
    measure whole = bench_pair(whole_path, path, whole_path_floor, path, &c, o->repeats);
    bench_check(c.status, "whole path");
    bench_add("recorder (per event)", "request_path",
              "reset + start + 500 event() + finish, per token", "ns", whole,
              "500 opaque appends (call via pointer)");

    llmlat_request_free(c.r);
    free(c.sink.t);
    free(c.sink.k);
    free(c.buf);
    free(c.kbuf);
    free(t);
    free(k);
}
