/* A sketch's section of the byte format (docs/format.md): its schema,
 * counts, extremes, exact sums and the buckets in use. The reader checks
 * what the queries rely on (a window in range, counts that add up, sums
 * that the buckets allow), so that a sketch read behaves like one built
 * by adding samples, and its bytes, written again, read again. */
#include <math.h>

#include "bounded/sketch_bytes.h"

LLMLAT_PRIVATE void sketch_write(bytes_writer *w, const sketch *s, const sketch_map *map)
{
    put_u32(w, (uint32_t)map->schema);
    put_u64(w, s->count);
    put_u64(w, s->zero);
    put_u64(w, s->below);
    put_f64(w, s->min);
    put_f64(w, s->max);
    for (int i = 0; i < 3; i++)
        put_u64(w, s->sums.s1[i]);
    for (int i = 0; i < 4; i++)
        put_u64(w, s->sums.s2[i]);
    if (s->top == SKETCH_NO_TOP) {
        put_u64(w, 0);
        return;
    }
    put_u64(w, (uint64_t)(s->top - s->low + 1));
    put_i64(w, s->low);
    for (int64_t i = s->low; i <= s->top; i++)
        put_varint(w, s->bucket[i - s->base]);
}

/* The sums as doubles (a few roundings: the checks below allow for
 * them): sum(w x) and sum(w x^2) in the internal unit. */
static double limbs_value(const uint64_t *l, int n)
{
    double v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v * 0x1p64 + (double)l[i];
    return v * 0x1p-64;
}

/* Slack of the checks that compare sums with what the buckets allow:
 * far above the roundings of honest data (1e-15), far below any real
 * contradiction. */
#define SUMS_SLACK 1e-9

LLMLAT_PRIVATE bool sketch_holds_together(const sketch *s, const sketch_range *r)
{
    if (s->count == 0) {
        uint64_t any = 0;
        for (int i = 0; i < 3; i++)
            any |= s->sums.s1[i];
        for (int i = 0; i < 4; i++)
            any |= s->sums.s2[i];
        return !any && s->min == INFINITY && s->max == -INFINITY;
    }
    if (!(s->min >= 0.0 && s->min <= s->max && isfinite(s->max)))
        return false;
    /* 0 is the minimum exactly when some sample is 0 */
    if ((s->min == 0.0) != (s->zero > 0))
        return false;
    double n = (double)s->count, u = s->unit;
    double sum = limbs_value(s->sums.s1, 3), sq = limbs_value(s->sums.s2, 4);
    double lo = s->min * u * (1 - SUMS_SLACK), hi = s->max * u * (1 + SUMS_SLACK);
    /* a fractional sample, and its square (a chunk's squares too), lose
     * less than 2^-64 when cut (fixsum.h): lower bounds allow n such cuts,
     * all of it for samples as small as 1e-21 s */
    double cut = n * 0x1p-64;
    /* the mean within [min, max], the sum within what the buckets allow,
     * the mean square between mean^2 (variance >= 0) and what they allow */
    if (!(sum >= lo * n - cut && sum <= hi * n))
        return false;
    if (!(sum >= r->sum_lo * u * (1 - SUMS_SLACK) - cut &&
          sum <= r->sum_hi * u * (1 + SUMS_SLACK)))
        return false;
    double mean = sum / n;
    return sq >= mean * mean * n * (1 - SUMS_SLACK) - cut &&
           sq <= r->sq_hi * u * u * (1 + SUMS_SLACK);
}

/* Adds c samples in (lo, hi] (exported unit) to what r allows. */
LLMLAT_PRIVATE void sketch_range_add(sketch_range *r, uint64_t c, double lo, double hi)
{
    r->sum_lo += (double)c * lo;
    r->sum_hi += (double)c * hi;
    r->sq_hi += (double)c * hi * hi;
}

/* The buckets, low..top, and what they say of the window, the zero bucket
 * and the extremes: top is the maximum's bucket, both ends non-zero,
 * everything adding up to count; the minimum is the lowest bucket's when
 * nothing lies below it, else 0 (zeros) or at most the threshold. */
static int32_t read_buckets(bytes_reader *r, sketch *s, const sketch_map *map, uint64_t n)
{
    int64_t low = get_i64(r);
    if (r->bad || n > map->width || !(s->max > 0.0) ||
        low != sketch_map_index(map, s->max) - (int64_t)n + 1)
        return LLMLAT_EFORMAT;
    s->top = low + (int64_t)n - 1;
    s->base = s->top - (int64_t)map->width + 1;
    s->low = low;
    uint64_t total = s->zero;
    if (s->below > UINT64_MAX - total)
        return LLMLAT_EFORMAT;
    total += s->below;
    for (int64_t i = low; i <= s->top; i++) {
        uint64_t c = get_varint(r);
        if (r->bad || c > UINT64_MAX - total || (c == 0 && (i == low || i == s->top)))
            return LLMLAT_EFORMAT;
        s->bucket[i - s->base] = c;
        total += c;
    }
    return total == s->count && sketch_buckets_hold(s, map) ? LLMLAT_OK : LLMLAT_EFORMAT;
}

LLMLAT_PRIVATE bool sketch_buckets_hold(const sketch *s, const sketch_map *map)
{
    double z = sketch_zero_threshold(s, map);
    sketch_range range = { 0, 0, 0 };
    sketch_range_add(&range, s->below, 0.0, z);
    for (int64_t i = s->low; i <= s->top; i++)
        sketch_range_add(&range, s->bucket[i - s->base], sketch_map_upper(map, i - 1),
                         sketch_map_upper(map, i));
    bool min_placed = s->zero ? true
                    : s->below ? s->min > 0.0 && s->min <= z
                               : sketch_map_index(map, s->min) == s->low;
    return min_placed && sketch_holds_together(s, &range);
}

LLMLAT_PRIVATE void get_fixsum(bytes_reader *r, fixsum *f)
{
    for (int i = 0; i < 3; i++)
        f->s1[i] = get_u64(r);
    for (int i = 0; i < 4; i++)
        f->s2[i] = get_u64(r);
}

LLMLAT_PRIVATE int32_t sketch_read(bytes_reader *r, sketch *s, const sketch_map *map)
{
    uint32_t schema = get_u32(r);
    s->count = get_u64(r);
    s->zero = get_u64(r);
    s->below = get_u64(r);
    s->min = get_f64(r);
    s->max = get_f64(r);
    get_fixsum(r, &s->sums);
    uint64_t n = get_u64(r);
    if (r->bad || schema != (uint32_t)map->schema || s->zero > s->count ||
        s->below > s->count - s->zero)
        return LLMLAT_EFORMAT;
    if (n == 0) { /* no sample above 0 */
        sketch_range none = { 0, 0, 0 };
        return s->below == 0 && s->zero == s->count && sketch_holds_together(s, &none)
                   ? LLMLAT_OK
                   : LLMLAT_EFORMAT;
    }
    if (!s->bucket) /* a metric without samples of its own */
        return LLMLAT_EFORMAT;
    return read_buckets(r, s, map, n);
}
