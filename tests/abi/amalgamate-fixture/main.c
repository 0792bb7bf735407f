#include <stdio.h>

#include "llmlat.h"

int main(void)
{
    /* Twice each, so that file-scope state (the counters) shows. */
    int a1 = llmlat_fx_a(5), a2 = llmlat_fx_a(5);
    int b1 = llmlat_fx_b(5), b2 = llmlat_fx_b(5);
    printf("%d %d %d %d\n", a1, a2, b1, b2);
    return 0;
}
