#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "decimal.h"
#include "llmlat.h"
#include "trace.h"

/* The keys of a request; any other key is ignored (traces may carry
 * their own fields). */
enum {
    KEY_START = 1 << 0,
    KEY_EVENTS = 1 << 1,
    KEY_END = 1 << 2,
    KEY_OK = 1 << 3,
    KEY_INPUT_TOKENS = 1 << 4,
    KEY_OUTPUT_TOKENS = 1 << 5,
    KEY_ID = 1 << 6,
    KEY_CANCELLED = 1 << 7,
};

static const struct {
    const char *name;
    unsigned bit;
} REQUEST_KEYS[] = {
    { "start", KEY_START },
    { "events", KEY_EVENTS },
    { "end", KEY_END },
    { "ok", KEY_OK },
    { "input_tokens", KEY_INPUT_TOKENS },
    { "output_tokens", KEY_OUTPUT_TOKENS },
    { "id", KEY_ID },
    { "cancelled", KEY_CANCELLED },
};

typedef struct reading {
    json_reader *r;
    trace_request req; /* reused: its event arrays only grow */
    trace_request_fn fn;
    void *user;
    trace_info *info;
} reading;

#define KEY_MAX 32

static unsigned request_key(const char *key)
{
    for (size_t i = 0; i < sizeof REQUEST_KEYS / sizeof REQUEST_KEYS[0]; i++)
        if (strcmp(key, REQUEST_KEYS[i].name) == 0)
            return REQUEST_KEYS[i].bit;
    return 0;
}

static bool starts_number(int c)
{
    return c == '-' || (c >= '0' && c <= '9');
}

/* null, consumed; false (nothing consumed) for anything else. */
static bool take_null(json_reader *r, bool *ok)
{
    *ok = true;
    if (jr_peek(r) != 'n')
        return false;
    char which;
    *ok = jr_literal(r, &which);
    return true;
}

static bool seconds_ns(json_reader *r, const char *what, int64_t *out)
{
    char text[JR_NUMBER_MAX];
    if (!starts_number(jr_peek(r)))
        return r->failed ? false : jr_fail(r, "%s must be a number (seconds)", what);
    if (!jr_number(r, text))
        return false;
    if (!decimal_seconds_to_ns(text, out))
        return jr_fail(r, "%s is out of range: %s s does not fit in 64-bit nanoseconds", what,
                       text);
    return true;
}

static bool count_u64(json_reader *r, const char *what, uint64_t max, uint64_t *out)
{
    char text[JR_NUMBER_MAX];
    bool number = starts_number(jr_peek(r));
    if (number && !jr_number(r, text))
        return false;
    if (!number || !decimal_to_u64(text, max, out))
        return r->failed ? false
                         : jr_fail(r, "%s must be an integer from 0 to %llu", what,
                                   (unsigned long long)max);
    return true;
}

static bool push_event(trace_request *q, int64_t t, uint32_t k)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 256;
        int64_t *nt = realloc(q->t, cap * sizeof *nt);
        if (!nt)
            return false;
        q->t = nt;
        uint32_t *nk = realloc(q->k, cap * sizeof *nk);
        if (!nk)
            return false;
        q->k = nk;
        q->cap = cap;
    }
    q->t[q->n] = t;
    q->k[q->n++] = k;
    return true;
}

/* "[T,K]" or "[T, K]" with T in decimal_plain_ns's form and K plain
 * digits, read straight from the reader's block: the shape of nearly every
 * event. false, with nothing consumed, for anything else, which the
 * general path then reads (and explains when it is wrong). */
static bool plain_event(json_reader *r, int64_t *t, uint64_t *k)
{
    size_t avail;
    const char *start = (const char *)jr_window(r, &avail), *end = start + avail;
    const char *p = start + 1; /* past the '[' jr_peek saw */
    p = decimal_plain_ns(p, end, t);
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
    jr_consume(r, (size_t)(p + 1 - start));
    *k = v;
    return true;
}

/* One event [t, k]: the fast path, else token by token. */
static bool read_event(json_reader *r, int64_t *t, uint64_t *k)
{
    if (jr_peek(r) == '[' && plain_event(r, t, k))
        return true;
    return jr_expect(r, '[', "an event [t, k]") && seconds_ns(r, "an event's time", t) &&
           jr_expect(r, ',', "',' between an event's time and its token count") &&
           count_u64(r, "an event's token count", UINT32_MAX, k) &&
           jr_expect(r, ']', "']' closing an event [t, k]");
}

