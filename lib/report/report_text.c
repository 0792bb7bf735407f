/* The TEXT report: a summary block and a table of statistics in ms,
 * labelled in the words of the convention's tool (its "ITL" row shows what
 * that tool calls ITL). Undefined values print as "-". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"

/* The lines of the summary block. */
enum item {
    ITEM_COMPLETED, ITEM_FAILED, ITEM_TPOT_UNDEFINED, ITEM_DURATION,
    ITEM_INPUT_TOKENS, ITEM_OUTPUT_TOKENS, ITEM_REQUEST_RATE, ITEM_GOODPUT,
    ITEM_GOOD, ITEM_OUTPUT_RATE, ITEM_TOTAL_RATE, ITEM_PEAK_TOKENS,
    ITEM_PEAK_CONCURRENCY, ITEM_COUNT
};

static const char *const DEFAULT_ITEMS[ITEM_COUNT] = {
    [ITEM_COMPLETED] = "Successful requests",
    [ITEM_FAILED] = "Failed requests",
    [ITEM_TPOT_UNDEFINED] = "Successes without TPOT (N <= 1)",
    [ITEM_DURATION] = "Duration (s)",
    [ITEM_INPUT_TOKENS] = "Total input tokens",
    [ITEM_OUTPUT_TOKENS] = "Total output tokens",
    [ITEM_REQUEST_RATE] = "Request throughput (req/s)",
    [ITEM_GOODPUT] = "Request goodput (req/s)",
    [ITEM_GOOD] = "Good requests",
    [ITEM_OUTPUT_RATE] = "Output token throughput (tok/s)",
    [ITEM_TOTAL_RATE] = "Total token throughput (tok/s)",
    [ITEM_PEAK_TOKENS] = "Peak output tokens in 1 s",
    [ITEM_PEAK_CONCURRENCY] = "Peak concurrent requests",
};

typedef struct text_row {
    int32_t metric;
    const char *label;
} text_row;

/* A convention's words: summary labels where its tool has its own (NULL:
 * DEFAULT_ITEMS), the table rows in its order, and what its ITL is. */
typedef struct text_words {
    const char *tool;
    const char *items[ITEM_COUNT];
    text_row rows[8];
    const char *note;
} text_words;

#define ROW_PER_TOKEN_ITL { LLMLAT_ITL, "per-token ITL (ms)" }
#define ROW_ITL_MAX { LLMLAT_ITL_MAX, "ITL max (ms)" }
#define ROW_TPS { LLMLAT_TPS_USER, "TPS per user (tok/s)" }

static const text_words WORDS[] = {
    [LLMLAT_CONV_DEFAULT] = {
        .tool = "llmlat default",
        .rows = { { LLMLAT_TTFT, "TTFT (ms)" }, { LLMLAT_TPOT, "TPOT (ms)" },
                  { LLMLAT_ITL, "ITL (ms)" }, { LLMLAT_ICL, "ICL (ms)" },
                  { LLMLAT_E2E, "E2E (ms)" }, ROW_ITL_MAX, ROW_TPS },
        .note = "ITL: one sample per token; ICL: one sample per gap between events.",
    },
    [LLMLAT_CONV_VLLM] = {
        .tool = "vLLM bench serve",
        .items = { [ITEM_DURATION] = "Benchmark duration (s)",
                   [ITEM_OUTPUT_TOKENS] = "Total generated tokens",
                   [ITEM_PEAK_TOKENS] = "Peak output token throughput (tok/s)" },
        .rows = { { LLMLAT_TTFT, "TTFT (ms)" }, { LLMLAT_TPOT, "TPOT (ms)" },
                  { LLMLAT_TOOL_ITL, "ITL (ms)" }, { LLMLAT_E2E, "E2EL (ms)" },
                  ROW_PER_TOKEN_ITL, ROW_ITL_MAX, ROW_TPS },
        .note = "ITL is vLLM's: one sample per gap between chunks, empty ones included.",
    },
    [LLMLAT_CONV_AIPERF] = {
        .tool = "AIPerf",
        .items = { [ITEM_COMPLETED] = "Request Count",
                   [ITEM_FAILED] = "Error Request Count",
                   [ITEM_DURATION] = "Benchmark Duration (sec)",
                   [ITEM_INPUT_TOKENS] = "Total ISL (tokens)",
                   [ITEM_OUTPUT_TOKENS] = "Total OSL (tokens)",
                   [ITEM_REQUEST_RATE] = "Request Throughput (requests/sec)",
                   [ITEM_GOODPUT] = "Goodput (requests/sec)",
                   [ITEM_GOOD] = "Good Request Count",
                   [ITEM_OUTPUT_RATE] = "Output Token Throughput (tokens/sec)" },
        .rows = { { LLMLAT_TTFT, "Time to First Token (ms)" },
                  { LLMLAT_TOOL_ITL, "Inter Token Latency (ms)" },
                  { LLMLAT_ICL, "Inter Chunk Latency (ms)" },
                  { LLMLAT_E2E, "Request Latency (ms)" },
                  { LLMLAT_TPS_USER, "Output Token Throughput Per User (tok/s)" },
                  ROW_PER_TOKEN_ITL, ROW_ITL_MAX },
        .note = "Inter Token Latency is AIPerf's: (E2E - TTFT) / (N - 1) per request.",
    },
    [LLMLAT_CONV_SGLANG] = {
        .tool = "SGLang bench_serving",
        .items = { [ITEM_DURATION] = "Benchmark duration (s)",
                   [ITEM_OUTPUT_TOKENS] = "Total generated tokens" },
        .rows = { { LLMLAT_TTFT, "TTFT (ms)" }, { LLMLAT_TPOT, "TPOT (ms)" },
                  { LLMLAT_TOOL_ITL, "ITL (ms)" }, { LLMLAT_E2E, "E2E Latency (ms)" },
                  ROW_PER_TOKEN_ITL, ROW_ITL_MAX, ROW_TPS },
        .note = "ITL is SGLang's: one sample per gap between non-empty chunks.",
    },
    [LLMLAT_CONV_LLMPERF] = {
        .tool = "LLMPerf",
        .items = { [ITEM_COMPLETED] = "num_completed_requests",
                   [ITEM_FAILED] = "number_errors",
                   [ITEM_OUTPUT_RATE] = "mean_output_throughput_token_per_s" },
        .rows = { { LLMLAT_TTFT, "ttft (ms)" },
                  { LLMLAT_TOOL_ITL, "inter_token_latency (ms)" },
                  { LLMLAT_E2E, "end_to_end_latency (ms)" },
                  { LLMLAT_TPS_USER, "request_output_throughput (tok/s)" },
                  { LLMLAT_TPOT, "TPOT (ms)" }, ROW_PER_TOKEN_ITL, ROW_ITL_MAX },
        .note = "inter_token_latency is LLMPerf's: per request, (last token - start) / chunks.",
    },
};

