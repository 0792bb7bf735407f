/* The walk that drives the importers (read/import.h): one value of the
 * JSON per step, the structure (separators, closes, the top level) here,
 * what each value means in the format's handlers. */
#include <string.h>

#include "read/decimal.h"
#include "read/import.h"

static const import_ops *import_of(const llmlat_reader *rd)
{
    switch (rd->p.format) {
    case LLMLAT_INPUT_VLLM: return import_vllm_ops();
    case LLMLAT_INPUT_SGLANG: return import_sglang_ops();
    case LLMLAT_INPUT_AIPERF: return import_aiperf_ops();
    case LLMLAT_INPUT_GENAI_PERF: return import_genai_perf_ops();
    case LLMLAT_INPUT_LLMPERF: return import_llmperf_ops();
    case LLMLAT_INPUT_GUIDELLM: return import_guidellm_ops();
    case LLMLAT_INPUT_INFERENCE_PERF: return import_inference_perf_ops();
    }
    return NULL;
}

LLMLAT_PRIVATE void import_begin(llmlat_reader *rd)
{
    memset(&rd->p.f.imp, 0, sizeof rd->p.f.imp);
    rd->jt.lenient = true; /* Python's json writes NaN and Infinity */
}

LLMLAT_PRIVATE bool walk_enter(llmlat_reader *rd, bool object, uint16_t tag, const char *what)
{
    jtok *t = &rd->jt;
    walk_state *w = &rd->p.f.imp.w;
    char tmp[JT_DESCRIBE_MAX];
    int c = jt_peek(t);
    if (c != (object ? '{' : '[')) {
        if (!t->failed)
            jt_fail(t, "%s must be %s, found %s", what, object ? "an object" : "an array",
                    jt_describe(c, tmp, sizeof tmp));
        return false;
    }
    if (w->depth == WALK_DEPTH)
        return jt_fail(t, "%s is nested too deep", what);
    jt_advance(t);
    w->lv[w->depth++] = (walk_level){ .object = object, .tag = tag };
    return true;
}

LLMLAT_PRIVATE unsigned walk_depth(const llmlat_reader *rd)
{
    return rd->p.f.imp.w.depth;
}

/* The top level: the value (or the next JSON line), or the end. */
static int walk_top(llmlat_reader *rd, const import_ops *ops)
{
    jtok *t = &rd->jt;
    walk_state *w = &rd->p.f.imp.w;
    char tmp[JT_DESCRIBE_MAX];
    int c = jt_peek(t);
    if (c == JT_EOF) {
        if (w->top_index == 0) {
            jt_fail(t, "empty input: expected %s", ops->what);
            return RD_STEP_FAILED;
        }
        return ops->end(rd);
    }
    if (w->top_index > 0 && !ops->lines) {
        jt_fail(t, "unexpected %s after the end of %s", jt_describe(c, tmp, sizeof tmp),
                ops->what);
        return RD_STEP_FAILED;
    }
    return ops->value(rd, IMPORT_TOP, NULL, w->top_index++);
}

LLMLAT_PRIVATE int import_step(llmlat_reader *rd)
{
    const import_ops *ops = import_of(rd);
    jtok *t = &rd->jt;
    walk_state *w = &rd->p.f.imp.w;
    if (w->depth == 0)
        return walk_top(rd, ops);
    walk_level *lv = &w->lv[w->depth - 1];
    int close = lv->object ? '}' : ']';
    int c = jt_peek(t);
    if (c == close) {
        jt_advance(t);
        w->depth--;
        return ops->close(rd, lv->tag);
    }
    if (lv->next && !jt_expect(t, ',', lv->object ? "',' or '}'" : "',' or ']'"))
        return RD_STEP_FAILED;
    char key[RD_KEY_MAX];
    if (lv->object && (!jt_string(t, key, sizeof key, NULL) ||
                       !jt_expect(t, ':', "':' after a key")))
        return RD_STEP_FAILED;
    lv->next = 1;
    uint64_t index = lv->index++;
    return ops->value(rd, lv->tag, lv->object ? key : NULL, index);
}

LLMLAT_PRIVATE bool import_duration_ns(llmlat_reader *rd, const char *what, int unit,
                                       int64_t *out)
{
    jt_peek(&rd->jt);
    uint64_t line = rd->jt.tok_line, col = rd->jt.tok_col;
    if (!rd_time(rd, what, unit, out))
        return false;
    if (*out < 0)
        return jt_fail_at(&rd->jt, line, col, "%s must not be negative", what);
    return true;
}

/* ------------------------------------------------------------------ runs */

LLMLAT_PRIVATE bool import_run_begin(llmlat_reader *rd, uint64_t run)
{
    rd->p.runs = run;
    bool wanted = rd->run_wanted == 0 || rd->run_wanted == run;
    rd->p.f.imp.run = wanted ? run : 0;
    if (wanted) {
        rd->p.run = run;
        rd->p.has_duration = false;
        cols_clear(rd);
    }
    return wanted;
}

LLMLAT_PRIVATE int import_runs_end(llmlat_reader *rd)
{
    if (rd->run_wanted > rd->p.runs) {
        jt_fail(&rd->jt, "run %llu was asked for, but the input has %llu",
                (unsigned long long)rd->run_wanted, (unsigned long long)rd->p.runs);
        return RD_STEP_FAILED;
    }
    return RD_STEP_END;
}
