/* The report of a run of `llmlat bench`: the library's, in the report's
 * format (the same numbers `llmlat report` gives on the run's trace), with
 * what only bench knows -- the server, the load, the failures by reason,
 * the requests an interruption left unsent -- as heading lines of the
 * text report and a "bench" member of the JSON one. */
#ifndef LLMLAT_BENCH_REPORT_H
#define LLMLAT_BENCH_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "bench_run.h"

typedef struct run_summary {
    const char *model;        /* "" when the requests named none */
    const char *trace;        /* the trace's path, NULL */
    failure_counts failures;
    uint64_t sent, not_sent, logprobs_missing;
    double wall_s;            /* from the origin to the last end */
    bool interrupted;
} run_summary;

/* Writes the report of a (the run's merged aggregator) to stdout; returns
 * the exit status (0, or 1 when stdout fails or the library cannot). */
int bench_report_write(const bench_run *r, const llmlat_agg *a, const run_summary *s);

#endif
