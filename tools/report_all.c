/* `llmlat report --convention all`: one reading of the input, seven
 * aggregators (one per convention) fed the same requests, and their
 * headline figures side by side, each row saying in a few words why the
 * tools differ there: DESIGN's "compare only when definitions align" as
 * one command. Only the public API (llmlat_agg_stat, _quantile, _rate,
 * _counter, _unavailable); text, JSON (docs/report-json.md, "--convention
 * all") or one HTML page. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "input.h"
#include "llmlat.h"
#include "report_all.h"

#define N_CONV (LLMLAT_CONV_INFERENCE_PERF + 1)

enum row_kind { ROW_STAT, ROW_QUANTILE, ROW_RATE, ROW_COUNTER, ROW_DURATION };
enum row_unit { UNIT_TIME, UNIT_COUNT, UNIT_RATE };

/* A figure: what it is, and why the tools differ there. */
typedef struct all_row {
    const char *key;   /* JSON */
    const char *label; /* text and HTML; times in ms */
    enum row_kind kind;
    enum row_unit unit;
    int32_t id;        /* metric, rate or counter */
    int32_t stat;      /* ROW_STAT */
    double q;          /* ROW_QUANTILE */
    const char *why;
} all_row;

static const all_row ROWS[] = {
    { "completed", "Successful requests", ROW_COUNTER, UNIT_COUNT, LLMLAT_COUNT_COMPLETED, 0, 0,
      "a success: any chunk (vLLM), a chunk with content (AIPerf), content or a usage "
      "count (GuideLLM), a normal finish (the others)" },
    { "failed", "Failed requests", ROW_COUNTER, UNIT_COUNT, LLMLAT_COUNT_FAILED, 0, 0,
      "every request that is not a success, cancelled ones included" },
    { "duration_s", "Duration (s)", ROW_DURATION, UNIT_RATE, LLMLAT_RATE_REQUESTS, 0, 0,
      "first start to last response; AIPerf: its successes only; GuideLLM, inference-perf: "
      "to the last end, failures included; a file's or --duration when given" },
    { "request_throughput", "Requests/s", ROW_RATE, UNIT_RATE, LLMLAT_RATE_REQUESTS, 0, 0,
      "successes over each one's duration" },
    { "output_throughput", "Output tokens/s", ROW_RATE, UNIT_RATE, LLMLAT_RATE_OUTPUT_TOKENS, 0,
      0, "N over the duration; GuideLLM: over the span of its token points" },
    { "total_token_throughput", "Total tokens/s", ROW_RATE, UNIT_RATE,
      LLMLAT_RATE_TOTAL_TOKENS, 0, 0, "prompt and output tokens over the duration" },
    { "request_goodput", "Goodput (req/s)", ROW_RATE, UNIT_RATE, LLMLAT_RATE_GOODPUT, 0, 0,
      "a request without TPOT meets vLLM's TPOT SLO, fails AIPerf's and inference-perf's" },
    { "output_tokens", "Output tokens", ROW_COUNTER, UNIT_COUNT, LLMLAT_COUNT_OUTPUT_TOKENS, 0,
      0, "N: the usage count, else the chunks' tokens; inference-perf: the client's count" },
    { "ttft_mean", "TTFT mean (ms)", ROW_STAT, UNIT_TIME, LLMLAT_TTFT, LLMLAT_STAT_MEAN, 0,
      "to the first chunk (vLLM, even empty) or the first with content; 0 without content "
      "(SGLang, LLMPerf, GuideLLM); two tokens needed (inference-perf)" },
    { "ttft_p99", "TTFT p99 (ms)", ROW_QUANTILE, UNIT_TIME, LLMLAT_TTFT, 0, 0.99,
      "numpy's linear interpolation; GuideLLM: the inverse CDF, no interpolation" },
    { "ttft_std", "TTFT std (ms)", ROW_STAT, UNIT_TIME, LLMLAT_TTFT, LLMLAT_STAT_STD, 0,
      "ddof 1 under LLMPerf (pandas), 0 elsewhere; inference-perf reports none" },
    { "tpot_mean", "TPOT mean (ms)", ROW_STAT, UNIT_TIME, LLMLAT_TPOT, LLMLAT_STAT_MEAN, 0,
      "(E2E - TTFT) / (N - 1), request-weighted; E2E to the end of the stream (SGLang, "
      "LLMPerf); first to last token (GuideLLM, weighted by N - 1; inference-perf)" },
    { "tool_itl_mean", "\"ITL\" mean (ms)", ROW_STAT, UNIT_TIME, LLMLAT_TOOL_ITL,
      LLMLAT_STAT_MEAN, 0,
      "each tool's own: per token (default; inference-perf, 0 inside a chunk), per chunk "
      "(vLLM, SGLang), per request = TPOT (AIPerf, GuideLLM), TTFT included (LLMPerf)" },
    { "tool_itl_p99", "\"ITL\" p99 (ms)", ROW_QUANTILE, UNIT_TIME, LLMLAT_TOOL_ITL, 0, 0.99,
      "token-weighted, chunk-weighted or request-weighted, as above" },
    { "icl_mean", "Chunk gap mean (ms)", ROW_STAT, UNIT_TIME, LLMLAT_ICL, LLMLAT_STAT_MEAN, 0,
      "gaps between chunks: vLLM counts empty chunks, the others skip them; AIPerf drops a "
      "request's gaps when one is 0" },
    { "e2e_mean", "E2E mean (ms)", ROW_STAT, UNIT_TIME, LLMLAT_E2E, LLMLAT_STAT_MEAN, 0,
      "to the last chunk (default, vLLM, AIPerf) or the end of the stream (SGLang, LLMPerf, "
      "GuideLLM, inference-perf)" },
    { "e2e_p99", "E2E p99 (ms)", ROW_QUANTILE, UNIT_TIME, LLMLAT_E2E, 0, 0.99,
      "as above; GuideLLM: the inverse CDF" },
    { "ntpot_mean", "E2E / N mean (ms)", ROW_STAT, UNIT_TIME, LLMLAT_NTPOT, LLMLAT_STAT_MEAN, 0,
      "inference-perf's NTPOT; GuideLLM's time per output token, to the last token, "
      "weighted by N" },
    { "tps_user_mean", "Tokens/s per user", ROW_STAT, UNIT_RATE, LLMLAT_TPS_USER,
      LLMLAT_STAT_MEAN, 0, "N / E2E; AIPerf: 1 / its ITL (our TPOT); LLMPerf: as its file has it" },
    { "max_concurrent_requests", "Peak concurrency", ROW_COUNTER, UNIT_COUNT,
      LLMLAT_COUNT_PEAK_CONCURRENCY, 0, 0, "over [start, start + E2E): where E2E ends differs" },
    { "max_output_tokens_per_s", "Peak output tokens/s", ROW_RATE, UNIT_RATE,
      LLMLAT_RATE_PEAK_OUTPUT_TOKENS, 0, 0, "1-second buckets: vLLM counts chunks, the others "
                                            "tokens" },
};
#define N_ROWS (sizeof ROWS / sizeof ROWS[0])

