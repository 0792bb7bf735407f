/* Bounded mode's bucket layout: which bucket a value falls in, and the
 * value a bucket stands for. One map per relative error alpha, shared by
 * all the sketches of an aggregator.
 *
 * Buckets are logarithmic (DDSketch-style): every bucket [lo, hi) has
 * hi / lo <= (1 + alpha) / (1 - alpha), so its representative 2 lo hi /
 * (lo + hi) is within alpha of every value in it. Each power of two holds
 * the same M buckets, whose edges are placed on a grid of 2^c cells per
 * power of two (c = cell_bits), greedily from the bottom of the octave, in
 * integer arithmetic: the layout is exact, identical on every platform,
 * and indexing is a table lookup on the bits of the double — no log(). */
#ifndef LLMLAT_SKETCH_MAP_H
#define LLMLAT_SKETCH_MAP_H

#include <stdint.h>
#include <string.h>

#include "util/alloc.h"

/* A sketch keeps this many octaves below its largest value (see sketch.h):
 * 2^32 covers 1 us .. 71 min, or 1 .. 4.3e9 tokens. */
#define SKETCH_OCTAVES 32

typedef struct sketch_map {
    double alpha;        /* the relative error guaranteed */
    uint32_t per_octave; /* M */
    uint32_t cell_bits;  /* c */
    uint32_t cell_shift; /* 52 - c: a double's bits down to its cell */
    uint64_t cell_mask;  /* 2^c - 1 */
    uint32_t width;      /* buckets a sketch holds: SKETCH_OCTAVES * M + 1 */
    uint32_t m_inverse;  /* floor(2^32 / M): index / M without a division */
    uint16_t *cell;      /* 2^c entries: the bucket (0..M-1) of each cell */
    uint32_t *first;     /* M + 1 entries: first cell of each bucket, then 2^c */
    double *value;       /* M entries: each bucket's representative, scaled to
                            the octave [2^c, 2^(c+1)) */
} sketch_map;

/* Builds the map for alpha (within llmlat_param_bounds). ENOMEM leaves m
 * untouched. */
LLMLAT_PRIVATE int32_t sketch_map_init(sketch_map *m, const llmlat_alloc *al, double alpha);
LLMLAT_PRIVATE void sketch_map_free(sketch_map *m, const llmlat_alloc *al);
LLMLAT_PRIVATE size_t sketch_map_memory(const sketch_map *m);

/* The bucket index of x > 0 (finite, normal): exponent field times M plus
 * the bucket of the top c bits of the mantissa. Monotone in x. */
static inline int64_t sketch_map_index(const sketch_map *m, double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return (int64_t)(b >> 52) * m->per_octave + m->cell[(b >> m->cell_shift) & m->cell_mask];
}

/* The representative of bucket `index`: within alpha of every value the
 * bucket holds. */
LLMLAT_PRIVATE double sketch_map_value(const sketch_map *m, int64_t index);

#endif
