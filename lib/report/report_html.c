/* The HTML report: one self-contained page (no script, no font, nothing
 * fetched; charts are inline SVG drawn here, svg.c) that a person reads on
 * a laptop or prints: the summary and statistics in the convention's
 * words, the run's conditions (request counts, duration, failures, input
 * and output lengths), CDFs of TTFT, TPOT, ITL and E2E with P50, P90 and
 * P99 marked (and of the dispatch delay and scheduled E2E when requests
 * had an intended start, with a warning when the client fell behind its
 * schedule), a histogram of ITL on a log axis, and output tokens/s and
 * concurrency over time. Charts come from the aggregator's queries, so a
 * bounded one draws them from its buckets; it keeps no timeline, so the
 * run over time is left out (docs/report-formats.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exact/radix.h"
#include "report/report.h"
#include "report/report_hist.h"
#include "report/svg.h"

#define CDF_POINTS 201       /* quantiles 0, 0.005, ..., 1 */
#define ITL_BINS 48
#define LENGTH_BINS 30
#define TIME_BUCKETS_MAX 240 /* the run over time in at most this many buckets */

static const char HTML_STYLE[] =
    ":root{--fg:#1d2330;--muted:#5b6472;--line:#d9dde3}\n"
    "body{margin:0;color:var(--fg);background:#fff;font:14px/1.45 system-ui,-apple-system,"
    "'Segoe UI',Roboto,Helvetica,Arial,sans-serif}\n"
    "main{max-width:1180px;margin:0 auto;padding:20px 28px}\n"
    "h1{font-size:22px;margin:0 0 4px}\n"
    "h2{font-size:17px;margin:28px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}\n"
    "p.meta,p.note{color:var(--muted);margin:4px 0}\n"
    "table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:6px 0}\n"
    "th,td{padding:3px 10px;text-align:right;border-bottom:1px solid #eef0f3;white-space:nowrap}\n"
    "th{font-weight:600;background:#f6f7f9}\n"
    "th:first-child,td:first-child{text-align:left}\n"
    ".cols{display:grid;grid-template-columns:repeat(auto-fit,minmax(430px,1fr));gap:14px;"
    "align-items:start}\n"
    ".cols>table,.cols>div{justify-self:start}\n"
    ".scroll{overflow-x:auto}\n"
    "svg.chart{width:100%;height:auto;border:1px solid var(--line);border-radius:6px}\n"
    "svg text{font-family:inherit}\n"
    ".chart-title{font-size:14px;font-weight:600;fill:var(--fg)}\n"
    ".tick{font-size:11px;fill:var(--muted)}\n"
    ".axis-label{font-size:12px;fill:var(--fg)}\n"
    ".note{font-size:11px;fill:var(--muted)}\n"
    ".gridline{stroke:#eef0f3}\n"
    ".axis{stroke:#8a93a1}\n"
    ".cdf{fill:none;stroke:#2563eb;stroke-width:2}\n"
    ".bar{fill:#60a5fa}\n"
    ".tokens{fill:none;stroke:#7c3aed;stroke-width:1.5}\n"
    ".concurrency{fill:none;stroke:#0891b2;stroke-width:1.5}\n"
    ".marker-line{stroke-width:1.5;stroke-dasharray:5 3}\n"
    ".marker-label{font-size:11px;font-weight:600}\n"
    ".p50 .marker-line{stroke:#16a34a}.p50 .marker-label{fill:#15803d}\n"
    ".p90 .marker-line{stroke:#d97706}.p90 .marker-label{fill:#b45309}\n"
    ".p99 .marker-line{stroke:#dc2626}.p99 .marker-label{fill:#b91c1c}\n"
    ".empty{fill:var(--muted);font-size:13px}\n"
    ".warning{border:1px solid #dc2626;background:#fef2f2;color:#991b1b;border-radius:6px;"
    "padding:8px 12px;margin:12px 0}\n"
    "@media print{body{font-size:10pt}main{max-width:none;padding:0}"
    ".cols{grid-template-columns:1fr 1fr}section,svg.chart,table{break-inside:avoid}"
    "h2{break-after:avoid}}\n";

static bool html_is_time(int32_t metric)
{
    return metric != LLMLAT_TPS_USER && metric != LLMLAT_OUTPUT_TOKENS &&
           metric != LLMLAT_INPUT_TOKENS;
}

