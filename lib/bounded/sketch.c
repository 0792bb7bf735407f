/* The bounded sketch: its window and zero bucket, merging, and the
 * queries.
 *
 * The quantile guarantee. Let x(0) <= ... <= x(n-1) be the samples (a
 * sample of weight w counted w times) and E(q) what exact mode returns:
 * numpy's linear interpolation, x(r) + (x(r+1) - x(r)) t with r = floor((n -
 * 1) q), t its fraction. Here x(r) and x(r+1) are each replaced by the
 * value of their place: exact for 0, for the minimum at rank 0 and the
 * maximum at rank n - 1; a bucket's representative, within the schema's
 * error e of everything in it, clamped into [min, max] (which only brings
 * it closer). Interpolating with the same weights (1 - t, t >= 0) between
 * two values within e of x(r) and x(r+1) gives a value within e of E(q).
 * A sample in the zero bucket above 0 (below the window, more than
 * 2^SKETCH_OCTAVES below the maximum) lies in (0, z], z the threshold,
 * and stands as 2 min z / (min + z): within (z - min) / (z + min) <= 1
 * of it. */
#include <math.h>
#include <string.h>

#include "util/bounds.h"
#include "util/ranks.h"
#include "bounded/sketch.h"

static void clear_state(sketch *s)
{
    s->top = SKETCH_NO_TOP;
    s->base = 0;
    s->low = INT64_MAX;
    s->count = s->zero = s->below = 0;
    s->min = INFINITY;
    s->max = -INFINITY;
    memset(&s->sums, 0, sizeof s->sums);
}

LLMLAT_PRIVATE void sketch_init(sketch *s, double unit)
{
    memset(s, 0, sizeof *s);
    s->unit = unit;
    clear_state(s);
}

LLMLAT_PRIVATE int32_t sketch_alloc(sketch *s, const llmlat_alloc *al, const sketch_map *m)
{
    uint64_t *b = alloc_malloc(al, m->width * sizeof *b);
    if (!b)
        return LLMLAT_ENOMEM;
    memset(b, 0, m->width * sizeof *b);
    alloc_free(al, s->bucket);
    s->bucket = b;
    clear_state(s);
    return LLMLAT_OK;
}

LLMLAT_PRIVATE void sketch_free(sketch *s, const llmlat_alloc *al)
{
    alloc_free(al, s->bucket);
    s->bucket = NULL;
}

LLMLAT_PRIVATE void sketch_clear(sketch *s)
{
    if (s->top != SKETCH_NO_TOP)
        memset(s->bucket + (s->low - s->base), 0,
               (size_t)(s->top - s->low + 1) * sizeof *s->bucket);
    clear_state(s);
}

LLMLAT_PRIVATE void sketch_raise(sketch *s, const sketch_map *m, int64_t index)
{
    int64_t width = m->width;
    if (s->top == SKETCH_NO_TOP) { /* every bucket is 0: just place it */
        s->top = index;
        s->base = index - (width - 1);
        return;
    }
    /* Positions lo..hi are in use; each moves down by d, those going
     * below position 0 leave the window for the zero bucket. */
    int64_t d = index - s->top, lo = s->low - s->base, hi = s->top - s->base;
    uint64_t *b = s->bucket, left = 0;
    int64_t p = lo;
    for (; p <= hi && p < d; p++) {
        left += b[p];
        b[p] = 0;
    }
    while (p <= hi && !b[p]) /* the new lowest count */
        p++;
    if (p <= hi) {
        memmove(b + (p - d), b + p, (size_t)(hi - p + 1) * sizeof *b);
        int64_t z = hi - d + 1 > p ? hi - d + 1 : p; /* vacated tail */
        memset(b + z, 0, (size_t)(hi - z + 1) * sizeof *b);
    }
    s->below += left;
    s->base += d;
    s->top = index;
    s->low = p <= hi ? s->base + (p - d) : INT64_MAX;
}

LLMLAT_PRIVATE void sketch_merge(sketch *dst, const sketch *src, const sketch_map *m)
{
    if (src->top != SKETCH_NO_TOP) {
        if (src->top > dst->top)
            sketch_raise(dst, m, src->top);
        /* src position p is dst position p - shift (shift >= 0: dst's
         * window is at least as high); below 0 it is below the window. */
        int64_t shift = dst->base - src->base, p = src->low - src->base;
        int64_t hi = src->top - src->base;
        uint64_t left = 0;
        for (; p <= hi && p < shift; p++)
            left += src->bucket[p];
        dst->below += left;
        for (; p <= hi; p++)
            dst->bucket[p - shift] += src->bucket[p];
        int64_t low = src->low - src->base >= shift ? src->low : INT64_MAX;
        if (low == INT64_MAX) { /* src's lowest count left: find its next */
            for (p = shift; p <= hi && !src->bucket[p]; p++)
                ;
            low = p <= hi ? src->base + p : INT64_MAX;
        }
        if (low < dst->low)
            dst->low = low;
    }
    dst->count += src->count;
    dst->zero += src->zero;
    dst->below += src->below;
    sketch_note_range(dst, src->min, src->max);
    fixsum_merge(&dst->sums, &src->sums);
}

