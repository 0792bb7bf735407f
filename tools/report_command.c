/* `llmlat report`: options -> aggregator, trace -> requests -> aggregator,
 * then the report, with the reading's own counts added. Nothing is printed
 * on stdout unless the whole trace was read. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "ingest.h"
#include "json_reader.h"
#include "report_options.h"
#include "trace.h"

#define PREFIX "llmlat report: "

static llmlat_agg *make_aggregator(const report_options *o)
{
    llmlat_agg *a = llmlat_agg_new(o->convention, o->mode);
    if (!a) {
        fprintf(stderr, PREFIX "cannot create a %s aggregator (not in this build, or out of "
                               "memory)\n",
                o->mode == LLMLAT_MODE_BOUNDED ? "bounded" : "exact");
        return NULL;
    }
    /* SLOs and the relative error before any data: bounded mode fixes
     * them once it holds samples. */
    int32_t st = LLMLAT_OK;
    if (o->n_quantiles)
        st = llmlat_agg_set_quantiles(a, o->quantiles, o->n_quantiles);
    if (st == LLMLAT_OK && o->has_relative_error)
        st = llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, o->relative_error);
    if (st == LLMLAT_OK && o->slo_ttft_s > 0)
        st = llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, o->slo_ttft_s);
    if (st == LLMLAT_OK && o->slo_tpot_s > 0)
        st = llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TPOT, o->slo_tpot_s);
    if (st == LLMLAT_OK && o->slo_e2e_s > 0)
        st = llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_E2E, o->slo_e2e_s);
    if (st == LLMLAT_OK && o->has_duration)
        st = llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, o->duration_s);
    if (st != LLMLAT_OK) {
        fprintf(stderr, PREFIX "cannot configure the aggregator: %s\n", llmlat_strerror(st));
        llmlat_agg_free(a);
        return NULL;
    }
    return a;
}

/* The report streams to stdout as the library writes it. The JSON object
 * takes two more members before its closing brace, so its last bytes are
 * held back until the end: the brace, and the whitespace around it, are
 * among them. */
#define JSON_TAIL 64
#define STDOUT_FAILED 1 /* the sink's status when stdout refuses bytes */

typedef struct stdout_sink {
    bool hold_tail;
    char tail[JSON_TAIL];
    size_t n_tail;
} stdout_sink;

static bool put(const void *p, size_t n)
{
    return fwrite(p, 1, n, stdout) == n;
}

static int32_t to_stdout(void *user, const void *bytes, size_t len)
{
    stdout_sink *s = user;
    const char *p = bytes;
    bool ok = true;
    if (!s->hold_tail) {
        ok = put(p, len);
    } else if (len >= JSON_TAIL) { /* the tail so far, and all but the end of p */
        ok = put(s->tail, s->n_tail) && put(p, len - JSON_TAIL);
        memcpy(s->tail, p + len - JSON_TAIL, JSON_TAIL);
        s->n_tail = JSON_TAIL;
    } else { /* the oldest bytes of the tail make room for p */
        size_t keep = JSON_TAIL - len, out = s->n_tail > keep ? s->n_tail - keep : 0;
        ok = put(s->tail, out);
        memmove(s->tail, s->tail + out, s->n_tail - out);
        memcpy(s->tail + s->n_tail - out, p, len);
        s->n_tail += len - out;
    }
    return ok ? LLMLAT_OK : STDOUT_FAILED;
}

/* The JSON object's end, with the reading's counts as two more members. */
static void end_json(const stdout_sink *s, unsigned long long n_read,
                     unsigned long long n_rejected)
{
    size_t body = s->n_tail;
    while (body > 0 && s->tail[body - 1] != '}')
        body--;
    if (body > 0)
        body--;
    while (body > 0 && isspace((unsigned char)s->tail[body - 1]))
        body--;
    put(s->tail, body);
    printf(",\n  \"requests_read\": %llu,\n  \"rejected_requests\": %llu\n}\n", n_read,
           n_rejected);
}

/* The report from the library, and what only the command knows: how many
 * requests it read and rejected. */
static int write_report(llmlat_agg *a, int32_t format, const char *name, uint64_t read,
                        uint64_t rejected)
{
    unsigned long long n_read = read, n_rejected = rejected;
    stdout_sink sink = { .hold_tail = format == LLMLAT_FORMAT_JSON };
    if (format == LLMLAT_FORMAT_TEXT)
        printf("Trace: %s (%llu requests read, %llu rejected)\n", name, n_read, n_rejected);
    int32_t st = llmlat_agg_report_write(a, format, to_stdout, &sink);
    if (st != LLMLAT_OK && st != STDOUT_FAILED) {
        fflush(stdout);
        fprintf(stderr, PREFIX "cannot make the report: %s\n", llmlat_strerror(st));
        return EXIT_RUNTIME;
    }
    if (st == LLMLAT_OK && format == LLMLAT_FORMAT_JSON) {
        end_json(&sink, n_read, n_rejected);
    } else if (st == LLMLAT_OK && format == LLMLAT_FORMAT_PROMETHEUS) {
        printf("# HELP llmlat_trace_requests_rejected_total Requests of the trace that "
               "llmlat report rejected.\n"
               "# TYPE llmlat_trace_requests_rejected_total counter\n"
               "llmlat_trace_requests_rejected_total %llu\n",
               n_rejected);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PREFIX "cannot write the report: %s\n", strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* Reads the trace into a and writes the report. */
static int run(llmlat_agg *a, const report_options *o, FILE *f, const char *name)
{
    json_reader jr;
    ingest g;
    if (!jr_init(&jr, f, name)) {
        fprintf(stderr, PREFIX "out of memory\n");
        return EXIT_RUNTIME;
    }
    if (!ingest_init(&g, a, name)) {
        jr_free(&jr);
        fprintf(stderr, PREFIX "out of memory\n");
        return EXIT_RUNTIME;
    }
    trace_info info;
    int rc;
    if (trace_read(&jr, ingest_request, &g, &info)) {
        if (!o->has_duration && info.has_duration)
            llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, info.duration_s);
        rc = write_report(a, o->format, name, info.requests, g.rejected);
    } else if (g.status != LLMLAT_OK) {
        fprintf(stderr, PREFIX "%s\n", llmlat_strerror(g.status));
        rc = EXIT_RUNTIME;
    } else {
        fprintf(stderr, "%s\n", jr.error);
        rc = info.out_of_memory ? EXIT_RUNTIME : EXIT_USAGE;
    }
    ingest_free(&g);
    jr_free(&jr);
    return rc;
}

int report_command(int argc, char **argv)
{
    report_options o;
    if (!report_options_parse(argc, argv, &o))
        return EXIT_USAGE;
    if (o.help) {
        cli_usage(stdout);
        return EXIT_OK;
    }
    bool from_stdin = strcmp(o.trace, "-") == 0;
    const char *name = from_stdin ? "<stdin>" : o.trace;
    FILE *f = from_stdin ? stdin : fopen(o.trace, "rb");
    if (!f) {
        fprintf(stderr, PREFIX "cannot open '%s': %s\n", o.trace, strerror(errno));
        return EXIT_USAGE;
    }
    llmlat_agg *a = make_aggregator(&o);
    int rc = a ? run(a, &o, f, name) : EXIT_RUNTIME;
    llmlat_agg_free(a);
    if (!from_stdin)
        fclose(f);
    return rc;
}
