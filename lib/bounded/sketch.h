/* Bounded mode's samples of one metric: a Prometheus native histogram of
 * fixed size. A window of bucket counts (sketch_map.h), a zero bucket,
 * the exact min and max, and exact sums (fixsum.h) for mean and std.
 *
 * The window holds the `width` bucket indexes [top - width + 1, top], top
 * being the bucket of the largest sample: SKETCH_OCTAVES powers of two
 * and one bucket below it. The zero bucket counts the samples at or below
 * the zero threshold, the upper bound of bucket top - width: the exact
 * zeros, and the samples below the window (`below`). When a larger sample
 * moves the window up, the buckets it leaves are added to `below` and the
 * threshold rises to the new lower edge; no counted sample ever moves to
 * another bucket, so every exported bucket count only grows (Prometheus
 * reads a risen threshold with its buckets merged into the zero count as
 * no counter reset). The state is a function of the multiset of samples
 * only (top is the largest index, and folding below a rising edge
 * composes), so adding in any order, or merging shards in any order,
 * gives the same bits.
 *
 * Buckets are those of the exported value (seconds for times); sums are
 * in the metric's internal unit (ns for times, which keeps integer gaps
 * exact), `unit` internal units per exported unit; min and max exported. */
#ifndef LLMLAT_SKETCH_H
#define LLMLAT_SKETCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/fixsum.h"
#include "util/units.h"
#include "bounded/sketch_map.h"

#define SKETCH_NO_TOP INT64_MIN /* top while no sample is above 0 */

typedef struct sketch {
    uint64_t *bucket;  /* map->width counts: bucket[p] counts index base + p */
    int64_t base;      /* top - width + 1 */
    int64_t top;       /* highest index counted, SKETCH_NO_TOP if none */
    int64_t low;       /* lowest index with a count (>= base), if top != NO_TOP */
    uint64_t count;    /* sum of weights: zero + below + sum of bucket[] */
    uint64_t zero;     /* weight of the samples equal to 0 */
    uint64_t below;    /* weight of the samples > 0 below the window */
    double min, max;   /* exact, exported unit; +inf / -inf while empty */
    double unit;       /* internal units per exported unit */
    fixsum sums;       /* internal unit */
} sketch;

LLMLAT_PRIVATE void sketch_init(sketch *s, double unit);
/* Buckets for map m, all zero; ENOMEM leaves s as it was. */
LLMLAT_PRIVATE int32_t sketch_alloc(sketch *s, const llmlat_alloc *al, const sketch_map *m);
LLMLAT_PRIVATE void sketch_free(sketch *s, const llmlat_alloc *al);
LLMLAT_PRIVATE void sketch_clear(sketch *s);

/* Moves the window up so that its top is `index`. */
LLMLAT_PRIVATE LLMLAT_COLD void sketch_raise(sketch *s, const sketch_map *m, int64_t index);

/* Adds w to the bucket of index; count, sums and min/max are the
 * caller's (one request's samples are summed first). */
static inline void sketch_bump(sketch *s, const sketch_map *m, int64_t index, uint64_t w)
{
    if (index > s->top)
        sketch_raise(s, m, index);
    if (index < s->base) {
        s->below += w;
        return;
    }
    if (index < s->low)
        s->low = index;
    s->bucket[index - s->base] += w;
}

/* Counts w samples of the exported value x >= 0 (0 in the zero bucket). */
static inline void sketch_count(sketch *s, const sketch_map *m, double x, uint64_t w)
{
    if (x > 0.0)
        sketch_bump(s, m, sketch_map_index(m, x), w);
    else
        s->zero += w;
}

static inline void sketch_note_range(sketch *s, double lo, double hi)
{
    if (lo < s->min)
        s->min = lo;
    if (hi > s->max)
        s->max = hi;
}

/* One whole sample of weight 1: x >= 0 internal (an integer for
 * sketch_add_int), `exported` the same value as queries report it and
 * buckets count it. Inline: each request adds several. */
