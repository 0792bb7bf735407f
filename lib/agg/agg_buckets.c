/* llmlat_agg_buckets: one metric's native-histogram buckets, for
 * exporters. Bounded mode hands out its sketch; exact mode counts its
 * samples into the buckets the same sketch would hold (the schema of its
 * relative error, the same window below the largest sample), so both
 * modes export the same histogram for the same samples. */
#include <string.h>

#include "agg/agg.h"

/* Exact mode: the sketch's window over the samples of e, in one pass over
 * the samples when the caller's buffer can hold the whole window, else
 * two (the first finds the buckets in use). */
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

LLMLAT_API int32_t llmlat_agg_buckets(const llmlat_agg *a, int32_t metric, int32_t *schema,
                                      double *zero_threshold, uint64_t *zero_count,
                                      int32_t *offset, uint64_t *counts, size_t cap, size_t *len)
{
    if (!a || !metric_valid(metric) || !schema || !zero_threshold || !zero_count || !offset ||
        !len || (!counts && cap > 0))
        return LLMLAT_EINVAL;
    const metric_store *s = agg_store(a, metric);
    bool bounded = a->mode == LLMLAT_MODE_BOUNDED;
    int32_t sch = bounded ? s->map->schema
                          : sketch_schema_for(agg_param(a, LLMLAT_PARAM_RELATIVE_ERROR));
    int64_t at = 0;
    bool lacks = agg_lacks_reason(a, LLMLAT_KIND_METRIC, metric) != NULL;
    if (lacks) {
        /* what the data lack has no buckets either, whatever the store holds */
        *zero_threshold = 0.0;
        *zero_count = 0;
        *len = 0;
    } else if (bounded) {
        size_t n;
        double zt;
        uint64_t zc;
        sketch_buckets(&s->sk, s->map, &zt, &zc, &at, &n, NULL);
        *len = n;
        if (cap < n)
            return LLMLAT_ENOSPC;
        sketch_buckets(&s->sk, s->map, zero_threshold, zero_count, &at, &n, counts);
    } else {
        int32_t st = buckets_exact(&s->exact, sch, zero_threshold, zero_count, &at, counts, cap,
                                   len);
        if (st != LLMLAT_OK)
            return st;
    }
    *schema = sch;
    *offset = (int32_t)at; /* indexes of finite doubles fit: |index| < 2^23 */
    return lacks ? LLMLAT_EUNDEFINED : LLMLAT_OK;
}
