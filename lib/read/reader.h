/* The push reader's layout (read/reader.c), shared with the formats it
 * reads: the llmlat trace (read/trace.c) and the importers of other tools'
 * result files (read/import_*.c).
 *
 * How a push reader parses with a plain recursive-descent parser: the
 * input is parsed in steps (one member of an object, one element of an
 * array...). Before a step, the reader saves `p`, everything a step may
 * change except the contents of the growable arrays; the step then runs
 * on the bytes buffered so far as if they were the whole input. When it
 * read past them (the tokenizer is starved), its outcome is thrown away, p
 * restored, and the step runs again once more bytes are fed. The bytes
 * before the last finished step are dropped from the buffer, so memory
 * holds the unfinished step, not the input. */
#ifndef LLMLAT_READ_READER_H
#define LLMLAT_READ_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "record/request.h"
#include "read/jtok.h"

#define RD_ID_MAX 64    /* a request's id, NUL included (longer ids are cut) */
#define RD_KEY_MAX 40   /* longest key the formats look for, NUL included */
#define RD_MESSAGE_MAX JT_ERROR_MAX

/* One request as the input has it (times in ns, order not yet checked:
 * that is the rejection rule of reader.c). Its events are the reader's
 * arrays (rd_events). */
typedef struct rd_req {
    uint64_t index;            /* 1-based position in the input */
    uint64_t line, col;        /* where it starts */
    char id[RD_ID_MAX];        /* "" if none */
    int64_t start;
    bool has_scheduled;        /* its intended start (llmlat_request_schedule) */
    int64_t scheduled;
    size_t n;                  /* events */
    bool has_end;
    int64_t end;
    bool ok;
    bool cancelled; /* ended by the client (a trace's "cancelled": true) */
    uint64_t input_tokens;
    bool has_output_tokens;
    uint64_t output_tokens;
    uint32_t lacks;            /* LLMLAT_LACKS_* */
    /* Per-request values of a request without chunk times
     * (llmlat_request_set_known), as the source tool measured them. */
    int32_t known_conv;
    bool has_known_ttft, has_known_e2e, has_known_tool_itl, has_known_tps;
    int64_t known_ttft_ns, known_e2e_ns;
    double known_tool_itl_s, known_tps;
} rd_req;

/* The current request's events: grown as needed, kept across requests. */
typedef struct rd_events {
    int64_t *t;
    uint32_t *k;
    size_t cap;
} rd_events;

/* A growable array of fixed-size elements whose length lives in the
 * step-saved state (so that a starved step forgets what it appended). */
typedef struct rd_array {
    void *p;
    size_t cap;
} rd_array;

/* The formats' own state, all in p: plain values only. */
#include "read/formats.h"

typedef struct rd_parse {
    int32_t format;            /* the format being read (LLMLAT_INPUT_*) */
    bool detected;             /* format chosen (given, or found in the content) */
    bool done;                 /* the whole input was read */
    rd_req cur;                /* the request being read */
    bool has_duration;         /* the input's benchmark duration */
    double duration_s;
    uint64_t run, runs;        /* the run read, the runs seen (0: not counted) */
    rd_formats f;
} rd_parse;

struct llmlat_reader {
    llmlat_alloc al;
    int32_t input;             /* asked for: LLMLAT_INPUT_* (AUTO to detect) */
    uint64_t run_wanted;       /* 0: the last */
    char *name;
    int32_t status;            /* sticky: an error ends the reading */
    bool ended;                /* the host said the input is complete */

    unsigned char *buf;        /* the bytes not yet consumed: [0, len) */
    size_t len, cap;
    size_t retry_at;           /* a starved step waits for this many bytes */
    jtok jt;

    rd_parse p;                /* saved before every step */
    rd_events ev;
    rd_array arrays[RD_ARRAYS];/* the formats' growable arrays (formats.h) */

