/* Serialized samples: an exact store, a bounded sketch, the exact-mode
 * timeline. Each reader checks what the rest of the library relies on
 * (weights >= 1, counts that add up, a window in range), so that a
 * deserialized aggregator behaves like one built by adding requests. */
#include <math.h>

#include "format/serialize.h"

LLMLAT_PRIVATE void write_exact_store(bytes_writer *w, const exact_store *e)
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

LLMLAT_PRIVATE int32_t read_exact_store(bytes_reader *r, exact_store *e, const llmlat_alloc *al)
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

LLMLAT_PRIVATE void write_sketch(bytes_writer *w, const sketch *s)
{
    put_u64(w, s->count);
    put_u64(w, s->zero);
    put_f64(w, s->min);
    put_f64(w, s->max);
    for (int i = 0; i < 3; i++)
        put_u64(w, s->sums.s1[i]);
    for (int i = 0; i < 4; i++)
        put_u64(w, s->sums.s2[i]);
    put_i64(w, s->top);
    if (s->top == SKETCH_NO_TOP)
        return;
    put_i64(w, s->low);
    for (int64_t i = s->low; i <= s->top; i++)
        put_varint(w, s->bucket[i - s->base]);
}

/* The extremes of a sketch holding `count` samples, `zero` of them 0. */
static bool extremes_valid(const sketch *s)
{
    if (s->count == 0)
        return s->min == INFINITY && s->max == -INFINITY;
    if (!(s->min >= 0.0 && s->min <= s->max && isfinite(s->max)))
        return false;
    /* 0 is the minimum exactly when some sample is 0 */
    return (s->min == 0.0) == (s->zero > 0);
}

static bool sums_empty(const fixsum *f)
{
    uint64_t any = 0;
    for (int i = 0; i < 3; i++)
        any |= f->s1[i];
    for (int i = 0; i < 4; i++)
        any |= f->s2[i];
    return !any;
}

/* Bucket counts from low to top, the shortest canonical form: both ends
 * non-zero, and all adding up to count - zero. */
static int32_t read_buckets(bytes_reader *r, sketch *s, const sketch_map *map)
{
    int64_t low = get_i64(r);
    /* every index a finite double can have */
    int64_t max_index = (int64_t)2047 * map->per_octave - 1;
    if (r->bad || s->top < 0 || s->top > max_index || low > s->top ||
        low < s->top - (int64_t)map->width + 1 || low < 0)
        return LLMLAT_EFORMAT;
    s->base = s->top - (int64_t)map->width + 1;
    s->low = low;
    uint64_t total = s->zero;
    for (int64_t i = low; i <= s->top; i++) {
        uint64_t c = get_varint(r);
        if (r->bad || c > UINT64_MAX - total || (c == 0 && (i == low || i == s->top)))
            return LLMLAT_EFORMAT;
        s->bucket[i - s->base] = c;
        total += c;
    }
    return total == s->count ? LLMLAT_OK : LLMLAT_EFORMAT;
}

LLMLAT_PRIVATE int32_t read_sketch(bytes_reader *r, sketch *s, const sketch_map *map)
{
    s->count = get_u64(r);
    s->zero = get_u64(r);
    s->min = get_f64(r);
    s->max = get_f64(r);
    for (int i = 0; i < 3; i++)
        s->sums.s1[i] = get_u64(r);
    for (int i = 0; i < 4; i++)
        s->sums.s2[i] = get_u64(r);
    s->top = get_i64(r);
    if (r->bad || s->zero > s->count || !extremes_valid(s) ||
        (s->count == 0 && !sums_empty(&s->sums)))
        return LLMLAT_EFORMAT;
    if (s->top == SKETCH_NO_TOP) /* no sample above 0 */
        return s->zero == s->count ? LLMLAT_OK : LLMLAT_EFORMAT;
    if (!s->bucket) /* a metric without samples of its own */
        return LLMLAT_EFORMAT;
    return read_buckets(r, s, map);
}

LLMLAT_PRIVATE void write_timeline(bytes_writer *w, const timeline *tl)
{
    put_u64(w, tl->n_rec);
    for (size_t i = 0; i < tl->n_rec; i++) {
        const success_record *rec = &tl->rec[i];
        put_i64(w, rec->start_ns);
        put_i64(w, rec->e2e_ns);
        put_f64(w, rec->ttft_s);
        put_f64(w, rec->tpot_s);
        put_f64(w, rec->e2e_s);
    }
    put_u64(w, tl->n_tok);
    for (size_t i = 0; i < tl->n_tok; i++) {
        put_i64(w, tl->tok_t[i]);
        put_u32(w, tl->tok_k[i]);
    }
}

/* A value an SLO is checked against: missing (NaN) or a latency. */
static bool slo_value_valid(double v)
{
    return isnan(v) || (v >= 0.0 && isfinite(v));
}

