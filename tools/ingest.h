/* From trace requests to the aggregator, with the rejection rule of
 * docs/cli.md: a request whose times go backwards (an event before the
 * start or before the previous event) or that has events after its end is
 * not added; a message names it and the count goes into the report. */
#ifndef LLMLAT_INGEST_H
#define LLMLAT_INGEST_H

#include <stdbool.h>
#include <stdint.h>

#include "llmlat.h"
#include "trace.h"

/* Messages beyond this many rejections are summed up in one line. */
#define INGEST_MESSAGES_MAX 50

typedef struct ingest {
    llmlat_agg *a;
    llmlat_request *rec;  /* reused for every request */
    const char *name;     /* input name for messages */
    uint64_t rejected;
    int32_t status;       /* a library error that stopped the reading */
} ingest;

bool ingest_init(ingest *g, llmlat_agg *a, const char *name);
void ingest_free(ingest *g);
/* A trace_request_fn: adds the request, or rejects it (false only on an
 * error that must stop everything, such as ENOMEM, left in g->status). */
bool ingest_request(void *user, const trace_request *q);

#endif
