/* GuideLLM's distribution of an exact store (schemas/statistics.py,
 * DistributionSummary.from_values and from_pdf): the samples sorted, equal
 * values merged by summing their weights, each value's probability its
 * weight over the total; a quantile is the first value whose cumulative
 * probability reaches q (numpy.searchsorted(numpy.cumsum(p), q, "left")),
 * and the mode is the value of the largest probability (numpy.argmax: the
 * smallest such value).
 *
 * The cumulative probabilities are summed in double, one addend per
 * distinct value in ascending order, as numpy.cumsum sums them: a boundary
 * that the rounding moves (ten equal weights reach 0.8999999999999999, not
 * 0.9, after nine) moves here too, so that the chosen value is GuideLLM's. */
#include <string.h>

#include "exact/exact_store.h"
#include "util/radix.h"
#include "util/ranks.h"

#define ICDF_MAX_QUANTILES 64

static void icdf_walk(const double *v, const uint32_t *w, size_t n, uint64_t total,
                      const double *q, size_t nq, double *out, double *mode)
{
    size_t order[ICDF_MAX_QUANTILES], next = 0;
    quantile_order(q, nq, order);
    double cdf = 0.0, best_v = v[0];
    uint64_t best_w = 0;
    for (size_t i = 0; i < n;) {
        double value = v[i];
        uint64_t weight = 0;
        for (; i < n && v[i] == value; i++) /* equal values merged */
            weight += w ? w[i] : 1;
        if (weight > best_w) {
            best_w = weight;
            best_v = value;
        }
        cdf += (double)weight / (double)total;
        for (; next < nq && cdf >= q[order[next]]; next++)
            out[order[next]] = value;
    }
    /* a q above the last sum (rounded below 1): the largest value */
    for (; next < nq; next++)
        out[order[next]] = v[n - 1];
    if (mode)
        *mode = best_v;
}

LLMLAT_PRIVATE int32_t exact_inverse_cdf(const exact_store *s, const llmlat_alloc *al,
                                         const double *q, size_t nq, double *out, double *mode)
{
    if (nq > ICDF_MAX_QUANTILES)
        return LLMLAT_EINVAL;
    const uint32_t *w = exact_weights(s);
    double *sv = alloc_malloc(al, s->n * sizeof *sv);
    uint32_t *sw = w ? alloc_malloc(al, s->n * sizeof *sw) : NULL;
    int32_t st = sv && (!w || sw) ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st == LLMLAT_OK) {
        memcpy(sv, s->v, s->n * sizeof *sv);
        if (w)
            memcpy(sw, w, s->n * sizeof *sw);
        st = radix_sort(al, RADIX_DOUBLE, sv, sw, s->n);
    }
    if (st == LLMLAT_OK)
        icdf_walk(sv, sw, s->n, s->total_w, q, nq, out, mode);
    alloc_free(al, sv);
    alloc_free(al, sw);
    return st;
}
