package llmlat

/*
#include "capi.h"

#if !defined(LLMLAT_VERSION_MAJOR) || LLMLAT_VERSION_MAJOR != 1
#error "this Go binding is for llmlat major version 1"
#endif
*/
import "C"

import (
	"fmt"
	"sync/atomic"
)

// APIMajor is the major version of the C API this package is written for.
// The package refuses a library of another major, at compile time (the
// header) and at load time (llmlat_version_number).
const APIMajor = 1

// frees counts the C objects freed, by Close or by a finalizer, so that
// tests can see that each is freed exactly once.
var frees atomic.Uint64

func init() {
	if err := checkVersion(uint32(C.llmlat_version_number())); err != nil {
		panic(err)
	}
}

// checkVersion accepts a library version number (major*10000 + minor*100 +
// patch) of the same major as this package.
func checkVersion(n uint32) error {
	if n/10000 != APIMajor {
		return fmt.Errorf("llmlat: the loaded library is version %d.%d.%d; this Go package needs major version %d",
			n/10000, n/100%100, n%100, APIMajor)
	}
	return nil
}

// Version is the version of the loaded C library, "MAJOR.MINOR.PATCH".
func Version() string {
	return C.GoString(C.llmlat_version_string())
}

// VersionNumber is the version of the loaded C library as
// major*10000 + minor*100 + patch.
func VersionNumber() uint32 {
	return uint32(C.llmlat_version_number())
}

// Now is CLOCK_MONOTONIC in nanoseconds, the clock the library suggests for
// timestamps (0 if the clock is unavailable). Any one monotonic clock will
// do, as long as every timestamp of a request comes from it.
func Now() int64 {
	return int64(C.llmlat_now_ns())
}
