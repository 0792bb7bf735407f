/* AIPerf's per-request exports, one JSON record per line:
 *
 * profile_export.jsonl (--export-level records): MetricRecordInfo of
 * aiperf/common/models/record_models.py, written by
 * aiperf/post_processors/record_export_results_processor.py: "metadata"
 * (request_start_ns, request_end_ns: wall clock ns; was_cancelled;
 * benchmark_phase), "metrics" (each {"value", "unit"} in its display unit:
 * ms for times), "error". The times are those of
 * aiperf/metrics/types/: time_to_first_token and inter_chunk_latency
 * count responses with content; request_latency ends at the last one.
 *
 * profile_export_raw.jsonl (--export-level raw): RawRecordInfo, with
 * "start_perf_ns" and every response's "perf_ns" (perf_counter_ns) and
 * text; empty responses are told apart by their text (read/sse.c).
 *
 * Before 9 October 2025 (ai-dynamo/aiperf 5e0b1e17; the records written
 * by aiperf/post_processors/record_export_results_processor.py at
 * 7c31f579) a record's metadata had "timestamp_ns" (the wall-clock start)
 * and "credit_phase" instead of request_start_ns and benchmark_phase, no
 * request_end_ns nor was_cancelled, and TTFT was tagged "ttft" (renamed
 * time_to_first_token by 43b78902); a cancelled request was an error of
 * type RequestCancellationError. */
#include <stdio.h>
#include <string.h>

#include "read/decimal.h"
#include "read/import.h"

enum { AI_RECORD = 1, AI_METADATA, AI_METRICS, AI_RESPONSES };

/* import_state.have */
enum {
    AH_START = 1 << 0,
    AH_END = 1 << 1,
    AH_TTFT = 1 << 2,
    AH_E2E = 1 << 3,
    AH_ICL = 1 << 4,
    AH_OSL = 1 << 5,
    AH_ISL = 1 << 6,
    AH_ERROR = 1 << 7,
    AH_CANCELLED = 1 << 8,
    AH_WARMUP = 1 << 9,
    AH_PERF = 1 << 10,      /* raw: start_perf_ns */
    AH_RESPONSES = 1 << 11, /* raw: responses */
};

#define AI_UNIT_MAX 24

static int ai_skip(llmlat_reader *rd)
{
    return jt_skip_value(&rd->jt) ? RD_STEP_ON : RD_STEP_FAILED;
}

static int ai_done(bool ok)
{
    return ok ? RD_STEP_ON : RD_STEP_FAILED;
}

/* The unit of a time metric as read/decimal.h's power of ten. */
static bool ai_time_unit(const char *unit, int *out)
{
    static const struct {
        const char *name;
        int unit;
    } UNITS[] = { { "ms", DEC_MILLISECONDS }, { "ns", DEC_NANOSECONDS }, { "us", 3 },
                  { "s", DEC_SECONDS },       { "sec", DEC_SECONDS } };
    for (size_t i = 0; i < sizeof UNITS / sizeof UNITS[0]; i++) {
        if (strcmp(unit, UNITS[i].name) == 0) {
            *out = UNITS[i].unit;
            return true;
        }
    }
    return false;
}

/* inter_chunk_latency's value: the gaps, in ms (its display unit), after
 * a placeholder for the first response (set once the TTFT is known). */
static bool ai_gaps(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    rd->p.cur.n = 0;
    if (!rd_push_event(rd, 0, 1) || !jt_expect(t, '[', "inter_chunk_latency's list"))
        return false;
    if (jt_peek(t) == ']') {
        jt_advance(t);
        return true;
    }
    for (;;) {
        int64_t gap;
        if (!import_duration_ns(rd, "an inter_chunk_latency", DEC_MILLISECONDS, &gap) ||
            !rd_push_event(rd, gap, 1))
            return false;
        if (jt_peek(t) == ']') {
            jt_advance(t);
            return true;
        }
        if (!jt_expect(t, ',', "',' or ']' in inter_chunk_latency"))
            return false;
    }
}

