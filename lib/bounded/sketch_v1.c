/* Version 1's sketch sections (llmlat 1.0), read into version 2's
 * sketches. Version 1 counted samples in DDSketch-style buckets of the
 * internal unit (docs/format.md, "Version 1's bucket layout"); each is
 * converted at its representative value into the native-histogram buckets
 * of the same relative error, and the counts, sums, min and max are
 * carried exactly. A quantile of the copy is then within
 * alpha + e + alpha e of exact mode's (e the schema's error): the v1 value
 * was within alpha of its samples, the new bucket's within e of that value
 * (docs/bounded.md). */
#include <math.h>

#include "bounded/sketch_bytes.h"

/* Version 1's layout for alpha: M buckets per power of two, their edges on
 * a grid of 2^c cells per power of two. */
typedef struct v1_layout {
    uint32_t per_octave, cell_bits;
    uint32_t *first; /* M + 1 edges, in cells from the octave's start */
} v1_layout;

#define V1_OCTAVES 32
#define V1_ALPHA_MARGIN (1.0 / 1073741824.0)

/* Greedy edges from the bottom of the octave: each bucket reaches as far as
 * hi <= gamma lo allows (cell i starts at (2^c + i) 2^(e - c)). Writes
 * first[] when it is not NULL; returns M. */
static uint32_t v1_place_edges(double gamma, uint32_t c, uint32_t *first)
{
    uint32_t n = UINT32_C(1) << c, m = 0, start = 0;
    for (;;) {
        if (first)
            first[m] = start;
        m++;
        double lim = floor(gamma * (double)(n + start)) - (double)n;
        if (lim >= (double)n)
            break;
        start = (uint32_t)lim;
    }
    if (first)
        first[m] = n;
    return m;
}

static int32_t v1_layout_init(v1_layout *l, const llmlat_alloc *al, double alpha)
{
    double a = alpha - alpha * V1_ALPHA_MARGIN, gamma = (1.0 + a) / (1.0 - a);
    uint32_t c = 4;
    while (c < 20 && ldexp(gamma - 1.0, (int)c) < 22.0)
        c++;
    l->cell_bits = c;
    l->per_octave = v1_place_edges(gamma, c, NULL);
    l->first = alloc_malloc(al, (l->per_octave + 1) * sizeof *l->first);
    if (!l->first)
        return LLMLAT_ENOMEM;
    v1_place_edges(gamma, c, l->first);
    return LLMLAT_OK;
}

/* Bucket `index`'s edges [lo, hi) and value, internal unit. */
static void v1_bucket(const v1_layout *l, int64_t index, double *lo, double *hi, double *value)
{
    uint32_t j = (uint32_t)(index % l->per_octave);
    int e = (int)(index / l->per_octave) - 1023 - (int)l->cell_bits;
    double n = ldexp(1.0, (int)l->cell_bits);
    double a = n + l->first[j], b = n + l->first[j + 1];
    *lo = ldexp(a, e);
    *hi = ldexp(b, e);
    *value = ldexp(2.0 * a * b / (a + b), e);
}

/* Counts w samples of exported value x > 0 (any double: v1's smallest
 * buckets are subnormal once scaled). */
static void v1_count(sketch *s, const sketch_map *map, double x, uint64_t w)
{
    if (w)
        sketch_bump(s, map, sketch_map_index_any(map, x > 0.0 ? x : 0x1p-1074), w);
}

/* The buckets low..top, converted. The maximum (and, without zeros, the
 * minimum) is a sample of the top (lowest) bucket: it is counted at its
 * own value, so that the copy's top and lowest buckets are those of its
 * extremes, as a sketch built from the samples has them. */
static int32_t v1_read_buckets(bytes_reader *r, sketch *s, const sketch_map *map,
                               const v1_layout *l, int64_t top)
{
    int64_t low = get_i64(r);
    int64_t width = (int64_t)V1_OCTAVES * l->per_octave + 1;
    int64_t max_index = (int64_t)2047 * l->per_octave - 1;
    if (r->bad || top > max_index || low > top || low < top - width + 1 || low < 0 ||
        !(s->max > 0.0))
        return LLMLAT_EFORMAT;
    uint64_t total = s->zero, positive = 0;
    sketch_range range = { 0, 0, 0 };
    for (int64_t i = low; i <= top; i++) {
        uint64_t c = get_varint(r);
        if (r->bad || c > UINT64_MAX - total || (c == 0 && (i == low || i == top)))
            return LLMLAT_EFORMAT;
        total += c;
        positive += c;
        double lo, hi, v;
        v1_bucket(l, i, &lo, &hi, &v);
        sketch_range_add(&range, c, lo / s->unit, hi / s->unit);
        v /= s->unit;
        v = v < s->min ? s->min : v > s->max ? s->max : v;
        if (i == top) {
            v1_count(s, map, s->max, 1);
            c--;
        }
        if (i == low && !s->zero && c) {
            v1_count(s, map, s->min, 1);
            c--;
        }
        v1_count(s, map, v, c);
    }
    /* one positive sample is the minimum too; and the copy holds together
     * as version 2 reads it (the representatives are not the samples: bytes
     * crafted to the edge of v1's buckets can fall outside the copy's) */
    if (total != s->count || (positive == 1 && !s->zero && s->min != s->max))
        return LLMLAT_EFORMAT;
    return sketch_holds_together(s, &range) && sketch_buckets_hold(s, map) ? LLMLAT_OK
                                                                            : LLMLAT_EFORMAT;
}

LLMLAT_PRIVATE int32_t sketch_read_v1(bytes_reader *r, sketch *s, const sketch_map *map,
                                      const llmlat_alloc *al)
{
    s->count = get_u64(r);
    s->zero = get_u64(r);
    s->min = get_f64(r);
    s->max = get_f64(r);
    get_fixsum(r, &s->sums);
    int64_t top = get_i64(r);
    if (r->bad || s->zero > s->count || top < -1)
        return LLMLAT_EFORMAT;
    if (top == -1) { /* no sample above 0 */
        sketch_range none = { 0, 0, 0 };
        return s->zero == s->count && sketch_holds_together(s, &none) ? LLMLAT_OK
                                                                      : LLMLAT_EFORMAT;
    }
    if (!s->bucket) /* a metric without samples of its own */
        return LLMLAT_EFORMAT;
    v1_layout l;
    int32_t st = v1_layout_init(&l, al, map->alpha);
    if (st != LLMLAT_OK)
        return st;
    st = v1_read_buckets(r, s, map, &l, top);
    alloc_free(al, l.first);
    return st;
}
