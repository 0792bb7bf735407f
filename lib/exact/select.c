#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "util/radix.h"
#include "exact/select.h"

/* A level's histogram has 2^12 to 2^16 buckets: as few as keep a bucket
 * within 2^-8 of an octave (2^44 keys), since a small histogram stays in
 * L1 (2^12 buckets take 0.65x the time of 2^16 on 10^7 latencies), but a
 * key span that reaches down to 0 needs the finer buckets (with 2^12 a
 * bucket would hold a quarter octave: 2x the time). */
#define LEVEL_BITS_MIN 12
#define LEVEL_BITS_MAX 16
#define BUCKET_SPAN_BITS 44
#define SELECT_SMALL 4096    /* below this, sorting a copy is cheaper */

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

/* The samples of a range of buckets [b0, b1], gathered for the next
 * level: one bucket that holds ranks, or a window of buckets predicted to. */
typedef struct target {
    size_t b0, b1;
    size_t count;      /* samples in [b0, b1] */
    size_t at, cap;    /* gathered so far, room */
    uint64_t base;     /* weight of all buckets below b0 */
    uint64_t weight;   /* weight in [b0, b1] */
    double *v;
    uint32_t *w;
} target;

static int32_t target_alloc(const llmlat_alloc *al, target *t, bool weighted)
{
    t->v = alloc_malloc(al, t->cap * sizeof *t->v);
    t->w = weighted ? alloc_malloc(al, t->cap * sizeof *t->w) : NULL;
    return t->v && (!weighted || t->w) ? LLMLAT_OK : LLMLAT_ENOMEM;
}

static void targets_free(const llmlat_alloc *al, target *t, size_t nt)
{
    for (size_t i = 0; i < nt; i++) {
        alloc_free(al, t[i].v);
        alloc_free(al, t[i].w);
        t[i].v = NULL;
        t[i].w = NULL;
    }
}

/* ------------------------------------------------------------ prediction
 *
 * Pass 2 of a level re-reads every sample to gather the few buckets that
 * hold the ranks. Those buckets can be foretold: a sample of ~n/64 (at
 * most 65536) samples at fixed strides (jittered), counted in the same
 * buckets, says where each rank should fall, give or take 3 standard
 * deviations of a sample quantile; pass 1 then gathers those windows of
 * buckets while it counts. When every rank did fall in a window (nearly always), pass 2 is
 * skipped; otherwise it runs as without a prediction. Either way the
 * counts are exact and the result is the value at the exact rank: the
 * sample only decides how much is read. Unweighted samples only: with
 * weights, gathering in pass 1 cost more than pass 2 saved (measured). */

#define PREDICT_MIN ((size_t)1 << 16) /* below this, pass 2 is cheap */
#define PREDICT_SAMPLE 65536
#define MAX_WINDOWS 8

/* A deterministic spread of sample positions inside each stride. */
static inline size_t jitter(size_t s, size_t stride)
{
    return (size_t)(((uint64_t)s * 0x9e3779b97f4a7c15u >> 32) % stride);
}

static inline size_t select_bucket_of(double x, uint64_t kmin, int shift)
{
    return (size_t)((double_key(x) - kmin) >> shift);
}

#define SIGN_BIT (UINT64_C(1) << 63)

/* The same when no sample is negative (kmin >= the key of +0.0, as with
 * every latency): a key is then the bits + 2^63, so the bits minus
 * kmin - 2^63 will do, three instructions fewer per sample (pass 1 of
 * 10^7 latencies: 0.78x the time). */
static inline size_t bucket_of_nonneg(double x, uint64_t kmin, int shift)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    return (size_t)((bits - (kmin ^ SIGN_BIT)) >> shift);
}

/* The windows of buckets around the ranks of unweighted samples, marked
 * in slot[] (1 + window index), with room for what the sample says they
 * hold. scratch: nb counts. Returns the number of windows; 0 when there
 * would be more than MAX_WINDOWS (then nothing is predicted). */
