/* inference-perf's per_request_lifecycle_metrics.json (docs/importers.md):
 * the list kubernetes-sigs/inference-perf's ReportGenerator writes with
 * per_request: true (inference_perf/reportgen/base.py, generate_reports),
 * one object per request: "start_time", "end_time" (time.perf_counter()
 * seconds), "request", "response", "info" (InferenceInfo.model_dump()),
 * "error" (null, or {"error_type", "error_msg"}).
 *
 * The info differs by version:
 * - until April 2026 (7ff8150 and before 3b882ba): {"input_tokens",
 *   "output_tokens", "output_token_times"}, where output_token_times are
 *   the times of every line of the response (apis/completion.py,
 *   process_response: blank lines and [DONE] included; from b2cebd8 of
 *   every SSE message, apis/streaming_parser.py), not of tokens: each is
 *   read as a chunk whose tokens the file does not know;
 * - from 3b882ba (24 April 2026) {"input_tokens", "response_info"}, and
 *   from f23cb85 (May 2026) {"request_metrics": {"text": {"input_tokens"}},
 *   "response_metrics"}: both {"output_tokens" (the client's count),
 *   "server_usage" (the server's usage), "chunk_times" (content chunks
 *   only since 49e26a6, apis/streaming_parser.py), "output_token_times"
 *   (the chunk's time once per token the report's tokenizer found in it,
 *   or the chunk times when it had none)}: the chunks are the chunk times,
 *   each with the tokens its time has among the token times.
 * Neither has the request's intended start (scheduled_time is not
 * written). */
#include <string.h>

#include "read/decimal.h"
#include "read/import.h"

#define IP_TOKEN_TIMES 0

enum {
    IP_LIST = 1, IP_REQ, IP_INFO, IP_REQUEST_METRICS, IP_TEXT, IP_RESPONSE_METRICS, IP_USAGE,
};

/* import_state.have */
enum {
    IH_START = 1 << 0, IH_END = 1 << 1, IH_ERROR = 1 << 2, IH_OUTPUT = 1 << 3,
    IH_SERVER = 1 << 4, IH_CHUNK_TIMES = 1 << 5, IH_TOKEN_TIMES = 1 << 6,
    IH_INFO_TOKEN_TIMES = 1 << 7, /* info.output_token_times: the older layout */
    IH_SCHEDULED = 1 << 8,
};

static int ip_done(bool ok)
{
    return ok ? RD_STEP_ON : RD_STEP_FAILED;
}

static int ip_skip(llmlat_reader *rd)
{
    return ip_done(jt_skip_value(&rd->jt));
}

/* A list of times (seconds, Python floats) at the cursor: into the
 * request's events (k 1), or the token times array. */
static bool ip_times(llmlat_reader *rd, const char *what, bool events, uint64_t *n)
{
    jtok *t = &rd->jt;
    char msg[RD_KEY_MAX + 32];
    strcpy(msg, "an entry of ");
    strcat(msg, what);
    *n = 0;
    if (events)
        rd->p.cur.n = 0;
    if (!jt_expect(t, '[', what))
        return false;
    if (jt_peek(t) == ']') {
        jt_advance(t);
        return true;
    }
    for (;;) {
        int64_t v;
        if (!rd_time_double(rd, msg, DEC_SECONDS, &v))
            return false;
        if (events) {
            if (!rd_push_event(rd, v, 1))
                return false;
        } else {
            if (!rd_reserve(rd, IP_TOKEN_TIMES, (size_t)*n + 1, sizeof(int64_t)))
                return false;
            ((int64_t *)rd->arrays[IP_TOKEN_TIMES].p)[*n] = v;
        }
        ++*n;
        if (jt_peek(t) == ']') {
            jt_advance(t);
            return true;
        }
        if (!jt_expect(t, ',', "',' or ']'"))
            return false;
    }
}

static int ip_count(llmlat_reader *rd, const char *what, uint32_t bit, uint64_t *out)
{
    bool ok;
    if (jt_take_null(&rd->jt, &ok))
        return ip_done(ok);
    rd->p.f.imp.have |= bit;
    return ip_done(rd_count(rd, what, UINT64_MAX, out));
}

