/* What the exposition tests check alike (cmocka): a text sample's value
 * and a classic bucket's count looked up by series, a string's count in
 * the text, and a protobuf histogram's native buckets against
 * llmlat_agg_buckets. */
#ifndef EXPOSE_CHECK_H
#define EXPOSE_CHECK_H

#include <float.h>
#include <stdio.h>

#include "helpers.h"
#include "report/expo_parse.h"

static inline size_t occurrences(const char *text, const char *what)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, what)) != NULL; p += strlen(what))
        n++;
    return n;
}

/* The value of the text sample whose series is exactly `series`. */
static inline double text_value(const text_expo *x, const char *series)
{
    for (size_t i = 0; i < x->n; i++)
        if (strcmp(x->s[i].series, series) == 0)
            return x->s[i].value;
    fail_msg("no series %s", series);
    return NAN;
}

/* The cumulative count of bucket le among the samples whose series
 * start with prefix ("name_bucket{labels,le=\""). */
static inline double text_bucket(const text_expo *x, const char *prefix, double le)
{
    size_t n = strlen(prefix);
    for (size_t i = 0; i < x->n; i++) {
        const char *s = x->s[i].series;
        if (strncmp(s, prefix, n) != 0)
            continue;
        char v[64];
        snprintf(v, sizeof v, "%.*s", (int)strcspn(s + n, "\""), s + n);
        if (text_number(v) == le)
            return x->s[i].value;
    }
    fail_msg("no bucket %s%g", prefix, le);
    return NAN;
}

/* m's native histogram is llmlat_agg_buckets(a, metric): the same schema,
 * zero bucket (a threshold of 0 written as the smallest normal double,
 * which Prometheus does not read as classic), buckets and count; an empty
 * one has a span of length 0. */
static inline void check_native(const pbd_metric *m, const llmlat_agg *a, int32_t metric)
{
    int32_t schema, offset;
    double zt;
    uint64_t zc, counts[4096];
    size_t n;
    assert_int_equal(llmlat_agg_buckets(a, metric, &schema, &zt, &zc, &offset, counts, 4096, &n),
                     LLMLAT_OK);
    assert_true(m->has_schema);
    assert_int_equal(m->schema, schema);
    assert_true(m->zt == (zt > 0.0 ? zt : DBL_MIN));
    assert_int_equal(m->zc, zc);
    uint64_t total = zc;
    for (size_t b = 0; b < n; b++) {
        assert_int_equal(pbd_bucket(m, offset + (int64_t)b, NULL), counts[b]);
        total += counts[b];
    }
    assert_int_equal(total, m->count);
    if (n == 0)
        assert_true(m->n_spans == 1 && m->span_length[0] == 0);
}

#endif
