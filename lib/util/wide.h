/* 64 x 64 -> 128-bit multiplication: one instruction where the compiler
 * has a 128-bit type, four 32-bit products elsewhere. */
#ifndef LLMLAT_WIDE_H
#define LLMLAT_WIDE_H

#include <stdint.h>

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

/* (hi:lo) += x, the running sum of squares of one request's gaps. */
static inline void wide_add(uint64_t *lo, uint64_t *hi, uint64_t xlo, uint64_t xhi)
{
    uint64_t s = *lo + xlo;
    *hi += xhi + (s < xlo);
    *lo = s;
}

#endif
