/* Charts as inline SVG, drawn by the HTML report (report_html.c): a plot
 * area with linear or logarithmic axes, "nice" ticks (1, 2, 5 times a
 * power of ten; decades on a log axis), and the marks the report uses:
 * polylines, vertical markers with a label, bars. Every element carries a
 * class naming what it is (the stylesheet colours them, the tests count
 * them). Coordinates are written with 0.1 px precision. */
#ifndef LLMLAT_SVG_H
#define LLMLAT_SVG_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report_buf.h"

typedef struct svg_axis {
    double lo, hi;   /* data range (lo < hi; > 0 on a log axis) */
    bool log;
    double scale;    /* tick labels show value * scale (1000: s as ms) */
    const char *label;
} svg_axis;

typedef struct svg_plot {
    rbuf *b;
    svg_axis x, y;
    double left, top, width, height; /* the plot area, px */
} svg_plot;

/* Opens <svg class="chart" id="ID"> of the standard size with its title
 * and the plot area, axes, grid, ticks and axis labels. */
LLMLAT_PRIVATE void svg_begin(svg_plot *p, rbuf *b, const char *id, const char *title,
                              svg_axis x, svg_axis y);
LLMLAT_PRIVATE void svg_end(svg_plot *p);

/* Data to px (values outside the range are clamped to the plot area). */
LLMLAT_PRIVATE double svg_x(const svg_plot *p, double v);
LLMLAT_PRIVATE double svg_y(const svg_plot *p, double v);

/* The points (x[i], y[i]) joined, NaN points skipped. */
LLMLAT_PRIVATE void svg_polyline(svg_plot *p, const char *cls, const double *x, const double *y,
                                 size_t n);
/* The points joined as a step function: y[i] holds from x[i] to x[i+1]. */
LLMLAT_PRIVATE void svg_steps(svg_plot *p, const char *cls, const double *x, const double *y,
                              size_t n);
/* A vertical line at x across the plot, labelled at the top (row 0, 1, 2
 * stagger labels that would overlap). */
LLMLAT_PRIVATE void svg_marker(svg_plot *p, const char *cls, double x, const char *label,
                               int row);
/* Bars: bar i spans [edge[i], edge[i+1]] up to h[i]. */
LLMLAT_PRIVATE void svg_bars(svg_plot *p, const char *cls, const double *edge, const double *h,
                             size_t n);
/* A note under the title, at the right. */
LLMLAT_PRIVATE void svg_note(svg_plot *p, const char *text);

/* Text with &, <, >, " and ' escaped, for HTML and SVG alike. */
LLMLAT_PRIVATE void rbuf_html_escaped(rbuf *b, const char *s);

#endif
