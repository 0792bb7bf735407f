#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/svg.h"

#define SVG_WIDTH 520
#define SVG_HEIGHT 300
#define SVG_LEFT 64
#define SVG_RIGHT 16
#define SVG_TOP 44
#define SVG_BOTTOM 48
#define SVG_MAX_TICKS 12

LLMLAT_PRIVATE void rbuf_html_escaped(rbuf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': rbuf_puts(b, "&amp;"); break;
        case '<': rbuf_puts(b, "&lt;"); break;
        case '>': rbuf_puts(b, "&gt;"); break;
        case '"': rbuf_puts(b, "&quot;"); break;
        case '\'': rbuf_puts(b, "&#39;"); break;
        default: rbuf_putn(b, s, 1);
        }
    }
}

/* A coordinate, 0.1 px. */
static void svg_num(rbuf *b, double v)
{
    rbuf_fixed(b, v, 1, 0, "0");
}

static double svg_frac(const svg_axis *a, double v)
{
    double f = a->log ? (log10(v) - log10(a->lo)) / (log10(a->hi) - log10(a->lo))
                      : (v - a->lo) / (a->hi - a->lo);
    if (!(f >= 0.0))
        return 0.0; /* below, NaN, or log of 0 */
    return f > 1.0 ? 1.0 : f;
}

LLMLAT_PRIVATE double svg_x(const svg_plot *p, double v)
{
    return p->left + svg_frac(&p->x, v) * p->width;
}

LLMLAT_PRIVATE double svg_y(const svg_plot *p, double v)
{
    return p->top + (1.0 - svg_frac(&p->y, v)) * p->height;
}

/* Ticks of a linear axis: multiples of the 1-2-5 step that gives at most
 * 6 of them; *decimals is what their labels need. */
static size_t svg_linear_ticks(const svg_axis *a, double *t, int *decimals)
{
    double span = (a->hi - a->lo) * a->scale, raw = span / 6.0;
    double e = floor(log10(raw)), base = pow(10.0, e), step = base;
    if (raw > 5 * base)
        step = 10 * base;
    else if (raw > 2 * base)
        step = 5 * base;
    else if (raw > base)
        step = 2 * base;
    if (step >= 10 * base)
        e += 1;
    *decimals = e < 0 ? (int)-e : 0;
    size_t n = 0;
    for (double k = ceil(a->lo * a->scale / step); n < SVG_MAX_TICKS; k++) {
        double v = k * step + 0.0; /* no -0 */
        if (v > a->hi * a->scale * (1 + 1e-12))
            break;
        t[n++] = v / a->scale;
    }
    return n;
}

/* Ticks of a log axis: the powers of ten inside it, and 2 and 5 times
 * them when it spans less than three decades. */
static size_t svg_log_ticks(const svg_axis *a, double *t, int *decimals)
{
    size_t n = 0;
    double lo = a->lo * a->scale, hi = a->hi * a->scale;
    if (!(lo > 0.0 && hi <= DBL_MAX)) /* then log10(lo) is finite: an int holds it */
        return 0;
    bool fine = log10(hi) - log10(lo) < 3.0;
    *decimals = -1; /* each tick its own */
    for (int e = (int)floor(log10(lo)); n < SVG_MAX_TICKS && pow(10.0, e) <= hi; e++) {
        static const double STEPS[] = { 1.0, 2.0, 5.0 };
        for (int s = 0; s < (fine ? 3 : 1) && n < SVG_MAX_TICKS; s++) {
            double v = STEPS[s] * pow(10.0, e);
            if (v < lo * (1 - 1e-9) || v > hi * (1 + 1e-9))
                continue;
            t[n++] = v / a->scale;
        }
    }
    return n;
}

static size_t svg_ticks(const svg_axis *a, double *t, int *decimals)
{
    if (!(a->hi > a->lo))
        return 0;
    return a->log ? svg_log_ticks(a, t, decimals) : svg_linear_ticks(a, t, decimals);
}

static void svg_line(rbuf *b, const char *cls, double x1, double y1, double x2, double y2)
{
    rbuf_puts(b, "<line class=\"");
    rbuf_puts(b, cls);
    rbuf_puts(b, "\" x1=\"");
    svg_num(b, x1);
    rbuf_puts(b, "\" y1=\"");
    svg_num(b, y1);
    rbuf_puts(b, "\" x2=\"");
    svg_num(b, x2);
    rbuf_puts(b, "\" y2=\"");
    svg_num(b, y2);
    rbuf_puts(b, "\"/>\n");
}

static void svg_text(rbuf *b, const char *cls, double x, double y, const char *anchor,
                     const char *text)
{
    rbuf_puts(b, "<text class=\"");
    rbuf_puts(b, cls);
    rbuf_puts(b, "\" x=\"");
    svg_num(b, x);
    rbuf_puts(b, "\" y=\"");
    svg_num(b, y);
    rbuf_puts(b, "\" text-anchor=\"");
    rbuf_puts(b, anchor);
    rbuf_puts(b, "\">");
    rbuf_html_escaped(b, text);
    rbuf_puts(b, "</text>\n");
}

/* A tick's label: decimals digits, or on a log axis (decimals < 0) as
 * many as the tick's own power of ten needs. */
static void svg_tick_label(double v, int decimals, char *out, size_t cap)
{
    if (decimals < 0) {
        double e = floor(log10(v) + 1e-9);
        decimals = e < 0 ? (int)-e : 0;
    }
    snprintf(out, cap, "%.*f", decimals, v);
    for (char *c = out; *c; c++) /* '.' whatever the locale */
        if (*c == ',')
            *c = '.';
}

