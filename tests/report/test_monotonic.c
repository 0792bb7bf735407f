/* Every exposed _sum, _count, bucket and counter only grows (issue 12,
 * item 1): 10,000 random requests (zeros, multi-token chunks, empty
 * chunks, failures, huge values that move bounded mode's windows) with an
 * exposition of two aggregators after each, in every format and both
 * modes (exact mode, whose expositions cost O(samples): after each of the
 * first 500, then every 200th), in llmlat's names and in the vLLM and
 * OpenTelemetry schemes (their token histograms, their buckets). Text series are compared by their full
 * text; protobuf ones by family and labels, native histograms as
 * Prometheus' DetectReset defines a reset (a zero threshold that rises
 * and takes buckets into the zero count is none), and with no bucket
 * leaving the spans while the threshold stays (Prometheus 2.42 cuts a
 * chunk as a reset then). */
#include "helpers.h"
#include "report/expo_parse.h"

#ifndef REQUESTS
#define REQUESTS 10000
#endif

/* Native histograms whose zero threshold rose and took buckets in. */
static unsigned absorptions;

static uint64_t rng = 0x2545f4914f6cdd1du;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double uniform(void)
{
    return (double)(next_random() >> 11) * 0x1p-53;
}

/* A gap: often 0, mostly µs to seconds, now and then huge (hours to
 * years), which moves the bounded windows up. */
static int64_t random_gap(void)
{
    double r = uniform();
    if (r < 0.1)
        return 0;
    if (r < 0.6)
        return (int64_t)(1e3 * pow(5e4, uniform())); /* 1 µs .. 50 ms */
    if (r < 0.998)
        return (int64_t)(5e7 * pow(100.0, uniform())); /* 50 ms .. 5 s */
    return (int64_t)(1e12 * pow(1e5, uniform())); /* 1000 s .. 3 years */
}

static uint32_t random_k(void)
{
    double r = uniform();
    return r < 0.15 ? 0 : r < 0.8 ? 1 : r < 0.995 ? 2 + (uint32_t)(next_random() % 7)
                                              : 1000000;
}

static llmlat_request *random_request(int64_t start)
{
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
    int n = (int)(next_random() % 9);
    int64_t t = start + (uniform() < 0.05 ? 0 : random_gap()); /* TTFT 0 now and then */
    for (int i = 0; i < n; i++) {
        assert_int_equal(llmlat_request_event(r, t, random_k()), LLMLAT_OK);
        t += random_gap();
    }
    double in = uniform();
    llmlat_request_set_input_tokens(r, in < 0.1 ? 0 : in < 0.99 ? next_random() % 4000
                                                                 : UINT64_C(1) << 40);
    if (uniform() < 0.1)
        llmlat_request_set_output_tokens(r, next_random() % 100);
    int64_t end = t + (int64_t)(next_random() % 1000000);
    if (uniform() < 0.08)
        assert_int_equal(llmlat_request_fail(r, end), LLMLAT_OK);
    else
        assert_int_equal(llmlat_request_finish(r, end), LLMLAT_OK);
    return r;
}

/* ------------------------------------------------------------ the checks */

static bool text_monotone_name(const char *name)
{
    return ends_with(name, "_sum") || ends_with(name, "_count") || ends_with(name, "_bucket") ||
           ends_with(name, "_total");
}

static int by_series(const void *x, const void *y)
{
    return strcmp(((const text_sample *)x)->series, ((const text_sample *)y)->series);
}

/* Every growing series of prev is in cur with a value at least as large;
 * within one exposition, a histogram's buckets ascend. Sorts both. */
static void check_text(text_expo *prev, text_expo *cur, const char *format, int step)
{
    qsort(cur->s, cur->n, sizeof *cur->s, by_series);
    for (size_t i = 0; i < cur->n; i++)
        if (text_monotone_name(cur->s[i].name) && !(cur->s[i].value >= 0.0))
            fail_msg("%s step %d: %s = %g", format, step, cur->s[i].series, cur->s[i].value);
    for (size_t i = 0; i < prev->n; i++) {
        const text_sample *p = &prev->s[i];
        if (!text_monotone_name(p->name))
            continue;
        const text_sample *c = bsearch(p, cur->s, cur->n, sizeof *cur->s, by_series);
        if (!c)
            fail_msg("%s step %d: %s disappeared", format, step, p->series);
        if (!(c->value >= p->value))
            fail_msg("%s step %d: %s went down from %.17g to %.17g", format, step, p->series,
                     p->value, c->value);
    }
}

