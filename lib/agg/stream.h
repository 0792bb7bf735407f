/* Streaming recorders (llmlat_request_new_streaming): a recorder that
 * keeps no events but folds each, by the gap rule (record/gaps.h) and the
 * bucket layout of a bounded aggregator, into its own buckets
 * (bounded/bucket_run.h) and sums (agg/gap_fold.h), as they come. Adding
 * it to an aggregator commits them: the same bits as the buffered
 * recorder's fold of the same events. */
#ifndef LLMLAT_STREAM_H
#define LLMLAT_STREAM_H

#include <stdatomic.h>
#include <stdbool.h>

#include "agg/agg.h"

/* The bucket layout streaming recorders need, shared by the aggregator
 * they were made from and by them (a reference count: recorders live on
 * other threads and may outlive it). */
typedef struct stream_layout {
    _Atomic size_t refs;
    llmlat_alloc al;
    sketch_map map;
    double alpha;
    bool every;   /* the gap rule's knobs: empty events count (vLLM), */
    enum chunk_split split; /* and how a chunk's tokens share its gap */
} stream_layout;

/* Drops a's reference to its layout (a freed, or its relative error
 * changed: recorders made afterwards get a new one). */
LLMLAT_PRIVATE void stream_layout_forget(llmlat_agg *a);

/* Whether a (bounded) takes the streaming recorder r: the same relative
 * error and gap rule. */
LLMLAT_PRIVATE bool stream_fits(const llmlat_agg *a, const llmlat_request *r);

/* r's ITL, ICL and ITL_MAX into a group's stores of a (bounded; r fits),
 * v its view. */
LLMLAT_PRIVATE void stream_commit(llmlat_agg *a, metric_store *stores, const llmlat_request *r,
                                  const req_view *v);

#endif
