/* The C API, for the package's cgo preambles: the installed header, found
 * through pkg-config (cgo_pkgconfig.go), or, with the llmlat_single build
 * tag (cgo_single.go), the single-header copy in this directory,
 * llmlat_single.h, which scripts/amalgamate --go-module writes here when it
 * copies the module out (the text of single/llmlat.h; never committed) and
 * whose implementation single.c compiles into the package. The copy lives
 * here, under its own name, so that the module alone builds (vendored,
 * copied, or reached by a replace directive) and so that it never stands
 * in for the installed llmlat.h. */
#ifndef LLMLAT_GO_CAPI_H
#define LLMLAT_GO_CAPI_H

#ifdef LLMLAT_GO_SINGLE
#include "llmlat_single.h"
#else
#include <llmlat.h>
#endif

#endif
