/* The implementation with internal functions given external linkage
 * (LLMLAT_PRIVATE defined empty), so that the unit tests, which call
 * internals declared in the lib/ headers, can run against the single header. */
#define LLMLAT_PRIVATE
#define LLMLAT_IMPLEMENTATION
#include "llmlat.h"
