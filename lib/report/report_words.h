/* The words of each convention's tool, shared by every report a person
 * reads (text, HTML, the comparison): the summary labels, the metric rows
 * in the tool's order and names, and what its "ITL" is. Each tool's words
 * are its convention's row (`words`, record/convention_table.c); here are
 * llmlat's own, for what a tool has no word for. */
#ifndef LLMLAT_REPORT_WORDS_H
#define LLMLAT_REPORT_WORDS_H

#include <stdint.h>

#include "agg/agg.h"

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
