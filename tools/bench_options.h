/* The options of `llmlat bench` (docs/bench.md), parsed and checked: its
 * own table, and the report's options it shares with `llmlat report`
 * (report_options: --convention, --format, --percentiles, --goodput).
 * Every check that can be made before anything is sent is made here. */
#ifndef LLMLAT_BENCH_OPTIONS_H
#define LLMLAT_BENCH_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bench_url.h"
#include "report_options.h"

#define BENCH_MAX_HEADERS 32
#define BENCH_MAX_LEVELS 32
#define BENCH_MAX_THREADS 64

/* Arrival processes of the open loop. */
enum { ARRIVAL_POISSON, ARRIVAL_GAMMA, ARRIVAL_CONSTANT };

/* A length: lo when lo == hi, else uniform integers in [lo, hi]. */
typedef struct length_range {
    uint32_t lo, hi;
} length_range;

typedef struct bench_options {
    report_options report;        /* the report's options */
    const char *base_url;
    bench_url url;
    const char *endpoint;         /* the path, such as /v1/completions */
    char path[URL_PATH_MAX + 64]; /* the base's prefix and the endpoint */
    bool chat;                    /* .../chat/completions: messages */
    const char *model;            /* NULL: ask GET /v1/models */
    const char *api_key;          /* --api-key or LLMLAT_API_KEY; NULL: none */
    const char *headers[BENCH_MAX_HEADERS];
    size_t n_headers;
    const char *extra_body;       /* a JSON object, checked */
    bool has_requests;
    uint64_t requests;
    double duration_s;            /* 0: none */
    length_range input_len, output_len, token_ids;
    bool ignore_eos;
    const char *dataset, *replay;
    uint64_t seed;
    /* The load: each level is one run of a sweep (one level: one run). */
    double rates[BENCH_MAX_LEVELS];      /* requests/s, INFINITY: all at once */
    uint32_t concurrency[BENCH_MAX_LEVELS]; /* closed loop */
    size_t n_levels;
    bool closed;                  /* --concurrency, else --rate or --replay */
    int arrival;                  /* ARRIVAL_* */
    double gamma_shape;
    uint32_t max_concurrency;     /* 0: no cap */
    int count_tokens;             /* STREAM_COUNT_* */
    uint32_t threads;
    double timeout_s, connect_timeout_s, drain_s;
    const char *output;           /* the trace; NULL: none */
    int metrics_port;             /* -1: none */
    const char *metrics_host;
    const char *ca_file;          /* TLS: trusted certificates */
    bool insecure;                /* TLS: no verification */
    bool quiet, help;
} bench_options;

/* Parses the arguments after `bench`. On a bad argument prints one line
 * to stderr and returns false (exit status 2). */
bool bench_options_parse(int argc, char **argv, bench_options *o);

/* The options, for --help. */
void bench_options_usage(FILE *out);

#endif
