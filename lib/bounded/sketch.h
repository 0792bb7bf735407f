/* Bounded mode's samples of one metric: a fixed window of logarithmic
 * bucket counts (sketch_map.h), a count of exact zeros, the exact min and
 * max, and exact sums (fixsum.h) for mean and std.
 *
 * The window holds the `width` bucket indices [top - width + 1, top], top
 * being the bucket of the largest sample: SKETCH_OCTAVES powers of two
 * below the maximum. A sample further below is counted in the lowest
 * bucket. The state is a function of the multiset of samples only (top is
 * the largest index, and clamping to a rising floor composes), so adding
 * in any order, or merging shards in any order, gives the same bits.
 *
 * Samples are doubles >= 0 in the metric's internal unit (ns for times,
 * which keeps integer gaps exact); min and max are kept in the unit
 * queries report (`unit` internal units per reported unit). */
#ifndef LLMLAT_SKETCH_H
#define LLMLAT_SKETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/fixsum.h"
#include "bounded/sketch_map.h"

#define SKETCH_NO_TOP (-1) /* top while no sample is above 0 */

typedef struct sketch {
    uint64_t *bucket;  /* map->width counts: bucket[j] counts index base + j */
    int64_t base;      /* top - width + 1 */
    int64_t top;       /* highest index counted, SKETCH_NO_TOP if none */
    int64_t low;       /* lowest index counted (>= base), if top != NO_TOP */
    uint64_t count;    /* sum of weights: COUNT = zero + sum of bucket[] */
    uint64_t zero;     /* weight of samples equal to 0 */
    double min, max;   /* exact, reported unit; +inf / -inf while empty */
    double unit;       /* internal units per reported unit */
    fixsum sums;       /* internal unit */
} sketch;

LLMLAT_PRIVATE void sketch_init(sketch *s, double unit);
/* Buckets for map m, all zero; ENOMEM leaves s as it was. */
LLMLAT_PRIVATE int32_t sketch_alloc(sketch *s, const llmlat_alloc *al, const sketch_map *m);
LLMLAT_PRIVATE void sketch_free(sketch *s, const llmlat_alloc *al);
LLMLAT_PRIVATE void sketch_clear(sketch *s);

/* Moves the window up so that its top is `index`. */
LLMLAT_PRIVATE LLMLAT_COLD void sketch_raise(sketch *s, const sketch_map *m, int64_t index);

/* Adds w to the bucket of index (> SKETCH_NO_TOP); count, sums and min/max
 * are the caller's (one request's samples are summed first). */
static inline void sketch_bump(sketch *s, const sketch_map *m, int64_t index, uint64_t w)
{
    if (index > s->top)
        sketch_raise(s, m, index);
    if (index < s->low)
        s->low = index < s->base ? s->base : index;
    int64_t j = index - s->base;
    s->bucket[j < 0 ? 0 : j] += w;
}

static inline void sketch_note_range(sketch *s, double lo, double hi)
{
    if (lo < s->min)
        s->min = lo;
    if (hi > s->max)
        s->max = hi;
}

/* One whole sample of weight 1: x >= 0 internal (an integer for
 * sketch_add_int), `reported` the same value as queries report it. Inline:
 * each request adds several. */
static inline void sketch_add_int(sketch *s, const sketch_map *m, uint64_t x, double reported)
{
    s->count++;
    if (x)
        sketch_bump(s, m, sketch_map_index(m, (double)x), 1);
    else
        s->zero++;
    fixsum_add_int(&s->sums, x);
    sketch_note_range(s, reported, reported);
}

static inline void sketch_add_double(sketch *s, const sketch_map *m, double x, double reported)
{
    s->count++;
    if (x > 0.0)
        sketch_bump(s, m, sketch_map_index(m, x), 1);
    else
        s->zero++;
    fixsum_add_double(&s->sums, x);
    sketch_note_range(s, reported, reported);
}

/* Adds src (same map) into dst; the caller checked the counts' sum fits. */
LLMLAT_PRIVATE void sketch_merge(sketch *dst, const sketch *src, const sketch_map *m);

/* Queries of a non-empty sketch, in reported units. */
LLMLAT_PRIVATE double sketch_mean(const sketch *s);
/* LLMLAT_STAT_SUM: the exact sum, reported unit, correctly rounded. */
LLMLAT_PRIVATE double sketch_sum(const sketch *s);
/* EUNDEFINED (NaN) when count <= ddof. */
LLMLAT_PRIVATE int32_t sketch_std(const sketch *s, unsigned ddof, double *out);
/* Within alpha of numpy.percentile(samples, 100 q), see sketch.c; n <=
 * SKETCH_MAX_QUANTILES of them in one pass over the buckets. */
#define SKETCH_MAX_QUANTILES 32
LLMLAT_PRIVATE double sketch_quantile(const sketch *s, const sketch_map *m, double q);
LLMLAT_PRIVATE void sketch_quantiles(const sketch *s, const sketch_map *m, const double *q,
                                     size_t n, double *out);
LLMLAT_PRIVATE size_t sketch_memory(const sketch *s, const sketch_map *m);

#endif
