/* llmlat_compare_report: a comparison as a table a person reads (TEXT),
 * or as the object of docs/compare.md (JSON). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/compare.h"
#include "report/report.h"
#include "report/report_jsonw.h"
#include "report/report_words.h"

#define COMPARE_SCHEMA_VERSION 1
#define CMP_LABEL_WIDTH 34
#define CMP_NUMBER_WIDTH 12
#define CMP_DASH "-"

/* The metrics of the text table: what the convention's tool shows, each
 * store once (under AIPerf its ITL is TPOT, under the default ITL), then
 * those from the intended start where a run has them. */
static const int32_t CMP_TEXT_METRICS[] = {
    LLMLAT_TTFT, LLMLAT_TPOT, LLMLAT_ITL, LLMLAT_TOOL_ITL, LLMLAT_E2E,
    LLMLAT_DISPATCH_DELAY, LLMLAT_SCHEDULED_TTFT, LLMLAT_SCHEDULED_E2E,
};

/* A metric from the intended start that neither run has (no request had
 * one): its rows would be empty. */
static bool cmp_unscheduled(const llmlat_compare *c, int32_t m)
{
    if (!metric_from_schedule(m))
        return false;
    for (size_t f = 0; f < c->n_fig; f++)
        if (c->fig[f].metric == m && (!isnan(c->fig[f].v[LLMLAT_COMPARE_BASE]) ||
                                      !isnan(c->fig[f].v[LLMLAT_COMPARE_CAND])))
            return false;
    return true;
}

/* TOOL_ITL names the ITL or TPOT store (a row already), or its own. */
static bool cmp_shown_already(const llmlat_compare *c, int32_t m)
{
    if (m != LLMLAT_TOOL_ITL)
        return false;
    switch (c->conv->tool_itl) {
    case TOOL_ITL_IS_ITL:
    case TOOL_ITL_IS_TPOT:
        return true;
    case TOOL_ITL_IS_ICL:
    case TOOL_ITL_LLMPERF:
        return false;
    }
    return false;
}

/* Seconds as ms, tokens/s and tokens as they are. */
static double cmp_display_scale(const compare_figure *f)
{
    switch (f->metric) {
    case 0:
    case LLMLAT_TPS_USER:
    case LLMLAT_OUTPUT_TOKENS:
    case LLMLAT_INPUT_TOKENS:
        return 1.0;
    }
    return 1000.0;
}

static bool cmp_significant(const compare_figure *f)
{
    return f->v[LLMLAT_COMPARE_DIFF_LOW] > 0.0 || f->v[LLMLAT_COMPARE_DIFF_HIGH] < 0.0;
}

static void cmp_cell(rbuf *b, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = n; i < CMP_NUMBER_WIDTH; i++)
        rbuf_puts(b, " ");
    rbuf_puts(b, s);
}

static void cmp_text_header(rbuf *b, const llmlat_compare *c)
{
    const text_words *w = report_words(c->conv->id);
    rbuf_puts(b, "llmlat ");
    rbuf_puts(b, llmlat_version_string());
    rbuf_puts(b, " compare - convention: ");
    rbuf_puts(b, c->conv->name);
    rbuf_puts(b, " (");
    rbuf_puts(b, w->tool);
    rbuf_puts(b, ")\n");
    if (c->intervals) {
        char line[160];
        snprintf(line, sizeof line,
                 "intervals: %.0f%% percentile bootstrap of candidate - base, %u resamples of "
                 "each run's requests, seed %llu\n",
                 COMPARE_CONFIDENCE * 100, c->resamples, (unsigned long long)c->seed);
        rbuf_puts(b, line);
    } else if (c->resamples == 0) {
        rbuf_puts(b, "intervals: none (0 resamples)\n");
    } else {
        rbuf_puts(b, "intervals: none (a run keeps no requests to resample: bounded mode)\n");
    }
    rbuf_puts(b, "\n");
    rbuf_pad(b, "", CMP_LABEL_WIDTH);
    cmp_cell(b, "base");
    cmp_cell(b, "candidate");
    rbuf_puts(b, "\n");
    static const enum report_item ITEMS[] = { REPORT_ITEM_COMPLETED, REPORT_ITEM_FAILED,
                                              REPORT_ITEM_DURATION };
    for (size_t i = 0; i < 3; i++) {
        rbuf_pad(b, report_item_label(w, ITEMS[i]), CMP_LABEL_WIDTH);
        for (int s = 0; s < 2; s++) {
            const compare_side *sd = &c->side[s];
            if (ITEMS[i] == REPORT_ITEM_DURATION) {
                rbuf_fixed(b, sd->duration_s, 2, CMP_NUMBER_WIDTH, CMP_DASH);
            } else {
                char n[24];
                snprintf(n, sizeof n, "%llu",
                         (unsigned long long)(i == 0 ? sd->completed : sd->failed));
                cmp_cell(b, n);
            }
        }
        rbuf_puts(b, "\n");
    }
    rbuf_puts(b, "\n");
    rbuf_pad(b, "figure", CMP_LABEL_WIDTH);
    static const char *const TITLES[] = { "base", "candidate", "diff", "diff %", "low", "high" };
    for (size_t i = 0; i < 6; i++)
        cmp_cell(b, TITLES[i]);
    rbuf_puts(b, "\n");
}

