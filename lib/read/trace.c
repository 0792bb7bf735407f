/* The llmlat trace (docs/cli.md), read one step at a time: a JSON array
 * of requests, an object {"requests": [...], "duration": s}, or JSON Lines
 * with one request object per line. A step is one member of an object,
 * one element's opening or one separator, so that the trace object's
 * requests stream through while its other members wait in trace_state. */
#include <stdlib.h>
#include <string.h>

#include "read/decimal.h"
#include "read/reader.h"

/* Where the reading is. */
enum trace_where {
    TW_START,        /* before the first value */
    TW_ARRAY_OPEN,   /* after '[' of the requests: ']' or a request */
    TW_ARRAY_NEXT,   /* after ',' in it: a request */
    TW_ARRAY_SEP,    /* after a request in it: ',' or ']' */
    TW_OBJECT,       /* in an object: trace_state.phase says where */
    TW_LINES,        /* between the requests of JSON Lines */
    TW_AFTER,        /* after the trace: only its end */
};

/* The object being read. */
enum trace_object {
    TO_FIRST,        /* the first value: a request, or the trace object */
    TO_IN_ARRAY,     /* a request of the requests array */
    TO_LINE,         /* a later request of JSON Lines */
};

/* Where in an object. */
enum trace_phase {
    TP_OPEN,         /* after '{': '}' or a key */
    TP_KEY,          /* after ',': a key */
    TP_AFTER,        /* after a member's value: ',' or '}' */
};

/* The keys of a request; any other key is ignored (traces may carry
 * their own fields). */
enum {
    TK_START = 1 << 0,
    TK_EVENTS = 1 << 1,
    TK_END = 1 << 2,
    TK_OK = 1 << 3,
    TK_INPUT_TOKENS = 1 << 4,
    TK_OUTPUT_TOKENS = 1 << 5,
    TK_ID = 1 << 6,
    TK_CANCELLED = 1 << 7,
    TK_SCHEDULED = 1 << 8,
};

static const struct {
    const char *name;
    unsigned bit;
} TRACE_KEYS[] = {
    { "start", TK_START },
    { "events", TK_EVENTS },
    { "end", TK_END },
    { "ok", TK_OK },
    { "input_tokens", TK_INPUT_TOKENS },
    { "output_tokens", TK_OUTPUT_TOKENS },
    { "id", TK_ID },
    { "cancelled", TK_CANCELLED },
    { "scheduled", TK_SCHEDULED },
};

#define TRACE_KEY_MAX 32

static unsigned trace_key(const char *key)
{
    for (size_t i = 0; i < sizeof TRACE_KEYS / sizeof TRACE_KEYS[0]; i++)
        if (strcmp(key, TRACE_KEYS[i].name) == 0)
            return TRACE_KEYS[i].bit;
    return 0;
}

LLMLAT_PRIVATE void trace_begin(llmlat_reader *rd)
{
    rd->p.f.trace = (trace_state){ .where = TW_START };
}

/* "[T,K]" or "[T, K]" with T in dec_plain_seconds's form and K plain
 * digits, read straight from the window: the shape of nearly every event.
 * false, with nothing consumed, for anything else, which the general path
 * then reads (and explains when it is wrong). */
static bool trace_plain_event(jtok *t, int64_t *time, uint64_t *k)
{
    const char *start = (const char *)t->buf + t->pos, *end = (const char *)t->buf + t->len;
    const char *p = dec_plain_seconds(start + 1, end, time); /* past the '[' */
    if (!p || p == end || *p != ',')
        return false;
    p++;
    p += p < end && *p == ' ';
    const char *digits = p;
    uint64_t v = 0;
    for (; p < end && *p >= '0' && *p <= '9' && p - digits < 10; p++)
        v = v * 10 + (uint64_t)(*p - '0');
    if (p == digits || p == end || *p != ']' || (*digits == '0' && p - digits > 1) ||
        v > UINT32_MAX)
        return false;
    t->pos += (size_t)(p + 1 - start);
    *k = v;
    return true;
}

