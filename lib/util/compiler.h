/* Compiler hints, with portable fallbacks. */
#ifndef LLMLAT_COMPILER_H
#define LLMLAT_COMPILER_H

#include <stdint.h>

/* Marks every internal function and object: declarations in lib/ headers
 * and their definitions. Empty in the normal build (the symbols are
 * hidden by -fvisibility=hidden and the version script); the single
 * header defines it `static`, which is why internal names are unique
 * across lib/ (docs/architecture.md). */
#ifndef LLMLAT_PRIVATE
#define LLMLAT_PRIVATE
#endif

/* For the rare branch of a hot function: kept out of line, so that the
 * common path needs no stack frame. */
#if defined(__GNUC__) || defined(__clang__)
#define LLMLAT_COLD __attribute__((noinline, cold))
#else
#define LLMLAT_COLD
#endif

/* For a hot loop that needs every register: its own function, so that the
 * caller's live values do not crowd it. */
#if defined(__GNUC__) || defined(__clang__)
#define LLMLAT_NOINLINE __attribute__((noinline))
#else
#define LLMLAT_NOINLINE
#endif

/* The number of significant bits of x (0 for 0). */
static inline int bit_length(uint64_t x)
{
#if defined(__GNUC__) || defined(__clang__)
    return x ? 64 - __builtin_clzll(x) : 0;
#else
    int n = 0;
    while (x) {
        n++;
        x >>= 1;
    }
    return n;
#endif
}

#endif
