/* Exact mode's log of the requests themselves: for each request added,
 * what it takes to rebuild it (start, intended start, end, how it ended,
 * token counts and every event), in the order they were added. It is what works per request
 * rests on: windows and slices (llmlat_agg_add_window), the bootstrap of
 * llmlat_compare_new, the per-request tables and the Chrome trace. A logged
 * request is read back as a read-only recorder (request_log_view), so the
 * conventions and the gap rule read it as they read a live one. */
#ifndef LLMLAT_REQUEST_LOG_H
#define LLMLAT_REQUEST_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "record/request.h"

#define LOGGED_FAILED 1u      /* ended by llmlat_request_fail */
#define LOGGED_HAS_USAGE 2u   /* output_tokens is the server's usage count */
#define LOGGED_CANCELLED 4u   /* ended by llmlat_request_cancel */
#define LOGGED_SCHEDULED 8u   /* scheduled_ns is its intended start */

typedef struct logged_request {
    int64_t start_ns, end_ns;
    int64_t scheduled_ns;     /* when LOGGED_SCHEDULED, else 0 */
    uint64_t input_tokens;
    uint64_t output_tokens;   /* the usage count, when LOGGED_HAS_USAGE */
    size_t first_event;       /* index of its first event in the log */
    uint32_t n_events;        /* a recorder holds at most 2^32 - 1 */
    uint32_t flags;
    uint32_t lacks;           /* what its data lack (LLMLAT_LACKS_*, never CHUNKS) */
} logged_request;

typedef struct request_log {
    logged_request *req;
    size_t n_req, cap_req;
    int64_t *t;               /* the events of every request, in order */
    uint32_t *k;
    size_t n_ev, cap_ev;
} request_log;

LLMLAT_PRIVATE void request_log_init(request_log *g);
LLMLAT_PRIVATE void request_log_free(request_log *g, const llmlat_alloc *al);
LLMLAT_PRIVATE void request_log_clear(request_log *g);

/* Room for `requests` more requests and `events` more events; unchanged
 * (but for capacity) on failure. */
LLMLAT_PRIVATE int32_t request_log_reserve(request_log *g, const llmlat_alloc *al,
                                           size_t requests, size_t events);
/* Appends an ended request into reserved room (never fails). One known by
 * its values only (LLMLAT_LACKS_CHUNKS) is not logged: its events could
 * not make it again. */
LLMLAT_PRIVATE void request_log_push(request_log *g, const llmlat_request *r);
/* Appends src's requests into room reserved for them. */
LLMLAT_PRIVATE void request_log_append(request_log *dst, const request_log *src);

/* Request i as a read-only recorder: its arrays point into the log, its
 * summary is computed, it is ended. Valid until the log changes. */
LLMLAT_PRIVATE void request_log_view(const request_log *g, size_t i, llmlat_request *out);

LLMLAT_PRIVATE size_t request_log_memory(const request_log *g);

#endif