static void cmp_text_figure(rbuf *b, const compare_figure *f)
{
    char label[COMPARE_NAME_MAX + 4];
    snprintf(label, sizeof label, "  %s", f->name);
    rbuf_pad(b, label, CMP_LABEL_WIDTH);
    double scale = cmp_display_scale(f);
    static const int32_t FIELDS[] = { LLMLAT_COMPARE_BASE, LLMLAT_COMPARE_CAND,
                                      LLMLAT_COMPARE_DIFF };
    for (size_t i = 0; i < 3; i++)
        rbuf_fixed(b, f->v[FIELDS[i]] * scale, 2, CMP_NUMBER_WIDTH, CMP_DASH);
    double rel = f->v[LLMLAT_COMPARE_REL_DIFF];
    char pct[40];
    if (isnan(rel))
        snprintf(pct, sizeof pct, CMP_DASH);
    else
        snprintf(pct, sizeof pct, "%+.2f%%", rel * 100);
    for (char *p = pct; *p; p++) /* '.' whatever the locale */
        if (*p == ',')
            *p = '.';
    cmp_cell(b, pct);
    rbuf_fixed(b, f->v[LLMLAT_COMPARE_DIFF_LOW] * scale, 2, CMP_NUMBER_WIDTH, CMP_DASH);
    rbuf_fixed(b, f->v[LLMLAT_COMPARE_DIFF_HIGH] * scale, 2, CMP_NUMBER_WIDTH, CMP_DASH);
    rbuf_puts(b, cmp_significant(f) ? "  *\n" : "\n");
}

static void cmp_text(const llmlat_compare *c, rbuf *b)
{
    const text_words *w = report_words(c->conv->id);
    cmp_text_header(b, c);
    for (size_t i = 0; i < sizeof CMP_TEXT_METRICS / sizeof CMP_TEXT_METRICS[0]; i++) {
        int32_t m = CMP_TEXT_METRICS[i];
        if (cmp_shown_already(c, m) || cmp_unscheduled(c, m))
            continue;
        rbuf_puts(b, report_metric_label(w, m));
        rbuf_puts(b, "\n");
        for (size_t f = 0; f < c->n_fig; f++)
            if (c->fig[f].metric == m)
                cmp_text_figure(b, &c->fig[f]);
    }
    static const enum report_item RATE_ITEMS[COMPARE_RATES] = {
        REPORT_ITEM_REQUEST_RATE, REPORT_ITEM_OUTPUT_RATE, REPORT_ITEM_TOTAL_RATE,
        REPORT_ITEM_GOODPUT };
    size_t r = 0;
    for (size_t f = 0; f < c->n_fig; f++) {
        const compare_figure *fig = &c->fig[f];
        if (fig->metric)
            continue;
        if (fig->rate == LLMLAT_RATE_GOODPUT && isnan(fig->v[LLMLAT_COMPARE_BASE]) &&
            isnan(fig->v[LLMLAT_COMPARE_CAND])) {
            r++;
            continue; /* no SLO */
        }
        rbuf_puts(b, report_item_label(w, RATE_ITEMS[r++]));
        rbuf_puts(b, "\n");
        cmp_text_figure(b, fig);
    }
    rbuf_puts(b, "\n");
    if (c->intervals)
        rbuf_puts(b, "* the interval excludes 0: a difference the resampling does not explain.\n");
    rbuf_puts(b, "Figure names are those of --fail-if; times in ms, diff % = diff / base.\n");
}

