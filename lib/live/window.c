/* Sliding windows: a ring of bounded aggregators, one per step of the
 * host's clock, and their union kept up to date beside them (docs/threads.md
 * has the semantics). A request goes to the slot of the step its end time
 * falls in, and to the union; when the clock enters a new step, the slots
 * that left the window are emptied and the union is rebuilt from the
 * others (n - 1 merges, once per step). So a query reads one aggregator,
 * exact min and max included, and nothing here reads a clock. */
#include <string.h>

#include "agg/agg.h"

struct llmlat_window {
    llmlat_alloc al;
    int64_t step;       /* ns */
    int64_t n;          /* slots: width / step */
    llmlat_agg **slot;  /* slot[e mod n]: what ended in step e (times [e step, (e + 1) step)) */
    llmlat_agg *total;  /* the union of the slots: the view */
    bool started;       /* a time was given since creation or reset */
    int64_t epoch;      /* the step of clock */
    int64_t clock;      /* the latest time given */
    int64_t first;      /* the earliest time accepted */
};

static int64_t window_floor_div(int64_t t, int64_t step)
{
    int64_t e = t / step;
    return t % step < 0 ? e - 1 : e;
}

static llmlat_agg *window_slot_of(const llmlat_window *w, int64_t epoch)
{
    int64_t i = epoch % w->n;
    return w->slot[i < 0 ? i + w->n : i];
}

/* The start of the oldest step in the window: the clock's step start,
 * n - 1 steps back; INT64_MIN when that is earlier. */
static int64_t window_lo(const llmlat_window *w)
{
    int64_t into = w->clock % w->step;
    if (into < 0)
        into += w->step;
    int64_t back = into + (w->n - 1) * w->step; /* < width: fits */
    return w->clock < INT64_MIN + back ? INT64_MIN : w->clock - back;
}

static bool window_agg_empty(const llmlat_agg *a)
{
    return a->completed == 0 && a->failed == 0;
}

LLMLAT_API void llmlat_window_free(llmlat_window *w)
{
    if (!w)
        return;
    if (w->slot)
        for (int64_t i = 0; i < w->n; i++)
            llmlat_agg_free(w->slot[i]);
    alloc_free(&w->al, w->slot);
    llmlat_agg_free(w->total);
    alloc_free(&w->al, w);
}

static void window_set_status(int32_t *status, int32_t st)
{
    if (status)
        *status = st;
}

LLMLAT_API llmlat_window *llmlat_window_new(const llmlat_agg *like, int64_t width_ns,
                                            int64_t step_ns, int32_t *status)
{
    if (!like || like->mode != LLMLAT_MODE_BOUNDED || step_ns <= 0 || width_ns <= 0 ||
        width_ns % step_ns != 0 || width_ns / step_ns > LLMLAT_WINDOW_MAX_SLOTS) {
        window_set_status(status, LLMLAT_EINVAL);
        return NULL;
    }
    llmlat_alloc al = alloc_current();
    llmlat_window *w = alloc_malloc(&al, sizeof *w);
    if (!w) {
        window_set_status(status, LLMLAT_ENOMEM);
        return NULL;
    }
    memset(w, 0, sizeof *w);
    w->al = al;
    w->step = step_ns;
    w->n = width_ns / step_ns;
    w->slot = alloc_malloc(&al, (size_t)w->n * sizeof *w->slot);
    bool ok = w->slot && (w->total = llmlat_agg_new_like(like)) != NULL;
    if (w->slot) {
        for (int64_t i = 0; i < w->n; i++)
            w->slot[i] = ok ? llmlat_agg_new_like(like) : NULL;
        for (int64_t i = 0; i < w->n; i++)
            ok = ok && w->slot[i];
    }
    if (!ok) {
        llmlat_window_free(w);
        window_set_status(status, LLMLAT_ENOMEM);
        return NULL;
    }
    window_set_status(status, LLMLAT_OK);
    return w;
}

LLMLAT_API int32_t llmlat_window_reset(llmlat_window *w)
{
    if (!w)
        return LLMLAT_EINVAL;
    for (int64_t i = 0; i < w->n; i++)
        llmlat_agg_reset(w->slot[i]);
    llmlat_agg_reset(w->total);
    llmlat_agg_set_param(w->total, LLMLAT_PARAM_DURATION, 0.0);
    w->started = false;
    return LLMLAT_OK;
}