/* One figure under one convention: a value (or a count), or why not. */
typedef struct cell {
    bool defined;
    bool is_count;
    double v;       /* seconds for times */
    uint64_t n;
    const char *why; /* NULL: defined, or no value (an empty set) */
} cell;

static int32_t kind_of(const all_row *r)
{
    switch (r->kind) {
    case ROW_RATE:
    case ROW_DURATION: return LLMLAT_KIND_RATE;
    case ROW_COUNTER: return LLMLAT_KIND_COUNTER;
    default: return LLMLAT_KIND_METRIC;
    }
}

static cell cell_of(const llmlat_agg *a, const all_row *r)
{
    cell c = { .is_count = r->kind == ROW_COUNTER };
    if (llmlat_agg_unavailable(a, kind_of(r), r->id, &c.why) != LLMLAT_OK)
        return c;
    int32_t st = LLMLAT_EUNDEFINED;
    switch (r->kind) {
    case ROW_STAT: st = llmlat_agg_stat(a, r->id, r->stat, &c.v); break;
    case ROW_QUANTILE: st = llmlat_agg_quantile(a, r->id, r->q, &c.v); break;
    case ROW_RATE: st = llmlat_agg_rate(a, r->id, &c.v); break;
    case ROW_COUNTER: st = llmlat_agg_counter(a, r->id, &c.n); break;
    case ROW_DURATION: { /* completed / requests per second */
        uint64_t done;
        double rate;
        st = llmlat_agg_rate(a, LLMLAT_RATE_REQUESTS, &rate);
        if (st == LLMLAT_OK && llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &done) ==
                                   LLMLAT_OK && done > 0 && rate > 0)
            c.v = (double)done / rate;
        else
            st = LLMLAT_EUNDEFINED;
        break;
    }
    }
    c.defined = st == LLMLAT_OK && (c.is_count || isfinite(c.v));
    int32_t mode = LLMLAT_MODE_EXACT;
    llmlat_agg_get_mode(a, &mode);
    bool peak = (r->kind == ROW_RATE && r->id == LLMLAT_RATE_PEAK_OUTPUT_TOKENS) ||
                (r->kind == ROW_COUNTER && r->id == LLMLAT_COUNT_PEAK_CONCURRENCY);
    if (!c.defined && peak && mode == LLMLAT_MODE_BOUNDED)
        c.why = "bounded mode keeps no request times (--mode exact)";
    return c;
}

