/* LSD radix sort of 8-byte values (doubles or int64), optionally carrying
 * a uint32 payload. O(n), stable; the workhorse of exact-mode quantiles and
 * of the concurrency sweep. */
#ifndef LLMLAT_RADIX_H
#define LLMLAT_RADIX_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

enum radix_kind { RADIX_DOUBLE, RADIX_INT64 };

/* Sorts n elements of v (doubles or int64 by kind) ascending, permuting
 * payload (may be NULL) alongside. Needs scratch memory: ENOMEM leaves the
 * arrays unchanged. */
int32_t radix_sort(const llmlat_alloc *al, enum radix_kind kind, void *v,
                   uint32_t *payload, size_t n);

#endif
