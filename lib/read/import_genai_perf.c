/* GenAI-Perf's profile_export.json: the export of perf_analyzer, as
 * genai_perf/profile_data_parser/profile_data_parser.py and
 * llm_profile_data_parser.py read it: {"experiments": [{"experiment":
 * {"mode", "value"}, "requests": [{"timestamp", "request_inputs",
 * "response_timestamps", "response_outputs": [{"response"}]}]}], ...}.
 * One experiment per load level: a run. Timestamps are ns on one clock;
 * token counts are not in the file (GenAI-Perf tokenizes the texts), and
 * empty responses are told apart by their text (read/sse.c) as
 * _preprocess_response drops them. */
#include <string.h>

#include "read/decimal.h"
#include "read/import.h"

enum { G_TOP = 1, G_EXPERIMENTS, G_EXPERIMENT, G_REQUESTS, G_REQUEST, G_STAMPS, G_OUTPUTS };

enum { GH_START = 1 << 0, GH_OUTPUTS = 1 << 1 };

static int g_done(bool ok)
{
    return ok ? RD_STEP_ON : RD_STEP_FAILED;
}

static int g_skip(llmlat_reader *rd)
{
    return g_done(jt_skip_value(&rd->jt));
}

/* One of "response_outputs": {"response": "<the SSE text>"}: its content
 * flag goes to the event of the same index. */
static int g_output(llmlat_reader *rd)
{
    import_state *s = &rd->p.f.imp;
    jtok *t = &rd->jt;
    char text[4096];
    bool content = false;
    if (!jt_expect(t, '{', "a response output object"))
        return RD_STEP_FAILED;
    if (jt_peek(t) != '}') {
        for (;;) {
            char key[RD_KEY_MAX];
            size_t full;
            if (!jt_string(t, key, sizeof key, NULL) || !jt_expect(t, ':', "':' after a key"))
                return RD_STEP_FAILED;
            if (strcmp(key, "response") == 0 && jt_peek(t) == '"') {
                if (!jt_string(t, text, sizeof text, &full))
                    return RD_STEP_FAILED;
                content = full >= sizeof text || sse_has_content(text, full);
            } else if (!jt_skip_value(t)) {
                return RD_STEP_FAILED;
            }
            if (jt_peek(t) == '}')
                break;
            if (!jt_expect(t, ',', "',' or '}' in a response output"))
                return RD_STEP_FAILED;
        }
    }
    jt_advance(t);
    if (!rd_events_reserve(rd, (size_t)s->n_k + 1))
        return RD_STEP_FAILED;
    rd->ev.k[s->n_k++] = content ? 1 : 0;
    return RD_STEP_ON;
}

