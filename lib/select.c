#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "compiler.h"
#include "radix.h"
#include "select.h"

#define LEVEL_BITS 16 /* histogram of 2^16 buckets per level */
#define SMALL 4096    /* below this, sorting a copy is cheaper */

static inline uint64_t weight_at(const uint32_t *w, size_t i)
{
    return w ? w[i] : 1;
}

/* Few samples: sort a copy, then walk the cumulative weights. */
static int32_t by_sorting(const llmlat_alloc *al, const double *v, const uint32_t *w,
                          size_t n, const uint64_t *ranks, size_t nr, double *out)
{
    double *sv = alloc_malloc(al, n * sizeof *sv);
    uint32_t *sw = w ? alloc_malloc(al, n * sizeof *sw) : NULL;
    int32_t st = (sv && (!w || sw)) ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st == LLMLAT_OK) {
        memcpy(sv, v, n * sizeof *sv);
        if (w)
            memcpy(sw, w, n * sizeof *sw);
        st = radix_sort(al, RADIX_DOUBLE, sv, sw, n);
    }
    if (st == LLMLAT_OK) {
        uint64_t below = 0; /* weight of sv[0..i) */
        size_t i = 0;
        for (size_t j = 0; j < nr; j++) {
            while (below + weight_at(sw, i) <= ranks[j])
                below += weight_at(sw, i++);
            out[j] = sv[i];
        }
    }
    alloc_free(al, sv);
    alloc_free(al, sw);
    return st;
}

/* One target bucket's samples, gathered for the next level. */
typedef struct bucket {
    size_t b;          /* bucket number */
    size_t count, at;  /* samples, and how many gathered so far */
    uint64_t base;     /* weight of all buckets below it */
    double *v;
    uint32_t *w;
} bucket;

/* Radix select: a level of 2^16 buckets on the keys' top used bits, two
 * passes (a histogram, then gathering the buckets that hold the ranks),
 * then the next level inside each of those buckets. */
static int32_t by_radix(const llmlat_alloc *al, const double *v, const uint32_t *w, size_t n,
                        uint64_t kmin, uint64_t kmax, const uint64_t *ranks, size_t nr,
                        double *out)
{
    int shift = bit_length(kmax - kmin) - LEVEL_BITS;
    if (shift < 0)
        shift = 0;
    size_t nb = (size_t)((kmax - kmin) >> shift) + 1;
    size_t *count = alloc_malloc(al, nb * sizeof *count);
    uint64_t *weight = w ? alloc_malloc(al, nb * sizeof *weight) : NULL;
    unsigned char *slot = alloc_malloc(al, nb); /* 1 + target index, 0 if none */
    bucket t[SELECT_MAX_RANKS];
    size_t nt = 0;
    int32_t st = (count && slot && (!w || weight)) ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st != LLMLAT_OK)
        goto done;

    /* Pass 1: how much of the sample falls in each bucket. */
    memset(count, 0, nb * sizeof *count);
    if (w) {
        memset(weight, 0, nb * sizeof *weight);
        for (size_t i = 0; i < n; i++) {
            size_t b = (size_t)((double_key(v[i]) - kmin) >> shift);
            count[b]++;
            weight[b] += w[i];
        }
    } else {
        for (size_t i = 0; i < n; i++)
            count[(double_key(v[i]) - kmin) >> shift]++;
    }

    /* The buckets holding the ranks (ranks ascend, so buckets do). */
    memset(slot, 0, nb);
    uint64_t below = 0;
    size_t b = 0;
    for (size_t j = 0; j < nr; j++) {
        for (;;) {
            uint64_t in_b = w ? weight[b] : count[b];
            if (below + in_b > ranks[j])
                break;
            below += in_b;
            b++;
        }
        if (nt == 0 || t[nt - 1].b != b) {
            t[nt] = (bucket){ .b = b, .count = count[b], .base = below };
            slot[b] = (unsigned char)(++nt);
        }
    }
    for (size_t i = 0; i < nt && st == LLMLAT_OK; i++) {
        t[i].v = alloc_malloc(al, t[i].count * sizeof *t[i].v);
        t[i].w = w ? alloc_malloc(al, t[i].count * sizeof *t[i].w) : NULL;
        if (!t[i].v || (w && !t[i].w))
            st = LLMLAT_ENOMEM;
    }
    if (st != LLMLAT_OK)
        goto done;

    /* Pass 2: gather the target buckets' samples. */
    for (size_t i = 0; i < n; i++) {
        unsigned s = slot[(double_key(v[i]) - kmin) >> shift];
        if (s) {
            bucket *tb = &t[s - 1];
            tb->v[tb->at] = v[i];
            if (w)
                tb->w[tb->at] = w[i];
            tb->at++;
        }
    }

    /* Next level in each bucket, with its share of the ranks. A bucket
     * never holds both kmin and kmax (there are >= 2^15 buckets), so each
     * level narrows the key range by >= 15 bits: at most 5 levels. */
    size_t j = 0;
    for (size_t i = 0; i < nt && st == LLMLAT_OK; i++) {
        /* the gathered samples' own extremes: the next level's range */
        uint64_t bmin = UINT64_MAX, bmax = 0;
        for (size_t k = 0; k < t[i].count; k++) {
            uint64_t key = double_key(t[i].v[k]);
            if (key < bmin)
                bmin = key;
            if (key > bmax)
                bmax = key;
        }
        size_t first = j;
        uint64_t local[SELECT_MAX_RANKS];
        while (j < nr && ranks[j] < t[i].base + (w ? weight[t[i].b] : t[i].count)) {
            local[j - first] = ranks[j] - t[i].base;
            j++;
        }
        st = select_ranks(al, t[i].v, t[i].w, t[i].count, bmin, bmax, local, j - first,
                          out + first);
    }

