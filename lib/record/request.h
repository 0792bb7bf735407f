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

/* A request ends finished (the stream closed normally), failed, or
 * cancelled (a failure that GuideLLM tells apart). */
enum req_state { REQ_NEW, REQ_STARTED, REQ_FINISHED, REQ_FAILED, REQ_CANCELLED };

/* What the events add up to. Computed in one pass when the request ends
 * (or on demand while it is in flight), so that recording an event only
 * stores it. */
typedef struct req_summary {
    uint64_t sum_k;
    size_t n_tok;       /* events with k >= 1 */
    size_t first_tok;   /* index of the first event with k >= 1, or REQ_NONE */
    size_t last_tok;    /* index of the last event with k >= 1, or REQ_NONE */
    int64_t t_first_tok, t_last_tok; /* their times, when they exist */
} req_summary;

/* A recorder that keeps no events (a streaming recorder, agg/stream.c)
 * holds its latest ones in a small fixed block, t[0 .. n - t_base) with
 * room for cap, and folds them, in a batch, into a state of its own
 * through these functions, set when it is made: when the block is full,
 * and before a batch of events. The record layer checks every event
 * (state, order, limits) and stores it in the block as a buffered
 * recorder does; it keeps n, last_t and t_first. The folder keeps the
 * summary of the folded events, and counts the held ones wherever it
 * reads them, so that a recorder in flight reads as it would folded. */
struct gap_summary;
struct conv_rules;
typedef struct req_folder {
    /* Fold the held events (numbered t_base ..), or n events past them
     * (the held ones folded first, numbered from r->n): all or nothing,
     * ENOMEM leaves r unchanged; n, t_base and last_t are still those
     * before them. */
    int32_t (*flush)(llmlat_request *r);
    int32_t (*events)(llmlat_request *r, const int64_t *t_ns, const uint32_t *k, size_t n);
    void (*clear)(llmlat_request *r);  /* back to new (reset) */
    void (*free)(llmlat_request *r);
    /* The gap rule's results under c (gap_summarize, gap_any_zero), the
     * held events included; false when c's gap rule is not the one r
     * folds by. */
    bool (*gaps)(const llmlat_request *r, const struct conv_rules *c, struct gap_summary *g,
                 bool *any_zero);
} req_folder;

struct llmlat_request {
    /* The per-event path reads and writes only these. */
    int64_t *t;
    uint32_t *k;
    size_t n;         /* events recorded */
    size_t t_base;    /* of them, those before t[0]: a streaming
                         recorder's folded ones (0 for a buffered one) */
    size_t room;      /* while started, the events n may reach before the
                         slow path (t_base + cap), 0 otherwise: one
                         compare checks both the state and the space */
    int64_t last_t;   /* the earliest time the next event may carry */
    int64_t max_t;    /* start + INT64_MAX, saturated: every latency fits */

    /* A streaming recorder's folder and state. */
    const req_folder *folder;
    void *fold_state;
    int64_t t_first;  /* time of its first event, once it is folded */

    size_t cap;
    llmlat_alloc al;
    enum req_state state;
    int64_t start_ns;
    int64_t end_ns;   /* finish, fail or cancel time, once ended */
    bool has_scheduled;
    int64_t scheduled_ns; /* the intended start, <= start_ns once started */
    req_summary sum;  /* valid once ended */
    uint64_t input_tokens;
    uint64_t output_tokens; /* the usage count, when has_output_tokens */
    bool has_output_tokens;

    /* What the data lacks (LLMLAT_LACKS_*), and the per-request values of
     * a request without chunk times (LLMLAT_LACKS_CHUNKS), measured by the
     * tool of known_conv (llmlat_request_set_known). */
    uint32_t lacks;
    int32_t known_conv;
    bool has_known_ttft, has_known_e2e, has_known_tool_itl, has_known_tps;
    int64_t known_ttft_ns, known_e2e_ns;
    double known_tool_itl_s, known_tps;
};

/* true when the request has per-request values only, no events. */
static inline bool req_values_only(const llmlat_request *r)
{
    return (r->lacks & LLMLAT_LACKS_CHUNKS) != 0;
}

/* true when the request ended (finished, failed or cancelled). */
static inline bool req_ended(const llmlat_request *r)
{
    return r->state >= REQ_FINISHED;
}

/* The time of r's first event (r->n > 0): stored while it is held, kept
 * once a streaming recorder folded it. */
static inline int64_t req_first_time(const llmlat_request *r)
{
    return r->t_base ? r->t_first : r->t[0];
}

/* Events a streaming recorder holds, not yet folded: t[0 .. n). */
static inline size_t req_held(const llmlat_request *r)
{
    return r->n - r->t_base;
}

/* Event i (time t, k tokens) into a summary of the events before it:
 * what a streaming recorder's folder and its readers add one by one. */
static inline void req_summary_take(req_summary *s, size_t i, int64_t t, uint32_t k)
{
    if (!k)
        return;
    if (s->first_tok == REQ_NONE) {
        s->first_tok = i;
        s->t_first_tok = t;
    }
    s->last_tok = i;
    s->t_last_tok = t;
    s->n_tok++;
    s->sum_k += k;
}

/* The summary of r's events, computed. */
LLMLAT_PRIVATE void req_summarize(const llmlat_request *r, req_summary *s);
/* The summary of r's events: the stored one once ended, else computed into
 * *scratch. */
LLMLAT_PRIVATE const req_summary *req_summary_of(const llmlat_request *r, req_summary *scratch);

/* An ended request that is a view of caller arrays, for folding requests
 * that no recorder holds (llmlat_agg_add_columns, the reader): the arrays
 * are not copied, and the view is never written. */
typedef struct req_spec {
    int64_t start;
    const int64_t *t;
    const uint32_t *k;
    size_t n;
    bool has_scheduled;  /* the intended start, at or before start */
    int64_t scheduled;
    bool has_end;        /* else it ends at its last event (or start) */
    int64_t end;
    bool failed;
    bool cancelled;      /* by the client: a failure of its own kind */
    uint64_t input_tokens;
    bool has_output_tokens;
    uint64_t output_tokens;
    uint32_t lacks;      /* LLMLAT_LACKS_*, without CHUNKS */
    bool checked;        /* the times passed the checks already: skip them */
} req_spec;

/* r as that view, once its times pass the recorder's checks: EORDER (a
 * time before the start or the previous event, an end before the last
 * event, an intended start after the start), EOVERFLOW (more than
 * REQ_MAX_EVENTS events, a span past int64). */
LLMLAT_PRIVATE int32_t req_make_view(llmlat_request *r, const req_spec *s);

/* The latest time a request that starts, or is meant to start, at t0
 * may carry: every span from t0 fits int64. */
static inline int64_t req_max_time(int64_t t0)
{
    return t0 <= 0 ? t0 + INT64_MAX : INT64_MAX;
}

/* N: the usage count when set, else the sum of k. */
static inline uint64_t req_output_tokens(const llmlat_request *r, const req_summary *s)
{
    return r->has_output_tokens ? r->output_tokens : s->sum_k;
}

#endif