static int ip_request_member(llmlat_reader *rd, const char *key)
{
    import_state *s = &rd->p.f.imp;
    rd_req *q = &rd->p.cur;
    jtok *t = &rd->jt;
    bool ok;
    if (strcmp(key, "start_time") == 0) {
        s->have |= IH_START;
        return ip_done(rd_time_double(rd, "\"start_time\"", DEC_SECONDS, &q->start));
    }
    if (strcmp(key, "end_time") == 0) {
        s->have |= IH_END;
        return ip_done(rd_time_double(rd, "\"end_time\"", DEC_SECONDS, &s->ip.end));
    }
    if (strcmp(key, "scheduled_time") == 0) { /* not written so far: read if it is */
        if (jt_take_null(t, &ok))
            return ip_done(ok);
        s->have |= IH_SCHEDULED;
        return ip_done(rd_time_double(rd, "\"scheduled_time\"", DEC_SECONDS, &q->scheduled));
    }
    if (strcmp(key, "error") == 0) {
        if (jt_take_null(t, &ok))
            return ip_done(ok);
        s->have |= IH_ERROR;
        return ip_skip(rd);
    }
    if (strcmp(key, "info") == 0) {
        if (jt_take_null(t, &ok))
            return ip_done(ok);
        return ip_done(walk_enter(rd, true, IP_INFO, "a request's \"info\""));
    }
    return ip_skip(rd);
}

static int ip_value(llmlat_reader *rd, uint16_t tag, const char *key, uint64_t index)
{
    (void)index;
    import_state *s = &rd->p.f.imp;
    jtok *t = &rd->jt;
    bool ok;
    switch (tag) {
    case IMPORT_TOP:
        if (jt_peek(t) == '{') { /* its summaries are objects */
            jt_fail(t, "%s", rd_detect_message_inference_perf_summary());
            return RD_STEP_FAILED;
        }
        return ip_done(walk_enter(rd, false, IP_LIST, "inference-perf's list of requests"));
    case IP_LIST:
        jt_peek(t);
        rd_begin_request(rd, t->tok_line, t->tok_col);
        s->have = 0;
        s->ip = (inference_perf_state){ 0 };
        return ip_done(walk_enter(rd, true, IP_REQ, "a request"));
    case IP_REQ:
        return ip_request_member(rd, key);
    case IP_INFO:
        if (strcmp(key, "input_tokens") == 0)
            return ip_count(rd, "info.input_tokens", 0, &rd->p.cur.input_tokens);
        if (strcmp(key, "output_tokens") == 0) /* the older layout */
            return ip_count(rd, "info.output_tokens", IH_OUTPUT, &s->ip.output_tokens);
        if (strcmp(key, "output_token_times") == 0) {
            s->have |= IH_INFO_TOKEN_TIMES;
            return ip_done(ip_times(rd, "info.output_token_times", true, &s->ip.n_chunks));
        }
        if (strcmp(key, "request_metrics") == 0 && jt_peek(t) == '{')
            return ip_done(walk_enter(rd, true, IP_REQUEST_METRICS, "info.request_metrics"));
        if (strcmp(key, "response_metrics") == 0 || strcmp(key, "response_info") == 0) {
            if (jt_take_null(t, &ok))
                return ip_done(ok);
            return ip_done(walk_enter(rd, true, IP_RESPONSE_METRICS, "info.response_metrics"));
        }
        return ip_skip(rd);
    case IP_REQUEST_METRICS:
        if (strcmp(key, "text") == 0 && jt_peek(t) == '{')
            return ip_done(walk_enter(rd, true, IP_TEXT, "info.request_metrics.text"));
        return ip_skip(rd);
    case IP_TEXT:
        if (strcmp(key, "input_tokens") == 0)
            return ip_count(rd, "info.request_metrics.text.input_tokens", 0,
                            &rd->p.cur.input_tokens);
        return ip_skip(rd);
    case IP_RESPONSE_METRICS:
        if (strcmp(key, "output_tokens") == 0)
            return ip_count(rd, "info.response_metrics.output_tokens", IH_OUTPUT,
                            &s->ip.output_tokens);
        if (strcmp(key, "server_usage") == 0) {
            if (jt_take_null(t, &ok))
                return ip_done(ok);
            return ip_done(walk_enter(rd, true, IP_USAGE, "info.response_metrics.server_usage"));
        }
        if (strcmp(key, "chunk_times") == 0) {
            s->have |= IH_CHUNK_TIMES;
            return ip_done(ip_times(rd, "info.response_metrics.chunk_times", true,
                                    &s->ip.n_chunks));
        }
        if (strcmp(key, "output_token_times") == 0) {
            s->have |= IH_TOKEN_TIMES;
            return ip_done(ip_times(rd, "info.response_metrics.output_token_times", false,
                                    &s->ip.n_token_times));
        }
        return ip_skip(rd);
    case IP_USAGE:
        if (strcmp(key, "completion_tokens") == 0)
            return ip_count(rd, "server_usage.completion_tokens", IH_SERVER,
                            &s->ip.server_tokens);
        return ip_skip(rd);
    }
    return ip_skip(rd);
}

