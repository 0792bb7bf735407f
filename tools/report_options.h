/* The options of `llmlat report` and `llmlat compare` (docs/cli.md),
 * parsed and checked: one table, each option marked with the commands it
 * belongs to. */
#ifndef LLMLAT_REPORT_OPTIONS_H
#define LLMLAT_REPORT_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_PERCENTILES 32
#define MAX_INPUTS 2

/* The commands the options serve (`llmlat bench` takes the report's
 * options for its own report). */
enum { COMMAND_REPORT = 1, COMMAND_COMPARE = 2, COMMAND_BENCH = 4 };

/* What the format option may name beyond the library's: the slices' CSV. */
#define FORMAT_SLICES_CSV (-1)

/* --convention all: every convention side by side (report_all.c). */
#define CONVENTION_ALL (-1)

typedef struct report_options {
    int command;                 /* COMMAND_* */
    const char *prog;            /* "llmlat report", for messages */
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
    bool has_max_dispatch_delay; /* the warning's threshold (default: the library's) */
    double max_dispatch_delay_s;
    bool server_output_tokens;   /* --output-tokens server */
    int32_t input;               /* LLMLAT_INPUT_* (AUTO: detected) */
    uint64_t run;                /* 0: the last */
    /* The part of the run: --window FROM:TO, --warmup, --cooldown (seconds
     * from the first start, docs/cli.md), --slice. */
    bool has_window_from, has_window_to;
    double window_from_s, window_to_s;
    double warmup_s, cooldown_s;
    double slice_s;              /* 0: no slices */
    bool format_set;             /* --format given (--per-request may not be) */
    bool per_request_set;        /* --per-request given */
    /* compare */
    uint32_t resamples;
    uint64_t seed;
    const char *fail_if;         /* the rules, NULL without */
    bool help;
    const char *inputs[MAX_INPUTS]; /* paths, or "-" for standard input */
    size_t n_inputs;
    const char *trace;           /* inputs[0] */
} report_options;

/* true when a window is asked for (--window, --warmup, --cooldown). */
static inline bool options_window(const report_options *o)
{
    return o->has_window_from || o->has_window_to || o->warmup_s > 0 || o->cooldown_s > 0;
}

/* true when a part of the run is asked for: a window, or slices. */
static inline bool options_select(const report_options *o)
{
    return options_window(o) || o->slice_s > 0;
}

/* Parses the arguments that follow the command's name. On a bad argument
 * prints one line to stderr and returns false (exit status 2). */
bool report_options_parse(int command, int argc, char **argv, report_options *o);

/* For a command that has options of its own (bench): the defaults, then
 * one option at argv[*i] (its value at argv[*i + 1] or after '='; *i moves
 * past what was used). Returns 1 when taken, 0 when it is no option of
 * the command, -1 on a bad value (said on stderr: exit status 2). */
void report_options_init(int command, report_options *o);
int report_options_take(report_options *o, int argc, char **argv, int *i);

/* The options of a command, for its help. */
void report_options_usage(int command, FILE *out);

#endif
