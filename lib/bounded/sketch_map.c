/* Building the bucket layout for a relative error, and reading a bucket's
 * value back. Only IEEE basic operations (exactly rounded everywhere) and
 * integers decide the layout, so a sketch serialized on one machine means
 * the same on another. */
#include <math.h>

#include "bounded/sketch_map.h"

/* Buckets are built for alpha shrunk by 2^-30 of itself: the few roundings
 * between a bucket and a reported quantile (1e-15 relative) then cannot push
 * the error past alpha. */
#define ALPHA_MARGIN (1.0 / 1073741824.0)

/* The widest ratio hi / lo a bucket may span. */
static double max_ratio(double alpha)
{
    double a = alpha - alpha * ALPHA_MARGIN;
    return (1.0 + a) / (1.0 - a);
}

/* Cells per octave: 2^c >= 22 / (gamma - 1) ~ 32 buckets' worth of cells
 * for each bucket, so snapping edges to cells costs about 1% of buckets
 * (M is within 1 of the optimum ln 2 / ln gamma from alpha = 1% down). */
static uint32_t cell_bits_for(double gamma)
{
    uint32_t c = 4;
    while (c < 20 && ldexp(gamma - 1.0, (int)c) < 22.0)
        c++;
    return c;
}

/* Greedy edges from the bottom of the octave: each bucket reaches as far as
 * hi <= gamma lo allows. Cell i starts at value (2^c + i) 2^(e - c). Writes
 * first[] when it is not NULL; returns M. */
static uint32_t place_edges(double gamma, uint32_t c, uint32_t *first)
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

LLMLAT_PRIVATE int32_t sketch_map_init(sketch_map *m, const llmlat_alloc *al, double alpha)
{
    double gamma = max_ratio(alpha);
    uint32_t c = cell_bits_for(gamma);
    uint32_t per_octave = place_edges(gamma, c, NULL);
    uint32_t n = UINT32_C(1) << c;
    uint16_t *cell = alloc_malloc(al, n * sizeof *cell);
    uint32_t *first = alloc_malloc(al, (per_octave + 1) * sizeof *first);
    double *value = alloc_malloc(al, per_octave * sizeof *value);
    if (!cell || !first || !value) {
        alloc_free(al, cell);
        alloc_free(al, first);
        alloc_free(al, value);
        return LLMLAT_ENOMEM;
    }
    place_edges(gamma, c, first);
    for (uint32_t j = 0; j < per_octave; j++) {
        for (uint32_t i = first[j]; i < first[j + 1]; i++)
            cell[i] = (uint16_t)j;
        /* The harmonic mean: relative error (hi - lo) / (hi + lo) <= alpha
         * on both sides. lo, hi < 2^21, so 2 lo hi is exact. */
        double lo = (double)(n + first[j]), hi = (double)(n + first[j + 1]);
        value[j] = 2.0 * lo * hi / (lo + hi);
    }
    *m = (sketch_map){
        .alpha = alpha,
        .per_octave = per_octave,
        .cell_bits = c,
        .cell_shift = 52 - c,
        .cell_mask = n - 1,
        .width = SKETCH_OCTAVES * per_octave + 1,
        .m_inverse = (uint32_t)((UINT64_C(1) << 32) / per_octave),
        .cell = cell,
        .first = first,
        .value = value,
    };
    return LLMLAT_OK;
}

LLMLAT_PRIVATE void sketch_map_free(sketch_map *m, const llmlat_alloc *al)
{
    alloc_free(al, m->cell);
    alloc_free(al, m->first);
    alloc_free(al, m->value);
    m->cell = NULL;
    m->first = NULL;
    m->value = NULL;
}

LLMLAT_PRIVATE size_t sketch_map_memory(const sketch_map *m)
{
    return ((size_t)1 << m->cell_bits) * sizeof *m->cell +
           (m->per_octave + 1) * sizeof *m->first + m->per_octave * sizeof *m->value;
}

LLMLAT_PRIVATE double sketch_map_value(const sketch_map *m, int64_t index)
{
    /* index / M by multiplying with floor(2^32 / M): short by at most one
     * for index < 2^32 (indices stay below 2^11 M), which one step mends */
    uint64_t octave = ((uint64_t)index * m->m_inverse) >> 32;
    uint64_t j = (uint64_t)index - octave * m->per_octave;
    if (j >= m->per_octave) {
        octave++;
        j -= m->per_octave;
    }
    double v = m->value[j];
    /* times 2^(octave - 1023 - c): a power of two built from its bits
     * (exact, and no libm call on the query path) */
    int64_t field = (int64_t)octave - (int64_t)m->cell_bits;
    if (field < 1 || field > 2046)
        return ldexp(v, (int)(field - 1023));
    uint64_t bits = (uint64_t)field << 52;
    double scale;
    memcpy(&scale, &bits, sizeof scale);
    return v * scale;
}