static int g_value(llmlat_reader *rd, uint16_t tag, const char *key, uint64_t index)
{
    import_state *s = &rd->p.f.imp;
    rd_req *q = &rd->p.cur;
    jtok *t = &rd->jt;
    int64_t ns;
    switch (tag) {
    case IMPORT_TOP:
        return g_done(walk_enter(rd, true, G_TOP, "a GenAI-Perf profile export"));
    case G_TOP:
        if (strcmp(key, "experiments") == 0)
            return g_done(walk_enter(rd, false, G_EXPERIMENTS, "\"experiments\""));
        return g_skip(rd);
    case G_EXPERIMENTS:
        if (!import_run_begin(rd, index + 1))
            return g_skip(rd);
        jt_peek(t);
        s->c.line = t->tok_line;
        s->c.col = t->tok_col;
        return g_done(walk_enter(rd, true, G_EXPERIMENT, "an experiment"));
    case G_EXPERIMENT:
        if (strcmp(key, "requests") == 0)
            return g_done(walk_enter(rd, false, G_REQUESTS, "\"requests\""));
        return g_skip(rd);
    case G_REQUESTS:
        jt_peek(t);
        rd_begin_request(rd, t->tok_line, t->tok_col);
        s->have = 0;
        s->n_k = 0;
        return g_done(walk_enter(rd, true, G_REQUEST, "a request"));
    case G_REQUEST:
        if (strcmp(key, "timestamp") == 0) {
            s->have |= GH_START;
            return g_done(rd_time(rd, "a request's timestamp", DEC_NANOSECONDS, &q->start));
        }
        if (strcmp(key, "response_timestamps") == 0) {
            q->n = 0;
            return g_done(walk_enter(rd, false, G_STAMPS, "\"response_timestamps\""));
        }
        if (strcmp(key, "response_outputs") == 0) {
            s->have |= GH_OUTPUTS;
            s->n_k = 0;
            return g_done(walk_enter(rd, false, G_OUTPUTS, "\"response_outputs\""));
        }
        return g_skip(rd);
    case G_STAMPS: {
        if (!rd_time(rd, "a response timestamp", DEC_NANOSECONDS, &ns))
            return RD_STEP_FAILED;
        /* the outputs, when read first, already gave this one's flag */
        uint32_t k = q->n < s->n_k ? rd->ev.k[q->n] : 1;
        return g_done(rd_push_event(rd, ns, k));
    }
    case G_OUTPUTS:
        return g_output(rd);
    }
    return g_skip(rd);
}

/* A request read: into the run's columns. */
static int g_request(llmlat_reader *rd)
{
    import_state *s = &rd->p.f.imp;
    rd_req *q = &rd->p.cur;
    if (!(s->have & GH_START)) {
        jt_fail_at(&rd->jt, q->line, q->col, "request %llu has no \"timestamp\"",
                   (unsigned long long)q->index);
        return RD_STEP_FAILED;
    }
    if ((s->have & GH_OUTPUTS) && s->n_k != q->n) {
        jt_fail_at(&rd->jt, q->line, q->col,
                   "request %llu has %llu response_timestamps but %llu response_outputs",
                   (unsigned long long)q->index, (unsigned long long)q->n,
                   (unsigned long long)s->n_k);
        return RD_STEP_FAILED;
    }
    bool ok = cols_push_i64(rd, COL_START, q->start) && cols_push_u64(rd, COL_EVENTS, q->n) &&
              cols_push_u64(rd, COL_LINE, q->line) && cols_push_u64(rd, COL_COL, q->col);
    for (size_t i = 0; ok && i < q->n; i++)
        ok = cols_push_i64(rd, COL_EV_T, rd->ev.t[i]) && cols_push_u32(rd, COL_EV_K, rd->ev.k[i]);
    return g_done(ok);
}

static int g_close(llmlat_reader *rd, uint16_t tag)
{
    return tag == G_REQUEST ? g_request(rd) : RD_STEP_ON;
}

static int g_end(llmlat_reader *rd)
{
    import_state *s = &rd->p.f.imp;
    int r = import_runs_end(rd);
    if (r != RD_STEP_END)
        return r;
    if (rd->p.runs == 0) {
        jt_fail(&rd->jt, "the profile export has no experiment");
        return RD_STEP_FAILED;
    }
    /* chunk times on one clock; no token counts at all, no end of stream */
    uint32_t lacks = LLMLAT_LACKS_CHUNK_TOKENS | LLMLAT_LACKS_END | LLMLAT_LACKS_SCHEDULE |
                     LLMLAT_LACKS_OUTPUT_TOKENS | LLMLAT_LACKS_INPUT_TOKENS;
    return cols_seal(rd, false, lacks, s->c.line, s->c.col) ? RD_STEP_END : RD_STEP_FAILED;
}

static const import_ops GENAI_PERF_OPS = {
    LLMLAT_INPUT_GENAI_PERF, "a GenAI-Perf profile export (profile_export.json)", false,
    g_value, g_close, g_end,
};

LLMLAT_PRIVATE const import_ops *import_genai_perf_ops(void)
{
    return &GENAI_PERF_OPS;
}
