/* The samples of one metric, in the aggregator's mode. The aggregator
 * talks to this interface only; each mode's structure lives in its own
 * file (exact_store.c, sketch.c). Bounded mode folds requests straight
 * into the sketches (bounded_fold.c); everything else goes through here. */
#ifndef LLMLAT_STORE_H
#define LLMLAT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "exact/exact_store.h"
#include "bounded/sketch.h"

typedef struct metric_store {
    int32_t mode;
    exact_store exact;
    sketch sk;               /* bounded mode */
    const sketch_map *map;   /* bounded mode: the aggregator's layout */
} metric_store;

LLMLAT_PRIVATE void store_init(metric_store *s, int32_t mode, bool weighted);
LLMLAT_PRIVATE void store_free(metric_store *s, const llmlat_alloc *al);
LLMLAT_PRIVATE void store_clear(metric_store *s);

/* Room for `extra` more samples; unchanged on failure. */
LLMLAT_PRIVATE int32_t store_reserve(metric_store *s, const llmlat_alloc *al, size_t extra);
/* One sample of weight w >= 1, into reserved room (never fails). Exact
 * mode only. */
static inline void store_push(metric_store *s, double v, uint32_t w)
{
    exact_push(&s->exact, v, w);
}
/* Room for src's samples in dst, then the append itself (never fails). */
LLMLAT_PRIVATE int32_t store_reserve_merge(metric_store *dst, const llmlat_alloc *al,
                                           const metric_store *src);
LLMLAT_PRIVATE void store_append(metric_store *dst, const metric_store *src);

LLMLAT_PRIVATE uint64_t store_count(const metric_store *s);
/* Statistic of a non-empty store (LLMLAT_STAT_* other than COUNT). */
LLMLAT_PRIVATE int32_t store_stat(const metric_store *s, const llmlat_alloc *al, int32_t stat,
                                  unsigned ddof, double *out);
/* n <= 32 quantiles (each in [0, 1]) of a non-empty store, in one pass. */
LLMLAT_PRIVATE int32_t store_quantiles(const metric_store *s, const llmlat_alloc *al,
                                       const double *q, size_t n, double *out);
LLMLAT_PRIVATE size_t store_memory(const metric_store *s);

#endif
