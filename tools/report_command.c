/* `llmlat report`: options -> aggregator, the input -> the library's
 * reader -> the aggregator, then the report, with the reading's own
 * counts added. This file does the I/O and the printing; the reading (the
 * trace and every tool's file, the rejection rule, the messages) is the
 * library's (llmlat_reader_*). Nothing is printed on stdout unless the
 * whole input was read. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "llmlat.h"
#include "report_options.h"

#define PREFIX "llmlat report: "
#define BLOCK_SIZE (1u << 20)
/* Messages beyond this many rejections are summed up in one line. */
#define REJECTIONS_LISTED 50

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

/* What the reading found, for the report. */
typedef struct reading {
    const char *name;
    int32_t format;
    uint64_t requests, rejected;
    uint64_t run, runs; /* 0: the format has no runs */
} reading;

static void print_rejection(const llmlat_reader *rd, const reading *g)
{
    if (g->rejected <= REJECTIONS_LISTED)
        fprintf(stderr, "%s\n", llmlat_reader_message(rd));
    if (g->rejected == REJECTIONS_LISTED)
        fprintf(stderr, "%s: further rejected requests are counted but not listed\n", g->name);
}

/* The next block of the input, read straight into the reader's buffer;
 * at the end of the input, the reader is told so. */
static int32_t read_block(llmlat_reader *rd, FILE *f, bool *read_error)
{
    void *block;
    size_t room;
    *read_error = false;
    int32_t st = llmlat_reader_space(rd, BLOCK_SIZE, &block, &room);
    if (st != LLMLAT_OK)
        return st;
    size_t n = fread(block, 1, BLOCK_SIZE, f);
    if (n > 0)
        return llmlat_reader_commit(rd, n);
    if (ferror(f)) {
        *read_error = true;
        return LLMLAT_OK;
    }
    return llmlat_reader_end(rd);
}

/* Feeds the whole input to the reader, folding requests into a. The exit
 * status: EXIT_OK once the input was read to its end. */
static int read_input(llmlat_reader *rd, llmlat_agg *a, FILE *f, reading *g)
{
    int rc = EXIT_OK;
    for (;;) {
        int32_t what;
        int32_t st = llmlat_reader_add_to(rd, a, &what);
        if (st == LLMLAT_OK && what == LLMLAT_READ_REJECTED) {
            g->rejected++;
            print_rejection(rd, g);
            continue;
        }
        if (st == LLMLAT_OK && what == LLMLAT_READ_END)
            break;
        if (st == LLMLAT_OK) { /* MORE */
            bool read_error;
            st = read_block(rd, f, &read_error);
            if (read_error) {
                fprintf(stderr, "%s: read error: %s\n", g->name, strerror(errno));
                rc = EXIT_USAGE;
                break;
            }
        }
        if (st == LLMLAT_EFORMAT) {
            fprintf(stderr, "%s\n", llmlat_reader_message(rd));
            rc = EXIT_USAGE;
            break;
        }
        if (st != LLMLAT_OK) {
            const char *m = llmlat_reader_message(rd);
            fprintf(stderr, "%s\n", m[0] ? m : llmlat_strerror(st));
            rc = EXIT_RUNTIME;
            break;
        }
    }
    llmlat_reader_counter(rd, LLMLAT_READ_COUNT_REQUESTS, &g->requests);
    llmlat_reader_format(rd, &g->format);
    if (llmlat_reader_counter(rd, LLMLAT_READ_COUNT_RUN, &g->run) != LLMLAT_OK ||
        llmlat_reader_counter(rd, LLMLAT_READ_COUNT_RUNS, &g->runs) != LLMLAT_OK)
        g->run = g->runs = 0;
    return rc;
}

/* "Trace: NAME (...)", or "Input: NAME (vllm, run 2 of 3; ...)". */
static void text_heading(const reading *g)
{
    unsigned long long n_read = g->requests, n_rejected = g->rejected;
    if (g->format == LLMLAT_INPUT_TRACE) {
        printf("Trace: %s (%llu requests read, %llu rejected)\n", g->name, n_read, n_rejected);
        return;
    }
    printf("Input: %s (%s", g->name, llmlat_input_name(g->format));
    if (g->runs)
        printf(", run %llu of %llu", (unsigned long long)g->run, (unsigned long long)g->runs);
    printf("; %llu requests read, %llu rejected)\n", n_read, n_rejected);
}

/* The report streams to stdout as the library writes it. The JSON object
 * takes more members before its closing brace, so its last bytes are held
 * back until the end: the brace, and the whitespace around it, are among
 * them. */
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

/* The JSON object's end, with how the input was read as more members. */
static void end_json(const stdout_sink *s, const reading *g)
{
    size_t body = s->n_tail;
    while (body > 0 && s->tail[body - 1] != '}')
        body--;
    if (body > 0)
        body--;
    while (body > 0 && isspace((unsigned char)s->tail[body - 1]))
        body--;
    put(s->tail, body);
    printf(",\n  \"input\": {\"format\": \"%s\", ", llmlat_input_name(g->format));
    if (g->runs)
        printf("\"run\": %llu, \"runs\": %llu}", (unsigned long long)g->run,
               (unsigned long long)g->runs);
    else
        printf("\"run\": null, \"runs\": null}");
    printf(",\n  \"requests_read\": %llu,\n  \"rejected_requests\": %llu\n}\n",
           (unsigned long long)g->requests, (unsigned long long)g->rejected);
}

/* The report from the library, and what only the command knows: how the
 * input was read. */
static int write_report(llmlat_agg *a, int32_t format, const reading *g)
{
    stdout_sink sink = { .hold_tail = format == LLMLAT_FORMAT_JSON };
    if (format == LLMLAT_FORMAT_TEXT)
        text_heading(g);
    int32_t st = llmlat_agg_report_write(a, format, to_stdout, &sink);
    if (st != LLMLAT_OK && st != STDOUT_FAILED) {
        fflush(stdout);
        fprintf(stderr, PREFIX "cannot make the report: %s\n", llmlat_strerror(st));
        return EXIT_RUNTIME;
    }
    if (st == LLMLAT_OK && format == LLMLAT_FORMAT_JSON) {
        end_json(&sink, g);
    } else if (st == LLMLAT_OK && format == LLMLAT_FORMAT_PROMETHEUS) {
        printf("# HELP llmlat_trace_requests_rejected_total Requests of the trace that "
               "llmlat report rejected.\n"
               "# TYPE llmlat_trace_requests_rejected_total counter\n"
               "llmlat_trace_requests_rejected_total %llu\n",
               (unsigned long long)g->rejected);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PREFIX "cannot write the report: %s\n", strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* Reads the input into a and writes the report. */
static int run(llmlat_agg *a, const report_options *o, FILE *f, const char *name)
{
    llmlat_reader *rd = llmlat_reader_new(o->input, name);
    if (!rd || (o->run && llmlat_reader_set_run(rd, o->run) != LLMLAT_OK)) {
        llmlat_reader_free(rd);
        fprintf(stderr, PREFIX "out of memory\n");
        return EXIT_RUNTIME;
    }
    reading g = { .name = name };
    int rc = read_input(rd, a, f, &g);
    double duration;
    if (rc == EXIT_OK && !o->has_duration &&
        llmlat_reader_duration(rd, &duration) == LLMLAT_OK)
        llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, duration);
    if (rc == EXIT_OK)
        rc = write_report(a, o->format, &g);
    llmlat_reader_free(rd);
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
