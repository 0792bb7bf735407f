#include <string.h>

#include "util/radix.h"
#include "exact/timeline.h"

#define NS_PER_S INT64_C(1000000000)

LLMLAT_PRIVATE void timeline_init(timeline *tl)
{
    memset(tl, 0, sizeof *tl);
}

LLMLAT_PRIVATE void timeline_free(timeline *tl, const llmlat_alloc *al)
{
    alloc_free(al, tl->rec);
    alloc_free(al, tl->tok_t);
    alloc_free(al, tl->tok_k);
    timeline_init(tl);
}

LLMLAT_PRIVATE void timeline_clear(timeline *tl)
{
    tl->n_rec = 0;
    tl->n_tok = 0;
}

static int32_t reserve_events(timeline *tl, const llmlat_alloc *al, size_t events)
{
    if (events > SIZE_MAX - tl->n_tok)
        return LLMLAT_EOVERFLOW;
    size_t need = tl->n_tok + events;
    if (need <= tl->cap_tok)
        return LLMLAT_OK;
    void *t = tl->tok_t, *k = tl->tok_k;
    int32_t st = alloc_grow_pair(al, &t, sizeof *tl->tok_t, &k, sizeof *tl->tok_k, &tl->cap_tok,
                                 need);
    tl->tok_t = t;
    tl->tok_k = k;
    return st;
}

static int32_t reserve_records(timeline *tl, const llmlat_alloc *al, size_t records)
{
    if (records > SIZE_MAX - tl->n_rec)
        return LLMLAT_EOVERFLOW;
    void *p = tl->rec;
    int32_t st = alloc_grow(al, &p, &tl->cap_rec, tl->n_rec + records, sizeof *tl->rec);
    if (st == LLMLAT_OK)
        tl->rec = p;
    return st;
}

LLMLAT_PRIVATE int32_t timeline_reserve(timeline *tl, const llmlat_alloc *al, size_t records,
                                        size_t events)
{
    int32_t st = reserve_records(tl, al, records);
    return st != LLMLAT_OK ? st : reserve_events(tl, al, events);
}

LLMLAT_PRIVATE void timeline_append(timeline *dst, const timeline *src)
{
    if (src->n_rec)
        memcpy(dst->rec + dst->n_rec, src->rec, src->n_rec * sizeof *src->rec);
    if (src->n_tok) {
        memcpy(dst->tok_t + dst->n_tok, src->tok_t, src->n_tok * sizeof *src->tok_t);
        memcpy(dst->tok_k + dst->n_tok, src->tok_k, src->n_tok * sizeof *src->tok_k);
    }
    dst->n_rec += src->n_rec;
    dst->n_tok += src->n_tok;
}

LLMLAT_PRIVATE int32_t timeline_peak_concurrency(const timeline *tl, const llmlat_alloc *al,
                                                 uint64_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < tl->n_rec; i++)
        n += tl->rec[i].e2e_ns >= 0;
    *out = 0;
    if (n == 0)
        return LLMLAT_OK;
    int64_t *starts = alloc_malloc(al, n * sizeof *starts);
    int64_t *ends = alloc_malloc(al, n * sizeof *ends);
    int32_t st = (starts && ends) ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st == LLMLAT_OK) {
        size_t j = 0;
        for (size_t i = 0; i < tl->n_rec; i++) {
            const success_record *r = &tl->rec[i];
            if (r->e2e_ns < 0)
                continue;
            starts[j] = r->start_ns;
            ends[j++] = success_end(r);
        }
        st = radix_sort(al, RADIX_INT64, starts, NULL, n);
        if (st == LLMLAT_OK)
            st = radix_sort(al, RADIX_INT64, ends, NULL, n);
    }
    if (st == LLMLAT_OK) {
        /* Merge the two sorted lists; an end at the same time as a start
         * leaves first (half-open intervals). */
        int64_t cur = 0, peak = 0; /* a 0-length interval dips below 0 */
        size_t i = 0, j = 0;
        while (i < n) {
            if (j < n && ends[j] <= starts[i]) {
                cur--;
                j++;
            } else {
                cur++;
                i++;
                if (cur > peak)
                    peak = cur;
            }
        }
        *out = (uint64_t)peak;
    }
    alloc_free(al, starts);
    alloc_free(al, ends);
    return st;
}

