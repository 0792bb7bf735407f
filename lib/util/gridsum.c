#include <math.h>
#include <string.h>

#include "util/gridsum.h"

/* A 128-bit unsigned integer as two words. */
typedef struct u128 {
    uint64_t hi, lo;
} u128;

/* m * 2^s for a 53-bit m and s <= 74 (so < 2^127); s < 0 truncates. */
static inline u128 grid_shifted(uint64_t m, int s)
{
    u128 r = { 0, 0 };
    if (s >= 64)
        r.hi = m << (s - 64);
    else if (s > 0) {
        r.lo = m << s;
        r.hi = m >> (64 - s);
    } else if (s > -64)
        r.lo = m >> -s;
    return r;
}

static inline void add(u128 *acc, u128 x)
{
    acc->lo += x.lo;
    acc->hi += x.hi + (acc->lo < x.lo);
}

/* x * 2^s, x correctly rounded to double from 128 bits (round to odd into
 * 64 bits first: the sticky bit then sits below double's rounding bit). */
static double grid_to_double(u128 x, int s)
{
    if (x.hi == 0)
        return ldexp((double)x.lo, s);
    int len = bit_length(x.hi); /* the low `len` bits of lo drop out */
    uint64_t top = len == 64 ? x.hi : (x.hi << (64 - len)) | (x.lo >> len);
    uint64_t rest = len == 64 ? x.lo : x.lo & ((UINT64_C(1) << len) - 1);
    top |= rest != 0;
    return ldexp((double)top, s + len);
}

#if defined(__GNUC__) || defined(__clang__)
#define GRID_INLINE static inline __attribute__((always_inline))
#else
#define GRID_INLINE static inline
#endif

/* The sum on the grid, with `squares` and weights known at compile time in
 * each of gridsum's four calls (so the loop tests neither). */
GRID_INLINE u128 grid_loop(const double *v, const uint32_t *w, size_t n, int grid, int squares,
                           double center, int weighted)
{
    u128 acc = { 0, 0 };
    for (size_t i = 0; i < n; i++) {
        double x = v[i];
        if (squares) {
            double d = x - center;
            x = d * d;
        }
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        int e = (int)((bits >> 52) & 0x7ff); /* terms are >= 0 (-0.0 is 0) */
        uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
        if (e)
            m |= UINT64_C(1) << 52;
        else
            e = 1;
        int s = e - 1075 - grid;
        u128 t;
        if ((unsigned)(s - 1) < 63u) { /* the usual case: both words */
            t.lo = m << s;
            t.hi = m >> (64 - s);
        } else
            t = grid_shifted(m, s);
        if (weighted) { /* t * w: t < 2^(53 + guard), w < 2^32; no branch on w */
            uint64_t wi = w[i];
            uint64_t a = (t.lo & 0xffffffffu) * wi, b = (t.lo >> 32) * wi;
            u128 p = { t.hi * wi + (b >> 32), 0 };
            p.lo = a + (b << 32);
            p.hi += p.lo < a;
            t = p;
        }
        add(&acc, t);
    }
    return acc;
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
    u128 acc;
    if (squares)
        acc = w ? grid_loop(v, w, n, grid, 1, center, 1) : grid_loop(v, w, n, grid, 1, center, 0);
    else
        acc = w ? grid_loop(v, w, n, grid, 0, 0.0, 1) : grid_loop(v, w, n, grid, 0, 0.0, 0);
    return grid_to_double(acc, grid);
}