LLMLAT_PRIVATE int32_t read_timeline(bytes_reader *r, timeline *tl, const llmlat_alloc *al)
{
    uint64_t n = get_u64(r);
    if (r->bad || n > r->left / 40)
        return LLMLAT_EFORMAT;
    int32_t st = timeline_reserve(tl, al, (size_t)n, 0);
    if (st != LLMLAT_OK)
        return st;
    for (uint64_t i = 0; i < n; i++) {
        success_record rec;
        rec.start_ns = get_i64(r);
        rec.e2e_ns = get_i64(r);
        rec.ttft_s = get_f64(r);
        rec.tpot_s = get_f64(r);
        rec.e2e_s = get_f64(r);
        if (rec.e2e_ns < -1 || !slo_value_valid(rec.ttft_s) || !slo_value_valid(rec.tpot_s) ||
            !slo_value_valid(rec.e2e_s))
            return LLMLAT_EFORMAT;
        timeline_push_record(tl, &rec);
    }
    /* Events belong to successes and follow their start: the peak's
     * 1-second buckets count from the earliest start on. */
    int64_t origin = INT64_MAX;
    for (size_t i = 0; i < tl->n_rec; i++)
        if (tl->rec[i].start_ns < origin)
            origin = tl->rec[i].start_ns;
    n = get_u64(r);
    if (r->bad || n > r->left / 12)
        return LLMLAT_EFORMAT;
    st = timeline_reserve(tl, al, 0, (size_t)n);
    if (st != LLMLAT_OK)
        return st;
    for (uint64_t i = 0; i < n; i++) {
        int64_t t = get_i64(r);
        uint32_t k = get_u32(r);
        if (k == 0 || t < origin)
            return LLMLAT_EFORMAT;
        timeline_push_event(tl, t, k);
    }
    return r->bad ? LLMLAT_EFORMAT : LLMLAT_OK;
}

LLMLAT_PRIVATE void write_request_log(bytes_writer *w, const request_log *g)
{
    put_u64(w, g->n_req);
    for (size_t i = 0; i < g->n_req; i++) {
        const logged_request *q = &g->req[i];
        put_i64(w, q->start_ns);
        put_i64(w, q->end_ns);
        put_u32(w, q->flags);
        put_u32(w, q->lacks);
        put_u64(w, q->input_tokens);
        put_u64(w, q->output_tokens);
        put_u32(w, q->n_events);
        for (size_t j = 0; j < q->n_events; j++) {
            put_i64(w, g->t[q->first_event + j]);
            put_u32(w, g->k[q->first_event + j]);
        }
    }
}

#define LOGGED_REQUEST_BYTES 44 /* without its events */
#define LOGGED_EVENT_BYTES 12

/* One request as the recorder would have accepted it: events in order
 * from the start, the end after the last, every time within INT64_MAX of
 * the start. */
static bool logged_times_valid(const logged_request *q, const int64_t *t)
{
    int64_t max_t = q->start_ns <= 0 ? q->start_ns + INT64_MAX : INT64_MAX;
    int64_t prev = q->start_ns;
    for (uint32_t j = 0; j < q->n_events; j++) {
        if (t[j] < prev || t[j] > max_t)
            return false;
        prev = t[j];
    }
    return q->end_ns >= prev && q->end_ns <= max_t;
}

LLMLAT_PRIVATE int32_t read_request_log(bytes_reader *r, request_log *g, const llmlat_alloc *al)
{
    uint64_t n = get_u64(r);
    if (r->bad || n > r->left / LOGGED_REQUEST_BYTES)
        return LLMLAT_EFORMAT;
    int32_t st = request_log_reserve(g, al, (size_t)n, 0);
    if (st != LLMLAT_OK)
        return st;
    for (uint64_t i = 0; i < n; i++) {
        logged_request q;
        q.start_ns = get_i64(r);
        q.end_ns = get_i64(r);
        q.flags = get_u32(r);
        q.lacks = get_u32(r);
        q.input_tokens = get_u64(r);
        q.output_tokens = get_u64(r);
        q.n_events = get_u32(r);
        q.first_event = g->n_ev;
        if (r->bad || (q.flags & ~(LOGGED_FAILED | LOGGED_HAS_USAGE)) ||
            (q.lacks & ~(uint32_t)(LLMLAT_LACKS_ALL & ~LLMLAT_LACKS_CHUNKS)) ||
            (!(q.flags & LOGGED_HAS_USAGE) && q.output_tokens) ||
            q.n_events > r->left / LOGGED_EVENT_BYTES)
            return LLMLAT_EFORMAT;
        st = request_log_reserve(g, al, 0, q.n_events);
        if (st != LLMLAT_OK)
            return st;
        for (uint32_t j = 0; j < q.n_events; j++) {
            g->t[g->n_ev + j] = get_i64(r);
            g->k[g->n_ev + j] = get_u32(r);
        }
        if (r->bad || !logged_times_valid(&q, g->t + g->n_ev))
            return LLMLAT_EFORMAT;
        g->n_ev += q.n_events;
        g->req[g->n_req++] = q;
    }
    return LLMLAT_OK;
}
