/* Internal API shared by a.c and b.c. */
#ifndef FX_COMMON_H
#define FX_COMMON_H

#include "llmlat.h"
#include "hint.h"

#define SHARED_LIMIT 10

typedef struct pair {
    int a, b;
} pair;

/* An internal global: declared extern with a complete type. */
extern const int fx_table[4];

int helper_shared(int x);
FX_COLD int helper_cold(pair p);

static inline int twice(int x)
{
    return 2 * x;
}

#endif
