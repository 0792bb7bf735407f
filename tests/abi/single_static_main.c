#include <stdio.h>

int single_static_run(void);

int main(void)
{
    int bad = single_static_run();
    printf("single header, LLMLAT_STATIC: %s\n", bad ? "FAILED" : "ok");
    return bad ? 1 : 0;
}
