/* The trace `llmlat bench` writes (--output): one llmlat trace line
 * (docs/cli.md) per request as it ends, written whole with one write(2)
 * under a lock shared by the threads, so an interrupted run keeps every
 * request that ended. Times are the recorder's CLOCK_MONOTONIC
 * nanoseconds as seconds with 9 decimals, exact: `llmlat report` reads
 * back the very requests bench's own report was made of. */
#ifndef LLMLAT_BENCH_TRACE_H
#define LLMLAT_BENCH_TRACE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench_buf.h"
#include "llmlat.h"

typedef struct trace_writer {
    int fd;             /* -1: no trace */
    pthread_mutex_t lock;
    int error;          /* the first write's errno, 0 */
} trace_writer;

/* What the trace says of a request beyond its recorder. */
typedef struct trace_extra {
    const char *id;
    int status;         /* the HTTP status, 0: no response */
    const char *error;  /* the failure's reason, NULL */
} trace_extra;

/* Opens path for writing (truncated); false with errno set. path NULL: a
 * writer that writes nothing. */
bool trace_open(trace_writer *t, const char *path);
/* Closes it; false when a write or the close failed (errno). */
bool trace_close(trace_writer *t);

/* The line of an ended request r, formatted into line (a per-thread
 * buffer) and written. */
void trace_write(trace_writer *t, bench_buf *line, const llmlat_request *r,
                 const trace_extra *x);

#endif
