/* The recorder: one in-flight request's timestamps. The hot path is
 * llmlat_request_event(): three compares and three stores; everything else
 * (state errors, growth, limits, a streaming recorder's full block) is on
 * its slow path. */
#include <string.h>

#include "record/convention.h"
#include "record/request.h"

static void clear(llmlat_request *r)
{
    r->state = REQ_NEW;
    r->start_ns = 0;
    r->end_ns = 0;
    r->has_scheduled = false;
    r->scheduled_ns = 0;
    r->n = 0;
    r->t_base = 0;
    r->room = 0;
    r->last_t = INT64_MAX;
    r->max_t = INT64_MIN;
    r->t_first = 0;
    r->sum = (req_summary){ 0, 0, REQ_NONE, REQ_NONE, 0, 0 };
    if (r->folder)
        r->folder->clear(r);
    r->input_tokens = 0;
    r->output_tokens = 0;
    r->has_output_tokens = false;
    r->lacks = 0;
    r->known_conv = 0;
    r->has_known_ttft = r->has_known_e2e = r->has_known_tool_itl = r->has_known_tps = false;
    r->known_ttft_ns = r->known_e2e_ns = 0;
    r->known_tool_itl_s = r->known_tps = 0.0;
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
    if (r->folder)
        r->folder->free(r);
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
    if (r->has_scheduled && t_ns < r->scheduled_ns)
        return LLMLAT_EORDER;
    if (r->has_scheduled && t_ns > req_max_time(r->scheduled_ns))
        return LLMLAT_EOVERFLOW;
    r->state = REQ_STARTED;
    r->start_ns = t_ns;
    r->last_t = t_ns;
    r->max_t = req_max_time(r->has_scheduled ? r->scheduled_ns : t_ns);
    r->room = r->cap;
    return LLMLAT_OK;
}

/* Before the start, the start is checked against it; after, every time
 * recorded so far (the last one, last_t, is the latest) must be at or
 * after it and within int64 of it, and later ones are held to that. */
LLMLAT_API int32_t llmlat_request_schedule(llmlat_request *r, int64_t t_ns)
{
    if (!r)
        return LLMLAT_EINVAL;
    if (req_ended(r))
        return LLMLAT_ESTATE;
    if (r->state == REQ_STARTED) {
        if (t_ns > r->start_ns)
            return LLMLAT_EORDER;
        if (r->last_t > req_max_time(t_ns))
            return LLMLAT_EOVERFLOW;
        r->max_t = req_max_time(t_ns);
    }
    r->has_scheduled = true;
    r->scheduled_ns = t_ns;
    return LLMLAT_OK;
}

/* Why a time is refused, once the fast checks failed. */
static int32_t time_error(const llmlat_request *r, int64_t t_ns)
{
    if (t_ns < r->last_t)
        return LLMLAT_EORDER;
    if (t_ns > r->max_t)
        return LLMLAT_EOVERFLOW; /* t - start does not fit int64 */
    return LLMLAT_OK;
}

/* Both event buffers hold at least `need` elements; unchanged on failure. */
static int32_t req_reserve(llmlat_request *r, size_t need)
{
    if (need <= r->cap)
        return LLMLAT_OK;
    if (need > REQ_MAX_EVENTS)
        return LLMLAT_EOVERFLOW;
    void *t = r->t, *k = r->k;
    int32_t st = alloc_grow_pair(&r->al, &t, sizeof *r->t, &k, sizeof *r->k, &r->cap, need);
    r->t = t;
    r->k = k;
    r->room = r->cap;
    return st;
}

static inline void append(llmlat_request *r, int64_t t_ns, uint32_t k)
{
    size_t i = r->n++ - r->t_base;
    r->t[i] = t_ns;
    r->k[i] = k;
    r->last_t = t_ns;
}

/* A streaming recorder's events up to n are folded (the first at t0):
 * its block is empty again. */
static void folded(llmlat_request *r, int64_t t0)
{
    if (!r->t_base && r->n)
        r->t_first = t0;
    r->t_base = r->n;
    r->room = r->cap < REQ_MAX_EVENTS - r->n ? r->n + r->cap : REQ_MAX_EVENTS;
}

