/* llmlat_agg_add_columns(_scheduled): many requests given as arrays,
 * added all or nothing. Each request is a view of the caller's arrays (no copy), put
 * through the same check / reserve / commit as llmlat_agg_add (agg.c):
 * every request is checked and the room for all of them reserved before
 * the first is folded in. */
#include "agg/agg.h"

typedef struct agg_columns {
    size_t n;
    const int64_t *start_ns, *end_ns;
    const uint8_t *ok;
    const uint64_t *offsets;
    const int64_t *t_ns;
    const uint32_t *k;
    const int64_t *input_tokens, *output_tokens;
    const int64_t *scheduled_ns; /* LLMLAT_NO_SCHEDULE: none */
} agg_columns;

/* Request i of the columns, as a view (`checked`: it passed already). */
static int32_t column_request(const agg_columns *c, size_t i, bool checked, llmlat_request *r)
{
    uint64_t from = 0, to = 0;
    if (c->offsets) {
        from = c->offsets[i];
        to = c->offsets[i + 1];
        if (to < from || to > c->offsets[c->n] || to - from > SIZE_MAX)
            return LLMLAT_EINVAL;
    }
    req_spec s = {
        .start = c->start_ns[i],
        .t = c->t_ns ? c->t_ns + from : NULL,
        .k = c->k ? c->k + from : NULL,
        .n = (size_t)(to - from),
        .has_end = c->end_ns != NULL,
        .end = c->end_ns ? c->end_ns[i] : 0,
        .failed = c->ok && !c->ok[i],
        .cancelled = c->ok && c->ok[i] == LLMLAT_COLUMN_CANCELLED,
        .checked = checked,
    };
    if (c->input_tokens) {
        if (c->input_tokens[i] < 0)
            return LLMLAT_EINVAL;
        s.input_tokens = (uint64_t)c->input_tokens[i];
    }
    if (c->output_tokens && c->output_tokens[i] >= 0) {
        s.has_output_tokens = true;
        s.output_tokens = (uint64_t)c->output_tokens[i];
    }
    if (c->scheduled_ns && c->scheduled_ns[i] != LLMLAT_NO_SCHEDULE) {
        s.has_scheduled = true;
        s.scheduled = c->scheduled_ns[i];
    }
    return req_make_view(r, &s);
}

LLMLAT_API int32_t llmlat_agg_add_columns_scheduled(
    llmlat_agg *a, size_t n, const int64_t *start_ns, const int64_t *end_ns, const uint8_t *ok,
    const uint64_t *offsets, const int64_t *t_ns, const uint32_t *k, const int64_t *input_tokens,
    const int64_t *output_tokens, const int64_t *scheduled_ns, size_t *bad)
{
    size_t unused;
    if (!bad)
        bad = &unused;
    *bad = SIZE_MAX;
    if (!a || (n && !start_ns) || n == SIZE_MAX)
        return LLMLAT_EINVAL;
    uint64_t events = offsets && n ? offsets[n] : 0;
    if (events && (!t_ns || !k))
        return LLMLAT_EINVAL;
    agg_columns c = { n, start_ns, end_ns, ok, offsets, t_ns, k, input_tokens, output_tokens,
                      scheduled_ns };
    llmlat_request r;
    req_view v;
    agg_pending p;
    agg_pending_init(&p);
    for (size_t i = 0; i < n; i++) {
        int32_t st = column_request(&c, i, false, &r);
        if (st == LLMLAT_OK) {
            conv_view(a->conv, &r, &v);
            st = agg_add_check(a, &r, &v, &p);
        }
        if (st != LLMLAT_OK) {
            *bad = i;
            return st;
        }
    }
    int32_t st = agg_add_reserve(a, &p);
    if (st != LLMLAT_OK)
        return st;
    /* From here on nothing can fail. */
    for (size_t i = 0; i < n; i++) {
        column_request(&c, i, true, &r);
        conv_view(a->conv, &r, &v);
        agg_add_commit(a, &r, &v);
    }
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_agg_add_columns(llmlat_agg *a, size_t n, const int64_t *start_ns,
                                          const int64_t *end_ns, const uint8_t *ok,
                                          const uint64_t *offsets, const int64_t *t_ns,
                                          const uint32_t *k, const int64_t *input_tokens,
                                          const int64_t *output_tokens, size_t *bad)
{
    return llmlat_agg_add_columns_scheduled(a, n, start_ns, end_ns, ok, offsets, t_ns, k,
                                            input_tokens, output_tokens, NULL, bad);
}
