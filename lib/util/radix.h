/* LSD radix sort of 8-byte values (doubles or int64), optionally carrying
 * a uint32 payload. O(n), stable; the workhorse of exact-mode quantiles and
 * of the concurrency sweep. */
#ifndef LLMLAT_RADIX_H
#define LLMLAT_RADIX_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/alloc.h"

enum radix_kind { RADIX_DOUBLE, RADIX_INT64 };

/* An order-preserving map of doubles onto uint64 (and back): a < b exactly
 * when key(a) < key(b), -0.0 just below +0.0. */
static inline uint64_t double_key(double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    uint64_t mask = (uint64_t) - (int64_t)(bits >> 63) | (UINT64_C(1) << 63);
    return bits ^ mask;
}

static inline double key_double(uint64_t key)
{
    uint64_t bits = (key >> 63) ? key ^ (UINT64_C(1) << 63) : ~key;
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

/* Sorts n elements of v (doubles or int64 by kind) ascending, permuting
 * payload (may be NULL) alongside. Needs scratch memory: ENOMEM leaves the
 * arrays unchanged. */
LLMLAT_PRIVATE int32_t radix_sort(const llmlat_alloc *al, enum radix_kind kind, void *v,
                                  uint32_t *payload, size_t n);

#endif
