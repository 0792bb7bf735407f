#include <math.h>

#include "agg/store.h"

#define BOUNDED(s) ((s)->mode == LLMLAT_MODE_BOUNDED)

LLMLAT_PRIVATE void store_init(metric_store *s, int32_t mode, bool weighted)
{
    s->mode = mode;
    s->placeholder = true;
    exact_init(&s->exact, weighted);
    sketch_init(&s->sk, 1.0);
    s->map = NULL;
}

LLMLAT_PRIVATE void store_free(metric_store *s, const llmlat_alloc *al)
{
    exact_free(&s->exact, al);
    sketch_free(&s->sk, al);
}

LLMLAT_PRIVATE void store_clear(metric_store *s)
{
    if (BOUNDED(s))
        sketch_clear(&s->sk);
    else
        exact_clear(&s->exact);
}

LLMLAT_PRIVATE int32_t store_reserve(metric_store *s, const llmlat_alloc *al, size_t extra)
{
    return BOUNDED(s) ? LLMLAT_OK : exact_reserve(&s->exact, al, extra);
}

LLMLAT_PRIVATE int32_t store_reserve_merge(metric_store *dst, const llmlat_alloc *al,
                                           const metric_store *src)
{
    return BOUNDED(dst) ? LLMLAT_OK : exact_reserve(&dst->exact, al, src->exact.n);
}

LLMLAT_PRIVATE void store_append(metric_store *dst, const metric_store *src)
{
    if (BOUNDED(dst))
        sketch_merge(&dst->sk, &src->sk, dst->map);
    else
        exact_append(&dst->exact, &src->exact);
}

LLMLAT_PRIVATE int32_t store_union(metric_store *dst, const llmlat_alloc *al,
                                   const metric_store *const *src, size_t n)
{
    store_init(dst, src[0]->mode, src[0]->exact.weighted);
    dst->map = src[0]->map;
    dst->placeholder = src[0]->placeholder;
    dst->sk.unit = src[0]->sk.unit;
    int32_t st = BOUNDED(dst) ? sketch_alloc(&dst->sk, al, dst->map) : LLMLAT_OK;
    for (size_t i = 0; i < n && st == LLMLAT_OK; i++) {
        st = store_reserve_merge(dst, al, src[i]);
        if (st == LLMLAT_OK)
            store_append(dst, src[i]);
    }
    if (st != LLMLAT_OK)
        store_free(dst, al);
    return st;
}

LLMLAT_PRIVATE uint64_t store_count(const metric_store *s)
{
    return BOUNDED(s) ? s->sk.count : s->exact.total_w;
}

static int32_t sketch_stat(const metric_store *s, int32_t stat, unsigned ddof, double *out)
{
    switch (stat) {
    case LLMLAT_STAT_MEAN:
        *out = sketch_mean(&s->sk);
        return LLMLAT_OK;
    case LLMLAT_STAT_STD:
        return sketch_std(&s->sk, ddof, out);
    case LLMLAT_STAT_MIN:
        *out = s->sk.min;
        return LLMLAT_OK;
    case LLMLAT_STAT_MAX:
        *out = s->sk.max;
        return LLMLAT_OK;
    case LLMLAT_STAT_MEDIAN: /* numpy.median is the 0.5 quantile */
        *out = sketch_quantile(&s->sk, s->map, 0.5);
        return LLMLAT_OK;
    case LLMLAT_STAT_SUM:
        *out = sketch_sum(&s->sk);
        return LLMLAT_OK;
    }
    return LLMLAT_EINVAL;
}

LLMLAT_PRIVATE int32_t store_quantiles(const metric_store *s, const llmlat_alloc *al,
                                       const conv_rules *c, const double *q, size_t n,
                                       double *out)
{
    if (!BOUNDED(s))
        return c->quantile == QUANTILE_INVERSE_CDF
                   ? exact_inverse_cdf(&s->exact, al, q, n, out, NULL)
                   : exact_quantiles(&s->exact, al, q, n, out);
    if (n > SKETCH_MAX_QUANTILES)
        return LLMLAT_EINVAL;
    if (c->quantile == QUANTILE_INVERSE_CDF)
        sketch_inverse_cdf(&s->sk, s->map, q, n, out);
    else
        sketch_quantiles(&s->sk, s->map, q, n, out);
    return LLMLAT_OK;
}

LLMLAT_PRIVATE int32_t store_stat(const metric_store *s, const llmlat_alloc *al,
                                  const conv_rules *c, int32_t stat, double *out)
{
    if (stat == LLMLAT_STAT_MEDIAN && c->quantile == QUANTILE_INVERSE_CDF) {
        static const double HALF = 0.5; /* GuideLLM's median is its p50 */
        return store_quantiles(s, al, c, &HALF, 1, out);
    }
    if (BOUNDED(s))
        return sketch_stat(s, stat, c->ddof, out);
    const exact_store *e = &s->exact;
    switch (stat) {
    case LLMLAT_STAT_MEAN:
        return exact_mean(e, out);
    case LLMLAT_STAT_STD:
        return exact_std(e, c->ddof, out);
    case LLMLAT_STAT_MIN:
        *out = e->min;
        return LLMLAT_OK;
    case LLMLAT_STAT_MAX:
        *out = e->max;
        return LLMLAT_OK;
    case LLMLAT_STAT_MEDIAN:
        return exact_median(e, al, out);
    case LLMLAT_STAT_SUM:
        *out = exact_sum(e);
        return LLMLAT_OK;
    }
    return LLMLAT_EINVAL;
}

LLMLAT_PRIVATE int32_t store_inverse_cdf(const metric_store *s, const llmlat_alloc *al,
                                         const double *q, size_t n, double *out,
                                         double *mode)
{
    if (!BOUNDED(s))
        return exact_inverse_cdf(&s->exact, al, q, n, out, mode);
    if (n > SKETCH_MAX_INVERSE_CDF)
        return LLMLAT_EINVAL;
    sketch_inverse_cdf(&s->sk, s->map, q, n, out);
    if (mode)
        *mode = NAN;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE size_t store_memory(const metric_store *s)
{
    return BOUNDED(s) ? sketch_memory(&s->sk, s->map) : exact_memory(&s->exact);
}
