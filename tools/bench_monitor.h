/* What watches a run of `llmlat bench` from the main thread while its
 * event loops run: SIGINT and SIGTERM (through a signalfd: stop sending,
 * let the streams in flight finish for --drain seconds, then cancel them;
 * a second signal cancels at once), the Prometheus exposition of the live
 * measurements (--metrics-port: llmlat_expose of a cumulative snapshot of
 * the live recorder, native histograms in protobuf), and the progress line
 * on a terminal (every second: elapsed, done, in flight, failed, achieved
 * and target rate, P50/P99 TTFT and ITL of the last 10 s from an
 * llmlat_window, P99 dispatch delay, and a warning when the client is
 * late on its schedule). */
#ifndef LLMLAT_BENCH_MONITOR_H
#define LLMLAT_BENCH_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

#include "bench_run.h"

typedef struct monitor {
    const bench_options *o;
    int sigfd;            /* SIGINT and SIGTERM, blocked in every thread */
    int metrics_fd;       /* the listening socket, -1 */
    llmlat_live *live;
    llmlat_agg *scrape;   /* the cumulative snapshot a scrape exposes */
    llmlat_agg *interval; /* the progress line's interval snapshot */
    bool progress;        /* stderr is a terminal and no --quiet */
    int signals;          /* received so far */
} monitor;

/* Blocks the signals (before any thread starts), opens the metrics port
 * (saying where on stderr). false with a reason on stderr. */
bool monitor_open(monitor *m, const bench_options *o, llmlat_live *live,
                  const llmlat_agg *live_like);
void monitor_close(monitor *m);

/* Watches run r until its n threads ended. */
void monitor_run(monitor *m, bench_run *r, worker **workers, uint32_t n);

/* A signal came (before or during a run). */
bool monitor_interrupted(monitor *m);

#endif
