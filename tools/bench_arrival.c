#include <math.h>

#include "bench_arrival.h"
#include "bench_options.h"

void arrivals_init(arrivals *a, uint64_t seed, int kind, double shape, double rate)
{
    rng_seed(&a->rng, seed, 0);
    a->kind = kind;
    a->shape = shape;
    a->rate = rate;
    a->sum_s = 0;
    a->n = 0;
}

static double gap_s(arrivals *a)
{
    if (isinf(a->rate))
        return 0;
    switch (a->kind) {
    case ARRIVAL_CONSTANT:
        return 1 / a->rate;
    case ARRIVAL_GAMMA:
        return rng_gamma(&a->rng, a->shape) / (a->rate * a->shape);
    default:
        return rng_exponential(&a->rng) / a->rate;
    }
}

int64_t arrivals_next(arrivals *a)
{
    if (a->n++ > 0)
        a->sum_s += gap_s(a);
    double ns = a->kind == ARRIVAL_CONSTANT && !isinf(a->rate)
                    ? (double)(a->n - 1) * 1e9 / a->rate /* no sum: exact multiples */
                    : a->sum_s * 1e9;
    return ns < 9.2e18 ? (int64_t)llround(ns) : INT64_MAX;
}
