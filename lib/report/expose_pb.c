/* The protobuf encoding of the exposition: a stream of
 * io.prometheus.client.MetricFamily messages, each preceded by its length
 * as a varint (client_model's metrics.proto; content type
 * application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;
 * encoding=delimited). Histograms carry their classic buckets and, where
 * the aggregator has them, the native ones (schema, zero bucket, positive
 * spans and deltas), which Prometheus 2.x reads only from this format.
 *
 * A family is assembled in the encoder's message buffer, then its length
 * and bytes go to the output. */
#include <string.h>

#include "report/expose.h"
#include "report/pbwire.h"

/* metrics.proto's field numbers. */
enum {
    MF_NAME = 1, MF_HELP = 2, MF_TYPE = 3, MF_METRIC = 4,
    M_LABEL = 1, M_GAUGE = 2, M_COUNTER = 3, M_SUMMARY = 4, M_HISTOGRAM = 7,
    LP_NAME = 1, LP_VALUE = 2,
    VALUE = 1, /* of Gauge and Counter */
    S_COUNT = 1, S_SUM = 2, S_QUANTILE = 3, Q_QUANTILE = 1, Q_VALUE = 2,
    H_COUNT = 1, H_SUM = 2, H_BUCKET = 3, H_SCHEMA = 5, H_ZERO_THRESHOLD = 6,
    H_ZERO_COUNT = 7, H_POSITIVE_SPAN = 12, H_POSITIVE_DELTA = 13,
    B_CUMULATIVE = 1, B_UPPER_BOUND = 2,
    SPAN_OFFSET = 1, SPAN_LENGTH = 2,
};

/* MetricType */
static const uint64_t PB_TYPES[] = {
    [EXPOSE_COUNTER] = 0, [EXPOSE_GAUGE] = 1, [EXPOSE_SUMMARY] = 2, [EXPOSE_HISTOGRAM] = 4,
};

static void pb_family(expose_encoder *e, const expose_family *f)
{
    pbuf *b = &e->msg;
    b->len = 0;
    pb_string(b, MF_NAME, f->name);
    pb_string(b, MF_HELP, f->help);
    pb_uint(b, MF_TYPE, PB_TYPES[f->type]);
}

static void pb_label(pbuf *b, const char *name, const char *value)
{
    size_t at = pb_open(b, M_LABEL);
    pb_string(b, LP_NAME, name);
    pb_string(b, LP_VALUE, value);
    pb_close(b, at);
}

/* Inserts a label into name/value[0..n), kept in name order. */
static void pb_label_sorted(const char **name, const char **value, size_t n, const char *nm,
                            const char *v)
{
    size_t j = n;
    for (; j > 0 && strcmp(name[j - 1], nm) > 0; j--) {
        name[j] = name[j - 1];
        value[j] = value[j - 1];
    }
    name[j] = nm;
    value[j] = v;
}

/* The constant labels (under the scheme's names, which may change their
 * order) and llmlat's own, in name order, as client_golang writes them. */
static void pb_labels(pbuf *b, const expose_point *p)
{
    const char *name[LLMLAT_MAX_LABELS + EXPOSE_OWN_LABELS];
    const char *value[LLMLAT_MAX_LABELS + EXPOSE_OWN_LABELS];
    size_t n = 0;
    for (size_t i = 0; i < p->n_labels; i++, n++)
        pb_label_sorted(name, value, n, p->label_name[i], p->label_value[i]);
    for (size_t i = 0; i < p->n_own; i++, n++)
        pb_label_sorted(name, value, n, p->own_name[i], p->own_value[i]);
    for (size_t i = 0; i < n; i++)
        pb_label(b, name[i], value[i]);
}

/* Spans over the non-empty buckets, a gap of up to two empty buckets
 * kept inside a span (client_golang's rule). The set of non-empty
 * buckets only grows as samples are added, so no bucket ever leaves the
 * spans: Prometheus would read that as a counter reset. */
#define PB_GAP_IN_SPAN 2

/* The last bucket of the span that starts at the non-empty counts[j]. */
static size_t pb_span_last(const uint64_t *counts, size_t n, size_t j)
{
    size_t last = j;
    for (size_t k = j + 1; k < n && k - last <= PB_GAP_IN_SPAN + 1; k++)
        if (counts[k])
            last = k;
    return last;
}