    /* Delivery: the request waiting for the host. */
    bool pending;              /* p.cur (or a held one) is ready */
    bool pending_checked;      /* the rule was applied to it */
    uint64_t requests, rejected;
    llmlat_request *rec;       /* for llmlat_reader_add_to, made on first use */
    char message[RD_MESSAGE_MAX];
};

/* A format as reader.c drives it (formats.h declares the functions);
 * state_size is how much of p.f its steps change (what a step saves). */
typedef struct rd_format_ops {
    int32_t input;
    void (*begin)(llmlat_reader *rd);
    int (*step)(llmlat_reader *rd);
    bool (*held_next)(llmlat_reader *rd);
    size_t state_size;
} rd_format_ops;

LLMLAT_PRIVATE const rd_format_ops *rd_format(int32_t input);

/* What a step did. */
enum rd_step {
    RD_STEP_ON,       /* parsed something; no request yet */
    RD_STEP_REQUEST,  /* p.cur is a complete request */
    RD_STEP_HELD,     /* requests are waiting in the format's arrays (rd_held_next) */
    RD_STEP_END,      /* the input is complete and valid */
    RD_STEP_FAILED,   /* malformed (the message is in rd->jt.error), or out of memory */
};

/* a + b, saturated: a time past int64 stays one, which the recorder then
 * refuses (a rejection) instead of wrapping around. */
static inline int64_t rd_add_sat(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

static inline int64_t rd_sub_sat(int64_t a, int64_t b)
{
    if (b < 0 && a > INT64_MAX + b)
        return INT64_MAX;
    if (b > 0 && a < INT64_MIN + b)
        return INT64_MIN;
    return a - b;
}

/* Grows array i to hold `need` elements of `elem` bytes; false (with the
 * error recorded and the status ENOMEM) when memory runs out. */
LLMLAT_PRIVATE bool rd_reserve(llmlat_reader *rd, int i, size_t need, size_t elem);
/* Room for `need` events in rd->ev, p.cur.n unchanged; false on no
 * memory (recorded). */
LLMLAT_PRIVATE bool rd_events_reserve(llmlat_reader *rd, size_t need);
/* Appends an event to p.cur; false on no memory (recorded). */
LLMLAT_PRIVATE bool rd_push_event_slow(llmlat_reader *rd, int64_t t, uint32_t k);
/* Records "out of memory ..." and the status ENOMEM; returns false. */
LLMLAT_PRIVATE bool rd_no_memory(llmlat_reader *rd, const char *what);
/* Clears p.cur for a new request starting at line:col. */
LLMLAT_PRIVATE void rd_begin_request(llmlat_reader *rd, uint64_t line, uint64_t col);

/* A time of `unit` (read/decimal.h) at the cursor, into *out; the message
 * names `what`. */
LLMLAT_PRIVATE bool rd_time(llmlat_reader *rd, const char *what, int unit, int64_t *out);
/* An integer from 0 to max at the cursor. */
LLMLAT_PRIVATE bool rd_count(llmlat_reader *rd, const char *what, uint64_t max, uint64_t *out);
/* A time of `unit` at the cursor as the double Python read it
 * (decimal.h: dec_double_to_ns): epoch times written as Python floats. */
LLMLAT_PRIVATE bool rd_time_double(llmlat_reader *rd, const char *what, int unit, int64_t *out);
/* A finite number at the cursor, as a double (values that are not times:
 * rates, LLMPerf's per-request ITL). */
LLMLAT_PRIVATE bool rd_double(llmlat_reader *rd, const char *what, double *out);

/* (The struct is complete only here: the inline fast path is below.) */
static inline bool rd_push_event(llmlat_reader *rd, int64_t t, uint32_t k)
{
    size_t n = rd->p.cur.n;
    if (n == rd->ev.cap)
        return rd_push_event_slow(rd, t, k);
    rd->ev.t[n] = t;
    rd->ev.k[n] = k;
    rd->p.cur.n = n + 1;
    return true;
}

#endif
