/* The words of each convention's tool, shared by every report a person
 * reads (text, HTML, the comparison): the summary labels, the metric rows
 * in the tool's order and names, and what its "ITL" is. */
#ifndef LLMLAT_REPORT_WORDS_H
#define LLMLAT_REPORT_WORDS_H

#include <stdint.h>

#include "util/compiler.h"

/* The lines of the summary block. */
enum report_item {
    REPORT_ITEM_COMPLETED, REPORT_ITEM_FAILED, REPORT_ITEM_TPOT_UNDEFINED, REPORT_ITEM_DURATION,
    REPORT_ITEM_INPUT_TOKENS, REPORT_ITEM_OUTPUT_TOKENS, REPORT_ITEM_REQUEST_RATE, REPORT_ITEM_GOODPUT,
    REPORT_ITEM_GOOD, REPORT_ITEM_OUTPUT_RATE, REPORT_ITEM_TOTAL_RATE, REPORT_ITEM_PEAK_TOKENS,
    REPORT_ITEM_PEAK_CONCURRENCY, REPORT_ITEM_COUNT
};

typedef struct text_row {
    int32_t metric;
    const char *label;
} text_row;

/* The rows of the metrics from the intended start, shown when some
 * request had one. */
#define SCHED_ROWS 3

/* A convention's words: summary labels where its tool has its own (NULL:
 * llmlat's), the table rows in its order, the rows from the intended
 * start (DISPATCH_DELAY, SCHEDULED_TTFT, SCHEDULED_E2E; a NULL label:
 * llmlat's, for a figure the tool does not have), and what its ITL is. */
typedef struct text_words {
    const char *tool;
    const char *items[REPORT_ITEM_COUNT];
    text_row rows[8];
    const char *sched[SCHED_ROWS];
    const char *note;
} text_words;

/* The words of a convention id (which must be valid). */
LLMLAT_PRIVATE const text_words *report_words(int32_t convention);
/* A summary line's label in those words. */
LLMLAT_PRIVATE const char *report_item_label(const text_words *w, enum report_item i);
/* The row label of a metric in those words ("TTFT (ms)"), or llmlat's
 * own when the tool has no row for it. */
LLMLAT_PRIVATE const char *report_metric_label(const text_words *w, int32_t metric);
/* The metric of row i of the rows from the intended start. */
static inline int32_t report_sched_metric(size_t i)
{
    return LLMLAT_DISPATCH_DELAY + (int32_t)i;
}

#endif
