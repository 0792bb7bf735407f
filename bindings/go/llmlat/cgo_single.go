//go:build llmlat_single

package llmlat

// With the llmlat_single tag the library is compiled into the package from
// the committed single header (single.c holds its implementation), so no
// installed library is needed. The library needs libm.

// #cgo CFLAGS: -I${SRCDIR}/../../../single
// #cgo LDFLAGS: -lm
import "C"
