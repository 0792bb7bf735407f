/* Translation unit 1 of the single-header test: the implementation. It
 * includes the header first, as docs/single-header.md asks, then uses the
 * API itself like any other file of the host. */
#define LLMLAT_IMPLEMENTATION
#include "llmlat.h"

#include <stdio.h>

#include "single_tu.h"

int single_impl_side(void)
{
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    if (!a)
        return 1;
    int32_t conv = -1;
    int bad = llmlat_agg_get_convention(a, &conv) != LLMLAT_OK || conv != LLMLAT_CONV_VLLM;
    llmlat_agg_free(a);
    if (bad)
        fprintf(stderr, "impl side: convention %d\n", (int)conv);
    return bad;
}
