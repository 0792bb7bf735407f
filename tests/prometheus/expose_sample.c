/* The expositions the consumer tests read, written to a directory:
 *
 *   ttft-S.ns, ttft-S.pb   for relative errors giving schemas 1, 3, 6, 8
 *                          and 10 (10 exported at 8), and ttft-6-sparse:
 *                          the TTFT samples, in ns one per line, and the
 *                          protobuf exposition of a bounded aggregator
 *                          given exactly them (client_golang.go observes
 *                          the same values);
 *   fleet.txt, fleet.om,   three aggregators (conventions, modes, labels
 *   fleet.pb               with quotes, backslashes, newlines and UTF-8)
 *                          as one exposition in each format;
 *   fleet-S.txt, .om, .pb  the same in naming scheme S (vllm, sglang, otel;
 *                          the first aggregator also has an operation and a
 *                          provider, which the otel scheme renames);
 *   report.txt             a report (the run gauges included) for promtool.
 *
 * Usage: expose_sample DIR. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llmlat.h>

#define MS INT64_C(1000000)

static uint64_t state = 0x853c49e6748fea9bu;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void die(const char *what)
{
    fprintf(stderr, "expose_sample: %s\n", what);
    exit(1);
}

static void write_file(const char *dir, const char *name, const void *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0)
        die(path);
}

static void write_expo_names(const char *dir, const char *name, const llmlat_agg *const *aggs,
                             size_t n, int32_t format, int32_t names)
{
    size_t len = 0;
    if (llmlat_expose_names(aggs, n, format, names, NULL, 0, &len) != LLMLAT_ENOSPC)
        die("sizing");
    char *buf = malloc(len);
    if (!buf || llmlat_expose_names(aggs, n, format, names, buf, len, &len) != LLMLAT_OK)
        die("exposition");
    write_file(dir, name, buf, len);
    free(buf);
}

static void write_expo(const char *dir, const char *name, const llmlat_agg *const *aggs,
                       size_t n, int32_t format)
{
    write_expo_names(dir, name, aggs, n, format, LLMLAT_NAMES_LLMLAT);
}

/* One request whose TTFT is ttft_ns (a single one-token event). */
static void add_ttft(llmlat_agg *a, llmlat_request *r, int64_t ttft_ns)
{
    llmlat_request_reset(r);
    if (llmlat_request_start(r, 0) || llmlat_request_event(r, ttft_ns, 1) ||
        llmlat_request_finish(r, ttft_ns) || llmlat_agg_add(a, r))
        die("request");
}

/* TTFTs over seven decades (10 us .. 100 s), zeros, and values a few ns
 * around schema-6 bucket boundaries (2^(k/64) s). */
static void schema_sample(const char *dir, double alpha, int expected_schema, int count,
                          const char *tag)
{
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    llmlat_request *r = llmlat_request_new();
    if (!a || !r || llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, alpha))
        die("aggregator");
    char *ns = malloc(64 * (size_t)count), *at = ns;
    for (int i = 0; i < count; i++) {
        int64_t v;
        uint64_t kind = next() % 100;
        if (kind < 2) {
            v = 0;
        } else if (kind < 12) { /* near 2^(k/64) s for k in [-600, 400] */
            int k = (int)(next() % 1001) - 600;
            double edge = 1e9 * pow(2.0, k / 64.0);
            v = (int64_t)edge + (int64_t)(next() % 5) - 2;
        } else {
            double u = (double)(next() >> 11) * 0x1p-53;
            v = (int64_t)(1e4 * pow(1e7, u));
        }
        if (v < 0)
            v = 0;
        add_ttft(a, r, v);
        at += sprintf(at, "%lld\n", (long long)v);
    }
    int32_t schema, offset;
    double zt;
    uint64_t zc, *counts = malloc(100000 * sizeof *counts);
    size_t n;
    if (!counts ||
        llmlat_agg_buckets(a, LLMLAT_TTFT, &schema, &zt, &zc, &offset, counts, 100000, &n) ||
        schema != expected_schema)
        die("not the schema expected");
    free(counts);
    char name[64];
    snprintf(name, sizeof name, "ttft-%d%s.ns", expected_schema, tag);
    write_file(dir, name, ns, (size_t)(at - ns));
    snprintf(name, sizeof name, "ttft-%d%s.pb", expected_schema, tag);
    const llmlat_agg *one = a;
    write_expo(dir, name, &one, 1, LLMLAT_FORMAT_PROMETHEUS_PROTOBUF);
    free(ns);
    llmlat_request_free(r);
    llmlat_agg_free(a);
}