static void pb_span(pbuf *b, int64_t offset, uint64_t length)
{
    size_t at = pb_open(b, H_POSITIVE_SPAN);
    pb_sint(b, SPAN_OFFSET, offset);
    pb_uint(b, SPAN_LENGTH, length);
    pb_close(b, at);
}

static void pb_native(pbuf *b, const expose_point *p)
{
    pb_sint(b, H_SCHEMA, p->schema);
    pb_double(b, H_ZERO_THRESHOLD, p->zero_threshold);
    pb_uint(b, H_ZERO_COUNT, p->zero_count);
    const uint64_t *c = p->counts;
    size_t n = p->n_counts;
    /* the spans: each offset counts from the end of the previous span */
    int64_t next = p->offset;
    size_t spans = 0;
    for (size_t j = 0; j < n; j++) {
        if (!c[j])
            continue;
        size_t last = pb_span_last(c, n, j);
        int64_t index = (int64_t)p->offset + (int64_t)j;
        pb_span(b, spans++ ? index - next : index, last - j + 1);
        next = (int64_t)p->offset + (int64_t)last + 1;
        j = last;
    }
    if (spans == 0) {
        /* No bucket yet: a span of length 0 says "native" to the
         * Prometheus versions that look for spans. */
        pb_span(b, 0, 0);
        return;
    }
    /* the deltas, bucket by bucket along the spans */
    size_t at = pb_open(b, H_POSITIVE_DELTA);
    int64_t prev = 0;
    for (size_t j = 0; j < n; j++) {
        if (!c[j])
            continue;
        size_t last = pb_span_last(c, n, j);
        for (; j <= last; j++) {
            pb_packed_sint(b, (int64_t)c[j] - prev);
            prev = (int64_t)c[j];
        }
        j = last;
    }
    pb_close(b, at);
}

static void pb_histogram(pbuf *b, const expose_point *p)
{
    size_t at = pb_open(b, M_HISTOGRAM);
    pb_uint(b, H_COUNT, p->count);
    pb_double(b, H_SUM, p->sum);
    for (size_t i = 0; i < p->n_le; i++) { /* +Inf is implicit: the count */
        size_t bucket = pb_open(b, H_BUCKET);
        pb_uint(b, B_CUMULATIVE, p->cum[i]);
        pb_double(b, B_UPPER_BOUND, p->le[i]);
        pb_close(b, bucket);
    }
    if (p->has_native)
        pb_native(b, p);
    pb_close(b, at);
}

static void pb_summary(pbuf *b, const expose_point *p)
{
    size_t at = pb_open(b, M_SUMMARY);
    pb_uint(b, S_COUNT, p->count);
    pb_double(b, S_SUM, p->sum);
    for (size_t i = 0; i < p->n_q; i++) {
        size_t q = pb_open(b, S_QUANTILE);
        pb_double(b, Q_QUANTILE, p->q[i]);
        pb_double(b, Q_VALUE, p->qv[i]);
        pb_close(b, q);
    }
    pb_close(b, at);
}

static void pb_point(expose_encoder *e, const expose_family *f, const expose_point *p)
{
    pbuf *b = &e->msg;
    size_t metric = pb_open(b, MF_METRIC);
    pb_labels(b, p);
    size_t at;
    switch (f->type) {
    case EXPOSE_COUNTER:
        at = pb_open(b, M_COUNTER);
        pb_double(b, VALUE, p->value);
        pb_close(b, at);
        break;
    case EXPOSE_GAUGE:
        at = pb_open(b, M_GAUGE);
        pb_double(b, VALUE, p->value);
        pb_close(b, at);
        break;
    case EXPOSE_SUMMARY:
        pb_summary(b, p);
        break;
    case EXPOSE_HISTOGRAM:
        pb_histogram(b, p);
        break;
    }
    pb_close(b, metric);
}

static void pb_family_end(expose_encoder *e, const expose_family *f)
{
    (void)f;
    if (e->msg.status == LLMLAT_OK)
        pbuf_emit(&e->msg, e->out);
}

static void pb_end(expose_encoder *e)
{
    (void)e;
}

LLMLAT_PRIVATE bool expose_pb_encoder(expose_encoder *e, int32_t format)
{
    if (format != LLMLAT_FORMAT_PROMETHEUS_PROTOBUF)
        return false;
    *e = (expose_encoder){
        .family = pb_family, .point = pb_point, .family_end = pb_family_end, .end = pb_end,
    };
    return true;
}