done:
    for (size_t i = 0; i < nt; i++) {
        alloc_free(al, t[i].v);
        alloc_free(al, t[i].w);
    }
    alloc_free(al, count);
    alloc_free(al, weight);
    alloc_free(al, slot);
    return st;
}

/* ------------------------------------------------------ window selection
 *
 * One pass instead of two or more (Floyd-Rivest's idea): a small sample,
 * taken at fixed strides, says roughly where each rank lies, so a narrow
 * window of keys [lo, hi] around it should hold it. One pass over the data
 * then counts the weight below each window and gathers the few samples
 * inside it; when every rank does lie in its window, it is selected among
 * those few. The result is the element at that exact rank, whatever the
 * sample said; when the sample misjudged (a rank outside its window, a
 * window overfull: heavy duplicates, adversarial layouts) the radix select
 * runs instead, so only the time depends on the sample. */

#define WINDOW_MIN ((size_t)1 << 16) /* below this, radix select is as fast */
#define MAX_WINDOWS 8                /* more distinct windows: radix select */
#define SAMPLE_MAX 32768

typedef struct window {
    uint64_t lo, hi;      /* keys: the window is [lo, hi] */
    size_t first, nr;     /* its ranks: ranks[first .. first + nr) */
    size_t count, cap;    /* samples gathered, room */
    uint64_t below;       /* weight of the samples under lo */
    uint64_t weight;      /* weight of those gathered */
    double *v;
    uint32_t *w;
} window;

/* A deterministic spread of sample positions inside each stride. */
static inline size_t jitter(size_t s, size_t stride)
{
    uint64_t x = (uint64_t)s * 0x9e3779b97f4a7c15u;
    return (size_t)((x >> 32) % stride);
}

/* Gathers one sample into window t (when there is room). */
static inline bool gather(window *t, double v, const uint32_t *w, uint64_t wi)
{
    if (t->count == t->cap)
        return false;
    t->v[t->count] = v;
    if (w)
        t->w[t->count] = (uint32_t)wi;
    t->count++;
    t->weight += wi;
    return true;
}

/* The pass, for up to 4 windows (the usual P50/P90/P95/P99): the weight
 * below each window, and the samples inside them. Windows are disjoint
 * and ascending (unused ones are an empty [UINT64_MAX, 0]), so the number
 * of lows at or under a key names the only window that may hold it;
 * hi[0] = 0 is under every key (0 would be a negative NaN's), so one
 * compare, rarely true, decides: a branch on that number alone would be a
 * coin toss. Everything else is branch-free, in registers. Returns false
 * when a window overflowed. `weighted` is a constant after inlining. */