/* One event [t, k]: the fast path, else token by token. */
static bool trace_event(llmlat_reader *rd, int64_t *time, uint64_t *k)
{
    jtok *t = &rd->jt;
    if (jt_peek(t) == '[' && trace_plain_event(t, time, k))
        return true;
    return jt_expect(t, '[', "an event [t, k]") &&
           rd_time(rd, "an event's time", DEC_SECONDS, time) &&
           jt_expect(t, ',', "',' between an event's time and its token count") &&
           rd_count(rd, "an event's token count", UINT32_MAX, k) &&
           jt_expect(t, ']', "']' closing an event [t, k]");
}

static bool trace_events(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    if (!jt_expect(t, '[', "'[' starting \"events\""))
        return false;
    if (jt_peek(t) == ']') {
        jt_advance(t);
        return true;
    }
    for (;;) {
        int64_t time;
        uint64_t k;
        if (!trace_event(rd, &time, &k) || !rd_push_event(rd, time, (uint32_t)k))
            return false;
        /* "],[" most of the time: no whitespace to skip */
        int c = t->pos < t->len && t->buf[t->pos] == ',' ? ',' : jt_peek(t);
        if (c == ']') {
            jt_advance(t);
            return true;
        }
        if (c == ',') {
            jt_advance(t);
            continue;
        }
        if (!jt_expect(t, ',', "',' or ']' after an event"))
            return false;
    }
}

static bool trace_id(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    rd_req *q = &rd->p.cur;
    bool ok;
    if (jt_take_null(t, &ok))
        return ok;
    int c = jt_peek(t);
    if (c == '"')
        return jt_string(t, q->id, sizeof q->id, NULL);
    if (jt_starts_number(c)) {
        char text[JT_NUMBER_MAX];
        size_t n;
        if (!jt_number(t, text, &n))
            return false;
        if (n >= sizeof q->id)
            n = sizeof q->id - 1;
        memcpy(q->id, text, n);
        q->id[n] = '\0';
        return true;
    }
    return t->failed ? false : jt_fail(t, "\"id\" must be a string or a number");
}

/* The value of a request key. */
static bool trace_member(llmlat_reader *rd, unsigned key)
{
    jtok *t = &rd->jt;
    rd_req *q = &rd->p.cur;
    bool ok;
    char which;
    switch (key) {
    case TK_START:
        return rd_time(rd, "\"start\"", DEC_SECONDS, &q->start);
    case TK_SCHEDULED: /* the intended start */
        if (jt_take_null(t, &ok))
            return ok;
        q->has_scheduled = true;
        return rd_time(rd, "\"scheduled\"", DEC_SECONDS, &q->scheduled);
    case TK_EVENTS:
        return trace_events(rd);
    case TK_END:
        if (jt_take_null(t, &ok))
            return ok;
        q->has_end = true;
        return rd_time(rd, "\"end\"", DEC_SECONDS, &q->end);
    case TK_OK:
    case TK_CANCELLED:
        if (jt_peek(t) != 't' && jt_peek(t) != 'f')
            return t->failed ? false
                             : jt_fail(t, "\"%s\" must be true or false",
                                       key == TK_OK ? "ok" : "cancelled");
        if (!jt_literal(t, &which))
            return false;
        if (key == TK_OK)
            q->ok = which == 't';
        else
            q->cancelled = which == 't';
        return true;
    case TK_INPUT_TOKENS:
        if (jt_take_null(t, &ok))
            return ok;
        return rd_count(rd, "\"input_tokens\"", UINT64_MAX, &q->input_tokens);
    case TK_OUTPUT_TOKENS:
        if (jt_take_null(t, &ok))
            return ok;
        q->has_output_tokens = true;
        return rd_count(rd, "\"output_tokens\"", UINT64_MAX, &q->output_tokens);
    case TK_ID:
        return trace_id(rd);
    }
    return jt_skip_value(t);
}

/* A "duration" member of the first object as read: a number, null, or
 * where a value that is neither was. It is judged only once the object is
 * known to be the trace object: in a request it is just another ignored
 * member. */
