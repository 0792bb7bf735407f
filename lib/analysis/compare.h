/* A comparison of two runs (llmlat_compare_new): each figure of both, the
 * difference, and a bootstrap interval of it. compare.c computes it,
 * compare_report.c writes it. docs/compare.md has the method. */
#ifndef LLMLAT_COMPARE_H
#define LLMLAT_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "agg/agg.h"

#define COMPARE_FIELDS LLMLAT_COMPARE_REL_HIGH /* fields are 1 .. this */
#define COMPARE_NAME_MAX 48
/* Per metric: mean, median and the other quantiles; then the rates
 * (requests, output tokens, total tokens, goodput). */
#define COMPARE_RATES 4
#define COMPARE_MAX_FIGURES (METRIC_COUNT * (2 + MAX_QUANTILES) + COMPARE_RATES)
#define COMPARE_CONFIDENCE 0.95

typedef struct compare_figure {
    char name[COMPARE_NAME_MAX]; /* "mean_ttft", "p99_ttft", "output_throughput" */
    int32_t metric;              /* a metric id, or 0 for a rate */
    int32_t rate;                /* the rate id when metric is 0 */
    int32_t stat;                /* STAT_MEAN, STAT_MEDIAN, or 0 for quantile q */
    double q;
    size_t qi;                   /* q's index in the comparison's q[] */
    double v[COMPARE_FIELDS + 1]; /* indexed by field (0 unused), NaN when undefined */
} compare_figure;

/* What the report says about each run. */
typedef struct compare_side {
    uint64_t completed, failed;
    double duration_s;  /* NaN when undefined */
    bool holds;         /* it keeps its requests: it can be resampled */
} compare_side;

struct llmlat_compare {
    llmlat_alloc al;
    const conv_rules *conv;
    uint32_t resamples;
    uint64_t seed;
    bool intervals;             /* both sides resampled */
    compare_side side[2];       /* base, candidate */
    double q[MAX_QUANTILES];    /* the quantile figures' q (0.5 is the median) */
    size_t nq;
    size_t n_fig;
    compare_figure fig[COMPARE_MAX_FIGURES];
};

LLMLAT_PRIVATE const compare_figure *compare_find(const llmlat_compare *c, const char *name);

/* Every figure of a, in c's order, into out[n_fig]; NaN where undefined. */
LLMLAT_PRIVATE int32_t compare_figures_of(const llmlat_compare *c, const llmlat_agg *a,
                                          double *out);

/* ------------------------------------------------ the bootstrap's view */

/* A sample, its weight and the request it belongs to: one 16-byte record,
 * so that a resample's walk streams one array. */
typedef struct compare_sample {
    double v;
    uint32_t w;
    uint32_t req;
} compare_sample;

/* One store's samples, sorted; and per request its weight and sum there
 * (for COUNT and MEAN by request). */
typedef struct compare_store {
    size_t n;
    compare_sample *sample;
    uint64_t *req_w;
    double *req_sum;
} compare_store;

/* What a request brought to the rates. */
typedef struct compare_part {
    uint64_t input_tokens, output_tokens;
    bool success, good;
} compare_part;

/* One run, ready to be resampled. */
typedef struct compare_run {
    size_t n;                          /* requests */
    compare_part *part;
    compare_store st[METRIC_COUNT];
    bool any_slo;
    double duration_s;                 /* NaN when undefined */
    bool zero_when_empty;              /* the convention's placeholder */
    uint32_t *mult;                    /* the current resample */
} compare_run;

/* a's requests (a keeps them), ready to be resampled; free it even on
 * error. */
LLMLAT_PRIVATE int32_t compare_run_prepare(compare_run *r, const llmlat_agg *a,
                                           const llmlat_alloc *al);
LLMLAT_PRIVATE void compare_run_free(compare_run *r, const llmlat_alloc *al);
/* Every figure of the multiset r->mult stands for (request i r->mult[i]
 * times), as compare_figures_of would give them for an aggregator of those
 * requests but for the last bits of the means; `like` is the run's
 * aggregator (for its convention's store aliases). */
LLMLAT_PRIVATE void compare_run_figures(const llmlat_compare *c, const compare_run *r,
                                        const llmlat_agg *like, double *out);

#endif
