/* The sample sections of the serialized format (serialize_data.c), used by
 * serialize.c, which writes and checks everything around them. Layouts are
 * in docs/format.md. */
#ifndef LLMLAT_SERIALIZE_H
#define LLMLAT_SERIALIZE_H

#include "agg/agg.h"
#include "format/bytes.h"

LLMLAT_PRIVATE void write_exact_store(bytes_writer *w, const exact_store *e);
LLMLAT_PRIVATE void write_sketch(bytes_writer *w, const sketch *s);
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
LLMLAT_PRIVATE int32_t read_request_log(bytes_reader *r, request_log *g, const llmlat_alloc *al);

#endif
