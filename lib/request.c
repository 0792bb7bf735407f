/* The recorder: one in-flight request's timestamps. The hot path is
 * llmlat_request_event(): a few checks and two stores. */
#include <string.h>

#include "request.h"

static void clear(llmlat_request *r)
{
    r->state = REQ_NEW;
    r->start_ns = 0;
    r->end_ns = 0;
    r->n = 0;
    r->sum_k = 0;
    r->n_tok = 0;
    r->first_tok = REQ_NONE;
    r->last_tok = REQ_NONE;
    r->input_tokens = 0;
    r->output_tokens = 0;
    r->has_output_tokens = false;
}

LLMLAT_API llmlat_request *llmlat_request_new(void)
{
    llmlat_alloc al = alloc_current();
    llmlat_request *r = alloc_malloc(&al, sizeof *r);
    if (!r)
        return NULL;
    memset(r, 0, sizeof *r);
    r->al = al;
    clear(r);
    return r;
}

LLMLAT_API void llmlat_request_free(llmlat_request *r)
{
    if (!r)
        return;
    llmlat_alloc al = r->al;
    alloc_free(&al, r->t);
    alloc_free(&al, r->k);
    alloc_free(&al, r);
}

LLMLAT_API int32_t llmlat_request_reset(llmlat_request *r)
{
    if (!r)
        return LLMLAT_EINVAL;
    clear(r);
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_start(llmlat_request *r, int64_t t_ns)
{
    if (!r)
        return LLMLAT_EINVAL;
    if (r->state != REQ_NEW)
        return LLMLAT_ESTATE;
    r->state = REQ_STARTED;
    r->start_ns = t_ns;
    return LLMLAT_OK;
}

/* The earliest time a new event (or the end) may carry. */
static inline int64_t last_time(const llmlat_request *r)
{
    return r->n ? r->t[r->n - 1] : r->start_ns;
}

/* t_ns is acceptable after `prev`, and its distance to the start fits
 * int64 (so every gap and latency does). */
static inline int32_t check_time(const llmlat_request *r, int64_t prev, int64_t t_ns)
{
    if (t_ns < prev)
        return LLMLAT_EORDER;
    if ((uint64_t)t_ns - (uint64_t)r->start_ns > (uint64_t)INT64_MAX)
        return LLMLAT_EINVAL;
    return LLMLAT_OK;
}

/* Both event buffers hold at least `need` elements; unchanged on failure. */
static int32_t reserve(llmlat_request *r, size_t need)
{
    if (need <= r->cap)
        return LLMLAT_OK;
    size_t cap_t = r->cap, cap_k = r->cap;
    void *t = r->t, *k = r->k;
    int32_t st = alloc_grow(&r->al, &t, &cap_t, need, sizeof *r->t);
    if (st != LLMLAT_OK)
        return st;
    r->t = t; /* the grown buffer holds the same events: safe to keep */
    st = alloc_grow(&r->al, &k, &cap_k, need, sizeof *r->k);
    if (st != LLMLAT_OK)
        return st;
    r->k = k;
    r->cap = cap_t < cap_k ? cap_t : cap_k;
    return LLMLAT_OK;
}

static inline void append(llmlat_request *r, int64_t t_ns, uint32_t k)
{
    size_t i = r->n++;
    r->t[i] = t_ns;
    r->k[i] = k;
    if (k) {
        if (r->first_tok == REQ_NONE)
            r->first_tok = i;
        r->last_tok = i;
        r->n_tok++;
        r->sum_k += k;
    }
}

LLMLAT_API int32_t llmlat_request_event(llmlat_request *r, int64_t t_ns, uint32_t k)
{
    if (!r)
        return LLMLAT_EINVAL;
    if (r->state != REQ_STARTED)
        return LLMLAT_ESTATE;
    int32_t st = check_time(r, last_time(r), t_ns);
    if (st != LLMLAT_OK)
        return st;
    /* sum_k < 2^64 - 2^32 always holds while fewer than 2^32 events of
     * UINT32_MAX tokens arrived; check anyway, it is one compare. */
    if (r->sum_k > UINT64_MAX - k)
        return LLMLAT_EINVAL;
    if (r->n == r->cap) {
        if (r->n == SIZE_MAX)
            return LLMLAT_EINVAL;
        st = reserve(r, r->n + 1);
        if (st != LLMLAT_OK)
            return st;
    }
    append(r, t_ns, k);
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_events(llmlat_request *r, const int64_t *t_ns,
                                         const uint32_t *k, size_t n)
{
    if (!r)
        return LLMLAT_EINVAL;
    if (n && (!t_ns || !k))
        return LLMLAT_EINVAL;
    if (r->state != REQ_STARTED)
        return LLMLAT_ESTATE;
    /* Validate everything before storing anything: all or nothing. */
    int64_t prev = last_time(r);
    uint64_t sum = r->sum_k;
    for (size_t i = 0; i < n; i++) {
        int32_t st = check_time(r, prev, t_ns[i]);
        if (st != LLMLAT_OK)
            return st;
        if (sum > UINT64_MAX - k[i])
            return LLMLAT_EINVAL;
        sum += k[i];
        prev = t_ns[i];
    }
    if (n > SIZE_MAX - r->n)
        return LLMLAT_EINVAL;
    int32_t st = reserve(r, r->n + n);
    if (st != LLMLAT_OK)
        return st;
    for (size_t i = 0; i < n; i++)
        append(r, t_ns[i], k[i]);
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_set_input_tokens(llmlat_request *r, uint64_t n)
{
    if (!r)
        return LLMLAT_EINVAL;
    r->input_tokens = n;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_set_output_tokens(llmlat_request *r, uint64_t n)
{
    if (!r)
        return LLMLAT_EINVAL;
    r->output_tokens = n;
    r->has_output_tokens = true;
    return LLMLAT_OK;
}

static int32_t end(llmlat_request *r, int64_t t_ns, enum req_state how)
{
    if (!r)
        return LLMLAT_EINVAL;
    if (r->state != REQ_STARTED)
        return LLMLAT_ESTATE;
    int32_t st = check_time(r, last_time(r), t_ns);
    if (st != LLMLAT_OK)
        return st;
    r->state = how;
    r->end_ns = t_ns;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_finish(llmlat_request *r, int64_t t_ns)
{
    return end(r, t_ns, REQ_FINISHED);
}

LLMLAT_API int32_t llmlat_request_fail(llmlat_request *r, int64_t t_ns)
{
    return end(r, t_ns, REQ_FAILED);
}
