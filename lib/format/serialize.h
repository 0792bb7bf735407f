/* The sample sections of the serialized format (serialize_data.c), used by
 * serialize.c, which writes and checks everything around them. Layouts are
 * in docs/format.md. */
#ifndef LLMLAT_SERIALIZE_H
#define LLMLAT_SERIALIZE_H

#include "agg/agg.h"
#include "format/bytes.h"

LLMLAT_PRIVATE void write_exact_store(bytes_writer *w, const exact_store *e);
LLMLAT_PRIVATE void write_sketch(bytes_writer *w, const sketch *s, const sketch_map *map);
LLMLAT_PRIVATE void write_timeline(bytes_writer *w, const timeline *tl);
LLMLAT_PRIVATE void write_request_log(bytes_writer *w, const request_log *g);

/* Readers fill an empty store, sketch (allocated for map, or without
 * buckets: then only an empty one is accepted) or timeline. They return
 * LLMLAT_EFORMAT on bytes that are short or break an invariant, ENOMEM;
 * nothing is allocated before the bytes it stands for are known to be
 * there. */
LLMLAT_PRIVATE int32_t read_exact_store(bytes_reader *r, exact_store *e, const llmlat_alloc *al);
LLMLAT_PRIVATE int32_t read_sketch(bytes_reader *r, sketch *s, const sketch_map *map);
LLMLAT_PRIVATE int32_t read_timeline(bytes_reader *r, timeline *tl, const llmlat_alloc *al);
/* The request log of bytes of `version` (2: without intended starts). */
LLMLAT_PRIVATE int32_t read_request_log(bytes_reader *r, request_log *g, const llmlat_alloc *al,
                                        uint32_t version);
/* A sketch's exact sums, the same in both versions: Σ w x in 3 limbs,
 * then Σ w x² in 4, least significant first. */
LLMLAT_PRIVATE void get_fixsum(bytes_reader *r, fixsum *f);
/* The same sketch section in version 1's layout (serialize_v1.c): its
 * buckets converted into map's, at their values. */
LLMLAT_PRIVATE int32_t read_sketch_v1(bytes_reader *r, sketch *s, const sketch_map *map,
                                      const llmlat_alloc *al);

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
