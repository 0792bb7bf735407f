/* A tiny stand-in for the public header: what scripts/amalgamate needs. */
#ifndef LLMLAT_H
#define LLMLAT_H

#include <stdint.h>

#ifndef LLMLAT_API
#  if defined(__GNUC__) || defined(__clang__)
#    define LLMLAT_API __attribute__((visibility("default")))
#  else
#    define LLMLAT_API
#  endif
#endif

#define LLMLAT_VERSION_MAJOR 9
#define LLMLAT_VERSION_MINOR 8
#define LLMLAT_VERSION_PATCH 7

LLMLAT_API int32_t llmlat_fx_a(int32_t x);
LLMLAT_API int32_t llmlat_fx_b(int32_t x);

#endif
