/* The options of `llmlat report` (docs/cli.md), parsed and checked. */
#ifndef LLMLAT_REPORT_OPTIONS_H
#define LLMLAT_REPORT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_PERCENTILES 32

typedef struct report_options {
    int32_t convention;
    int32_t mode;
    int32_t format;
    bool has_relative_error;
    double relative_error;
    size_t n_quantiles;          /* 0: the library's default */
    double quantiles[MAX_PERCENTILES];
    double slo_ttft_s, slo_tpot_s, slo_e2e_s; /* 0: no SLO */
    bool has_duration;
    double duration_s;
    int32_t input;               /* LLMLAT_INPUT_* (AUTO: detected) */
    uint64_t run;                /* 0: the last */
    bool help;
    const char *trace;           /* a path, or "-" for standard input */
} report_options;

/* Parses the arguments that follow "report". On a bad argument prints one
 * line to stderr and returns false (exit status 2). */
bool report_options_parse(int argc, char **argv, report_options *o);

#endif