static bool trace_duration(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    trace_state *s = &rd->p.f.trace;
    int c = jt_peek(t);
    s->dur_present = true;
    s->dur_valid = s->dur_null = false;
    s->dur_line = t->tok_line;
    s->dur_col = t->tok_col;
    bool ok;
    if (jt_starts_number(c)) {
        char text[JT_NUMBER_MAX];
        size_t n;
        if (!jt_number(t, text, &n))
            return false;
        s->dur_valid = true;
        s->dur_seconds = strtod(text, NULL);
        return true;
    }
    if (jt_take_null(t, &ok)) {
        s->dur_valid = s->dur_null = true;
        return ok;
    }
    return jt_skip_value(t);
}

static bool trace_judge_duration(llmlat_reader *rd)
{
    trace_state *s = &rd->p.f.trace;
    if (!s->dur_present || s->dur_null)
        return true;
    double lo, hi;
    llmlat_param_bounds(LLMLAT_PARAM_DURATION, &lo, &hi);
    if (!(s->dur_valid && s->dur_seconds > 0.0 && s->dur_seconds <= hi))
        return jt_fail_at(&rd->jt, s->dur_line, s->dur_col,
                          "\"duration\" must be null or a number of seconds in (0, %g]", hi);
    rd->p.has_duration = true;
    rd->p.duration_s = s->dur_seconds;
    return true;
}

/* '{' of a request (or of the first object), consumed. */
static bool trace_open_object(llmlat_reader *rd, enum trace_object kind)
{
    jtok *t = &rd->jt;
    trace_state *s = &rd->p.f.trace;
    jt_peek(t);
    uint64_t line = t->tok_line, col = t->tok_col;
    if (!jt_expect(t, '{', "'{' starting a request"))
        return false;
    rd_begin_request(rd, line, col);
    s->where = TW_OBJECT;
    s->kind = (uint8_t)kind;
    s->phase = TP_OPEN;
    s->seen = 0;
    s->obj_line = line;
    s->obj_col = col;
    return true;
}

/* '}' read: the trace object ends the trace; a request is complete. */
static int trace_close_object(llmlat_reader *rd)
{
    trace_state *s = &rd->p.f.trace;
    if (s->kind == TO_FIRST && s->trace_object) {
        s->where = TW_AFTER;
        return trace_judge_duration(rd) ? RD_STEP_ON : RD_STEP_FAILED;
    }
    if (!(s->seen & TK_START)) {
        jt_fail_at(&rd->jt, s->obj_line, s->obj_col, "request %llu has no \"start\"",
                   (unsigned long long)rd->p.cur.index);
        return RD_STEP_FAILED;
    }
    s->where = s->kind == TO_IN_ARRAY ? TW_ARRAY_SEP : TW_LINES;
    return RD_STEP_REQUEST;
}

/* One member: key, ':', value, and the ',' or '}' after it. */
static int trace_object_step(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    trace_state *s = &rd->p.f.trace;
    if (s->phase == TP_OPEN && jt_peek(t) == '}') {
        jt_advance(t);
        return trace_close_object(rd);
    }
    if (s->phase != TP_AFTER) {
        bool first = s->kind == TO_FIRST;
        bool trace_object = first && s->trace_object; /* this object is the trace's */
        char key[TRACE_KEY_MAX];
        if (!jt_string(t, key, sizeof key, NULL))
            return RD_STEP_FAILED;
        unsigned bit = trace_key(key);
        bool requests = first && strcmp(key, "requests") == 0;
        bool is_duration = first && strcmp(key, "duration") == 0;
        if (s->seen & bit)
            return jt_fail(t, "duplicate key \"%s\"", key), RD_STEP_FAILED;
        if (trace_object && bit)
            return jt_fail(t, "\"%s\" belongs in a request, not in the trace object", key),
                   RD_STEP_FAILED;
        if (requests && (trace_object || s->seen)) {
            jt_fail(t, trace_object ? "duplicate key \"requests\""
                                    : "an object with \"requests\" cannot also have "
                                      "request keys");
            return RD_STEP_FAILED;
        }
        if (!jt_expect(t, ':', "':' after a key"))
            return RD_STEP_FAILED;
        bool ok;
        if (requests) {
            s->trace_object = true;
            if (!jt_expect(t, '[', "'[' starting the requests"))
                return RD_STEP_FAILED;
            s->where = TW_ARRAY_OPEN;
            return RD_STEP_ON;
        } else if (is_duration) {
            ok = trace_duration(rd);
        } else if (trace_object) {
            ok = jt_skip_value(t);
        } else {
            s->seen |= bit;
            ok = trace_member(rd, bit);
        }
        if (!ok)
            return RD_STEP_FAILED;
    }
    if (jt_peek(t) == '}') {
        jt_advance(t);
        return trace_close_object(rd);
    }
    if (!jt_expect(t, ',', "',' or '}' after a member"))
        return RD_STEP_FAILED;
    s->phase = TP_KEY;
    return RD_STEP_ON;
}

