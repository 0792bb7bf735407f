//go:build llmlat_single

/* The implementation of the single header, compiled once into the package
 * when it is built with the llmlat_single tag (see cgo_single.go).
 *
 * The library's own build passes -ffp-contract=off so that quantiles are
 * the same doubles as numpy's; cgo does not allow that flag in #cgo CFLAGS,
 * so the pragmas below say the same for this file (GCC fuses a*b+c into an
 * FMA by default wherever the target has one, e.g. arm64). */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#define LLMLAT_IMPLEMENTATION
#include "llmlat.h"