static void html_number(rbuf *b, double v, int decimals)
{
    rbuf_fixed(b, v, decimals, 0, "&ndash;");
}

static void html_td(rbuf *b, double v, int decimals)
{
    rbuf_puts(b, "<td>");
    html_number(b, v, decimals);
    rbuf_puts(b, "</td>");
}

static void html_head(report_ctx *c, const text_words *w)
{
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    rbuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<meta name=\"generator\" content=\"llmlat ");
    rbuf_puts(b, llmlat_version_string());
    rbuf_puts(b, "\">\n<title>llmlat report: ");
    rbuf_html_escaped(b, w->tool);
    rbuf_puts(b, "</title>\n<style>\n");
    rbuf_puts(b, HTML_STYLE);
    rbuf_puts(b, "</style>\n</head>\n<body>\n<main>\n<header>\n<h1>llmlat report</h1>\n"
                 "<p class=\"meta\">convention <b>");
    rbuf_html_escaped(b, a->conv->name);
    rbuf_puts(b, "</b> (");
    rbuf_html_escaped(b, w->tool);
    rbuf_puts(b, ") &middot; mode <b>");
    rbuf_puts(b, a->mode == LLMLAT_MODE_BOUNDED ? "bounded" : "exact");
    rbuf_puts(b, "</b> &middot; llmlat ");
    rbuf_puts(b, llmlat_version_string());
    rbuf_puts(b, "</p>\n");
    if (a->n_labels) {
        rbuf_puts(b, "<p class=\"meta labels\">");
        for (size_t i = 0; i < a->n_labels; i++) {
            rbuf_puts(b, i ? " &middot; " : "");
            rbuf_html_escaped(b, a->labels[i].name);
            rbuf_puts(b, " = <b>");
            rbuf_html_escaped(b, a->labels[i].value);
            rbuf_puts(b, "</b>");
        }
        rbuf_puts(b, "</p>\n");
    }
    rbuf_puts(b, "</header>\n");
}

/* The run's conditions: what was asked of the server, what came back. */
static void html_conditions(report_ctx *c, const text_words *w)
{
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    uint64_t added = a->completed + a->failed;
    rbuf_puts(b, "<div id=\"conditions\">\n<table class=\"conditions\">\n"
                 "<tr><th>Requests added</th><td>");
    rbuf_u64(b, added);
    rbuf_puts(b, "</td></tr>\n<tr><th>");
    rbuf_html_escaped(b, report_item_label(w, REPORT_ITEM_COMPLETED));
    rbuf_puts(b, "</th><td>");
    rbuf_u64(b, a->completed);
    rbuf_puts(b, "</td></tr>\n<tr><th>");
    rbuf_html_escaped(b, report_item_label(w, REPORT_ITEM_FAILED));
    rbuf_puts(b, "</th><td>");
    rbuf_u64(b, a->failed);
    rbuf_puts(b, added ? " (" : "");
    if (added) {
        html_number(b, 100.0 * (double)a->failed / (double)added, 1);
        rbuf_puts(b, "%)");
    }
    rbuf_puts(b, "</td></tr>\n<tr><th>");
    rbuf_html_escaped(b, report_item_label(w, REPORT_ITEM_DURATION));
    rbuf_puts(b, "</th>");
    html_td(b, report_duration(c), 2);
    rbuf_puts(b, "</tr>\n</table>\n<table class=\"lengths\">\n<tr><th>tokens per request"
                 "</th><th>mean</th><th>min</th><th>p50</th><th>p90</th><th>p99</th>"
                 "<th>max</th></tr>\n");
    static const struct {
        int32_t metric;
        const char *name;
    } LENGTHS[] = { { LLMLAT_INPUT_TOKENS, "input (prompt)" },
                    { LLMLAT_OUTPUT_TOKENS, "output (N)" } };
    for (int i = 0; i < 2; i++) {
        static const double Q[] = { 0.5, 0.9, 0.99 };
        metric_values v;
        report_metric(c, LENGTHS[i].metric, Q, 3, &v);
        rbuf_puts(b, "<tr><td>");
        rbuf_puts(b, LENGTHS[i].name);
        rbuf_puts(b, "</td>");
        html_td(b, v.mean, 1);
        html_td(b, v.min, 0);
        for (int k = 0; k < 3; k++)
            html_td(b, v.q[k], 1);
        html_td(b, v.max, 0);
        rbuf_puts(b, "</tr>\n");
    }
    rbuf_puts(b, "</table>\n<p class=\"note\">Lengths and latencies are those of successful "
                 "requests; a failed one is only counted.</p>\n</div>\n");
}

