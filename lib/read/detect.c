/* The format of an input read as LLMLAT_INPUT_AUTO, from its first
 * object's keys: each tool writes a key of its own early (docs/
 * importers.md lists them). A file llmlat cannot read is named for what
 * it looks like (a tool's summary, which holds no requests), or said not
 * to be a format llmlat reads; whatever else has a trace's keys is read as
 * a trace, whose parser then says what is wrong with it. */
#include <string.h>

#include "read/reader.h"

/* What a key says beyond a format: the files llmlat cannot read. */
enum detect_refusal {
    REFUSE_NONE,
    REFUSE_INFERENCE_PERF_SUMMARY,
    REFUSE_AIPERF_SUMMARY,
    REFUSE_METRICS_SUMMARY,
    REFUSE_LLMPERF_SUMMARY,
    REFUSE_UNKNOWN,
};

static const char *const DETECT_MESSAGES[] = {
    [REFUSE_INFERENCE_PERF_SUMMARY] =
        "looks like inference-perf summary_lifecycle_metrics.json, which holds no requests "
        "(inference-perf writes them to per_request_lifecycle_metrics.json, with its report's "
        "per_request: true)",
    [REFUSE_AIPERF_SUMMARY] = "looks like AIPerf's summary profile_export_aiperf.json, which "
                              "holds no requests (they are in profile_export.jsonl)",
    [REFUSE_METRICS_SUMMARY] =
        "looks like an AIPerf or GenAI-Perf summary (profile_export_aiperf.json or "
        "profile_export_genai_perf.json), which holds no requests (they are in AIPerf's "
        "profile_export.jsonl, or in GenAI-Perf's profile export)",
    [REFUSE_LLMPERF_SUMMARY] = "looks like LLMPerf's *_summary.json, which holds no requests "
                               "(they are in *_individual_responses.json)",
    [REFUSE_UNKNOWN] = "not a format llmlat reads: expected an llmlat trace (requests with "
                       "\"start\" and \"events\") or a result file of vLLM, SGLang, AIPerf, "
                       "GenAI-Perf, LLMPerf, GuideLLM or inference-perf (docs/importers.md)",
};

/* Keys that tell a format (or a file llmlat cannot read), the first one
 * met deciding. */
