/* The push reader (include/llmlat.h, "reader"): the host feeds bytes, the
 * reader parses them in steps (read/reader.h says how a starved step is
 * run again), and hands requests over one at a time, with the rejection
 * rule of docs/cli.md applied. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/decimal.h"
#include "read/reader.h"
#include "util/units.h"

#define RD_NAME_DEFAULT "<input>"
#define RD_BUFFER_MIN 4096

enum { RD_STEP_MORE = -1 }; /* the step needs more bytes than were fed */

/* -------------------------------------------------------------- formats */

#define RD_IMPORTER(id) { id, import_begin, import_step, import_held_next, sizeof(import_state) }

static const rd_format_ops RD_FORMATS[] = {
    { LLMLAT_INPUT_TRACE, trace_begin, trace_step, NULL, sizeof(trace_state) },
    RD_IMPORTER(LLMLAT_INPUT_VLLM),
    RD_IMPORTER(LLMLAT_INPUT_AIPERF),
    RD_IMPORTER(LLMLAT_INPUT_GENAI_PERF),
    RD_IMPORTER(LLMLAT_INPUT_SGLANG),
    RD_IMPORTER(LLMLAT_INPUT_LLMPERF),
    { LLMLAT_INPUT_GUIDELLM, import_begin, import_step, import_guidellm_held_next,
      sizeof(import_state) },
    RD_IMPORTER(LLMLAT_INPUT_INFERENCE_PERF),
};

static const char *const RD_INPUT_NAMES[] = {
    [LLMLAT_INPUT_AUTO] = "auto",
    [LLMLAT_INPUT_TRACE] = "trace",
    [LLMLAT_INPUT_VLLM] = "vllm",
    [LLMLAT_INPUT_AIPERF] = "aiperf",
    [LLMLAT_INPUT_GENAI_PERF] = "genai-perf",
    [LLMLAT_INPUT_SGLANG] = "sglang",
    [LLMLAT_INPUT_LLMPERF] = "llmperf",
    [LLMLAT_INPUT_GUIDELLM] = "guidellm",
    [LLMLAT_INPUT_INFERENCE_PERF] = "inference-perf",
};

LLMLAT_API const char *llmlat_input_name(int32_t input)
{
    if (input < 0 || (size_t)input >= sizeof RD_INPUT_NAMES / sizeof RD_INPUT_NAMES[0])
        return NULL;
    return RD_INPUT_NAMES[input];
}

LLMLAT_PRIVATE const rd_format_ops *rd_format(int32_t input)
{
    for (size_t i = 0; i < sizeof RD_FORMATS / sizeof RD_FORMATS[0]; i++)
        if (RD_FORMATS[i].input == input)
            return &RD_FORMATS[i];
    return NULL;
}

/* ----------------------------------------------------------- life cycle */

LLMLAT_API llmlat_reader *llmlat_reader_new(int32_t input, const char *name)
{
    if (input != LLMLAT_INPUT_AUTO && !rd_format(input))
        return NULL;
    if (!name)
        name = RD_NAME_DEFAULT;
    llmlat_alloc al = alloc_current();
    llmlat_reader *rd = alloc_malloc(&al, sizeof *rd);
    size_t name_len = strlen(name) + 1;
    char *copy = alloc_malloc(&al, name_len);
    if (!rd || !copy) {
        alloc_free(&al, rd);
        alloc_free(&al, copy);
        return NULL;
    }
    memset(rd, 0, sizeof *rd);
    rd->al = al;
    rd->input = input;
    memcpy(copy, name, name_len);
    rd->name = copy;
    rd->jt.line = 1;
    rd->jt.tok_line = rd->jt.tok_col = 1;
    rd->jt.name = rd->name;
    rd->jt.error = rd->message;
    if (input != LLMLAT_INPUT_AUTO) {
        rd->p.format = input;
        rd->p.detected = true;
        rd_format(input)->begin(rd);
    }
    return rd;
}

