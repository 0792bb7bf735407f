/* A request's own bucket counts (bucket_run.h). */
#include <string.h>

#include "bounded/bucket_run.h"

static size_t run_count_size(unsigned wide)
{
    return (size_t)2 << wide;
}

LLMLAT_PRIVATE void run_init(bucket_run *r)
{
    memset(r, 0, sizeof *r);
    r->top = SKETCH_NO_TOP;
}

LLMLAT_PRIVATE void run_free(bucket_run *r, const llmlat_alloc *al)
{
    alloc_free(al, r->count);
    alloc_free(al, r->spare);
    run_init(r);
}

LLMLAT_PRIVATE void run_clear(bucket_run *r)
{
    if (r->live)
        memset(r->count, 0, r->live * run_count_size(r->wide));
    r->live = 0;
    r->top = SKETCH_NO_TOP;
    r->below = r->zero = 0;
    r->n_carry = 0;
}

LLMLAT_PRIVATE size_t run_memory(const bucket_run *r)
{
    return r->cap * run_count_size(r->wide);
}

/* The low part stored at position i of a block of width `wide`. */
static uint64_t run_get(const void *block, unsigned wide, size_t i)
{
    switch (wide) {
    case 0: return ((const uint16_t *)block)[i];
    case 1: return ((const uint32_t *)block)[i];
    }
    return ((const uint64_t *)block)[i];
}

static void run_put(void *block, unsigned wide, size_t i, uint64_t v)
{
    switch (wide) {
    case 0: ((uint16_t *)block)[i] = (uint16_t)v; return;
    case 1: ((uint32_t *)block)[i] = (uint32_t)v; return;
    }
    ((uint64_t *)block)[i] = v;
}

/* The whole count of index lo .. top: its low part and its carry. */
static uint64_t run_count_at(const bucket_run *r, int64_t index)
{
    uint64_t c = run_get(r->count, r->wide, (size_t)(index - r->lo));
    for (unsigned i = 0; i < r->n_carry; i++)
        if (r->carry[i].index == index)
            c += r->carry[i].high << 16;
    return c;
}

LLMLAT_PRIVATE int32_t run_plan_for(const bucket_run *r, const sketch_map *m,
                                    const llmlat_alloc *al, int64_t lo_index, int64_t hi_index,
                                    uint64_t bound, run_plan *p)
{
    int64_t top = r->live && r->top > hi_index ? r->top : hi_index;
    int64_t base = top - (int64_t)(m->width - 1);
    int64_t lo = r->live && r->lo < lo_index ? r->lo : lo_index;
    if (lo < base)
        lo = base; /* what is further below is only counted */
    /* 8-byte counts once a count could pass 2^32 - 1; 2-byte ones need a
     * spare 4-byte block when more than RUN_CARRIES buckets could hold
     * 65536 samples (taken only if they do). */
    unsigned wide = r->wide;
    if (bound > UINT32_MAX)
        wide = 2;
    bool spare = wide == 0 && bound / 65536 > RUN_CARRIES;
    *p = (run_plan){ .change = !r->live || top != r->top || lo != r->lo || wide != r->wide,
                     .cap = r->cap, .wide = wide, .lo = lo, .top = top };
    size_t need = (size_t)(top - lo) + 1; /* <= width */
    if (p->change && (wide != r->wide || need > r->cap)) {
        /* room for another octave of spread, within a sketch's window */
        size_t cap = need + m->per_octave;
        if (cap > m->width)
            cap = m->width;
        p->block = alloc_malloc(al, cap * run_count_size(wide));
        if (!p->block)
            return LLMLAT_ENOMEM;
        memset(p->block, 0, cap * run_count_size(wide));
        p->cap = cap;
    }
    if (spare) {
        p->spare = alloc_malloc(al, p->cap * run_count_size(1));
        if (!p->spare) {
            run_plan_drop(p, al);
            return LLMLAT_ENOMEM;
        }
        memset(p->spare, 0, p->cap * run_count_size(1));
    }
    return LLMLAT_OK;
}

LLMLAT_PRIVATE void run_plan_drop(run_plan *p, const llmlat_alloc *al)
{
    alloc_free(al, p->block);
    alloc_free(al, p->spare);
    p->block = p->spare = NULL;
}

