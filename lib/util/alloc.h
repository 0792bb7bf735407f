/* Allocation through the host's optional hook. Every object copies the
 * functions current at its creation, so a later llmlat_set_allocator()
 * never frees memory with the wrong function. */
#ifndef LLMLAT_ALLOC_H
#define LLMLAT_ALLOC_H

#include <stddef.h>

#include "util/compiler.h"
#include "llmlat.h"

typedef struct llmlat_alloc {
    llmlat_malloc_fn malloc_fn;
    llmlat_realloc_fn realloc_fn;
    llmlat_free_fn free_fn;
    void *user;
} llmlat_alloc;

/* The functions installed now (malloc/realloc/free by default). */
LLMLAT_PRIVATE llmlat_alloc alloc_current(void);

LLMLAT_PRIVATE void *alloc_malloc(const llmlat_alloc *al, size_t size);
LLMLAT_PRIVATE void *alloc_realloc(const llmlat_alloc *al, void *ptr, size_t size);
LLMLAT_PRIVATE void alloc_free(const llmlat_alloc *al, void *ptr);

/* Makes room for at least `need` elements of `elem` bytes in *p (capacity
 * *cap), growing geometrically. On failure (ENOMEM, also when the size in
 * bytes would not fit size_t) *p and *cap are unchanged. */
LLMLAT_PRIVATE int32_t alloc_grow(const llmlat_alloc *al, void **p, size_t *cap, size_t need,
                                  size_t elem);

/* The same for two arrays indexed alike (b may be NULL: only a), sharing
 * the capacity *cap. On failure both keep their elements and *cap is
 * unchanged (one of them may have moved to a bigger block). */
LLMLAT_PRIVATE int32_t alloc_grow_pair(const llmlat_alloc *al, void **a, size_t elem_a, void **b,
                                       size_t elem_b, size_t *cap, size_t need);

#endif
