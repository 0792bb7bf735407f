/* Bounded mode's bucket layout: the exponential buckets of Prometheus
 * native histograms (and OpenTelemetry exponential histograms). One map
 * per relative error alpha, shared by all the sketches of an aggregator.
 *
 * Schema s (1..12) has N = 2^s buckets per power of two; bucket `index`
 * covers (base^(index - 1), base^index] with base = 2^(2^-s), in the
 * metric's exported unit (seconds, tokens, tokens/s). The boundaries are
 * the doubles client_golang uses (its nativeHistogramBounds table, which
 * is within 5 ulps of 2^(j/N) but not correctly rounded), so a value's
 * bucket is exactly the one Prometheus' own client computes for the same
 * float64: with frexp(x) = frac * 2^exp, index = (exp - 1) N + the
 * smallest j whose bound is >= frac. Schemas 9..12, beyond Prometheus'
 * table, refine schema 8's bounds (each schema's bounds are every
 * 2^(12-s)-th bound of schema 12), so downscaling is exact.
 *
 * Finding a bucket needs no log() and no search: the mantissa's top s + 1
 * bits pick a cell, which holds at most one boundary; one compare with it
 * finishes the index. */
#ifndef LLMLAT_SKETCH_MAP_H
#define LLMLAT_SKETCH_MAP_H

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"

/* A sketch keeps this many powers of two below its largest value's bucket
 * (see sketch.h): 2^31 covers 28 ns .. 60 s, or 1 .. 2.1e9 tokens. */
#define SKETCH_OCTAVES 31
#define SKETCH_SCHEMA_MIN 1
#define SKETCH_SCHEMA_MAX 12

/* Cells of a layout, two arrays (one index scales both): per cell, the
 * first boundary at or above the cell's start, as a mantissa shifted to
 * the top of 64 bits (UINT64_MAX when none), and that boundary's index,
 * less what the index formula adds (below). */
typedef struct sketch_cells {
    const uint64_t *bound;
    const int64_t *base;
} sketch_cells;

typedef struct sketch_map {
    double alpha;        /* the relative error asked for */
    double error;        /* the schema's own: (base - 1) / (base + 1) <= alpha */
    int32_t schema;      /* s */
    uint32_t per_octave; /* N = 2^s */
    uint32_t cell_shift; /* 52 - (s + 1): a double's bits down to its cell */
    uint64_t cell_mask;  /* 2^(s + 1) - 1 */
    uint32_t width;      /* buckets a sketch holds: SKETCH_OCTAVES N + 1 */
    sketch_cells cell;   /* 2^(s+1) cells over a double's bits */
    sketch_cells ns_cell; /* 2^(s+1) cells over an integer ns count's
                            double, for its seconds' bucket */
    uint64_t *cell_mem;  /* what the cells point into */
    double *value;       /* N: the representative of bucket j of an octave,
                            scaled to the octave (0.25, 1] */
} sketch_map;

/* Builds the map for alpha (within llmlat_param_bounds). ENOMEM leaves m
 * untouched. */
LLMLAT_PRIVATE int32_t sketch_map_init(sketch_map *m, const llmlat_alloc *al, double alpha);
LLMLAT_PRIVATE void sketch_map_free(sketch_map *m, const llmlat_alloc *al);
LLMLAT_PRIVATE size_t sketch_map_memory(const sketch_map *m);

/* The coarsest schema whose error is within alpha (in [1e-4, 0.25]). */
LLMLAT_PRIVATE int32_t sketch_schema_for(double alpha);

/* The bucket index of x > 0, finite and normal (x >= 2^-1022), from the
 * cells: u = bits >> shift is the exponent field times 2^(s+1) plus the
 * cell, so u / 2 is the exponent's share of the index plus cell / 2 (which
 * the cell's base takes back), and one compare with the cell's boundary
 * finishes it. Monotone in x. Shared with the fold's loop, which keeps
 * the layout in registers. */
static inline int64_t sketch_cells_index(const uint64_t *bound, const int64_t *base,
                                         unsigned shift, uint64_t mask, double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint64_t u = b >> shift, c = u & mask;
    return (int64_t)(u >> 1) + base[c] + ((b << 12) > bound[c]);
}

static inline int64_t sketch_map_index(const sketch_map *m, double x)
{
    return sketch_cells_index(m->cell.bound, m->cell.base, m->cell_shift, m->cell_mask, x);
}

/* The bucket of ns_to_s(ns) for an integer 0 < ns < 2^53 (104 days),
 * without the division: cells over (double)ns, whose thresholds are the
 * integers at which RN(ns / 1e9) passes a boundary (sketch_map.c). */
#define SKETCH_NS_EXACT (INT64_C(1) << 53)

static inline int64_t sketch_map_index_ns(const sketch_map *m, int64_t ns)
{
    return sketch_cells_index(m->ns_cell.bound, m->ns_cell.base, m->cell_shift, m->cell_mask,
                              (double)ns);
}

/* The same for any x > 0 (subnormals too). */
LLMLAT_PRIVATE int64_t sketch_map_index_any(const sketch_map *m, double x);

/* The index of x > 0 (finite) in a schema, without a map: a binary
 * search over the bounds (exact mode's buckets are found at query time,
 * from the samples), equal to sketch_map_index. */
LLMLAT_PRIVATE int64_t sketch_schema_index(int32_t schema, double x);
/* Bucket `index`'s upper bound in a schema, equal to sketch_map_upper. */
LLMLAT_PRIVATE double sketch_schema_upper(int32_t schema, int64_t index);

/* Bucket `index`'s upper bound (base^index, as client_golang's getLe),
 * and its representative 2 lo hi / (lo + hi): within the schema's error
 * of every value the bucket holds. */
LLMLAT_PRIVATE double sketch_map_upper(const sketch_map *m, int64_t index);
LLMLAT_PRIVATE double sketch_map_value(const sketch_map *m, int64_t index);

#endif