/* Moves the counts below index lo (they left the window) to below, with
 * their carries. */
static void run_fold_below(bucket_run *r, int64_t lo)
{
    if (!r->live || lo <= r->lo)
        return;
    int64_t end = r->lo + (int64_t)r->live; /* one past top */
    uint64_t left = 0;
    for (int64_t i = r->lo; i < lo && i < end; i++)
        left += run_count_at(r, i);
    unsigned kept = 0;
    for (unsigned i = 0; i < r->n_carry; i++)
        if (r->carry[i].index >= lo)
            r->carry[kept++] = r->carry[i];
    r->n_carry = kept;
    r->below += left;
}

LLMLAT_PRIVATE void run_apply(bucket_run *r, const llmlat_alloc *al, const run_plan *p)
{
    alloc_free(al, r->spare); /* (none outside a batch) */
    r->spare = p->spare;
    if (!p->change)
        return;
    run_fold_below(r, p->lo);
    size_t size = run_count_size(r->wide);
    int64_t old_lo = r->lo, old_end = r->lo + (int64_t)r->live;
    int64_t from = old_lo > p->lo ? old_lo : p->lo; /* first index kept */
    size_t kept = r->live && old_end > from ? (size_t)(old_end - from) : 0;
    if (p->block) { /* a new block, maybe wider: copy the whole counts */
        for (size_t i = 0; i < kept; i++) {
            int64_t index = from + (int64_t)i;
            uint64_t c = p->wide == r->wide ? run_get(r->count, r->wide, (size_t)(index - old_lo))
                                            : run_count_at(r, index);
            run_put(p->block, p->wide, (size_t)(index - p->lo), c);
        }
        if (p->wide != r->wide)
            r->n_carry = 0; /* in the counts now */
        alloc_free(al, r->count);
        r->count = p->block;
        r->cap = p->cap;
        r->wide = p->wide;
    } else if (kept) { /* in place: slide the kept counts to their places */
        char *b = r->count;
        memmove(b + (size_t)(from - p->lo) * size, b + (size_t)(from - old_lo) * size,
                kept * size);
        /* zero what the kept counts no longer cover: before them, and
         * past them up to the old end */
        size_t head = (size_t)(from - p->lo);
        memset(b, 0, head * size);
        size_t new_end = head + kept, old_used = (size_t)(old_end - old_lo);
        if (old_used > new_end)
            memset(b + new_end * size, 0, (old_used - new_end) * size);
    } else if (r->live) { /* nothing kept: clear what was used */
        memset(r->count, 0, r->live * size);
    }
    r->lo = p->lo;
    r->top = p->top;
    r->live = (size_t)(p->top - p->lo) + 1;
}

/* The 2-byte counts and their carries into the spare block (of the same
 * geometry), which becomes the run's. The old block is freed by run_end
 * with the spare's place: it is kept as the spare until then. */
static void run_widen(bucket_run *r)
{
    void *wide = r->spare;
    for (size_t i = 0; i < r->live; i++)
        run_put(wide, 1, i, run_count_at(r, r->lo + (int64_t)i));
    r->spare = r->count;
    r->count = wide;
    r->wide = 1;
    r->n_carry = 0;
}

LLMLAT_PRIVATE void run_add(bucket_run *r, int64_t index, uint64_t w)
{
    if (index < r->lo) { /* below the window (planned so) */
        r->below += w;
        return;
    }
    size_t i = (size_t)(index - r->lo);
    if (r->wide) {
        run_put(r->count, r->wide, i, run_get(r->count, r->wide, i) + w);
        return;
    }
    uint64_t c = run_get(r->count, 0, i) + w;
    if (c >> 16) { /* a carry: this index's, a free one, or the spare */
        unsigned j = 0;
        while (j < r->n_carry && r->carry[j].index != index)
            j++;
        if (j == RUN_CARRIES) {
            run_widen(r);
            run_put(r->count, 1, i, run_get(r->count, 1, i) + w);
            return;
        }
        if (j == r->n_carry)
            r->carry[r->n_carry++] = (run_carry){ index, 0 };
        r->carry[j].high += c >> 16;
    }
    run_put(r->count, 0, i, c & 0xffff);
}

