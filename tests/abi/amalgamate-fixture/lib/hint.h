#ifndef FX_HINT_H
#define FX_HINT_H
#if defined(__GNUC__) || defined(__clang__)
#define FX_COLD __attribute__((noinline, cold))
#else
#define FX_COLD
#endif
#endif