static const struct {
    const char *key;
    int32_t input;        /* LLMLAT_INPUT_AUTO for a refusal */
    uint8_t refusal;
} DETECT_KEYS[] = {
    /* llmlat's trace: a request's keys, or the trace object's */
    { "requests", LLMLAT_INPUT_TRACE, 0 },
    { "start", LLMLAT_INPUT_TRACE, 0 },
    { "events", LLMLAT_INPUT_TRACE, 0 },
    /* vllm/benchmarks/serve.py: result_json's setup keys come first */
    { "date", LLMLAT_INPUT_VLLM, 0 },
    { "endpoint_type", LLMLAT_INPUT_VLLM, 0 },
    { "tokenizer_id", LLMLAT_INPUT_VLLM, 0 },
    { "num_prompts", LLMLAT_INPUT_VLLM, 0 },
    { "start_times", LLMLAT_INPUT_VLLM, 0 },
    { "latencies", LLMLAT_INPUT_VLLM, 0 },
    { "max_concurrent_requests", LLMLAT_INPUT_VLLM, 0 },
    /* both write these; SGLang's own keys come before them */
    { "ttfts", LLMLAT_INPUT_VLLM, 0 },
    { "itls", LLMLAT_INPUT_VLLM, 0 },
    /* python/sglang/bench_serving.py: the `result` dict */
    { "dataset_name", LLMLAT_INPUT_SGLANG, 0 },
    { "total_output_tokens_retokenized", LLMLAT_INPUT_SGLANG, 0 },
    { "mean_e2e_latency_ms", LLMLAT_INPUT_SGLANG, 0 },
    { "accept_length", LLMLAT_INPUT_SGLANG, 0 },
    /* AIPerf's records and raw records begin with their metadata (so does
     * GuideLLM's benchmarks.json: detect_metadata tells them apart) */
    { "metadata", LLMLAT_INPUT_AIPERF, 0 },
    /* perf_analyzer's profile export, as GenAI-Perf reads it */
    { "experiments", LLMLAT_INPUT_GENAI_PERF, 0 },
    /* LLMPerf's individual responses (common_metrics.py) */
    { "error_code", LLMLAT_INPUT_LLMPERF, 0 },
    { "ttft_s", LLMLAT_INPUT_LLMPERF, 0 },
    { "end_to_end_latency_s", LLMLAT_INPUT_LLMPERF, 0 },
    { "inter_token_latency_s", LLMLAT_INPUT_LLMPERF, 0 },
    /* GuideLLM's GenerativeBenchmarksReport */
    { "benchmarks", LLMLAT_INPUT_GUIDELLM, 0 },
    /* inference-perf's per-request lifecycle metrics (reportgen/base.py) */
    { "start_time", LLMLAT_INPUT_INFERENCE_PERF, 0 },
    { "end_time", LLMLAT_INPUT_INFERENCE_PERF, 0 },
    /* summaries, which hold no requests: inference-perf's
     * ResponsesSummary, AIPerf's before October 2025 ("records"), AIPerf's
     * JsonExportData and GenAI-Perf's (the same metrics), LLMPerf's
     * metadata and flattened results */
    { "load_summary", LLMLAT_INPUT_AUTO, REFUSE_INFERENCE_PERF_SUMMARY },
    { "benchmark_time_seconds", LLMLAT_INPUT_AUTO, REFUSE_INFERENCE_PERF_SUMMARY },
    { "successes", LLMLAT_INPUT_AUTO, REFUSE_INFERENCE_PERF_SUMMARY },
    { "records", LLMLAT_INPUT_AUTO, REFUSE_AIPERF_SUMMARY },
    { "request_throughput", LLMLAT_INPUT_AUTO, REFUSE_METRICS_SUMMARY },
    { "request_latency", LLMLAT_INPUT_AUTO, REFUSE_METRICS_SUMMARY },
    { "time_to_first_token", LLMLAT_INPUT_AUTO, REFUSE_METRICS_SUMMARY },
    { "input_config", LLMLAT_INPUT_AUTO, REFUSE_METRICS_SUMMARY },
    { "num_concurrent_requests", LLMLAT_INPUT_AUTO, REFUSE_LLMPERF_SUMMARY },
    { "mean_input_tokens", LLMLAT_INPUT_AUTO, REFUSE_LLMPERF_SUMMARY },
};

/* The other keys of an llmlat trace's request or object: an object with
 * one of them is a trace, however malformed. */
static const char *const DETECT_TRACE_KEYS[] = {
    "end", "ok", "cancelled", "input_tokens", "output_tokens", "id", "scheduled", "duration",
};

/* A detection: a format, or a refusal. */
typedef struct detect_result {
    int32_t input;
    uint8_t refusal;
} detect_result;

static detect_result detect_key(const char *key, bool in_array)
{
    for (size_t i = 0; i < sizeof DETECT_KEYS / sizeof DETECT_KEYS[0]; i++) {
        if (strcmp(key, DETECT_KEYS[i].key) != 0)
            continue;
        int32_t f = DETECT_KEYS[i].input;
        /* an array holds requests: a trace's, LLMPerf's or inference-perf's */
        if (in_array && f != LLMLAT_INPUT_LLMPERF && f != LLMLAT_INPUT_TRACE &&
            f != LLMLAT_INPUT_INFERENCE_PERF)
            return (detect_result){ LLMLAT_INPUT_TRACE, 0 };
        if (!in_array && f == LLMLAT_INPUT_INFERENCE_PERF)
            break; /* a request of inference-perf's comes in its list */
        return (detect_result){ f, DETECT_KEYS[i].refusal };
    }
    if (strncmp(key, "results_", 8) == 0 && !in_array)
        return (detect_result){ LLMLAT_INPUT_AUTO, REFUSE_LLMPERF_SUMMARY };
    return (detect_result){ LLMLAT_INPUT_AUTO, REFUSE_NONE };
}

