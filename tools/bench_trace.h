/* The trace `llmlat bench` writes (--output): one llmlat trace line
 * (docs/cli.md) per request as it ends. The event loops hand a copy of
 * each ended request to a writer thread, which formats its line and writes
 * it whole with one write(2) -- so formatting and writing never delay a
 * loop's reads -- and the lines of an interrupted run are all written
 * before trace_close returns. Times are the recorder's CLOCK_MONOTONIC
 * nanoseconds as seconds with 9 decimals, exact: `llmlat report` reads
 * back the very requests bench's own report was made of. */
#ifndef LLMLAT_BENCH_TRACE_H
#define LLMLAT_BENCH_TRACE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "bench_buf.h"
#include "llmlat.h"

typedef struct trace_entry trace_entry;

typedef struct trace_writer {
    int fd;               /* -1: no trace */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t more;
    trace_entry *head, *tail; /* lines to write, in order */
    bool closing;
    bool lost;            /* a request could not be copied (out of memory) */
    int error;            /* the writer's first failure's errno, 0 */
    bench_buf line;       /* the writer thread's */
} trace_writer;

/* What the trace says of a request beyond its recorder. */
typedef struct trace_extra {
    const char *id;
    int status;           /* the HTTP status, 0: no response */
    const char *error;    /* the failure's reason, NULL */
} trace_extra;

/* Opens path for writing (truncated) and starts the writer; false with
 * errno set. path NULL: a writer that writes nothing. */
bool trace_open(trace_writer *t, const char *path);
/* Writes what is queued, stops the writer, closes the file; false when a
 * write or the close failed (errno). */
bool trace_close(trace_writer *t);

/* Queues the line of an ended request r (copied: r may be reused at
 * once). Any thread; the lines keep the order of the calls. */
void trace_write(trace_writer *t, const llmlat_request *r, const trace_extra *x);

#endif