/* One metric {"value": v, "unit": u}, for the metrics llmlat reads. */
static int ai_metric(llmlat_reader *rd, const char *tag)
{
    import_state *s = &rd->p.f.imp;
    rd_req *q = &rd->p.cur;
    jtok *t = &rd->jt;
    enum { M_TTFT, M_E2E, M_ICL, M_OSL, M_ISL } m;
    if (strcmp(tag, "time_to_first_token") == 0 || strcmp(tag, "ttft") == 0)
        m = M_TTFT;
    else if (strcmp(tag, "request_latency") == 0)
        m = M_E2E;
    else if (strcmp(tag, "inter_chunk_latency") == 0)
        m = M_ICL;
    else if (strcmp(tag, "output_sequence_length") == 0)
        m = M_OSL;
    else if (strcmp(tag, "input_sequence_length") == 0 || strcmp(tag, "error_isl") == 0)
        m = M_ISL;
    else
        return ai_skip(rd);
    char what[RD_KEY_MAX + 16];
    snprintf(what, sizeof what, "metric \"%s\"", tag);
    if (!jt_expect(t, '{', "a metric {\"value\": ..., \"unit\": ...}"))
        return RD_STEP_FAILED;
    char text[JT_NUMBER_MAX], unit[AI_UNIT_MAX] = "";
    size_t len = 0;
    bool value = false;
    uint64_t vline = 0, vcol = 0;
    if (jt_peek(t) != '}') {
        for (;;) {
            char key[RD_KEY_MAX];
            if (!jt_string(t, key, sizeof key, NULL) || !jt_expect(t, ':', "':' after a key"))
                return RD_STEP_FAILED;
            jt_peek(t);
            if (strcmp(key, "value") == 0) {
                value = true;
                vline = t->tok_line;
                vcol = t->tok_col;
                if (!(m == M_ICL ? ai_gaps(rd) : jt_number(t, text, &len)))
                    return RD_STEP_FAILED;
            } else if (strcmp(key, "unit") == 0) {
                if (!jt_string(t, unit, sizeof unit, NULL))
                    return RD_STEP_FAILED;
            } else if (!jt_skip_value(t)) {
                return RD_STEP_FAILED;
            }
            if (jt_peek(t) == '}')
                break;
            if (!jt_expect(t, ',', "',' or '}' in a metric"))
                return RD_STEP_FAILED;
        }
    }
    jt_advance(t); /* '}' */
    if (!value)
        return jt_fail(t, "%s has no \"value\"", what), RD_STEP_FAILED;
    int u = DEC_MILLISECONDS;
    if (m <= M_ICL && !ai_time_unit(unit, &u))
        return jt_fail_at(t, vline, vcol, "%s has unit \"%s\", not a time unit", what, unit),
               RD_STEP_FAILED;
    if (m == M_ICL) {
        if (u != DEC_MILLISECONDS)
            return jt_fail_at(t, vline, vcol, "%s is read in ms, not \"%s\"", what, unit),
                   RD_STEP_FAILED;
        s->have |= AH_ICL;
        return RD_STEP_ON;
    }
    if (m == M_OSL || m == M_ISL) {
        uint64_t n;
        if (!dec_to_u64(text, len, UINT64_MAX, &n))
            return jt_fail_at(t, vline, vcol, "%s must be an integer from 0 to %llu", what,
                              (unsigned long long)UINT64_MAX),
                   RD_STEP_FAILED;
        if (m == M_OSL) {
            q->has_output_tokens = true;
            q->output_tokens = n;
            s->have |= AH_OSL;
        } else {
            q->input_tokens = n;
            s->have |= AH_ISL;
        }
        return RD_STEP_ON;
    }
    int64_t ns;
    if (!dec_to_ns(text, len, u, &ns) || ns < 0)
        return jt_fail_at(t, vline, vcol, "%s is out of range: %s %s", what, text, unit),
               RD_STEP_FAILED;
    if (m == M_TTFT) {
        s->ttft_ns = ns;
        s->have |= AH_TTFT;
    } else {
        s->e2e_ns = ns;
        s->have |= AH_E2E;
    }
    return RD_STEP_ON;
}

