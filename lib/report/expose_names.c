/* The naming schemes of the systems whose dashboards read an exposition
 * (LLMLAT_NAMES_VLLM, _SGLANG, _OTEL; docs/prometheus.md): each one's
 * families as its own exporter writes them, each given the llmlat
 * metric or counter of the same meaning, with its default classic
 * buckets, and the names it gives the aggregators' labels. What a system
 * has no name for is not in its table. llmlat's own scheme is in
 * expose.c. */
#include "report/expose.h"

#define NAMES_COUNT(x) (sizeof(x) / sizeof((x)[0]))
/* A histogram with its system's default bounds and no label of its own. */
#define NAMES_BOUNDS(metric, bounds) { metric, bounds, NAMES_COUNT(bounds), NULL, NULL }

/* ------------------------------------------------------------------ vLLM */

/* vllm/v1/metrics/loggers.py (PrometheusStatLogger, vLLM 0.11-0.12). Its
 * time buckets are llmlat's defaults (report_hist.c), so the histograms
 * below leave their bounds to those. Its token histograms' buckets are
 * build_1_2_5_buckets(max_model_len), 1, 2, 5, 10, ... up to the model's
 * context: llmlat writes that series up to 10^7, which holds every bucket
 * vLLM writes for a context up to 10^7 tokens with the same count (no
 * request is longer than its context). */
static const double VLLM_TOKEN_BOUNDS[] = {
    1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5,
    2e5, 5e5, 1e6, 2e6, 5e6, 1e7,
};

/* Its labels are model_name and engine (the engine's index, which
 * llmlat has no value for: an aggregator may carry it); request_success
 * also has finished_reason, which llmlat does not know (an aggregator per
 * reason may carry it). */
static const expose_rename VLLM_RENAMES[] = {
    { "model", "model_name" },
};

static const expose_histogram VLLM_HISTOGRAMS[] = {
    NAMES_BOUNDS(LLMLAT_INPUT_TOKENS, VLLM_TOKEN_BOUNDS),
    NAMES_BOUNDS(LLMLAT_OUTPUT_TOKENS, VLLM_TOKEN_BOUNDS),
};

static const expose_family VLLM_FAMILIES[] = {
    { "vllm:prompt_tokens_total", EXPOSE_COUNTER, NULL,
      "Prompt tokens of successful requests.", FROM_COUNTER, LLMLAT_COUNT_INPUT_TOKENS },
    { "vllm:generation_tokens_total", EXPOSE_COUNTER, NULL,
      "Output tokens of successful requests.", FROM_COUNTER, LLMLAT_COUNT_OUTPUT_TOKENS },
    { "vllm:request_success_total", EXPOSE_COUNTER, NULL,
      "Requests that succeeded under the convention.", FROM_COUNTER, LLMLAT_COUNT_COMPLETED },
    { "vllm:request_prompt_tokens", EXPOSE_HISTOGRAM, "tokens",
      "Prompt tokens of each successful request.", FROM_HISTOGRAM, LLMLAT_INPUT_TOKENS },
    { "vllm:request_generation_tokens", EXPOSE_HISTOGRAM, "tokens",
      "Output tokens of each successful request.", FROM_HISTOGRAM, LLMLAT_OUTPUT_TOKENS },
    { "vllm:time_to_first_token_seconds", EXPOSE_HISTOGRAM, "seconds", "Time to first token.",
      FROM_HISTOGRAM, LLMLAT_TTFT },
    /* vLLM's per-step gap between a request's outputs: llmlat's ICL,
     * under its name since 0.11 and its older one, which dashboards read */
    { "vllm:inter_token_latency_seconds", EXPOSE_HISTOGRAM, "seconds",
      "Inter-chunk latency, one sample per gap between outputs.", FROM_HISTOGRAM, LLMLAT_ICL },
    { "vllm:time_per_output_token_seconds", EXPOSE_HISTOGRAM, "seconds",
      "Inter-chunk latency, one sample per gap between outputs (the older name of "
      "vllm:inter_token_latency_seconds).",
      FROM_HISTOGRAM, LLMLAT_ICL },
    { "vllm:request_time_per_output_token_seconds", EXPOSE_HISTOGRAM, "seconds",
      "Time per output token after the first, one sample per request.", FROM_HISTOGRAM,
      LLMLAT_TPOT },
    { "vllm:e2e_request_latency_seconds", EXPOSE_HISTOGRAM, "seconds", "End-to-end latency.",
      FROM_HISTOGRAM, LLMLAT_E2E },
};

/* ---------------------------------------------------------------- SGLang */