static void svg_axes(svg_plot *p)
{
    rbuf *b = p->b;
    double t[SVG_MAX_TICKS];
    int dec;
    char label[64];
    double bottom = p->top + p->height, right = p->left + p->width;
    size_t n = svg_ticks(&p->x, t, &dec);
    for (size_t i = 0; i < n; i++) {
        double x = svg_x(p, t[i]);
        svg_line(b, "gridline", x, p->top, x, bottom);
        svg_tick_label(t[i] * p->x.scale, dec, label, sizeof label);
        svg_text(b, "tick", x, bottom + 16, "middle", label);
    }
    n = svg_ticks(&p->y, t, &dec);
    for (size_t i = 0; i < n; i++) {
        double y = svg_y(p, t[i]);
        svg_line(b, "gridline", p->left, y, right, y);
        svg_tick_label(t[i] * p->y.scale, dec, label, sizeof label);
        svg_text(b, "tick", p->left - 6, y + 4, "end", label);
    }
    svg_line(b, "axis", p->left, bottom, right, bottom);
    svg_line(b, "axis", p->left, p->top, p->left, bottom);
    svg_text(b, "axis-label", p->left + p->width / 2, bottom + 36, "middle", p->x.label);
    rbuf_puts(b, "<text class=\"axis-label\" transform=\"translate(16 ");
    svg_num(b, p->top + p->height / 2);
    rbuf_puts(b, ") rotate(-90)\" text-anchor=\"middle\">");
    rbuf_html_escaped(b, p->y.label);
    rbuf_puts(b, "</text>\n");
}

LLMLAT_PRIVATE void svg_begin(svg_plot *p, rbuf *b, const char *id, const char *title,
                              svg_axis x, svg_axis y)
{
    *p = (svg_plot){ .b = b, .x = x, .y = y, .left = SVG_LEFT, .top = SVG_TOP,
                     .width = SVG_WIDTH - SVG_LEFT - SVG_RIGHT,
                     .height = SVG_HEIGHT - SVG_TOP - SVG_BOTTOM };
    rbuf_puts(b, "<svg class=\"chart\" id=\"");
    rbuf_puts(b, id);
    rbuf_puts(b, "\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 520 300\" "
                 "role=\"img\" aria-label=\"");
    rbuf_html_escaped(b, title);
    rbuf_puts(b, "\">\n<title>");
    rbuf_html_escaped(b, title);
    rbuf_puts(b, "</title>\n");
    svg_text(b, "chart-title", SVG_LEFT, 20, "start", title);
    svg_axes(p);
}

LLMLAT_PRIVATE void svg_end(svg_plot *p)
{
    rbuf_puts(p->b, "</svg>\n");
}

static void svg_point(rbuf *b, double x, double y, bool first)
{
    if (!first)
        rbuf_puts(b, " ");
    svg_num(b, x);
    rbuf_puts(b, ",");
    svg_num(b, y);
}

LLMLAT_PRIVATE void svg_polyline(svg_plot *p, const char *cls, const double *x, const double *y,
                                 size_t n)
{
    rbuf *b = p->b;
    rbuf_puts(b, "<polyline class=\"");
    rbuf_puts(b, cls);
    rbuf_puts(b, "\" points=\"");
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (isnan(x[i]) || isnan(y[i]))
            continue;
        svg_point(b, svg_x(p, x[i]), svg_y(p, y[i]), first);
        first = false;
    }
    rbuf_puts(b, "\"/>\n");
}

LLMLAT_PRIVATE void svg_steps(svg_plot *p, const char *cls, const double *x, const double *y,
                              size_t n)
{
    rbuf *b = p->b;
    rbuf_puts(b, "<polyline class=\"");
    rbuf_puts(b, cls);
    rbuf_puts(b, "\" points=\"");
    for (size_t i = 0; i < n; i++) {
        double py = svg_y(p, y[i]);
        svg_point(b, svg_x(p, x[i]), py, i == 0);
        if (i + 1 < n)
            svg_point(b, svg_x(p, x[i + 1]), py, false);
    }
    rbuf_puts(b, "\"/>\n");
}

LLMLAT_PRIVATE void svg_marker(svg_plot *p, const char *cls, double x, const char *label, int row)
{
    rbuf *b = p->b;
    double px = svg_x(p, x);
    rbuf_puts(b, "<g class=\"marker ");
    rbuf_puts(b, cls);
    rbuf_puts(b, "\">\n");
    svg_line(b, "marker-line", px, p->top, px, p->top + p->height);
    bool right_half = px > p->left + p->width * 0.75;
    svg_text(b, "marker-label", right_half ? px - 3 : px + 3, p->top + 12 + 13 * row,
             right_half ? "end" : "start", label);
    rbuf_puts(b, "</g>\n");
}

LLMLAT_PRIVATE void svg_bars(svg_plot *p, const char *cls, const double *edge, const double *h,
                             size_t n)
{
    rbuf *b = p->b;
    double base = svg_y(p, p->y.lo);
    for (size_t i = 0; i < n; i++) {
        if (!(h[i] > 0.0))
            continue;
        double x0 = svg_x(p, edge[i]), x1 = svg_x(p, edge[i + 1]), top = svg_y(p, h[i]);
        rbuf_puts(b, "<rect class=\"");
        rbuf_puts(b, cls);
        rbuf_puts(b, "\" x=\"");
        svg_num(b, x0);
        rbuf_puts(b, "\" y=\"");
        svg_num(b, top);
        rbuf_puts(b, "\" width=\"");
        svg_num(b, x1 - x0 > 0.6 ? x1 - x0 - 0.3 : 0.3);
        rbuf_puts(b, "\" height=\"");
        svg_num(b, base - top);
        rbuf_puts(b, "\"/>\n");
    }
}

LLMLAT_PRIVATE void svg_note(svg_plot *p, const char *text)
{
    svg_text(p->b, "note", p->left + p->width, 34, "end", text);
}
