#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "output.h"
#include "selection.h"

#define NS_PER_S 1e9

static int64_t seconds_ns(double s)
{
    return (int64_t)llround(s * NS_PER_S);
}

/* ns after the first start, as seconds with 3 decimals. */
static double since_first(const selection *sel, int64_t t)
{
    return (double)(t - sel->first) / NS_PER_S;
}

static uint64_t requests_of(const llmlat_agg *a)
{
    uint64_t ok = 0, failed = 0;
    llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &ok);
    llmlat_agg_counter(a, LLMLAT_COUNT_FAILED, &failed);
    return ok + failed;
}

int selection_window(const report_options *o, const llmlat_agg *all, llmlat_agg **out,
                     selection *sel)
{
    *out = NULL;
    memset(sel, 0, sizeof *sel);
    sel->requests = requests_of(all);
    int32_t st = llmlat_agg_span(all, &sel->first, &sel->last);
    if (st == LLMLAT_EUNDEFINED && sel->requests > 0) {
        fprintf(stderr, "%s: a window or slice needs each request's times, which this input "
                        "does not have for all of them (a file of per-request values)\n",
                o->prog);
        return EXIT_USAGE;
    }
    /* lo = first + max(FROM, warm-up), hi = min(first + TO, last - cool-down) */
    double from = o->has_window_from ? o->window_from_s : 0.0;
    sel->lo = sel->first + seconds_ns(from > o->warmup_s ? from : o->warmup_s);
    sel->hi = sel->last - seconds_ns(o->cooldown_s);
    if (o->has_window_to && sel->first + seconds_ns(o->window_to_s) < sel->hi)
        sel->hi = sel->first + seconds_ns(o->window_to_s);
    llmlat_agg *w = input_aggregator(o, o->mode);
    if (!w)
        return EXIT_RUNTIME;
    st = LLMLAT_OK;
    if (sel->requests > 0 && sel->lo <= sel->hi)
        st = llmlat_agg_add_window(w, all, sel->lo, sel->hi, LLMLAT_WINDOW_INSIDE);
    if (st != LLMLAT_OK) {
        fprintf(stderr, "%s: cannot take the window: %s\n", o->prog, llmlat_strerror(st));
        llmlat_agg_free(w);
        return st == LLMLAT_ENOMEM ? EXIT_RUNTIME : EXIT_USAGE;
    }
    sel->kept = requests_of(w);
    *out = w;
    return EXIT_OK;
}

void selection_text(const report_options *o, const selection *sel, char *out, size_t cap)
{
    int n = snprintf(out, cap, "requests wholly inside %.3f s .. %.3f s from the first start",
                     since_first(sel, sel->lo), since_first(sel, sel->hi));
    if (o->warmup_s > 0 || o->cooldown_s > 0) {
        n += snprintf(out + n, cap - (size_t)n, " (");
        if (o->warmup_s > 0)
            n += snprintf(out + n, cap - (size_t)n, "warm-up %g s drops by start%s",
                          o->warmup_s, o->cooldown_s > 0 ? "; " : "");
        if (o->cooldown_s > 0)
            n += snprintf(out + n, cap - (size_t)n, "cool-down %g s drops by end",
                          o->cooldown_s);
        n += snprintf(out + n, cap - (size_t)n, ")");
    }
    snprintf(out + n, cap - (size_t)n, ": %llu of %llu", (unsigned long long)sel->kept,
             (unsigned long long)sel->requests);
    for (char *c = out; *c; c++) /* '.' whatever the locale */
        if (*c == ',' && c[1] != ' ')
            *c = '.';
}

static void json_seconds(const char *key, double v)
{
    printf("\"%s\": ", key);
    stdout_double(v, "null");
}

void selection_json(const report_options *o, const selection *sel)
{
    printf(",\n  \"window\": {\"rule\": \"inside\", ");
    json_seconds("from_s", since_first(sel, sel->lo));
    printf(", ");
    json_seconds("to_s", since_first(sel, sel->hi));
    printf(", ");
    json_seconds("warmup_s", o->warmup_s);
    printf(", ");
    json_seconds("cooldown_s", o->cooldown_s);
    printf(", \"kept\": %llu, \"dropped\": %llu}", (unsigned long long)sel->kept,
           (unsigned long long)(sel->requests - sel->kept));
}

/* ------------------------------------------------------------- slices */

