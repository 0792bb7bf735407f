/* What exact mode keeps besides samples: per-success records (for goodput
 * under any SLO set later, and the concurrency sweep) and the token events
 * of successes (for peak output tokens/s, whose 1-second buckets start at
 * the earliest successful start, known only at the end). */
#ifndef LLMLAT_TIMELINE_H
#define LLMLAT_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"

/* One success: its interval and the values SLOs are checked against
 * (NaN = missing). */
typedef struct success_record {
    int64_t start_ns;
    int64_t e2e_ns;    /* < 0: no E2E, not part of the concurrency sweep */
    double ttft_s, tpot_s, e2e_s;
} success_record;

/* The end of a record with an E2E: start + E2E, saturated at INT64_MAX
 * (near the limits it can pass it; the order of ends is what a sweep
 * needs). */
static inline int64_t success_end(const success_record *r)
{
    return r->start_ns > INT64_MAX - r->e2e_ns ? INT64_MAX : r->start_ns + r->e2e_ns;
}

/* t - origin for t >= origin, as the unsigned span it always fits. */
static inline uint64_t span_from(int64_t origin, int64_t t)
{
    return (uint64_t)t - (uint64_t)origin;
}

typedef struct timeline {
    success_record *rec;
    size_t n_rec, cap_rec;
    int64_t *tok_t;      /* event times of successes ... */
    uint32_t *tok_k;     /* ... and what each counts (tokens or 1 chunk) */
    size_t n_tok, cap_tok;
} timeline;

LLMLAT_PRIVATE void timeline_init(timeline *tl);
LLMLAT_PRIVATE void timeline_free(timeline *tl, const llmlat_alloc *al);
LLMLAT_PRIVATE void timeline_clear(timeline *tl);
/* Room for `records` more records and `events` more token events;
 * unchanged (but for capacity) on failure. */
LLMLAT_PRIVATE int32_t timeline_reserve(timeline *tl, const llmlat_alloc *al, size_t records,
                                        size_t events);
static inline void timeline_push_record(timeline *tl, const success_record *r)
{
    tl->rec[tl->n_rec++] = *r;
}
static inline void timeline_push_event(timeline *tl, int64_t t, uint32_t count)
{
    tl->tok_t[tl->n_tok] = t;
    tl->tok_k[tl->n_tok++] = count;
}
/* Appends src into room made by timeline_reserve. */
LLMLAT_PRIVATE void timeline_append(timeline *dst, const timeline *src);

/* Largest number of records whose [start, start + E2E) overlap; departures
 * before arrivals at equal times. */
LLMLAT_PRIVATE int32_t timeline_peak_concurrency(const timeline *tl, const llmlat_alloc *al,
                                                 uint64_t *out);
/* Largest sum of counts in one 1-second bucket [origin + i s, origin +
 * (i+1) s), origin = earliest record start. false when there is no record. */
LLMLAT_PRIVATE int32_t timeline_peak_per_second(const timeline *tl, const llmlat_alloc *al,
                                                uint64_t *out, bool *defined);

LLMLAT_PRIVATE size_t timeline_memory(const timeline *tl);

#endif
