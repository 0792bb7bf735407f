#include <math.h>
#include <string.h>

#include "exact_store.h"
#include "radix.h"

void exact_init(exact_store *s, bool weighted)
{
    memset(s, 0, sizeof *s);
    s->weighted = weighted;
}

void exact_free(exact_store *s, const llmlat_alloc *al)
{
    alloc_free(al, s->v);
    alloc_free(al, s->w);
    alloc_free(al, s->cum);
    exact_init(s, s->weighted);
}

void exact_clear(exact_store *s)
{
    s->n = 0;
    s->total_w = 0;
    s->min = s->max = 0.0;
    s->sorted = false;
}

int32_t exact_reserve(exact_store *s, const llmlat_alloc *al, size_t extra)
{
    if (extra > SIZE_MAX - s->n)
        return LLMLAT_EINVAL;
    size_t need = s->n + extra;
    if (need <= s->cap)
        return LLMLAT_OK;
    size_t cap_v = s->cap, cap_w = s->cap;
    void *v = s->v, *w = s->w;
    int32_t st = alloc_grow(al, &v, &cap_v, need, sizeof *s->v);
    if (st != LLMLAT_OK)
        return st;
    s->v = v; /* same samples in a bigger buffer */
    if (s->weighted) {
        st = alloc_grow(al, &w, &cap_w, need, sizeof *s->w);
        if (st != LLMLAT_OK)
            return st;
        s->w = w;
        if (cap_w < cap_v)
            cap_v = cap_w;
    }
    s->cap = cap_v;
    return LLMLAT_OK;
}

void exact_append(exact_store *dst, const exact_store *src)
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
    dst->sorted = false;
}

/* Sorts once and builds the weighted rank index; later queries are cheap. */
static int32_t ensure_sorted(exact_store *s, const llmlat_alloc *al)
{
    if (s->sorted)
        return LLMLAT_OK;
    if (s->weighted) {
        void *cum = s->cum;
        size_t cap = s->cum_cap;
        int32_t st = alloc_grow(al, &cum, &cap, s->n, sizeof *s->cum);
        if (st != LLMLAT_OK)
            return st;
        s->cum = cum;
        s->cum_cap = cap;
    }
    int32_t st = radix_sort(al, RADIX_DOUBLE, s->v, s->weighted ? s->w : NULL, s->n);
    if (st != LLMLAT_OK)
        return st;
    if (s->weighted) {
        uint64_t c = 0;
        for (size_t i = 0; i < s->n; i++) {
            c += s->w[i];
            s->cum[i] = c;
        }
    }
    s->sorted = true;
    return LLMLAT_OK;
}

static inline uint64_t weight_at(const exact_store *s, size_t i)
{
    return s->weighted ? s->w[i] : 1;
}

/* Neumaier's compensated sum: the error does not grow with n. */
typedef struct ksum {
    double sum, c;
} ksum;

static inline void ksum_add(ksum *k, double x)
{
    double t = k->sum + x;
    if (fabs(k->sum) >= fabs(x))
        k->c += (k->sum - t) + x;
    else
        k->c += (x - t) + k->sum;
    k->sum = t;
}

/* Visits runs of equal values in ascending order with their total weight,
 * so that the result depends only on the multiset of samples. */
#define FOR_EACH_RUN(s, value, weight, body)                                   \
    for (size_t i_ = 0; i_ < (s)->n;) {                                        \
        double value = (s)->v[i_];                                             \
        uint64_t weight = 0;                                                   \
        while (i_ < (s)->n && (s)->v[i_] == value)                             \
            weight += weight_at((s), i_++);                                    \
        body                                                                   \
    }

int32_t exact_mean(exact_store *s, const llmlat_alloc *al, double *out)
{
    int32_t st = ensure_sorted(s, al);
    if (st != LLMLAT_OK)
        return st;
    ksum k = { 0, 0 };
    FOR_EACH_RUN(s, v, w, { ksum_add(&k, v * (double)w); })
    *out = (k.sum + k.c) / (double)s->total_w;
    return LLMLAT_OK;
}

int32_t exact_std(exact_store *s, const llmlat_alloc *al, unsigned ddof, double *out)
{
    double mean;
    int32_t st = exact_mean(s, al, &mean);
    if (st != LLMLAT_OK)
        return st;
    if (s->total_w <= ddof) {
        *out = NAN;
        return LLMLAT_EUNDEFINED;
    }
    ksum k = { 0, 0 };
    FOR_EACH_RUN(s, v, w, {
        double d = v - mean;
        ksum_add(&k, d * d * (double)w);
    })
    *out = sqrt((k.sum + k.c) / (double)(s->total_w - ddof));
    return LLMLAT_OK;
}

/* The value at 0-based rank r of the expanded (weights as copies) sorted
 * samples. */
static double value_at_rank(const exact_store *s, uint64_t r)
{
    if (!s->weighted)
        return s->v[r];
    size_t lo = 0, hi = s->n - 1; /* first i with cum[i] > r */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->cum[mid] > r)
            hi = mid;
        else
            lo = mid + 1;
    }
    return s->v[lo];
}

/* numpy.lib.function_base._lerp: a + (b - a) * t, or from b when t >= 0.5.
 * Kept as separate statements; the build disables FP contraction. */
static double numpy_lerp(double a, double b, double t)
{
    double diff = b - a;
    if (t >= 0.5)
        return b - diff * (1.0 - t);
    return a + diff * t;
}

/* numpy's 'linear' method over n ranks: virtual index (n - 1) * q,
 * clamped to the last rank; gamma its fractional part. */
static double linear_quantile(const exact_store *s, uint64_t n, double q)
{
    double vi = (double)(n - 1) * q;
    if (vi >= (double)(n - 1))
        return value_at_rank(s, n - 1);
    double lo = floor(vi);
    uint64_t r = (uint64_t)lo;
    return numpy_lerp(value_at_rank(s, r), value_at_rank(s, r + 1), vi - lo);
}

double numpy_linear_quantile(const double *sorted, size_t n, double q)
{
    exact_store s = { .v = (double *)sorted, .n = n };
    return linear_quantile(&s, n, q);
}

int32_t exact_quantile(exact_store *s, const llmlat_alloc *al, double q, double *out)
{
    int32_t st = ensure_sorted(s, al);
    if (st != LLMLAT_OK)
        return st;
    *out = linear_quantile(s, s->total_w, q);
    return LLMLAT_OK;
}

/* numpy.median: the middle value, or the mean (a + b) / 2 of the two. */
int32_t exact_median(exact_store *s, const llmlat_alloc *al, double *out)
{
    int32_t st = ensure_sorted(s, al);
    if (st != LLMLAT_OK)
        return st;
    uint64_t n = s->total_w, half = n / 2;
    if (n % 2)
        *out = value_at_rank(s, half);
    else
        *out = (value_at_rank(s, half - 1) + value_at_rank(s, half)) / 2.0;
    return LLMLAT_OK;
}

size_t exact_memory(const exact_store *s)
{
    size_t per = sizeof *s->v + (s->weighted ? sizeof *s->w : 0);
    return s->cap * per + s->cum_cap * sizeof *s->cum;
}
