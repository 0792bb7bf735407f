/* The multi-limb operations off the request path, and the conversion. */
#include <math.h>
#include <string.h>

#include "util/wide.h"

LLMLAT_PRIVATE void wide_add_at(uint64_t *acc, int nacc, const uint64_t *v, int nv, int at)
{
    uint64_t carry = 0;
    int i = 0;
    for (; i < nv; i++) {
        uint64_t s = acc[at + i] + v[i];
        uint64_t c1 = s < v[i];
        acc[at + i] = s + carry;
        carry = c1 | (acc[at + i] < s);
    }
    for (i += at; carry && i < nacc; i++)
        carry = ++acc[i] == 0;
}

LLMLAT_PRIVATE void wide_sub(uint64_t *a, const uint64_t *b, int n)
{
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        uint64_t d = a[i] - b[i];
        uint64_t b1 = a[i] < b[i];
        a[i] = d - borrow;
        borrow = b1 | (d < borrow);
    }
}

LLMLAT_PRIVATE bool wide_less(const uint64_t *a, const uint64_t *b, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (a[i] != b[i])
            return a[i] < b[i];
    return false;
}

LLMLAT_PRIVATE void wide_mul_n(uint64_t *out, const uint64_t *a, int na, const uint64_t *b,
                               int nb)
{
    memset(out, 0, (size_t)(na + nb) * sizeof *out);
    for (int i = 0; i < na; i++)
        for (int j = 0; j < nb; j++) {
            uint64_t p[2];
            wide_mul(a[i], b[j], &p[0], &p[1]);
            wide_add_at(out, na + nb, p, 2, i + j);
        }
}

/* Long division by 32-bit digits: each step divides a value below
 * d * 2^32 <= 2^64, so plain 64-bit division does it on any target. The
 * top non-zero limb takes one division (nothing is carried into it), each
 * limb below it two. */
LLMLAT_PRIVATE uint32_t wide_div32(uint64_t *v, int n, uint32_t d)
{
    int i = n - 1;
    while (i >= 0 && v[i] == 0)
        i--;
    if (i < 0)
        return 0;
    uint64_t rem = v[i] % d;
    v[i] /= d;
    while (--i >= 0) {
        uint64_t hi = (rem << 32) | (v[i] >> 32);
        uint64_t qh = hi / d;
        uint64_t lo = ((hi % d) << 32) | (v[i] & 0xffffffffu);
        v[i] = (qh << 32) | (lo / d);
        rem = lo % d;
    }
    return (uint32_t)rem;
}

/* 2^k exactly, for -1074 <= k <= 1023 (subnormal below -1022), from its
 * bits: no libm call. */
static double wide_pow2(int k)
{
    uint64_t bits = k >= -1022 ? (uint64_t)(k + 1023) << 52 : UINT64_C(1) << (k + 1074);
    double x;
    memcpy(&x, &bits, sizeof x);
    return x;
}

LLMLAT_PRIVATE double wide_to_double(const uint64_t *v, int n, int exp2)
{
    int top = n - 1;
    while (top >= 0 && v[top] == 0)
        top--;
    if (top < 0)
        return 0.0;
    /* h: the leading 64 bits, from the top limb's highest set bit; sticky:
     * whether any bit below them is set, the whole limb under a full top
     * limb included */
    int len = bit_length(v[top]);
    uint64_t below = top > 0 ? v[top - 1] : 0;
    uint64_t h = len == 64 ? v[top] : (v[top] << (64 - len)) | (below >> len);
    bool sticky = len == 64 ? below != 0 : (below << (64 - len)) != 0;
    for (int i = top - 2; i >= 0 && !sticky; i--)
        sticky = v[i] != 0;
    /* h's bit 63 is worth 2^e; at that exponent a double keeps `keep` bits
     * (53, fewer for a subnormal) */
    long e = 64L * top + len - 1 + exp2;
    if (e > 1023)
        return INFINITY;
    if (e < -1075)
        return 0.0; /* below half the smallest subnormal */
    int keep = e >= -1022 ? 53 : (int)(53 - (-1022 - e));
    int drop = 64 - keep; /* 11 .. 64 */
    uint64_t mant = drop == 64 ? 0 : h >> drop;
    uint64_t half = UINT64_C(1) << (drop - 1);
    bool above_half = (h & (half - 1)) != 0 || sticky;
    if ((h & half) && (above_half || (mant & 1)))
        mant++; /* may reach 2^keep: still exact, and inf past DBL_MAX */
    /* mant (at most 2^53: exact) times the worth of its lowest bit, 2^-1074
     * (subnormal) up to 2^971; the product is exact, or +inf past DBL_MAX */
    return (double)mant * wide_pow2((int)(e - 63 + drop));
}