/* The main figures of a slice, NaN where undefined. */
enum { SL_COMPLETED, SL_FAILED, SL_DURATION, SL_REQ_RATE, SL_OUT_RATE, SL_TOTAL_RATE,
       SL_METRICS };
static const int32_t SLICE_METRICS[] = { LLMLAT_TTFT, LLMLAT_TPOT, LLMLAT_ITL, LLMLAT_E2E };
#define N_SLICE_METRICS 4
/* per metric: mean, median, p90, p99 */
#define N_SLICE_STATS 4

typedef struct slice_figures {
    double v[SL_METRICS + N_SLICE_METRICS * N_SLICE_STATS];
} slice_figures;

/* A rate, NaN when undefined. */
static double rate_of(const llmlat_agg *a, int32_t rate)
{
    double v;
    return llmlat_agg_rate(a, rate, &v) == LLMLAT_OK ? v : NAN;
}

static double stat_of(const llmlat_agg *a, int32_t metric, int32_t stat)
{
    double v;
    return llmlat_agg_stat(a, metric, stat, &v) == LLMLAT_OK ? v : NAN;
}

static void slice_figures_of(const llmlat_agg *a, slice_figures *f)
{
    uint64_t ok = 0, failed = 0;
    llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &ok);
    llmlat_agg_counter(a, LLMLAT_COUNT_FAILED, &failed);
    f->v[SL_COMPLETED] = (double)ok;
    f->v[SL_FAILED] = (double)failed;
    f->v[SL_REQ_RATE] = rate_of(a, LLMLAT_RATE_REQUESTS);
    f->v[SL_DURATION] = f->v[SL_REQ_RATE] > 0 ? (double)ok / f->v[SL_REQ_RATE] : NAN;
    f->v[SL_OUT_RATE] = rate_of(a, LLMLAT_RATE_OUTPUT_TOKENS);
    f->v[SL_TOTAL_RATE] = rate_of(a, LLMLAT_RATE_TOTAL_TOKENS);
    static const double Q[] = { 0.9, 0.99 };
    for (int m = 0; m < N_SLICE_METRICS; m++) {
        double *v = &f->v[SL_METRICS + m * N_SLICE_STATS], q[2];
        v[0] = stat_of(a, SLICE_METRICS[m], LLMLAT_STAT_MEAN);
        v[1] = stat_of(a, SLICE_METRICS[m], LLMLAT_STAT_MEDIAN);
        bool ok_q = llmlat_agg_quantiles(a, SLICE_METRICS[m], Q, 2, q) == LLMLAT_OK;
        v[2] = ok_q ? q[0] : NAN;
        v[3] = ok_q ? q[1] : NAN;
    }
}

static const char *const STAT_NAMES[N_SLICE_STATS] = { "mean", "median", "p90", "p99" };

static void csv_header(void)
{
    printf("slice,from_s,to_s,complete,completed,failed,duration_s,request_throughput,"
           "output_throughput,total_token_throughput");
    for (int m = 0; m < N_SLICE_METRICS; m++)
        for (int s = 0; s < N_SLICE_STATS; s++)
            printf(",%s_%s_s", STAT_NAMES[s], llmlat_metric_name(SLICE_METRICS[m]));
    printf("\n");
}

static void csv_row(size_t i, double from, double to, bool complete, const slice_figures *f)
{
    printf("%zu,", i);
    stdout_double(from, "");
    putchar(',');
    stdout_double(to, "");
    printf(",%s,%.0f,%.0f", complete ? "true" : "false", f->v[SL_COMPLETED], f->v[SL_FAILED]);
    for (size_t k = SL_DURATION; k < sizeof f->v / sizeof f->v[0]; k++) {
        if (k == SL_COMPLETED || k == SL_FAILED)
            continue;
        putchar(',');
        stdout_double(f->v[k], "");
    }
    printf("\n");
}

static void text_number(double v, int width, int decimals)
{
    if (isnan(v))
        printf("%*s", width, "-");
    else
        printf("%*.*f", width, decimals, v);
}

static void text_header(const report_options *o, const selection *sel, size_t n)
{
    printf("Slices: %zu of %g s from %.3f s after the first start (each with the requests that "
           "start in it; rates over its own requests' span)\n\n",
           n, o->slice_s, since_first(sel, sel->lo));
    printf("%5s %9s %9s %9s %7s %9s %10s %9s %9s %9s %9s %9s %9s %9s\n", "slice", "from_s",
           "to_s", "completed", "failed", "req/s", "out_tok/s", "TTFT", "TTFT p99", "TPOT",
           "ITL", "ITL p99", "E2E", "E2E p99");
}

