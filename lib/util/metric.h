/* Metric ids as array indexes, and their names. */
#ifndef LLMLAT_METRIC_H
#define LLMLAT_METRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "llmlat.h"

#define METRIC_FIRST LLMLAT_TTFT
#define METRIC_LAST LLMLAT_SCHEDULED_E2E
#define METRIC_COUNT (METRIC_LAST - METRIC_FIRST + 1)

static inline bool metric_valid(int32_t m)
{
    return m >= METRIC_FIRST && m <= METRIC_LAST;
}

static inline int metric_index(int32_t m)
{
    return (int)(m - METRIC_FIRST);
}

/* The metrics measured from the intended start: only requests that have
 * one give samples, so an empty set of them means that nobody recorded
 * one, and no convention's placeholder stands in for it. */
static inline bool metric_from_schedule(int32_t m)
{
    return m >= LLMLAT_DISPATCH_DELAY && m <= LLMLAT_SCHEDULED_E2E;
}

#endif
