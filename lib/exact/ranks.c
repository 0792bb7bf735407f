#include <math.h>

#include "exact/ranks.h"
#include "util/lerp.h"

LLMLAT_PRIVATE void quantile_plan_make(quantile_plan *p, uint64_t n, const double *q, size_t nq)
{
    uint64_t last = n - 1;
    p->nq = nq;
    p->n_ranks = 0;
    for (size_t i = 0; i < nq; i++) {
        double vi = (double)last * q[i];
        if (vi >= (double)last) {
            p->lo[i] = SIZE_MAX;
            continue;
        }
        double lo = floor(vi);
        p->lo[i] = 0; /* its index, found below */
        p->gamma[i] = vi - lo;
        p->ranks[p->n_ranks++] = (uint64_t)lo;
        p->ranks[p->n_ranks++] = (uint64_t)lo + 1;
    }
    /* the (few) ranks ascending, each once */
    for (size_t i = 1; i < p->n_ranks; i++)
        for (size_t j = i; j > 0 && p->ranks[j - 1] > p->ranks[j]; j--) {
            uint64_t tmp = p->ranks[j];
            p->ranks[j] = p->ranks[j - 1];
            p->ranks[j - 1] = tmp;
        }
    size_t nu = 0;
    for (size_t i = 0; i < p->n_ranks; i++)
        if (nu == 0 || p->ranks[nu - 1] != p->ranks[i])
            p->ranks[nu++] = p->ranks[i];
    p->n_ranks = nu;
    for (size_t i = 0; i < nq; i++) {
        if (p->lo[i] == SIZE_MAX)
            continue;
        uint64_t lo = (uint64_t)floor((double)last * q[i]);
        size_t k = 0;
        while (p->ranks[k] != lo)
            k++;
        p->lo[i] = k;
    }
}

LLMLAT_PRIVATE void quantile_plan_values(const quantile_plan *p, const double *at, double max,
                                         double *out)
{
    for (size_t i = 0; i < p->nq; i++)
        out[i] = p->lo[i] == SIZE_MAX ? max
                                      : numpy_lerp(at[p->lo[i]], at[p->lo[i] + 1], p->gamma[i]);
}
