/* The format of an input read as LLMLAT_INPUT_AUTO, from its first
 * object's keys: each tool writes a key of its own early (docs/
 * importers.md lists them). Nothing here reports an error: whatever does
 * not look like a tool's file is read as a trace, whose parser then says
 * what is wrong with it. */
#include <string.h>

#include "read/reader.h"

/* Keys that tell a format, the first one met deciding. */
static const struct {
    const char *key;
    int32_t input;
} DETECT_KEYS[] = {
    /* llmlat's trace: a request's keys, or the trace object's */
    { "requests", LLMLAT_INPUT_TRACE },
    { "start", LLMLAT_INPUT_TRACE },
    { "events", LLMLAT_INPUT_TRACE },
    /* vllm/benchmarks/serve.py: result_json's setup keys come first */
    { "date", LLMLAT_INPUT_VLLM },
    { "endpoint_type", LLMLAT_INPUT_VLLM },
    { "tokenizer_id", LLMLAT_INPUT_VLLM },
    { "num_prompts", LLMLAT_INPUT_VLLM },
    { "start_times", LLMLAT_INPUT_VLLM },
    { "latencies", LLMLAT_INPUT_VLLM },
    { "max_concurrent_requests", LLMLAT_INPUT_VLLM },
    /* both write these; SGLang's own keys come before them */
    { "ttfts", LLMLAT_INPUT_VLLM },
    { "itls", LLMLAT_INPUT_VLLM },
    /* python/sglang/bench_serving.py: the `result` dict */
    { "dataset_name", LLMLAT_INPUT_SGLANG },
    { "total_output_tokens_retokenized", LLMLAT_INPUT_SGLANG },
    { "mean_e2e_latency_ms", LLMLAT_INPUT_SGLANG },
    { "accept_length", LLMLAT_INPUT_SGLANG },
    /* AIPerf's records and raw records begin with their metadata */
    { "metadata", LLMLAT_INPUT_AIPERF },
    /* perf_analyzer's profile export, as GenAI-Perf reads it */
    { "experiments", LLMLAT_INPUT_GENAI_PERF },
    /* LLMPerf's individual responses (common_metrics.py) */
    { "error_code", LLMLAT_INPUT_LLMPERF },
    { "ttft_s", LLMLAT_INPUT_LLMPERF },
    { "end_to_end_latency_s", LLMLAT_INPUT_LLMPERF },
    { "inter_token_latency_s", LLMLAT_INPUT_LLMPERF },
};

static int32_t detect_key(const char *key, bool in_array)
{
    for (size_t i = 0; i < sizeof DETECT_KEYS / sizeof DETECT_KEYS[0]; i++) {
        if (strcmp(key, DETECT_KEYS[i].key) != 0)
            continue;
        int32_t f = DETECT_KEYS[i].input;
        /* an array holds requests: a trace's, or LLMPerf's */
        if (in_array && f != LLMLAT_INPUT_LLMPERF && f != LLMLAT_INPUT_TRACE)
            return LLMLAT_INPUT_TRACE;
        return f;
    }
    return LLMLAT_INPUT_AUTO;
}

/* The keys of the object at the cursor, until one tells. */
static int32_t detect_object(jtok *t, bool in_array)
{
    jt_advance(t); /* '{' */
    if (jt_peek(t) == '}')
        return LLMLAT_INPUT_TRACE;
    for (;;) {
        char key[RD_KEY_MAX];
        if (!jt_string(t, key, sizeof key, NULL) || !jt_expect(t, ':', ""))
            return LLMLAT_INPUT_TRACE;
        int32_t f = detect_key(key, in_array);
        if (f != LLMLAT_INPUT_AUTO)
            return f;
        if (!jt_skip_value(t))
            return LLMLAT_INPUT_TRACE;
        int c = jt_peek(t);
        if (c == '}')
            return LLMLAT_INPUT_TRACE; /* nothing told: a trace's request, if anything */
        if (c != ',')
            return LLMLAT_INPUT_TRACE;
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
    int32_t f = LLMLAT_INPUT_TRACE;
    int c = jt_peek(t);
    if (c == '{') {
        f = detect_object(t, false);
    } else if (c == '[') {
        jt_advance(t);
        if (jt_peek(t) == '{')
            f = detect_object(t, true);
    }
    if (t->starved)
        f = LLMLAT_INPUT_AUTO; /* the bytes so far do not tell */
    bool starved = t->starved;
    *t = saved;
    t->starved = starved;
    return f;
}