LLMLAT_API void llmlat_reader_free(llmlat_reader *rd)
{
    if (!rd)
        return;
    llmlat_alloc al = rd->al;
    alloc_free(&al, rd->buf);
    alloc_free(&al, rd->ev.t);
    alloc_free(&al, rd->ev.k);
    for (int i = 0; i < RD_ARRAYS; i++)
        alloc_free(&al, rd->arrays[i].p);
    llmlat_request_free(rd->rec);
    alloc_free(&al, rd->name);
    alloc_free(&al, rd);
}

LLMLAT_API int32_t llmlat_reader_set_run(llmlat_reader *rd, uint64_t run)
{
    if (!rd)
        return LLMLAT_EINVAL;
    if (rd->len || rd->jt.base || rd->ended)
        return LLMLAT_ESTATE; /* the reading began */
    rd->run_wanted = run;
    return LLMLAT_OK;
}

/* ----------------------------------------------------------------- input */

/* Drops the bytes before the cursor (they were parsed). */
static void rd_compact(llmlat_reader *rd)
{
    size_t used = rd->jt.pos;
    if (used == 0)
        return;
    memmove(rd->buf, rd->buf + used, rd->len - used);
    rd->len -= used;
    rd->jt.base += used;
    rd->jt.pos = 0;
}

/* Room for `want` more bytes after the ones buffered; ENOMEM leaves the
 * reader as it was. */
static int32_t rd_room(llmlat_reader *rd, size_t want)
{
    rd_compact(rd);
    if (want > SIZE_MAX - rd->len)
        return LLMLAT_ENOMEM;
    if (rd->len + want <= rd->cap)
        return LLMLAT_OK;
    size_t cap = rd->cap ? rd->cap : RD_BUFFER_MIN;
    while (cap < rd->len + want)
        cap = cap > SIZE_MAX / 2 ? rd->len + want : cap * 2;
    unsigned char *bigger = alloc_realloc(&rd->al, rd->buf, cap);
    if (!bigger)
        return LLMLAT_ENOMEM;
    rd->buf = bigger;
    rd->cap = cap;
    return LLMLAT_OK;
}

