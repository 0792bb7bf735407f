/* `llmlat report`: options -> aggregator, the input -> the library's
 * reader -> the aggregator, then the report (of the whole run, of a
 * window, or of its slices), with the reading's own counts added. This
 * file does the I/O and the printing; the reading (the trace and every
 * tool's file, the rejection rule, the messages) is the library's
 * (llmlat_reader_*). Nothing is printed on stdout unless the whole input
 * was read. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "input.h"
#include "llmlat.h"
#include "output.h"
#include "report_all.h"
#include "report_options.h"
#include "selection.h"

#define REJECTED_HELP "Requests of the trace that llmlat report rejected."

static bool per_request(int32_t format)
{
    return format == LLMLAT_FORMAT_CHROME_TRACE || format == LLMLAT_FORMAT_REQUESTS_CSV ||
           format == LLMLAT_FORMAT_REQUESTS_JSONL;
}

/* The report from the library, and what only the command knows: how the
 * input was read, and which part of it the report is of (sel, or NULL). */
static int write_report(llmlat_agg *a, const report_options *o, const reading *g,
                        const selection *sel)
{
    int32_t format = o->format;
    char window[512] = "";
    if (sel)
        selection_text(o, sel, window, sizeof window);
    if (sel && format == LLMLAT_FORMAT_HTML) /* the page shows its labels */
        llmlat_agg_set_label(a, "window", window);
    stdout_sink sink = { .hold_tail = format == LLMLAT_FORMAT_JSON ||
                                      format == LLMLAT_FORMAT_OPENMETRICS };
    if (format == LLMLAT_FORMAT_TEXT) {
        input_heading(NULL, g);
        if (sel)
            printf("Window: %s\n", window);
    }
    int32_t st = llmlat_agg_report_write(a, format, stdout_write, &sink);
    if (st != LLMLAT_OK && st != STDOUT_FAILED) {
        fflush(stdout);
        if (st == LLMLAT_EUNDEFINED && per_request(format))
            fprintf(stderr, "%s: this input's requests are not all known event by event (a "
                            "file of per-request values): no per-request report\n",
                    o->prog);
        else
            fprintf(stderr, "%s: cannot make the report: %s\n", o->prog, llmlat_strerror(st));
        return EXIT_RUNTIME;
    }
    if (st == LLMLAT_OK && format == LLMLAT_FORMAT_JSON) {
        stdout_json_reopen(&sink);
        if (sel)
            selection_json(o, sel);
        input_json_members("", g);
        printf("\n}\n");
    } else if (st == LLMLAT_OK && format == LLMLAT_FORMAT_OPENMETRICS) {
        /* the counter goes before the "# EOF"; OpenMetrics has no comments
         * to carry the window in */
        stdout_openmetrics_reopen(&sink);
        printf("# HELP llmlat_trace_requests_rejected " REJECTED_HELP "\n"
               "# TYPE llmlat_trace_requests_rejected counter\n"
               "llmlat_trace_requests_rejected_total %llu\n# EOF\n",
               (unsigned long long)g->rejected);
    } else if (st == LLMLAT_OK && format == LLMLAT_FORMAT_PROMETHEUS) {
        if (sel)
            printf("# llmlat window: %s\n", window);
        printf("# HELP llmlat_trace_requests_rejected_total " REJECTED_HELP "\n"
               "# TYPE llmlat_trace_requests_rejected_total counter\n"
               "llmlat_trace_requests_rejected_total %llu\n",
               (unsigned long long)g->rejected);
    }
    return stdout_finish(o->prog);
}

static int report_run(const report_options *o)
{
    if (o->convention == CONVENTION_ALL)
        return report_all(o);
    /* a part of the run is taken out of an exact aggregator of all of it */
    bool select = options_select(o);
    llmlat_agg *all = input_aggregator(o, select ? LLMLAT_MODE_EXACT : o->mode);
    if (!all)
        return EXIT_RUNTIME;
    reading g;
    int rc = input_read(all, o, o->trace, &g);
    if (rc == EXIT_OK && !select) {
        rc = write_report(all, o, &g, NULL);
    } else if (rc == EXIT_OK) {
        llmlat_agg *window;
        selection sel;
        rc = selection_window(o, all, &window, &sel);
        if (rc == EXIT_OK && o->slice_s > 0)
            rc = slices_write(o, window, &sel, &g);
        else if (rc == EXIT_OK)
            rc = write_report(window, o, &g, options_window(o) ? &sel : NULL);
        llmlat_agg_free(window);
    }
    llmlat_agg_free(all);
    return rc;
}

void report_usage(FILE *out)
{
    fputs("Usage: llmlat report [OPTIONS] TRACE|-\n"
          "\n"
          "Reads the timestamps of streamed LLM responses (a trace file, or - for\n"
          "standard input) and reports TTFT, TPOT, ITL, E2E latency, throughput and\n"
          "goodput, computed as the chosen tool computes them: of the whole run, of a\n"
          "window of it, or of its consecutive slices.\n"
          "\n"
          "Options:\n",
          out);
    report_options_usage(COMMAND_REPORT, out);
    fputs("\n"
          "A trace is a JSON array of requests, an object {\"requests\": [...],\n"
          "\"duration\": S}, or JSON Lines with one request per line. A request:\n"
          "  {\"start\": S, \"events\": [[T, K], ...], \"input_tokens\": N,\n"
          "   \"output_tokens\": N, \"ok\": true, \"end\": S, \"scheduled\": S}\n"
          "with times in seconds and K the tokens of each streamed chunk; \"scheduled\"\n"
          "is when it was meant to start (its intended start). A request whose times\n"
          "go backwards or that has events after its end is rejected\n"
          "(named on stderr, counted in the report). Other tools' result files are\n"
          "read as docs/importers.md says.\n"
          "\n"
          "Exit status: 0 success, 1 runtime failure, 2 bad usage or malformed trace.\n"
          "Details: man llmlat, docs/cli.md, docs/importers.md, docs/report-json.md and\n"
          "docs/report-formats.md.\n",
          out);
}

int report_command(int argc, char **argv)
{
    report_options o;
    if (!report_options_parse(COMMAND_REPORT, argc, argv, &o))
        return EXIT_USAGE;
    if (o.help) {
        report_usage(stdout);
        return EXIT_OK;
    }
    return report_run(&o);
}