LLMLAT_PRIVATE double sketch_zero_threshold(const sketch *s, const sketch_map *m)
{
    return s->top == SKETCH_NO_TOP ? 0.0 : sketch_map_upper(m, s->base - 1);
}

LLMLAT_PRIVATE void sketch_buckets(const sketch *s, const sketch_map *m, double *zero_threshold,
                                   uint64_t *zero_count, int64_t *offset, size_t *len,
                                   uint64_t *counts)
{
    *zero_threshold = sketch_zero_threshold(s, m);
    *zero_count = s->zero + s->below;
    bool any = s->top != SKETCH_NO_TOP;
    *offset = any ? s->low : 0;
    *len = any ? (size_t)(s->top - s->low + 1) : 0;
    if (counts && *len)
        memcpy(counts, s->bucket + (s->low - s->base), *len * sizeof *counts);
}

LLMLAT_PRIVATE double sketch_mean(const sketch *s)
{
    return fixsum_mean(&s->sums, s->count) / s->unit;
}

LLMLAT_PRIVATE double sketch_sum(const sketch *s)
{
    return fixsum_total(s->sums.s1, 3, (uint32_t)s->unit);
}

LLMLAT_PRIVATE int32_t sketch_std(const sketch *s, unsigned ddof, double *out)
{
    if (s->count <= ddof) {
        *out = NAN;
        return LLMLAT_EUNDEFINED;
    }
    *out = sqrt(fixsum_variance(&s->sums, s->count, ddof)) / s->unit;
    return LLMLAT_OK;
}

/* A place in the sorted samples: bucket position p, or PLACE_ZERO (the
 * exact zeros) or PLACE_BELOW (above 0, below the window), holding the
 * ranks [end - its count, end). */
#define PLACE_ZERO (-2)
#define PLACE_BELOW (-1)

typedef struct cursor {
    int64_t p;
    uint64_t end;
} cursor;

static uint64_t place_count(const sketch *s, int64_t p)
{
    return p == PLACE_ZERO ? s->zero : p == PLACE_BELOW ? s->below : s->bucket[p];
}

/* Moves c up to the place holding rank r < count, eight buckets at a time
 * while r is beyond them. Starts below everything: { PLACE_ZERO - 1, 0 }. */
static inline void advance(const sketch *s, cursor *c, uint64_t r)
{
    while (c->p < PLACE_BELOW) { /* first the zero bucket */
        if (r < c->end)
            return;
        c->p++;
        c->end += place_count(s, c->p);
    }
    if (r < c->end)
        return;
    const uint64_t *b = s->bucket;
    int64_t p = c->p < 0 ? s->low - s->base : c->p + 1, stop = s->top - s->base + 1;
    uint64_t cum = c->end;
    for (; p + 8 <= stop; p += 8) {
        uint64_t sum = (b[p] + b[p + 1]) + (b[p + 2] + b[p + 3]) + (b[p + 4] + b[p + 5]) +
                       (b[p + 6] + b[p + 7]);
        if (r < cum + sum)
            break;
        cum += sum;
    }
    for (;; p++) { /* ends at the latest on the top bucket: r < count */
        cum += b[p];
        if (r < cum)
            break;
    }
    c->p = p;
    c->end = cum;
}

/* Moves c down to the place holding rank r, likewise, from above
 * everything: { top position + 1, count }. */
static inline void retreat(const sketch *s, cursor *c, uint64_t r)
{
    int64_t p = c->p, top = s->top == SKETCH_NO_TOP ? -1 : s->top - s->base;
    uint64_t end = c->end;
    if (p <= top) { /* a place: r in it, or below it */
        uint64_t here = place_count(s, p);
        if (r >= end - here)
            return;
        end -= here;
    }
    if (p >= 0) { /* end counts the ranks up to place p - 1 */
        const uint64_t *b = s->bucket;
        int64_t lo = s->low - s->base;
        for (; p - 8 >= lo; p -= 8) {
            uint64_t sum = (b[p - 1] + b[p - 2]) + (b[p - 3] + b[p - 4]) +
                           (b[p - 5] + b[p - 6]) + (b[p - 7] + b[p - 8]);
            if (r >= end - sum)
                break;
            end -= sum;
        }
        for (p--; p >= lo; p--) {
            if (r >= end - b[p])
                break;
            end -= b[p];
        }
        if (p >= lo) {
            c->p = p;
            c->end = end;
            return;
        }
        p = 0;
    }
    /* the zero bucket: below the window, then the zeros */
    if (p > PLACE_BELOW) {
        if (r >= end - s->below) {
            c->p = PLACE_BELOW;
            c->end = end;
            return;
        }
        end -= s->below;
    }
    c->p = PLACE_ZERO;
    c->end = end;
}

/* The value of rank r, at place p: exact at both ends, else its place's
 * value clamped into [min, max]. */
