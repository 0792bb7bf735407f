/* One run of `llmlat bench` (one load level of a sweep): what its threads
 * share, and what each thread (an event loop, tools/bench_loop.c) keeps
 * for the others to read -- counters the progress line reads while it
 * runs, an exact aggregator and failure counts merged when it ends. */
#ifndef LLMLAT_BENCH_RUN_H
#define LLMLAT_BENCH_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "bench_options.h"
#include "bench_tls.h"
#include "bench_trace.h"
#include "bench_workload.h"
#include "llmlat.h"

/* stop: what a signal asked of the run. */
#define STOP_NONE 0
#define STOP_SENDING 1 /* send no more; the streams in flight may finish */
#define STOP_NOW 2     /* cancel what is in flight */

typedef struct bench_run {
    const bench_options *o;
    const workload *w;
    size_t level;                 /* in the sweep */
    double rate;                  /* open loop: requests/s; INFINITY: all at once */
    uint32_t concurrency;         /* closed loop: requests in flight */
    uint64_t count;               /* the run's requests (UINT64_MAX: until --duration) */
    int64_t t0;                   /* the run's origin: request 0's intended start */
    int64_t stop_at;              /* t0 + --duration, else INT64_MAX */
    struct sockaddr_storage addr; /* the server, as the first connection found it */
    socklen_t addr_len;
    tls_context *tls;             /* NULL: plain TCP */
    char tag[12];                 /* request ids are TAG-N */
    trace_writer *trace;
    llmlat_live *live;            /* the live measurements (progress, metrics port) */
    const llmlat_agg *like;       /* the report's aggregator settings */
    atomic_uint_fast64_t next_closed; /* closed loop: the next request's number */
    atomic_int stop;              /* STOP_* */
    int64_t drain_until;          /* after STOP_SENDING: when to cancel */
    atomic_uint running;          /* threads still running */
    int done_fd;                  /* an eventfd the last thread to end writes */
} bench_run;

/* Failures counted by reason ("HTTP 429", "timeout", ...). */
#define FAILURE_KINDS 32
typedef struct failure_counts {
    char kind[FAILURE_KINDS][32];
    uint64_t n[FAILURE_KINDS];
    size_t count;
} failure_counts;

void failures_add(failure_counts *f, const char *kind, uint64_t n);

/* What a thread publishes as it runs. */
typedef struct worker_stats {
    atomic_uint_fast64_t sent, done, failed, cancelled, inflight, waiting;
    atomic_int_fast64_t lag_max_ns; /* its own lateness, max since last taken */
} worker_stats;

typedef struct worker worker;

/* A thread's loop for run r, thread `id` of r->o->threads. NULL with a
 * reason on stderr. */
worker *worker_new(bench_run *r, uint32_t id);
void worker_free(worker *w);
/* The thread's body (pthread_create). */
void *worker_main(void *w);
/* Wakes the loop to look at r->stop. */
void worker_wake(worker *w);

worker_stats *worker_get_stats(worker *w);
/* After the thread ended: its aggregator, failures, the requests it never
 * sent (interrupted), the chunks that lacked the logprobs asked for, and
 * whether it failed itself (out of memory: said on stderr). */
const llmlat_agg *worker_agg(const worker *w);
const failure_counts *worker_failures(const worker *w);
uint64_t worker_not_sent(const worker *w);
uint64_t worker_logprobs_missing(const worker *w);
bool worker_broken(const worker *w);

#endif
