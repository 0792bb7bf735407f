/* llmlat-bench: what the suite's parts share. Every figure is measured
 * beside a reference in the same run (the two batches alternate, repeat
 * after repeat), and each is the median of the repeats; the ratio is the
 * median of the per-repeat ratios, which cancels most of a shared
 * machine's drift. Times are the thread's CPU time (a batch preempted by
 * another process does not count the wait), see docs/performance.md. */
#ifndef LLMLAT_BENCH_H
#define LLMLAT_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "llmlat.h"

#define MS INT64_C(1000000)

/* ------------------------------------------------------------ measuring */

/* The calling thread's CPU time, ns. */
int64_t bench_cpu_ns(void);

/* One batch of work; `ctx` is the caller's. */
typedef void (*bench_batch)(void *ctx);

typedef struct measure {
    double value, ref;  /* medians, per unit */
    double ratio;       /* median of value / ref per repeat */
    double lo, hi;      /* smallest and largest value */
} measure;

/* Runs `subject` and `ref` (may be NULL) `repeats` times each, alternating
 * which goes first, after one untimed warm-up of each; the subject's times
 * are divided by `units` (events, requests, ...), the reference's by
 * `ref_units`. */
measure bench_pair(bench_batch subject, double units, bench_batch ref, double ref_units,
                   void *ctx, int repeats);

/* The cost of one step that cannot run alone (finishing a request needs
 * one recorded): `with` and `without` are the same batch with and without
 * it, alternating as in bench_pair. value: the median per repeat of
 * (with - without) / units; ref: the median of without / units; ratio:
 * the median of their per-repeat quotient. */
measure bench_difference(bench_batch with, bench_batch without, double units, void *ctx,
                         int repeats);

double bench_median(double *v, int n); /* sorts v */

/* The deterministic generator every part uses (xorshift64*). */
uint64_t bench_rng(void);
void bench_rng_seed(uint64_t seed);
/* A decode gap: 5..25 ms skewed low, a stall up to +20 ms one time in 16. */
int64_t bench_gap_ns(void);

/* Exits with a message when a call failed: a benchmark of failing calls
 * would measure nothing. */
void bench_check(int32_t status, const char *what);
void *bench_alloc(size_t size);

/* The least an opaque-handle recorder can do per event, called through a
 * pointer the compiler cannot see through: check room, store t and k,
 * count. The floor for llmlat_request_event. */
typedef struct bench_sink {
    int64_t *t;
    uint32_t *k;
    size_t n, cap;
} bench_sink;
typedef int32_t (*bench_sink_fn)(bench_sink *s, int64_t t, uint32_t k);
extern bench_sink_fn volatile bench_sink_append;

/* ---------------------------------------------------------------- rows */

enum { TARGET_NONE = -1, TARGET_MISSED = 0, TARGET_MET = 1 };

typedef struct bench_row {
    char id[48];          /* stable key for --json */
    char section[24];
    char label[96];
    double value;
    char unit[12];
    char ref_label[96];   /* empty: no reference */
    double ref;
    double ratio;         /* value / ref (NaN without a reference) */
    double lo, hi;        /* spread of value over the repeats */
    int target;           /* TARGET_* */
    char target_text[96]; /* e.g. "<= 2 ns" */
} bench_row;

/* Appends a row from a measure; returns it for the target fields. */
bench_row *bench_add(const char *section, const char *id, const char *label, const char *unit,
                     measure m, const char *ref_label);
/* Sets a row's target: met when `met`, with its text. */
void bench_target(bench_row *row, int met, const char *text);

/* One point of the fold sweep (docs/perf-fold.svg). */
typedef struct fold_point {
    unsigned tokens;
    double exact_ns, bounded_ns, floor_ns; /* per request */
    double exact_ratio, bounded_ratio;     /* to the floor */
} fold_point;

void bench_add_fold_point(fold_point p);

/* ------------------------------------------------------------- settings */

typedef struct bench_opts {
    int repeats;
    int quick;        /* smaller sizes, for a smoke run */
    int json;
    const char *fold_data; /* gnuplot data file, or NULL */
} bench_opts;

/* The parts of the suite (bench_recorder.c, bench_agg.c). */
void bench_recorder(const bench_opts *o);
void bench_fold(const bench_opts *o);
void bench_query(const bench_opts *o);
void bench_exact_quantiles(const bench_opts *o);
void bench_expose(const bench_opts *o); /* bench_expose.c */

/* Output of everything added (bench_util.c). */
void bench_print_table(const bench_opts *o);
void bench_print_json(const bench_opts *o);
int bench_write_fold_data(const char *path);

/* Hides a value from the optimizer: the floors' loops then store each
 * value as computed, one by one, instead of being vectorized or folded. */
#if defined(__GNUC__) || defined(__clang__)
#define OPAQUE(x) __asm__ volatile("" : "+r"(x))
#else
#define OPAQUE(x) ((void)0)
#endif

#endif
