#include <math.h>

#include "bench_random.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void rng_seed(bench_rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * UINT64_C(0xd1b54a32d192ed03));
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t rng_next(bench_rng *r)
{
    uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_unit(bench_rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Lemire's method: a multiply, and a retry on the rare biased draw. */
uint32_t rng_range(bench_rng *r, uint32_t lo, uint32_t hi)
{
    uint64_t span = (uint64_t)hi - lo + 1;
    for (;;) {
        uint64_t x = rng_next(r) >> 32;
        uint64_t m = x * span;
        uint32_t low = (uint32_t)m;
        if (low >= (uint32_t)((UINT64_C(1) << 32) % span) || span == (UINT64_C(1) << 32))
            return lo + (uint32_t)(m >> 32);
    }
}

double rng_exponential(bench_rng *r)
{
    return -log1p(-rng_unit(r)); /* 1 - u is in (0, 1] */
}

/* A standard normal variate (Marsaglia's polar method). */
static double normal(bench_rng *r)
{
    for (;;) {
        double u = 2 * rng_unit(r) - 1, v = 2 * rng_unit(r) - 1, s = u * u + v * v;
        if (s > 0 && s < 1)
            return u * sqrt(-2 * log(s) / s);
    }
}

double rng_gamma(bench_rng *r, double shape)
{
    if (shape < 1) { /* boost: Gamma(a) = Gamma(a + 1) U^(1/a) */
        double u = rng_unit(r);
        return rng_gamma(r, shape + 1) * pow(u > 0 ? u : 0x1.0p-53, 1 / shape);
    }
    double d = shape - 1.0 / 3, c = 1 / sqrt(9 * d);
    for (;;) {
        double x = normal(r), v = 1 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = rng_unit(r);
        if (u < 1 - 0.0331 * x * x * x * x || log(u) < 0.5 * x * x + d * (1 - v + log(v)))
            return d * v;
    }
}