/* Each chunk's tokens: how many token times equal its time (the token
 * times are the chunk times, each repeated once per token). false when a
 * token time is no chunk's. */
static bool ip_chunk_tokens(llmlat_reader *rd)
{
    const inference_perf_state *ip = &rd->p.f.imp.ip;
    const int64_t *tok = rd->arrays[IP_TOKEN_TIMES].p;
    uint64_t j = 0;
    for (size_t i = 0; i < rd->p.cur.n; i++) {
        uint32_t k = 0;
        while (j < ip->n_token_times && tok[j] == rd->ev.t[i] && k < UINT32_MAX) {
            k++;
            j++;
        }
        rd->ev.k[i] = k;
    }
    return j == ip->n_token_times;
}

static int ip_request(llmlat_reader *rd)
{
    import_state *s = &rd->p.f.imp;
    inference_perf_state *ip = &s->ip;
    rd_req *q = &rd->p.cur;
    const char *missing = !(s->have & IH_START) ? "\"start_time\""
                          : !(s->have & IH_END) ? "\"end_time\""
                                                : NULL;
    if (missing) {
        jt_fail_at(&rd->jt, q->line, q->col, "request %llu has no %s",
                   (unsigned long long)q->index, missing);
        return RD_STEP_FAILED;
    }
    q->ok = !(s->have & IH_ERROR);
    q->has_end = true;
    q->end = ip->end;
    q->has_scheduled = (s->have & IH_SCHEDULED) != 0;
    q->lacks = q->has_scheduled ? 0 : LLMLAT_LACKS_SCHEDULE;
    bool chunk_tokens = false;
    if (!(s->have & (IH_CHUNK_TIMES | IH_INFO_TOKEN_TIMES)) && (s->have & IH_TOKEN_TIMES)) {
        /* token times without chunk times: a chunk is a run of equal times */
        const int64_t *tok = rd->arrays[IP_TOKEN_TIMES].p;
        q->n = 0;
        for (uint64_t j = 0; j < ip->n_token_times; j++) {
            if (q->n && rd->ev.t[q->n - 1] == tok[j] && rd->ev.k[q->n - 1] < UINT32_MAX)
                rd->ev.k[q->n - 1]++;
            else if (!rd_push_event(rd, tok[j], 1))
                return RD_STEP_FAILED;
        }
        chunk_tokens = true;
    } else if (s->have & IH_CHUNK_TIMES) {
        /* re-tokenized times tell each chunk's tokens; times equal to the
         * chunk times do so when they add up to the client's count */
        chunk_tokens = ip->n_token_times != ip->n_chunks ||
                       ((s->have & IH_OUTPUT) && ip->output_tokens == ip->n_chunks);
        if ((s->have & IH_TOKEN_TIMES) && chunk_tokens && !ip_chunk_tokens(rd)) {
            jt_fail_at(&rd->jt, q->line, q->col,
                       "request %llu has an output token time that is no chunk's time",
                       (unsigned long long)q->index);
            return RD_STEP_FAILED;
        }
        chunk_tokens &= (s->have & IH_TOKEN_TIMES) != 0;
    }
    if (chunk_tokens) {
        /* N is the sum of k, the client's count; the server's usage count
         * stands by for LLMLAT_PARAM_SERVER_OUTPUT_TOKENS */
        q->has_output_tokens = (s->have & IH_SERVER) != 0;
        q->output_tokens = ip->server_tokens;
    } else {
        /* every chunk (or line) one token: N is the client's count */
        if (q->n)
            q->lacks |= LLMLAT_LACKS_CHUNK_TOKENS;
        q->has_output_tokens = (s->have & IH_OUTPUT) != 0;
        q->output_tokens = ip->output_tokens;
        if (!q->has_output_tokens && q->n)
            q->lacks |= LLMLAT_LACKS_OUTPUT_TOKENS;
    }
    if (!q->ok)
        q->n = 0; /* an error's times are not a stream's */
    return RD_STEP_REQUEST;
}

static int ip_close(llmlat_reader *rd, uint16_t tag)
{
    return tag == IP_REQ ? ip_request(rd) : RD_STEP_ON;
}

static int ip_end(llmlat_reader *rd)
{
    (void)rd;
    return RD_STEP_END;
}

static const import_ops INFERENCE_PERF_OPS = {
    LLMLAT_INPUT_INFERENCE_PERF, "inference-perf's per_request_lifecycle_metrics.json", false,
    ip_value, ip_close, ip_end,
};

LLMLAT_PRIVATE const import_ops *import_inference_perf_ops(void)
{
    return &INFERENCE_PERF_OPS;
}
