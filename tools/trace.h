/* The trace file of docs/cli.md, read as a stream: a JSON array of
 * requests, an object {"requests": [...], "duration": s}, or JSON Lines
 * with one request object per line. Each request is handed to a callback
 * as soon as it is read, so memory does not grow with the trace. */
#ifndef LLMLAT_TRACE_H
#define LLMLAT_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json_reader.h"

#define TRACE_ID_MAX 64

/* One request as written in the trace (times in ns, not yet checked for
 * order: that is the caller's rejection rule). */
typedef struct trace_request {
    uint64_t index;            /* 1-based position in the trace */
    uint64_t line, col;        /* where its '{' is */
    char id[TRACE_ID_MAX];     /* its "id" (string or number), "" if none */
    int64_t start;
    int64_t *t;
    uint32_t *k;
    size_t n, cap;
    bool has_end;
    int64_t end;
    bool ok;
    bool cancelled;            /* "cancelled": true: ended by the client */
    uint64_t input_tokens;
    bool has_output_tokens;
    uint64_t output_tokens;
} trace_request;

/* Called for each request in order; returning false stops the reading
 * (trace_read then returns false with no reader error). */
typedef bool (*trace_request_fn)(void *user, const trace_request *req);

typedef struct trace_info {
    uint64_t requests;       /* requests read */
    bool has_duration;       /* the object form's "duration", when not null */
    double duration_s;
    bool out_of_memory;      /* the reading failed for want of memory */
} trace_info;

/* Reads the whole trace. false on a malformed trace (r->error says where
 * and what), on no memory (r->error too), or when fn stopped. */
bool trace_read(json_reader *r, trace_request_fn fn, void *user, trace_info *info);

#endif
