/* Metric ids as array indexes, and their names. */
#ifndef LLMLAT_METRIC_H
#define LLMLAT_METRIC_H

#include <stdbool.h>
#include <stdint.h>

#include "llmlat.h"

#define METRIC_FIRST LLMLAT_TTFT
#define METRIC_LAST LLMLAT_NTPOT
#define METRIC_COUNT (METRIC_LAST - METRIC_FIRST + 1)

static inline bool metric_valid(int32_t m)
{
    return m >= METRIC_FIRST && m <= METRIC_LAST;
}

static inline int metric_index(int32_t m)
{
    return (int)(m - METRIC_FIRST);
}

#endif
