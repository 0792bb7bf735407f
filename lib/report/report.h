/* What the report writers share: the aggregator being reported, the
 * output, and queries that give NaN for an undefined value (a statistic of
 * an empty set, a rate without duration) while stopping the output at a
 * real error (ENOMEM while sorting, see rbuf_fail) so that a writer never
 * checks after each call.
 *
 * report.c: llmlat_agg_report_write, llmlat_agg_report and these
 * queries; report_text.c and report_json.c (+ report_tool.c, the `tool`
 * object) write one format each; the exposition formats are expose.h's
 * (+ report_hist.c, the classic histogram buckets). */
#ifndef LLMLAT_REPORT_H
#define LLMLAT_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "agg/agg.h"
#include "report/report_buf.h"
#include "report/report_words.h"

/* Every statistic of one metric, each NaN when undefined (a convention's
 * placeholder, such as vLLM's 0.0 for an empty set, is a value). */
typedef struct metric_values {
    uint64_t count; /* samples (tokens for ITL) */
    double mean, std, min, max, median;
    double mode; /* GuideLLM's; NaN unless asked of report_groups_metric */
    double q[MAX_QUANTILES]; /* the quantiles asked of report_metric */
    size_t n_q;
} metric_values;

typedef struct report_ctx {
    const llmlat_agg *a;
    int32_t format;
    rbuf out; /* its status is the report's: the first error of a query or the sink */
    /* Each store's statistics, computed once: a report asks for a metric in
     * several places (and TOOL_ITL shares a store), and in exact mode every
     * statistic is a pass over all samples. */
    bool known[METRIC_COUNT];
    metric_values cache[METRIC_COUNT];
    double cache_q[METRIC_COUNT][MAX_QUANTILES]; /* the quantiles cached */
    /* Rates and counters too (the peaks sort every event), by id. */
    bool rate_known[LLMLAT_RATE_PEAK_OUTPUT_TOKENS + 1];
    double rate[LLMLAT_RATE_PEAK_OUTPUT_TOKENS + 1];
    bool counter_known[LLMLAT_COUNT_MEMORY_BYTES + 1];
    bool counter_defined[LLMLAT_COUNT_MEMORY_BYTES + 1];
    uint64_t counter[LLMLAT_COUNT_MEMORY_BYTES + 1];
} report_ctx;

/* Fills v for a metric, with the n <= MAX_QUANTILES quantiles q[] computed
 * in one pass. */
LLMLAT_PRIVATE void report_metric(report_ctx *c, int32_t metric, const double *q, size_t n,
                                  metric_values *v);
/* The same over status groups: the union of those in the mask (bit
 * 1 << GROUP_SUCCESSFUL, ...: one group, GuideLLM's total of all three,
 * inference-perf's failures), the mode too when with_mode. Not cached. */
#define GROUPS_ALL ((1u << GROUP_COUNT) - 1)
#define GROUPS_FAILED (GROUPS_ALL & ~(1u << GROUP_SUCCESSFUL))
LLMLAT_PRIVATE void report_groups_metric(report_ctx *c, unsigned groups, int32_t metric,
                                         const double *q, size_t n, bool with_mode,
                                         metric_values *v);
LLMLAT_PRIVATE double report_rate(report_ctx *c, int32_t rate);
LLMLAT_PRIVATE double report_duration(const report_ctx *c);
/* false when the counter is undefined (GOOD without an SLO). */
LLMLAT_PRIVATE bool report_counter(report_ctx *c, int32_t counter, uint64_t *out);

/* A line of the summary a person reads (text, HTML): a count (*count
 * true: *n, exact, and *v NaN when it is undefined) or a value *v (NaN
 * when undefined), and *why the data cannot support it (NULL when they
 * can). false for a line that does not apply: goodput and good requests
 * without an SLO. */
LLMLAT_PRIVATE bool report_item_value(report_ctx *c, enum report_item item, double *v,
                                      bool *count, uint64_t *n, const char **why);

/* Why a's data cannot support metric, rate or counter `id` (kind
 * LLMLAT_KIND_*), NULL when it can: reports write "not available" and the
 * reason where the value would be. The duration has the reason of the
 * requests rate (LLMLAT_RATE_REQUESTS: it needs nothing else). */
LLMLAT_PRIVATE const char *report_unavailable(const report_ctx *c, int32_t kind, int32_t id);

/* Whether some request added had an intended start (a sample of
 * DISPATCH_DELAY in any status group): the rows, charts and tool figures
 * from it are written only then. */
LLMLAT_PRIVATE bool report_has_schedule(const report_ctx *c);
/* The rows of a statistics table (text, HTML): the tool's, then those
 * from the intended start when some request had one. Returns how many. */
#define REPORT_ROWS_MAX (sizeof ((text_words *)0)->rows / sizeof(text_row) + SCHED_ROWS)
LLMLAT_PRIVATE size_t report_table_rows(const report_ctx *c, const text_words *w,
                                        text_row *rows);
/* The P99 dispatch delay (NaN when undefined) and whether it is above
 * LLMLAT_PARAM_MAX_DISPATCH_DELAY: the client fell behind its schedule. */
LLMLAT_PRIVATE bool report_behind_schedule(report_ctx *c, double *p99);
/* The warning of a run whose client fell behind its schedule: one
 * sentence in w's words (its labels HTML-escaped when html) between
 * `before` and `after`, its clauses apart by `sep`; nothing when it did
 * not. false when nothing was written. */
LLMLAT_PRIVATE bool report_schedule_warning(report_ctx *c, const text_words *w, bool html,
                                            const char *before, const char *sep,
                                            const char *after);

/* true when q[i] repeats an earlier q[j] (a report writes it once). */
LLMLAT_PRIVATE bool report_quantile_repeats(const double *q, size_t i);

LLMLAT_PRIVATE void report_text(report_ctx *c);
LLMLAT_PRIVATE void report_json(report_ctx *c);
LLMLAT_PRIVATE void report_chrome_trace(report_ctx *c);
LLMLAT_PRIVATE void report_requests_csv(report_ctx *c);
LLMLAT_PRIVATE void report_requests_jsonl(report_ctx *c);
LLMLAT_PRIVATE void report_html(report_ctx *c);
/* The exposition formats: the exposition of c->a alone (expose.h), with
 * the gauges of its run. */
LLMLAT_PRIVATE void report_exposition(report_ctx *c);

/* The sink of the buffer-writing calls (llmlat_agg_report, llmlat_expose).
 * A too-small buffer must receive nothing, and the size is only known at
 * the end: the bytes are collected while they fit the caller's buffer
 * (beyond, only counted), then copied once by report_collect_end, which
 * applies the buffer contract to the output's status st and frees. */
typedef struct report_collect {
    const llmlat_alloc *al;
    size_t limit; /* the caller's capacity */
    char *p;
    size_t len, cap;
} report_collect;

LLMLAT_PRIVATE int32_t report_collect_write(void *user, const void *bytes, size_t n);
LLMLAT_PRIVATE int32_t report_collect_end(report_collect *k, int32_t st, void *buf, size_t cap,
                                          size_t *len);

#endif