/* A streaming recorder's block folded, so that it takes events again. */
static int32_t flush(llmlat_request *r)
{
    if (!req_held(r))
        return LLMLAT_OK;
    int32_t st = r->folder->flush(r);
    if (st == LLMLAT_OK)
        folded(r, r->t[0]);
    return st;
}

LLMLAT_COLD static int32_t event_slow(llmlat_request *r, int64_t t_ns, uint32_t k)
{
    if (!r)
        return LLMLAT_EINVAL;
    if (r->state != REQ_STARTED || req_values_only(r))
        return LLMLAT_ESTATE;
    int32_t st = time_error(r, t_ns);
    if (st == LLMLAT_OK && r->n >= REQ_MAX_EVENTS)
        st = LLMLAT_EOVERFLOW;
    if (st == LLMLAT_OK)
        st = r->folder ? flush(r) : req_reserve(r, r->n + 1);
    if (st != LLMLAT_OK)
        return st;
    append(r, t_ns, k);
    return LLMLAT_OK;
}

/* Both recorders take the same path: a streaming recorder's block is its
 * buffer, folded on the slow path when full. */
LLMLAT_API int32_t llmlat_request_event(llmlat_request *r, int64_t t_ns, uint32_t k)
{
    if (r && r->n < r->room && t_ns >= r->last_t && t_ns <= r->max_t) {
        append(r, t_ns, k);
        return LLMLAT_OK;
    }
    return event_slow(r, t_ns, k);
}