static bool read_events(reading *g)
{
    json_reader *r = g->r;
    trace_request *q = &g->req;
    if (!jr_expect(r, '[', "'[' starting \"events\""))
        return false;
    if (jr_peek(r) == ']') {
        jr_advance(r);
        return true;
    }
    for (;;) {
        int64_t t;
        uint64_t k;
        if (!read_event(r, &t, &k))
            return false;
        if (!push_event(q, t, (uint32_t)k)) {
            g->info->out_of_memory = true;
            return jr_fail(r, "out of memory holding the events of request %llu",
                           (unsigned long long)q->index);
        }
        if (jr_peek(r) == ']') {
            jr_advance(r);
            return true;
        }
        if (!jr_expect(r, ',', "',' or ']' after an event"))
            return false;
    }
}

static bool read_id(json_reader *r, trace_request *q)
{
    bool ok;
    if (take_null(r, &ok))
        return ok;
    int c = jr_peek(r);
    if (c == '"')
        return jr_string(r, q->id, sizeof q->id);
    if (starts_number(c)) {
        char text[JR_NUMBER_MAX];
        if (!jr_number(r, text))
            return false;
        size_t n = strlen(text) < sizeof q->id ? strlen(text) : sizeof q->id - 1;
        memcpy(q->id, text, n);
        q->id[n] = '\0';
        return true;
    }
    return r->failed ? false : jr_fail(r, "\"id\" must be a string or a number");
}

/* The value of a request key. */
static bool request_member(reading *g, unsigned key)
{
    json_reader *r = g->r;
    trace_request *q = &g->req;
    bool ok;
    char which;
    switch (key) {
    case KEY_START:
        return seconds_ns(r, "\"start\"", &q->start);
    case KEY_EVENTS:
        return read_events(g);
    case KEY_END:
        if (take_null(r, &ok))
            return ok;
        q->has_end = true;
        return seconds_ns(r, "\"end\"", &q->end);
    case KEY_OK:
    case KEY_CANCELLED:
        if (jr_peek(r) != 't' && jr_peek(r) != 'f')
            return r->failed ? false
                             : jr_fail(r, "\"%s\" must be true or false",
                                       key == KEY_OK ? "ok" : "cancelled");
        if (!jr_literal(r, &which))
            return false;
        if (key == KEY_OK)
            q->ok = which == 't';
        else
            q->cancelled = which == 't';
        return true;
    case KEY_INPUT_TOKENS:
        if (take_null(r, &ok))
            return ok;
        return count_u64(r, "\"input_tokens\"", UINT64_MAX, &q->input_tokens);
    case KEY_OUTPUT_TOKENS:
        if (take_null(r, &ok))
            return ok;
        q->has_output_tokens = true;
        return count_u64(r, "\"output_tokens\"", UINT64_MAX, &q->output_tokens);
    case KEY_ID:
        return read_id(r, q);
    }
    return jr_skip_value(r);
}

/* A "duration" member of the first object as read: its number text (""
 * for null), or where a value that is neither was. It is judged only once
 * the object is known to be the trace object: in a request it is just
 * another ignored member. */
typedef struct duration_value {
    bool present, valid;
    char text[JR_NUMBER_MAX];
    uint64_t line, col;
} duration_value;

static bool read_duration(json_reader *r, duration_value *d)
{
    int c = jr_peek(r);
    *d = (duration_value){ .present = true, .line = r->tok_line, .col = r->tok_col };
    bool ok;
    if (starts_number(c)) {
        d->valid = true;
        return jr_number(r, d->text);
    }
    if (take_null(r, &ok)) {
        d->valid = true;
        return ok;
    }
    return jr_skip_value(r);
}

static bool judge_duration(reading *g, const duration_value *d)
{
    if (!d->present || (d->valid && !d->text[0]))
        return true;
    double lo, hi;
    llmlat_param_bounds(LLMLAT_PARAM_DURATION, &lo, &hi);
    double seconds = d->valid ? strtod(d->text, NULL) : NAN;
    if (!(seconds > 0.0 && seconds <= hi))
        return jr_fail_at(g->r, d->line, d->col,
                          "\"duration\" must be null or a number of seconds in (0, %g]", hi);
    g->info->has_duration = true;
    g->info->duration_s = seconds;
    return true;
}

static void reset_request(trace_request *q, uint64_t index, uint64_t line, uint64_t col)
{
    q->index = index;
    q->line = line;
    q->col = col;
    q->id[0] = '\0';
    q->start = 0;
    q->n = 0;
    q->has_end = false;
    q->end = 0;
    q->ok = true;
    q->cancelled = false;
    q->input_tokens = 0;
    q->has_output_tokens = false;
    q->output_tokens = 0;
}

static bool read_request_array(reading *g);

/* An object: a request, or (when it is the first thing in the input and
 * has "requests") the trace object. *is_trace tells which it was. */