static void text_row(size_t i, double from, double to, const slice_figures *f)
{
    printf("%5zu %9.3f %9.3f %9.0f %7.0f", i, from, to, f->v[SL_COMPLETED], f->v[SL_FAILED]);
    text_number(f->v[SL_REQ_RATE], 10, 2);
    text_number(f->v[SL_OUT_RATE], 11, 2);
    const double *m = &f->v[SL_METRICS];
    const double cols[] = { m[0], m[3], m[4], m[8], m[11], m[12], m[15] };
    for (size_t k = 0; k < sizeof cols / sizeof cols[0]; k++)
        text_number(cols[k] * 1e3, 10, 2);
    printf("\n");
}

/* One slice's JSON report, with its place and how the input was read. */
static int json_slice(const llmlat_agg *s, size_t i, double from, double to, bool complete,
                      const report_options *o, const selection *sel, const reading *g)
{
    stdout_sink sink = { .hold_tail = true };
    int32_t st = llmlat_agg_report_write(s, LLMLAT_FORMAT_JSON, stdout_write, &sink);
    if (st != LLMLAT_OK) {
        if (st != STDOUT_FAILED)
            fprintf(stderr, "%s: cannot make the report: %s\n", o->prog, llmlat_strerror(st));
        return EXIT_RUNTIME;
    }
    stdout_json_reopen(&sink);
    printf(",\n  \"slice\": {\"index\": %zu, ", i);
    json_seconds("from_s", from);
    printf(", ");
    json_seconds("to_s", to);
    printf(", \"complete\": %s}", complete ? "true" : "false");
    if (options_window(o))
        selection_json(o, sel);
    input_json_members("", g);
    printf("\n}");
    return EXIT_OK;
}

int slices_write(const report_options *o, const llmlat_agg *window, const selection *sel,
                 const reading *g)
{
    int64_t width = seconds_ns(o->slice_s), first, last;
    if (width <= 0)
        width = 1;
    size_t n = 0;
    if (llmlat_agg_span(window, &first, &last) == LLMLAT_OK) /* as AIPerf counts them */
        n = (size_t)((uint64_t)(last - sel->lo) / (uint64_t)width) + 1;
    if (o->format == FORMAT_SLICES_CSV)
        csv_header();
    else if (o->format == LLMLAT_FORMAT_TEXT) {
        input_heading(NULL, g);
        if (options_window(o)) {
            char text[512];
            selection_text(o, sel, text, sizeof text);
            printf("Window: %s\n", text);
        }
        text_header(o, sel, n);
    } else {
        printf("[");
    }
    int rc = EXIT_OK;
    for (size_t i = 0; i < n && rc == EXIT_OK; i++) {
        int64_t lo = sel->lo + (int64_t)i * width, hi = lo + width;
        bool complete = hi <= last;
        double from = since_first(sel, lo), to = since_first(sel, complete ? hi : last);
        llmlat_agg *s = input_aggregator(o, o->mode);
        if (!s)
            return EXIT_RUNTIME;
        int32_t st = llmlat_agg_add_window(s, window, lo, hi, LLMLAT_WINDOW_START);
        if (st != LLMLAT_OK) {
            fprintf(stderr, "%s: cannot take slice %zu: %s\n", o->prog, i, llmlat_strerror(st));
            llmlat_agg_free(s);
            return EXIT_RUNTIME;
        }
        slice_figures f;
        if (o->format == LLMLAT_FORMAT_JSON) {
            printf(i ? ",\n" : "\n");
            rc = json_slice(s, i, from, to, complete, o, sel, g);
        } else {
            slice_figures_of(s, &f);
            if (o->format == FORMAT_SLICES_CSV)
                csv_row(i, from, to, complete, &f);
            else
                text_row(i, from, to, &f);
        }
        llmlat_agg_free(s);
    }
    if (rc == EXIT_OK && o->format == LLMLAT_FORMAT_JSON)
        printf("\n]\n");
    if (rc == EXIT_OK && o->format == LLMLAT_FORMAT_TEXT)
        printf("\nTimes in ms (means, but for the p99 columns); ITL per token. The last slice "
               "ends at the last response.\n");
    return rc == EXIT_OK ? stdout_finish(o->prog) : rc;
}
