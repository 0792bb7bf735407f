/* llmlat_compare_new: two runs' figures, their difference, and a
 * percentile-bootstrap interval of it. A resample draws as many requests
 * as a run has, with replacement (requests are the unit: all the samples
 * of a drawn request come along), and computes every figure as the
 * aggregator would on those requests, with the run's duration held fixed.
 * Each resample of the candidate is paired with one of the base, and the
 * interval of a difference is the 2.5 % and 97.5 % quantiles of its B
 * resampled values (docs/compare.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare.h"
#include "exact/radix.h"
#include "exact/ranks.h"
#include "report/report_buf.h"
#include "util/lerp.h"
#include "util/rng.h"

/* ------------------------------------------------------------ figures */

static void compare_add_figure(llmlat_compare *c, const char *name, int32_t metric, int32_t rate,
                       int32_t stat, size_t qi)
{
    compare_figure *f = &c->fig[c->n_fig++];
    double q = stat == 0 && metric ? c->q[qi] : NAN;
    snprintf(f->name, sizeof f->name, "%s", name);
    f->metric = metric;
    f->rate = rate;
    f->stat = stat;
    f->q = q;
    f->qi = qi;
    for (int i = 0; i <= COMPARE_FIELDS; i++)
        f->v[i] = NAN;
}

/* The quantiles of the base's reports, each once, but 0.5 (the median's). */
static void compare_take_quantiles(llmlat_compare *c, const llmlat_agg *base)
{
    c->nq = 0;
    for (size_t i = 0; i < base->n_quantiles; i++) {
        double q = base->quantiles[i];
        bool seen = q == 0.5;
        for (size_t j = 0; j < c->nq; j++)
            seen |= c->q[j] == q;
        if (!seen)
            c->q[c->nq++] = q;
    }
}

static void compare_list_figures(llmlat_compare *c)
{
    char name[COMPARE_NAME_MAX];
    for (int32_t m = METRIC_FIRST; m <= METRIC_LAST; m++) {
        const char *metric = llmlat_metric_name(m);
        snprintf(name, sizeof name, "mean_%s", metric);
        compare_add_figure(c, name, m, 0, LLMLAT_STAT_MEAN, 0);
        snprintf(name, sizeof name, "median_%s", metric);
        compare_add_figure(c, name, m, 0, LLMLAT_STAT_MEDIAN, 0);
        for (size_t i = 0; i < c->nq; i++) {
            char pct[PERCENT_TEXT_MAX];
            percent_text(c->q[i], pct);
            snprintf(name, sizeof name, "p%s_%s", pct, metric);
            compare_add_figure(c, name, m, 0, 0, i);
        }
    }
    compare_add_figure(c, "request_throughput", 0, LLMLAT_RATE_REQUESTS, 0, 0);
    compare_add_figure(c, "output_throughput", 0, LLMLAT_RATE_OUTPUT_TOKENS, 0, 0);
    compare_add_figure(c, "total_token_throughput", 0, LLMLAT_RATE_TOTAL_TOKENS, 0, 0);
    compare_add_figure(c, "request_goodput", 0, LLMLAT_RATE_GOODPUT, 0, 0);
}

LLMLAT_PRIVATE const compare_figure *compare_find(const llmlat_compare *c, const char *name)
{
    for (size_t i = 0; i < c->n_fig; i++)
        if (strcmp(c->fig[i].name, name) == 0)
            return &c->fig[i];
    return NULL;
}

/* A query's value, NaN when undefined; a hard error is kept in *st. */
static double compare_value_or_nan(int32_t qst, double v, int32_t *st)
{
    if (qst == LLMLAT_OK)
        return v;
    if (qst != LLMLAT_EUNDEFINED && *st == LLMLAT_OK)
        *st = qst;
    return NAN;
}

/* Every figure of a, in c's order, into out[n_fig]. */
LLMLAT_PRIVATE int32_t compare_figures_of(const llmlat_compare *c, const llmlat_agg *a,
                                          double *out)
{
    int32_t st = LLMLAT_OK;
    for (size_t i = 0; i < c->n_fig;) {
        const compare_figure *f = &c->fig[i];
        double v = NAN;
        if (f->metric && f->stat == 0) { /* this metric's quantiles, in one pass */
            double qv[MAX_QUANTILES];
            int32_t qst = llmlat_agg_quantiles(a, f->metric, c->q, c->nq, qv);
            for (size_t j = 0; j < c->nq; j++)
                out[i + j] = compare_value_or_nan(qst, qv[j], &st);
            i += c->nq;
            continue;
        }
        int32_t qst = f->metric ? llmlat_agg_stat(a, f->metric, f->stat, &v)
                                : llmlat_agg_rate(a, f->rate, &v);
        out[i++] = compare_value_or_nan(qst, v, &st);
    }
    return st;
}

