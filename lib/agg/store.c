/* The store interface (store.h): each operation dispatched to the
 * mode's own implementation. The one place that tells the modes apart. */
#include <math.h>
#include <string.h>

#include "agg/store.h"
#include "bounded/sketch_bytes.h"

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

LLMLAT_PRIVATE int32_t store_summary(const metric_store *s, const llmlat_alloc *al,
                                     const conv_rules *c, const double *q, size_t n,
                                     store_summary_values *out)
{
    if (!BOUNDED(s)) {
        exact_summary_values e = { 0 };
        int32_t st = exact_summary(&s->exact, al, c->ddof, q, n, &e);
        *out = (store_summary_values){ e.mean, e.std, s->exact.min, s->exact.max, e.median,
                                       { 0 } };
        memcpy(out->q, e.q, n * sizeof *q);
        return st;
    }
    if (n > SKETCH_MAX_QUANTILES)
        return LLMLAT_EINVAL;
    out->mean = sketch_mean(&s->sk);
    sketch_std(&s->sk, c->ddof, &out->std); /* NaN when undefined */
    out->min = s->sk.min;
    out->max = s->sk.max;
    out->median = sketch_quantile(&s->sk, s->map, 0.5);
    sketch_quantiles(&s->sk, s->map, q, n, out->q);
    return LLMLAT_OK;
}

LLMLAT_PRIVATE void store_count_classic(const metric_store *s, const double *bounds, size_t n,
                                        uint64_t *per)
{
    if (BOUNDED(s))
        sketch_count_classic(&s->sk, s->map, bounds, n, per);
    else
        exact_count_classic(&s->exact, bounds, n, per);
}

/* ------------------------------------------------- exact native buckets */

/* Exact mode's native buckets: the window the sketch of relative error
 * alpha would hold over the samples of e, counted in one pass over the
 * samples when the caller's buffer can hold the whole window, else two
 * (the first finds the buckets in use). */
typedef struct buckets_hist {
    int32_t schema;
    int64_t base, top; /* the window */
    double zero_threshold;
    uint64_t zero_count;
    int64_t low;       /* lowest index in use, INT64_MAX when none */
} buckets_hist;

static uint32_t buckets_weight(const exact_store *e, size_t i)
{
    return e->weighted ? e->w[i] : 1;
}

static void buckets_window(const exact_store *e, int32_t schema, buckets_hist *h)
{
    *h = (buckets_hist){ .schema = schema, .low = INT64_MAX };
    if (e->n == 0 || !(e->max > 0.0))
        return;
    h->top = sketch_schema_index(schema, e->max);
    h->base = h->top - ((int64_t)SKETCH_OCTAVES << schema);
    h->zero_threshold = sketch_schema_upper(schema, h->base - 1);
}

/* Adds the samples into counts[index - at] for the indexes in [from, top]
 * (counts NULL: only finds low); the rest into the zero count. */
static void buckets_count(const exact_store *e, buckets_hist *h, uint64_t *counts, int64_t at)
{
    h->zero_count = 0;
    for (size_t i = 0; i < e->n; i++) {
        double v = e->v[i];
        int64_t x = v > 0.0 ? sketch_schema_index(h->schema, v) : INT64_MIN;
        if (x < h->base) {
            h->zero_count += buckets_weight(e, i);
            continue;
        }
        if (x < h->low)
            h->low = x;
        if (counts)
            counts[x - at] += buckets_weight(e, i);
    }
}

static int32_t buckets_exact(const exact_store *e, int32_t schema, double *zero_threshold,
                             uint64_t *zero_count, int64_t *offset, uint64_t *counts,
                             size_t cap, size_t *len)
{
    buckets_hist h;
    buckets_window(e, schema, &h);
    size_t width = ((size_t)SKETCH_OCTAVES << schema) + 1, n = 0;
    bool any = e->n && e->max > 0.0;
    if (any && cap >= width) { /* count at index - base, then move down */
        memset(counts, 0, width * sizeof *counts);
        buckets_count(e, &h, counts, h.base);
        n = (size_t)(h.top - h.low + 1);
        memmove(counts, counts + (h.low - h.base), n * sizeof *counts);
    } else {
        buckets_count(e, &h, NULL, 0);
        n = h.low == INT64_MAX ? 0 : (size_t)(h.top - h.low + 1);
        if (cap < n) {
            *len = n;
            return LLMLAT_ENOSPC;
        }
        if (n) {
            memset(counts, 0, n * sizeof *counts);
            buckets_count(e, &h, counts, h.low);
        }
    }
    *len = n;
    *zero_threshold = h.zero_threshold;
    *zero_count = h.zero_count;
    *offset = n ? h.low : 0;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE int32_t store_native_buckets(const metric_store *s, double alpha, int32_t *schema,
                                            double *zero_threshold, uint64_t *zero_count,
                                            int64_t *offset, uint64_t *counts, size_t cap,
                                            size_t *len)
{
    if (!BOUNDED(s)) {
        *schema = sketch_schema_for(alpha);
        return buckets_exact(&s->exact, *schema, zero_threshold, zero_count, offset, counts,
                             cap, len);
    }
    size_t n;
    double zt;
    uint64_t zc;
    *schema = s->map->schema;
    sketch_buckets(&s->sk, s->map, &zt, &zc, offset, &n, NULL);
    *len = n;
    if (cap < n)
        return LLMLAT_ENOSPC;
    sketch_buckets(&s->sk, s->map, zero_threshold, zero_count, offset, &n, counts);
    return LLMLAT_OK;
}

LLMLAT_PRIVATE double store_min_positive(const metric_store *s)
{
    return BOUNDED(s) ? sketch_min_positive(&s->sk, s->map) : exact_min_positive(&s->exact);
}

LLMLAT_PRIVATE bool store_samples(const metric_store *s, const double **v, const uint32_t **w,
                                  size_t *n)
{
    bool keeps = !BOUNDED(s);
    *v = keeps ? s->exact.v : NULL;
    *w = keeps ? exact_weights(&s->exact) : NULL;
    *n = keeps ? s->exact.n : 0;
    return keeps;
}

LLMLAT_PRIVATE void store_write(bytes_writer *w, const metric_store *s)
{
    if (BOUNDED(s))
        sketch_write(w, &s->sk, s->map);
    else
        exact_write(w, &s->exact);
}

LLMLAT_PRIVATE int32_t store_read(bytes_reader *r, metric_store *s, const llmlat_alloc *al,
                                  uint32_t version)
{
    if (!BOUNDED(s))
        return exact_read(r, &s->exact, al);
    return version >= 2 ? sketch_read(r, &s->sk, s->map) : sketch_read_v1(r, &s->sk, s->map, al);
}
