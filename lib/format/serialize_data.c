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

LLMLAT_PRIVATE void write_sketch(bytes_writer *w, const sketch *s, const sketch_map *map)
{
    put_u32(w, (uint32_t)map->schema);
    put_u64(w, s->count);
    put_u64(w, s->zero);
    put_u64(w, s->below);
    put_f64(w, s->min);
    put_f64(w, s->max);
    for (int i = 0; i < 3; i++)
        put_u64(w, s->sums.s1[i]);
    for (int i = 0; i < 4; i++)
        put_u64(w, s->sums.s2[i]);
    if (s->top == SKETCH_NO_TOP) {
        put_u64(w, 0);
        return;
    }
    put_u64(w, (uint64_t)(s->top - s->low + 1));
    put_i64(w, s->low);
    for (int64_t i = s->low; i <= s->top; i++)
        put_varint(w, s->bucket[i - s->base]);
}

/* The sums as doubles (a few roundings: the checks below allow for
 * them): sum(w x) and sum(w x^2) in the internal unit. */
static double limbs_value(const uint64_t *l, int n)
{
    double v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v * 0x1p64 + (double)l[i];
    return v * 0x1p-64;
}

/* Slack of the checks that compare sums with what the buckets allow:
 * far above the roundings of honest data (1e-15), far below any real
 * contradiction. */
#define SUMS_SLACK 1e-9

LLMLAT_PRIVATE bool sketch_holds_together(const sketch *s, const sketch_range *r)
{
    if (s->count == 0) {
        uint64_t any = 0;
        for (int i = 0; i < 3; i++)
            any |= s->sums.s1[i];
        for (int i = 0; i < 4; i++)
            any |= s->sums.s2[i];
        return !any && s->min == INFINITY && s->max == -INFINITY;
    }
    if (!(s->min >= 0.0 && s->min <= s->max && isfinite(s->max)))
        return false;
    /* 0 is the minimum exactly when some sample is 0 */
    if ((s->min == 0.0) != (s->zero > 0))
        return false;
    double n = (double)s->count, u = s->unit;
    double sum = limbs_value(s->sums.s1, 3), sq = limbs_value(s->sums.s2, 4);
    double lo = s->min * u * (1 - SUMS_SLACK), hi = s->max * u * (1 + SUMS_SLACK);
    /* a fractional sample, and its square (a chunk's squares too), lose
     * less than 2^-64 when cut (fixsum.h): lower bounds allow n such cuts,
     * all of it for samples as small as 1e-21 s */
    double cut = n * 0x1p-64;
    /* the mean within [min, max], the sum within what the buckets allow,
     * the mean square between mean^2 (variance >= 0) and what they allow */
    if (!(sum >= lo * n - cut && sum <= hi * n))
        return false;
    if (!(sum >= r->sum_lo * u * (1 - SUMS_SLACK) - cut &&
          sum <= r->sum_hi * u * (1 + SUMS_SLACK)))
        return false;
    double mean = sum / n;
    return sq >= mean * mean * n * (1 - SUMS_SLACK) - cut &&
           sq <= r->sq_hi * u * u * (1 + SUMS_SLACK);
}

/* Adds c samples in (lo, hi] (exported unit) to what r allows. */
LLMLAT_PRIVATE void sketch_range_add(sketch_range *r, uint64_t c, double lo, double hi)
{
    r->sum_lo += (double)c * lo;
    r->sum_hi += (double)c * hi;
    r->sq_hi += (double)c * hi * hi;
}

/* The buckets, low..top, and what they say of the window, the zero bucket
 * and the extremes: top is the maximum's bucket, both ends non-zero,
 * everything adding up to count; the minimum is the lowest bucket's when
 * nothing lies below it, else 0 (zeros) or at most the threshold. */
static int32_t read_buckets(bytes_reader *r, sketch *s, const sketch_map *map, uint64_t n)
{
    int64_t low = get_i64(r);
    if (r->bad || n > map->width || !(s->max > 0.0) ||
        low != sketch_map_index(map, s->max) - (int64_t)n + 1)
        return LLMLAT_EFORMAT;
    s->top = low + (int64_t)n - 1;
    s->base = s->top - (int64_t)map->width + 1;
    s->low = low;
    uint64_t total = s->zero;
    if (s->below > UINT64_MAX - total)
        return LLMLAT_EFORMAT;
    total += s->below;
    for (int64_t i = low; i <= s->top; i++) {
        uint64_t c = get_varint(r);
        if (r->bad || c > UINT64_MAX - total || (c == 0 && (i == low || i == s->top)))
            return LLMLAT_EFORMAT;
        s->bucket[i - s->base] = c;
        total += c;
    }
    return total == s->count && sketch_buckets_hold(s, map) ? LLMLAT_OK : LLMLAT_EFORMAT;
}

