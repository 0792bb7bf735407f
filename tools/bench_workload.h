/* What each request of a run asks for, and the HTTP request that asks it:
 * generated prompts (token ids on /v1/completions, words on chat) of
 * --input-len tokens and --output-len max_tokens, drawn from the request's
 * own random stream (so request i is the same whatever thread sends it);
 * or a --dataset's lines in turn; or a --replay trace's requests, at their
 * recorded start offsets with their recorded lengths (read through the
 * library's reader). All of it is read and checked before anything is
 * sent. */
#ifndef LLMLAT_BENCH_WORKLOAD_H
#define LLMLAT_BENCH_WORKLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include "bench_buf.h"
#include "bench_options.h"

#define WORKLOAD_MAX_EXTRA 64

typedef struct dataset_line {
    char *value;        /* the raw JSON of "prompt" or "messages" */
    bool messages;
    bool text;          /* "prompt" is a string (else an array of ids) */
    uint32_t ids;       /* the ids of such an array */
    uint32_t max_tokens; /* 0: --output-len */
} dataset_line;

typedef struct replay_entry {
    int64_t offset_ns;  /* from the trace's first (intended) start */
    uint32_t input_tokens, output_tokens;
} replay_entry;

typedef struct workload {
    const bench_options *o;
    dataset_line *lines;
    size_t n_lines;
    replay_entry *replay;
    size_t n_replay;
    /* --extra-body's members: key (NUL-terminated) and raw value */
    char extra_keys[WORKLOAD_MAX_EXTRA][64];
    const char *extra_value[WORKLOAD_MAX_EXTRA];
    size_t extra_len[WORKLOAD_MAX_EXTRA];
    size_t n_extra;
    const char *model;  /* the body's "model"; NULL: none */
} workload;

/* What request i asks for. */
typedef struct work_item {
    uint32_t input_len;  /* the prompt's tokens (a dataset's text: 0, unknown) */
    uint32_t max_tokens;
    int64_t offset_ns;   /* replay: its recorded start offset */
} work_item;

/* Reads the dataset or the replay trace and --extra-body. Returns the exit
 * status: 0, or 2 with one line on stderr (a file that does not read, or
 * that holds something bench cannot send). */
int workload_load(workload *w, const bench_options *o);
void workload_free(workload *w);

/* The requests of one run: --requests, at most the trace's; a dataset
 * without --requests gives its number of lines; --duration alone gives
 * UINT64_MAX (the clock stops the run). */
uint64_t workload_count(const workload *w);

void workload_item(const workload *w, uint64_t i, work_item *out);

/* The HTTP request of request i (head and body) into b, its X-Request-Id
 * `id`. */
void workload_request(const workload *w, uint64_t i, const work_item *it, const char *id,
                      bench_buf *b);

#endif