/* 2-byte counts wrap modulo 65536: a count that passed 65535 reads 0
 * after its increment, and decrements restore every count exactly. The
 * increments are summed in 32 bits, so bit 16 of their OR says whether
 * one wrapped, at one OR per count. */
static bool add_wrapping(uint16_t *c, int64_t lo, const int64_t *idx, size_t n)
{
    uint32_t any = 0;
    for (size_t j = 0; j < n; j++) {
        uint32_t x = (uint32_t)c[idx[j] - lo] + 1;
        c[idx[j] - lo] = (uint16_t)x;
        any |= x;
    }
    return !(any >> 16);
}

/* The same into two blocks at once: one load of each index (about 8% of
 * a streaming event's time against two loops, bench_live). */
static bool add_wrapping2(uint16_t *a, int64_t a_lo, uint16_t *b, int64_t b_lo,
                          const int64_t *idx, size_t n)
{
    uint32_t any = 0;
    for (size_t j = 0; j < n; j++) {
        int64_t i = idx[j];
        uint32_t x = (uint32_t)a[i - a_lo] + 1, y = (uint32_t)b[i - b_lo] + 1;
        a[i - a_lo] = (uint16_t)x;
        b[i - b_lo] = (uint16_t)y;
        any |= x | y;
    }
    return !(any >> 16);
}

/* Takes back one sample at each of idx[0 .. n). */
static void run_undo_block(bucket_run *r, const int64_t *idx, size_t n)
{
    if (r->wide) {
        uint32_t *c = r->count;
        for (size_t j = 0; j < n; j++)
            c[idx[j] - r->lo]--;
    } else {
        uint16_t *c = r->count;
        for (size_t j = 0; j < n; j++)
            c[idx[j] - r->lo]--;
    }
}

/* Whether r has the indexes lo .. hi. */
static bool run_spans(const bucket_run *r, int64_t lo, int64_t hi)
{
    return r->live && lo >= r->lo && hi <= r->top;
}

static bool run_add_block(bucket_run *r, const int64_t *idx, size_t n, int64_t lo, int64_t hi,
                          uint64_t bound)
{
    if (!run_spans(r, lo, hi) || r->wide > 1 || (r->wide == 1 && bound > UINT32_MAX))
        return false;
    if (r->wide == 1) { /* no count can pass 2^32 - 1 */
        uint32_t *c = r->count;
        for (size_t j = 0; j < n; j++)
            c[idx[j] - r->lo]++;
        return true;
    }
    if (add_wrapping(r->count, r->lo, idx, n))
        return true;
    run_undo_block(r, idx, n); /* one needs a carry: back, for the plan */
    return false;
}

LLMLAT_PRIVATE bool run_add_pair(bucket_run *a, uint64_t a_bound, bucket_run *b,
                                 uint64_t b_bound, const int64_t *idx, size_t n, int64_t lo,
                                 int64_t hi)
{
    if (a->wide || b->wide || !run_spans(a, lo, hi) || !run_spans(b, lo, hi)) {
        if (!run_add_block(a, idx, n, lo, hi, a_bound))
            return false;
        if (run_add_block(b, idx, n, lo, hi, b_bound))
            return true;
        run_undo_block(a, idx, n);
        return false;
    }
    if (add_wrapping2(a->count, a->lo, b->count, b->lo, idx, n))
        return true;
    run_undo_block(a, idx, n);
    run_undo_block(b, idx, n);
    return false;
}

LLMLAT_PRIVATE void run_end(bucket_run *r, const llmlat_alloc *al)
{
    alloc_free(al, r->spare);
    r->spare = NULL;
}

LLMLAT_PRIVATE void run_commit(const bucket_run *r, sketch *s, const sketch_map *m)
{
    if (r->live) {
        if (r->top > s->top)
            sketch_raise(s, m, r->top);
        for (size_t i = 0; i < r->live; i++) {
            int64_t index = r->lo + (int64_t)i;
            uint64_t c = run_count_at(r, index);
            if (c)
                sketch_bump(s, m, index, c);
        }
    }
    s->below += r->below;
    s->zero += r->zero;
}