#define NUMBER_WIDTH 11
#define DASH "-"

static const char *item_label(const text_words *words, enum item i)
{
    return words->items[i] ? words->items[i] : DEFAULT_ITEMS[i];
}

/* "Label:" padded to the value column, as vLLM prints its summary. */
static void item_start(rbuf *b, const text_words *words, enum item i)
{
    char label[64];
    snprintf(label, sizeof label, "%s:", item_label(words, i));
    rbuf_pad(b, label, 41);
}

#define NOT_AVAILABLE "not available: "

/* "not available: <reason>" in place of the value, when it is not. */
static bool item_unavailable(report_ctx *c, const text_words *words, enum item i, int32_t kind,
                             int32_t id)
{
    const char *why = report_unavailable(c, kind, id);
    if (!why)
        return false;
    item_start(&c->out, words, i);
    rbuf_puts(&c->out, NOT_AVAILABLE);
    rbuf_puts(&c->out, why);
    rbuf_puts(&c->out, "\n");
    return true;
}

static void item_u64(report_ctx *c, const text_words *words, enum item i, int32_t counter)
{
    if (item_unavailable(c, words, i, LLMLAT_KIND_COUNTER, counter))
        return;
    uint64_t v;
    bool defined = report_counter(c, counter, &v);
    item_start(&c->out, words, i);
    if (defined)
        rbuf_u64(&c->out, v);
    else
        rbuf_puts(&c->out, DASH);
    rbuf_puts(&c->out, "\n");
}

/* A rate (or, for the duration, the rate it takes its reason from). */
static void item_rate(report_ctx *c, const text_words *words, enum item i, int32_t rate,
                      double v)
{
    if (item_unavailable(c, words, i, LLMLAT_KIND_RATE, rate))
        return;
    item_start(&c->out, words, i);
    rbuf_fixed(&c->out, v, 2, 0, DASH);
    rbuf_puts(&c->out, "\n");
}

static void text_summary(report_ctx *c, const text_words *w)
{
    uint64_t good;
    bool has_slo = report_counter(c, LLMLAT_COUNT_GOOD, &good);
    item_u64(c, w, ITEM_COMPLETED, LLMLAT_COUNT_COMPLETED);
    item_u64(c, w, ITEM_FAILED, LLMLAT_COUNT_FAILED);
    item_u64(c, w, ITEM_TPOT_UNDEFINED, LLMLAT_COUNT_TPOT_UNDEFINED);
    item_rate(c, w, ITEM_DURATION, LLMLAT_RATE_REQUESTS, report_duration(c));
    item_u64(c, w, ITEM_INPUT_TOKENS, LLMLAT_COUNT_INPUT_TOKENS);
    item_u64(c, w, ITEM_OUTPUT_TOKENS, LLMLAT_COUNT_OUTPUT_TOKENS);
    item_rate(c, w, ITEM_REQUEST_RATE, LLMLAT_RATE_REQUESTS, report_rate(c, LLMLAT_RATE_REQUESTS));
    if (has_slo || report_unavailable(c, LLMLAT_KIND_COUNTER, LLMLAT_COUNT_GOOD)) {
        item_rate(c, w, ITEM_GOODPUT, LLMLAT_RATE_GOODPUT, report_rate(c, LLMLAT_RATE_GOODPUT));
        item_u64(c, w, ITEM_GOOD, LLMLAT_COUNT_GOOD);
    }
    item_rate(c, w, ITEM_OUTPUT_RATE, LLMLAT_RATE_OUTPUT_TOKENS,
              report_rate(c, LLMLAT_RATE_OUTPUT_TOKENS));
    item_rate(c, w, ITEM_TOTAL_RATE, LLMLAT_RATE_TOTAL_TOKENS,
              report_rate(c, LLMLAT_RATE_TOTAL_TOKENS));
    item_rate(c, w, ITEM_PEAK_TOKENS, LLMLAT_RATE_PEAK_OUTPUT_TOKENS,
              report_rate(c, LLMLAT_RATE_PEAK_OUTPUT_TOKENS));
    item_u64(c, w, ITEM_PEAK_CONCURRENCY, LLMLAT_COUNT_PEAK_CONCURRENCY);
}