static size_t predict(const double *v, size_t n, uint64_t kmin, int shift, size_t nb,
                      const uint64_t *ranks, size_t nr, size_t *scratch, unsigned char *slot,
                      target *win)
{
    size_t ns = n / 64 < PREDICT_SAMPLE ? n / 64 : PREDICT_SAMPLE, stride = n / ns;
    memset(scratch, 0, nb * sizeof *scratch);
    for (size_t s = 0; s < ns; s++) {
        /* floor(s n / ns): strides spread over all n (a sorted input is
         * then sampled evenly) */
        size_t i = s * stride + s * (n % ns) / ns + jitter(s, stride);
        scratch[select_bucket_of(v[i], kmin, shift)]++;
    }
    /* For each rank, the buckets where the sample's cumulative count
     * crosses its expected place - m and + m, m = 3 standard deviations
     * of a sample quantile + 8. Both cursors only move up. */
    size_t nw = 0, lo_b = 0, hi_b = 0;
    uint64_t lo_cum = scratch[0], hi_cum = scratch[0]; /* count up to the cursor */
    for (size_t j = 0; j < nr; j++) {
        double expect = (double)ranks[j] * (double)ns / (double)n;
        double q = expect / (double)ns;
        double m = 3.0 * sqrt((double)ns * q * (1.0 - q)) + 8.0;
        while (lo_b + 1 < nb && (double)lo_cum <= expect - m)
            lo_cum += scratch[++lo_b];
        if (hi_b < lo_b) {
            hi_b = lo_b;
            hi_cum = lo_cum;
        }
        while (hi_b + 1 < nb && (double)hi_cum <= expect + m)
            hi_cum += scratch[++hi_b];
        if (nw && lo_b <= win[nw - 1].b1 + 1) { /* meets the previous window */
            win[nw - 1].b1 = hi_b;
            continue;
        }
        if (nw == MAX_WINDOWS)
            return 0;
        win[nw++] = (target){ .b0 = lo_b, .b1 = hi_b };
    }
    for (size_t k = 0; k < nw; k++) {
        uint64_t in = 0;
        for (size_t b = win[k].b0; b <= win[k].b1; b++) {
            in += scratch[b];
            slot[b] = (unsigned char)(k + 1);
        }
        double room = (double)in * (double)n / (double)ns * 1.5 + 4096.0;
        win[k].cap = room < (double)n ? (size_t)room : n;
    }
    return nw;
}

/* ----------------------------------------------------------------- passes */

/* Pass 1: how much of the sample falls in each bucket (count[], and
 * weight[] when weighted), gathering the samples of buckets marked in
 * slot[] when `gather` (unweighted only). `weighted`, `gather` and
 * `nonneg` (kmin >= SIGN_BIT) are constants after inlining. A weight is
 * nearly always 1 (one token per event): only its excess over 1 is added
 * as it comes, the counts at the end, which spares
 * the common case a second scattered update. A window's overflow shows as
 * at > cap. */
static inline void count_pass(const double *v, const uint32_t *w, size_t n, uint64_t kmin,
                              int shift, size_t nb, size_t *count, uint64_t *weight,
                              const unsigned char *slot, target *win, const bool weighted,
                              const bool gather, const bool nonneg)
{
    memset(count, 0, nb * sizeof *count);
    if (weighted)
        memset(weight, 0, nb * sizeof *weight);
    for (size_t i = 0; i < n; i++) {
        size_t b = nonneg ? bucket_of_nonneg(v[i], kmin, shift)
                          : select_bucket_of(v[i], kmin, shift);
        count[b]++;
        if (weighted && w[i] != 1)
            weight[b] += w[i] - 1;
        if (gather && slot[b]) {
            target *t = &win[slot[b] - 1];
            if (t->at < t->cap)
                t->v[t->at] = v[i];
            t->at++;
        }
    }
    if (weighted)
        for (size_t b = 0; b < nb; b++)
            weight[b] += count[b];
}

/* Pass 2: gathers the samples of the buckets marked in slot[]. */
static void gather_pass(const double *v, const uint32_t *w, size_t n, uint64_t kmin, int shift,
                        const unsigned char *slot, target *t)
{
    for (size_t i = 0; i < n; i++) {
        unsigned s = slot[select_bucket_of(v[i], kmin, shift)];
        if (s) {
            target *tb = &t[s - 1];
            tb->v[tb->at] = v[i];
            if (w)
                tb->w[tb->at] = w[i];
            tb->at++;
        }
    }
}

/* Every rank in a gathered window (none overflowed nor too big)? Then
 * the windows holding ranks become the targets (the others are freed). */
static bool use_windows(const llmlat_alloc *al, size_t n, target *win, size_t nw,
                        const size_t *rank_b, size_t nr, const unsigned char *slot,
                        const size_t *count, const uint64_t *weight, target *t, size_t *nt)
{
    for (size_t k = 0; k < nw; k++) {
        win[k].count = 0;
        win[k].weight = 0;
        for (size_t b = win[k].b0; b <= win[k].b1; b++) {
            win[k].count += count[b];
            win[k].weight += weight ? weight[b] : count[b];
        }
        /* overflowed, or too big to be worth a level of its own (at
         * most 1/8 of the samples: the levels shrink fast) */
        if (win[k].at > win[k].cap || win[k].count > n / 8)
            return false;
    }
    for (size_t j = 0; j < nr; j++)
        if (!slot[rank_b[j]])
            return false;
    uint64_t below = 0;
    size_t b = 0;
    *nt = 0;
    for (size_t k = 0; k < nw; k++) {
        for (; b < win[k].b0; b++)
            below += weight ? weight[b] : count[b];
        win[k].base = below;
        bool holds = false;
        for (size_t j = 0; j < nr; j++)
            holds |= slot[rank_b[j]] == k + 1;
        if (holds) {
            t[(*nt)++] = win[k];
            win[k].v = NULL; /* t[] owns them now */
            win[k].w = NULL;
        }
    }
    targets_free(al, win, nw);
    return true;
}

/* A level of radix select: buckets on the keys' top used bits, pass 1
 * (counts, and the predicted windows), pass 2 when there was no prediction
 * or it missed, then the next level inside each target. */
