// The single header's declarations compiled as C++, linked with the C
// implementation of single_impl.c.
#include <cstdio>

#include "llmlat.h"
#include "scenario.h"
#include "single_tu.h"

namespace {
// The ids are integer constant expressions in C++ too.
static_assert(LLMLAT_VERSION_NUMBER / 10000 == LLMLAT_VERSION_MAJOR, "version macros");
static_assert(LLMLAT_ENOSPC == -8, "status values are fixed");

struct agg_deleter {
    void operator()(llmlat_agg *a) const { llmlat_agg_free(a); }
};
}

int main()
{
    int bad = scenario() + single_impl_side();
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_EXACT);
    agg_deleter()(a);
    std::printf("single header from C++: %s\n", bad ? "FAILED" : "ok");
    return bad ? 1 : 0;
}
