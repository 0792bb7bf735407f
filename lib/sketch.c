/* The bounded sketch: its window, merging, and the queries.
 *
 * The quantile guarantee. Let x(0) <= ... <= x(n-1) be the samples (a
 * sample of weight w counted w times) and E(q) what exact mode returns:
 * numpy's linear interpolation, x(r) + (x(r+1) - x(r)) t with r = floor((n -
 * 1) q), t its fraction. Here x(r) and x(r+1) are each replaced by their
 * bucket's value, which is within alpha of them (exact for 0, for the
 * minimum at rank 0 and the maximum at rank n - 1, and clamped into [min,
 * max], which only brings it closer). Interpolating with the same weights
 * (1 - t, t >= 0) between two values within alpha of x(r) and x(r+1)
 * gives a value within alpha of E(q). This holds for every sample in the
 * window; one more than 2^SKETCH_OCTAVES below the maximum sits in the
 * lowest bucket, and a quantile landing on it is only clamped. */
#include <math.h>
#include <string.h>

#include "sketch.h"

static void clear_state(sketch *s)
{
    s->top = SKETCH_NO_TOP;
    s->base = 0;
    s->low = INT64_MAX;
    s->count = s->zero = 0;
    s->min = INFINITY;
    s->max = -INFINITY;
    memset(&s->sums, 0, sizeof s->sums);
}

void sketch_init(sketch *s, double unit)
{
    memset(s, 0, sizeof *s);
    s->unit = unit;
    clear_state(s);
}

int32_t sketch_alloc(sketch *s, const llmlat_alloc *al, const sketch_map *m)
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

void sketch_free(sketch *s, const llmlat_alloc *al)
{
    alloc_free(al, s->bucket);
    s->bucket = NULL;
}

void sketch_clear(sketch *s)
{
    if (s->top != SKETCH_NO_TOP)
        memset(s->bucket + (s->low - s->base), 0,
               (size_t)(s->top - s->low + 1) * sizeof *s->bucket);
    clear_state(s);
}

void sketch_raise(sketch *s, const sketch_map *m, int64_t index)
{
    int64_t width = m->width;
    if (s->top == SKETCH_NO_TOP) { /* every bucket is 0: just place it */
        s->top = index;
        s->base = index - (width - 1);
        return;
    }
    /* Positions lo..hi are in use; each moves down by d, those reaching
     * position 0 or below fold into it. */
    int64_t d = index - s->top, lo = s->low - s->base, hi = s->top - s->base;
    uint64_t *b = s->bucket, folded = 0;
    int64_t p = lo;
    for (; p <= hi && p <= d; p++) {
        folded += b[p];
        b[p] = 0;
    }
    if (p <= hi) {
        memmove(b + (p - d), b + p, (size_t)(hi - p + 1) * sizeof *b);
        int64_t z = hi - d + 1 > p ? hi - d + 1 : p; /* vacated tail */
        memset(b + z, 0, (size_t)(hi - z + 1) * sizeof *b);
    }
    b[0] += folded;
    s->base += d;
    s->top = index;
    if (folded)
        s->low = s->base;
}

void sketch_add_int(sketch *s, const sketch_map *m, uint64_t x, double reported)
{
    s->count++;
    if (x)
        sketch_bump(s, m, sketch_map_index(m, (double)x), 1);
    else
        s->zero++;
    fixsum_add_int(&s->sums, x);
    sketch_note_range(s, reported, reported);
}

void sketch_add_double(sketch *s, const sketch_map *m, double x, double reported)
{
    s->count++;
    if (x > 0.0)
        sketch_bump(s, m, sketch_map_index(m, x), 1);
    else
        s->zero++;
    fixsum_add_double(&s->sums, x);
    sketch_note_range(s, reported, reported);
}

