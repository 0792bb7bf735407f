/* A sketch's section of the byte format (sketch_bytes.c), in version 2's
 * layout and version 1's (sketch_v1.c, read only), and the checks every
 * sketch read must pass. Layouts are in docs/format.md. */
#ifndef LLMLAT_SKETCH_BYTES_H
#define LLMLAT_SKETCH_BYTES_H

#include <stdbool.h>
#include <stdint.h>

#include "util/alloc.h"
#include "util/bytes.h"
#include "bounded/sketch.h"

LLMLAT_PRIVATE void sketch_write(bytes_writer *w, const sketch *s, const sketch_map *map);
/* Fills an empty sketch (allocated for map, or without buckets: then only
 * an empty one is accepted): LLMLAT_EFORMAT on bytes that are short or
 * break an invariant. */
LLMLAT_PRIVATE int32_t sketch_read(bytes_reader *r, sketch *s, const sketch_map *map);
/* The same sketch section in version 1's layout: its buckets converted
 * into map's, at their values; ENOMEM too. */
LLMLAT_PRIVATE int32_t sketch_read_v1(bytes_reader *r, sketch *s, const sketch_map *map,
                                      const llmlat_alloc *al);

/* A sketch's exact sums, the same in both versions: Σ w x in 3 limbs,
 * then Σ w x² in 4, least significant first. */
LLMLAT_PRIVATE void get_fixsum(bytes_reader *r, fixsum *f);

/* What a sketch's buckets allow its sums to be, exported unit: the sum
 * between sum_lo and sum_hi, the sum of squares at most sq_hi. */
typedef struct sketch_range {
    double sum_lo, sum_hi, sq_hi;
} sketch_range;

LLMLAT_PRIVATE void sketch_range_add(sketch_range *r, uint64_t c, double lo, double hi);
/* Whether the count, extremes and sums of s hold together, and with the
 * buckets' range r. */
LLMLAT_PRIVATE bool sketch_holds_together(const sketch *s, const sketch_range *r);
/* Whether a sketch with samples above 0 holds together with its own
 * buckets (low .. top): the minimum in the lowest bucket (or the zero
 * bucket), the sums within what the buckets allow. What every sketch
 * read must satisfy, so that its bytes, written again, read again. */
LLMLAT_PRIVATE bool sketch_buckets_hold(const sketch *s, const sketch_map *map);

#endif
