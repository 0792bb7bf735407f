/* The exposition: many aggregators as one set of metric families, in
 * three encodings (docs/prometheus.md).
 *
 * expose.c knows *what* is exposed: the families (name, type, unit, help)
 * and, for each aggregator, the point of a family — a counter's or a
 * gauge's value, a summary's quantiles, a histogram's classic and native
 * buckets, and for the last two the exact count and sum. expose_text.c
 * (text 0.0.4, OpenMetrics 1.0) and expose_pb.c (delimited protobuf) know
 * *how* to write them: an encoder is three calls, family / point /
 * end, so every format writes the same families, series and values. */
#ifndef LLMLAT_EXPOSE_H
#define LLMLAT_EXPOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agg/agg.h"
#include "report/pbwire.h"
#include "report/report_buf.h"

typedef enum expose_type {
    EXPOSE_COUNTER,
    EXPOSE_GAUGE,
    EXPOSE_SUMMARY,
    EXPOSE_HISTOGRAM,
} expose_type;

/* What a family's points are read from. */
typedef enum expose_source {
    FROM_INFO,      /* llmlat_info: 1, with version, convention and mode */
    FROM_COUNTER,   /* llmlat_agg_counter(id) */
    FROM_DURATION,  /* the duration D (a run gauge) */
    FROM_RATE,      /* llmlat_agg_rate(id) (a run gauge) */
    FROM_PEAK,      /* the peak-concurrency counter, as a gauge (a run gauge) */
    FROM_SUMMARY,   /* quantiles, sum and count of metric id */
    FROM_HISTOGRAM, /* classic and native buckets, sum and count of metric id */
} expose_source;

typedef struct expose_family {
    /* The family's name as text 0.0.4 and protobuf write it (counters
     * with their "_total"; OpenMetrics drops it from the family name). */
    const char *name;
    expose_type type;
    const char *unit; /* OpenMetrics' # UNIT (a suffix of the name), or NULL */
    const char *help;
    expose_source source;
    int32_t id; /* counter, rate or metric id */
} expose_family;

/* How a scheme writes a metric's histogram series: its classic bounds
 * (at most MAX_BUCKET_BOUNDS) where the aggregator's were not set
 * (llmlat_agg_set_buckets), and a label of the series' own, or NULL.
 * Without one, the bounds are llmlat's defaults (report_hist.h). */
typedef struct expose_histogram {
    int32_t metric;
    const double *bounds;
    size_t n_bounds;
    const char *label, *label_value;
} expose_histogram;

/* A label renamed by a scheme: the aggregator's `from` is written `to`. */
typedef struct expose_rename {
    const char *from, *to;
} expose_rename;

/* A naming scheme (LLMLAT_NAMES_*): its families in the order written
 * (entries one after another with the same name are one family, their
 * series told apart by their histograms' own labels: OTel's
 * gen_ai_token_type), how it writes histograms, the names it gives the
 * aggregators' labels (the others keep theirs), and the label names it
 * writes itself besides "le" and "quantile" (which no constant label can
 * take), which no renamed label may take either. */
typedef struct expose_scheme {
    const expose_family *families;
    size_t n_families;
    const expose_histogram *histograms;
    size_t n_histograms;
    const expose_rename *renames;
    size_t n_renames;
    const char *const *own_labels;
    size_t n_own_labels;
} expose_scheme;

/* The schemes of the systems (expose_names.c): VLLM, SGLANG, OTEL;
 * NULL for another id. llmlat's own is in expose.c. */
LLMLAT_PRIVATE const expose_scheme *expose_names_scheme(int32_t names);

/* The labels llmlat writes itself on a series: llmlat_info's three, or a
 * histogram's own label. */
#define EXPOSE_OWN_LABELS 3

/* One aggregator's point of one family. Arrays point into the
 * exposition's scratch and live until the next point. */
typedef struct expose_point {
    /* the series' labels: the aggregator's constant labels, in its
     * order, under the scheme's names; then llmlat's own */
    size_t n_labels;
    const char *label_name[LLMLAT_MAX_LABELS], *label_value[LLMLAT_MAX_LABELS];
    size_t n_own;
    const char *own_name[EXPOSE_OWN_LABELS], *own_value[EXPOSE_OWN_LABELS];
    double value;        /* counter, gauge */
    uint64_t count;      /* summary, histogram: exact */
    double sum;          /* summary, histogram: LLMLAT_STAT_SUM */
    /* summary: the quantiles (repeats dropped) and their values */
    size_t n_q;
    const double *q, *qv;
    /* histogram: classic bounds le[i] < +Inf and cumulative counts (the
     * +Inf bucket is `count`) */
    size_t n_le;
    const double *le;
    const uint64_t *cum;
    /* histogram: the native buckets (llmlat_agg_buckets), when has_native */
    bool has_native;
    int32_t schema;
    double zero_threshold;
    uint64_t zero_count;
    int32_t offset;
    const uint64_t *counts; /* counts[j]: bucket offset + j */
    size_t n_counts;
} expose_point;

typedef struct expose_encoder expose_encoder;

/* An encoder writes families to `out`. The protobuf encoder assembles a
 * family in `msg` first: a message's length precedes it. */
struct expose_encoder {
    void (*family)(expose_encoder *e, const expose_family *f);
    void (*point)(expose_encoder *e, const expose_family *f, const expose_point *p);
    void (*family_end)(expose_encoder *e, const expose_family *f);
    void (*end)(expose_encoder *e);
    rbuf *out;
    pbuf msg;
    bool openmetrics; /* the text encoder's dialect */
    /* The text encoder's: the bucket bounds last written, as text (a
     * fleet's aggregators mostly share the default ones). */
    const double *le_of;
    size_t n_le_of;
    char le_text[MAX_BUCKET_BOUNDS + 1][DOUBLE_TEXT_MAX];
};

/* Sets e up for a format (PROMETHEUS, OPENMETRICS, PROMETHEUS_PROTOBUF);
 * false for another. */
LLMLAT_PRIVATE bool expose_text_encoder(expose_encoder *e, int32_t format);
LLMLAT_PRIVATE bool expose_pb_encoder(expose_encoder *e, int32_t format);

/* The exposition of aggs[0..n) in `format` and naming scheme `names`
 * to out. `run_gauges` adds the gauges derived from each aggregator's
 * duration (what a benchmark's report shows; meaningless for a server,
 * whose rates come from rate(); llmlat's scheme only).
 * An error stops out (rbuf_fail): EINVAL for labels the scheme makes
 * clash (two aggregators with the same labels included; before anything
 * is written), ENOMEM. The caller validated the arguments; al serves the
 * scratch. */
LLMLAT_PRIVATE void expose_run(rbuf *out, const llmlat_agg *const *aggs, size_t n,
                               int32_t format, int32_t names, bool run_gauges,
                               const llmlat_alloc *al);

#endif