/* The summary lines and the statistics table, as the text report has
 * them. */
static void html_summary(report_ctx *c, const text_words *w)
{
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    rbuf_puts(b, "<section id=\"summary\">\n<h2>Summary</h2>\n<div class=\"cols\">\n"
                 "<table class=\"summary\">\n");
    for (int i = 0; i < REPORT_ITEM_COUNT; i++) {
        double v;
        bool count;
        uint64_t n;
        const char *why;
        if (!report_item_value(c, (enum report_item)i, &v, &count, &n, &why))
            continue;
        rbuf_puts(b, "<tr><th>");
        rbuf_html_escaped(b, report_item_label(w, (enum report_item)i));
        rbuf_puts(b, "</th>");
        if (why) {
            rbuf_puts(b, "<td class=\"na\">not available: ");
            rbuf_html_escaped(b, why);
            rbuf_puts(b, "</td>");
        } else if (count && !isnan(v)) {
            rbuf_puts(b, "<td>");
            rbuf_u64(b, n);
            rbuf_puts(b, "</td>");
        } else {
            html_td(b, v, count ? 0 : 2);
        }
        rbuf_puts(b, "</tr>\n");
    }
    rbuf_puts(b, "</table>\n");
    html_conditions(c, w);
    rbuf_puts(b, "</div>\n<div class=\"scroll\">\n<table class=\"stats\">\n<tr>"
                 "<th>metric</th><th>count</th><th>mean</th><th>median</th><th>std</th>"
                 "<th>min</th><th>max</th>");
    for (size_t i = 0; i < a->n_quantiles; i++) {
        if (report_quantile_repeats(a->quantiles, i))
            continue;
        char pct[PERCENT_TEXT_MAX];
        percent_text(a->quantiles[i], pct);
        rbuf_puts(b, "<th>p");
        rbuf_puts(b, pct);
        rbuf_puts(b, "</th>");
    }
    rbuf_puts(b, "</tr>\n");
    text_row rows[REPORT_ROWS_MAX];
    size_t n_rows = report_table_rows(c, w, rows);
    for (size_t r = 0; r < n_rows; r++) {
        metric_values v;
        report_metric(c, rows[r].metric, a->quantiles, a->n_quantiles, &v);
        double scale = html_is_time(rows[r].metric) ? 1000.0 : 1.0;
        rbuf_puts(b, "<tr><td>");
        rbuf_html_escaped(b, rows[r].label);
        rbuf_puts(b, "</td><td>");
        rbuf_u64(b, v.count);
        rbuf_puts(b, "</td>");
        const double stats[] = { v.mean, v.median, v.std, v.min, v.max };
        for (size_t i = 0; i < 5; i++)
            html_td(b, stats[i] * scale, 2);
        for (size_t i = 0; i < a->n_quantiles; i++)
            if (!report_quantile_repeats(a->quantiles, i))
                html_td(b, v.q[i] * scale, 2);
        rbuf_puts(b, "</tr>\n");
    }
    rbuf_puts(b, "</table>\n</div>\n<p class=\"note\">");
    rbuf_html_escaped(b, w->note);
    rbuf_puts(b, " Times in ms.</p>\n</section>\n");
}

/* Quantiles q[0..n) of a metric (any n), NaN when undefined. */
static void html_quantiles(report_ctx *c, int32_t metric, const double *q, size_t n,
                           double *out)
{
    for (size_t i = 0; i < n; i += MAX_QUANTILES) {
        size_t k = n - i < MAX_QUANTILES ? n - i : MAX_QUANTILES;
        int32_t st = llmlat_agg_quantiles(c->a, metric, q + i, k, out + i);
        if (st != LLMLAT_OK) {
            if (st != LLMLAT_EUNDEFINED)
                rbuf_fail(&c->out, st);
            for (size_t j = 0; j < k; j++)
                out[i + j] = NAN;
        }
    }
}

