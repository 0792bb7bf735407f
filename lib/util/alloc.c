/* The allocator hook: the library's only global state. */
#include "util/alloc.h"

#include <stdint.h>
#include <stdlib.h>

static void *default_malloc(void *user, size_t size)
{
    (void)user;
    return malloc(size);
}

static void *default_realloc(void *user, void *ptr, size_t size)
{
    (void)user;
    return realloc(ptr, size);
}

static void default_free(void *user, void *ptr)
{
    (void)user;
    free(ptr);
}

static llmlat_alloc g_alloc = { default_malloc, default_realloc, default_free, NULL };

LLMLAT_API int32_t llmlat_set_allocator(llmlat_malloc_fn malloc_fn,
                                        llmlat_realloc_fn realloc_fn,
                                        llmlat_free_fn free_fn, void *user)
{
    if (!malloc_fn && !realloc_fn && !free_fn) {
        llmlat_alloc d = { default_malloc, default_realloc, default_free, NULL };
        g_alloc = d;
        return LLMLAT_OK;
    }
    if (!malloc_fn || !realloc_fn || !free_fn)
        return LLMLAT_EINVAL;
    llmlat_alloc a = { malloc_fn, realloc_fn, free_fn, user };
    g_alloc = a;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE llmlat_alloc alloc_current(void)
{
    return g_alloc;
}

LLMLAT_PRIVATE void *alloc_malloc(const llmlat_alloc *al, size_t size)
{
    return al->malloc_fn(al->user, size ? size : 1);
}

LLMLAT_PRIVATE void *alloc_realloc(const llmlat_alloc *al, void *ptr, size_t size)
{
    return al->realloc_fn(al->user, ptr, size ? size : 1);
}

LLMLAT_PRIVATE void alloc_free(const llmlat_alloc *al, void *ptr)
{
    if (ptr)
        al->free_fn(al->user, ptr);
}

LLMLAT_PRIVATE int32_t alloc_grow(const llmlat_alloc *al, void **p, size_t *cap, size_t need,
                                  size_t elem)
{
    if (need <= *cap)
        return LLMLAT_OK;
    size_t new_cap = *cap ? *cap : 16;
    while (new_cap < need) {
        if (new_cap > SIZE_MAX / 2)
            return LLMLAT_ENOMEM; /* no block that large can exist */
        new_cap *= 2;
    }
    if (new_cap > SIZE_MAX / elem)
        return LLMLAT_ENOMEM;
    void *np = alloc_realloc(al, *p, new_cap * elem);
    if (!np)
        return LLMLAT_ENOMEM;
    *p = np;
    *cap = new_cap;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE int32_t alloc_grow_pair(const llmlat_alloc *al, void **a, size_t elem_a, void **b,
                                       size_t elem_b, size_t *cap, size_t need)
{
    if (need <= *cap)
        return LLMLAT_OK;
    size_t cap_a = *cap, cap_b = *cap;
    int32_t st = alloc_grow(al, a, &cap_a, need, elem_a);
    if (st != LLMLAT_OK)
        return st;
    /* *a grew but holds the same elements: keeping it changes nothing, and
     * *cap still describes both until b has grown too */
    if (b) {
        st = alloc_grow(al, b, &cap_b, need, elem_b);
        if (st != LLMLAT_OK)
            return st;
        if (cap_b < cap_a)
            cap_a = cap_b;
    }
    *cap = cap_a;
    return LLMLAT_OK;
}
