/* `llmlat compare BASE CAND`: both runs read (any input format the reader
 * knows) into exact aggregators under one convention, the same window
 * taken of each when asked, then llmlat_compare_new's figures, differences
 * and bootstrap intervals, and the --fail-if rules (docs/compare.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fail_rules.h"
#include "input.h"
#include "llmlat.h"
#include "output.h"
#include "report_options.h"
#include "selection.h"

/* Exit status when a rule is broken (the same as a runtime failure: the
 * job failed). */
#define EXIT_RULE_BROKEN 1

/* One run, read, and windowed when asked. */
typedef struct compare_run {
    llmlat_agg *all, *used; /* used is all, or its window */
    reading g;
    selection sel;
} compare_run;

static int compare_read(const report_options *o, const char *path, compare_run *r)
{
    memset(r, 0, sizeof *r);
    r->all = input_aggregator(o, LLMLAT_MODE_EXACT);
    if (!r->all)
        return EXIT_RUNTIME;
    int rc = input_read(r->all, o, path, &r->g);
    r->used = r->all;
    if (rc == EXIT_OK && options_window(o))
        rc = selection_window(o, r->all, &r->used, &r->sel);
    return rc;
}

static void compare_run_free(compare_run *r)
{
    if (r->used != r->all)
        llmlat_agg_free(r->used);
    llmlat_agg_free(r->all);
}

static int write_comparison(const report_options *o, const llmlat_compare *c,
                            const compare_run *run)
{
    stdout_sink sink = { .hold_tail = o->format == LLMLAT_FORMAT_JSON };
    if (o->format == LLMLAT_FORMAT_TEXT) {
        input_heading("Base", &run[0].g);
        input_heading("Candidate", &run[1].g);
        for (int i = 0; i < 2 && options_window(o); i++) {
            char text[512];
            selection_text(o, &run[i].sel, text, sizeof text);
            printf("%s window: %s\n", i ? "Candidate" : "Base", text);
        }
    }
    size_t len = 0;
    int32_t st = llmlat_compare_report(c, o->format, NULL, 0, &len);
    char *text = st == LLMLAT_ENOSPC ? malloc(len) : NULL;
    if (text)
        st = llmlat_compare_report(c, o->format, text, len, &len);
    else if (st == LLMLAT_ENOSPC)
        st = LLMLAT_ENOMEM;
    if (st != LLMLAT_OK) {
        fprintf(stderr, "%s: cannot make the report: %s\n", o->prog, llmlat_strerror(st));
        free(text);
        return EXIT_RUNTIME;
    }
    stdout_write(&sink, text, len);
    free(text);
    if (o->format == LLMLAT_FORMAT_JSON) {
        stdout_json_reopen(&sink);
        static const char *const WHO[2] = { "base", "candidate" };
        for (int i = 0; i < 2; i++) {
            char prefix[16];
            printf(",\n  \"%s_name\": ", WHO[i]);
            stdout_json_string(run[i].g.name);
            snprintf(prefix, sizeof prefix, "%s_", WHO[i]);
            input_json_members(prefix, &run[i].g);
        }
        printf("\n}\n");
    }
    return stdout_finish(o->prog);
}

/* The --fail-if rules, once the comparison is written: each broken one
 * said on stderr. The exit status. */
static int check_rules(const report_options *o, const llmlat_compare *c)
{
    if (!o->fail_if)
        return EXIT_OK;
    if (o->resamples == 0) {
        fprintf(stderr, "%s: --fail-if needs the intervals: --resamples 0 gives none\n",
                o->prog);
        return EXIT_USAGE;
    }
    int rc = EXIT_OK;
    char figure[64];
    double limit, rel;
    for (const char *s = o->fail_if; s;) {
        s = fail_rule_next(s, figure, sizeof figure, &limit);
        switch (fail_rule_check(c, figure, limit, &rel)) {
        case FAIL_KEPT:
            break;
        case FAIL_BROKEN:
            fprintf(stderr, "%s: rule %s:%+g%% broken: %+.2f%%, and the difference is "
                            "significant\n",
                    o->prog, figure, limit * 100, rel * 100);
            if (rc == EXIT_OK)
                rc = EXIT_RULE_BROKEN;
            break;
        case FAIL_UNKNOWN_FIGURE:
            fprintf(stderr, "%s: --fail-if: unknown figure '%s' (the names of the "
                            "comparison's figures, such as p99_ttft)\n",
                    o->prog, figure);
            return EXIT_USAGE;
        case FAIL_NO_INTERVAL:
            fprintf(stderr, "%s: rule %s cannot be checked: the figure or its interval is "
                            "undefined for these runs\n",
                    o->prog, figure);
            return EXIT_USAGE;
        }
    }
    return rc;
}

void compare_usage(FILE *out)
{
    fputs("Usage: llmlat compare [OPTIONS] BASE CAND\n"
          "\n"
          "Reads two runs (trace files or other tools' result files, one of them\n"
          "may be - for standard input) under one convention and shows their\n"
          "figures side by side: mean, median, P90, P99 of TTFT, TPOT, ITL and E2E,\n"
          "the throughputs and goodput, the difference CAND - BASE, the relative\n"
          "difference, and a 95% bootstrap interval of the difference (requests\n"
          "resampled, seeded); an interval that excludes 0 is marked.\n"
          "\n"
          "Options:\n",
          out);
    report_options_usage(COMMAND_COMPARE, out);
    fputs("\n"
          "Exit status: 0 success (every rule kept), 1 a --fail-if rule broken or a\n"
          "runtime failure, 2 bad usage or malformed input.\n"
          "Details: docs/compare.md and docs/cli.md.\n",
          out);
}

int compare_command(int argc, char **argv)
{
    report_options o;
    if (!report_options_parse(COMMAND_COMPARE, argc, argv, &o))
        return EXIT_USAGE;
    if (o.help) {
        compare_usage(stdout);
        return EXIT_OK;
    }
    compare_run run[2];
    int rc = compare_read(&o, o.inputs[0], &run[0]);
    if (rc == EXIT_OK)
        rc = compare_read(&o, o.inputs[1], &run[1]);
    else
        memset(&run[1], 0, sizeof run[1]);
    llmlat_compare *c = NULL;
    if (rc == EXIT_OK) {
        int32_t st;
        c = llmlat_compare_new(run[0].used, run[1].used, o.resamples, o.seed, &st);
        if (!c) {
            fprintf(stderr, "%s: cannot compare: %s\n", o.prog, llmlat_strerror(st));
            rc = EXIT_RUNTIME;
        }
    }
    if (rc == EXIT_OK)
        rc = write_comparison(&o, c, run);
    if (rc == EXIT_OK)
        rc = check_rules(&o, c);
    llmlat_compare_free(c);
    compare_run_free(&run[0]);
    compare_run_free(&run[1]);
    return rc;
}
