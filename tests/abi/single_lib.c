/* The single header's implementation alone, behind llmlat_single_dep: the
 * public API for tests that want to run against the single header too. */
#define LLMLAT_IMPLEMENTATION
#include "llmlat.h"
