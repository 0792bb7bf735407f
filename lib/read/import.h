/* The importers of other tools' result files (docs/importers.md), as the
 * walk (import_walk.c) drives them: the walk steps through the JSON one
 * value at a time and asks the format's handler what each value is; the
 * handler takes it (a scalar), skips it, or enters it (an object or array
 * it wants the values of). Containers are told apart by tags the handler
 * gives them. The handlers keep their state in import_state (formats.h)
 * and their columns in the reader's arrays (import_columns.c). */
#ifndef LLMLAT_READ_IMPORT_H
#define LLMLAT_READ_IMPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "read/reader.h"

#define IMPORT_TOP 0 /* the tag of the top level (no container) */

typedef struct import_ops {
    int32_t input;
    const char *what;     /* the file, in messages: "a vLLM result" */
    bool lines;           /* the top level is JSON Lines of values (else one value) */
    /* The value at the cursor, in the container tagged `tag` (IMPORT_TOP
     * at the top level), member `key` of an object (NULL in an array) or
     * element `index`. Returns an enum rd_step. */
    int (*value)(llmlat_reader *rd, uint16_t tag, const char *key, uint64_t index);
    /* The container tagged `tag` (entered with walk_enter) just closed. */
    int (*close)(llmlat_reader *rd, uint16_t tag);
    /* The input ended, after its top-level values. */
    int (*end)(llmlat_reader *rd);
} import_ops;

LLMLAT_PRIVATE const import_ops *import_vllm_ops(void);
LLMLAT_PRIVATE const import_ops *import_sglang_ops(void);
LLMLAT_PRIVATE const import_ops *import_aiperf_ops(void);
LLMLAT_PRIVATE const import_ops *import_genai_perf_ops(void);
LLMLAT_PRIVATE const import_ops *import_llmperf_ops(void);
LLMLAT_PRIVATE const import_ops *import_guidellm_ops(void);
LLMLAT_PRIVATE const import_ops *import_inference_perf_ops(void);

/* Enters the object ('{') or array ('[') at the cursor, tagged `tag`;
 * `what` names the value in the message when it is not one. */
LLMLAT_PRIVATE bool walk_enter(llmlat_reader *rd, bool object, uint16_t tag, const char *what);
/* The depth of the walk: 0 at the top level, 1 in its value, ... */
LLMLAT_PRIVATE unsigned walk_depth(const llmlat_reader *rd);

/* Run `run` (1-based: a JSON line of vLLM or SGLang, an experiment of
 * GenAI-Perf) begins: true when it is the one to read, which resets the
 * columns (asked for 0, the last, every run is read, each replacing the
 * previous). */
LLMLAT_PRIVATE bool import_run_begin(llmlat_reader *rd, uint64_t run);
/* At the end of the input: the run asked for exists (else the error),
 * and its columns go out (the held requests). */
LLMLAT_PRIVATE int import_runs_end(llmlat_reader *rd);

/* ---------------------------------------------- columns (import_columns.c) */

/* The columns of one run: one entry per request (START ... LINE), and the
 * events of every request end to end (EV_T, EV_K), EVENTS[i] of them for
 * request i. A column's length is c.len[id]. */
enum cols_id {
    COL_START,   /* i64: ns, or relative to 0 when the source has none */
    COL_TTFT,    /* i64 ns: the first event after the start (gap form) */
    COL_INPUT,   /* u64 */
    COL_OUTPUT,  /* u64 */
    COL_FAILED,  /* u8: 1 when the request failed */
    COL_LATENCY, /* i64 ns: the tool's own E2E (vLLM's "latencies") */
    COL_QUEUE,   /* i64 ns: the wait before the start (vLLM's "queue_times") */
    COL_EVENTS,  /* u64: its events (gap form: gaps after the first) */
    COL_EV_T,    /* i64: times, or gaps in gap form */
    COL_EV_K,    /* u32: tokens of each event (times form) */
    COL_LINE,    /* u64: where the request is in the input */
    COL_COL,     /* u64 */
    COLS
};

/* Room for one more entry of column id; false on no memory. */
LLMLAT_PRIVATE bool cols_push_i64(llmlat_reader *rd, int id, int64_t v);
LLMLAT_PRIVATE bool cols_push_u64(llmlat_reader *rd, int id, uint64_t v);
LLMLAT_PRIVATE bool cols_push_u32(llmlat_reader *rd, int id, uint32_t v);
LLMLAT_PRIVATE bool cols_push_u8(llmlat_reader *rd, int id, uint8_t v);
/* Every column empty. */
LLMLAT_PRIVATE void cols_clear(llmlat_reader *rd);
/* The columns of the run are complete: `gaps` says the form of the
 * events; lacks is what every request lacks. The request count is that of
 * COL_TTFT (gap form) or COL_START (times form); the other per-request
 * columns must be empty or as long, else the error (where: the run's
 * position). */
LLMLAT_PRIVATE bool cols_seal(llmlat_reader *rd, bool gaps, uint32_t lacks, uint64_t line,
                              uint64_t col);

/* A time of a tool's file, as the number at the cursor in `unit`
 * (read/decimal.h), that must not be negative. */
LLMLAT_PRIVATE bool import_duration_ns(llmlat_reader *rd, const char *what, int unit,
                                       int64_t *out);

/* Whether a streamed response's text (an SSE message, "data: {...}") has
 * content: a non-empty "content" or "text" string, as the tools that drop
 * empty responses judge it (read/sse.c). */
LLMLAT_PRIVATE bool sse_has_content(const char *text, size_t n);

#endif
