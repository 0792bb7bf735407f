/* The reader's side of the phaser (phaser.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L /* nanosleep */
#endif

#include "live/phaser.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sched.h>
#include <time.h>
#define PHASER_YIELD() sched_yield()
#define PHASER_NAP() nanosleep(&(struct timespec){ 0, 50000 }, NULL)
#else /* C11 has neither without threads.h: spin */
#define PHASER_YIELD() ((void)0)
#define PHASER_NAP() ((void)0)
#endif

/* While the writer finishes an update: spin for about as long as an add
 * takes (microseconds), then yield the processor a while, in case the
 * writer is waiting for it; a writer that still has not finished was
 * preempted, so sleep 50 us between looks rather than keep a core busy. */
#define PHASER_SPINS 4096
#define PHASER_YIELDS 64

static void phaser_pause(unsigned *spins)
{
    unsigned n = ++*spins;
    if (n > PHASER_SPINS + PHASER_YIELDS)
        PHASER_NAP();
    else if (n > PHASER_SPINS)
        PHASER_YIELD();
}

LLMLAT_PRIVATE int phaser_flip_begin(phaser *p, int64_t *begun)
{
    int64_t now = atomic_load_explicit(&p->start, memory_order_relaxed);
    int old = now < 0, next = !old;
    int64_t origin = next ? INT64_MIN : 0;
    /* No update of `next` is in flight: the previous flip waited them out. */
    atomic_store_explicit(&p->end[next], origin, memory_order_relaxed);
    *begun = atomic_exchange_explicit(&p->start, origin, memory_order_acq_rel);
    return old;
}

LLMLAT_PRIVATE void phaser_flip_wait(phaser *p, int old, int64_t begun)
{
    unsigned spins = 0;
    while (atomic_load_explicit(&p->end[old], memory_order_acquire) != begun)
        phaser_pause(&spins);
}