/* A member of "metadata". */
static int ai_metadata(llmlat_reader *rd, const char *key)
{
    import_state *s = &rd->p.f.imp;
    rd_req *q = &rd->p.cur;
    jtok *t = &rd->jt;
    bool ok;
    char which, text[16];
    if (strcmp(key, "request_start_ns") == 0 || strcmp(key, "timestamp_ns") == 0) {
        s->have |= AH_START;
        return ai_done(rd_time(rd, key[0] == 't' ? "timestamp_ns" : "request_start_ns",
                               DEC_NANOSECONDS, &q->start));
    }
    if (strcmp(key, "request_end_ns") == 0) {
        if (jt_take_null(t, &ok))
            return ai_done(ok);
        s->have |= AH_END;
        return ai_done(rd_time(rd, "request_end_ns", DEC_NANOSECONDS, &s->end_ns));
    }
    if (strcmp(key, "was_cancelled") == 0) {
        if (jt_take_null(t, &ok))
            return ai_done(ok);
        if (!jt_literal(t, &which))
            return RD_STEP_FAILED;
        if (which == 't')
            s->have |= AH_CANCELLED;
        return RD_STEP_ON;
    }
    if ((strcmp(key, "benchmark_phase") == 0 || strcmp(key, "credit_phase") == 0) &&
        jt_peek(t) == '"') {
        if (!jt_string(t, text, sizeof text, NULL))
            return RD_STEP_FAILED;
        if (strcmp(text, "warmup") == 0)
            s->have |= AH_WARMUP;
        return RD_STEP_ON;
    }
    if (strcmp(key, "x_request_id") == 0 && jt_peek(t) == '"')
        return ai_done(jt_string(t, q->id, sizeof q->id, NULL));
    return ai_skip(rd);
}

/* A raw response's "packets": [{"name": "data", "value": "..."}, ...];
 * its text is in the values. */
static bool ai_packets(llmlat_reader *rd, char *text, size_t cap, bool *content)
{
    jtok *t = &rd->jt;
    if (!jt_expect(t, '[', "\"packets\""))
        return false;
    if (jt_peek(t) == ']') {
        jt_advance(t);
        return true;
    }
    for (;;) {
        if (!jt_expect(t, '{', "a packet object"))
            return false;
        if (jt_peek(t) != '}') {
            for (;;) {
                char key[RD_KEY_MAX];
                size_t full;
                if (!jt_string(t, key, sizeof key, NULL) || !jt_expect(t, ':', "':' after a key"))
                    return false;
                if (strcmp(key, "value") == 0 && jt_peek(t) == '"') {
                    if (!jt_string(t, text, cap, &full))
                        return false;
                    *content |= full >= cap || sse_has_content(text, full);
                } else if (!jt_skip_value(t)) {
                    return false;
                }
                if (jt_peek(t) == '}')
                    break;
                if (!jt_expect(t, ',', "',' or '}' in a packet"))
                    return false;
            }
        }
        jt_advance(t);
        if (jt_peek(t) == ']') {
            jt_advance(t);
            return true;
        }
        if (!jt_expect(t, ',', "',' or ']' in \"packets\""))
            return false;
    }
}