static inline void sketch_add_int(sketch *s, const sketch_map *m, uint64_t x, double exported)
{
    s->count++;
    sketch_count(s, m, exported, 1);
    fixsum_add_int(&s->sums, x);
    sketch_note_range(s, exported, exported);
}

/* One time sample of ns >= 0 nanoseconds, weight 1: its bucket found from
 * the integer (no division) below 2^53. */
static inline void sketch_add_ns(sketch *s, const sketch_map *m, int64_t ns)
{
    double exported = ns_to_s(ns);
    s->count++;
    if ((uint64_t)ns - 1 < (uint64_t)SKETCH_NS_EXACT - 1)
        sketch_bump(s, m, sketch_map_index_ns(m, ns), 1);
    else
        sketch_count(s, m, exported, 1);
    fixsum_add_int(&s->sums, (uint64_t)ns);
    sketch_note_range(s, exported, exported);
}

static inline void sketch_add_double(sketch *s, const sketch_map *m, double x, double exported)
{
    s->count++;
    sketch_count(s, m, exported, 1);
    fixsum_add_double(&s->sums, x);
    sketch_note_range(s, exported, exported);
}

/* Adds src (same map) into dst; the caller checked the counts' sum fits. */
LLMLAT_PRIVATE void sketch_merge(sketch *dst, const sketch *src, const sketch_map *m);

/* The zero threshold: samples at or below it are in the zero bucket (0
 * while no sample is above 0). */
LLMLAT_PRIVATE double sketch_zero_threshold(const sketch *s, const sketch_map *m);

/* The buckets in use: indexes offset .. offset + len - 1 (len 0 when no
 * sample is in the window), the zero bucket's count and threshold;
 * counts (room for len) may be NULL to ask for len only. */
LLMLAT_PRIVATE void sketch_buckets(const sketch *s, const sketch_map *m, double *zero_threshold,
                                   uint64_t *zero_count, int64_t *offset, size_t *len,
                                   uint64_t *counts);

/* Queries of a non-empty sketch, in exported units. */
LLMLAT_PRIVATE double sketch_mean(const sketch *s);
/* LLMLAT_STAT_SUM: the exact sum, reported unit, correctly rounded. */
LLMLAT_PRIVATE double sketch_sum(const sketch *s);
/* EUNDEFINED (NaN) when count <= ddof. */
LLMLAT_PRIVATE int32_t sketch_std(const sketch *s, unsigned ddof, double *out);
/* Within the schema's error of numpy.percentile(samples, 100 q), see
 * sketch.c; n <= SKETCH_MAX_QUANTILES of them in one pass over the
 * buckets. */
#define SKETCH_MAX_QUANTILES 32
LLMLAT_PRIVATE double sketch_quantile(const sketch *s, const sketch_map *m, double q);
/* GuideLLM's inverse CDF: the value of the first rank whose cumulative
 * weight reaches q x count, within the schema's error of exact mode's
 * (which follows numpy's float sums where they move that rank by one:
 * exact/inverse_cdf.c). n <= SKETCH_MAX_INVERSE_CDF. */
#define SKETCH_MAX_INVERSE_CDF 64
LLMLAT_PRIVATE void sketch_inverse_cdf(const sketch *s, const sketch_map *m, const double *q,
                                       size_t n, double *out);
LLMLAT_PRIVATE void sketch_quantiles(const sketch *s, const sketch_map *m, const double *q,
                                     size_t n, double *out);
/* Adds the weight of the samples in each bucket of n ascending bounds to
 * per[0 .. n] (per[n]: above the last bound), each bucket of the sketch
 * counted at its value (sketch.c says why no count ever moves up). */
LLMLAT_PRIVATE void sketch_count_classic(const sketch *s, const sketch_map *m,
                                         const double *bounds, size_t n, uint64_t *per);
/* The smallest sample above 0 (its min, else its lowest bucket's value);
 * NaN when none. */
LLMLAT_PRIVATE double sketch_min_positive(const sketch *s, const sketch_map *m);
LLMLAT_PRIVATE size_t sketch_memory(const sketch *s, const sketch_map *m);

#endif
