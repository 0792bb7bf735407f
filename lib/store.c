#include <math.h>

#include "store.h"

void store_init(metric_store *s, int32_t mode, bool weighted)
{
    s->mode = mode;
    exact_init(&s->exact, weighted);
}

void store_free(metric_store *s, const llmlat_alloc *al)
{
    exact_free(&s->exact, al);
}

void store_clear(metric_store *s)
{
    exact_clear(&s->exact);
}

int32_t store_reserve(metric_store *s, const llmlat_alloc *al, size_t extra)
{
    return exact_reserve(&s->exact, al, extra);
}

int32_t store_reserve_merge(metric_store *dst, const llmlat_alloc *al,
                            const metric_store *src)
{
    if (src->exact.total_w > UINT64_MAX - dst->exact.total_w)
        return LLMLAT_EINVAL;
    return exact_reserve(&dst->exact, al, src->exact.n);
}

void store_append(metric_store *dst, const metric_store *src)
{
    exact_append(&dst->exact, &src->exact);
}

uint64_t store_count(const metric_store *s)
{
    return s->exact.total_w;
}

int32_t store_stat(metric_store *s, const llmlat_alloc *al, int32_t stat, unsigned ddof,
                   double *out)
{
    exact_store *e = &s->exact;
    switch (stat) {
    case LLMLAT_STAT_MEAN:
        return exact_mean(e, al, out);
    case LLMLAT_STAT_STD:
        return exact_std(e, al, ddof, out);
    case LLMLAT_STAT_MIN:
        *out = e->min;
        return LLMLAT_OK;
    case LLMLAT_STAT_MAX:
        *out = e->max;
        return LLMLAT_OK;
    case LLMLAT_STAT_MEDIAN:
        return exact_median(e, al, out);
    }
    return LLMLAT_EINVAL;
}

int32_t store_quantile(metric_store *s, const llmlat_alloc *al, double q, double *out)
{
    return exact_quantile(&s->exact, al, q, out);
}

size_t store_memory(const metric_store *s)
{
    return exact_memory(&s->exact);
}
