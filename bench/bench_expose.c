/* The Prometheus exposition of a server with many label sets: 64 bounded
 * aggregators (64 models x routes, 2,000 streamed requests each) written
 * as one exposition in each format, streamed to a sink that drops the
 * bytes. Reference: the same aggregators written in llmlat's own byte
 * format (64 llmlat_agg_serialize), the other way a process hands its
 * state on. Also what the server does just before: the merge on scrape of
 * two workers' aggregators per label set. */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"

#define SETS 64
#define REQUESTS 2000

typedef struct expose_ctx {
    llmlat_agg *agg[SETS];    /* the labelled, scraped aggregators */
    llmlat_agg *worker[SETS]; /* a worker's own, merged in on a scrape */
    unsigned char *bytes;
    size_t cap;
    int32_t format;
    int32_t status;
    double sink;
} expose_ctx;

static int32_t drop(void *user, const void *bytes, size_t len)
{
    *(size_t *)user += len;
    (void)bytes;
    return LLMLAT_OK;
}

static void expose_all(void *ctx)
{
    expose_ctx *c = ctx;
    size_t n = 0;
    c->status |= llmlat_expose_write((const llmlat_agg *const *)c->agg, SETS, c->format, drop, &n);
    c->sink += (double)n;
}

static void serialize_all(void *ctx)
{
    expose_ctx *c = ctx;
    for (int i = 0; i < SETS; i++) {
        size_t len = 0;
        c->status |= llmlat_agg_serialize(c->agg[i], c->bytes, c->cap, &len);
        c->sink += (double)len;
    }
}

static void merge_all(void *ctx)
{
    expose_ctx *c = ctx;
    for (int i = 0; i < SETS; i++) {
        c->status |= llmlat_agg_reset(c->agg[i]);
        c->status |= llmlat_agg_merge(c->agg[i], c->worker[i]);
        c->status |= llmlat_agg_merge(c->agg[i], c->worker[(i + 1) % SETS]);
    }
}

/* One streamed request: TTFT 50..500 ms, 10..200 tokens in 1..3-token
 * chunks. */
static void fill(llmlat_agg *a, llmlat_request *r, int requests)
{
    for (int i = 0; i < requests; i++) {
        int64_t t = (int64_t)i * 100 * MS;
        bench_check(llmlat_request_reset(r), "reset");
        bench_check(llmlat_request_start(r, t), "start");
        t += (int64_t)(50 + bench_rng() % 450) * MS;
        int tokens = 10 + (int)(bench_rng() % 191);
        while (tokens > 0) {
            uint32_t k = 1 + (uint32_t)(bench_rng() % 3);
            bench_check(llmlat_request_event(r, t, k), "event");
            tokens -= (int)k;
            t += bench_gap_ns();
        }
        bench_check(llmlat_request_finish(r, t), "finish");
        bench_check(llmlat_agg_add(a, r), "add");
    }
}

void bench_expose(const bench_opts *o)
{
    expose_ctx c = { .status = LLMLAT_OK };
    llmlat_request *r = llmlat_request_new();
    if (!r)
        bench_check(LLMLAT_ENOMEM, "recorder");
    bench_rng_seed(64);
    int requests = o->quick ? REQUESTS / 10 : REQUESTS;
    for (int i = 0; i < SETS; i++) {
        c.agg[i] = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
        c.worker[i] = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
        if (!c.agg[i] || !c.worker[i])
            bench_check(LLMLAT_ENOMEM, "aggregator");
        char model[32], route[32];
        snprintf(model, sizeof model, "model-%d", i / 4);
        snprintf(route, sizeof route, "/v1/route-%d", i % 4);
        bench_check(llmlat_agg_set_label(c.agg[i], "model", model), "label");
        bench_check(llmlat_agg_set_label(c.agg[i], "route", route), "label");
        fill(c.worker[i], r, requests);
    }
    llmlat_request_free(r);
    merge_all(&c); /* the state a scrape exposes */
    c.cap = 1 << 20;
    c.bytes = bench_alloc(c.cap);

    static const struct {
        int32_t format;
        const char *id, *label;
    } FORMATS[] = {
        { LLMLAT_FORMAT_PROMETHEUS, "expose_64_text", "exposition of 64 aggregators, text 0.0.4" },
        { LLMLAT_FORMAT_OPENMETRICS, "expose_64_openmetrics",
          "exposition of 64 aggregators, OpenMetrics" },
        { LLMLAT_FORMAT_PROMETHEUS_PROTOBUF, "expose_64_protobuf",
          "exposition of 64 aggregators, protobuf (native)" },
    };
    for (size_t f = 0; f < sizeof FORMATS / sizeof FORMATS[0]; f++) {
        c.format = FORMATS[f].format;
        measure m = bench_pair(expose_all, 1, serialize_all, 1, &c, o->repeats);
        bench_check(c.status, "exposition");
        bench_row *row = bench_add("exposition", FORMATS[f].id, FORMATS[f].label, "ns", m,
                                   "64 llmlat_agg_serialize of the same");
        bench_target(row, m.value <= 20e6, "<= 20 ms (a 1 s scrape interval's 2%)");
    }
    measure m = bench_pair(merge_all, 1, serialize_all, 1, &c, o->repeats);
    bench_check(c.status, "merge");
    bench_add("exposition", "expose_64_merge", "merge on scrape, 64 sets x 2 workers", "ns", m,
              "64 llmlat_agg_serialize of the same");
    free(c.bytes);
    for (int i = 0; i < SETS; i++) {
        llmlat_agg_free(c.agg[i]);
        llmlat_agg_free(c.worker[i]);
    }
    if (c.sink < 0) /* keep the writes */
        puts("");
}
