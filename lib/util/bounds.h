/* Ascending upper bounds of a classic histogram (Prometheus' `le`): the
 * bucket of a value, for both modes' counts (exact/exact_store.c,
 * bounded/sketch.c). */
#ifndef LLMLAT_BOUNDS_H
#define LLMLAT_BOUNDS_H

#include <stddef.h>

/* Index of the first bound >= v (the bucket `le` that holds v), or n. */
static inline size_t bounds_index(const double *bounds, size_t n, double v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bounds[mid] >= v)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

#endif