static int32_t by_radix(const llmlat_alloc *al, const double *v, const uint32_t *w, size_t n,
                          uint64_t kmin, uint64_t kmax, const uint64_t *ranks, size_t nr,
                          double *out)
{
    int span = bit_length(kmax - kmin), bits = span - BUCKET_SPAN_BITS;
    bits = bits < LEVEL_BITS_MIN ? LEVEL_BITS_MIN : bits > LEVEL_BITS_MAX ? LEVEL_BITS_MAX : bits;
    int shift = span > bits ? span - bits : 0;
    size_t nb = (size_t)((kmax - kmin) >> shift) + 1;
    size_t *count = alloc_malloc(al, nb * sizeof *count);
    uint64_t *weight = w ? alloc_malloc(al, nb * sizeof *weight) : NULL;
    unsigned char *slot = alloc_malloc(al, nb); /* 1 + target index, 0 if none */
    target *t = alloc_malloc(al, nr * sizeof *t), win[MAX_WINDOWS];
    size_t nt = 0, nw = 0, rank_b[SELECT_MAX_RANKS];
    int32_t st = (count && slot && t && (!w || weight)) ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st != LLMLAT_OK)
        goto done;

    memset(slot, 0, nb);
    if (!w && n >= PREDICT_MIN)
        nw = predict(v, n, kmin, shift, nb, ranks, nr, count, slot, win);
    for (size_t k = 0; k < nw && st == LLMLAT_OK; k++)
        st = target_alloc(al, &win[k], false);
    if (st != LLMLAT_OK)
        goto done;
    bool nonneg = kmin >= SIGN_BIT;
    if (nw && nonneg)
        count_pass(v, NULL, n, kmin, shift, nb, count, NULL, slot, win, false, true, true);
    else if (nw)
        count_pass(v, NULL, n, kmin, shift, nb, count, NULL, slot, win, false, true, false);
    else if (w && nonneg)
        count_pass(v, w, n, kmin, shift, nb, count, weight, slot, win, true, false, true);
    else if (w)
        count_pass(v, w, n, kmin, shift, nb, count, weight, slot, win, true, false, false);
    else if (nonneg)
        count_pass(v, NULL, n, kmin, shift, nb, count, NULL, slot, win, false, false, true);
    else
        count_pass(v, NULL, n, kmin, shift, nb, count, NULL, slot, win, false, false, false);

    /* The bucket of each rank (ranks ascend, so buckets do). */
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
        rank_b[j] = b;
    }

    if (!nw || !use_windows(al, n, win, nw, rank_b, nr, slot, count, weight, t, &nt)) {
        /* No prediction, or it missed: one target per bucket, pass 2. */
        targets_free(al, win, nw);
        memset(slot, 0, nb);
        below = 0;
        b = 0;
        for (size_t j = 0; j < nr; j++) {
            for (; b < rank_b[j]; b++)
                below += w ? weight[b] : count[b];
            if (nt == 0 || t[nt - 1].b0 != b) {
                t[nt] = (target){ .b0 = b, .b1 = b, .count = count[b], .cap = count[b],
                                  .base = below, .weight = w ? weight[b] : count[b] };
                slot[b] = (unsigned char)(++nt);
            }
        }
        for (size_t i = 0; i < nt && st == LLMLAT_OK; i++)
            st = target_alloc(al, &t[i], w != NULL);
        if (st != LLMLAT_OK)
            goto done;
        gather_pass(v, w, n, kmin, shift, slot, t);
    }

    /* Next level in each target, with its share of the ranks. A bucket
     * never holds both kmin and kmax (there are >= 2^11 buckets), so each
     * level narrows the key range by >= 11 bits: at most 6 levels. (A
     * window holds at most 1/8 of the samples, see use_windows.) */
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
        while (j < nr && ranks[j] < t[i].base + t[i].weight) {
            local[j - first] = ranks[j] - t[i].base;
            j++;
        }
        st = select_ranks(al, t[i].v, t[i].w, t[i].count, bmin, bmax, local, j - first,
                          out + first);
    }

done:
    targets_free(al, win, nw);
    if (t)
        targets_free(al, t, nt);
    alloc_free(al, t);
    alloc_free(al, count);
    alloc_free(al, weight);
    alloc_free(al, slot);
    return st;
}

LLMLAT_PRIVATE int32_t select_ranks(const llmlat_alloc *al, const double *v, const uint32_t *w,
                                    size_t n, uint64_t kmin, uint64_t kmax, const uint64_t *ranks,
                                    size_t nr, double *out)
{
    if (nr == 0)
        return LLMLAT_OK;
    if (kmin == kmax) { /* every sample is the same value */
        for (size_t j = 0; j < nr; j++)
            out[j] = key_double(kmin);
        return LLMLAT_OK;
    }
    if (n <= SELECT_SMALL)
        return by_sorting(al, v, w, n, ranks, nr, out);
    return by_radix(al, v, w, n, kmin, kmax, ranks, nr, out);
}