/* A raw record's response: its perf_ns, and whether its text has content. */
static int ai_response(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    char text[4096];
    int64_t perf = 0;
    bool has_perf = false, content = false;
    if (!jt_expect(t, '{', "a response object"))
        return RD_STEP_FAILED;
    if (jt_peek(t) != '}') {
        for (;;) {
            char key[RD_KEY_MAX];
            size_t full;
            if (!jt_string(t, key, sizeof key, NULL) || !jt_expect(t, ':', "':' after a key"))
                return RD_STEP_FAILED;
            if (strcmp(key, "perf_ns") == 0) {
                has_perf = true;
                if (!rd_time(rd, "a response's perf_ns", DEC_NANOSECONDS, &perf))
                    return RD_STEP_FAILED;
            } else if (strcmp(key, "text") == 0 && jt_peek(t) == '"') {
                if (!jt_string(t, text, sizeof text, &full))
                    return RD_STEP_FAILED;
                /* a text longer than the buffer is surely more than an
                 * empty chunk */
                content |= full >= sizeof text || sse_has_content(text, full);
            } else if (strcmp(key, "packets") == 0 && jt_peek(t) == '[') {
                if (!ai_packets(rd, text, sizeof text, &content))
                    return RD_STEP_FAILED;
            } else if (!jt_skip_value(t)) {
                return RD_STEP_FAILED;
            }
            if (jt_peek(t) == '}')
                break;
            if (!jt_expect(t, ',', "',' or '}' in a response"))
                return RD_STEP_FAILED;
        }
    }
    jt_advance(t);
    if (!has_perf)
        return jt_fail(t, "a response has no \"perf_ns\""), RD_STEP_FAILED;
    return ai_done(rd_push_event(rd, perf, content ? 1 : 0));
}

/* A record's "error" (ErrorDetails: code, type, message): a cancellation
 * is one of type RequestCancellationError in the records written before
 * was_cancelled existed. */
static int ai_error(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    if (jt_peek(t) != '{')
        return ai_skip(rd);
    jt_advance(t);
    if (jt_peek(t) == '}') {
        jt_advance(t);
        return RD_STEP_ON;
    }
    for (;;) {
        char key[RD_KEY_MAX], type[32];
        if (!jt_string(t, key, sizeof key, NULL) || !jt_expect(t, ':', "':' after a key"))
            return RD_STEP_FAILED;
        if (strcmp(key, "type") == 0 && jt_peek(t) == '"') {
            if (!jt_string(t, type, sizeof type, NULL))
                return RD_STEP_FAILED;
            if (strcmp(type, "RequestCancellationError") == 0)
                rd->p.f.imp.have |= AH_CANCELLED;
        } else if (!jt_skip_value(t)) {
            return RD_STEP_FAILED;
        }
        if (jt_peek(t) == '}') {
            jt_advance(t);
            return RD_STEP_ON;
        }
        if (!jt_expect(t, ',', "',' or '}' in \"error\""))
            return RD_STEP_FAILED;
    }
}

static int ai_value(llmlat_reader *rd, uint16_t tag, const char *key, uint64_t index)
{
    (void)index;
    import_state *s = &rd->p.f.imp;
    jtok *t = &rd->jt;
    bool ok;
    switch (tag) {
    case IMPORT_TOP:
        jt_peek(t);
        rd_begin_request(rd, t->tok_line, t->tok_col);
        s->have = 0;
        return ai_done(walk_enter(rd, true, AI_RECORD, "a record"));
    case AI_RECORD:
        if (strcmp(key, "metadata") == 0)
            return ai_done(walk_enter(rd, true, AI_METADATA, "\"metadata\""));
        if (strcmp(key, "metrics") == 0) {
            if (jt_take_null(t, &ok))
                return ai_done(ok);
            return ai_done(walk_enter(rd, true, AI_METRICS, "\"metrics\""));
        }
        if (strcmp(key, "error") == 0) {
            if (jt_take_null(t, &ok))
                return ai_done(ok);
            s->have |= AH_ERROR;
            return ai_error(rd);
        }
        if (strcmp(key, "start_perf_ns") == 0) {
            s->have |= AH_PERF;
            return ai_done(rd_time(rd, "start_perf_ns", DEC_NANOSECONDS, &s->origin_ns));
        }
        if (strcmp(key, "responses") == 0) {
            s->have |= AH_RESPONSES;
            rd->p.cur.n = 0;
            return ai_done(walk_enter(rd, false, AI_RESPONSES, "\"responses\""));
        }
        return ai_skip(rd);
    case AI_METADATA:
        return ai_metadata(rd, key);
    case AI_METRICS:
        return ai_metric(rd, key);
    case AI_RESPONSES:
        return ai_response(rd);
    }
    return ai_skip(rd);
}