static int32_t rd_can_take_input(const llmlat_reader *rd)
{
    if (rd->status != LLMLAT_OK)
        return rd->status;
    return rd->ended ? LLMLAT_ESTATE : LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_reader_feed(llmlat_reader *rd, const void *buf, size_t len)
{
    if (!rd || (!buf && len))
        return LLMLAT_EINVAL;
    int32_t st = rd_can_take_input(rd);
    if (st != LLMLAT_OK || len == 0)
        return st;
    st = rd_room(rd, len);
    if (st != LLMLAT_OK)
        return st; /* the reader is as it was: the bytes may be fed again */
    memcpy(rd->buf + rd->len, buf, len);
    rd->len += len;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_reader_space(llmlat_reader *rd, size_t want, void **buf, size_t *cap)
{
    if (!rd || !buf || !cap || want == 0)
        return LLMLAT_EINVAL;
    int32_t st = rd_can_take_input(rd);
    if (st == LLMLAT_OK)
        st = rd_room(rd, want);
    if (st != LLMLAT_OK)
        return st;
    *buf = rd->buf + rd->len;
    *cap = rd->cap - rd->len;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_reader_commit(llmlat_reader *rd, size_t n)
{
    if (!rd)
        return LLMLAT_EINVAL;
    int32_t st = rd_can_take_input(rd);
    if (st != LLMLAT_OK)
        return st;
    if (n > rd->cap - rd->len)
        return LLMLAT_EINVAL;
    rd->len += n;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_reader_end(llmlat_reader *rd)
{
    if (!rd)
        return LLMLAT_EINVAL;
    rd->ended = true;
    return rd->status;
}

/* ----------------------------------------------- what the formats share */

LLMLAT_PRIVATE bool rd_no_memory(llmlat_reader *rd, const char *what)
{
    rd->status = LLMLAT_ENOMEM;
    rd->jt.failed = false; /* this message wins */
    return jt_fail(&rd->jt, "out of memory holding %s", what);
}

LLMLAT_PRIVATE bool rd_reserve(llmlat_reader *rd, int i, size_t need, size_t elem)
{
    rd_array *a = &rd->arrays[i];
    if (need <= a->cap)
        return true;
    void *p = a->p;
    size_t cap = a->cap;
    if (alloc_grow(&rd->al, &p, &cap, need, elem) != LLMLAT_OK)
        return rd_no_memory(rd, "the requests of a run");
    a->p = p;
    a->cap = cap;
    return true;
}

LLMLAT_PRIVATE bool rd_events_reserve(llmlat_reader *rd, size_t need)
{
    rd_events *e = &rd->ev;
    if (need <= e->cap)
        return true;
    rd_req *q = &rd->p.cur;
    if (need > REQ_MAX_EVENTS) {
        jt_fail(&rd->jt, "request %llu has more than %zu events", (unsigned long long)q->index,
                (size_t)REQ_MAX_EVENTS);
        return false;
    }
    void *pt = e->t, *pk = e->k;
    size_t cap = e->cap;
    int32_t st = alloc_grow_pair(&rd->al, &pt, sizeof *e->t, &pk, sizeof *e->k, &cap, need);
    e->t = pt;
    e->k = pk;
    if (st != LLMLAT_OK) {
        char what[64];
        snprintf(what, sizeof what, "the events of request %llu", (unsigned long long)q->index);
        return rd_no_memory(rd, what);
    }
    e->cap = cap;
    return true;
}

LLMLAT_PRIVATE bool rd_push_event_slow(llmlat_reader *rd, int64_t t, uint32_t k)
{
    rd_req *q = &rd->p.cur;
    if (!rd_events_reserve(rd, q->n + 1))
        return false;
    rd->ev.t[q->n] = t;
    rd->ev.k[q->n++] = k;
    return true;
}

LLMLAT_PRIVATE void rd_begin_request(llmlat_reader *rd, uint64_t line, uint64_t col)
{
    rd_req *q = &rd->p.cur;
    q->index = rd->requests + 1;
    q->line = line;
    q->col = col;
    q->id[0] = '\0';
    q->start = 0;
    q->has_scheduled = false;
    q->scheduled = 0;
    q->n = 0;
    q->has_end = false;
    q->end = 0;
    q->ok = true;
    q->cancelled = false;
    q->input_tokens = 0;
    q->has_output_tokens = false;
    q->output_tokens = 0;
    q->lacks = 0;
    q->known_conv = 0;
    q->has_known_ttft = q->has_known_e2e = q->has_known_tool_itl = q->has_known_tps = false;
}

static bool rd_time_as(llmlat_reader *rd, const char *what, int unit, bool as_double,
                       int64_t *out)
{
    jtok *t = &rd->jt;
    char text[JT_NUMBER_MAX];
    size_t n;
    if (!jt_starts_number(jt_peek(t)))
        return t->failed ? false
                         : jt_fail(t, "%s must be a number (%s)", what,
                                   unit == DEC_SECONDS        ? "seconds"
                                   : unit == DEC_MILLISECONDS ? "milliseconds"
                                                              : "nanoseconds");
    if (!jt_number(t, text, &n))
        return false;
    if (!(as_double ? dec_double_to_ns(text, n, unit, out) : dec_to_ns(text, n, unit, out)))
        return jt_fail(t, "%s is out of range: %s %s does not fit in 64-bit nanoseconds", what,
                       text, unit == DEC_SECONDS ? "s" : unit == DEC_MILLISECONDS ? "ms" : "ns");
    return true;
}

LLMLAT_PRIVATE bool rd_time(llmlat_reader *rd, const char *what, int unit, int64_t *out)
{
    return rd_time_as(rd, what, unit, false, out);
}

LLMLAT_PRIVATE bool rd_time_double(llmlat_reader *rd, const char *what, int unit, int64_t *out)
{
    return rd_time_as(rd, what, unit, true, out);
}

LLMLAT_PRIVATE bool rd_count(llmlat_reader *rd, const char *what, uint64_t max, uint64_t *out)
{
    jtok *t = &rd->jt;
    char text[JT_NUMBER_MAX];
    size_t n = 0;
    bool number = jt_starts_number(jt_peek(t));
    if (number && !jt_number(t, text, &n))
        return false;
    if (!number || !dec_to_u64(text, n, max, out))
        return t->failed ? false
                         : jt_fail(t, "%s must be an integer from 0 to %llu", what,
                                   (unsigned long long)max);
    return true;
}

LLMLAT_PRIVATE bool rd_double(llmlat_reader *rd, const char *what, double *out)
{
    jtok *t = &rd->jt;
    char text[JT_NUMBER_MAX];
    size_t n;
    if (!jt_starts_number(jt_peek(t)))
        return t->failed ? false : jt_fail(t, "%s must be a number", what);
    if (!jt_number(t, text, &n))
        return false;
    *out = strtod(text, NULL);
    if (!(*out >= -1.7976931348623157e308 && *out <= 1.7976931348623157e308))
        return jt_fail(t, "%s is out of range: %s", what, text);
    return true;
}

/* ----------------------------------------------------------------- steps */

/* One step of the format, on the bytes fed so far; RD_STEP_MORE when it
 * needs more (it is then forgotten, and runs again once there are). */
static int rd_run_step(llmlat_reader *rd, const rd_format_ops *ops)
{
    jtok *t = &rd->jt;
    if (!rd->ended && rd->len - t->pos < rd->retry_at)
        return RD_STEP_MORE;
    /* p up to the format's state, and what of it this format uses */
    rd_parse saved;
    size_t saved_size = offsetof(rd_parse, f) + ops->state_size;
    memcpy(&saved, &rd->p, saved_size);
    size_t pos = t->pos;
    uint64_t line = t->line, line_start = t->line_start;
    t->buf = rd->buf;
    t->len = rd->len;
    t->ended = rd->ended;
    t->starved = false;
    int r = ops->step(rd);
    if (rd->status != LLMLAT_OK)
        return RD_STEP_FAILED; /* no memory: starved or not */
    if (t->starved) {
        memcpy(&rd->p, &saved, saved_size);
        t->pos = pos;
        t->line = line;
        t->line_start = line_start;
        t->failed = false;
        rd_compact(rd);
        /* Run it again once the bytes it has doubled: a step longer than
         * the host's blocks costs linear time, not quadratic. */
        rd->retry_at = rd->len < SIZE_MAX / 2 ? 2 * rd->len + 1 : SIZE_MAX;
        return RD_STEP_MORE;
    }
    rd->retry_at = 0;
    return r;
}

/* The format of an input read as AUTO, once its first bytes tell. */
static int rd_choose_format(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    if (!rd->ended && rd->len < rd->retry_at)
        return RD_STEP_MORE;
    t->buf = rd->buf;
    t->len = rd->len;
    t->ended = rd->ended;
    int32_t f = rd_detect(rd);
    if (f == RD_DETECT_REFUSED)
        return RD_STEP_FAILED;
    if (f == LLMLAT_INPUT_AUTO) {
        rd->retry_at = rd->len < SIZE_MAX / 2 ? 2 * rd->len + 1 : SIZE_MAX;
        return RD_STEP_MORE;
    }
    rd->retry_at = 0;
    rd->p.format = f;
    rd->p.detected = true;
    rd_format(f)->begin(rd);
    return RD_STEP_ON;
}

/* The rule of docs/cli.md: times that go backwards, or events after the
 * end. Why q breaks it goes into why; false when it does not. */
static bool rd_breaks_rule(const llmlat_reader *rd, char *why, size_t cap)
{
    const rd_req *q = &rd->p.cur;
    char a[DEC_TEXT_MAX], b[DEC_TEXT_MAX];
    if (q->has_scheduled && q->scheduled > q->start) {
        dec_seconds_text(q->scheduled, a);
        dec_seconds_text(q->start, b);
        /* a trace names it by its member; other files by what it means */
        snprintf(why, cap, "its intended start%s at %s s is after its start at %s s",
                 rd->p.format == LLMLAT_INPUT_TRACE ? " (\"scheduled\")" : "", a, b);
        return true;
    }
    int64_t prev = q->start;
    for (size_t i = 0; i < q->n; i++) {
        int64_t t = rd->ev.t[i];
        if (t < prev) {
            dec_seconds_text(t, a);
            dec_seconds_text(prev, b);
            if (i == 0)
                snprintf(why, cap, "event 1 at %s s is before its start at %s s", a, b);
            else
                snprintf(why, cap, "event %zu at %s s is before event %zu at %s s", i + 1, a, i,
                         b);
            return true;
        }
        prev = t;
    }
    if (q->has_end && q->end < prev) {
        dec_seconds_text(q->end, a);
        dec_seconds_text(prev, b);
        if (q->n)
            snprintf(why, cap, "its end at %s s is before its last event (%zu) at %s s", a, q->n,
                     b);
        else
            snprintf(why, cap, "its end at %s s is before its start at %s s", a, b);
        return true;
    }
    return false;
}

/* An id as a message quotes it: on one line, the quote and the backslash
 * escaped, control bytes as \u00XX (the file's JSON decoded them). */
static void quoted_id(const char *id, char *out, size_t cap)
{
    size_t n = 0;
    for (; *id && n + 7 < cap; id++) {
        unsigned char c = (unsigned char)*id;
        if (c < 0x20 || c == 0x7f)
            n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
        else if (c == '"' || c == '\\')
            n += (size_t)snprintf(out + n, cap - n, "\\%c", c);
        else
            out[n++] = (char)c;
    }
    out[n] = '\0';
}

/* The current request is rejected: the message names it and says why. */
static void rd_reject(llmlat_reader *rd, const char *why)
{
    const rd_req *q = &rd->p.cur;
    char id[6 * RD_ID_MAX + 1];
    quoted_id(q->id, id, sizeof id);
    rd->rejected++;
    snprintf(rd->message, sizeof rd->message, "%s:%llu:%llu: request %llu%s%s%s rejected: %s",
             rd->name, (unsigned long long)q->line, (unsigned long long)q->col,
             (unsigned long long)q->index, id[0] ? " (id \"" : "", id, id[0] ? "\")" : "", why);
}

/* The next thing the host must see: a request in p.cur (READ_REQUEST,
 * rule applied), a rejection, MORE or END; or an error (status). */
static int32_t rd_advance(llmlat_reader *rd, int32_t *what)
{
    for (;;) {
        if (rd->status != LLMLAT_OK)
            return rd->status;
        if (rd->pending) {
            char why[160];
            if (!rd->pending_checked && rd_breaks_rule(rd, why, sizeof why)) {
                rd->pending = false;
                rd_reject(rd, why);
                *what = LLMLAT_READ_REJECTED;
                return LLMLAT_OK;
            }
            rd->pending_checked = true;
            *what = LLMLAT_READ_REQUEST;
            return LLMLAT_OK;
        }
        const rd_format_ops *ops = rd->p.detected ? rd_format(rd->p.format) : NULL;
        if (ops && ops->held_next && ops->held_next(rd)) {
            rd->requests++;
            rd->pending = true;
            rd->pending_checked = false;
            continue;
        }
        if (rd->status != LLMLAT_OK) /* held_next ran out of memory */
            return rd->status;
        if (rd->p.done) {
            *what = LLMLAT_READ_END;
            return LLMLAT_OK;
        }
        int r = ops ? rd_run_step(rd, ops) : rd_choose_format(rd);
        switch (r) {
        case RD_STEP_MORE:
            *what = LLMLAT_READ_MORE;
            return LLMLAT_OK;
        case RD_STEP_REQUEST:
            rd->requests++;
            rd->pending = true;
            rd->pending_checked = false;
            break;
        case RD_STEP_END:
            rd->p.done = true;
            break;
        case RD_STEP_FAILED:
            if (rd->status == LLMLAT_OK)
                rd->status = LLMLAT_EFORMAT;
            if (!rd->message[0])
                snprintf(rd->message, sizeof rd->message, "%s: malformed input", rd->name);
            return rd->status;
        default: /* RD_STEP_ON, RD_STEP_HELD */
            break;
        }
    }
}

/* ---------------------------------------------------------- delivering */

/* p.cur as the recorder r; the library's status when it refuses it. */
static int32_t rd_record(const llmlat_reader *rd, llmlat_request *r)
{
    const rd_req *q = &rd->p.cur;
    int32_t st = llmlat_request_reset(r);
    if (st == LLMLAT_OK && q->has_scheduled)
        st = llmlat_request_schedule(r, q->scheduled);
    if (st == LLMLAT_OK)
        st = llmlat_request_start(r, q->start);
    if (st == LLMLAT_OK && q->lacks)
        st = llmlat_request_set_lacks(r, q->lacks);
    if (st == LLMLAT_OK && q->has_known_ttft)
        st = llmlat_request_set_known(r, q->known_conv, LLMLAT_TTFT, ns_to_s(q->known_ttft_ns));
    if (st == LLMLAT_OK && q->has_known_e2e)
        st = llmlat_request_set_known(r, q->known_conv, LLMLAT_E2E, ns_to_s(q->known_e2e_ns));
    if (st == LLMLAT_OK && q->has_known_tool_itl)
        st = llmlat_request_set_known(r, q->known_conv, LLMLAT_TOOL_ITL, q->known_tool_itl_s);
    if (st == LLMLAT_OK && q->has_known_tps)
        st = llmlat_request_set_known(r, q->known_conv, LLMLAT_TPS_USER, q->known_tps);
    if (st == LLMLAT_OK)
        st = llmlat_request_events(r, rd->ev.t, rd->ev.k, q->n);
    if (st == LLMLAT_OK)
        st = llmlat_request_set_input_tokens(r, q->input_tokens);
    if (st == LLMLAT_OK && q->has_output_tokens)
        st = llmlat_request_set_output_tokens(r, q->output_tokens);
    /* ends at "end", else at its last event (or start) */
    int64_t end = q->has_end ? q->end : q->n ? rd->ev.t[q->n - 1] : q->start;
    if (st == LLMLAT_OK)
        st = q->cancelled ? llmlat_request_cancel(r, end)
             : q->ok      ? llmlat_request_finish(r, end)
                          : llmlat_request_fail(r, end);
    return st;
}

/* A request the library refused (a span past int64 ns, a token sum past
 * 2^64): rejected like one breaking the rule. */
static void rd_refused(llmlat_reader *rd, int32_t st)
{
    char why[160];
    snprintf(why, sizeof why, "the library refused it: %s", llmlat_strerror(st));
    rd->pending = false;
    rd_reject(rd, why);
}

LLMLAT_API int32_t llmlat_reader_next(llmlat_reader *rd, llmlat_request *r, int32_t *what)
{
    if (!rd || !r || !what)
        return LLMLAT_EINVAL;
    int32_t st = rd_advance(rd, what);
    if (st != LLMLAT_OK || *what != LLMLAT_READ_REQUEST)
        return st;
    rd->message[0] = '\0';
    st = rd_record(rd, r);
    if (st == LLMLAT_ENOMEM)
        return st; /* still pending: the next call tries again */
    if (st != LLMLAT_OK) {
        llmlat_request_reset(r);
        rd_refused(rd, st);
        *what = LLMLAT_READ_REJECTED;
        return LLMLAT_OK;
    }
    rd->pending = false;
    return LLMLAT_OK;
}

/* p.cur folded into a: as a view of the reader's arrays (no copy), or,
 * for a request known by its values, through a recorder. */
static int32_t rd_add(llmlat_reader *rd, llmlat_agg *a)
{
    const rd_req *q = &rd->p.cur;
    if (!q->has_known_ttft && !q->has_known_e2e && !q->has_known_tool_itl &&
        !q->has_known_tps) {
        req_spec s = {
            .start = q->start, .t = rd->ev.t, .k = rd->ev.k, .n = q->n,
            .has_scheduled = q->has_scheduled, .scheduled = q->scheduled,
            .has_end = q->has_end, .end = q->end, .failed = !q->ok,
            .cancelled = q->cancelled,
            .input_tokens = q->input_tokens, .has_output_tokens = q->has_output_tokens,
            .output_tokens = q->output_tokens, .lacks = q->lacks,
        };
        llmlat_request view;
        int32_t st = req_make_view(&view, &s);
        return st == LLMLAT_OK ? llmlat_agg_add(a, &view) : st;
    }
    if (!rd->rec && !(rd->rec = llmlat_request_new()))
        return LLMLAT_ENOMEM;
    int32_t st = rd_record(rd, rd->rec);
    return st == LLMLAT_OK ? llmlat_agg_add(a, rd->rec) : st;
}

LLMLAT_API int32_t llmlat_reader_add_to(llmlat_reader *rd, llmlat_agg *a, int32_t *what)
{
    if (!rd || !a || !what)
        return LLMLAT_EINVAL;
    for (;;) {
        int32_t st = rd_advance(rd, what);
        if (st != LLMLAT_OK || *what != LLMLAT_READ_REQUEST)
            return st;
        st = rd_add(rd, a);
        if (st == LLMLAT_ENOMEM)
            return st; /* still pending: the next call tries again */
        if (st != LLMLAT_OK) {
            rd_refused(rd, st);
            *what = LLMLAT_READ_REJECTED;
            return LLMLAT_OK;
        }
        rd->pending = false;
    }
}

/* ----------------------------------------------------------- queries */

LLMLAT_API const char *llmlat_reader_message(const llmlat_reader *rd)
{
    return rd ? rd->message : "";
}

LLMLAT_API const char *llmlat_reader_request_id(const llmlat_reader *rd)
{
    return rd ? rd->p.cur.id : "";
}

LLMLAT_API int32_t llmlat_reader_request_position(const llmlat_reader *rd, uint64_t *index,
                                                  uint64_t *line, uint64_t *column)
{
    if (!rd || !index || !line || !column)
        return LLMLAT_EINVAL;
    if (rd->requests == 0)
        return LLMLAT_ESTATE;
    *index = rd->p.cur.index;
    *line = rd->p.cur.line;
    *column = rd->p.cur.col;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_reader_counter(const llmlat_reader *rd, int32_t counter,
                                         uint64_t *out)
{
    if (!rd || !out)
        return LLMLAT_EINVAL;
    switch (counter) {
    case LLMLAT_READ_COUNT_REQUESTS: *out = rd->requests; return LLMLAT_OK;
    case LLMLAT_READ_COUNT_REJECTED: *out = rd->rejected; return LLMLAT_OK;
    case LLMLAT_READ_COUNT_RUN:
        *out = rd->p.run;
        return rd->p.run ? LLMLAT_OK : LLMLAT_EUNDEFINED;
    case LLMLAT_READ_COUNT_RUNS:
        *out = rd->p.done ? rd->p.runs : 0;
        return rd->p.done && rd->p.runs ? LLMLAT_OK : LLMLAT_EUNDEFINED;
    }
    return LLMLAT_EINVAL;
}

LLMLAT_API int32_t llmlat_reader_format(const llmlat_reader *rd, int32_t *input)
{
    if (!rd || !input)
        return LLMLAT_EINVAL;
    *input = rd->p.detected ? rd->p.format : LLMLAT_INPUT_AUTO;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_reader_duration(const llmlat_reader *rd, double *seconds)
{
    if (!rd || !seconds)
        return LLMLAT_EINVAL;
    if (!rd->p.has_duration)
        return undefined_value(seconds);
    *seconds = rd->p.duration_s;
    return LLMLAT_OK;
}
