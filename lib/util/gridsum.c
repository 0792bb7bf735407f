#include <math.h>

#include "util/gridsum.h"
#include "util/wide.h"

#if defined(__GNUC__) || defined(__clang__)
#define GRID_INLINE static inline __attribute__((always_inline))
#else
#define GRID_INLINE static inline
#endif

/* The sum on the grid into acc, with `squares` and `weighted` constants in
 * each of gridsum's four calls, so that the loop tests neither. */
GRID_INLINE void grid_loop(const double *v, const uint32_t *w, size_t n, int grid, int squares,
                           double center, int weighted, uint64_t acc[2])
{
    for (size_t i = 0; i < n; i++) {
        double x = v[i];
        if (squares) {
            double d = x - center;
            x = d * d;
        }
        uint64_t m;
        int e;
        wide_decompose(x, &m, &e); /* terms are >= 0 */
        uint64_t t[2]; /* m 2^(e - grid) < 2^(53 + guard) */
        int s = e - grid;
        if ((unsigned)(s - 1) < 63u) { /* the usual shift: both words */
            t[0] = m << s;
            t[1] = m >> (64 - s);
        } else
            wide_shifted2(m, s, &t[0], &t[1]);
        if (weighted) { /* t * w: t < 2^(53 + guard), w < 2^32; no branch on w */
            uint64_t wi = w[i];
            uint64_t a = (t[0] & 0xffffffffu) * wi, b = (t[0] >> 32) * wi;
            uint64_t lo = a + (b << 32);
            t[1] = t[1] * wi + (b >> 32) + (lo < a);
            t[0] = lo;
        }
        wide_add(&acc[0], &acc[1], t[0], t[1]);
    }
}

LLMLAT_PRIVATE double gridsum(const double *v, const uint32_t *w, size_t n, uint64_t total_weight,
                             double largest, int squares, double center)
{
    if (n == 0 || !(largest > 0.0))
        return 0.0;
    if (isinf(largest)) /* a square beyond double's range: so is the sum */
        return INFINITY;
    /* every term is m * 2^(e - 1075) with a 53-bit m and biased exponent
     * e <= e_max; on a grid of 2^(e_max - 1075 - guard) each is below
     * 2^(53 + guard), and total_weight of them fit 127 bits */
    int e_max;
    frexp(largest, &e_max); /* largest = f * 2^e_max, f in [0.5, 1) */
    e_max += 1022;          /* as a biased exponent of [1, 2) scaling */
    int guard = 74 - bit_length(total_weight);
    int grid = e_max - 1075 - guard;
    uint64_t acc[2] = { 0, 0 };
    if (squares) {
        if (w)
            grid_loop(v, w, n, grid, 1, center, 1, acc);
        else
            grid_loop(v, w, n, grid, 1, center, 0, acc);
    } else {
        if (w)
            grid_loop(v, w, n, grid, 0, 0.0, 1, acc);
        else
            grid_loop(v, w, n, grid, 0, 0.0, 0, acc);
    }
    return wide_to_double(acc, 2, grid);
}