static double rank_value(const sketch *s, const sketch_map *m, uint64_t r, int64_t p)
{
    if (r == 0)
        return s->min;
    if (r == s->count - 1)
        return s->max;
    if (p == PLACE_ZERO)
        return 0.0;
    double v;
    if (p == PLACE_BELOW) {
        double z = sketch_zero_threshold(s, m);
        v = 2.0 * s->min * z / (s->min + z);
    } else {
        v = sketch_map_value(m, s->base + p);
    }
    return v < s->min ? s->min : v > s->max ? s->max : v;
}

/* The quantile between ranks r and r + 1 (fraction gamma), found in the
 * places c and next. */
static double interpolate(const sketch *s, const sketch_map *m, double gamma, uint64_t r,
                          cursor c, cursor next)
{
    double a = rank_value(s, m, r, c.p);
    /* ranks r and r + 1 mostly share a bucket (and its value) */
    bool same = next.p == c.p && r > 0 && r + 1 < s->count - 1;
    double b = same ? a : rank_value(s, m, r + 1, next.p);
    return numpy_lerp(a, b, gamma);
}

LLMLAT_PRIVATE void sketch_quantiles(const sketch *s, const sketch_map *m, const double *q,
                                     size_t n, double *out)
{
    /* by ascending q: up to the median in one pass up from the bottom, the
     * tail quantiles (the ones people ask for) in one pass down from the
     * top, where they are a few buckets away */
    size_t order[SKETCH_MAX_QUANTILES];
    quantile_order(q, n, order);
    size_t split = 0;
    while (split < n && q[order[split]] <= 0.5)
        split++;
    cursor up = { PLACE_ZERO - 1, 0 };
    for (size_t k = 0; k < split; k++) {
        uint64_t r;
        double gamma;
        if (!quantile_rank(s->count, q[order[k]], &r, &gamma)) { /* n = 1 */
            out[order[k]] = s->max;
            continue;
        }
        advance(s, &up, r);
        cursor next = up;
        advance(s, &next, r + 1);
        out[order[k]] = interpolate(s, m, gamma, r, up, next);
    }
    cursor down = { s->top == SKETCH_NO_TOP ? 0 : s->top - s->base + 1, s->count };
    for (size_t k = n; k > split; k--) {
        size_t i = order[k - 1];
        uint64_t r;
        double gamma;
        if (!quantile_rank(s->count, q[i], &r, &gamma)) {
            out[i] = s->max;
            continue;
        }
        retreat(s, &down, r + 1);
        cursor below = down;
        retreat(s, &below, r);
        out[i] = interpolate(s, m, gamma, r, below, down);
    }
}

LLMLAT_PRIVATE void sketch_inverse_cdf(const sketch *s, const sketch_map *m, const double *q,
                                       size_t n, double *out)
{
    size_t order[SKETCH_MAX_INVERSE_CDF];
    quantile_order(q, n, order);
    cursor up = { PLACE_ZERO - 1, 0 };
    for (size_t k = 0; k < n; k++) {
        /* the first rank whose cumulative weight r + 1 reaches q W */
        double reach = ceil(q[order[k]] * (double)s->count);
        /* (double)count may round up to 2^64, which no uint64 holds */
        uint64_t r = reach < 1.0                     ? 0
                     : reach < 18446744073709551616.0 ? (uint64_t)reach - 1
                                                      : s->count - 1;
        if (r > s->count - 1)
            r = s->count - 1;
        advance(s, &up, r);
        out[order[k]] = rank_value(s, m, r, up.p);
    }
}

LLMLAT_PRIVATE double sketch_quantile(const sketch *s, const sketch_map *m, double q)
{
    double v;
    sketch_quantiles(s, m, &q, 1, &v);
    return v;
}

/* Each bucket counted at its value, which is within the schema's error of
 * every sample in it (so a sample that close to a bound may land on
 * either side of it); the zero bucket (zeros, and the samples more than
 * 2^31 below the largest) at 0. A sample keeps its bucket until the window
 * leaves it behind, and then moves to 0, below any value: counts only
 * ever move down, so no cumulative count drops. (At the minimum instead, a
 * sample could move up across a bound, from its bucket's value to a
 * minimum above it in the same bucket.) */
LLMLAT_PRIVATE void sketch_count_classic(const sketch *s, const sketch_map *m,
                                         const double *bounds, size_t n, uint64_t *per)
{
    size_t k = bounds_index(bounds, n, 0.0);
    per[k] += s->zero + s->below;
    if (s->top == SKETCH_NO_TOP)
        return;
    /* values ascend with the index: one walk along the bounds */
    for (int64_t i = s->low; i <= s->top; i++) {
        uint64_t w = s->bucket[i - s->base];
        if (!w)
            continue;
        double v = sketch_map_value(m, i);
        while (k < n && bounds[k] < v)
            k++;
        per[k] += w;
    }
}

LLMLAT_PRIVATE double sketch_min_positive(const sketch *s, const sketch_map *m)
{
    if (s->top == SKETCH_NO_TOP)
        return NAN;
    return s->min > 0.0 ? s->min : sketch_map_value(m, s->low) / s->unit;
}

LLMLAT_PRIVATE size_t sketch_memory(const sketch *s, const sketch_map *m)
{
    return s->bucket ? m->width * sizeof *s->bucket : 0;
}
