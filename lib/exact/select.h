/* Values at given ranks of a sample array, without sorting it: radix
 * select on the order-preserving bits of the doubles. Per level, a
 * histogram pass over the data and a pass gathering the few buckets that
 * hold the ranks (skipped when a small sample foretold those buckets and
 * pass 1 gathered them), 12 to 16 bits of key span per level. This is
 * what makes an exact-mode quantile over 10^7 samples a few tens of ms. */
#ifndef LLMLAT_SELECT_H
#define LLMLAT_SELECT_H

#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"

#define SELECT_MAX_RANKS 128

/* out[j] = the value at 0-based rank ranks[j] of the samples v[0..n)
 * expanded by their weights w (NULL: all 1), for nr <= SELECT_MAX_RANKS
 * ascending ranks below the total weight. kmin/kmax: double_key of the
 * smallest and largest sample. Reads v and w only; ENOMEM on scratch. */
LLMLAT_PRIVATE int32_t select_ranks(const llmlat_alloc *al, const double *v, const uint32_t *w,
                                    size_t n, uint64_t kmin, uint64_t kmax, const uint64_t *ranks,
                                    size_t nr, double *out);

#endif
