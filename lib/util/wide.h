/* Unsigned integers of several 64-bit limbs, little-endian (v[0] lowest):
 * the arithmetic of the exact sums of both modes (fixsum.h: bounded
 * mode's running sums; gridsum.h: exact mode's order-independent sums),
 * and their one conversion to double. The few operations on a request's
 * path are inline; the rest are in wide.c. Callers size their arrays so
 * that no result needs a limb they do not have: nothing here checks. */
#ifndef LLMLAT_WIDE_H
#define LLMLAT_WIDE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/compiler.h"

/* 64 x 64 -> 128-bit multiplication: one instruction where the compiler
 * has a 128-bit type, four 32-bit products elsewhere. */
static inline void wide_mul(uint64_t a, uint64_t b, uint64_t *lo, uint64_t *hi)
{
#if defined(__SIZEOF_INT128__)
    __extension__ unsigned __int128 p = (unsigned __int128)a * b;
    *lo = (uint64_t)p;
    *hi = (uint64_t)(p >> 64);
#else
    uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
    uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
    *lo = (mid << 32) | (ll & 0xffffffffu);
    *hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
#endif
}

/* x = m 2^e for a finite x >= 0 (-0.0 is 0): m < 2^53, its significand
 * with the hidden bit, and e the exponent of m's last bit. The one way a
 * double enters the exact sums (fixsum.c, gridsum.c). */
static inline void wide_decompose(double x, uint64_t *m, int *e)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    int field = (int)((b >> 52) & 0x7ff);
    *m = b & ((UINT64_C(1) << 52) - 1);
    if (field)
        *m |= UINT64_C(1) << 52;
    *e = (field ? field : 1) - 1075;
}

/* (hi:lo) += (xhi:xlo), the carry out of hi dropped. */
static inline void wide_add(uint64_t *lo, uint64_t *hi, uint64_t xlo, uint64_t xhi)
{
    uint64_t s = *lo + xlo;
    *hi += xhi + (s < xlo);
    *lo = s;
}

/* acc[0..n) += v[0..3), n being 3 or 4 (the top limb takes the carry).
 * Straight-line: a loop costs more than the sum on a request's path. */
static inline void wide_add3(uint64_t *acc, int n, const uint64_t *v)
{
    uint64_t a = acc[0] + v[0];
    uint64_t c = a < v[0];
    acc[0] = a;
    uint64_t b = acc[1] + v[1];
    uint64_t c2 = b < v[1];
    b += c;
    c2 += b < c;
    acc[1] = b;
    uint64_t d = acc[2] + v[2];
    uint64_t c3 = d < v[2];
    d += c2;
    c3 += d < c2;
    acc[2] = d;
    if (n == 4)
        acc[3] += c3;
}

/* out[0..3) = floor((hi:lo) * 2^shift), for a result below 2^192 (bits
 * shifted below 2^0 are cut). */
static inline void wide_shifted(uint64_t lo, uint64_t hi, int shift, uint64_t *out)
{
    out[0] = out[1] = out[2] = 0;
    if (shift <= -128)
        return;
    if (shift < 0) {
        int b = -shift;
        if (b >= 64) {
            out[0] = hi >> (b - 64);
        } else {
            out[0] = (lo >> b) | (b ? hi << (64 - b) : 0);
            out[1] = hi >> b;
        }
        return;
    }
    int at = shift / 64, b = shift % 64;
    uint64_t t0 = lo << b, t1 = (hi << b) | (b ? lo >> (64 - b) : 0);
    uint64_t t2 = b ? hi >> (64 - b) : 0;
    out[at] = t0;
    if (at < 2) /* at 2 (shift >= 128), t1 and t2 are bits >= 2^192: zero */
        out[at + 1] = t1;
    if (at == 0)
        out[2] = t2;
}

/* (*hi:*lo) = floor(m * 2^shift), for a result below 2^128: the
 * two-limb case, short enough for exact mode's loop over every sample. */
static inline void wide_shifted2(uint64_t m, int shift, uint64_t *lo, uint64_t *hi)
{
    *lo = *hi = 0;
    if (shift >= 64) {
        *hi = m << (shift - 64);
    } else if (shift > 0) {
        *lo = m << shift;
        *hi = m >> (64 - shift);
    } else if (shift > -64) {
        *lo = m >> -shift;
    }
}

/* acc[0..nacc) += v[0..nv) * 2^(64 at). */
LLMLAT_PRIVATE void wide_add_at(uint64_t *acc, int nacc, const uint64_t *v, int nv, int at);
/* a[0..n) -= b[0..n), for a >= b. */
LLMLAT_PRIVATE void wide_sub(uint64_t *a, const uint64_t *b, int n);
LLMLAT_PRIVATE bool wide_less(const uint64_t *a, const uint64_t *b, int n);
/* out[0..na + nb) = a[0..na) * b[0..nb). */
LLMLAT_PRIVATE void wide_mul_n(uint64_t *out, const uint64_t *a, int na, const uint64_t *b,
                               int nb);
/* v[0..n) = floor(v / d) for 1 <= d < 2^32; returns v mod d. */
LLMLAT_PRIVATE uint32_t wide_div32(uint64_t *v, int n, uint32_t d);

/* v[0..n) * 2^exp2 as the nearest double, ties to even: the one rounding
 * every exact sum goes through. Subnormal results are rounded once, at
 * their own precision; beyond DBL_MAX the result is +inf. */
LLMLAT_PRIVATE double wide_to_double(const uint64_t *v, int n, int exp2);

#endif
