/* The recorder's layout, shared with the code that reads a finished
 * request (conventions, aggregator). */
#ifndef LLMLAT_REQUEST_H
#define LLMLAT_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"

#define REQ_NONE SIZE_MAX /* "no such event" index */
/* At most 2^32 - 1 events per request: then the sum of their uint32 token
 * counts always fits uint64, and no per-event overflow check is needed. */
#define REQ_MAX_EVENTS ((size_t)UINT32_MAX)

enum req_state { REQ_NEW, REQ_STARTED, REQ_FINISHED, REQ_FAILED };

/* What the events add up to. Computed in one pass when the request ends
 * (or on demand while it is in flight), so that recording an event only
 * stores it. */
typedef struct req_summary {
    uint64_t sum_k;
    size_t n_tok;     /* events with k >= 1 */
    size_t first_tok; /* index of the first event with k >= 1, or REQ_NONE */
    size_t last_tok;  /* index of the last event with k >= 1, or REQ_NONE */
} req_summary;

struct llmlat_request {
    /* The per-event path reads and writes only these. */
    int64_t *t;
    uint32_t *k;
    size_t n;
    size_t room;      /* capacity while started, 0 otherwise: one compare
                         checks both the state and the space */
    int64_t last_t;   /* the earliest time the next event may carry */
    int64_t max_t;    /* start + INT64_MAX, saturated: every latency fits */

    size_t cap;
    llmlat_alloc al;
    enum req_state state;
    int64_t start_ns;
    int64_t end_ns;   /* finish or fail time, once ended */
    req_summary sum;  /* valid once ended */
    uint64_t input_tokens;
    uint64_t output_tokens; /* the usage count, when has_output_tokens */
    bool has_output_tokens;
};

/* true when the request ended (finished or failed). */
static inline bool req_ended(const llmlat_request *r)
{
    return r->state == REQ_FINISHED || r->state == REQ_FAILED;
}

/* The summary of r's events, computed. */
LLMLAT_PRIVATE void req_summarize(const llmlat_request *r, req_summary *s);
/* The summary of r's events: the stored one once ended, else computed into
 * *scratch. */
LLMLAT_PRIVATE const req_summary *req_summary_of(const llmlat_request *r, req_summary *scratch);

/* N: the usage count when set, else the sum of k. */
static inline uint64_t req_output_tokens(const llmlat_request *r, const req_summary *s)
{
    return r->has_output_tokens ? r->output_tokens : s->sum_k;
}

#endif
