/* A seeded pseudo-random generator for the bootstrap: xoshiro256**
 * (Blackman and Vigna), its state filled by splitmix64 from the seed, and
 * unbiased draws below n by Lemire's multiply-and-reject. Integer
 * arithmetic only, so one seed gives the same draws on every machine. */
#ifndef LLMLAT_RNG_H
#define LLMLAT_RNG_H

#include <stdint.h>

#include "util/wide.h"

typedef struct rng {
    uint64_t s[4];
} rng;

static inline uint64_t rng_splitmix(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static inline void rng_seed(rng *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        g->s[i] = rng_splitmix(&seed);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(rng *g)
{
    uint64_t *s = g->s;
    uint64_t out = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return out;
}

/* Uniform in [0, n), n >= 1. */
static inline uint64_t rng_below(rng *g, uint64_t n)
{
    uint64_t lo, hi;
    wide_mul(rng_next(g), n, &lo, &hi);
    if (lo < n) {
        uint64_t floor = (0 - n) % n; /* 2^64 mod n: the draws to reject */
        while (lo < floor)
            wide_mul(rng_next(g), n, &lo, &hi);
    }
    return hi;
}

#endif
