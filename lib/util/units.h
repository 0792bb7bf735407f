/* The small rules every layer shares about values: nanoseconds to the
 * seconds results are reported in, and what an undefined result is. */
#ifndef LLMLAT_UNITS_H
#define LLMLAT_UNITS_H

#include <math.h>
#include <stdint.h>

#include "llmlat.h"

/* ns as seconds: one correctly rounded division, the double every report
 * and exact-mode sample uses for that time. */
static inline double ns_to_s(int64_t ns)
{
    return (double)ns / 1e9;
}

/* An undefined result: NaN out, LLMLAT_EUNDEFINED returned. */
static inline int32_t undefined_value(double *out)
{
    *out = NAN;
    return LLMLAT_EUNDEFINED;
}

#endif
