/* Translation unit 2 of the single-header test: declarations only (no
 * LLMLAT_IMPLEMENTATION), linked with single_impl.c. */
#include <stdio.h>

#include "llmlat.h"
#include "scenario.h"
#include "single_tu.h"

int main(void)
{
    int bad = scenario() + single_impl_side();
    printf("single header, two translation units: %s\n", bad ? "FAILED" : "ok");
    return bad ? 1 : 0;
}
