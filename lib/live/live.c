/* The live recorder: writers add finished requests without locks while a
 * reader takes snapshots (docs/threads.md). Each writer has a slot of two
 * aggregators and a phaser (phaser.h): it adds into the buffer of the
 * current phase; the reader flips the phase, which hands it the other
 * buffer once the writer's add in progress (if any) is done, and folds
 * that buffer into what it has gathered. Slots are never freed before the
 * recorder: a released slot is taken again by the next new writer, its
 * data still in it, so nothing a writer added is ever dropped. */
#include <stdbool.h>
#include <string.h>

#include "agg/agg.h"
#include "live/phaser.h"

/* The writer's hot fields (phaser, buffers) sit in cache lines of their
 * own: writers of other slots never share them. */
#define LIVE_LINE 64

struct llmlat_live_writer {
    char pad_before[LIVE_LINE];
    phaser ph;
    llmlat_agg *buf[2];  /* buf[p]: the buffer of phase p */
    char pad_after[LIVE_LINE];
    struct llmlat_live_writer *next; /* set before the slot is published */
    atomic_flag taken;               /* a writer handle holds it */
    int flipped;                     /* the reader's: the phase it closed, */
    int64_t begun;                   /* and what phaser_flip_wait needs */
};

typedef struct llmlat_live_writer live_slot;

struct llmlat_live {
    llmlat_alloc al;
    llmlat_agg *like;     /* the settings of every aggregator (no data) */
    _Atomic(live_slot *) slots; /* a list that only grows */
    atomic_flag reading;  /* a snapshot is in progress */
    /* The reader's: what was gathered from the slots since the last
     * interval snapshot, and everything before it. */
    llmlat_agg *gathered, *total;
};

LLMLAT_API llmlat_live *llmlat_live_new(const llmlat_agg *like)
{
    if (!like)
        return NULL;
    llmlat_alloc al = alloc_current();
    llmlat_live *l = alloc_malloc(&al, sizeof *l);
    if (!l)
        return NULL;
    l->al = al;
    l->like = llmlat_agg_new_like(like);
    l->gathered = llmlat_agg_new_like(like);
    l->total = llmlat_agg_new_like(like);
    atomic_init(&l->slots, NULL);
    atomic_flag_clear(&l->reading);
    if (!l->like || !l->gathered || !l->total) {
        llmlat_live_free(l);
        return NULL;
    }
    return l;
}

static void live_slot_free(const llmlat_alloc *al, live_slot *s)
{
    llmlat_agg_free(s->buf[0]);
    llmlat_agg_free(s->buf[1]);
    alloc_free(al, s);
}

LLMLAT_API void llmlat_live_free(llmlat_live *l)
{
    if (!l)
        return;
    live_slot *s = atomic_load_explicit(&l->slots, memory_order_acquire);
    while (s) {
        live_slot *next = s->next;
        live_slot_free(&l->al, s);
        s = next;
    }
    llmlat_agg_free(l->like);
    llmlat_agg_free(l->gathered);
    llmlat_agg_free(l->total);
    alloc_free(&l->al, l);
}

/* A new slot, already taken, or NULL. */
static live_slot *live_slot_new(llmlat_live *l)
{
    live_slot *s = alloc_malloc(&l->al, sizeof *s);
    if (!s)
        return NULL;
    memset(s, 0, sizeof *s);
    phaser_init(&s->ph);
    atomic_flag_clear(&s->taken);
    atomic_flag_test_and_set(&s->taken);
    s->buf[0] = llmlat_agg_new_like(l->like);
    s->buf[1] = llmlat_agg_new_like(l->like);
    if (!s->buf[0] || !s->buf[1]) {
        live_slot_free(&l->al, s);
        return NULL;
    }
    return s;
}

