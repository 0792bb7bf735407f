/* numpy's linear interpolation between two order statistics, shared by
 * both modes so that they interpolate alike. */
#ifndef LLMLAT_LERP_H
#define LLMLAT_LERP_H

/* numpy.lib.function_base._lerp: a + (b - a) * t, or from b when t >= 0.5.
 * Separate operations, never fused: the build disables FP contraction
 * (and the single header sets the pragmas), so the result is numpy's
 * double to the bit. */
static inline double numpy_lerp(double a, double b, double t)
{
    double diff = b - a;
    if (t >= 0.5)
        return b - diff * (1.0 - t);
    return a + diff * t;
}

#endif
