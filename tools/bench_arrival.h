/* When the open loop's requests are meant to start: the offsets from the
 * run's origin of an arrival process at `rate` requests/s -- Poisson
 * (exponential gaps), gamma with a shape (vLLM's --burstiness: shape 1 is
 * Poisson, below 1 burstier, above more regular; scale 1 / (rate shape) so
 * the mean gap stays 1 / rate), or constant -- the first at 0. The offsets
 * are sums of the gaps in seconds, rounded to ns once each, so no error
 * accumulates however long the run. */
#ifndef LLMLAT_BENCH_ARRIVAL_H
#define LLMLAT_BENCH_ARRIVAL_H

#include <stdint.h>

#include "bench_random.h"

typedef struct arrivals {
    bench_rng rng;
    int kind;       /* ARRIVAL_* */
    double rate, shape;
    double sum_s;   /* the offset so far */
    uint64_t n;     /* offsets given */
} arrivals;

void arrivals_init(arrivals *a, uint64_t seed, int kind, double shape, double rate);
/* The next request's offset in ns (INT64_MAX past about 292 years). */
int64_t arrivals_next(arrivals *a);

#endif