static bool is_trace_key(const char *key)
{
    for (size_t i = 0; i < sizeof DETECT_TRACE_KEYS / sizeof DETECT_TRACE_KEYS[0]; i++)
        if (strcmp(key, DETECT_TRACE_KEYS[i]) == 0)
            return true;
    return false;
}

/* "metadata"'s value: GuideLLM's names its version (guidellm_version);
 * AIPerf's is a record's. */
static int32_t detect_metadata(jtok *t)
{
    if (jt_peek(t) != '{')
        return LLMLAT_INPUT_AIPERF;
    jt_advance(t);
    if (jt_peek(t) == '}')
        return LLMLAT_INPUT_AIPERF;
    for (;;) {
        char key[RD_KEY_MAX];
        if (!jt_string(t, key, sizeof key, NULL) || !jt_expect(t, ':', ""))
            return LLMLAT_INPUT_AIPERF;
        if (strcmp(key, "guidellm_version") == 0)
            return LLMLAT_INPUT_GUIDELLM;
        if (!jt_skip_value(t) || jt_peek(t) != ',')
            return LLMLAT_INPUT_AIPERF;
        jt_advance(t);
    }
}

/* The keys of the object at the cursor, until one tells. */
static detect_result detect_object(jtok *t, bool in_array)
{
    const detect_result unknown = { LLMLAT_INPUT_AUTO, REFUSE_UNKNOWN };
    const detect_result trace = { LLMLAT_INPUT_TRACE, 0 };
    bool trace_keys = false;
    jt_advance(t); /* '{' */
    if (jt_peek(t) == '}')
        return unknown;
    for (;;) {
        char key[RD_KEY_MAX];
        if (!jt_string(t, key, sizeof key, NULL) || !jt_expect(t, ':', ""))
            return trace; /* malformed: the trace's parser says how */
        detect_result d = detect_key(key, in_array);
        if (d.input == LLMLAT_INPUT_AIPERF && !in_array)
            d.input = detect_metadata(t);
        if (d.input != LLMLAT_INPUT_AUTO || d.refusal != REFUSE_NONE)
            return d;
        trace_keys |= is_trace_key(key);
        if (!jt_skip_value(t))
            return trace;
        int c = jt_peek(t);
        if (c == '}')
            return trace_keys ? trace : unknown;
        if (c != ',')
            return trace;
        jt_advance(t);
    }
}

LLMLAT_PRIVATE int32_t rd_detect(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    jtok saved = *t;
    char error[JT_ERROR_MAX];
    t->error = error; /* the scan's own errors are not the reader's */
    t->failed = false;
    t->starved = false;
    t->lenient = true;
    detect_result d = { LLMLAT_INPUT_TRACE, 0 };
    int c = jt_peek(t);
    uint64_t line = t->tok_line, col = t->tok_col;
    if (c == '{') {
        d = detect_object(t, false);
    } else if (c == '[') {
        jt_advance(t);
        if (jt_peek(t) == '{') {
            line = t->tok_line;
            col = t->tok_col;
            d = detect_object(t, true);
        }
    }
    bool starved = t->starved;
    *t = saved;
    t->starved = starved;
    if (starved)
        return LLMLAT_INPUT_AUTO; /* the bytes so far do not tell */
    if (d.refusal != REFUSE_NONE) {
        jt_fail_at(t, line, col, "%s", DETECT_MESSAGES[d.refusal]);
        return RD_DETECT_REFUSED;
    }
    return d.input;
}

LLMLAT_PRIVATE const char *rd_detect_message_inference_perf_summary(void)
{
    return DETECT_MESSAGES[REFUSE_INFERENCE_PERF_SUMMARY];
}
