/* Exact mode's samples of one metric: every value kept (with an integer
 * weight for per-token ITL, instead of k copies). Queries sort lazily and
 * cache the order, so statistics are computed over the sorted multiset:
 * the same numbers whatever order samples arrived or shards were merged. */
#ifndef LLMLAT_EXACT_STORE_H
#define LLMLAT_EXACT_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

typedef struct exact_store {
    double *v;
    uint32_t *w;       /* weights when `weighted`, else NULL */
    size_t n, cap;
    bool weighted;
    uint64_t total_w;  /* COUNT: sum of weights */
    double min, max;
    /* Query cache, valid while `sorted`. */
    bool sorted;
    uint64_t *cum;     /* weighted: cum[i] = w[0] + ... + w[i] */
    size_t cum_cap;
} exact_store;

void exact_init(exact_store *s, bool weighted);
void exact_free(exact_store *s, const llmlat_alloc *al);
void exact_clear(exact_store *s);

/* Room for `extra` more samples; unchanged on failure. */
int32_t exact_reserve(exact_store *s, const llmlat_alloc *al, size_t extra);
/* Appends one sample (w >= 1; 1 for unweighted stores). Never allocates:
 * reserve first. */
static inline void exact_push(exact_store *s, double v, uint32_t w)
{
    size_t i = s->n++;
    s->v[i] = v;
    if (s->weighted)
        s->w[i] = w;
    s->total_w += w;
    if (s->total_w == w || v < s->min)
        s->min = v;
    if (s->total_w == w || v > s->max)
        s->max = v;
    s->sorted = false;
}
/* Appends src's samples into room made by exact_reserve(dst, src->n);
 * the caller checked that total weights cannot overflow. */
void exact_append(exact_store *dst, const exact_store *src);

/* Queries (the store must not be empty). They may sort, hence ENOMEM. */
int32_t exact_mean(exact_store *s, const llmlat_alloc *al, double *out);
int32_t exact_std(exact_store *s, const llmlat_alloc *al, unsigned ddof, double *out);
int32_t exact_median(exact_store *s, const llmlat_alloc *al, double *out);
int32_t exact_quantile(exact_store *s, const llmlat_alloc *al, double q, double *out);

size_t exact_memory(const exact_store *s);

/* numpy's default ('linear') quantile of an ascending array, to the bit:
 * exposed for the fixture tests. */
double numpy_linear_quantile(const double *sorted, size_t n, double q);

#endif
