/* vLLM and SGLang result files: one JSON object per run (one line each
 * when appended), with each request's fields in separate arrays (the
 * "--save-detailed" / "--output-details" arrays). Both come from the same
 * script (SGLang's bench_serving.py was adapted from vLLM's), so one
 * reader serves both; what differs is in each one's table below.
 *
 * vLLM: vllm/benchmarks/serve.py, benchmark() builds `result`
 * (input_lens, output_lens, ttfts, itls, start_times, errors, duration);
 * the times come from vllm/benchmarks/lib/endpoint_request_func.py: ttft
 * is the first chunk with choices (its text may be empty), itl one gap per
 * later such chunk, start_time perf_counter() when the request was sent.
 * SGLang: python/sglang/bench_serving.py, benchmark() writes `result`
 * and, with --output-details, `result_details` (input_lens, output_lens,
 * ttfts, itls, errors): ttft and itl count chunks with text only. */
#include <stdio.h>
#include <string.h>

#include "read/decimal.h"
#include "read/import.h"

enum {
    VS_RUN = 1, VS_TTFTS, VS_ITLS, VS_ITL, VS_STARTS, VS_INPUTS, VS_OUTPUTS, VS_ERRORS,
    VS_LATENCIES, VS_QUEUES,
};

/* The keys read, as bits of import_state.have. */
static const struct {
    const char *key;
    uint16_t tag;
} VS_KEYS[] = {
    { "ttfts", VS_TTFTS },         { "itls", VS_ITLS },
    { "start_times", VS_STARTS },  { "input_lens", VS_INPUTS },
    { "output_lens", VS_OUTPUTS }, { "errors", VS_ERRORS },
    { "latencies", VS_LATENCIES }, { "queue_times", VS_QUEUES },
};

#define VS_HAVE(tag) (1u << (tag))

static int vs_skip(llmlat_reader *rd)
{
    return jt_skip_value(&rd->jt) ? RD_STEP_ON : RD_STEP_FAILED;
}

/* A member of the run object. */
static int vs_member(llmlat_reader *rd, const char *key, bool vllm)
{
    import_state *s = &rd->p.f.imp;
    jtok *t = &rd->jt;
    if (strcmp(key, "duration") == 0) {
        bool ok;
        if (jt_take_null(t, &ok))
            return ok ? RD_STEP_ON : RD_STEP_FAILED;
        double d;
        if (!rd_double(rd, "\"duration\"", &d))
            return RD_STEP_FAILED;
        if (d > 0.0) {
            rd->p.has_duration = true;
            rd->p.duration_s = d;
        }
        return RD_STEP_ON;
    }
    for (size_t i = 0; i < sizeof VS_KEYS / sizeof VS_KEYS[0]; i++) {
        uint16_t tag = VS_KEYS[i].tag;
        if (strcmp(key, VS_KEYS[i].key) != 0 ||
            ((tag == VS_STARTS || tag == VS_LATENCIES || tag == VS_QUEUES) && !vllm))
            continue;
        if (s->have & VS_HAVE(tag)) {
            jt_fail(t, "duplicate key \"%s\"", key);
            return RD_STEP_FAILED;
        }
        s->have |= VS_HAVE(tag);
        char what[RD_KEY_MAX + 2];
        snprintf(what, sizeof what, "\"%s\"", key);
        return walk_enter(rd, false, tag, what) ? RD_STEP_ON : RD_STEP_FAILED;
    }
    return vs_skip(rd);
}