static void html_no_data(svg_plot *p, const char *why)
{
    rbuf *b = p->b;
    rbuf_puts(b, "<text class=\"empty\" x=\"");
    rbuf_fixed(b, p->left + p->width / 2, 1, 0, "0");
    rbuf_puts(b, "\" y=\"");
    rbuf_fixed(b, p->top + p->height / 2, 1, 0, "0");
    rbuf_puts(b, "\" text-anchor=\"middle\">");
    rbuf_html_escaped(b, why);
    rbuf_puts(b, "</text>\n");
}

/* The smallest sample above 0 of a metric (NaN when none). */
static double html_min_positive(const llmlat_agg *a, int32_t metric)
{
    const metric_store *s = agg_store(a, metric);
    double lo = NAN;
    if (s->mode == LLMLAT_MODE_EXACT) {
        for (size_t i = 0; i < s->exact.n; i++)
            if (s->exact.v[i] > 0.0 && !(s->exact.v[i] >= lo))
                lo = s->exact.v[i];
    } else if (s->sk.top != SKETCH_NO_TOP) {
        lo = s->sk.min > 0.0 ? s->sk.min : sketch_map_value(s->map, s->sk.low) / s->sk.unit;
    }
    return lo;
}

/* A log axis from lo to hi (0 < lo <= hi), widened to a decade at least. */
static void html_log_range(double lo, double hi, svg_axis *a)
{
    double e0 = log10(lo) - 0.02, e1 = log10(hi) + 0.02;
    if (e1 - e0 < 1.0) {
        double mid = (e0 + e1) / 2;
        e0 = mid - 0.5;
        e1 = mid + 0.5;
    }
    a->lo = pow(10.0, e0);
    a->hi = pow(10.0, e1);
}

/* The CDF of a metric from CDF_POINTS quantiles, its P50, P90 and P99
 * marked, on a log axis from the smallest sample above 0 to the largest
 * (a body and a tail decades apart both show; samples of 0 sit on the
 * left edge). */
static void html_cdf(report_ctx *c, const text_words *w, int32_t metric, const char *id)
{
    double q[CDF_POINTS], x[CDF_POINTS], y[CDF_POINTS];
    for (int i = 0; i < CDF_POINTS; i++)
        q[i] = y[i] = i / (double)(CDF_POINTS - 1);
    html_quantiles(c, metric, q, CDF_POINTS, x);
    static const double MARKS[] = { 0.5, 0.9, 0.99 };
    double m[3];
    html_quantiles(c, metric, MARKS, 3, m);
    double max = x[CDF_POINTS - 1], lo = html_min_positive(c->a, metric);
    char title[96];
    snprintf(title, sizeof title, "CDF of %s", report_metric_label(w, metric));
    svg_axis xa = { 1e-3, 1.0, true, 1000.0, report_metric_label(w, metric) };
    if (lo > 0.0 && max >= lo)
        html_log_range(lo, max, &xa);
    svg_axis ya = { 0.0, 1.0, false, 1.0, "fraction of samples" };
    svg_plot p;
    svg_begin(&p, &c->out, id, title, xa, ya);
    if (!(lo > 0.0)) {
        html_no_data(&p, isnan(max) ? "no samples" : "every sample is 0");
    } else {
        svg_polyline(&p, "cdf", x, y, CDF_POINTS);
        static const char *const NAMES[] = { "p50", "p90", "p99" };
        for (int i = 0; i < 3; i++) {
            char label[64];
            snprintf(label, sizeof label, "P%s %.2f ms", NAMES[i] + 1, m[i] * 1000.0);
            for (char *s = label; *s; s++)
                if (*s == ',')
                    *s = '.';
            svg_marker(&p, NAMES[i], m[i], label, i);
        }
    }
    svg_end(&p);
}

/* bins counts of a metric's samples in (edge[i], edge[i + 1]], as shares
 * in percent of all its samples; the weight at or below edge[0] in *below. */
static bool html_histogram(report_ctx *c, int32_t metric, const double *edge, size_t bins,
                           double *share, uint64_t *below)
{
    uint64_t cum[ITL_BINS + LENGTH_BINS + 2];
    int32_t st = hist_cumulative(c->a, metric, edge, bins + 1, cum);
    if (st != LLMLAT_OK) {
        rbuf_fail(&c->out, st);
        return false;
    }
    uint64_t total = cum[bins + 1];
    for (size_t i = 0; i < bins; i++)
        share[i] = total ? 100.0 * (double)(cum[i + 1] - cum[i]) / (double)total : 0.0;
    *below = cum[0];
    return total > 0;
}

