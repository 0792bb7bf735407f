/* The gap rule, written once: which events make gaps, and what each gap
 * is. Every walk over a request's gaps uses it: llmlat_request_value's
 * per-request summary, the AIPerf zero-gap check, the exact fold and the
 * bounded fold (docs/architecture.md).
 *
 * The events that count under a convention are every event when it
 * counts empty chunks (vLLM), else those with k >= 1. The first of them
 * is the anchor (TTFT's event); each later one closes one gap g = its
 * time - the previous counting event's, which is
 *   - one ICL sample g (ITL_MAX is the largest g), and,
 *   - when it carries k >= 1 tokens, k ITL samples of g / k (the even
 *     split of section 2 of DESIGN.md: they sum to g).
 * The anchor's own k0 - 1 tokens beyond the first are ITL samples of 0
 * (they arrived with the first token, after no gap).
 *
 * gap_step is the rule for one event at a time (a recorder that keeps no
 * events can use it as they come); gap_walk runs it over a recorded
 * request's arrays, one gap at a time (gap_walk_next) or in blocks
 * (gap_walk_block, for the bounded fold's hot loop). */
#ifndef LLMLAT_GAPS_H
#define LLMLAT_GAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/convention.h"

/* The rule for one event at a time. */
typedef struct gap_step {
    bool every;      /* empty events count (the convention's knob) */
    bool anchored;   /* the anchor was seen */
    int64_t prev;    /* time of the previous counting event */
} gap_step;

static inline gap_step gap_step_begin(const conv_rules *c)
{
    return (gap_step){ c->empty_events_count, false, 0 };
}

/* Event (t, k): true when it closes a gap (*gap set); false when it does
 * not count, or is the anchor. */
static inline bool gap_step_event(gap_step *s, int64_t t, uint32_t k, int64_t *gap)
{
    if (!k && !s->every)
        return false;
    if (!s->anchored) {
        s->anchored = true;
        s->prev = t;
        return false;
    }
    *gap = t - s->prev;
    s->prev = t;
    return true;
}

/* The gaps of a recorded request, from the event after its anchor to its
 * last counting event (req_view's anchor and last: conv_view applies the
 * same rule to find them). */
typedef struct gap_walk {
    const int64_t *t;
    const uint32_t *k;
    size_t i;        /* the next event to look at */
    size_t last;     /* the last counting event */
    bool dense;      /* every event from i to last counts */
    gap_step step;
} gap_walk;

/* false when the request has no counting event (no anchor: no gap, no
 * ITL sample). Otherwise *anchor_k is the anchor's k. */
static inline bool gap_walk_begin(gap_walk *w, const conv_rules *c, const llmlat_request *r,
                                  const req_view *v, uint32_t *anchor_k)
{
    if (v->anchor == REQ_NONE)
        return false;
    w->t = r->t;
    w->k = r->k;
    w->i = v->anchor + 1;
    w->last = v->last;
    w->step = gap_step_begin(c);
    w->step.anchored = true;
    w->step.prev = r->t[v->anchor];
    w->dense = c->empty_events_count;
    *anchor_k = r->k[v->anchor];
    return true;
}

/* The same for an ended request, whose summary counts its token-bearing
 * events: with no empty event, every event counts under any convention. */
static inline bool gap_walk_begin_ended(gap_walk *w, const conv_rules *c,
                                        const llmlat_request *r, const req_view *v,
                                        uint32_t *anchor_k)
{
    if (!gap_walk_begin(w, c, r, v, anchor_k))
        return false;
    w->dense = w->dense || r->sum.n_tok == r->n;
    return true;
}

/* The next gap and the k of the event that closes it; false when done. */
static inline bool gap_walk_next(gap_walk *w, int64_t *gap, uint32_t *k)
{
    while (w->i <= w->last) {
        size_t i = w->i++;
        if (gap_step_event(&w->step, w->t[i], w->k[i], gap)) {
            *k = w->k[i];
            return true;
        }
    }
    return false;
}

/* Up to GAP_BLOCK gaps of the walk at once, in order, as the times of
 * the counting events: gap j runs from at[j] to at[j + 1] (at[0] the
 * previous counting event), closed by an event of k[j] tokens. When every
 * event counts, at and k point into the request (nothing is copied),
 * else into times and ks. */
#define GAP_BLOCK 128

typedef struct gap_block {
    size_t n;
    const int64_t *at;
    const uint32_t *k;
    int64_t times[GAP_BLOCK + 1];
    uint32_t ks[GAP_BLOCK];
} gap_block;

static inline int64_t gap_block_gap(const gap_block *b, size_t j)
{
    return b->at[j + 1] - b->at[j];
}

/* The next block; false when the walk is done. */
static inline bool gap_walk_block(gap_walk *w, gap_block *b)
{
    if (w->dense) { /* the previous counting event is the previous event */
        if (w->i > w->last)
            return false;
        size_t n = w->last - w->i + 1 < GAP_BLOCK ? w->last - w->i + 1 : GAP_BLOCK;
        b->at = w->t + w->i - 1;
        b->k = w->k + w->i;
        b->n = n;
        w->i += n;
        w->step.prev = w->t[w->i - 1];
        return true;
    }
    size_t n = 0;
    int64_t gap;
    b->times[0] = w->step.prev;
    while (n < GAP_BLOCK && gap_walk_next(w, &gap, &b->ks[n]))
        b->times[++n] = w->step.prev;
    b->at = b->times;
    b->k = b->ks;
    b->n = n;
    return n > 0;
}

/* The per-request summary of its gaps (what llmlat_request_value needs). */
typedef struct gap_summary {
    uint64_t n_gaps;       /* ICL samples */
    int64_t gap_sum_ns;    /* sum of ICL gaps = last - anchor */
    int64_t gap_max_ns;    /* ITL_MAX */
    uint64_t itl_weight;   /* ITL samples: tokens after the first */
    int64_t itl_sum_ns;    /* sum of gaps closed by token-bearing events */
} gap_summary;

LLMLAT_PRIVATE void gap_summarize(const conv_rules *c, const llmlat_request *r,
                                                 const req_view *v, gap_summary *g);

/* AIPerf (zero_is_missing): true when some gap is exactly 0, which drops
 * every ICL sample of the request. */
LLMLAT_PRIVATE bool gap_any_zero(const conv_rules *c, const llmlat_request *r,
                                                const req_view *v);

#endif
