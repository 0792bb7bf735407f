/* Random numbers of `llmlat bench`: xoshiro256** seeded through
 * splitmix64, so a seed gives the same run on every machine; uniform
 * integers without bias; the exponential and gamma variates of the
 * arrival processes (Marsaglia and Tsang). */
#ifndef LLMLAT_BENCH_RANDOM_H
#define LLMLAT_BENCH_RANDOM_H

#include <stdint.h>

typedef struct bench_rng {
    uint64_t s[4];
} bench_rng;

/* A generator for the stream `stream` of `seed`: streams of one seed are
 * independent (request i's lengths use stream i + 1, arrivals stream 0). */
void rng_seed(bench_rng *r, uint64_t seed, uint64_t stream);

uint64_t rng_next(bench_rng *r);
/* Uniform in [0, 1), 53 bits. */
double rng_unit(bench_rng *r);
/* Uniform integer in [lo, hi]. */
uint32_t rng_range(bench_rng *r, uint32_t lo, uint32_t hi);
/* Exponential with mean 1. */
double rng_exponential(bench_rng *r);
/* Gamma with this shape and scale 1. */
double rng_gamma(bench_rng *r, double shape);

#endif