LLMLAT_PRIVATE bool sketch_buckets_hold(const sketch *s, const sketch_map *map)
{
    double z = sketch_zero_threshold(s, map);
    sketch_range range = { 0, 0, 0 };
    sketch_range_add(&range, s->below, 0.0, z);
    for (int64_t i = s->low; i <= s->top; i++)
        sketch_range_add(&range, s->bucket[i - s->base], sketch_map_upper(map, i - 1),
                         sketch_map_upper(map, i));
    bool min_placed = s->zero ? true
                    : s->below ? s->min > 0.0 && s->min <= z
                               : sketch_map_index(map, s->min) == s->low;
    return min_placed && sketch_holds_together(s, &range);
}

LLMLAT_PRIVATE void get_fixsum(bytes_reader *r, fixsum *f)
{
    for (int i = 0; i < 3; i++)
        f->s1[i] = get_u64(r);
    for (int i = 0; i < 4; i++)
        f->s2[i] = get_u64(r);
}

LLMLAT_PRIVATE int32_t read_sketch(bytes_reader *r, sketch *s, const sketch_map *map)
{
    uint32_t schema = get_u32(r);
    s->count = get_u64(r);
    s->zero = get_u64(r);
    s->below = get_u64(r);
    s->min = get_f64(r);
    s->max = get_f64(r);
    get_fixsum(r, &s->sums);
    uint64_t n = get_u64(r);
    if (r->bad || schema != (uint32_t)map->schema || s->zero > s->count ||
        s->below > s->count - s->zero)
        return LLMLAT_EFORMAT;
    if (n == 0) { /* no sample above 0 */
        sketch_range none = { 0, 0, 0 };
        return s->below == 0 && s->zero == s->count && sketch_holds_together(s, &none)
                   ? LLMLAT_OK
                   : LLMLAT_EFORMAT;
    }
    if (!s->bucket) /* a metric without samples of its own */
        return LLMLAT_EFORMAT;
    return read_buckets(r, s, map, n);
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
        put_i64(w, q->scheduled_ns);
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

/* A logged request's bytes without its events: 44, and from version 3
 * its intended start (8). */
#define LOGGED_REQUEST_BYTES_V2 44
#define LOGGED_REQUEST_BYTES 52
#define LOGGED_EVENT_BYTES 12

/* One request as the recorder would have accepted it: its intended start
 * (when it has one) at or before its start, events in order from the
 * start, the end after the last, every time within INT64_MAX of the
 * earliest. */
static bool logged_times_valid(const logged_request *q, const int64_t *t)
{
    bool scheduled = (q->flags & LOGGED_SCHEDULED) != 0;
    int64_t max_t = req_max_time(scheduled ? q->scheduled_ns : q->start_ns);
    if (scheduled ? q->scheduled_ns > q->start_ns || q->start_ns > max_t : q->scheduled_ns != 0)
        return false;
    int64_t prev = q->start_ns;
    for (uint32_t j = 0; j < q->n_events; j++) {
        if (t[j] < prev || t[j] > max_t)
            return false;
        prev = t[j];
    }
    return q->end_ns >= prev && q->end_ns <= max_t;
}

LLMLAT_PRIVATE int32_t read_request_log(bytes_reader *r, request_log *g, const llmlat_alloc *al,
                                        uint32_t version)
{
    const uint32_t known = LOGGED_FAILED | LOGGED_HAS_USAGE | LOGGED_CANCELLED |
                           (version >= 3 ? LOGGED_SCHEDULED : 0u);
    const uint64_t request_bytes = version >= 3 ? LOGGED_REQUEST_BYTES : LOGGED_REQUEST_BYTES_V2;
    uint64_t n = get_u64(r);
    if (r->bad || n > r->left / request_bytes)
        return LLMLAT_EFORMAT;
    int32_t st = request_log_reserve(g, al, (size_t)n, 0);
    if (st != LLMLAT_OK)
        return st;
    for (uint64_t i = 0; i < n; i++) {
        logged_request q;
        q.start_ns = get_i64(r);
        q.end_ns = get_i64(r);
        q.scheduled_ns = version >= 3 ? get_i64(r) : 0;
        q.flags = get_u32(r);
        q.lacks = get_u32(r);
        q.input_tokens = get_u64(r);
        q.output_tokens = get_u64(r);
        q.n_events = get_u32(r);
        q.first_event = g->n_ev;
        if (r->bad || (q.flags & ~known) ||
            ((q.flags & LOGGED_FAILED) && (q.flags & LOGGED_CANCELLED)) ||
            (q.lacks & ~(uint32_t)(LLMLAT_LACKS_KNOWN & ~LLMLAT_LACKS_CHUNKS)) ||
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
        if (r->bad || !logged_times_valid(&q, q.n_events ? g->t + g->n_ev : NULL))
            return LLMLAT_EFORMAT;
        g->n_ev += q.n_events;
        g->req[g->n_req++] = q;
    }
    return LLMLAT_OK;
}