/* The native bucket index of a zero threshold, itself a bucket's upper
 * bound 2^(k 2^-schema): k. */
static int64_t threshold_index(double zt, int32_t schema)
{
    return (int64_t)llround(log2(zt) * ldexp(1.0, schema));
}

/* DetectReset (prometheus/model/histogram): a count, the zero count or a
 * bucket lower than before, once the previous histogram's buckets within
 * a risen zero threshold are moved into its zero count; a schema change
 * or a threshold that dropped. Also Prometheus 2.42's chunk rule: with
 * the threshold unchanged, no bucket of the previous spans may be absent
 * from the new ones. */
static void check_native(const pbd_metric *p, const pbd_metric *c, int step)
{
    if (!c->has_schema || !p->has_schema)
        fail_msg("step %d: %s has no native buckets", step, c->key);
    if (c->schema != p->schema || c->zt < p->zt || c->count < p->count)
        fail_msg("step %d: %s reset (schema %d -> %d, zt %g -> %g, count %llu -> %llu)", step,
                 c->key, p->schema, c->schema, p->zt, c->zt, (unsigned long long)p->count,
                 (unsigned long long)c->count);
    int64_t absorbed = c->zt > 0.0 ? threshold_index(c->zt, c->schema) : INT64_MIN;
    uint64_t prev_zero = p->zc;
    size_t j = 0;
    for (size_t i = 0; i < p->n_buckets; i++) {
        if (p->index[i] <= absorbed) {
            prev_zero += p->counts[i];
            absorptions += p->counts[i] > 0;
            continue;
        }
        while (j < c->n_buckets && c->index[j] < p->index[i])
            j++;
        bool there = j < c->n_buckets && c->index[j] == p->index[i];
        uint64_t now = there ? c->counts[j] : 0;
        if (now < p->counts[i])
            fail_msg("step %d: %s bucket %lld went down from %llu to %llu", step, c->key,
                     (long long)p->index[i], (unsigned long long)p->counts[i],
                     (unsigned long long)now);
        if (!there && c->zt == p->zt)
            fail_msg("step %d: %s bucket %lld left the spans", step, c->key,
                     (long long)p->index[i]);
    }
    if (c->zc < prev_zero)
        fail_msg("step %d: %s zero count went down from %llu to %llu", step, c->key,
                 (unsigned long long)prev_zero, (unsigned long long)c->zc);
    /* the buckets hold every sample: zero count + buckets = count */
    uint64_t total = c->zc;
    for (size_t i = 0; i < c->n_buckets; i++)
        total += c->counts[i];
    if (total != c->count)
        fail_msg("step %d: %s buckets hold %llu of %llu samples", step, c->key,
                 (unsigned long long)total, (unsigned long long)c->count);
}

static void check_pb(const pbd_expo *prev, const pbd_expo *cur, int step)
{
    for (size_t i = 0; i < prev->n; i++)
        for (size_t k = 0; k < prev->f[i].n_metrics; k++) {
            const pbd_metric *p = prev->f[i].metrics[k];
            const pbd_metric *c = pbd_find_metric_at(cur, p->key, i, k);
            if (!c)
                fail_msg("protobuf step %d: %s disappeared", step, p->key);
            int type = prev->f[i].type;
            if (type == PBD_COUNTER && !(c->value >= p->value))
                fail_msg("protobuf step %d: %s went down", step, p->key);
            if (type != PBD_SUMMARY && type != PBD_HISTOGRAM)
                continue;
            if (c->count < p->count || !(c->sum >= p->sum))
                fail_msg("protobuf step %d: %s count or sum went down (%.17g -> %.17g)", step,
                         p->key, p->sum, c->sum);
            if (type != PBD_HISTOGRAM)
                continue;
            for (size_t b = 0; b < p->n_b; b++)
                if (c->n_b != p->n_b || c->cum[b] < p->cum[b])
                    fail_msg("protobuf step %d: %s bucket %g went down", step, p->key, p->le[b]);
            check_native(p, c, step);
        }
}

/* ------------------------------------------------------------- the run */

/* The exposition, streamed once into a growing buffer. */
typedef struct grow {
    char *p;
    size_t len, cap;
} grow;