/* ---------------------------------------------------------- resampling */

/* A resample is a multiplicity per request: how many times it was drawn.
 * Every figure of the resample is then a weighted pass over the run's
 * samples sorted once, each weighted by its own weight times its
 * request's multiplicity: the multiset the aggregator would hold had it
 * been given the drawn requests, without building it. */

LLMLAT_PRIVATE void compare_run_free(compare_run *r, const llmlat_alloc *al)
{
    alloc_free(al, r->part);
    alloc_free(al, r->mult);
    for (int m = 0; m < METRIC_COUNT; m++) {
        compare_store *s = &r->st[m];
        alloc_free(al, s->sample);
        alloc_free(al, s->req_w);
        alloc_free(al, s->req_sum);
    }
}

static void *compare_array(const llmlat_alloc *al, size_t n, size_t size)
{
    if (n > SIZE_MAX / size)
        return NULL;
    return alloc_malloc(al, n * size);
}

/* Store m of ord (whose samples sit in request order, request i's from
 * first[i * METRIC_COUNT] on) sorted, each sample tagged with its request. */
static int32_t compare_store_fill(compare_store *s, const exact_store *e, const size_t *first,
                                  size_t n_req, const llmlat_alloc *al)
{
    s->n = e->n;
    if (e->n > UINT32_MAX)
        return LLMLAT_ENOMEM; /* the sort's payload indexes samples */
    s->sample = compare_array(al, e->n, sizeof *s->sample);
    s->req_w = compare_array(al, n_req, sizeof *s->req_w);
    s->req_sum = compare_array(al, n_req, sizeof *s->req_sum);
    double *v = compare_array(al, e->n, sizeof *v);
    uint32_t *index = compare_array(al, e->n, sizeof *index);
    uint32_t *req = compare_array(al, e->n, sizeof *req);
    int32_t st = s->sample && s->req_w && s->req_sum && v && index && req ? LLMLAT_OK
                                                                          : LLMLAT_ENOMEM;
    if (st == LLMLAT_OK) {
        for (size_t i = 0; i < n_req; i++) {
            uint64_t w = 0;
            double sum = 0.0;
            for (size_t j = first[i * METRIC_COUNT]; j < first[(i + 1) * METRIC_COUNT]; j++) {
                uint32_t wj = e->weighted ? e->w[j] : 1;
                w += wj;
                sum += e->v[j] * (double)wj;
                req[j] = (uint32_t)i;
            }
            s->req_w[i] = w;
            s->req_sum[i] = sum;
        }
        for (size_t j = 0; j < e->n; j++)
            index[j] = (uint32_t)j;
        if (e->n) /* an empty store's values may be NULL */
            memcpy(v, e->v, e->n * sizeof *v);
        st = radix_sort(al, RADIX_DOUBLE, v, index, e->n);
    }
    for (size_t j = 0; j < e->n && st == LLMLAT_OK; j++) {
        uint32_t from = index[j];
        s->sample[j] = (compare_sample){ v[j], e->weighted ? e->w[from] : 1, req[from] };
    }
    alloc_free(al, v);
    alloc_free(al, index);
    alloc_free(al, req);
    return st;
}

/* The run's requests added again, in log order, into an empty twin: each
 * one's samples then sit together in every store, and its part of every
 * counter is the change it made. */
