/* The conventions, one row per tool: what it anchors TTFT and E2E at,
 * what counts as a success and as N, how its samples are weighed and
 * summarised, and what it calls each figure. Each row cites the tool's
 * code it follows and names the writer of its own JSON summary
 * (report/report_tool.c). The fields are explained in convention.h; what
 * a row's words do not name is llmlat's (report/report_words.c). */
#include "record/convention.h"

/* Row labels more than one tool shares. */
#define ROW_PER_TOKEN_ITL { LLMLAT_ITL, "per-token ITL (ms)" }
#define ROW_ITL_MAX { LLMLAT_ITL_MAX, "ITL max (ms)" }
#define ROW_TPS { LLMLAT_TPS_USER, "TPS per user (tok/s)" }

/* inference-perf (inference_perf/reportgen/base.py,
 * apis/streaming_parser.py; JSON: tool_inference_perf), written once for
 * its two rows: N the client's count (client_count), or the usage count
 * with use_server_output_tokens (LLMLAT_PARAM_SERVER_OUTPUT_TOKENS). */
#define INFERENCE_PERF_ROW(client_count) {                                                 \
        .id = LLMLAT_CONV_INFERENCE_PERF, .name = "inference-perf",                        \
        /* anchors: TTFT only with two tokens; TPOT first to last token */                 \
        .ttft_needs_two_tokens = true, .e2e = E2E_END, .tpot_to_last_token = true,         \
        .ntpot = NTPOT_ZERO_NO_TOKENS,                                                     \
        /* success */                                                                      \
        .success = SUCCESS_FINISHED, .status_groups = true, .tpot_missing_fails_slo = true, \
        /* N and spans */                                                                  \
        .n_client_count = (client_count), .span_to_end = true,                             \
        /* weights: every token of a chunk has the chunk's time */                         \
        .split = SPLIT_COPY, .ddof = 0, .quantile = QUANTILE_LINEAR,                       \
        .empty = EMPTY_UNDEFINED,                                                          \
        /* names */                                                                        \
        .tool_itl = TOOL_ITL_IS_ITL,                                                       \
        .words = &INFERENCE_PERF_WORDS,                                                    \
    }

static const text_words INFERENCE_PERF_WORDS = {
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
};

