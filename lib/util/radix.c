#include <string.h>

#include "util/radix.h"

#define DIGIT_BITS 11
#define DIGIT_RANGE (1u << DIGIT_BITS)
#define PASSES 6 /* 6 * 11 >= 64 */
#define RADIX_SMALL 64 /* below this, insertion sort */

/* Elements are read and written through memcpy: the array holds doubles or
 * int64, and memcpy is the aliasing-safe way to see their bits. */
static inline uint64_t load(const unsigned char *base, size_t i)
{
    uint64_t b;
    memcpy(&b, base + i * 8, 8);
    return b;
}

static inline void store(unsigned char *base, size_t i, uint64_t b)
{
    memcpy(base + i * 8, &b, 8);
}

/* Order-preserving map of the value's bits onto uint64. */
static inline uint64_t key_of(enum radix_kind kind, uint64_t bits)
{
    if (kind == RADIX_INT64)
        return bits ^ (UINT64_C(1) << 63);
    /* doubles: negative ones flip every bit, positive ones the sign */
    uint64_t mask = (uint64_t) - (int64_t)(bits >> 63) | (UINT64_C(1) << 63);
    return bits ^ mask;
}

static void insertion_sort(enum radix_kind kind, unsigned char *v, uint32_t *p, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t x = load(v, i);
        uint64_t kx = key_of(kind, x);
        uint32_t px = p ? p[i] : 0;
        size_t j = i;
        while (j > 0 && key_of(kind, load(v, j - 1)) > kx) {
            store(v, j, load(v, j - 1));
            if (p)
                p[j] = p[j - 1];
            j--;
        }
        store(v, j, x);
        if (p)
            p[j] = px;
    }
}

LLMLAT_PRIVATE int32_t radix_sort(const llmlat_alloc *al, enum radix_kind kind, void *values,
                                  uint32_t *payload, size_t n)
{
    unsigned char *v = values; /* both kinds move as 8-byte patterns */
    if (n < RADIX_SMALL) {
        insertion_sort(kind, v, payload, n);
        return LLMLAT_OK;
    }
    if (n > SIZE_MAX / sizeof(uint64_t))
        return LLMLAT_ENOMEM; /* scratch beyond size_t */
    size_t counts_bytes = (size_t)PASSES * DIGIT_RANGE * sizeof(size_t);
    size_t *counts = alloc_malloc(al, counts_bytes);
    unsigned char *tv = alloc_malloc(al, n * 8);
    uint32_t *tp = payload ? alloc_malloc(al, n * sizeof *tp) : NULL;
    if (!counts || !tv || (payload && !tp)) {
        alloc_free(al, counts);
        alloc_free(al, tv);
        alloc_free(al, tp);
        return LLMLAT_ENOMEM;
    }
    memset(counts, 0, counts_bytes);
    for (size_t i = 0; i < n; i++) {
        uint64_t key = key_of(kind, load(v, i));
        for (int d = 0; d < PASSES; d++)
            counts[(size_t)d * DIGIT_RANGE + ((key >> (d * DIGIT_BITS)) & (DIGIT_RANGE - 1))]++;
    }

    unsigned char *src = v, *dst = tv;
    uint32_t *psrc = payload, *pdst = tp;
    for (int d = 0; d < PASSES; d++) {
        size_t *c = counts + (size_t)d * DIGIT_RANGE;
        /* A digit shared by every element moves nothing: skip it. */
        unsigned shift = (unsigned)d * DIGIT_BITS;
        if (c[(key_of(kind, load(src, 0)) >> shift) & (DIGIT_RANGE - 1)] == n)
            continue;
        size_t sum = 0;
        for (unsigned b = 0; b < DIGIT_RANGE; b++) {
            size_t cb = c[b];
            c[b] = sum;
            sum += cb;
        }
        for (size_t i = 0; i < n; i++) {
            uint64_t bits = load(src, i);
            size_t at = c[(key_of(kind, bits) >> shift) & (DIGIT_RANGE - 1)]++;
            store(dst, at, bits);
            if (psrc)
                pdst[at] = psrc[i];
        }
        unsigned char *sw = src;
        src = dst;
        dst = sw;
        uint32_t *psw = psrc;
        psrc = pdst;
        pdst = psw;
    }
    if (src != v) {
        memcpy(v, src, n * 8);
        if (payload)
            memcpy(payload, psrc, n * sizeof *payload);
    }
    alloc_free(al, counts);
    alloc_free(al, tv);
    alloc_free(al, tp);
    return LLMLAT_OK;
}
