/* The formats the reader knows, as its reader.c sees them: each one's
 * step-saved state (kept small: it is copied before every step), its
 * growable arrays, and its operations. docs/importers.md describes what
 * each format holds. */
#ifndef LLMLAT_READ_FORMATS_H
#define LLMLAT_READ_FORMATS_H

#include <stdbool.h>
#include <stdint.h>

#include "llmlat.h"

/* ------------------------------------------------ the llmlat trace (trace.c) */

typedef struct trace_state {
    uint8_t where;       /* enum trace_where (trace.c) */
    uint8_t kind;        /* the object being read: enum trace_object */
    uint8_t phase;       /* in an object: enum trace_phase */
    bool trace_object;   /* the first object holds "requests" */
    unsigned seen;       /* request keys seen in the current object */
    uint64_t obj_line, obj_col;
    /* The first object's "duration", judged once that object is known to
     * be the trace object. */
    bool dur_present, dur_valid, dur_null;
    double dur_seconds;
    uint64_t dur_line, dur_col;
} trace_state;

/* ------------------------------------- the importers' walk (import_walk.c) */

#define WALK_DEPTH 8

typedef struct walk_level {
    uint8_t object;      /* object (1) or array (0) */
    uint8_t next;        /* a value was read: ',' or the close comes next */
    uint16_t tag;        /* what the importer said this container is */
    uint64_t index;      /* values read in it */
} walk_level;

typedef struct walk_state {
    walk_level lv[WALK_DEPTH];
    uint8_t depth;       /* containers open */
    bool top_done;       /* the single top-level value was read */
    uint64_t top_index;  /* top-level values read */
} walk_state;

/* The columns of one run (vLLM, SGLang, GenAI-Perf: import_columns.c):
 * their lengths, and the delivery cursor once they are sealed. */
#define COLS_MAX 12

typedef struct cols_state {
    uint64_t len[COLS_MAX];
    uint64_t n;          /* requests, once sealed */
    uint64_t next;       /* the next request to deliver */
    uint64_t next_event; /* its first event (or gap) */
    bool sealed;         /* complete: deliver */
    bool gaps;           /* events are a TTFT then gaps (else times) */
    uint32_t lacks;
    uint64_t line, col;  /* where the run is */
} cols_state;

/* GuideLLM's benchmarks.json (import_guidellm.c): the requests of the
 * benchmark asked for, held until the input ends (arrays[GL_ARRAY]: one
 * record each), and the benchmark's measurement window. */
typedef struct guidellm_state {
    uint8_t group;        /* of the list being read: enum gl_group */
    uint32_t have;        /* the benchmark's fields seen: GB_* */
    uint64_t n;           /* records held */
    uint64_t next;        /* the next to hand over, once sealed */
    bool sealed;
    int64_t measure_lo, measure_hi; /* scheduler_metrics' measurement window, ns */
    int64_t start_time, end_time;   /* the benchmark's (the same window) */
    double duration;
    uint64_t total;       /* metrics.request_totals.total */
    uint64_t line, col;   /* where the benchmark is */
} guidellm_state;

/* inference-perf's per_request_lifecycle_metrics.json
 * (import_inference_perf.c): the request being read. Its chunk times are
 * the events (rd->ev), its token times arrays[IP_TOKEN_TIMES]. */
typedef struct inference_perf_state {
    uint64_t n_chunks, n_token_times;
    uint64_t output_tokens, server_tokens, input_tokens;
    int64_t end;
} inference_perf_state;

typedef struct import_state {
    walk_state w;
    cols_state c;
    guidellm_state gl;
    inference_perf_state ip;
    uint64_t run;        /* the run being read (1-based), 0 when it is skipped */
    /* The record or request being read (AIPerf, LLMPerf, GenAI-Perf). */
    uint32_t have;       /* fields seen: the importer's bits */
    uint64_t n_k;        /* GenAI-Perf: content flags read (ev.k) */
    int64_t ttft_ns, e2e_ns, end_ns;
    int64_t origin_ns;   /* AIPerf raw: start_perf_ns */
} import_state;

typedef union rd_formats {
    trace_state trace;
    import_state imp;
} rd_formats;

/* The growable arrays (llmlat_reader.arrays): the columns. */
#define RD_ARRAYS COLS_MAX

/* Each format's operations; reader.c holds the table. begin sets p.f up
 * for the start of the input; step runs one step (reader.h: enum
 * rd_step); held_next moves the next held request into p.cur, false when
 * none is left (formats that hand requests over as they read them have
 * none). */
LLMLAT_PRIVATE void trace_begin(llmlat_reader *rd);
LLMLAT_PRIVATE int trace_step(llmlat_reader *rd);

LLMLAT_PRIVATE void import_begin(llmlat_reader *rd);
LLMLAT_PRIVATE int import_step(llmlat_reader *rd);
LLMLAT_PRIVATE bool import_held_next(llmlat_reader *rd);
LLMLAT_PRIVATE bool import_guidellm_held_next(llmlat_reader *rd);

/* The format of the buffered input's first bytes (detect.c), or
 * LLMLAT_INPUT_AUTO while they do not tell yet (more bytes needed), or
 * RD_DETECT_REFUSED for a file llmlat cannot read (the message says what
 * it looks like). */
#define RD_DETECT_REFUSED (-1)
LLMLAT_PRIVATE int32_t rd_detect(llmlat_reader *rd);
/* What inference-perf's summary is, for its importer given one. */
LLMLAT_PRIVATE const char *rd_detect_message_inference_perf_summary(void);

#endif