static double html_max_of(const double *v, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        if (v[i] > m)
            m = v[i];
    return m;
}

/* ITL (per token) on a log axis: where the decode time goes. */
static void html_itl_histogram(report_ctx *c, const text_words *w)
{
    double lo = html_min_positive(c->a, LLMLAT_ITL), hi = NAN;
    double max;
    if (llmlat_agg_stat(c->a, LLMLAT_ITL, LLMLAT_STAT_MAX, &max) == LLMLAT_OK)
        hi = max;
    char title[96];
    snprintf(title, sizeof title, "Histogram of %s, log scale",
             report_metric_label(w, LLMLAT_ITL));
    svg_plot p;
    if (!(lo > 0.0 && hi >= lo)) {
        svg_axis xa = { 1e-3, 1.0, true, 1000.0, report_metric_label(w, LLMLAT_ITL) };
        svg_axis ya = { 0.0, 1.0, false, 1.0, "% of tokens" };
        svg_begin(&p, &c->out, "itl-histogram", title, xa, ya);
        html_no_data(&p, "no gap between tokens");
        svg_end(&p);
        return;
    }
    svg_axis xa = { 0, 0, true, 1000.0, report_metric_label(w, LLMLAT_ITL) };
    html_log_range(lo, hi, &xa);
    double e0 = log10(xa.lo), e1 = log10(xa.hi);
    double edge[ITL_BINS + 1], share[ITL_BINS];
    for (int i = 0; i <= ITL_BINS; i++)
        edge[i] = pow(10.0, e0 + (e1 - e0) * i / ITL_BINS);
    uint64_t zero = 0;
    html_histogram(c, LLMLAT_ITL, edge, ITL_BINS, share, &zero);
    double top = html_max_of(share, ITL_BINS);
    svg_axis ya = { 0.0, top > 0.0 ? top * 1.1 : 1.0, false, 1.0, "% of tokens" };
    svg_begin(&p, &c->out, "itl-histogram", title, xa, ya);
    svg_bars(&p, "bar", edge, share, ITL_BINS);
    if (zero) {
        char note[80];
        snprintf(note, sizeof note, "%llu zero gaps (a first chunk's extra tokens) not shown",
                 (unsigned long long)zero);
        svg_note(&p, note);
    }
    svg_end(&p);
}

/* A length distribution (INPUT_TOKENS, OUTPUT_TOKENS) in linear bins. */
static void html_lengths(report_ctx *c, int32_t metric, const char *id, const char *title)
{
    double max = NAN;
    llmlat_agg_stat(c->a, metric, LLMLAT_STAT_MAX, &max);
    double hi = max > 0.0 ? ceil(max * 1.02 + 1.0) : 1.0;
    double edge[LENGTH_BINS + 1], share[LENGTH_BINS];
    for (int i = 0; i <= LENGTH_BINS; i++)
        edge[i] = -0.5 + (hi + 0.5) * i / LENGTH_BINS;
    uint64_t below = 0;
    bool any = !isnan(max) && html_histogram(c, metric, edge, LENGTH_BINS, share, &below);
    double top = any ? html_max_of(share, LENGTH_BINS) : 1.0;
    svg_axis xa = { edge[0], edge[LENGTH_BINS], false, 1.0, "tokens" };
    svg_axis ya = { 0.0, top * 1.1, false, 1.0, "% of requests" };
    svg_plot p;
    svg_begin(&p, &c->out, id, title, xa, ya);
    if (any)
        svg_bars(&p, "bar", edge, share, LENGTH_BINS);
    else
        html_no_data(&p, "no successful request");
    svg_end(&p);
}