static inline bool scan4(const double *v, const uint32_t *w, size_t n, window *win,
                         size_t used, const bool weighted)
{
    uint64_t lo[4], hi[5] = { 0 };
    for (size_t j = 0; j < 4; j++) {
        lo[j] = j < used ? win[j].lo : UINT64_MAX;
        hi[j + 1] = j < used ? win[j].hi : 0;
    }
    const uint64_t lo0 = lo[0], lo1 = lo[1], lo2 = lo[2], lo3 = lo[3];
    uint64_t b0 = 0, b1 = 0, b2 = 0, b3 = 0;
    bool fits = true;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = double_key(v[i]);
        uint64_t u0 = key < lo0, u1 = key < lo1, u2 = key < lo2, u3 = key < lo3;
        b0 += u0;
        b1 += u1;
        b2 += u2;
        b3 += u3;
        uint64_t wi = weighted ? w[i] : 1;
        if (wi != 1) { /* rare (a chunk of k > 1 tokens): add the rest */
            uint64_t more = wi - 1;
            b0 += more & (0 - u0);
            b1 += more & (0 - u1);
            b2 += more & (0 - u2);
            b3 += more & (0 - u3);
        }
        size_t at = 4 - (size_t)(u0 + u1 + u2 + u3);
        if (key <= hi[at])
            fits &= gather(&win[at - 1], v[i], weighted ? w : NULL, wi);
    }
    uint64_t below[4] = { b0, b1, b2, b3 };
    for (size_t j = 0; j < used; j++)
        win[j].below = below[j];
    return fits;
}

/* The same for up to MAX_WINDOWS windows, with arrays. */
static bool scan_many(const double *v, const uint32_t *w, size_t n, window *win, size_t used)
{
    uint64_t lo[MAX_WINDOWS], hi[MAX_WINDOWS + 1] = { 0 }, below[MAX_WINDOWS] = { 0 };
    for (size_t j = 0; j < MAX_WINDOWS; j++) {
        lo[j] = j < used ? win[j].lo : UINT64_MAX;
        hi[j + 1] = j < used ? win[j].hi : 0;
    }
    bool fits = true;
    for (size_t i = 0; i < n; i++) {
        uint64_t key = double_key(v[i]);
        uint64_t wi = w ? w[i] : 1;
        size_t at = 0;
        for (size_t j = 0; j < MAX_WINDOWS; j++) {
            uint64_t under = key < lo[j];
            below[j] += wi & (0 - under);
            at += 1 - under;
        }
        if (key <= hi[at])
            fits &= gather(&win[at - 1], v[i], w, wi);
    }
    for (size_t j = 0; j < used; j++)
        win[j].below = below[j];
    return fits;
}

/* Sorted sample keys and weights: ns of them. */
static int32_t take_sample(const llmlat_alloc *al, const double *v, const uint32_t *w, size_t n,
                           size_t ns, double **sv, uint32_t **sw)
{
    *sv = alloc_malloc(al, ns * sizeof **sv);
    *sw = alloc_malloc(al, ns * sizeof **sw);
    if (!*sv || !*sw)
        return LLMLAT_ENOMEM;
    size_t stride = n / ns;
    for (size_t s = 0; s < ns; s++) {
        size_t i = s * stride + jitter(s, stride);
        (*sv)[s] = v[i];
        (*sw)[s] = w ? w[i] : 1;
    }
    return radix_sort(al, RADIX_DOUBLE, *sv, *sw, ns);
}

/* The windows around the ranks, from the sorted sample: rank r is
 * expected near the sample's weight r ns / n; the window reaches ~4
 * standard deviations of a sample quantile either side. Overlapping
 * windows merge. Returns the number of windows, or 0 for too many. */
static size_t place_windows(const double *sv, const uint32_t *sw, size_t ns, size_t n,
                            uint64_t kmin, uint64_t kmax, const uint64_t *ranks, size_t nr,
                            window *win)
{
    size_t nw = 0, p = 0;
    uint64_t cum = 0; /* sample weight of sv[0..p) */
    for (size_t j = 0; j < nr; j++) {
        double target = (double)ranks[j] * (double)ns / (double)n;
        while (p < ns && (double)(cum + sw[p]) <= target)
            cum += sw[p++];
        double q = (double)p / (double)ns;
        size_t m = (size_t)(4.0 * sqrt((double)ns * q * (1.0 - q))) + 16;
        uint64_t lo = p > m ? double_key(sv[p - m]) : kmin;
        uint64_t hi = p + m < ns ? double_key(sv[p + m]) : kmax;
        if (nw && lo <= win[nw - 1].hi) { /* overlaps the previous one */
            win[nw - 1].lo = lo < win[nw - 1].lo ? lo : win[nw - 1].lo;
            win[nw - 1].hi = hi > win[nw - 1].hi ? hi : win[nw - 1].hi;
            win[nw - 1].nr++;
            continue;
        }
        if (nw == MAX_WINDOWS)
            return 0;
        win[nw++] = (window){ .lo = lo, .hi = hi, .first = j, .nr = 1 };
    }
    return nw;
}

