/* llmlat's own words, and a tool's words (its convention's row) read
 * with them as fallback (report/report_words.h). */
#include <stddef.h>

#include "llmlat.h"
#include "util/compiler.h"
#include "report/report_words.h"

/* llmlat's own summary labels, for a line a tool has no name for. */
static const char *const DEFAULT_ITEMS[REPORT_ITEM_COUNT] = {
    [REPORT_ITEM_COMPLETED] = "Successful requests",
    [REPORT_ITEM_FAILED] = "Failed requests",
    [REPORT_ITEM_TPOT_UNDEFINED] = "Successes without TPOT (N <= 1)",
    [REPORT_ITEM_DURATION] = "Duration (s)",
    [REPORT_ITEM_INPUT_TOKENS] = "Total input tokens",
    [REPORT_ITEM_OUTPUT_TOKENS] = "Total output tokens",
    [REPORT_ITEM_REQUEST_RATE] = "Request throughput (req/s)",
    [REPORT_ITEM_GOODPUT] = "Request goodput (req/s)",
    [REPORT_ITEM_GOOD] = "Good requests",
    [REPORT_ITEM_OUTPUT_RATE] = "Output token throughput (tok/s)",
    [REPORT_ITEM_TOTAL_RATE] = "Total token throughput (tok/s)",
    [REPORT_ITEM_PEAK_TOKENS] = "Peak output tokens in 1 s",
    [REPORT_ITEM_PEAK_CONCURRENCY] = "Peak concurrent requests",
};

/* llmlat's own row labels, for a metric a tool has no row for. */
static const char *const DEFAULT_LABELS[] = {
    [LLMLAT_TTFT] = "TTFT (ms)",
    [LLMLAT_TPOT] = "TPOT (ms)",
    [LLMLAT_ITL] = "per-token ITL (ms)",
    [LLMLAT_ICL] = "ICL (ms)",
    [LLMLAT_E2E] = "E2E (ms)",
    [LLMLAT_TPS_USER] = "TPS per user (tok/s)",
    [LLMLAT_ITL_MAX] = "ITL max (ms)",
    [LLMLAT_OUTPUT_TOKENS] = "output tokens",
    [LLMLAT_INPUT_TOKENS] = "input tokens",
    [LLMLAT_TOOL_ITL] = "ITL (ms)",
    [LLMLAT_NTPOT] = "NTPOT (ms)",
    [LLMLAT_DISPATCH_DELAY] = "dispatch delay (ms)",
    [LLMLAT_SCHEDULED_TTFT] = "scheduled TTFT (ms)",
    [LLMLAT_SCHEDULED_E2E] = "scheduled E2E (ms)",
};

LLMLAT_PRIVATE const text_words *report_words(int32_t convention)
{
    return conv_get(convention)->words;
}

LLMLAT_PRIVATE const char *report_item_label(const text_words *w, enum report_item i)
{
    return w->items[i] ? w->items[i] : DEFAULT_ITEMS[i];
}

LLMLAT_PRIVATE const char *report_metric_label(const text_words *w, int32_t metric)
{
    for (size_t i = 0; i < sizeof w->rows / sizeof w->rows[0] && w->rows[i].label; i++)
        if (w->rows[i].metric == metric)
            return w->rows[i].label;
    for (size_t i = 0; i < SCHED_ROWS; i++)
        if (report_sched_metric(i) == metric && w->sched[i])
            return w->sched[i];
    return DEFAULT_LABELS[metric];
}