static void html_latency(report_ctx *c, const text_words *w)
{
    rbuf *b = &c->out;
    rbuf_puts(b, "<section id=\"latency\">\n<h2>Latency distributions</h2>\n<div class=\"cols\">\n");
    html_cdf(c, w, LLMLAT_TTFT, "cdf-ttft");
    html_cdf(c, w, LLMLAT_TPOT, "cdf-tpot");
    html_cdf(c, w, LLMLAT_ITL, "cdf-itl");
    html_cdf(c, w, LLMLAT_E2E, "cdf-e2e");
    if (report_has_schedule(c)) { /* how late requests left, and what users waited */
        html_cdf(c, w, LLMLAT_DISPATCH_DELAY, "cdf-dispatch-delay");
        html_cdf(c, w, LLMLAT_SCHEDULED_E2E, "cdf-scheduled-e2e");
    }
    html_itl_histogram(c, w);
    rbuf_puts(b, "</div>\n");
    if (c->a->mode == LLMLAT_MODE_BOUNDED)
        rbuf_puts(b, "<p class=\"note\">Bounded mode: the curves are drawn from its buckets; "
                     "every quantile is within the relative error of the exact one.</p>\n");
    rbuf_puts(b, "</section>\n");
}

/* ------------------------------------------------------ the run over time */

/* Output per second and concurrency in buckets of `width` seconds from the
 * earliest successful start (the peaks' origin): tokens[i] / width, and
 * conc[i] the most requests in flight during bucket i, by the sweep of
 * the peak concurrency ([start, start + E2E) of successes, departures
 * first). */
typedef struct html_timeline {
    size_t n;
    double width;       /* seconds */
    double *t, *tokens, *conc;
} html_timeline;

static int32_t html_timeline_make(const llmlat_agg *a, html_timeline *h)
{
    const timeline *tl = &a->tl;
    const llmlat_alloc *al = &a->al;
    int64_t origin = INT64_MAX, last = INT64_MIN;
    size_t n = 0;
    for (size_t i = 0; i < tl->n_rec; i++) {
        const success_record *r = &tl->rec[i];
        if (r->start_ns < origin)
            origin = r->start_ns;
        int64_t end = r->e2e_ns >= 0 ? success_end(r) : r->start_ns;
        if (end > last)
            last = end;
        n += r->e2e_ns >= 0;
    }
    for (size_t i = 0; i < tl->n_tok; i++)
        if (tl->tok_t[i] > last)
            last = tl->tok_t[i];
    double span = (double)span_from(origin, last) / 1e9;
    h->width = ceil(span / TIME_BUCKETS_MAX);
    if (h->width < 1.0)
        h->width = 1.0;
    int64_t w_ns = (int64_t)(h->width * 1e9);
    h->n = (size_t)(span_from(origin, last) / (uint64_t)w_ns) + 1;
    h->t = alloc_malloc(al, (h->n + 1) * sizeof *h->t);
    h->tokens = alloc_malloc(al, (h->n + 1) * sizeof *h->tokens);
    h->conc = alloc_malloc(al, (h->n + 1) * sizeof *h->conc);
    int64_t *starts = alloc_malloc(al, (n ? n : 1) * sizeof *starts);
    int64_t *ends = alloc_malloc(al, (n ? n : 1) * sizeof *ends);
    int32_t st = h->t && h->tokens && h->conc && starts && ends ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st == LLMLAT_OK) {
        for (size_t i = 0; i <= h->n; i++) {
            h->t[i] = (double)i * h->width;
            h->tokens[i] = h->conc[i] = 0.0;
        }
        for (size_t i = 0; i < tl->n_tok; i++)
            h->tokens[span_from(origin, tl->tok_t[i]) / (uint64_t)w_ns] += tl->tok_k[i];
        for (size_t i = 0; i < h->n; i++)
            h->tokens[i] /= h->width;
        size_t j = 0;
        for (size_t i = 0; i < tl->n_rec; i++) {
            const success_record *r = &tl->rec[i];
            if (r->e2e_ns < 0)
                continue;
            starts[j] = r->start_ns; /* times, not spans: spans can pass INT64_MAX */
            ends[j++] = success_end(r);
        }
        st = radix_sort(al, RADIX_INT64, starts, NULL, n);
        if (st == LLMLAT_OK)
            st = radix_sort(al, RADIX_INT64, ends, NULL, n);
    }
    if (st == LLMLAT_OK) {
        /* the sweep: each bucket gets the level it opens with and every
         * level reached inside it */
        double cur = 0.0;
        size_t i = 0, k = 0, bucket = 0;
        while (i < n) {
            bool leave = k < n && ends[k] <= starts[i];
            int64_t t = leave ? ends[k] : starts[i];
            size_t b = (size_t)(span_from(origin, t) / (uint64_t)w_ns);
            for (; bucket < b && bucket < h->n; bucket++)
                if (h->conc[bucket + 1] < cur)
                    h->conc[bucket + 1] = cur;
            cur += leave ? -1.0 : 1.0;
            if (leave)
                k++;
            else
                i++;
            if (b < h->n && h->conc[b] < cur)
                h->conc[b] = cur;
        }
    }
    alloc_free(al, starts);
    alloc_free(al, ends);
    return st;
}

