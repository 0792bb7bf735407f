/* The command's inputs: an aggregator set up as the options say, and a
 * file (or standard input) read into it through the library's reader, the
 * rejected requests named on stderr. */
#ifndef LLMLAT_INPUT_H
#define LLMLAT_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "llmlat.h"
#include "report_options.h"

/* What the reading found, for the report. */
typedef struct reading {
    const char *name;   /* the path, or "<stdin>" */
    int32_t format;     /* LLMLAT_INPUT_* */
    uint64_t requests, rejected;
    uint64_t run, runs; /* 0: the format has no runs */
} reading;

/* A new aggregator in mode `mode` with the options' convention, SLOs,
 * quantiles, relative error and duration; NULL (said on stderr) on error. */
llmlat_agg *input_aggregator(const report_options *o, int32_t mode);

/* Reads path ("-": standard input) into a, as --input and --run say; the
 * input's own duration becomes a's when no --duration was given. Returns
 * the exit status (EXIT_OK once the input was read to its end). */
int input_read(llmlat_agg *a, const report_options *o, const char *path, reading *g);

/* The same into n aggregators at once (every request into each, in
 * order): one reading, n views of it. A request one of them refuses is
 * named on stderr and counted as rejected. */
int input_read_each(llmlat_agg *const *aggs, size_t n, const report_options *o, const char *path,
                    reading *g);

/* "Trace: NAME (...)", or "Input: NAME (vllm, run 2 of 3; ...)", with its
 * newline, on stdout. */
void input_heading(const char *what, const reading *g);

/* `"input": {...}, "requests_read": N, "rejected_requests": N` (no braces
 * around: members of the object being written), prefixed by `key_prefix`
 * ("" or "base_"). */
void input_json_members(const char *key_prefix, const reading *g);

#endif
