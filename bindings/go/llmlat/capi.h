/* The C API, for the package's cgo preambles: the installed header, found
 * through pkg-config (cgo_pkgconfig.go), or, with the llmlat_single build
 * tag (cgo_single.go), the single-header copy in this directory,
 * llmlat_single.h, which scripts/amalgamate writes beside single/llmlat.h
 * and whose implementation single.c compiles into the package. The copy
 * lives here, under its own name, so that this directory alone builds
 * (vendored, copied, or reached by a replace directive) and so that it
 * never stands in for the installed llmlat.h. */
#ifndef LLMLAT_GO_CAPI_H
#define LLMLAT_GO_CAPI_H

#ifdef LLMLAT_GO_SINGLE
#include "llmlat_single.h"
#else
#include <llmlat.h>
#endif

#endif
