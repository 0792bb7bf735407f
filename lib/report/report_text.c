/* The TEXT report: a summary block and a table of statistics in ms,
 * labelled in the words of the convention's tool (its "ITL" row shows what
 * that tool calls ITL). Undefined values print as "-". */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report.h"
#include "report/report_words.h"

#define NUMBER_WIDTH 11
#define DASH "-"

/* "Label:" padded to the value column, as vLLM prints its summary. */
static void item_start(rbuf *b, const text_words *words, enum report_item i)
{
    char label[64];
    snprintf(label, sizeof label, "%s:", report_item_label(words, i));
    rbuf_pad(b, label, 41);
}

#define NOT_AVAILABLE "not available: "

static void text_summary(report_ctx *c, const text_words *w)
{
    for (int i = 0; i < REPORT_ITEM_COUNT; i++) {
        double v;
        bool count;
        uint64_t n;
        const char *why;
        if (!report_item_value(c, (enum report_item)i, &v, &count, &n, &why))
            continue;
        item_start(&c->out, w, (enum report_item)i);
        if (why) { /* "not available: <reason>" in place of the value */
            rbuf_puts(&c->out, NOT_AVAILABLE);
            rbuf_puts(&c->out, why);
        } else if (isnan(v)) {
            rbuf_puts(&c->out, DASH);
        } else if (count) {
            rbuf_u64(&c->out, n);
        } else {
            rbuf_fixed(&c->out, v, 2, 0, DASH);
        }
        rbuf_puts(&c->out, "\n");
    }
}

static size_t label_width(const text_row *rows, size_t n)
{
    size_t width = strlen("metric");
    for (size_t i = 0; i < n; i++)
        if (strlen(rows[i].label) > width)
            width = strlen(rows[i].label);
    return width;
}

static void column_title(rbuf *b, const char *title)
{
    size_t n = strlen(title);
    for (size_t i = n; i < NUMBER_WIDTH; i++)
        rbuf_puts(b, " ");
    rbuf_puts(b, title);
}

static void table_header(report_ctx *c, size_t width)
{
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    rbuf_pad(b, "metric", width);
    static const char *const TITLES[] = { "count", "mean", "median", "std", "min", "max" };
    for (size_t i = 0; i < sizeof TITLES / sizeof TITLES[0]; i++)
        column_title(b, TITLES[i]);
    for (size_t i = 0; i < a->n_quantiles; i++) {
        if (report_quantile_repeats(a->quantiles, i))
            continue;
        char pct[PERCENT_TEXT_MAX], title[PERCENT_TEXT_MAX + 1];
        percent_text(a->quantiles[i], pct);
        snprintf(title, sizeof title, "p%s", pct);
        column_title(b, title);
    }
    rbuf_puts(b, "\n");
}

static void table_row(report_ctx *c, const text_row *row, size_t width)
{
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    rbuf_pad(b, row->label, width);
    const char *why = report_unavailable(c, LLMLAT_KIND_METRIC, row->metric);
    if (why) {
        rbuf_puts(b, "  " NOT_AVAILABLE);
        rbuf_puts(b, why);
        rbuf_puts(b, "\n");
        return;
    }
    metric_values v;
    report_metric(c, row->metric, a->quantiles, a->n_quantiles, &v);
    double scale = row->metric == LLMLAT_TPS_USER ? 1.0 : 1000.0; /* s -> ms */
    char count[24];
    snprintf(count, sizeof count, "%llu", (unsigned long long)v.count);
    column_title(b, count);
    const double stats[] = { v.mean, v.median, v.std, v.min, v.max };
    for (size_t i = 0; i < sizeof stats / sizeof stats[0]; i++)
        rbuf_fixed(b, stats[i] * scale, 2, NUMBER_WIDTH, DASH);
    for (size_t i = 0; i < a->n_quantiles; i++) {
        if (report_quantile_repeats(a->quantiles, i))
            continue;
        rbuf_fixed(b, v.q[i] * scale, 2, NUMBER_WIDTH, DASH);
    }
    rbuf_puts(b, "\n");
}

LLMLAT_PRIVATE void report_text(report_ctx *c)
{
    const llmlat_agg *a = c->a;
    const text_words *w = report_words(a->conv->id);
    rbuf *b = &c->out;
    rbuf_puts(b, "llmlat ");
    rbuf_puts(b, llmlat_version_string());
    rbuf_puts(b, " report - convention: ");
    rbuf_puts(b, a->conv->name);
    rbuf_puts(b, " (");
    rbuf_puts(b, w->tool);
    rbuf_puts(b, "), mode: ");
    rbuf_puts(b, a->mode == LLMLAT_MODE_BOUNDED ? "bounded" : "exact");
    rbuf_puts(b, "\n");
    for (size_t i = 0; i < a->n_labels; i++) { /* as the exposition writes them */
        rbuf_puts(b, i == 0 ? "labels: " : ", ");
        rbuf_puts(b, a->labels[i].name);
        rbuf_puts(b, "=\"");
        rbuf_escaped(b, a->labels[i].value, true);
        rbuf_puts(b, "\"");
    }
    rbuf_puts(b, a->n_labels ? "\n\n" : "\n");
    /* where a person looks first */
    report_schedule_warning(c, w, false, "WARNING: ", "\n         ", "\n\n");
    text_summary(c, w);
    rbuf_puts(b, "\n");
    text_row rows[REPORT_ROWS_MAX];
    size_t n = report_table_rows(c, w, rows);
    size_t width = label_width(rows, n) + 2;
    table_header(c, width);
    for (size_t i = 0; i < n; i++)
        table_row(c, &rows[i], width);
    rbuf_puts(b, "\n");
    rbuf_puts(b, w->note);
    rbuf_puts(b, "\n");
}
