/* One request's own bucket counts of one metric, for a streaming recorder
 * (agg/stream.c): what its samples would add to a sketch of the same map,
 * kept until the request is added, in memory that follows the spread of
 * its values, not their number.
 *
 * The counts of the consecutive indexes lo .. top sit in one block, 2
 * bytes each; a count that passes 65535 keeps its upper part in one of
 * RUN_CARRIES carries, and past those the block is rewritten with 4-byte
 * (then, past 2^32 - 1 samples, 8-byte) counts. The window rule of sketch.h applies as there: the
 * run keeps at most map->width indexes below its top; samples further
 * below count in `below`, zeros in `zero`. Added to a sketch (run_commit)
 * the run gives it the bits its samples would have given one by one (a
 * sketch's state is a function of the multiset of its samples).
 *
 * Growing may need memory; so that a recorder's event is all or nothing,
 * the growth is planned (run_plan: allocates, changes nothing), then
 * applied (run_apply, cannot fail), then the samples added (run_add). */
#ifndef LLMLAT_BUCKET_RUN_H
#define LLMLAT_BUCKET_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "bounded/sketch.h"

#define RUN_CARRIES 4

typedef struct run_carry {
    int64_t index;
    uint64_t high; /* the count is low + high * 65536 */
} run_carry;

typedef struct bucket_run {
    void *count;        /* cap counts of 2 << (wide) bytes: index lo + i at i */
    unsigned wide;      /* 0: uint16 (with carries), 1: uint32, 2: uint64 */
    int64_t lo;         /* index of count[0]; >= top - width + 1 */
    size_t cap;         /* counts the block holds; those past live are 0 */
    size_t live;        /* counts in use: top - lo + 1, 0 while none */
    int64_t top;        /* highest index counted, SKETCH_NO_TOP while none */
    uint64_t below;     /* samples > 0 below the window */
    uint64_t zero;      /* samples equal to 0 */
    unsigned n_carry;
    run_carry carry[RUN_CARRIES];
    /* During a batch of planned samples that might need more carries than
     * there are: a block of 4-byte counts of the same geometry, taken if
     * they do (run_add cannot fail), dropped after the batch otherwise. */
    void *spare;
} bucket_run;

/* What run_apply will do, from run_plan. */
typedef struct run_plan {
    bool change;        /* a new geometry (block, lo, width or top) */
    void *block;        /* a new block to move to, or NULL (keep the old) */
    void *spare;        /* see bucket_run */
    size_t cap;
    unsigned wide;
    int64_t lo, top;
} run_plan;

LLMLAT_PRIVATE void run_init(bucket_run *r);
LLMLAT_PRIVATE void run_free(bucket_run *r, const llmlat_alloc *al);
/* Empty again, keeping the block. */
LLMLAT_PRIVATE void run_clear(bucket_run *r);
LLMLAT_PRIVATE size_t run_memory(const bucket_run *r);

/* The room for samples at indexes lo_index .. hi_index (<= hi_index),
 * the run holding at most `bound` samples in all once they are in (the
 * caller's count: events, tokens): ENOMEM (nothing changed) or OK with
 * the plan in *p, to apply, or to drop if another plan of the same event
 * failed. */
LLMLAT_PRIVATE int32_t run_plan_for(const bucket_run *r, const sketch_map *m,
                                    const llmlat_alloc *al, int64_t lo_index, int64_t hi_index,
                                    uint64_t bound, run_plan *p);
LLMLAT_PRIVATE void run_plan_drop(run_plan *p, const llmlat_alloc *al);
LLMLAT_PRIVATE void run_apply(bucket_run *r, const llmlat_alloc *al, const run_plan *p);
/* w samples at index (a planned one); cannot fail. */
LLMLAT_PRIVATE void run_add(bucket_run *r, int64_t index, uint64_t w);
/* After the planned samples: frees the spare block if it was not taken. */
LLMLAT_PRIVATE void run_end(bucket_run *r, const llmlat_alloc *al);

/* One sample at each of idx[0 .. n), all within lo .. hi, into both a
 * and b, without a plan: true when both runs have those indexes and
 * 2-byte (or 4-byte) counts that none of them passes 65535 (2^32 - 1),
 * a holding at most a_bound samples in all with them and b b_bound.
 * false changes nothing: plan first. */
LLMLAT_PRIVATE bool run_add_pair(bucket_run *a, uint64_t a_bound, bucket_run *b,
                                 uint64_t b_bound, const int64_t *idx, size_t n, int64_t lo,
                                 int64_t hi);

/* Adds the run's samples to s (same map); the caller adds their count,
 * sums and extremes. */
LLMLAT_PRIVATE void run_commit(const bucket_run *r, sketch *s, const sketch_map *m);

#endif
