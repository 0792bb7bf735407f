/* Order-independent summation of non-negative doubles: each addend is cut
 * to a fixed-point grid chosen from the largest one, and the integers are
 * added exactly in 128 bits. Integer addition does not care about order, so
 * the sum depends only on the multiset of addends (merged shards give the
 * same bits as one aggregator), and it is accurate: the grid sits 74 -
 * log2(n) bits below the largest addend, so the relative error stays below
 * 2^-64 for up to 2^10 addends and below 2^-40 for 2^32 of them. */
#ifndef LLMLAT_GRIDSUM_H
#define LLMLAT_GRIDSUM_H

#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

/* sum of w[i] * f(v[i]) for i < n (w NULL: weights 1), where f(x) = x, or
 * (x - center)^2 when `squares` (each square rounded as numpy rounds it).
 * `largest` bounds every f(v[i]) from above (the store's max, or the
 * largest squared deviation); weights count toward the grid's headroom. */
LLMLAT_PRIVATE double gridsum(const double *v, const uint32_t *w, size_t n, uint64_t total_weight,
                             double largest, int squares, double center);

#endif
