#include <math.h>
#include <string.h>

#include "util/gridsum.h"
#include "util/wide.h"

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
        uint64_t t[2]; /* m 2^(e - 1075 - grid) < 2^(53 + guard) */
        wide_shifted2(m, e - 1075 - grid, &t[0], &t[1]);
        if (w && w[i] != 1) { /* t * w: t < 2^(53 + guard), w < 2^32 */
            uint64_t wi = w[i];
            uint64_t a = (t[0] & 0xffffffffu) * wi, b = (t[0] >> 32) * wi;
            uint64_t lo = a + (b << 32);
            t[1] = t[1] * wi + (b >> 32) + (lo < a);
            t[0] = lo;
        }
        wide_add(&acc[0], &acc[1], t[0], t[1]);
    }
    return wide_to_double(acc, 2, grid);
}