LLMLAT_PRIVATE int32_t compare_run_prepare(compare_run *r, const llmlat_agg *a,
                                           const llmlat_alloc *al)
{
    memset(r, 0, sizeof *r);
    r->n = a->log.n_req;
    r->any_slo = agg_any_slo(a);
    double d;
    r->duration_s = agg_duration(a, &d) ? d : NAN;
    r->zero_when_empty = a->conv->empty == EMPTY_ZERO;
    llmlat_agg *ord = agg_new_empty_like(a);
    size_t *first = compare_array(al, r->n + 1, METRIC_COUNT * sizeof *first);
    r->part = compare_array(al, r->n + 1, sizeof *r->part);
    r->mult = compare_array(al, r->n + 1, sizeof *r->mult);
    int32_t st = ord && first && r->part && r->mult ? LLMLAT_OK : LLMLAT_ENOMEM;
    for (size_t i = 0; i <= r->n && st == LLMLAT_OK; i++) {
        for (int m = 0; m < METRIC_COUNT; m++)
            first[i * METRIC_COUNT + m] = ord->stores[m].exact.n;
        if (i == r->n)
            break;
        uint64_t completed = ord->completed, in = ord->input_tokens, out = ord->output_tokens;
        size_t record = ord->tl.n_rec;
        llmlat_request q;
        request_log_view(&a->log, i, &q);
        st = llmlat_agg_add(ord, &q);
        compare_part *p = &r->part[i];
        p->success = ord->completed != completed;
        p->good = false;
        p->input_tokens = ord->input_tokens - in;
        p->output_tokens = ord->output_tokens - out;
        if (p->success) {
            const success_record *rec = &ord->tl.rec[record];
            p->good = agg_meets_slos(ord, rec->ttft_s, rec->tpot_s, rec->e2e_s);
        }
    }
    for (int m = 0; m < METRIC_COUNT && st == LLMLAT_OK; m++)
        st = compare_store_fill(&r->st[m], &ord->stores[m].exact, first + m, r->n, al);
    llmlat_agg_free(ord);
    alloc_free(al, first);
    return st;
}

/* A figure of an empty store, as the aggregator gives it (s->placeholder:
 * agg_query.c's empty_value). */
static double compare_empty(const compare_run *r, const metric_store *s)
{
    return r->zero_when_empty && s->placeholder ? 0.0 : NAN;
}

/* Mean, median and the quantiles q of store s (the run's store `like`)
 * under the multiplicities, into out[0], out[1], out[2 ..]: the median's
 * and the quantiles' ranks found in one walk up the sorted samples. */
static void compare_store_stats(const compare_run *r, const compare_store *s,
                                const metric_store *like, const double *q, size_t nq,
                                double *out)
{
    uint64_t total = 0;
    double sum = 0.0;
    for (size_t i = 0; i < r->n; i++) {
        total += r->mult[i] * s->req_w[i];
        sum += (double)r->mult[i] * s->req_sum[i];
    }
    if (total == 0) {
        for (size_t i = 0; i < 2 + nq; i++)
            out[i] = compare_empty(r, like);
        return;
    }
    quantile_plan p;
    quantile_plan_make(&p, total, q, nq);
    uint64_t med[2];
    size_t n_med = median_ranks(total, med);
    /* every rank wanted, ascending: the plan's, the median's, the last */
    uint64_t want[2 * RANKS_MAX_Q + 3];
    double at[2 * RANKS_MAX_Q + 3];
    size_t nw = 0, iq = 0, im = 0;
    while (iq < p.n_ranks || im < n_med) {
        bool from_q = im == n_med || (iq < p.n_ranks && p.ranks[iq] <= med[im]);
        want[nw++] = from_q ? p.ranks[iq++] : med[im++];
    }
    want[nw++] = total - 1; /* the maximum */
    uint64_t below = 0;     /* weight of the samples before j */
    size_t k = 0;
    for (size_t j = 0; j < s->n && k < nw; j++) {
        const compare_sample *x = &s->sample[j];
        uint64_t wj = (uint64_t)x->w * r->mult[x->req];
        while (k < nw && want[k] < below + wj)
            at[k++] = x->v;
        below += wj;
    }
    /* back to each list's own order */
    double at_q[2 * RANKS_MAX_Q], at_med[2];
    iq = im = 0;
    for (size_t i = 0; i + 1 < nw; i++) {
        bool from_q = im == n_med || (iq < p.n_ranks && p.ranks[iq] <= med[im]);
        if (from_q)
            at_q[iq++] = at[i];
        else
            at_med[im++] = at[i];
    }
    out[0] = sum / (double)total;
    out[1] = median_of(at_med, n_med);
    quantile_plan_values(&p, at_q, at[nw - 1], out + 2);
}

