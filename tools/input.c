#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "input.h"

#define BLOCK_SIZE (1u << 20)
/* Messages beyond this many rejections are summed up in one line. */
#define REJECTIONS_LISTED 50

llmlat_agg *input_aggregator(const report_options *o, int32_t mode)
{
    llmlat_agg *a = llmlat_agg_new(o->convention, mode);
    if (!a) {
        fprintf(stderr, "%s: cannot create a %s aggregator (not in this build, or out of "
                        "memory)\n",
                o->prog, mode == LLMLAT_MODE_BOUNDED ? "bounded" : "exact");
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
    if (st == LLMLAT_OK && o->has_max_dispatch_delay)
        st = llmlat_agg_set_param(a, LLMLAT_PARAM_MAX_DISPATCH_DELAY, o->max_dispatch_delay_s);
    if (st == LLMLAT_OK && o->server_output_tokens)
        st = llmlat_agg_set_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, 1.0);
    if (st != LLMLAT_OK) {
        fprintf(stderr, "%s: cannot configure the aggregator: %s\n", o->prog,
                llmlat_strerror(st));
        llmlat_agg_free(a);
        return NULL;
    }
    return a;
}

/* The reader's message of a rejection, or `refused` (an aggregator's). */
static void print_rejection(const llmlat_reader *rd, const reading *g, const char *refused)
{
    if (g->rejected <= REJECTIONS_LISTED)
        fprintf(stderr, "%s\n", refused[0] ? refused : llmlat_reader_message(rd));
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

/* The next request into every aggregator of aggs (through r); *what as
 * llmlat_reader_add_to says it. One an aggregator refuses is named and
 * reported as rejected. */
#define REFUSED_MAX 512

static int32_t next_into_each(llmlat_reader *rd, llmlat_request *r, llmlat_agg *const *aggs,
                              size_t n, const reading *g, int32_t *what, char *refused)
{
    refused[0] = '\0';
    for (;;) {
        int32_t st = llmlat_reader_next(rd, r, what);
        if (st != LLMLAT_OK || *what != LLMLAT_READ_REQUEST)
            return st;
        for (size_t i = 0; i < n; i++) {
            st = llmlat_agg_add(aggs[i], r);
            if (st == LLMLAT_ENOMEM)
                return st;
            if (st != LLMLAT_OK) {
                uint64_t index, line, col;
                int32_t conv = LLMLAT_CONV_DEFAULT;
                llmlat_reader_request_position(rd, &index, &line, &col);
                llmlat_agg_get_convention(aggs[i], &conv);
                snprintf(refused, REFUSED_MAX, "%s:%llu:%llu: request %llu rejected under %s: %s",
                         g->name, (unsigned long long)line, (unsigned long long)col,
                         (unsigned long long)index, llmlat_convention_name(conv),
                         llmlat_strerror(st));
                *what = LLMLAT_READ_REJECTED;
                return LLMLAT_OK;
            }
        }
    }
}

/* Feeds the whole input to the reader, folding requests into the n
 * aggregators of aggs (one: straight from the reader's buffer). The exit
 * status: EXIT_OK once the input was read to its end. */
static int read_all(llmlat_reader *rd, llmlat_agg *const *aggs, size_t n, FILE *f, reading *g)
{
    int rc = EXIT_OK;
    char refused[REFUSED_MAX] = "";
    llmlat_request *r = n > 1 ? llmlat_request_new() : NULL;
    if (n > 1 && !r) {
        fprintf(stderr, "%s: out of memory\n", g->name);
        return EXIT_RUNTIME;
    }
    for (;;) {
        int32_t what;
        int32_t st = n > 1 ? next_into_each(rd, r, aggs, n, g, &what, refused)
                           : llmlat_reader_add_to(rd, aggs[0], &what);
        if (st == LLMLAT_OK && what == LLMLAT_READ_REJECTED) {
            g->rejected++;
            print_rejection(rd, g, refused);
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
    llmlat_request_free(r);
    llmlat_reader_counter(rd, LLMLAT_READ_COUNT_REQUESTS, &g->requests);
    llmlat_reader_format(rd, &g->format);
    if (llmlat_reader_counter(rd, LLMLAT_READ_COUNT_RUN, &g->run) != LLMLAT_OK ||
        llmlat_reader_counter(rd, LLMLAT_READ_COUNT_RUNS, &g->runs) != LLMLAT_OK)
        g->run = g->runs = 0;
    return rc;
}

int input_read(llmlat_agg *a, const report_options *o, const char *path, reading *g)
{
    return input_read_each(&a, 1, o, path, g);
}

int input_read_each(llmlat_agg *const *aggs, size_t n, const report_options *o, const char *path,
                    reading *g)
{
    bool from_stdin = strcmp(path, "-") == 0;
    *g = (reading){ .name = from_stdin ? "<stdin>" : path };
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open '%s': %s\n", o->prog, path, strerror(errno));
        return EXIT_USAGE;
    }
    llmlat_reader *rd = llmlat_reader_new(o->input, g->name);
    int rc;
    if (!rd || (o->run && llmlat_reader_set_run(rd, o->run) != LLMLAT_OK)) {
        fprintf(stderr, "%s: out of memory\n", o->prog);
        rc = EXIT_RUNTIME;
    } else {
        rc = read_all(rd, aggs, n, f, g);
        double duration;
        if (rc == EXIT_OK && !o->has_duration &&
            llmlat_reader_duration(rd, &duration) == LLMLAT_OK)
            for (size_t i = 0; i < n; i++)
                llmlat_agg_set_param(aggs[i], LLMLAT_PARAM_DURATION, duration);
    }
    llmlat_reader_free(rd);
    if (!from_stdin)
        fclose(f);
    return rc;
}

void input_heading(const char *what, const reading *g)
{
    unsigned long long n_read = g->requests, n_rejected = g->rejected;
    if (g->format == LLMLAT_INPUT_TRACE) {
        printf("%s: %s (%llu requests read, %llu rejected)\n", what ? what : "Trace", g->name,
               n_read, n_rejected);
        return;
    }
    printf("%s: %s (%s", what ? what : "Input", g->name, llmlat_input_name(g->format));
    if (g->runs)
        printf(", run %llu of %llu", (unsigned long long)g->run, (unsigned long long)g->runs);
    printf("; %llu requests read, %llu rejected)\n", n_read, n_rejected);
}

void input_json_members(const char *key_prefix, const reading *g)
{
    printf(",\n  \"%sinput\": {\"format\": \"%s\", ", key_prefix, llmlat_input_name(g->format));
    if (g->runs)
        printf("\"run\": %llu, \"runs\": %llu}", (unsigned long long)g->run,
               (unsigned long long)g->runs);
    else
        printf("\"run\": null, \"runs\": null}");
    printf(",\n  \"%srequests_read\": %llu,\n  \"%srejected_requests\": %llu", key_prefix,
           (unsigned long long)g->requests, key_prefix, (unsigned long long)g->rejected);
}