/* The usual case: the run spans fewer seconds than it has events, so one
 * counter per second is the cheapest way (one pass, no sort). */
static int32_t peak_by_counting(const timeline *tl, const llmlat_alloc *al, int64_t origin,
                                size_t seconds, uint64_t *out)
{
    uint64_t *sum = alloc_malloc(al, seconds * sizeof *sum);
    if (!sum)
        return LLMLAT_ENOMEM;
    memset(sum, 0, seconds * sizeof *sum);
    for (size_t i = 0; i < tl->n_tok; i++)
        sum[((uint64_t)tl->tok_t[i] - (uint64_t)origin) / (uint64_t)NS_PER_S] += tl->tok_k[i];
    uint64_t best = 0;
    for (size_t b = 0; b < seconds; b++)
        if (sum[b] > best)
            best = sum[b];
    *out = best;
    alloc_free(al, sum);
    return LLMLAT_OK;
}

/* A sparse span (events spread over more seconds than there are events):
 * sort the bucket numbers and count runs, needing no array sized by time. */
static int32_t peak_by_sorting(const timeline *tl, const llmlat_alloc *al, int64_t origin,
                               uint64_t *out)
{
    int64_t *bucket = alloc_malloc(al, tl->n_tok * sizeof *bucket);
    uint32_t *count = alloc_malloc(al, tl->n_tok * sizeof *count);
    int32_t st = bucket && count ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st == LLMLAT_OK) {
        for (size_t i = 0; i < tl->n_tok; i++)
            bucket[i] = (int64_t)(span_from(origin, tl->tok_t[i]) / (uint64_t)NS_PER_S);
        memcpy(count, tl->tok_k, tl->n_tok * sizeof *count);
        st = radix_sort(al, RADIX_INT64, bucket, count, tl->n_tok);
    }
    if (st == LLMLAT_OK) {
        uint64_t best = 0;
        for (size_t i = 0; i < tl->n_tok;) {
            int64_t b = bucket[i];
            uint64_t sum = 0;
            while (i < tl->n_tok && bucket[i] == b)
                sum += count[i++];
            if (sum > best)
                best = sum;
        }
        *out = best;
    }
    alloc_free(al, bucket);
    alloc_free(al, count);
    return st;
}

LLMLAT_PRIVATE int32_t timeline_peak_per_second(const timeline *tl, const llmlat_alloc *al,
                                                uint64_t *out, bool *defined)
{
    *out = 0;
    *defined = tl->n_rec > 0;
    if (!tl->n_rec || !tl->n_tok)
        return LLMLAT_OK;
    /* Events never precede their request's start, hence never the origin. */
    int64_t origin = tl->rec[0].start_ns, last = tl->tok_t[0];
    for (size_t i = 1; i < tl->n_rec; i++)
        if (tl->rec[i].start_ns < origin)
            origin = tl->rec[i].start_ns;
    for (size_t i = 1; i < tl->n_tok; i++)
        if (tl->tok_t[i] > last)
            last = tl->tok_t[i];
    uint64_t seconds = ((uint64_t)last - (uint64_t)origin) / (uint64_t)NS_PER_S + 1;
    if (seconds <= tl->n_tok)
        return peak_by_counting(tl, al, origin, (size_t)seconds, out);
    return peak_by_sorting(tl, al, origin, out);
}

LLMLAT_PRIVATE size_t timeline_memory(const timeline *tl)
{
    return tl->cap_rec * sizeof *tl->rec +
           tl->cap_tok * (sizeof *tl->tok_t + sizeof *tl->tok_k);
}
