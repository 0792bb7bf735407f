/* The walks over a recorded request's gaps that the record layer needs
 * itself (the rule is gaps.h). */
#include "record/gaps.h"

LLMLAT_PRIVATE void gap_summarize(const conv_rules *c, const llmlat_request *r,
                                                 const req_view *v, gap_summary *g)
{
    *g = (gap_summary){ 0 };
    bool zero;
    if (r->folder) { /* kept as the events came (the caller checked c) */
        r->folder->gaps(r, c, g, &zero);
        return;
    }
    gap_walk w;
    uint32_t k0, k;
    if (!gap_walk_begin(&w, c, r, v, &k0))
        return;
    g->itl_weight = k0 ? k0 - 1 : 0;
    int64_t gap;
    while (gap_walk_next(&w, &gap, &k)) {
        g->n_gaps++;
        g->gap_sum_ns += gap;
        if (gap > g->gap_max_ns)
            g->gap_max_ns = gap;
        if (k) {
            g->itl_weight += k;
            g->itl_sum_ns += gap;
        }
    }
}

LLMLAT_PRIVATE bool gap_any_zero(const conv_rules *c, const llmlat_request *r,
                                                const req_view *v)
{
    gap_walk w;
    uint32_t k0, k;
    int64_t gap;
    if (r->folder) {
        gap_summary g;
        bool zero = false;
        r->folder->gaps(r, c, &g, &zero);
        return zero;
    }
    if (!gap_walk_begin(&w, c, r, v, &k0))
        return false;
    while (gap_walk_next(&w, &gap, &k))
        if (gap == 0)
            return true;
    return false;
}
