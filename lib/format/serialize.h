/* The exact-mode sections of the serialized format besides the stores
 * (serialize_data.c), used by serialize.c, which writes and checks
 * everything around them; the stores write their own sections (store.h).
 * Layouts are in docs/format.md. */
#ifndef LLMLAT_SERIALIZE_H
#define LLMLAT_SERIALIZE_H

#include "agg/agg.h"
#include "util/bytes.h"

LLMLAT_PRIVATE void write_timeline(bytes_writer *w, const timeline *tl);
LLMLAT_PRIVATE void write_request_log(bytes_writer *w, const request_log *g);

/* Readers fill an empty timeline or request log. They return
 * LLMLAT_EFORMAT on bytes that are short or break an invariant, ENOMEM;
 * nothing is allocated before the bytes it stands for are known to be
 * there. */
LLMLAT_PRIVATE int32_t read_timeline(bytes_reader *r, timeline *tl, const llmlat_alloc *al);
/* The request log of bytes of `version` (2: without intended starts). */
LLMLAT_PRIVATE int32_t read_request_log(bytes_reader *r, request_log *g, const llmlat_alloc *al,
                                        uint32_t version);

#endif
