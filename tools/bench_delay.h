/* The P99 dispatch delay (start - intended start) over the progress line's
 * last 10 s, from bench's own per-request values: a log-bucketed count per
 * thread, taken each second by the progress line. It stands in until the
 * library's LLMLAT_DISPATCH_DELAY (metric 12) is queried from the window
 * view like TTFT and ITL; then this file goes. */
#ifndef LLMLAT_BENCH_DELAY_H
#define LLMLAT_BENCH_DELAY_H

#include <pthread.h>
#include <stdint.h>

/* 8 buckets per power of two from 1 us to about 2^31 us, and one below. */
#define DELAY_BUCKETS (1 + 8 * 32)

typedef struct delay_counts {
    uint64_t n[DELAY_BUCKETS];
} delay_counts;

typedef struct delay_hist {
    pthread_mutex_t lock;
    delay_counts counts;
} delay_hist;

void delay_init(delay_hist *h);
void delay_destroy(delay_hist *h);
/* One request's delay, by its thread. */
void delay_record(delay_hist *h, int64_t ns);
/* Adds h's counts into *into and empties h (the progress line's second). */
void delay_take(delay_hist *h, delay_counts *into);
/* The q-quantile of c in seconds (a bucket's upper bound, within 9%);
 * -1 when c is empty. */
double delay_quantile(const delay_counts *c, double q);

#endif
