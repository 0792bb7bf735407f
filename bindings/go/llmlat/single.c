//go:build llmlat_single

/* The implementation of the single header, compiled once into the package
 * when it is built with the llmlat_single tag (see cgo_single.go). The
 * header itself turns floating-point contraction off for its
 * implementation (quantiles must be numpy's doubles; cgo refuses
 * -ffp-contract=off in #cgo CFLAGS). */
#define LLMLAT_IMPLEMENTATION
#include "llmlat_single.h"
