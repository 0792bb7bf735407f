//go:build llmlat_single

package llmlat

// With the llmlat_single tag the library is compiled into the package from
// llmlat_single.h, the copy of the single header in this directory
// (single.c holds its implementation), so neither pkg-config nor an
// installed library is needed. The library needs libm.

// #cgo CFLAGS: -DLLMLAT_GO_SINGLE
// #cgo LDFLAGS: -lm
import "C"