/* Room for what the sample says each window holds, with a margin. */
static int32_t size_windows(const llmlat_alloc *al, const double *sv, size_t ns, size_t n,
                            bool weighted, window *win, size_t nw)
{
    size_t p = 0;
    for (size_t j = 0; j < nw; j++) {
        while (p < ns && double_key(sv[p]) < win[j].lo)
            p++;
        size_t q = p;
        while (q < ns && double_key(sv[q]) <= win[j].hi)
            q++;
        double expect = (double)(q - p + 1) * (double)n / (double)ns;
        double cap = expect * 1.5 + 4096;
        win[j].cap = cap < (double)n ? (size_t)cap : n;
        win[j].v = alloc_malloc(al, win[j].cap * sizeof *win[j].v);
        win[j].w = weighted ? alloc_malloc(al, win[j].cap * sizeof *win[j].w) : NULL;
        if (!win[j].v || (weighted && !win[j].w))
            return LLMLAT_ENOMEM;
    }
    return LLMLAT_OK;
}

/* Every rank inside its window, and then the values; *done false (and
 * nothing written) when the sample misjudged. */
static int32_t select_in_windows(const llmlat_alloc *al, window *win, size_t nw,
                                 const uint64_t *ranks, double *out, bool *done)
{
    for (size_t j = 0; j < nw; j++) {
        const window *t = &win[j];
        if (ranks[t->first] < t->below ||
            ranks[t->first + t->nr - 1] >= t->below + t->weight)
            return LLMLAT_OK;
    }
    int32_t st = LLMLAT_OK;
    for (size_t j = 0; j < nw && st == LLMLAT_OK; j++) {
        const window *t = &win[j];
        uint64_t bmin = UINT64_MAX, bmax = 0, local[SELECT_MAX_RANKS];
        for (size_t i = 0; i < t->count; i++) {
            uint64_t key = double_key(t->v[i]);
            bmin = key < bmin ? key : bmin;
            bmax = key > bmax ? key : bmax;
        }
        for (size_t i = 0; i < t->nr; i++)
            local[i] = ranks[t->first + i] - t->below;
        st = select_ranks(al, t->v, t->w, t->count, bmin, bmax, local, t->nr, out + t->first);
    }
    *done = st == LLMLAT_OK;
    return st;
}

static int32_t by_window(const llmlat_alloc *al, const double *v, const uint32_t *w, size_t n,
                         uint64_t kmin, uint64_t kmax, const uint64_t *ranks, size_t nr,
                         double *out, bool *done)
{
    size_t ns = n / 32 > SAMPLE_MAX ? SAMPLE_MAX : n / 32;
    double *sv = NULL;
    uint32_t *sw = NULL;
    window win[MAX_WINDOWS];
    size_t nw = 0;
    *done = false;
    int32_t st = take_sample(al, v, w, n, ns, &sv, &sw);
    if (st == LLMLAT_OK)
        nw = place_windows(sv, sw, ns, n, kmin, kmax, ranks, nr, win);
    if (st == LLMLAT_OK && nw)
        st = size_windows(al, sv, ns, n, w != NULL, win, nw);
    alloc_free(al, sv);
    alloc_free(al, sw);
    sv = NULL;
    sw = NULL;
    if (st == LLMLAT_OK && nw) {
        bool fits = nw > 4 ? scan_many(v, w, n, win, nw)
                    : w    ? scan4(v, w, n, win, nw, true)
                           : scan4(v, w, n, win, nw, false);
        if (fits)
            st = select_in_windows(al, win, nw, ranks, out, done);
    }
    for (size_t j = 0; j < nw; j++) {
        alloc_free(al, win[j].v);
        alloc_free(al, win[j].w);
    }
    return st;
}

int32_t select_ranks(const llmlat_alloc *al, const double *v, const uint32_t *w, size_t n,
                     uint64_t kmin, uint64_t kmax, const uint64_t *ranks, size_t nr,
                     double *out)
{
    if (nr == 0)
        return LLMLAT_OK;
    if (kmin == kmax) { /* every sample is the same value */
        for (size_t j = 0; j < nr; j++)
            out[j] = key_double(kmin);
        return LLMLAT_OK;
    }
    if (n <= SMALL)
        return by_sorting(al, v, w, n, ranks, nr, out);
    if (n >= WINDOW_MIN) {
        bool done;
        int32_t st = by_window(al, v, w, n, kmin, kmax, ranks, nr, out, &done);
        if (st != LLMLAT_OK || done)
            return st;
    }
    return by_radix(al, v, w, n, kmin, kmax, ranks, nr, out);
}