LLMLAT_PRIVATE void compare_run_figures(const llmlat_compare *c, const compare_run *r,
                                        const llmlat_agg *like, double *out)
{
    double stats[METRIC_COUNT][2 + MAX_QUANTILES];
    bool done[METRIC_COUNT] = { false };
    uint64_t completed = 0, good = 0, in = 0, tokens = 0;
    for (size_t i = 0; i < r->n; i++) {
        const compare_part *p = &r->part[i];
        completed += r->mult[i] * p->success;
        good += r->mult[i] * p->good;
        in += r->mult[i] * p->input_tokens;
        tokens += r->mult[i] * p->output_tokens;
    }
    for (size_t i = 0; i < c->n_fig; i++) {
        const compare_figure *f = &c->fig[i];
        if (!f->metric) {
            double d = r->duration_s, x = NAN;
            switch (f->rate) {
            case LLMLAT_RATE_REQUESTS: x = (double)completed; break;
            case LLMLAT_RATE_OUTPUT_TOKENS: x = (double)tokens; break;
            case LLMLAT_RATE_TOTAL_TOKENS: x = (double)in + (double)tokens; break;
            case LLMLAT_RATE_GOODPUT: x = r->any_slo ? (double)good : NAN; break;
            }
            out[i] = x / d;
            continue;
        }
        /* the store the metric reads under the convention (TOOL_ITL aliases) */
        int m = (int)(agg_store(like, f->metric) - like->stores);
        if (!done[m]) {
            compare_store_stats(r, &r->st[m], &like->stores[m], c->q, c->nq, stats[m]);
            done[m] = true;
        }
        out[i] = f->stat == LLMLAT_STAT_MEAN     ? stats[m][0]
                 : f->stat == LLMLAT_STAT_MEDIAN ? stats[m][1]
                                                 : stats[m][2 + f->qi];
    }
}

/* Draws a resample of r: as many requests as it has, with replacement. */
static void compare_draw(compare_run *r, rng *g)
{
    memset(r->mult, 0, r->n * sizeof *r->mult);
    for (size_t i = 0; i < r->n; i++)
        r->mult[rng_below(g, r->n)]++;
}

/* numpy.quantile(x, q) of x sorted ascending (n >= 1). */
static double compare_sorted_quantile(const double *x, size_t n, double q)
{
    double h = q * (double)(n - 1);
    size_t i = (size_t)h;
    if (i >= n - 1)
        return x[n - 1];
    return numpy_lerp(x[i], x[i + 1], h - (double)i);
}

/* The interval of the B values x of one figure (NaN when any is). */
static int32_t compare_interval(const llmlat_alloc *al, double *x, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; i < n; i++)
        if (isnan(x[i]))
            return LLMLAT_OK;
    int32_t st = radix_sort(al, RADIX_DOUBLE, x, NULL, n);
    if (st == LLMLAT_OK) {
        *lo = compare_sorted_quantile(x, n, (1.0 - COMPARE_CONFIDENCE) / 2);
        *hi = compare_sorted_quantile(x, n, 1.0 - (1.0 - COMPARE_CONFIDENCE) / 2);
    }
    return st;
}

/* The B resamples of both runs, then every figure's intervals. */
static int32_t compare_bootstrap(llmlat_compare *c, const llmlat_agg *base, const llmlat_agg *cand)
{
    const llmlat_alloc *al = &c->al;
    size_t nf = c->n_fig, b = c->resamples;
    compare_run run[2];
    int32_t st = compare_run_prepare(&run[0], base, al);
    if (st == LLMLAT_OK)
        st = compare_run_prepare(&run[1], cand, al);
    else
        memset(&run[1], 0, sizeof run[1]);
    double *diff = compare_array(al, nf * b, sizeof *diff);
    double *rel = compare_array(al, nf * b, sizeof *rel);
    double *fb = compare_array(al, nf, sizeof *fb), *fc = compare_array(al, nf, sizeof *fc);
    if (st == LLMLAT_OK && (!diff || !rel || !fb || !fc))
        st = LLMLAT_ENOMEM;
    rng g;
    rng_seed(&g, c->seed);
    for (size_t r = 0; r < b && st == LLMLAT_OK; r++) {
        compare_draw(&run[0], &g);
        compare_run_figures(c, &run[0], base, fb);
        compare_draw(&run[1], &g);
        compare_run_figures(c, &run[1], cand, fc);
        for (size_t f = 0; f < nf; f++) {
            diff[f * b + r] = fc[f] - fb[f];
            rel[f * b + r] = fb[f] != 0.0 ? (fc[f] - fb[f]) / fb[f] : NAN;
        }
    }
    for (size_t f = 0; f < nf && st == LLMLAT_OK; f++) {
        double *v = c->fig[f].v;
        st = compare_interval(al, diff + f * b, b, &v[LLMLAT_COMPARE_DIFF_LOW],
                              &v[LLMLAT_COMPARE_DIFF_HIGH]);
        if (st == LLMLAT_OK)
            st = compare_interval(al, rel + f * b, b, &v[LLMLAT_COMPARE_REL_LOW],
                                  &v[LLMLAT_COMPARE_REL_HIGH]);
    }
    alloc_free(al, diff);
    alloc_free(al, rel);
    alloc_free(al, fb);
    alloc_free(al, fc);
    compare_run_free(&run[0], al);
    compare_run_free(&run[1], al);
    return st;
}