/* python/sglang/srt/metrics/collector.py (TokenizerMetricsCollector): the
 * default buckets of each histogram (--bucket-time-to-first-token and
 * the like change them on the server: set the same ones with
 * llmlat_agg_set_buckets). Its token histograms are written only with
 * --collect-tokens-histogram. */
static const double SGLANG_TTFT_BOUNDS[] = {
    0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400,
};
static const double SGLANG_ITL_BOUNDS[] = {
    0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025, 0.030, 0.035, 0.040, 0.060,
    0.080, 0.100, 0.200, 0.400, 0.600, 0.800, 1.000, 2.000, 4.000, 6.000, 8.000,
};
static const double SGLANG_E2E_BOUNDS[] = {
    0.1, 0.2, 0.4, 0.6, 0.8, 1, 2, 4, 6, 8, 10, 20, 40, 60, 80, 100, 200, 400,
    600, 1200, 1800, 2400,
};
static const double SGLANG_TOKEN_BOUNDS[] = {
    100, 300, 500, 700, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000,
    12000, 15000, 20000, 22000, 25000, 30000, 35000, 40000, 66000, 99000, 132000, 300000,
    600000, 900000, 1100000,
};

static const expose_rename SGLANG_RENAMES[] = {
    { "model", "model_name" },
};

static const expose_histogram SGLANG_HISTOGRAMS[] = {
    NAMES_BOUNDS(LLMLAT_INPUT_TOKENS, SGLANG_TOKEN_BOUNDS),
    NAMES_BOUNDS(LLMLAT_OUTPUT_TOKENS, SGLANG_TOKEN_BOUNDS),
    NAMES_BOUNDS(LLMLAT_TTFT, SGLANG_TTFT_BOUNDS),
    NAMES_BOUNDS(LLMLAT_ITL, SGLANG_ITL_BOUNDS),
    NAMES_BOUNDS(LLMLAT_E2E, SGLANG_E2E_BOUNDS),
};

static const expose_family SGLANG_FAMILIES[] = {
    { "sglang:prompt_tokens_total", EXPOSE_COUNTER, NULL,
      "Prompt tokens of successful requests.", FROM_COUNTER, LLMLAT_COUNT_INPUT_TOKENS },
    { "sglang:generation_tokens_total", EXPOSE_COUNTER, NULL,
      "Output tokens of successful requests.", FROM_COUNTER, LLMLAT_COUNT_OUTPUT_TOKENS },
    { "sglang:num_requests_total", EXPOSE_COUNTER, NULL,
      "Requests that succeeded under the convention.", FROM_COUNTER, LLMLAT_COUNT_COMPLETED },
    { "sglang:prompt_tokens_histogram", EXPOSE_HISTOGRAM, NULL,
      "Prompt tokens of each successful request.", FROM_HISTOGRAM, LLMLAT_INPUT_TOKENS },
    { "sglang:generation_tokens_histogram", EXPOSE_HISTOGRAM, NULL,
      "Output tokens of each successful request.", FROM_HISTOGRAM, LLMLAT_OUTPUT_TOKENS },
    { "sglang:time_to_first_token_seconds", EXPOSE_HISTOGRAM, "seconds", "Time to first token.",
      FROM_HISTOGRAM, LLMLAT_TTFT },
    /* SGLang splits each gap over the tokens it brought: llmlat's ITL */
    { "sglang:inter_token_latency_seconds", EXPOSE_HISTOGRAM, "seconds",
      "Inter-token latency, one sample per token.", FROM_HISTOGRAM, LLMLAT_ITL },
    { "sglang:e2e_request_latency_seconds", EXPOSE_HISTOGRAM, "seconds", "End-to-end latency.",
      FROM_HISTOGRAM, LLMLAT_E2E },
};

/* ------------------------------------------------------ OpenTelemetry */

/* The GenAI semantic conventions (semantic-conventions v1.41.0,
 * model/gen-ai/metrics.yaml; the recommended ExplicitBucketBoundaries of
 * docs/gen-ai/gen-ai-metrics.md) in Prometheus form, as OpenTelemetry's
 * Prometheus exporters name them: dots become underscores, the unit "s"
 * becomes the suffix "_seconds", and "{token}" (an annotation) adds no
 * suffix. The model server's metrics, and the one token metric there is
 * (the client's). */
static const double OTEL_TTFT_BOUNDS[] = {
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
};
static const double OTEL_TPOT_BOUNDS[] = {
    0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5,
};
static const double OTEL_DURATION_BOUNDS[] = {
    0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
};
static const double OTEL_TOKEN_BOUNDS[] = {
    1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
};

