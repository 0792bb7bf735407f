/* An exact store's section of the byte format (docs/format.md): every
 * sample and, when the store is weighted, its weight. The reader checks
 * what the queries rely on (samples >= 0 and finite squares, weights >= 1,
 * a total weight that fits). */
#include "exact/exact_store.h"

LLMLAT_PRIVATE void exact_write(bytes_writer *w, const exact_store *e)
{
    put_u64(w, e->n);
    for (size_t i = 0; i < e->n; i++) {
        put_f64(w, e->v[i]);
        if (e->weighted)
            put_u32(w, e->w[i]);
    }
}

/* No metric reaches this (the largest, tokens/s, stays below 2^95): a
 * bound under which squares, and exact mode's sums of them, stay finite. */
#define SAMPLE_LIMIT 0x1p100

LLMLAT_PRIVATE int32_t exact_read(bytes_reader *r, exact_store *e, const llmlat_alloc *al)
{
    size_t per = 8 + (e->weighted ? 4 : 0);
    uint64_t n = get_u64(r);
    if (r->bad || n > r->left / per)
        return LLMLAT_EFORMAT;
    int32_t st = exact_reserve(e, al, (size_t)n);
    if (st != LLMLAT_OK)
        return st;
    for (uint64_t i = 0; i < n; i++) {
        double v = get_f64(r);
        uint32_t wt = e->weighted ? get_u32(r) : 1;
        if (!(v >= 0.0 && v < SAMPLE_LIMIT) || wt == 0 ||
            wt > UINT64_MAX - e->total_w)
            return LLMLAT_EFORMAT;
        exact_push(e, v, wt);
    }
    return r->bad ? LLMLAT_EFORMAT : LLMLAT_OK;
}
