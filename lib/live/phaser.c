/* The reader's side of the phaser (phaser.h). */
#include "live/phaser.h"

#if defined(__unix__) || defined(__APPLE__)
#include <sched.h>
#define PHASER_YIELD() sched_yield()
#else
#define PHASER_YIELD() ((void)0) /* no portable yield in C11 without threads.h */
#endif

/* While the writer finishes an update: spin for about as long as an add
 * takes (microseconds; a yield would cost a whole round of the
 * scheduler), then give the processor away, in case the writer is waiting
 * for it. */
#define PHASER_SPINS 4096

static void phaser_pause(unsigned *spins)
{
    if (++*spins > PHASER_SPINS)
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
