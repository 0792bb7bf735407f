#include <stddef.h>

#include "llmlat.h"
#include "util/compiler.h"
#include "report/report_words.h"

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

#define ROW_PER_TOKEN_ITL { LLMLAT_ITL, "per-token ITL (ms)" }
#define ROW_ITL_MAX { LLMLAT_ITL_MAX, "ITL max (ms)" }
#define ROW_TPS { LLMLAT_TPS_USER, "TPS per user (tok/s)" }

static const text_words WORDS[] = {
    [LLMLAT_CONV_DEFAULT] = {
        .tool = "llmlat default",
        .rows = { { LLMLAT_TTFT, "TTFT (ms)" }, { LLMLAT_TPOT, "TPOT (ms)" },
                  { LLMLAT_ITL, "ITL (ms)" }, { LLMLAT_ICL, "ICL (ms)" },
                  { LLMLAT_E2E, "E2E (ms)" }, ROW_ITL_MAX, ROW_TPS,
                  { LLMLAT_NTPOT, "NTPOT (ms)" } },
        .note = "ITL: one sample per token; ICL: one sample per gap between events; "
                "NTPOT: E2E / N.",
    },
    [LLMLAT_CONV_VLLM] = {
        .tool = "vLLM bench serve",
        .items = { [REPORT_ITEM_DURATION] = "Benchmark duration (s)",
                   [REPORT_ITEM_OUTPUT_TOKENS] = "Total generated tokens",
                   [REPORT_ITEM_PEAK_TOKENS] = "Peak output token throughput (tok/s)" },
        .rows = { { LLMLAT_TTFT, "TTFT (ms)" }, { LLMLAT_TPOT, "TPOT (ms)" },
                  { LLMLAT_TOOL_ITL, "ITL (ms)" }, { LLMLAT_E2E, "E2EL (ms)" },
                  ROW_PER_TOKEN_ITL, ROW_ITL_MAX, ROW_TPS },
        /* vllm/benchmarks/serve.py (#54136): its client-side queue time */
        .sched = { "Client Queue Time (ms)", NULL, "E2EL incl. Client Queue (ms)" },
        .note = "ITL is vLLM's: one sample per gap between chunks, empty ones included.",
    },
    [LLMLAT_CONV_AIPERF] = {
        .tool = "AIPerf",
        .items = { [REPORT_ITEM_COMPLETED] = "Request Count",
                   [REPORT_ITEM_FAILED] = "Error Request Count",
                   [REPORT_ITEM_DURATION] = "Benchmark Duration (sec)",
                   [REPORT_ITEM_INPUT_TOKENS] = "Total ISL (tokens)",
                   [REPORT_ITEM_OUTPUT_TOKENS] = "Total OSL (tokens)",
                   [REPORT_ITEM_REQUEST_RATE] = "Request Throughput (requests/sec)",
                   [REPORT_ITEM_GOODPUT] = "Goodput (requests/sec)",
                   [REPORT_ITEM_GOOD] = "Good Request Count",
                   [REPORT_ITEM_OUTPUT_RATE] = "Output Token Throughput (tokens/sec)" },
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
        .items = { [REPORT_ITEM_DURATION] = "Benchmark duration (s)",
                   [REPORT_ITEM_OUTPUT_TOKENS] = "Total generated tokens" },
        .rows = { { LLMLAT_TTFT, "TTFT (ms)" }, { LLMLAT_TPOT, "TPOT (ms)" },
                  { LLMLAT_TOOL_ITL, "ITL (ms)" }, { LLMLAT_E2E, "E2E Latency (ms)" },
                  ROW_PER_TOKEN_ITL, ROW_ITL_MAX, ROW_TPS },
        .note = "ITL is SGLang's: one sample per gap between non-empty chunks.",
    },
    [LLMLAT_CONV_LLMPERF] = {
        .tool = "LLMPerf",
        .items = { [REPORT_ITEM_COMPLETED] = "num_completed_requests",
                   [REPORT_ITEM_FAILED] = "number_errors",
                   [REPORT_ITEM_OUTPUT_RATE] = "mean_output_throughput_token_per_s" },
        .rows = { { LLMLAT_TTFT, "ttft (ms)" },
                  { LLMLAT_TOOL_ITL, "inter_token_latency (ms)" },
                  { LLMLAT_E2E, "end_to_end_latency (ms)" },
                  { LLMLAT_TPS_USER, "request_output_throughput (tok/s)" },
                  { LLMLAT_TPOT, "TPOT (ms)" }, ROW_PER_TOKEN_ITL, ROW_ITL_MAX },
        .note = "inter_token_latency is LLMPerf's: per request, (last token - start) / chunks.",
    },
    [LLMLAT_CONV_GUIDELLM] = {
        .tool = "GuideLLM",
        .items = { [REPORT_ITEM_COMPLETED] = "Requests successful",
                   [REPORT_ITEM_FAILED] = "Requests incomplete + errored",
                   [REPORT_ITEM_DURATION] = "Benchmark duration (s)",
                   [REPORT_ITEM_INPUT_TOKENS] = "Input tokens (successful)",
                   [REPORT_ITEM_OUTPUT_TOKENS] = "Output tokens (successful)",
                   [REPORT_ITEM_REQUEST_RATE] = "Requests per second (successful)",
                   [REPORT_ITEM_OUTPUT_RATE] = "Output tokens per second (successful)",
                   [REPORT_ITEM_TOTAL_RATE] = "Total tokens per second (successful)" },
        .rows = { { LLMLAT_TTFT, "TTFT (ms)" }, { LLMLAT_TOOL_ITL, "ITL (ms)" },
                  { LLMLAT_NTPOT, "TPOT (ms)" }, { LLMLAT_E2E, "Request Latency (ms)" },
                  ROW_PER_TOKEN_ITL, ROW_ITL_MAX, ROW_TPS },
        /* benchmark/schemas/metrics.py (#1053) */
        .sched = { "Request Dispatch Delay (ms)", NULL, "Request Scheduled Latency (ms)" },
        .note = "GuideLLM's ITL is (last - first token) / (N - 1), weighted by N - 1; its "
                "TPOT (last token - start) / N, weighted by N; percentiles are its inverse "
                "CDF.",
    },
    [LLMLAT_CONV_INFERENCE_PERF] = {
        .tool = "inference-perf",
        .items = { [REPORT_ITEM_COMPLETED] = "successes.count",
                   [REPORT_ITEM_FAILED] = "failures.count",
                   [REPORT_ITEM_DURATION] = "benchmark_time_seconds",
                   [REPORT_ITEM_INPUT_TOKENS] = "prompt_tokens.total",
                   [REPORT_ITEM_OUTPUT_TOKENS] = "output_tokens.total",
                   [REPORT_ITEM_REQUEST_RATE] = "requests_per_sec",
                   [REPORT_ITEM_OUTPUT_RATE] = "output_tokens_per_sec",
                   [REPORT_ITEM_TOTAL_RATE] = "total_tokens_per_sec" },
        .rows = { { LLMLAT_TTFT, "time_to_first_token (ms)" },
                  { LLMLAT_TPOT, "time_per_output_token (ms)" },
                  { LLMLAT_NTPOT, "normalized_time_per_output_token (ms)" },
                  { LLMLAT_TOOL_ITL, "inter_token_latency (ms)" },
                  { LLMLAT_E2E, "request_latency (ms)" }, { LLMLAT_ICL, "ICL (ms)" },
                  ROW_ITL_MAX, ROW_TPS },
        .note = "inter_token_latency is inference-perf's: every token of a chunk has the "
                "chunk's time, so 0 inside a chunk.",
    },
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
    return &WORDS[convention];
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
