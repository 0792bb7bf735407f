#include <string.h>

#include "compiler.h"
#include "radix.h"
#include "select.h"

#define LEVEL_BITS 16 /* histogram of 2^16 buckets per level */
#define SMALL 4096    /* below this, sorting a copy is cheaper */

static inline uint64_t weight_at(const uint32_t *w, size_t i)
{
    return w ? w[i] : 1;
}

/* Few samples: sort a copy, then walk the cumulative weights. */
static int32_t by_sorting(const llmlat_alloc *al, const double *v, const uint32_t *w,
                          size_t n, const uint64_t *ranks, size_t nr, double *out)
{
    double *sv = alloc_malloc(al, n * sizeof *sv);
    uint32_t *sw = w ? alloc_malloc(al, n * sizeof *sw) : NULL;
    int32_t st = (sv && (!w || sw)) ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st == LLMLAT_OK) {
        memcpy(sv, v, n * sizeof *sv);
        if (w)
            memcpy(sw, w, n * sizeof *sw);
        st = radix_sort(al, RADIX_DOUBLE, sv, sw, n);
    }
    if (st == LLMLAT_OK) {
        uint64_t below = 0; /* weight of sv[0..i) */
        size_t i = 0;
        for (size_t j = 0; j < nr; j++) {
            while (below + weight_at(sw, i) <= ranks[j])
                below += weight_at(sw, i++);
            out[j] = sv[i];
        }
    }
    alloc_free(al, sv);
    alloc_free(al, sw);
    return st;
}

/* One target bucket's samples, gathered for the next level. */
typedef struct bucket {
    size_t b;          /* bucket number */
    size_t count, at;  /* samples, and how many gathered so far */
    uint64_t base;     /* weight of all buckets below it */
    double *v;
    uint32_t *w;
} bucket;

int32_t select_ranks(const llmlat_alloc *al, const double *v, const uint32_t *w, size_t n,
                     uint64_t kmin, uint64_t kmax, const uint64_t *ranks, size_t nr,
                     double *out)
{
    if (nr == 0)
        return LLMLAT_OK;
    if (kmin == kmax) { /* every sample is the same value */
        for (size_t j = 0; j < nr; j++)
            out[j] = key_double(kmin);
        return LLMLAT_OK;
    }
    if (n <= SMALL)
        return by_sorting(al, v, w, n, ranks, nr, out);

    int shift = bit_length(kmax - kmin) - LEVEL_BITS;
    if (shift < 0)
        shift = 0;
    size_t nb = (size_t)((kmax - kmin) >> shift) + 1;
    size_t *count = alloc_malloc(al, nb * sizeof *count);
    uint64_t *weight = w ? alloc_malloc(al, nb * sizeof *weight) : NULL;
    unsigned char *slot = alloc_malloc(al, nb); /* 1 + target index, 0 if none */
    bucket t[SELECT_MAX_RANKS];
    size_t nt = 0;
    int32_t st = (count && slot && (!w || weight)) ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st != LLMLAT_OK)
        goto done;

    /* Pass 1: how much of the sample falls in each bucket. */
    memset(count, 0, nb * sizeof *count);
    if (w) {
        memset(weight, 0, nb * sizeof *weight);
        for (size_t i = 0; i < n; i++) {
            size_t b = (size_t)((double_key(v[i]) - kmin) >> shift);
            count[b]++;
            weight[b] += w[i];
        }
    } else {
        for (size_t i = 0; i < n; i++)
            count[(double_key(v[i]) - kmin) >> shift]++;
    }

    /* The buckets holding the ranks (ranks ascend, so buckets do). */
    memset(slot, 0, nb);
    uint64_t below = 0;
    size_t b = 0;
    for (size_t j = 0; j < nr; j++) {
        for (;;) {
            uint64_t in_b = w ? weight[b] : count[b];
            if (below + in_b > ranks[j])
                break;
            below += in_b;
            b++;
        }
        if (nt == 0 || t[nt - 1].b != b) {
            t[nt] = (bucket){ .b = b, .count = count[b], .base = below };
            slot[b] = (unsigned char)(++nt);
        }
    }
    for (size_t i = 0; i < nt && st == LLMLAT_OK; i++) {
        t[i].v = alloc_malloc(al, t[i].count * sizeof *t[i].v);
        t[i].w = w ? alloc_malloc(al, t[i].count * sizeof *t[i].w) : NULL;
        if (!t[i].v || (w && !t[i].w))
            st = LLMLAT_ENOMEM;
    }
    if (st != LLMLAT_OK)
        goto done;

    /* Pass 2: gather the target buckets' samples. */
    for (size_t i = 0; i < n; i++) {
        unsigned s = slot[(double_key(v[i]) - kmin) >> shift];
        if (s) {
            bucket *tb = &t[s - 1];
            tb->v[tb->at] = v[i];
            if (w)
                tb->w[tb->at] = w[i];
            tb->at++;
        }
    }

    /* Next level in each bucket, with its share of the ranks. A bucket
     * never holds both kmin and kmax (there are >= 2^15 buckets), so each
     * level narrows the key range by >= 15 bits: at most 5 levels. */
    size_t j = 0;
    for (size_t i = 0; i < nt && st == LLMLAT_OK; i++) {
        /* the gathered samples' own extremes: the next level's range */
        uint64_t bmin = UINT64_MAX, bmax = 0;
        for (size_t k = 0; k < t[i].count; k++) {
            uint64_t key = double_key(t[i].v[k]);
            if (key < bmin)
                bmin = key;
            if (key > bmax)
                bmax = key;
        }
        size_t first = j;
        uint64_t local[SELECT_MAX_RANKS];
        while (j < nr && ranks[j] < t[i].base + (w ? weight[t[i].b] : t[i].count)) {
            local[j - first] = ranks[j] - t[i].base;
            j++;
        }
        st = select_ranks(al, t[i].v, t[i].w, t[i].count, bmin, bmax, local, j - first,
                          out + first);
    }

done:
    for (size_t i = 0; i < nt; i++) {
        alloc_free(al, t[i].v);
        alloc_free(al, t[i].w);
    }
    alloc_free(al, count);
    alloc_free(al, weight);
    alloc_free(al, slot);
    return st;
}