/* Streamed requests: TTFT 20..500 ms, 1..60 chunks of 1..3 tokens 5..80
 * ms apart, some empty chunks, one in 15 failed. */
static void fill(llmlat_agg *a, int n)
{
    llmlat_request *r = llmlat_request_new();
    if (!r)
        die("recorder");
    for (int i = 0; i < n; i++) {
        int64_t t = i * 100 * MS;
        llmlat_request_reset(r);
        llmlat_request_start(r, t);
        llmlat_request_set_input_tokens(r, next() % 3000);
        t += (int64_t)(20 + next() % 480) * MS;
        int chunks = 1 + (int)(next() % 60);
        for (int c = 0; c < chunks; c++) {
            llmlat_request_event(r, t, next() % 10 == 0 ? 0 : 1 + (uint32_t)(next() % 3));
            t += (int64_t)(5 + next() % 75) * MS;
        }
        if (i % 15 == 14)
            llmlat_request_fail(r, t);
        else
            llmlat_request_finish(r, t);
        if (llmlat_agg_add(a, r))
            die("add");
    }
    llmlat_request_free(r);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        die("usage: expose_sample DIR");
    const char *dir = argv[1];
    /* alpha -> schema: the coarsest schema whose error is within alpha */
    schema_sample(dir, 0.2, 1, 30000, "");
    schema_sample(dir, 0.05, 3, 30000, "");
    schema_sample(dir, 0.01, 6, 30000, "");
    schema_sample(dir, 0.002, 8, 30000, "");
    schema_sample(dir, 0.0004, 10, 30000, "");
    schema_sample(dir, 0.01, 6, 60, "-sparse"); /* spans with gaps */

    llmlat_agg *fleet[3] = {
        llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED),
        llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT),
        llmlat_agg_new(LLMLAT_CONV_AIPERF, LLMLAT_MODE_BOUNDED),
    };
    for (int i = 0; i < 3; i++)
        if (!fleet[i])
            die("aggregator");
    if (llmlat_agg_set_label(fleet[0], "model", "llama \"3\" 70b") ||
        llmlat_agg_set_label(fleet[0], "route", "/v1/chat") ||
        llmlat_agg_set_label(fleet[1], "model", "back\\slash\nnew line \xc3\xa9t\xc3\xa9") ||
        llmlat_agg_set_label(fleet[1], "route", "/v1/chat") ||
        llmlat_agg_set_param(fleet[0], LLMLAT_PARAM_SLO_TTFT, 0.3) ||
        llmlat_agg_set_param(fleet[1], LLMLAT_PARAM_SLO_E2E, 2.0))
        die("labels");
    for (int i = 0; i < 3; i++)
        fill(fleet[i], 400 + 100 * i);
    const llmlat_agg *const *aggs = (const llmlat_agg *const *)fleet;
    write_expo(dir, "fleet.txt", aggs, 3, LLMLAT_FORMAT_PROMETHEUS);
    write_expo(dir, "fleet.om", aggs, 3, LLMLAT_FORMAT_OPENMETRICS);
    write_expo(dir, "fleet.pb", aggs, 3, LLMLAT_FORMAT_PROMETHEUS_PROTOBUF);
    if (llmlat_agg_set_label(fleet[0], "operation", "chat") ||
        llmlat_agg_set_label(fleet[0], "provider", "openai"))
        die("labels");
    static const char *const SUFFIX[] = { ".txt", ".om", ".pb" };
    for (int32_t names = LLMLAT_NAMES_VLLM; names <= LLMLAT_NAMES_OTEL; names++)
        for (int32_t f = LLMLAT_FORMAT_PROMETHEUS; f <= LLMLAT_FORMAT_PROMETHEUS_PROTOBUF; f++) {
            char name[64];
            snprintf(name, sizeof name, "fleet-%s%s", llmlat_names_name(names),
                     SUFFIX[f - LLMLAT_FORMAT_PROMETHEUS]);
            write_expo_names(dir, name, aggs, 3, f, names);
        }
    size_t len = 0;
    if (llmlat_agg_report(fleet[1], LLMLAT_FORMAT_PROMETHEUS, NULL, 0, &len) != LLMLAT_ENOSPC)
        die("report");
    char *buf = malloc(len);
    if (!buf || llmlat_agg_report(fleet[1], LLMLAT_FORMAT_PROMETHEUS, buf, len, &len))
        die("report");
    write_file(dir, "report.txt", buf, len);
    free(buf);
    for (int i = 0; i < 3; i++)
        llmlat_agg_free(fleet[i]);
    return 0;
}
