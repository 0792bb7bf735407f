/* numpy's quantile rule (ranks.h): the plan of ranks. */
#include "util/ranks.h"

/* The index of rank r in the plan's ranks (it is there). */
static size_t plan_index(const quantile_plan *p, uint64_t r)
{
    size_t k = 0;
    while (p->ranks[k] != r)
        k++;
    return k;
}

LLMLAT_PRIVATE void quantile_plan_make(quantile_plan *p, uint64_t n, const double *q, size_t nq,
                                       unsigned with)
{
    uint64_t r, med[2];
    p->nq = nq;
    p->n_ranks = 0;
    for (size_t i = 0; i < nq; i++) {
        p->lo[i] = SIZE_MAX;
        if (!quantile_rank(n, q[i], &r, &p->gamma[i]))
            continue;
        p->lo[i] = 0; /* its index, found below */
        p->ranks[p->n_ranks++] = r;
        p->ranks[p->n_ranks++] = r + 1;
    }
    p->n_med = with & PLAN_MEDIAN ? median_ranks(n, med) : 0;
    for (size_t i = 0; i < p->n_med; i++)
        p->ranks[p->n_ranks++] = med[i];
    if (with & PLAN_MAX)
        p->ranks[p->n_ranks++] = n - 1;
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
        double gamma;
        if (quantile_rank(n, q[i], &r, &gamma))
            p->lo[i] = plan_index(p, r);
    }
    for (size_t i = 0; i < p->n_med; i++)
        p->med[i] = plan_index(p, med[i]);
    p->max = with & PLAN_MAX ? plan_index(p, n - 1) : SIZE_MAX;
}

LLMLAT_PRIVATE void quantile_plan_values(const quantile_plan *p, const double *at, double max,
                                         double *out)
{
    for (size_t i = 0; i < p->nq; i++)
        out[i] = p->lo[i] == SIZE_MAX ? max
                                      : numpy_lerp(at[p->lo[i]], at[p->lo[i] + 1], p->gamma[i]);
}

LLMLAT_PRIVATE void quantile_order(const double *q, size_t n, size_t *order)
{
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        for (; j > 0 && q[order[j - 1]] > q[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
}