LLMLAT_API llmlat_live_writer *llmlat_live_writer_new(llmlat_live *l)
{
    if (!l)
        return NULL;
    live_slot *head = atomic_load_explicit(&l->slots, memory_order_acquire);
    for (live_slot *s = head; s; s = s->next)
        if (!atomic_flag_test_and_set_explicit(&s->taken, memory_order_acquire))
            return s; /* a released slot, with whatever it still holds */
    live_slot *s = live_slot_new(l);
    if (!s)
        return NULL;
    s->next = head;
    while (!atomic_compare_exchange_weak_explicit(&l->slots, &s->next, s, memory_order_release,
                                                  memory_order_acquire))
        ;
    return s;
}

LLMLAT_API void llmlat_live_writer_free(llmlat_live_writer *w)
{
    if (w)
        atomic_flag_clear_explicit(&w->taken, memory_order_release);
}

LLMLAT_API int32_t llmlat_live_add(llmlat_live_writer *w, const llmlat_request *r)
{
    if (!w || !r)
        return LLMLAT_EINVAL;
    int phase = phaser_enter(&w->ph);
    int32_t st = llmlat_agg_add(w->buf[phase], r);
    phaser_exit(&w->ph, phase);
    return st;
}

/* Takes every slot's buffer of the phase just closed into l->gathered:
 * flips them all first, then waits for each, so that the writers' adds in
 * progress (and a preempted writer's) are waited for together. A buffer
 * that cannot be merged (no memory in exact mode) keeps its data: it is
 * the writer's again after the next flip, and gathered at a later one. */
static int32_t live_gather(llmlat_live *l)
{
    live_slot *head = atomic_load_explicit(&l->slots, memory_order_acquire);
    for (live_slot *s = head; s; s = s->next)
        s->flipped = phaser_flip_begin(&s->ph, &s->begun);
    int32_t status = LLMLAT_OK;
    for (live_slot *s = head; s; s = s->next) {
        phaser_flip_wait(&s->ph, s->flipped, s->begun);
        llmlat_agg *b = s->buf[s->flipped];
        int32_t st = llmlat_agg_merge(l->gathered, b);
        if (st == LLMLAT_OK)
            llmlat_agg_reset(b);
        else
            status = st;
    }
    return status;
}

/* out := the union of aggs[0..n), all or nothing for l's aggregators (out
 * itself is empty on error). */
static int32_t live_fill(llmlat_agg *out, llmlat_agg *const *aggs, int n)
{
    llmlat_agg_reset(out);
    for (int i = 0; i < n; i++) {
        int32_t st = llmlat_agg_merge(out, aggs[i]);
        if (st != LLMLAT_OK) {
            llmlat_agg_reset(out);
            return st;
        }
    }
    return LLMLAT_OK;
}

static int32_t live_snapshot_locked(llmlat_live *l, int32_t kind, llmlat_agg *out)
{
    int32_t st = agg_can_merge(out, l->like);
    if (st == LLMLAT_OK)
        st = live_gather(l);
    if (st != LLMLAT_OK)
        return st;
    if (kind == LLMLAT_SNAPSHOT_CUMULATIVE) {
        llmlat_agg *parts[2] = { l->total, l->gathered };
        return live_fill(out, parts, 2);
    }
    st = live_fill(out, &l->gathered, 1);
    if (st == LLMLAT_OK && (st = llmlat_agg_merge(l->total, l->gathered)) != LLMLAT_OK)
        llmlat_agg_reset(out); /* then the interval is still to come */
    if (st == LLMLAT_OK)
        llmlat_agg_reset(l->gathered);
    return st;
}

LLMLAT_API int32_t llmlat_live_snapshot(llmlat_live *l, int32_t kind, llmlat_agg *out)
{
    if (!l || !out || (kind != LLMLAT_SNAPSHOT_CUMULATIVE && kind != LLMLAT_SNAPSHOT_INTERVAL))
        return LLMLAT_EINVAL;
    if (atomic_flag_test_and_set_explicit(&l->reading, memory_order_acquire))
        return LLMLAT_ESTATE; /* another thread is taking one */
    int32_t st = live_snapshot_locked(l, kind, out);
    atomic_flag_clear_explicit(&l->reading, memory_order_release);
    return st;
}