/* OK when requests that ended at t can be counted: t is not before the
 * window's oldest step. */
static int32_t window_check_time(const llmlat_window *w, int64_t t)
{
    if (!w->started || t >= w->clock || t >= window_lo(w))
        return LLMLAT_OK;
    return LLMLAT_EORDER;
}

/* The clock enters step e > epoch: the steps that leave are emptied and the
 * union is rebuilt from the rest (nothing to rebuild if they were empty). */
static void window_rotate(llmlat_window *w, int64_t e)
{
    uint64_t d = (uint64_t)e - (uint64_t)w->epoch; /* the true difference */
    uint64_t leaving = d < (uint64_t)w->n ? d : (uint64_t)w->n;
    bool dropped = false;
    for (uint64_t j = 1; j <= leaving; j++) {
        llmlat_agg *s = window_slot_of(w, (int64_t)((uint64_t)w->epoch + j));
        if (!window_agg_empty(s)) {
            llmlat_agg_reset(s);
            dropped = true;
        }
    }
    w->epoch = e;
    if (!dropped)
        return;
    llmlat_agg_reset(w->total);
    for (int64_t i = 0; i < w->n; i++)
        if (!window_agg_empty(w->slot[i]))
            (void)llmlat_agg_merge(w->total, w->slot[i]); /* fitted before: fits */
}

/* Takes time t (checked): rotates forward when t is past the clock, and
 * sets the view's duration to the span the window covers. */
static void window_take_time(llmlat_window *w, int64_t t)
{
    if (!w->started) {
        w->started = true;
        w->epoch = window_floor_div(t, w->step);
        w->clock = w->first = t;
    } else if (t > w->clock) {
        int64_t e = window_floor_div(t, w->step);
        if (e > w->epoch)
            window_rotate(w, e);
        w->clock = t;
    }
    if (t < w->first)
        w->first = t;
    int64_t lo = window_lo(w), from = w->first > lo ? w->first : lo;
    /* 0 until time has passed: the view then derives its duration from
     * its requests, as any aggregator does */
    double d = (double)((uint64_t)w->clock - (uint64_t)from) / 1e9;
    (void)llmlat_agg_set_param(w->total, LLMLAT_PARAM_DURATION, d);
}

LLMLAT_API int32_t llmlat_window_add(llmlat_window *w, const llmlat_request *r)
{
    if (!w || !r)
        return LLMLAT_EINVAL;
    /* the union holds the most: what fits it fits every slot */
    int32_t st = agg_can_add(w->total, r);
    if (st == LLMLAT_OK)
        st = window_check_time(w, r->end_ns);
    if (st != LLMLAT_OK)
        return st;
    window_take_time(w, r->end_ns);
    (void)llmlat_agg_add(w->total, r);
    (void)llmlat_agg_add(window_slot_of(w, window_floor_div(r->end_ns, w->step)), r);
    return LLMLAT_OK;
}

static bool window_owns(const llmlat_window *w, const llmlat_agg *a)
{
    if (a == w->total)
        return true;
    for (int64_t i = 0; i < w->n; i++)
        if (a == w->slot[i])
            return true;
    return false;
}

LLMLAT_API int32_t llmlat_window_merge(llmlat_window *w, const llmlat_agg *src, int64_t t_ns)
{
    if (!w || !src || window_owns(w, src))
        return LLMLAT_EINVAL;
    int32_t st = agg_can_merge(w->total, src);
    if (st == LLMLAT_OK)
        st = window_check_time(w, t_ns);
    if (st != LLMLAT_OK)
        return st;
    window_take_time(w, t_ns);
    (void)llmlat_agg_merge(w->total, src);
    (void)llmlat_agg_merge(window_slot_of(w, window_floor_div(t_ns, w->step)), src);
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_window_advance(llmlat_window *w, int64_t now_ns)
{
    if (!w)
        return LLMLAT_EINVAL;
    if (w->started && now_ns < w->clock)
        return LLMLAT_EORDER;
    window_take_time(w, now_ns);
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_window_view(const llmlat_window *w, const llmlat_agg **out)
{
    if (!w || !out)
        return LLMLAT_EINVAL;
    *out = w->total;
    return LLMLAT_OK;
}