static const char *cmp_unit_of(const compare_figure *f)
{
    switch (f->metric) {
    case 0:
        return "1/s";
    case LLMLAT_TPS_USER:
        return "tokens/s";
    case LLMLAT_OUTPUT_TOKENS:
    case LLMLAT_INPUT_TOKENS:
        return "tokens";
    }
    return "s";
}

static void cmp_json_side(jsonw *w, const char *key, const compare_side *s)
{
    jw_object(w, key);
    jw_u64(w, "completed", s->completed);
    jw_u64(w, "failed", s->failed);
    jw_number(w, "duration_s", s->duration_s);
    jw_bool(w, "resampled", s->holds);
    jw_close(w);
}

static void cmp_json(const llmlat_compare *c, rbuf *b)
{
    jsonw w;
    jw_begin(&w, b);
    jw_u64(&w, "schema_version", COMPARE_SCHEMA_VERSION);
    jw_string(&w, "llmlat_version", llmlat_version_string());
    jw_string(&w, "convention", c->conv->name);
    jw_u64(&w, "resamples", c->intervals ? c->resamples : 0);
    jw_u64(&w, "seed", c->seed);
    jw_number(&w, "confidence", COMPARE_CONFIDENCE);
    cmp_json_side(&w, "base", &c->side[0]);
    cmp_json_side(&w, "candidate", &c->side[1]);
    jw_object(&w, "figures");
    static const struct {
        int32_t field;
        const char *key;
    } FIELDS[] = {
        { LLMLAT_COMPARE_BASE, "base" },
        { LLMLAT_COMPARE_CAND, "candidate" },
        { LLMLAT_COMPARE_DIFF, "diff" },
        { LLMLAT_COMPARE_REL_DIFF, "rel_diff" },
        { LLMLAT_COMPARE_DIFF_LOW, "diff_low" },
        { LLMLAT_COMPARE_DIFF_HIGH, "diff_high" },
        { LLMLAT_COMPARE_REL_LOW, "rel_diff_low" },
        { LLMLAT_COMPARE_REL_HIGH, "rel_diff_high" },
    };
    for (size_t i = 0; i < c->n_fig; i++) {
        const compare_figure *f = &c->fig[i];
        jw_object(&w, f->name);
        jw_string(&w, "unit", cmp_unit_of(f));
        for (size_t j = 0; j < sizeof FIELDS / sizeof FIELDS[0]; j++)
            jw_number(&w, FIELDS[j].key, f->v[FIELDS[j].field]);
        if (isnan(f->v[LLMLAT_COMPARE_DIFF_LOW]))
            jw_null(&w, "significant");
        else
            jw_bool(&w, "significant", cmp_significant(f));
        jw_close(&w);
    }
    jw_close(&w);
    jw_end(&w);
}

LLMLAT_API int32_t llmlat_compare_report(const llmlat_compare *c, int32_t format, void *buf,
                                         size_t cap, size_t *len)
{
    if (!c || !len || (!buf && cap > 0) ||
        (format != LLMLAT_FORMAT_TEXT && format != LLMLAT_FORMAT_JSON))
        return LLMLAT_EINVAL;
    report_collect k = { .al = &c->al, .limit = cap };
    rbuf b;
    rbuf_init(&b, report_collect_write, &k);
    if (format == LLMLAT_FORMAT_TEXT)
        cmp_text(c, &b);
    else
        cmp_json(c, &b);
    return report_collect_end(&k, rbuf_flush(&b), buf, cap, len);
}
