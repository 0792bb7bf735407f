#include "common.h"

#define LOCAL_K 7

typedef struct state {
    long v;
    int w;
} state;

struct node {
    int k, extra;
};

enum { MODE_X = 2 };

static int counter = 5;

static int clash(int x)
{
    return x * LOCAL_K;
}

static int (*const fp)(int) = clash;

/* A static whose name is a typedef of a header elsewhere in the build. */
static int pair_count(const pair *p)
{
    return p->a + p->b;
}

LLMLAT_API int32_t llmlat_fx_b(int32_t x)
{
    state s = { x, 1 };
    struct node n = { 2, 3 };
    pair p = { 1, 1 };
    counter++;
    return (int32_t)(clash((int)s.v) + s.w + MODE_X + counter + fp(1) + n.k + n.extra +
                     helper_shared(1) + SHARED_LIMIT + pair_count(&p) + fx_table[3]);
}