/* The attributes, as labels: gen_ai.operation.name and
 * gen_ai.provider.name are required; gen_ai.request.model is required
 * when known; server.address and server.port are already labels of that
 * name (server_address, server_port). */
static const expose_rename OTEL_RENAMES[] = {
    { "model", "gen_ai_request_model" },
    { "operation", "gen_ai_operation_name" },
    { "provider", "gen_ai_provider_name" },
    { "response_model", "gen_ai_response_model" },
};

static const char *const OTEL_OWN_LABELS[] = { "gen_ai_token_type" };

static const expose_histogram OTEL_HISTOGRAMS[] = {
    { LLMLAT_INPUT_TOKENS, OTEL_TOKEN_BOUNDS, NAMES_COUNT(OTEL_TOKEN_BOUNDS), "gen_ai_token_type",
      "input" },
    { LLMLAT_OUTPUT_TOKENS, OTEL_TOKEN_BOUNDS, NAMES_COUNT(OTEL_TOKEN_BOUNDS), "gen_ai_token_type",
      "output" },
    NAMES_BOUNDS(LLMLAT_E2E, OTEL_DURATION_BOUNDS),
    NAMES_BOUNDS(LLMLAT_TPOT, OTEL_TPOT_BOUNDS),
    NAMES_BOUNDS(LLMLAT_TTFT, OTEL_TTFT_BOUNDS),
};

static const expose_family OTEL_FAMILIES[] = {
    /* one family, the input and output series told apart by
     * gen_ai_token_type (OTEL_HISTOGRAMS) */
    { "gen_ai_client_token_usage", EXPOSE_HISTOGRAM, NULL,
      "Number of input and output tokens used.", FROM_HISTOGRAM, LLMLAT_INPUT_TOKENS },
    { "gen_ai_client_token_usage", EXPOSE_HISTOGRAM, NULL,
      "Number of input and output tokens used.", FROM_HISTOGRAM, LLMLAT_OUTPUT_TOKENS },
    { "gen_ai_server_request_duration_seconds", EXPOSE_HISTOGRAM, "seconds",
      "Generative AI server request duration such as time-to-last byte or last output token.",
      FROM_HISTOGRAM, LLMLAT_E2E },
    { "gen_ai_server_time_per_output_token_seconds", EXPOSE_HISTOGRAM, "seconds",
      "Time per output token generated after the first token for successful responses.",
      FROM_HISTOGRAM, LLMLAT_TPOT },
    { "gen_ai_server_time_to_first_token_seconds", EXPOSE_HISTOGRAM, "seconds",
      "Time to generate first token for successful responses.", FROM_HISTOGRAM, LLMLAT_TTFT },
};

/* --------------------------------------------------------------- lookup */

#define NAMES_SCHEME(system)                                                          \
    { system##_FAMILIES, NAMES_COUNT(system##_FAMILIES), system##_HISTOGRAMS,         \
      NAMES_COUNT(system##_HISTOGRAMS), system##_RENAMES, NAMES_COUNT(system##_RENAMES), \
      NULL, 0 }

static const expose_scheme NAMES_SCHEMES[] = {
    [LLMLAT_NAMES_VLLM] = NAMES_SCHEME(VLLM),
    [LLMLAT_NAMES_SGLANG] = NAMES_SCHEME(SGLANG),
    [LLMLAT_NAMES_OTEL] = {
        OTEL_FAMILIES, NAMES_COUNT(OTEL_FAMILIES), OTEL_HISTOGRAMS, NAMES_COUNT(OTEL_HISTOGRAMS),
        OTEL_RENAMES, NAMES_COUNT(OTEL_RENAMES), OTEL_OWN_LABELS, NAMES_COUNT(OTEL_OWN_LABELS),
    },
};

LLMLAT_PRIVATE const expose_scheme *expose_names_scheme(int32_t names)
{
    if (names < LLMLAT_NAMES_VLLM || names > LLMLAT_NAMES_OTEL)
        return NULL;
    return &NAMES_SCHEMES[names];
}

LLMLAT_API const char *llmlat_names_name(int32_t names)
{
    switch (names) {
    case LLMLAT_NAMES_LLMLAT: return "llmlat";
    case LLMLAT_NAMES_VLLM: return "vllm";
    case LLMLAT_NAMES_SGLANG: return "sglang";
    case LLMLAT_NAMES_OTEL: return "otel";
    }
    return NULL;
}

#undef NAMES_SCHEME
#undef NAMES_BOUNDS
#undef NAMES_COUNT