/* ---------------------------------------------------------------- API */

static void compare_describe(compare_side *s, const llmlat_agg *a)
{
    s->completed = a->completed;
    s->failed = a->failed;
    s->holds = agg_holds_requests(a);
    double d;
    s->duration_s = agg_duration(a, &d) ? d : NAN;
}

/* The figures of both runs, and their differences. */
static int32_t compare_points(llmlat_compare *c, const llmlat_agg *base, const llmlat_agg *cand)
{
    double *fb = alloc_malloc(&c->al, c->n_fig * sizeof *fb);
    double *fc = alloc_malloc(&c->al, c->n_fig * sizeof *fc);
    int32_t st = fb && fc ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st == LLMLAT_OK)
        st = compare_figures_of(c, base, fb);
    if (st == LLMLAT_OK)
        st = compare_figures_of(c, cand, fc);
    for (size_t f = 0; f < c->n_fig && st == LLMLAT_OK; f++) {
        double *v = c->fig[f].v;
        v[LLMLAT_COMPARE_BASE] = fb[f];
        v[LLMLAT_COMPARE_CAND] = fc[f];
        v[LLMLAT_COMPARE_DIFF] = fc[f] - fb[f];
        v[LLMLAT_COMPARE_REL_DIFF] = fb[f] != 0.0 ? (fc[f] - fb[f]) / fb[f] : NAN;
    }
    alloc_free(&c->al, fb);
    alloc_free(&c->al, fc);
    return st;
}

static llmlat_compare *compare_fail(llmlat_compare *c, int32_t st, int32_t *status)
{
    llmlat_compare_free(c);
    if (status)
        *status = st;
    return NULL;
}

LLMLAT_API llmlat_compare *llmlat_compare_new(const llmlat_agg *base, const llmlat_agg *cand,
                                              uint32_t resamples, uint64_t seed,
                                              int32_t *status)
{
    if (!base || !cand || resamples > LLMLAT_COMPARE_MAX_RESAMPLES)
        return compare_fail(NULL, LLMLAT_EINVAL, status);
    if (base->conv != cand->conv)
        return compare_fail(NULL, LLMLAT_EMISMATCH, status);
    llmlat_alloc al = alloc_current();
    llmlat_compare *c = alloc_malloc(&al, sizeof *c);
    if (!c)
        return compare_fail(NULL, LLMLAT_ENOMEM, status);
    memset(c, 0, sizeof *c);
    c->al = al;
    c->conv = base->conv;
    c->resamples = resamples;
    c->seed = seed;
    compare_describe(&c->side[0], base);
    compare_describe(&c->side[1], cand);
    c->intervals = resamples > 0 && c->side[0].holds && c->side[1].holds;
    compare_take_quantiles(c, base);
    compare_list_figures(c);
    int32_t st = compare_points(c, base, cand);
    if (st == LLMLAT_OK && c->intervals)
        st = compare_bootstrap(c, base, cand);
    if (st != LLMLAT_OK)
        return compare_fail(c, st, status);
    if (status)
        *status = LLMLAT_OK;
    return c;
}

LLMLAT_API void llmlat_compare_free(llmlat_compare *c)
{
    if (!c)
        return;
    llmlat_alloc al = c->al;
    alloc_free(&al, c);
}

LLMLAT_API const char *llmlat_compare_figure(const llmlat_compare *c, size_t i)
{
    return c && i < c->n_fig ? c->fig[i].name : NULL;
}

LLMLAT_API int32_t llmlat_compare_get(const llmlat_compare *c, const char *figure, int32_t field,
                                      double *out)
{
    if (!c || !figure || !out || field < LLMLAT_COMPARE_BASE || field > COMPARE_FIELDS)
        return LLMLAT_EINVAL;
    const compare_figure *f = compare_find(c, figure);
    if (!f)
        return LLMLAT_EINVAL;
    *out = f->v[field];
    return isnan(*out) ? LLMLAT_EUNDEFINED : LLMLAT_OK;
}