/* ------------------------------------------------------------------ text */

static void text_value(const all_row *r, const cell *c, char *out, size_t cap)
{
    if (!c->defined)
        snprintf(out, cap, "%s", c->why ? "n/a" : "-");
    else if (c->is_count)
        snprintf(out, cap, "%llu", (unsigned long long)c->n);
    else if (r->unit == UNIT_TIME)
        snprintf(out, cap, "%.2f", c->v * 1e3);
    else
        snprintf(out, cap, "%.2f", c->v);
}

static bool row_shown(const report_options *o, const all_row *r)
{
    bool slo = o->slo_ttft_s > 0 || o->slo_tpot_s > 0 || o->slo_e2e_s > 0;
    return slo || !(r->kind == ROW_RATE && r->id == LLMLAT_RATE_GOODPUT);
}

static void write_text(const report_options *o, cell cells[][N_CONV], const reading *g)
{
    input_heading(NULL, g);
    printf("llmlat %s report - every convention side by side, mode: %s\n\n",
           llmlat_version_string(), o->mode == LLMLAT_MODE_BOUNDED ? "bounded" : "exact");
    printf("%-22s", "");
    for (int32_t k = 0; k < N_CONV; k++)
        printf(" %14s", llmlat_convention_name(k));
    printf("\n");
    for (size_t i = 0; i < N_ROWS; i++) {
        if (!row_shown(o, &ROWS[i]))
            continue;
        printf("%-22s", ROWS[i].label);
        for (int32_t k = 0; k < N_CONV; k++) {
            char v[32];
            text_value(&ROWS[i], &cells[i][k], v, sizeof v);
            printf(" %14s", v);
        }
        printf("\n  why: %s\n", ROWS[i].why);
    }
    /* the reasons once each, with the conventions they apply to */
    bool any = false;
    for (size_t i = 0; i < N_ROWS; i++) {
        for (int32_t k = 0; k < N_CONV && row_shown(o, &ROWS[i]); k++) {
            const char *why = cells[i][k].why;
            if (!why || cells[i][k].defined)
                continue;
            if (!any)
                printf("\nNot available (n/a):\n");
            any = true;
            printf("  %s, %s: %s\n", ROWS[i].label, llmlat_convention_name(k), why);
        }
    }
    printf("\n- no value (an empty set); n/a the input cannot support it. Each tool's own\n"
           "report: llmlat report --convention NAME (docs/metrics.md).\n");
}

/* ------------------------------------------------------------------ JSON */

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            putchar('\\');
        putchar(*s);
    }
    putchar('"');
}

static void write_json(const report_options *o, cell cells[][N_CONV], const reading *g)
{
    printf("{\n  \"schema\": \"llmlat-report-all/1\",\n  \"conventions\": [");
    for (int32_t k = 0; k < N_CONV; k++)
        printf("%s\"%s\"", k ? ", " : "", llmlat_convention_name(k));
    printf("],\n  \"mode\": \"%s\",\n  \"rows\": [",
           o->mode == LLMLAT_MODE_BOUNDED ? "bounded" : "exact");
    bool first = true;
    for (size_t i = 0; i < N_ROWS; i++) {
        const all_row *r = &ROWS[i];
        if (!row_shown(o, r))
            continue;
        printf("%s\n    {\"figure\": \"%s\", \"unit\": \"%s\", \"why\": ", first ? "" : ",", r->key,
               r->unit == UNIT_TIME ? "s" : r->unit == UNIT_COUNT ? "count" : "per s");
        json_string(r->why);
        printf(",\n     \"values\": {");
        for (int32_t k = 0; k < N_CONV; k++) {
            const cell *c = &cells[i][k];
            printf("%s\"%s\": ", k ? ", " : "", llmlat_convention_name(k));
            if (!c->defined)
                printf("null");
            else if (c->is_count)
                printf("%llu", (unsigned long long)c->n);
            else
                printf("%.17g", c->v);
        }
        printf("}");
        bool any = false;
        for (int32_t k = 0; k < N_CONV; k++) {
            const cell *c = &cells[i][k];
            if (c->defined || !c->why)
                continue;
            printf("%s\"%s\": ", any ? ", " : ",\n     \"unavailable\": {",
                   llmlat_convention_name(k));
            json_string(c->why);
            any = true;
        }
        printf("%s}", any ? "}" : "");
        first = false;
    }
    printf("\n  ]");
    input_json_members("", g);
    printf("\n}\n");
}