static int32_t grow_write(void *user, const void *bytes, size_t n)
{
    grow *g = user;
    if (g->len + n > g->cap) {
        g->cap = 2 * (g->len + n);
        g->p = realloc(g->p, g->cap);
        assert_non_null(g->p);
    }
    memcpy(g->p + g->len, bytes, n);
    g->len += n;
    return LLMLAT_OK;
}

static char *exposition(const llmlat_agg *const *aggs, int32_t format, int32_t names,
                        size_t *len)
{
    grow g = { 0 };
    assert_int_equal(llmlat_expose_write_names(aggs, 2, format, names, grow_write, &g),
                     LLMLAT_OK);
    *len = g.len;
    return g.p;
}

typedef struct snapshot {
    text_expo prom, om;
    pbd_expo pb;
} snapshot;

static void take(snapshot *s, const llmlat_agg *const *aggs, int32_t names)
{
    size_t len;
    char *t = exposition(aggs, LLMLAT_FORMAT_PROMETHEUS, names, &len);
    assert_true(text_parse(t, len, &s->prom));
    free(t);
    t = exposition(aggs, LLMLAT_FORMAT_OPENMETRICS, names, &len);
    assert_true(text_parse(t, len, &s->om));
    assert_true(s->om.eof_last);
    free(t);
    char *pb = exposition(aggs, LLMLAT_FORMAT_PROMETHEUS_PROTOBUF, names, &len);
    assert_true(pbd_parse(pb, len, &s->pb));
    free(pb);
}

static void release(snapshot *s)
{
    text_free(&s->prom);
    text_free(&s->om);
    pbd_free(&s->pb);
}

/* An exposition after each of the first `every_from` requests, then after
 * every `every`-th. */
static void run(int32_t mode, int32_t conv2, int every_from, int every, int32_t names)
{
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
    llmlat_agg *b = llmlat_agg_new(conv2, mode);
    assert_int_equal(llmlat_agg_set_label(a, "model", "m\"1\"\n"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(b, "model", "m2"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(b, LLMLAT_PARAM_SLO_TTFT, 0.5), LLMLAT_OK);
    const llmlat_agg *aggs[2] = { a, b };
    snapshot prev, cur;
    take(&prev, aggs, names);
    qsort(prev.prom.s, prev.prom.n, sizeof *prev.prom.s, by_series);
    qsort(prev.om.s, prev.om.n, sizeof *prev.om.s, by_series);
    int64_t start = 0;
    for (int step = 1; step <= REQUESTS; step++) {
        start += (int64_t)(next_random() % 10000000);
        llmlat_request *r = random_request(start);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(b, r), LLMLAT_OK);
        llmlat_request_free(r);
        if (step > every_from && step % every != 0)
            continue;
        take(&cur, aggs, names);
        check_text(&prev.prom, &cur.prom, "text", step);
        check_text(&prev.om, &cur.om, "openmetrics", step);
        check_pb(&prev.pb, &cur.pb, step);
        release(&prev);
        prev = cur;
    }
    /* the huge values moved windows: thresholds rose over counted buckets */
    assert_true(absorptions > 0);
    absorptions = 0;
    release(&prev);
    llmlat_agg_free(a);
    llmlat_agg_free(b);
}

static void bounded_series_only_grow(void **state)
{
    (void)state;
    run(LLMLAT_MODE_BOUNDED, LLMLAT_CONV_VLLM, REQUESTS, 1, LLMLAT_NAMES_LLMLAT);
}

static void exact_series_only_grow(void **state)
{
    (void)state;
    /* an exposition costs O(samples) here: after each of the first 500,
     * then after every 200th */
    run(LLMLAT_MODE_EXACT, LLMLAT_CONV_SGLANG, 500, 200, LLMLAT_NAMES_LLMLAT);
}

/* The systems' schemes: their token histograms and bucket bounds. */
static void schemes_series_only_grow(void **state)
{
    (void)state;
    run(LLMLAT_MODE_BOUNDED, LLMLAT_CONV_VLLM, REQUESTS, 1, LLMLAT_NAMES_OTEL);
    run(LLMLAT_MODE_EXACT, LLMLAT_CONV_SGLANG, 500, 200, LLMLAT_NAMES_VLLM);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bounded_series_only_grow),
        cmocka_unit_test(exact_series_only_grow),
        cmocka_unit_test(schemes_series_only_grow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
