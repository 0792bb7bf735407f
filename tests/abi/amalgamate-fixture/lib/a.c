/* Names private to this file that b.c uses too: they must not meet. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <string.h>

#include "common.h"

#define LOCAL_K 3
#define CALL_CLASH(x) clash(x)

typedef struct state {
    int v;
} state;

struct node {
    int k;
};

enum { MODE_X = 1 };

static int counter;

const int fx_table[4] = { 1, 2, 3, 4 };

static int clash(int x)
{
    return x + LOCAL_K;
}

int helper_shared(int x)
{
    return twice(x) + fx_table[0];
}

int helper_cold(pair p)
{
    return p.a - p.b;
}

LLMLAT_API int32_t llmlat_fx_a(int32_t x)
{
    state s;
    struct node n = { 4 };
    pair p = { 9, 2 };
    memset(&s, 0, sizeof s);
    s.v = x;
    counter++;
    return CALL_CLASH(s.v) + MODE_X + counter + n.k + helper_cold(p) +
           (int)strlen("abc");
}