static size_t label_width(const text_words *w)
{
    size_t width = strlen("metric");
    for (size_t i = 0; i < sizeof w->rows / sizeof w->rows[0] && w->rows[i].label; i++)
        if (strlen(w->rows[i].label) > width)
            width = strlen(w->rows[i].label);
    return width;
}

static void column_title(rbuf *b, const char *title)
{
    size_t n = strlen(title);
    for (size_t i = n; i < NUMBER_WIDTH; i++)
        rbuf_puts(b, " ");
    rbuf_puts(b, title);
}

static void table_header(report_ctx *c, size_t width)
{
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    rbuf_pad(b, "metric", width);
    static const char *const TITLES[] = { "count", "mean", "median", "std", "min", "max" };
    for (size_t i = 0; i < sizeof TITLES / sizeof TITLES[0]; i++)
        column_title(b, TITLES[i]);
    for (size_t i = 0; i < a->n_quantiles; i++) {
        if (report_quantile_repeats(a->quantiles, i))
            continue;
        char pct[PERCENT_TEXT_MAX], title[PERCENT_TEXT_MAX + 1];
        percent_text(a->quantiles[i], pct);
        snprintf(title, sizeof title, "p%s", pct);
        column_title(b, title);
    }
    rbuf_puts(b, "\n");
}

static void table_row(report_ctx *c, const text_row *row, size_t width)
{
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    rbuf_pad(b, row->label, width);
    const char *why = report_unavailable(c, LLMLAT_KIND_METRIC, row->metric);
    if (why) {
        rbuf_puts(b, "  " NOT_AVAILABLE);
        rbuf_puts(b, why);
        rbuf_puts(b, "\n");
        return;
    }
    metric_values v;
    report_metric(c, row->metric, a->quantiles, a->n_quantiles, &v);
    double scale = row->metric == LLMLAT_TPS_USER ? 1.0 : 1000.0; /* s -> ms */
    char count[24];
    snprintf(count, sizeof count, "%llu", (unsigned long long)v.count);
    column_title(b, count);
    const double stats[] = { v.mean, v.median, v.std, v.min, v.max };
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
        rbuf_fixed(b, stats[i] * scale, 2, NUMBER_WIDTH, DASH);
    for (size_t i = 0; i < a->n_quantiles; i++) {
        if (report_quantile_repeats(a->quantiles, i))
            continue;
        rbuf_fixed(b, v.q[i] * scale, 2, NUMBER_WIDTH, DASH);
    }
    rbuf_puts(b, "\n");
}

LLMLAT_PRIVATE void report_text(report_ctx *c)
{
    const llmlat_agg *a = c->a;
    const text_words *w = &WORDS[a->conv->id];
    rbuf *b = &c->out;
    rbuf_puts(b, "llmlat ");
    rbuf_puts(b, llmlat_version_string());
    rbuf_puts(b, " report - convention: ");
    rbuf_puts(b, a->conv->name);
    rbuf_puts(b, " (");
    rbuf_puts(b, w->tool);
    rbuf_puts(b, "), mode: ");
    rbuf_puts(b, a->mode == LLMLAT_MODE_BOUNDED ? "bounded" : "exact");
    rbuf_puts(b, "\n");
    for (size_t i = 0; i < a->n_labels; i++) { /* as the exposition writes them */
        rbuf_puts(b, i == 0 ? "labels: " : ", ");
        rbuf_puts(b, a->labels[i].name);
        rbuf_puts(b, "=\"");
        rbuf_escaped(b, a->labels[i].value, true);
        rbuf_puts(b, "\"");
    }
    rbuf_puts(b, a->n_labels ? "\n\n" : "\n");
    text_summary(c, w);
    rbuf_puts(b, "\n");
    size_t width = label_width(w) + 2;
    table_header(c, width);
    for (size_t i = 0; i < sizeof w->rows / sizeof w->rows[0] && w->rows[i].label; i++)
        table_row(c, &w->rows[i], width);
    rbuf_puts(b, "\n");
    rbuf_puts(b, w->note);
    rbuf_puts(b, "\n");
}