static void html_timeline_free(const llmlat_agg *a, html_timeline *h)
{
    alloc_free(&a->al, h->t);
    alloc_free(&a->al, h->tokens);
    alloc_free(&a->al, h->conc);
}

static void html_over_time(report_ctx *c)
{
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    rbuf_puts(b, "<section id=\"over-time\">\n<h2>The run over time</h2>\n");
    if (a->mode == LLMLAT_MODE_BOUNDED || a->tl.n_rec == 0) {
        rbuf_puts(b, a->mode == LLMLAT_MODE_BOUNDED
                         ? "<p class=\"note\">Bounded mode keeps no timeline: output per "
                           "second and concurrency over time are not known.</p>\n"
                         : "<p class=\"note\">No successful request.</p>\n");
        rbuf_puts(b, "</section>\n");
        return;
    }
    html_timeline h = { 0 };
    int32_t st = html_timeline_make(a, &h);
    if (st != LLMLAT_OK) {
        rbuf_fail(b, st);
        html_timeline_free(a, &h);
        return;
    }
    bool chunks = a->conv->peak_counts_events;
    char title[96], xlabel[64];
    snprintf(title, sizeof title, "Output %s per second", chunks ? "chunks" : "tokens");
    if (h.width > 1.0)
        snprintf(xlabel, sizeof xlabel, "time since the first start (s; %.0f-s buckets)", h.width);
    else
        snprintf(xlabel, sizeof xlabel, "time since the first start (s)");
    rbuf_puts(b, "<div class=\"cols\">\n");
    svg_axis xa = { 0.0, h.t[h.n], false, 1.0, xlabel };
    double top = html_max_of(h.tokens, h.n);
    svg_axis ya = { 0.0, top > 0.0 ? top * 1.1 : 1.0, false, 1.0,
                    chunks ? "chunks/s" : "tokens/s" };
    svg_plot p;
    svg_begin(&p, b, "tokens-over-time", title, xa, ya);
    svg_steps(&p, "tokens", h.t, h.tokens, h.n + 1);
    svg_end(&p);
    top = html_max_of(h.conc, h.n);
    ya = (svg_axis){ 0.0, top > 0.0 ? top * 1.1 : 1.0, false, 1.0, "requests in flight" };
    svg_begin(&p, b, "concurrency-over-time", "Concurrency (most in flight per bucket)", xa, ya);
    svg_steps(&p, "concurrency", h.t, h.conc, h.n + 1);
    svg_end(&p);
    rbuf_puts(b, "</div>\n<p class=\"note\">Buckets start at the earliest successful start, as "
                 "the peaks do; a request is in flight from its start to the end of its E2E.</p>\n"
                 "</section>\n");
    html_timeline_free(a, &h);
}

LLMLAT_PRIVATE void report_html(report_ctx *c)
{
    const text_words *w = report_words(c->a->conv->id);
    html_head(c, w);
    report_schedule_warning(c, w, true,
                            "<p class=\"warning\" id=\"behind-schedule\"><b>Warning:</b> ",
                            " ", "</p>\n");
    html_summary(c, w);
    html_latency(c, w);
    rbuf_puts(&c->out, "<section id=\"lengths\">\n<h2>Input and output lengths</h2>\n"
                       "<div class=\"cols\">\n");
    html_lengths(c, LLMLAT_INPUT_TOKENS, "input-lengths", "Input length (prompt tokens)");
    html_lengths(c, LLMLAT_OUTPUT_TOKENS, "output-lengths", "Output length (N tokens)");
    rbuf_puts(&c->out, "</div>\n</section>\n");
    html_over_time(c);
    rbuf_puts(&c->out, "<footer>\n<p class=\"note\">Made by llmlat ");
    rbuf_puts(&c->out, llmlat_version_string());
    rbuf_puts(&c->out, ": definitions of every figure in its docs/metrics.md.</p>\n</footer>\n"
                       "</main>\n</body>\n</html>\n");
}
