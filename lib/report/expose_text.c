/* The text encodings of the exposition: Prometheus text 0.0.4 and
 * OpenMetrics 1.0. They differ in four things only: OpenMetrics names a
 * counter family without its "_total" (the samples keep it), writes
 * # UNIT where the name ends in a unit, escapes '"' in HELP, and ends with
 * "# EOF". */
#include <string.h>

#include "report/expose.h"

/* The family's name in this dialect: OpenMetrics drops a counter's
 * "_total". */
static void text_family_name(const expose_encoder *e, const expose_family *f)
{
    size_t n = strlen(f->name);
    if (e->openmetrics && f->type == EXPOSE_COUNTER)
        n -= strlen("_total");
    rbuf_putn(e->out, f->name, n);
}

static void text_meta(expose_encoder *e, const expose_family *f, const char *what,
                      const char *text, bool escape)
{
    rbuf_puts(e->out, what);
    text_family_name(e, f);
    rbuf_puts(e->out, " ");
    if (escape)
        rbuf_escaped(e->out, text, e->openmetrics);
    else
        rbuf_puts(e->out, text);
    rbuf_puts(e->out, "\n");
}

static void text_family(expose_encoder *e, const expose_family *f)
{
    static const char *const TYPES[] = {
        [EXPOSE_COUNTER] = "counter", [EXPOSE_GAUGE] = "gauge",
        [EXPOSE_SUMMARY] = "summary", [EXPOSE_HISTOGRAM] = "histogram",
    };
    text_meta(e, f, "# HELP ", f->help, true);
    text_meta(e, f, "# TYPE ", TYPES[f->type], false);
    if (e->openmetrics && f->unit)
        text_meta(e, f, "# UNIT ", f->unit, false);
}

/* `{name="` before the first label, `,name="` before the others. */
static void text_label_start(rbuf *b, bool *first, const char *name)
{
    rbuf_puts(b, *first ? "{" : ",");
    *first = false;
    rbuf_puts(b, name);
    rbuf_puts(b, "=\"");
}

static void text_label(rbuf *b, bool *first, const char *name, const char *value)
{
    text_label_start(b, first, name);
    rbuf_escaped(b, value, true);
    rbuf_puts(b, "\"");
}

/* "<name><suffix>{labels} ": the aggregator's constant labels, then
 * llmlat's own (info's, a family's own, then `extra` = "le" / "quantile"
 * with the number `at` as text); no braces without a label. The value
 * follows. */
static void text_sample(expose_encoder *e, const expose_family *f, const char *suffix,
                        const expose_point *p, const char *extra, const char *at)
{
    rbuf *b = e->out;
    rbuf_puts(b, f->name);
    rbuf_puts(b, suffix);
    bool first = true;
    for (size_t i = 0; i < p->n_labels; i++)
        text_label(b, &first, p->label_name[i], p->label_value[i]);
    for (size_t i = 0; i < p->n_own; i++)
        text_label(b, &first, p->own_name[i], p->own_value[i]);
    if (extra) {
        text_label_start(b, &first, extra);
        rbuf_puts(b, at);
        rbuf_puts(b, "\"");
    }
    if (!first)
        rbuf_puts(b, "}");
    rbuf_puts(b, " ");
}

static void text_end_double(rbuf *b, double v)
{
    rbuf_double(b, v, "NaN");
    rbuf_puts(b, "\n");
}

static void text_end_u64(rbuf *b, uint64_t v)
{
    rbuf_u64(b, v);
    rbuf_puts(b, "\n");
}

/* The bounds' text, made again only when the point's bounds are not the
 * last point's. */
static void text_bounds(expose_encoder *e, const expose_point *p)
{
    if (e->le_of == p->le && e->n_le_of == p->n_le)
        return;
    for (size_t i = 0; i < p->n_le; i++)
        double_text(p->le[i], e->le_text[i]);
    strcpy(e->le_text[p->n_le], "+Inf");
    e->le_of = p->le;
    e->n_le_of = p->n_le;
}

static void text_point(expose_encoder *e, const expose_family *f, const expose_point *p)
{
    rbuf *b = e->out;
    switch (f->type) {
    case EXPOSE_COUNTER:
        text_sample(e, f, "", p, NULL, NULL);
        text_end_u64(b, p->count);
        return;
    case EXPOSE_GAUGE:
        text_sample(e, f, "", p, NULL, NULL);
        text_end_double(b, p->value);
        return;
    case EXPOSE_SUMMARY:
        for (size_t i = 0; i < p->n_q; i++) {
            char q[DOUBLE_TEXT_MAX];
            double_text(p->q[i], q);
            text_sample(e, f, "", p, "quantile", q);
            text_end_double(b, p->qv[i]);
        }
        break;
    case EXPOSE_HISTOGRAM:
        text_bounds(e, p);
        for (size_t i = 0; i <= p->n_le; i++) {
            text_sample(e, f, "_bucket", p, "le", e->le_text[i]);
            text_end_u64(b, i < p->n_le ? p->cum[i] : p->count);
        }
        break;
    }
    text_sample(e, f, "_sum", p, NULL, NULL);
    text_end_double(b, p->sum);
    text_sample(e, f, "_count", p, NULL, NULL);
    text_end_u64(b, p->count);
}

static void text_family_end(expose_encoder *e, const expose_family *f)
{
    (void)e;
    (void)f;
}

static void text_end(expose_encoder *e)
{
    if (e->openmetrics)
        rbuf_puts(e->out, "# EOF\n");
}

LLMLAT_PRIVATE bool expose_text_encoder(expose_encoder *e, int32_t format)
{
    if (format != LLMLAT_FORMAT_PROMETHEUS && format != LLMLAT_FORMAT_OPENMETRICS)
        return false;
    *e = (expose_encoder){
        .family = text_family, .point = text_point, .family_end = text_family_end,
        .end = text_end, .openmetrics = format == LLMLAT_FORMAT_OPENMETRICS,
        .n_le_of = SIZE_MAX, /* no bounds written yet */
    };
    return true;
}