static int vs_value_of(llmlat_reader *rd, uint16_t tag, const char *key, bool vllm)
{
    import_state *s = &rd->p.f.imp;
    jtok *t = &rd->jt;
    int64_t ns;
    uint64_t n;
    bool ok;
    switch (tag) {
    case IMPORT_TOP:
        if (!import_run_begin(rd, rd->p.f.imp.w.top_index))
            return vs_skip(rd);
        s->have = 0;
        jt_peek(t);
        s->c.line = t->tok_line;
        s->c.col = t->tok_col;
        return walk_enter(rd, true, VS_RUN, "a run") ? RD_STEP_ON : RD_STEP_FAILED;
    case VS_RUN:
        return vs_member(rd, key, vllm);
    case VS_TTFTS:
        return import_duration_ns(rd, "a TTFT", DEC_SECONDS, &ns) &&
                       cols_push_i64(rd, COL_TTFT, ns)
                   ? RD_STEP_ON
                   : RD_STEP_FAILED;
    case VS_ITLS:
        s->n_k = 0;
        return walk_enter(rd, false, VS_ITL, "a request's ITLs") ? RD_STEP_ON : RD_STEP_FAILED;
    case VS_ITL:
        s->n_k++;
        return import_duration_ns(rd, "an ITL", DEC_SECONDS, &ns) &&
                       cols_push_i64(rd, COL_EV_T, ns)
                   ? RD_STEP_ON
                   : RD_STEP_FAILED;
    case VS_STARTS:
        return rd_time(rd, "a start time", DEC_SECONDS, &ns) && cols_push_i64(rd, COL_START, ns)
                   ? RD_STEP_ON
                   : RD_STEP_FAILED;
    case VS_LATENCIES:
    case VS_QUEUES:
        return import_duration_ns(rd, tag == VS_LATENCIES ? "a latency" : "a queue time",
                                  DEC_SECONDS, &ns) &&
                       cols_push_i64(rd, tag == VS_LATENCIES ? COL_LATENCY : COL_QUEUE, ns)
                   ? RD_STEP_ON
                   : RD_STEP_FAILED;
    case VS_INPUTS:
    case VS_OUTPUTS:
        if (!rd_count(rd, tag == VS_INPUTS ? "an input length" : "an output length",
                      UINT64_MAX, &n))
            return RD_STEP_FAILED;
        return cols_push_u64(rd, tag == VS_INPUTS ? COL_INPUT : COL_OUTPUT, n)
                   ? RD_STEP_ON
                   : RD_STEP_FAILED;
    case VS_ERRORS:
        if (jt_take_null(t, &ok)) /* no error */
            return ok && cols_push_u8(rd, COL_FAILED, 0) ? RD_STEP_ON : RD_STEP_FAILED;
        if (jt_peek(t) != '"') {
            if (!t->failed)
                jt_fail(t, "an error must be a string or null");
            return RD_STEP_FAILED;
        }
        char text[2];
        size_t full;
        return jt_string(t, text, sizeof text, &full) && cols_push_u8(rd, COL_FAILED, full > 0)
                   ? RD_STEP_ON
                   : RD_STEP_FAILED;
    }
    return vs_skip(rd);
}

static int vs_close(llmlat_reader *rd, uint16_t tag)
{
    if (tag == VS_ITL && !cols_push_u64(rd, COL_EVENTS, rd->p.f.imp.n_k))
        return RD_STEP_FAILED;
    return RD_STEP_ON;
}

/* The run read is sealed: its requests go out. */
static int vs_end_of(llmlat_reader *rd, bool vllm)
{
    import_state *s = &rd->p.f.imp;
    int r = import_runs_end(rd);
    if (r != RD_STEP_END)
        return r;
    static const char *const NEED[] = { "ttfts", "itls" };
    static const uint16_t NEED_TAG[] = { VS_TTFTS, VS_ITLS };
    for (int i = 0; i < 2; i++) {
        if (s->have & VS_HAVE(NEED_TAG[i]))
            continue;
        jt_fail_at(&rd->jt, s->c.line, s->c.col,
                   "run %llu has no \"%s\": per-request data is saved with %s",
                   (unsigned long long)rd->p.run, NEED[i],
                   vllm ? "vllm bench serve --save-result --save-detailed"
                        : "sglang.bench_serving --output-details");
        return RD_STEP_FAILED;
    }
    /* chunk times and per-request totals, no tokens per chunk, no end of
     * stream; vLLM's start_times are recent, SGLang has none */
    uint32_t lacks = LLMLAT_LACKS_CHUNK_TOKENS | LLMLAT_LACKS_END;
    if (!(s->have & VS_HAVE(VS_STARTS)))
        lacks |= LLMLAT_LACKS_START_TIMES;
    if (!(s->have & VS_HAVE(VS_INPUTS)))
        lacks |= LLMLAT_LACKS_INPUT_TOKENS;
    if (!(s->have & VS_HAVE(VS_OUTPUTS)))
        lacks |= LLMLAT_LACKS_OUTPUT_TOKENS;
    if (!(s->have & VS_HAVE(VS_QUEUES))) /* vLLM wrote queue_times from #54136 on */
        lacks |= LLMLAT_LACKS_SCHEDULE;
    return cols_seal(rd, true, lacks, s->c.line, s->c.col) ? RD_STEP_END : RD_STEP_FAILED;
}

static int vllm_value(llmlat_reader *rd, uint16_t tag, const char *key, uint64_t index)
{
    (void)index;
    return vs_value_of(rd, tag, key, true);
}

static int sglang_value(llmlat_reader *rd, uint16_t tag, const char *key, uint64_t index)
{
    (void)index;
    return vs_value_of(rd, tag, key, false);
}

static int vllm_end(llmlat_reader *rd)
{
    return vs_end_of(rd, true);
}

static int sglang_end(llmlat_reader *rd)
{
    return vs_end_of(rd, false);
}

static const import_ops VLLM_OPS = {
    LLMLAT_INPUT_VLLM, "a vLLM result (vllm bench serve --save-result)", true,
    vllm_value, vs_close, vllm_end,
};

static const import_ops SGLANG_OPS = {
    LLMLAT_INPUT_SGLANG, "an SGLang result (sglang.bench_serving --output-file)", true,
    sglang_value, vs_close, sglang_end,
};

LLMLAT_PRIVATE const import_ops *import_vllm_ops(void)
{
    return &VLLM_OPS;
}

LLMLAT_PRIVATE const import_ops *import_sglang_ops(void)
{
    return &SGLANG_OPS;
}
