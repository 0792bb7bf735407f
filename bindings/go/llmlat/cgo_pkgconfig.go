//go:build !llmlat_single

package llmlat

// The default build links the installed (or uninstalled, in a meson build
// tree) library found by pkg-config.

// #cgo pkg-config: llmlat
import "C"