/* ------------------------------------------------------------------ HTML */

static void html_text(const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", stdout);
        else if (*s == '>')
            fputs("&gt;", stdout);
        else if (*s == '&')
            fputs("&amp;", stdout);
        else if (*s == '"')
            fputs("&quot;", stdout);
        else
            putchar(*s);
    }
}

static void write_html(const report_options *o, cell cells[][N_CONV], const reading *g)
{
    printf("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
           "<title>llmlat: every convention side by side</title>\n<style>\n"
           "body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}\n"
           "table{border-collapse:collapse}th,td{padding:.3em .6em;border-bottom:1px solid "
           "#ddd}\ntd.v{text-align:right;font-variant-numeric:tabular-nums}\n"
           "td.why{color:#555;font-size:90%%;max-width:32em}\n"
           "td.na{color:#999;text-align:right}\n</style></head><body>\n"
           "<h1>Every convention side by side</h1>\n<p>");
    html_text(g->name);
    printf(" (%s; %llu requests read, %llu rejected). Each figure as each tool computes it "
           "(<code>llmlat report --convention NAME</code> has the whole report); the last "
           "column says why they differ.</p>\n<table>\n<tr><th></th>",
           llmlat_input_name(g->format), (unsigned long long)g->requests,
           (unsigned long long)g->rejected);
    for (int32_t k = 0; k < N_CONV; k++)
        printf("<th>%s</th>", llmlat_convention_name(k));
    printf("<th>why they differ</th></tr>\n");
    for (size_t i = 0; i < N_ROWS; i++) {
        if (!row_shown(o, &ROWS[i]))
            continue;
        printf("<tr><th>");
        html_text(ROWS[i].label);
        printf("</th>");
        for (int32_t k = 0; k < N_CONV; k++) {
            const cell *c = &cells[i][k];
            char v[32];
            text_value(&ROWS[i], c, v, sizeof v);
            if (c->defined) {
                printf("<td class=\"v\">%s</td>", v);
            } else {
                printf("<td class=\"na\" title=\"");
                html_text(c->why ? c->why : "no value");
                printf("\">%s</td>", v);
            }
        }
        printf("<td class=\"why\">");
        html_text(ROWS[i].why);
        printf("</td></tr>\n");
    }
    printf("</table>\n<p>- no value (an empty set); n/a: the input cannot support it (the "
           "reason is the cell's title). Times in ms.</p>\n</body></html>\n");
}

/* ------------------------------------------------------------- the run */

int report_all(const report_options *o)
{
    llmlat_agg *aggs[N_CONV] = { 0 };
    report_options each = *o;
    int rc = EXIT_OK;
    for (int32_t k = 0; k < N_CONV && rc == EXIT_OK; k++) {
        each.convention = k;
        aggs[k] = input_aggregator(&each, o->mode);
        if (!aggs[k])
            rc = EXIT_RUNTIME;
    }
    reading g;
    if (rc == EXIT_OK)
        rc = input_read_each(aggs, N_CONV, o, o->trace, &g);
    if (rc == EXIT_OK) {
        static cell cells[N_ROWS][N_CONV];
        for (size_t i = 0; i < N_ROWS; i++)
            for (int32_t k = 0; k < N_CONV; k++)
                cells[i][k] = cell_of(aggs[k], &ROWS[i]);
        if (o->format == LLMLAT_FORMAT_JSON)
            write_json(o, cells, &g);
        else if (o->format == LLMLAT_FORMAT_HTML)
            write_html(o, cells, &g);
        else
            write_text(o, cells, &g);
        if (fflush(stdout) != 0 || ferror(stdout)) {
            fprintf(stderr, "%s: cannot write the report\n", o->prog);
            rc = EXIT_RUNTIME;
        }
    }
    for (int32_t k = 0; k < N_CONV; k++)
        llmlat_agg_free(aggs[k]);
    return rc;
}