void sketch_merge(sketch *dst, const sketch *src, const sketch_map *m)
{
    if (src->top != SKETCH_NO_TOP) {
        if (src->top > dst->top)
            sketch_raise(dst, m, src->top);
        /* src position p is dst position p - shift (shift >= 0: dst's
         * window is at least as high); at or below 0 it folds into 0. */
        int64_t shift = dst->base - src->base, p = src->low - src->base;
        int64_t hi = src->top - src->base;
        uint64_t folded = 0;
        for (; p <= hi && p <= shift; p++)
            folded += src->bucket[p];
        dst->bucket[0] += folded;
        uint64_t *d = dst->bucket - shift;
        for (; p <= hi; p++)
            d[p] += src->bucket[p];
        int64_t low = src->low < dst->base ? dst->base : src->low;
        if (low < dst->low)
            dst->low = low;
    }
    dst->count += src->count;
    dst->zero += src->zero;
    sketch_note_range(dst, src->min, src->max);
    fixsum_merge(&dst->sums, &src->sums);
}

double sketch_mean(const sketch *s)
{
    return fixsum_mean(&s->sums, s->count) / s->unit;
}

int32_t sketch_std(const sketch *s, unsigned ddof, double *out)
{
    if (s->count <= ddof) {
        *out = NAN;
        return LLMLAT_EUNDEFINED;
    }
    *out = sqrt(fixsum_variance(&s->sums, s->count, ddof)) / s->unit;
    return LLMLAT_OK;
}

/* numpy's _lerp, as exact mode computes it (exact_store.c), so that both
 * modes interpolate alike. */
static double numpy_lerp(double a, double b, double t)
{
    double diff = b - a;
    return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

/* Where rank r lies: a bucket position, or -1 among the zeros. *end is
 * the number of samples up to and including that place. Scans from the
 * nearer end of the used range. */
static int64_t locate(const sketch *s, uint64_t r, uint64_t *end)
{
    const uint64_t *b = s->bucket;
    int64_t lo = s->low - s->base, hi = s->top - s->base;
    if (r < s->zero || s->top == SKETCH_NO_TOP) {
        *end = s->zero;
        return -1;
    }
    if (r < s->count / 2) {
        uint64_t cum = s->zero;
        for (int64_t p = lo;; p++) {
            cum += b[p];
            if (r < cum || p == hi) {
                *end = cum;
                return p;
            }
        }
    }
    uint64_t above = 0;
    for (int64_t p = hi;; p--) {
        if (s->count - above - b[p] <= r || p == lo) {
            *end = s->count - above;
            return p;
        }
        above += b[p];
    }
}

/* The reported value of a place found by locate(). */
static double place_value(const sketch *s, const sketch_map *m, int64_t p)
{
    if (p < 0)
        return 0.0;
    double v = sketch_map_value(m, s->base + p) / s->unit;
    return v < s->min ? s->min : v > s->max ? s->max : v;
}

static double rank_value(const sketch *s, const sketch_map *m, uint64_t r, int64_t p)
{
    if (r == 0)
        return s->min;
    if (r == s->count - 1)
        return s->max;
    return place_value(s, m, p);
}

double sketch_quantile(const sketch *s, const sketch_map *m, double q)
{
    uint64_t n = s->count;
    double vi = (double)(n - 1) * q; /* as exact mode: numpy's virtual index */
    if (vi >= (double)(n - 1))
        return s->max;
    double fl = floor(vi);
    uint64_t r = (uint64_t)fl, end;
    int64_t p = locate(s, r, &end);
    double a = rank_value(s, m, r, p);
    if (r + 1 >= end) { /* rank r + 1 is in the next non-empty place up */
        p = p < 0 ? s->low - s->base : p + 1;
        while (s->bucket[p] == 0)
            p++;
    }
    return numpy_lerp(a, rank_value(s, m, r + 1, p), vi - fl);
}

size_t sketch_memory(const sketch *s, const sketch_map *m)
{
    return s->bucket ? m->width * sizeof *s->bucket : 0;
}