LLMLAT_API int32_t llmlat_request_events(llmlat_request *r, const int64_t *t_ns,
                                         const uint32_t *k, size_t n)
{
    if (!r)
        return LLMLAT_EINVAL;
    if (n && (!t_ns || !k))
        return LLMLAT_EINVAL;
    if (r->state != REQ_STARTED || (n && req_values_only(r)))
        return LLMLAT_ESTATE;
    /* Validate everything before storing anything: all or nothing. */
    int64_t prev = r->last_t;
    for (size_t i = 0; i < n; i++) {
        if (t_ns[i] < prev)
            return LLMLAT_EORDER;
        if (t_ns[i] > r->max_t)
            return LLMLAT_EOVERFLOW;
        prev = t_ns[i];
    }
    if (n > REQ_MAX_EVENTS - r->n)
        return LLMLAT_EOVERFLOW;
    if (r->folder) { /* its block is for single events */
        if (!n)
            return LLMLAT_OK;
        int32_t st = flush(r);
        if (st == LLMLAT_OK)
            st = r->folder->events(r, t_ns, k, n);
        if (st == LLMLAT_OK) {
            r->n += n;
            r->last_t = t_ns[n - 1];
            folded(r, t_ns[0]);
        }
        return st;
    }
    int32_t st = req_reserve(r, r->n + n);
    if (st != LLMLAT_OK)
        return st;
    if (n) {
        memcpy(r->t + r->n, t_ns, n * sizeof *t_ns);
        memcpy(r->k + r->n, k, n * sizeof *k);
        r->n += n;
        r->last_t = t_ns[n - 1];
    }
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

/* One pass over k[], in locals: stores into *s inside the loop would make
 * each iteration wait on the previous one's (s may alias r's fields). The
 * first and last token-bearing events are found from the ends, so the
 * loop itself is a plain sum and count that the compiler vectorizes. */
LLMLAT_PRIVATE void req_summarize(const llmlat_request *r, req_summary *s)
{
    const uint32_t *k = r->k;
    const size_t n = r->n;
    size_t first = 0, last = n;
    while (first < n && !k[first])
        first++;
    if (first == n) {
        *s = (req_summary){ 0, 0, REQ_NONE, REQ_NONE, 0, 0 };
        return;
    }
    while (!k[last - 1])
        last--;
    uint64_t sum = 0;
    size_t zeros = 0;
    for (size_t i = first; i < last; i++) {
        sum += k[i];
        zeros += !k[i];
    }
    *s = (req_summary){ sum, last - first - zeros, first, last - 1, r->t[first], r->t[last - 1] };
}

LLMLAT_PRIVATE int32_t req_make_view(llmlat_request *r, const req_spec *s)
{
    if (s->n > REQ_MAX_EVENTS)
        return LLMLAT_EOVERFLOW;
    if (s->has_scheduled && s->scheduled > s->start)
        return LLMLAT_EORDER;
    int64_t max_t = req_max_time(s->has_scheduled ? s->scheduled : s->start);
    if (s->start > max_t)
        return LLMLAT_EOVERFLOW;
    int64_t prev = s->n ? s->t[s->n - 1] : s->start;
    if (!s->checked) {
        prev = s->start;
        for (size_t i = 0; i < s->n; i++) {
            int64_t t = s->t[i];
            if (t < prev)
                return LLMLAT_EORDER;
            if (t > max_t)
                return LLMLAT_EOVERFLOW; /* t - start does not fit int64 */
            prev = t;
        }
    }
    int64_t end = s->has_end ? s->end : prev;
    if (end < prev)
        return LLMLAT_EORDER;
    if (end > max_t)
        return LLMLAT_EOVERFLOW;
    memset(r, 0, sizeof *r);
    r->t = (int64_t *)s->t;  /* read only: a view */
    r->k = (uint32_t *)s->k;
    r->n = s->n;
    r->last_t = prev;
    r->max_t = max_t;
    r->state = s->cancelled ? REQ_CANCELLED : s->failed ? REQ_FAILED : REQ_FINISHED;
    r->start_ns = s->start;
    r->end_ns = end;
    r->has_scheduled = s->has_scheduled;
    r->scheduled_ns = s->has_scheduled ? s->scheduled : 0;
    r->input_tokens = s->input_tokens;
    r->has_output_tokens = s->has_output_tokens;
    r->output_tokens = s->output_tokens;
    r->lacks = s->lacks & ~LLMLAT_LACKS_CHUNKS;
    req_summarize(r, &r->sum);
    return LLMLAT_OK;
}

/* A streaming recorder's held events into the summary of those it folded. */
static void summarize_held(const llmlat_request *r, req_summary *s)
{
    for (size_t j = 0; j < req_held(r); j++)
        req_summary_take(s, r->t_base + j, r->t[j], r->k[j]);
}

LLMLAT_PRIVATE const req_summary *req_summary_of(const llmlat_request *r, req_summary *scratch)
{
    if (req_ended(r))
        return &r->sum;
    if (r->folder) { /* the folder keeps the folded events' */
        *scratch = r->sum;
        summarize_held(r, scratch);
    } else {
        req_summarize(r, scratch);
    }
    return scratch;
}

static int32_t end(llmlat_request *r, int64_t t_ns, enum req_state how)
{
    if (!r)
        return LLMLAT_EINVAL;
    if (r->state != REQ_STARTED)
        return LLMLAT_ESTATE;
    int32_t st = time_error(r, t_ns);
    if (st != LLMLAT_OK)
        return st;
    if (r->folder)
        summarize_held(r, &r->sum); /* they stay held: no allocation */
    else
        req_summarize(r, &r->sum);
    r->state = how;
    r->end_ns = t_ns;
    r->room = 0; /* no more events */
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

LLMLAT_API int32_t llmlat_request_cancel(llmlat_request *r, int64_t t_ns)
{
    return end(r, t_ns, REQ_CANCELLED);
}

LLMLAT_API int32_t llmlat_request_set_lacks(llmlat_request *r, uint32_t lacks)
{
    if (!r || (lacks & ~LLMLAT_LACKS_KNOWN) || (lacks & LLMLAT_LACKS_CHUNKS))
        return LLMLAT_EINVAL;
    if (req_ended(r))
        return LLMLAT_ESTATE;
    r->lacks = (r->lacks & LLMLAT_LACKS_CHUNKS) | lacks;
    return LLMLAT_OK;
}

/* A time in seconds as ns, when it is one: finite, >= 0, within int64. */
static bool known_ns(double seconds, int64_t *ns)
{
    if (!(seconds >= 0.0 && seconds < 9.2e9))
        return false;
    *ns = (int64_t)(seconds * 1e9 + 0.5);
    return true;
}

LLMLAT_API int32_t llmlat_request_set_known(llmlat_request *r, int32_t convention,
                                            int32_t metric, double value)
{
    int64_t ns = 0;
    bool time = metric == LLMLAT_TTFT || metric == LLMLAT_E2E;
    if (!r || !conv_get(convention) ||
        !(time || metric == LLMLAT_TOOL_ITL || metric == LLMLAT_TPS_USER))
        return LLMLAT_EINVAL;
    if (time ? !known_ns(value, &ns) : !(value >= 0.0 && value <= 1.7976931348623157e308))
        return LLMLAT_EINVAL;
    bool other_source = req_values_only(r) && r->known_conv != convention;
    if (r->state != REQ_STARTED || r->n || other_source)
        return LLMLAT_ESTATE;
    r->lacks |= LLMLAT_LACKS_CHUNKS;
    r->known_conv = convention;
    r->room = 0; /* no event from now on */
    if (metric == LLMLAT_TTFT) {
        r->has_known_ttft = true;
        r->known_ttft_ns = ns;
    } else if (metric == LLMLAT_E2E) {
        r->has_known_e2e = true;
        r->known_e2e_ns = ns;
    } else if (metric == LLMLAT_TOOL_ITL) {
        r->has_known_tool_itl = true;
        r->known_tool_itl_s = value;
    } else {
        r->has_known_tps = true;
        r->known_tps = value;
    }
    return LLMLAT_OK;
}

/* ------------------------------------------------------------- getters */

LLMLAT_API int32_t llmlat_request_get_state(const llmlat_request *r, int32_t *state)
{
    if (!r || !state)
        return LLMLAT_EINVAL;
    switch (r->state) {
    case REQ_NEW: *state = LLMLAT_STATE_NEW; break;
    case REQ_STARTED: *state = LLMLAT_STATE_STARTED; break;
    case REQ_FINISHED: *state = LLMLAT_STATE_FINISHED; break;
    case REQ_FAILED: *state = LLMLAT_STATE_FAILED; break;
    case REQ_CANCELLED: *state = LLMLAT_STATE_CANCELLED; break;
    }
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_get_start(const llmlat_request *r, int64_t *t_ns)
{
    if (!r || !t_ns)
        return LLMLAT_EINVAL;
    if (r->state == REQ_NEW)
        return LLMLAT_ESTATE;
    *t_ns = r->start_ns;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_get_end(const llmlat_request *r, int64_t *t_ns)
{
    if (!r || !t_ns)
        return LLMLAT_EINVAL;
    if (!req_ended(r))
        return LLMLAT_ESTATE;
    *t_ns = r->end_ns;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_get_events(const llmlat_request *r, const int64_t **t_ns,
                                             const uint32_t **k, size_t *n)
{
    if (!r || !t_ns || !k || !n)
        return LLMLAT_EINVAL;
    bool kept = r->n && !r->folder; /* a streaming recorder keeps none */
    *t_ns = kept ? r->t : NULL;
    *k = kept ? r->k : NULL;
    *n = r->n;
    return r->folder ? LLMLAT_EMISMATCH : LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_get_input_tokens(const llmlat_request *r, uint64_t *n)
{
    if (!r || !n)
        return LLMLAT_EINVAL;
    *n = r->input_tokens;
    return LLMLAT_OK;
}

LLMLAT_API int32_t llmlat_request_get_output_tokens(const llmlat_request *r, uint64_t *n)
{
    if (!r || !n)
        return LLMLAT_EINVAL;
    if (r->has_output_tokens) {
        *n = r->output_tokens;
        return LLMLAT_OK;
    }
    req_summary scratch;
    *n = req_summary_of(r, &scratch)->sum_k;
    return LLMLAT_EUNDEFINED;
}

LLMLAT_API int32_t llmlat_request_get_schedule(const llmlat_request *r, int64_t *t_ns)
{
    if (!r || !t_ns)
        return LLMLAT_EINVAL;
    *t_ns = r->has_scheduled ? r->scheduled_ns : 0;
    return r->has_scheduled ? LLMLAT_OK : LLMLAT_EUNDEFINED;
}

LLMLAT_API int32_t llmlat_request_get_lacks(const llmlat_request *r, uint32_t *lacks)
{
    if (!r || !lacks)
        return LLMLAT_EINVAL;
    *lacks = r->lacks;
    return LLMLAT_OK;
}