/* The requests array: its next element, or its end. */
static int trace_array_step(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    trace_state *s = &rd->p.f.trace;
    char tmp[JT_DESCRIBE_MAX];
    int c = jt_peek(t);
    if (s->where == TW_ARRAY_SEP || (s->where == TW_ARRAY_OPEN && c == ']')) {
        if (c == ']') {
            jt_advance(t);
            if (s->trace_object) { /* back in the trace object, after "requests" */
                s->where = TW_OBJECT;
                s->kind = TO_FIRST;
                s->phase = TP_AFTER;
                s->seen = 0; /* the trace object's own: it has no request key */
            } else {
                s->where = TW_AFTER;
            }
            return RD_STEP_ON;
        }
        if (!jt_expect(t, ',', "',' or ']' after a request"))
            return RD_STEP_FAILED;
        s->where = TW_ARRAY_NEXT;
        return RD_STEP_ON;
    }
    if (c != '{') {
        if (!t->failed)
            jt_fail(t, "expected '{' starting a request, found %s",
                    jt_describe(c, tmp, sizeof tmp));
        return RD_STEP_FAILED;
    }
    return trace_open_object(rd, TO_IN_ARRAY) ? RD_STEP_ON : RD_STEP_FAILED;
}

LLMLAT_PRIVATE int trace_step(llmlat_reader *rd)
{
    jtok *t = &rd->jt;
    trace_state *s = &rd->p.f.trace;
    char tmp[JT_DESCRIBE_MAX];
    int c;
    switch (s->where) {
    case TW_OBJECT:
        return trace_object_step(rd);
    case TW_ARRAY_OPEN:
    case TW_ARRAY_NEXT:
    case TW_ARRAY_SEP:
        return trace_array_step(rd);
    case TW_START:
        c = jt_peek(t);
        if (c == '[') {
            jt_advance(t);
            s->where = TW_ARRAY_OPEN;
            return RD_STEP_ON;
        }
        if (c == '{')
            return trace_open_object(rd, TO_FIRST) ? RD_STEP_ON : RD_STEP_FAILED;
        if (c == JT_EOF)
            jt_fail(t, "empty input: expected a trace (a JSON array of requests, an object "
                       "with \"requests\", or JSON Lines)");
        else
            jt_fail(t, "expected '[' or '{' starting a trace, found %s",
                    jt_describe(c, tmp, sizeof tmp));
        return RD_STEP_FAILED;
    case TW_LINES:
        c = jt_peek(t);
        if (c == JT_EOF)
            return RD_STEP_END;
        if (c != '{') {
            jt_fail(t, "expected '{' starting the next request (JSON Lines), found %s",
                    jt_describe(c, tmp, sizeof tmp));
            return RD_STEP_FAILED;
        }
        return trace_open_object(rd, TO_LINE) ? RD_STEP_ON : RD_STEP_FAILED;
    case TW_AFTER:
        c = jt_peek(t);
        if (c == JT_EOF)
            return RD_STEP_END;
        jt_fail(t, "unexpected %s after the end of the trace", jt_describe(c, tmp, sizeof tmp));
        return RD_STEP_FAILED;
    }
    return RD_STEP_FAILED;
}
