/* The recorder's layout, shared with the code that reads a finished
 * request (conventions, aggregator). */
#ifndef LLMLAT_REQUEST_H
#define LLMLAT_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

#define REQ_NONE SIZE_MAX /* "no such event" index */

enum req_state { REQ_NEW, REQ_STARTED, REQ_FINISHED, REQ_FAILED };

struct llmlat_request {
    llmlat_alloc al;
    enum req_state state;
    int64_t start_ns;
    int64_t end_ns;           /* finish or fail time, once ended */
    /* Events, in arrival order; the buffers survive reset. */
    int64_t *t;
    uint32_t *k;
    size_t n, cap;
    /* Kept as events arrive so that every convention's anchors are O(1). */
    uint64_t sum_k;
    size_t n_tok;             /* events with k >= 1 */
    size_t first_tok;         /* index of the first event with k >= 1 */
    size_t last_tok;          /* index of the last event with k >= 1 */
    uint64_t input_tokens;
    uint64_t output_tokens;   /* the usage count, when has_output_tokens */
    bool has_output_tokens;
};

/* N: the usage count when set, else the sum of k. */
static inline uint64_t req_output_tokens(const llmlat_request *r)
{
    return r->has_output_tokens ? r->output_tokens : r->sum_k;
}

/* true when the request ended (finished or failed). */
static inline bool req_ended(const llmlat_request *r)
{
    return r->state == REQ_FINISHED || r->state == REQ_FAILED;
}

#endif
