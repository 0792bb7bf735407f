/* A writer-reader phaser (HdrHistogram's hdr_writer_reader_phaser, for one
 * writer thread at a time and one reader): the writer brackets each
 * update with enter/exit and never waits; the reader flips the phase and
 * waits until every update begun in the old phase has exited. The phase
 * an update ran in tells which of two buffers it wrote, so after a flip
 * the old phase's buffer is the reader's alone until the next flip.
 *
 * start counts the updates begun in the current phase, from 0 in the even
 * phase and from INT64_MIN in the odd one (its sign is the phase); end[p]
 * counts those of phase p that exited, from the same origin. The flip
 * swaps start to the other origin and waits for the old phase's end to
 * reach the value start had: the number of updates begun in it.
 *
 * Ordering (C11): enter is a read-modify-write on start, which acquires
 * the reader's flip (so the writer sees the buffer the reader emptied);
 * exit is a release store on end[p] (only this phase's writer changes it
 * then), which the reader's acquire load of end[p] synchronizes with (so
 * the reader sees everything the update wrote). */
#ifndef LLMLAT_PHASER_H
#define LLMLAT_PHASER_H

#include <stdatomic.h>
#include <stdint.h>

#include "util/compiler.h"

#ifdef __STDC_NO_ATOMICS__
#error "llmlat needs C11 atomics (<stdatomic.h>) for live recording"
#endif

typedef struct phaser {
    _Atomic int64_t start;
    _Atomic int64_t end[2];
} phaser;

static inline void phaser_init(phaser *p)
{
    atomic_init(&p->start, 0);
    atomic_init(&p->end[0], 0);
    atomic_init(&p->end[1], INT64_MIN);
}

/* The phase (0 or 1) the update now beginning belongs to. Wait-free: one
 * atomic increment. */
static inline int phaser_enter(phaser *p)
{
    return atomic_fetch_add_explicit(&p->start, 1, memory_order_acq_rel) < 0;
}

/* The update of phase `phase` is done. One writer per phase at a time, so
 * a load and a release store (a plain store on x86) do. */
static inline void phaser_exit(phaser *p, int phase)
{
    int64_t done = atomic_load_explicit(&p->end[phase], memory_order_relaxed);
    atomic_store_explicit(&p->end[phase], done + 1, memory_order_release);
}

/* The reader flips in two calls, so that it can flip many phasers and
 * then wait for all of them at once. begin starts the other phase and
 * returns the old one, *begun set to what wait needs; wait returns when
 * every update of the old phase has exited: at most as long as the
 * writer's update in progress (none: no wait). Then the old phase's
 * buffer is the reader's until the next flip. One reader at a time. */
LLMLAT_PRIVATE int phaser_flip_begin(phaser *p, int64_t *begun);
LLMLAT_PRIVATE void phaser_flip_wait(phaser *p, int old, int64_t begun);

#endif
