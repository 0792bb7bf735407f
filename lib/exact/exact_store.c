#include <math.h>
#include <string.h>

#include "exact/exact_store.h"
#include "util/radix.h"
#include "util/ranks.h"
#include "exact/select.h"
#include "util/bounds.h"
#include "util/fixsum.h"
#include "util/gridsum.h"

LLMLAT_PRIVATE void exact_init(exact_store *s, bool weighted)
{
    memset(s, 0, sizeof *s);
    s->weighted = weighted;
}

LLMLAT_PRIVATE void exact_free(exact_store *s, const llmlat_alloc *al)
{
    alloc_free(al, s->v);
    alloc_free(al, s->w);
    exact_init(s, s->weighted);
}

LLMLAT_PRIVATE void exact_clear(exact_store *s)
{
    s->n = 0;
    s->total_w = 0;
    s->min = s->max = 0.0;
}

LLMLAT_PRIVATE int32_t exact_reserve(exact_store *s, const llmlat_alloc *al, size_t extra)
{
    if (extra > SIZE_MAX - s->n)
        return LLMLAT_EOVERFLOW;
    size_t need = s->n + extra;
    if (need <= s->cap)
        return LLMLAT_OK;
    void *v = s->v, *w = s->w;
    int32_t st = alloc_grow_pair(al, &v, sizeof *s->v, s->weighted ? &w : NULL, sizeof *s->w,
                                 &s->cap, need);
    s->v = v;
    s->w = w;
    return st;
}

LLMLAT_PRIVATE void exact_append(exact_store *dst, const exact_store *src)
{
    if (src->n == 0)
        return;
    memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
    if (dst->weighted)
        memcpy(dst->w + dst->n, src->w, src->n * sizeof *src->w);
    if (dst->total_w == 0 || src->min < dst->min)
        dst->min = src->min;
    if (dst->total_w == 0 || src->max > dst->max)
        dst->max = src->max;
    dst->n += src->n;
    dst->total_w += src->total_w;
}

LLMLAT_PRIVATE int32_t exact_mean(const exact_store *s, double *out)
{
    *out = gridsum(s->v, exact_weights(s), s->n, s->total_w, s->max, 0, 0.0) /
           (double)s->total_w;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE double exact_sum(const exact_store *s)
{
    uint64_t acc[FIXSUM_WIDE] = { 0 };
    fixsum_accumulate(acc, s->v, exact_weights(s), s->n);
    return fixsum_total(acc, FIXSUM_WIDE, 1);
}

/* The squared deviations from the mean (numpy's second pass). */
static double std_around(const exact_store *s, unsigned ddof, double mean)
{
    double lo = s->min - mean, hi = s->max - mean;
    double largest = lo * lo > hi * hi ? lo * lo : hi * hi;
    double sq = gridsum(s->v, exact_weights(s), s->n, s->total_w, largest, 1, mean);
    return sqrt(sq / (double)(s->total_w - ddof));
}

/* Two passes, as numpy does: the mean, then the squared deviations. */
LLMLAT_PRIVATE int32_t exact_std(const exact_store *s, unsigned ddof, double *out)
{
    if (s->total_w <= ddof) {
        *out = NAN;
        return LLMLAT_EUNDEFINED;
    }
    double mean;
    int32_t st = exact_mean(s, &mean);
    if (st != LLMLAT_OK)
        return st;
    *out = std_around(s, ddof, mean);
    return LLMLAT_OK;
}

static int32_t at_ranks(const exact_store *s, const llmlat_alloc *al, const uint64_t *ranks,
                        size_t n, double *out)
{
    return select_ranks(al, s->v, exact_weights(s), s->n, double_key(s->min),
                        double_key(s->max), ranks, n, out);
}

/* The quantiles' ranks and the median's (util/ranks.h has the rule) in
 * one selection; median may be NULL (then only the quantiles). */
static int32_t quantiles_and_median(const exact_store *s, const llmlat_alloc *al, const double *q,
                                    size_t n, double *out, double *median)
{
    if (n > RANKS_MAX_Q)
        return LLMLAT_EINVAL;
    quantile_plan p;
    quantile_plan_make(&p, s->total_w, q, n, median ? PLAN_MEDIAN : 0);
    double at[PLAN_MAX_RANKS];
    int32_t st = at_ranks(s, al, p.ranks, p.n_ranks, at);
    if (st != LLMLAT_OK)
        return st;
    quantile_plan_values(&p, at, s->max, out);
    if (median)
        *median = quantile_plan_median(&p, at);
    return LLMLAT_OK;
}

LLMLAT_PRIVATE int32_t exact_quantiles(const exact_store *s, const llmlat_alloc *al,
                                       const double *q, size_t n, double *out)
{
    return quantiles_and_median(s, al, q, n, out, NULL);
}

LLMLAT_PRIVATE int32_t exact_median(const exact_store *s, const llmlat_alloc *al, double *out)
{
    return quantiles_and_median(s, al, NULL, 0, NULL, out);
}

LLMLAT_PRIVATE int32_t exact_summary(const exact_store *s, const llmlat_alloc *al,
                                     unsigned ddof, const double *q, size_t n,
                                     exact_summary_values *out)
{
    int32_t st = quantiles_and_median(s, al, q, n, out->q, &out->median);
    if (st != LLMLAT_OK)
        return st;
    exact_mean(s, &out->mean);
    out->std = s->total_w > ddof ? std_around(s, ddof, out->mean) : NAN;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE void exact_count_classic(const exact_store *s, const double *bounds, size_t n,
                                        uint64_t *per)
{
    for (size_t i = 0; i < s->n; i++)
        per[bounds_index(bounds, n, s->v[i])] += s->weighted ? s->w[i] : 1;
}

LLMLAT_PRIVATE double exact_min_positive(const exact_store *s)
{
    double lo = NAN;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i] > 0.0 && !(s->v[i] >= lo))
            lo = s->v[i];
    return lo;
}

LLMLAT_PRIVATE size_t exact_memory(const exact_store *s)
{
    return s->cap * (sizeof *s->v + (s->weighted ? sizeof *s->w : 0));
}