static bool read_object(reading *g, bool may_be_trace, bool *is_trace)
{
    json_reader *r = g->r;
    trace_request *q = &g->req;
    jr_peek(r);
    uint64_t line = r->tok_line, col = r->tok_col;
    if (!jr_expect(r, '{', "'{' starting a request"))
        return false;
    reset_request(q, g->info->requests + 1, line, col);
    unsigned seen = 0;
    bool trace_object = false;
    duration_value duration = { .present = false };
    if (jr_peek(r) == '}')
        jr_advance(r);
    else
        for (;;) {
            char key[KEY_MAX];
            if (!jr_string(r, key, sizeof key))
                return false;
            unsigned bit = request_key(key);
            bool requests = may_be_trace && strcmp(key, "requests") == 0;
            bool is_duration = may_be_trace && strcmp(key, "duration") == 0;
            if (seen & bit)
                return jr_fail(r, "duplicate key \"%s\"", key);
            if (trace_object && bit)
                return jr_fail(r, "\"%s\" belongs in a request, not in the trace object", key);
            if (requests && (trace_object || seen))
                return jr_fail(r, trace_object ? "duplicate key \"requests\""
                                               : "an object with \"requests\" cannot also have "
                                                 "request keys");
            if (!jr_expect(r, ':', "':' after a key"))
                return false;
            bool ok;
            if (requests) {
                trace_object = true;
                ok = read_request_array(g);
            } else if (is_duration) {
                ok = read_duration(r, &duration);
            } else if (trace_object) {
                ok = jr_skip_value(r);
            } else {
                seen |= bit;
                ok = request_member(g, bit);
            }
            if (!ok)
                return false;
            if (jr_peek(r) == '}') {
                jr_advance(r);
                break;
            }
            if (!jr_expect(r, ',', "',' or '}' after a member"))
                return false;
        }
    if (is_trace)
        *is_trace = trace_object;
    if (trace_object)
        return judge_duration(g, &duration);
    if (!(seen & KEY_START))
        return jr_fail_at(r, line, col, "request %llu has no \"start\"",
                          (unsigned long long)q->index);
    g->info->requests++;
    return g->fn(g->user, q);
}

static bool read_request_array(reading *g)
{
    json_reader *r = g->r;
    char tmp[16];
    if (!jr_expect(r, '[', "'[' starting the requests"))
        return false;
    if (jr_peek(r) == ']') {
        jr_advance(r);
        return true;
    }
    for (;;) {
        int c = jr_peek(r);
        if (c != '{')
            return r->failed ? false
                             : jr_fail(r, "expected '{' starting a request, found %s",
                                       jr_describe(c, tmp, sizeof tmp));
        if (!read_object(g, false, NULL))
            return false;
        if (jr_peek(r) == ']') {
            jr_advance(r);
            return true;
        }
        if (!jr_expect(r, ',', "',' or ']' after a request"))
            return false;
    }
}

/* The requests after the first line of a JSON Lines trace. */
static bool read_json_lines(reading *g)
{
    json_reader *r = g->r;
    char tmp[16];
    for (;;) {
        int c = jr_peek(r);
        if (c == JR_EOF)
            return !r->failed;
        if (c != '{')
            return jr_fail(r, "expected '{' starting the next request (JSON Lines), found %s",
                           jr_describe(c, tmp, sizeof tmp));
        if (!read_object(g, false, NULL))
            return false;
    }
}

bool trace_read(json_reader *r, trace_request_fn fn, void *user, trace_info *info)
{
    memset(info, 0, sizeof *info);
    reading g = { .r = r, .fn = fn, .user = user, .info = info };
    char tmp[16];
    bool ok;
    int c = jr_peek(r);
    if (c == '[') {
        ok = read_request_array(&g);
    } else if (c == '{') {
        bool is_trace = false;
        ok = read_object(&g, true, &is_trace);
        if (ok && !is_trace)
            ok = read_json_lines(&g);
    } else if (c == JR_EOF && !r->failed) {
        ok = jr_fail(r, "empty input: expected a trace (a JSON array of requests, an object "
                        "with \"requests\", or JSON Lines)");
    } else {
        ok = r->failed ? false
                       : jr_fail(r, "expected '[' or '{' starting a trace, found %s",
                                 jr_describe(c, tmp, sizeof tmp));
    }
    if (ok) {
        c = jr_peek(r);
        if (c != JR_EOF || r->failed)
            ok = r->failed ? false
                           : jr_fail(r, "unexpected %s after the end of the trace",
                                     jr_describe(c, tmp, sizeof tmp));
    }
    free(g.req.t);
    free(g.req.k);
    return ok;
}
