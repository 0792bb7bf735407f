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

/* Per cell: the mantissa of the first boundary at or above the cell's
 * start (2^52 when none), and that boundary's index in its octave minus
 * 1023 N (the exponent's bias, folded in). */
typedef struct sketch_cell {
    uint64_t bound;
    int64_t base;
} sketch_cell;

typedef struct sketch_map {
    double alpha;        /* the relative error asked for */
    double error;        /* the schema's own: (base - 1) / (base + 1) <= alpha */
    int32_t schema;      /* s */
    uint32_t per_octave; /* N = 2^s */
    uint32_t cell_shift; /* 52 - (s + 1): a mantissa down to its cell */
    uint32_t width;      /* buckets a sketch holds: SKETCH_OCTAVES N + 1 */
    sketch_cell *cell;   /* 2^(s+1) cells */
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

#define SKETCH_MANTISSA ((UINT64_C(1) << 52) - 1)

/* The bucket index of x > 0, finite and normal (x >= 2^-1022). Monotone
 * in x. */
static inline int64_t sketch_map_index(const sketch_map *m, double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    uint64_t mant = b & SKETCH_MANTISSA;
    const sketch_cell *c = &m->cell[mant >> m->cell_shift];
    return (int64_t)((b >> 52) << m->schema) + c->base + (mant > c->bound);
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