/* A record read: the request it describes. */
static int ai_record(llmlat_reader *rd)
{
    import_state *s = &rd->p.f.imp;
    rd_req *q = &rd->p.cur;
    if (s->have & AH_WARMUP)
        return RD_STEP_ON; /* AIPerf reports the profiling phase */
    if (!(s->have & AH_START)) {
        jt_fail_at(&rd->jt, q->line, q->col,
                   "record %llu has no metadata.request_start_ns (nor the older timestamp_ns)",
                   (unsigned long long)q->index);
        return RD_STEP_FAILED;
    }
    bool raw = s->have & (AH_PERF | AH_RESPONSES);
    q->ok = !(s->have & (AH_ERROR | AH_CANCELLED));
    q->cancelled = (s->have & AH_CANCELLED) != 0;
    q->lacks = LLMLAT_LACKS_CHUNK_TOKENS | LLMLAT_LACKS_END | LLMLAT_LACKS_SCHEDULE;
    if (!(s->have & AH_OSL))
        q->lacks |= LLMLAT_LACKS_OUTPUT_TOKENS;
    if (!(s->have & AH_ISL))
        q->lacks |= LLMLAT_LACKS_INPUT_TOKENS;
    if (!q->ok) {
        q->n = 0;
        q->has_end = s->have & AH_END;
        q->end = s->end_ns;
    } else if (raw) {
        if (!(s->have & AH_PERF)) {
            jt_fail_at(&rd->jt, q->line, q->col, "record %llu has responses but no start_perf_ns",
                       (unsigned long long)q->index);
            return RD_STEP_FAILED;
        }
        /* perf_counter ns, placed on the wall clock of the start */
        for (size_t i = 0; i < q->n; i++)
            rd->ev.t[i] = rd_add_sat(q->start, rd_sub_sat(rd->ev.t[i], s->origin_ns));
    } else if (s->have & AH_ICL) {
        if (!(s->have & AH_TTFT)) {
            jt_fail_at(&rd->jt, q->line, q->col,
                       "record %llu has inter_chunk_latency but no time_to_first_token",
                       (unsigned long long)q->index);
            return RD_STEP_FAILED;
        }
        rd->ev.t[0] = rd_add_sat(q->start, s->ttft_ns);
        for (size_t i = 1; i < q->n; i++)
            rd->ev.t[i] = rd_add_sat(rd->ev.t[i], rd->ev.t[i - 1]);
    } else if ((s->have & AH_TTFT) && (s->have & AH_E2E) && s->ttft_ns == s->e2e_ns) {
        q->n = 0; /* one response */
        if (!rd_push_event(rd, rd_add_sat(q->start, s->ttft_ns), 1))
            return RD_STEP_FAILED;
    } else {
        /* no chunk times: the per-request values, as AIPerf measured them */
        q->n = 0;
        q->known_conv = LLMLAT_CONV_AIPERF;
        q->has_known_ttft = s->have & AH_TTFT;
        q->known_ttft_ns = s->ttft_ns;
        q->has_known_e2e = s->have & AH_E2E;
        q->known_e2e_ns = s->e2e_ns;
        q->has_end = q->has_known_e2e;
        q->end = rd_add_sat(q->start, s->e2e_ns);
    }
    return RD_STEP_REQUEST;
}

static int ai_close(llmlat_reader *rd, uint16_t tag)
{
    return tag == AI_RECORD ? ai_record(rd) : RD_STEP_ON;
}

static int ai_end(llmlat_reader *rd)
{
    (void)rd;
    return RD_STEP_END;
}

static const import_ops AIPERF_OPS = {
    LLMLAT_INPUT_AIPERF, "an AIPerf export (profile_export.jsonl)", true,
    ai_value, ai_close, ai_end,
};

LLMLAT_PRIVATE const import_ops *import_aiperf_ops(void)
{
    return &AIPERF_OPS;
}
