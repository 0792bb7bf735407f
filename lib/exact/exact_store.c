#include <math.h>
#include <string.h>

#include "exact/exact_store.h"
#include "exact/radix.h"
#include "exact/select.h"
#include "util/fixsum.h"
#include "util/gridsum.h"
#include "util/lerp.h"

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

/* The weights, or NULL when every one is 1 (as with one token per event):
 * weights are >= 1, so that is when they sum to the number of samples,
 * and then the queries need not read them. */
static const uint32_t *weights_of(const exact_store *s)
{
    return s->weighted && s->total_w != s->n ? s->w : NULL;
}

LLMLAT_PRIVATE int32_t exact_mean(const exact_store *s, double *out)
{
    *out = gridsum(s->v, weights_of(s), s->n, s->total_w, s->max, 0, 0.0) /
           (double)s->total_w;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE double exact_sum(const exact_store *s)
{
    uint64_t acc[FIXSUM_WIDE] = { 0 };
    fixsum_accumulate(acc, s->v, weights_of(s), s->n);
    return fixsum_total(acc, FIXSUM_WIDE, 1);
}

/* The squared deviations from the mean (numpy's second pass). */
static double std_around(const exact_store *s, unsigned ddof, double mean)
{
    double lo = s->min - mean, hi = s->max - mean;
    double largest = lo * lo > hi * hi ? lo * lo : hi * hi;
    double sq = gridsum(s->v, weights_of(s), s->n, s->total_w, largest, 1, mean);
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
    return select_ranks(al, s->v, weights_of(s), s->n, double_key(s->min),
                        double_key(s->max), ranks, n, out);
}

/* numpy.median's ranks: the middle one, or the two around the middle. */
static size_t median_ranks(const exact_store *s, uint64_t r[2])
{
    uint64_t n = s->total_w, half = n / 2;
    if (n % 2) {
        r[0] = half;
        return 1;
    }
    r[0] = half - 1;
    r[1] = half;
    return 2;
}

/* numpy.median: the middle value, or the mean (a + b) / 2 of the two. */
static double median_of(const double *v, size_t n)
{
    return n == 1 ? v[0] : (v[0] + v[1]) / 2.0;
}

/* numpy's 'linear' method: virtual index (n - 1) * q (clamped to the last
 * rank), interpolating between the values at its floor and the next rank.
 * All quantiles' ranks, and `n_extra` more (ascending or not), go to one
 * selection; extra_out gets the values at the extra ranks. */
static int32_t quantiles_and(const exact_store *s, const llmlat_alloc *al, const double *q,
                             size_t n, double *out, const uint64_t *extra, size_t n_extra,
                             double *extra_out)
{
    uint64_t last = s->total_w - 1;
    uint64_t ranks[SELECT_MAX_RANKS];
    double at[SELECT_MAX_RANKS], gamma[32];
    size_t lo_index[32], nr = 0;
    if (n > 32 || n_extra > 2)
        return LLMLAT_EINVAL;
    /* ranks must ascend: collect, then sort the (few) of them */
    for (size_t i = 0; i < n; i++) {
        double vi = (double)last * q[i];
        if (vi >= (double)last) {
            lo_index[i] = SIZE_MAX; /* the maximum */
            continue;
        }
        double lo = floor(vi);
        gamma[i] = vi - lo;
        ranks[nr++] = (uint64_t)lo;
        ranks[nr++] = (uint64_t)lo + 1;
        lo_index[i] = 0;
    }
    for (size_t i = 0; i < n_extra; i++)
        ranks[nr++] = extra[i];
    for (size_t i = 1; i < nr; i++) /* insertion sort + dedupe below */
        for (size_t j = i; j > 0 && ranks[j - 1] > ranks[j]; j--) {
            uint64_t tmp = ranks[j];
            ranks[j] = ranks[j - 1];
            ranks[j - 1] = tmp;
        }
    size_t nu = 0;
    for (size_t i = 0; i < nr; i++)
        if (nu == 0 || ranks[nu - 1] != ranks[i])
            ranks[nu++] = ranks[i];
    int32_t st = at_ranks(s, al, ranks, nu, at);
    if (st != LLMLAT_OK)
        return st;
    for (size_t i = 0; i < n; i++) {
        if (lo_index[i] == SIZE_MAX) {
            out[i] = s->max;
            continue;
        }
        uint64_t lo = (uint64_t)floor((double)last * q[i]);
        size_t k = 0;
        while (ranks[k] != lo)
            k++;
        out[i] = numpy_lerp(at[k], at[k + 1], gamma[i]);
    }
    for (size_t i = 0; i < n_extra; i++) {
        size_t k = 0;
        while (ranks[k] != extra[i])
            k++;
        extra_out[i] = at[k];
    }
    return LLMLAT_OK;
}

LLMLAT_PRIVATE int32_t exact_quantiles(const exact_store *s, const llmlat_alloc *al,
                                       const double *q, size_t n, double *out)
{
    return quantiles_and(s, al, q, n, out, NULL, 0, NULL);
}

LLMLAT_PRIVATE int32_t exact_median(const exact_store *s, const llmlat_alloc *al, double *out)
{
    uint64_t r[2];
    double v[2];
    size_t nr = median_ranks(s, r);
    int32_t st = at_ranks(s, al, r, nr, v);
    if (st == LLMLAT_OK)
        *out = median_of(v, nr);
    return st;
}

LLMLAT_PRIVATE int32_t exact_summary(const exact_store *s, const llmlat_alloc *al,
                                     unsigned ddof, const double *q, size_t n,
                                     exact_summary_values *out)
{
    uint64_t r[2];
    double v[2];
    size_t nr = median_ranks(s, r);
    int32_t st = quantiles_and(s, al, q, n, out->q, r, nr, v);
    if (st != LLMLAT_OK)
        return st;
    out->median = median_of(v, nr);
    exact_mean(s, &out->mean);
    out->std = s->total_w > ddof ? std_around(s, ddof, out->mean) : NAN;
    return LLMLAT_OK;
}

LLMLAT_PRIVATE size_t exact_memory(const exact_store *s)
{
    return s->cap * (sizeof *s->v + (s->weighted ? sizeof *s->w : 0));
}