static const conv_rules RULES[] = {
    [LLMLAT_CONV_DEFAULT] = {
        .id = LLMLAT_CONV_DEFAULT, .name = "default",
        /* anchors: TTFT and E2E at the first and last token-bearing event */
        .e2e = E2E_LAST_TOKEN, .ntpot = NTPOT_E2E,
        /* success: finished, not failed */
        .success = SUCCESS_FINISHED,
        /* N: the usage count, else the sum of k (every row that does not
         * say otherwise) */
        /* weights: one sample per request, a chunk's gap split evenly */
        .split = SPLIT_EVEN, .ddof = 0, .quantile = QUANTILE_LINEAR, .empty = EMPTY_UNDEFINED,
        /* names: llmlat's own (its ITL one sample per token) */
        .tool_itl = TOOL_ITL_IS_ITL,
        .words = &(const text_words){
            .tool = "llmlat default",
            .rows = { { LLMLAT_TTFT, "TTFT (ms)" }, { LLMLAT_TPOT, "TPOT (ms)" },
                      { LLMLAT_ITL, "ITL (ms)" }, { LLMLAT_ICL, "ICL (ms)" },
                      { LLMLAT_E2E, "E2E (ms)" }, ROW_ITL_MAX, ROW_TPS,
                      { LLMLAT_NTPOT, "NTPOT (ms)" } },
            .note = "ITL: one sample per token; ICL: one sample per gap between events; "
                    "NTPOT: E2E / N.",
        },
    },
    [LLMLAT_CONV_VLLM] = {
        /* vllm/benchmarks/serve.py::calculate_metrics; JSON: tool_vllm */
        .id = LLMLAT_CONV_VLLM, .name = "vllm",
        /* anchors: any chunk, empty ones included */
        .empty_events_count = true, .e2e = E2E_LAST_TOKEN, .ntpot = NTPOT_E2E,
        /* success: finished with at least one chunk */
        .success = SUCCESS_ANY_EVENT,
        /* N and spans: its peak output rate counts chunks */
        .peak_counts_events = true,
        /* weights */
        .split = SPLIT_EVEN, .ddof = 0, .quantile = QUANTILE_LINEAR, .empty = EMPTY_ZERO,
        /* names: its ITL is llmlat's ICL */
        .tool_itl = TOOL_ITL_IS_ICL,
        .words = &(const text_words){
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
    },
    [LLMLAT_CONV_AIPERF] = {
        /* aiperf/metrics/types/ (*.py), metric_dicts.py; JSON: tool_aiperf */
        .id = LLMLAT_CONV_AIPERF, .name = "aiperf",
        /* anchors: a 0 TTFT or gap is missing */
        .e2e = E2E_LAST_TOKEN, .ntpot = NTPOT_E2E, .zero_is_missing = true,
        /* success: a valid token after the start */
        .success = SUCCESS_VALID_TOKEN, .tpot_missing_fails_slo = true,
        /* N and spans: TPS = 1 / TPOT; D over the successes */
        .tps_is_inverse_tpot = true, .duration_over_valid = true,
        /* weights */
        .split = SPLIT_EVEN, .ddof = 0, .quantile = QUANTILE_LINEAR, .empty = EMPTY_UNDEFINED,
        /* names: its Inter Token Latency is TPOT */
        .tool_itl = TOOL_ITL_IS_TPOT,
        .words = &(const text_words){
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
    },
    [LLMLAT_CONV_SGLANG] = {
        /* python/sglang/bench_serving.py; JSON: tool_sglang */
        .id = LLMLAT_CONV_SGLANG, .name = "sglang",
        /* anchors: TTFT 0 without content; E2E to the end of the stream */
        .no_content_ttft_zero = true, .e2e = E2E_END, .ntpot = NTPOT_E2E,
        /* success */
        .success = SUCCESS_FINISHED,
        /* weights */
        .split = SPLIT_EVEN, .ddof = 0, .quantile = QUANTILE_LINEAR, .empty = EMPTY_ZERO,
        /* names: its ITL is llmlat's ICL */
        .tool_itl = TOOL_ITL_IS_ICL,
        .words = &(const text_words){
            .tool = "SGLang bench_serving",
            .items = { [REPORT_ITEM_DURATION] = "Benchmark duration (s)",
                       [REPORT_ITEM_OUTPUT_TOKENS] = "Total generated tokens" },
            .rows = { { LLMLAT_TTFT, "TTFT (ms)" }, { LLMLAT_TPOT, "TPOT (ms)" },
                      { LLMLAT_TOOL_ITL, "ITL (ms)" }, { LLMLAT_E2E, "E2E Latency (ms)" },
                      ROW_PER_TOKEN_ITL, ROW_ITL_MAX, ROW_TPS },
            .note = "ITL is SGLang's: one sample per gap between non-empty chunks.",
        },
    },
    [LLMLAT_CONV_LLMPERF] = {
        /* token_benchmark_ray.py, openai_chat_completions_client.py; JSON:
         * tool_llmperf */
        .id = LLMLAT_CONV_LLMPERF, .name = "llmperf",
        /* anchors: TTFT 0 without content; E2E to the end of the stream */
        .no_content_ttft_zero = true, .e2e = E2E_END, .ntpot = NTPOT_E2E,
        /* success */
        .success = SUCCESS_FINISHED,
        /* weights: STD with ddof 1 */
        .split = SPLIT_EVEN, .ddof = 1, .quantile = QUANTILE_LINEAR, .empty = EMPTY_UNDEFINED,
        /* names: an ITL of its own per request */
        .tool_itl = TOOL_ITL_LLMPERF,
        .words = &(const text_words){
            .tool = "LLMPerf",
            .items = { [REPORT_ITEM_COMPLETED] = "num_completed_requests",
                       [REPORT_ITEM_FAILED] = "number_errors",
                       [REPORT_ITEM_OUTPUT_RATE] = "mean_output_throughput_token_per_s" },
            .rows = { { LLMLAT_TTFT, "ttft (ms)" },
                      { LLMLAT_TOOL_ITL, "inter_token_latency (ms)" },
                      { LLMLAT_E2E, "end_to_end_latency (ms)" },
                      { LLMLAT_TPS_USER, "request_output_throughput (tok/s)" },
                      { LLMLAT_TPOT, "TPOT (ms)" }, ROW_PER_TOKEN_ITL, ROW_ITL_MAX },
            .note = "inter_token_latency is LLMPerf's: per request, (last token - start) / "
                    "chunks.",
        },
    },
    [LLMLAT_CONV_GUIDELLM] = {
        /* src/guidellm/schemas/request_stats.py, schemas/statistics.py,
         * benchmark/schemas/metrics.py; JSON: tool_guidellm */
        .id = LLMLAT_CONV_GUIDELLM, .name = "guidellm",
        /* anchors: TTFT 0 without content; E2E to a normal finish; TPOT
         * and NTPOT to the last token; a missing E2E or TPOT is 0 */
        .no_content_ttft_zero = true, .e2e = E2E_FINISH, .tpot_to_last_token = true,
        .ntpot = NTPOT_LAST_TOKEN, .missing_is_zero = true,
        /* success: some output; failures kept as incomplete and errored */
        .success = SUCCESS_OUTPUT, .status_groups = true,
        /* N and spans: an errored request's N its content chunks; D to the
         * ends, token rates over the token points */
        .errored_n_chunks = true, .span_to_end = true, .token_rates_over_token_span = true,
        /* weights: TPOT by N - 1, NTPOT by N; percentiles its inverse CDF */
        .split = SPLIT_EVEN, .weighted = true, .ddof = 0, .quantile = QUANTILE_INVERSE_CDF,
        .empty = EMPTY_ZERO,
        /* names: its ITL is TPOT, its TPOT NTPOT */
        .tool_itl = TOOL_ITL_IS_TPOT,
        .words = &(const text_words){
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
    },
    /* its row and words are above the table: two rows share them */
    [LLMLAT_CONV_INFERENCE_PERF] = INFERENCE_PERF_ROW(true),
};

/* inference-perf with use_server_output_tokens: N the usage count. */
static const conv_rules INFERENCE_PERF_SERVER_N = INFERENCE_PERF_ROW(false);

LLMLAT_PRIVATE const conv_rules *conv_get(int32_t convention)
{
    if (convention < 0 || (size_t)convention >= sizeof RULES / sizeof RULES[0])
        return NULL;
    return &RULES[convention];
}

LLMLAT_PRIVATE const conv_rules *conv_server_output_tokens(const conv_rules *c)
{
    return c->n_client_count ? &INFERENCE_PERF_SERVER_N : c;
}

LLMLAT_API const char *llmlat_convention_name(int32_t convention)
{
    const conv_rules *c = conv_get(convention);
    return c ? c->name : NULL;
}
