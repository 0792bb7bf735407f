/* Compiler hints, with portable fallbacks. */
#ifndef LLMLAT_COMPILER_H
#define LLMLAT_COMPILER_H

/* For the rare branch of a hot function: kept out of line, so that the
 * common path needs no stack frame. */
#if defined(__GNUC__) || defined(__clang__)
#define LLMLAT_COLD __attribute__((noinline, cold))
#else
#define LLMLAT_COLD
#endif

#endif
