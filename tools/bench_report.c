#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_report.h"
#include "cli.h"
#include "output.h"

#define PROG "llmlat bench"

static const char *arrival_name(const bench_options *o, char *buf, size_t cap)
{
    if (o->arrival == ARRIVAL_GAMMA)
        snprintf(buf, cap, "gamma, shape %g", o->gamma_shape);
    else
        snprintf(buf, cap, "%s", o->arrival == ARRIVAL_CONSTANT ? "constant" : "poisson");
    return buf;
}

/* "open loop, 10 requests/s (poisson)", "closed loop, concurrency 8", ... */
static void load_text(const bench_run *r, char *out, size_t cap)
{
    const bench_options *o = r->o;
    char arrival[48], cap_text[48] = "";
    if (o->max_concurrency)
        snprintf(cap_text, sizeof cap_text, ", at most %u in flight", o->max_concurrency);
    if (o->replay)
        snprintf(out, cap, "replay of %s%s", o->replay, cap_text);
    else if (o->closed)
        snprintf(out, cap, "closed loop, concurrency %u", r->concurrency);
    else if (isinf(r->rate))
        snprintf(out, cap, "open loop, all at once%s", cap_text);
    else
        snprintf(out, cap, "open loop, %g requests/s (%s)%s", r->rate,
                 arrival_name(o, arrival, sizeof arrival), cap_text);
}

static void text_heading(const bench_run *r, const run_summary *s)
{
    const bench_options *o = r->o;
    char load[160];
    load_text(r, load, sizeof load);
    printf("Bench: POST %s%s%s (%s), model %s\n", o->url.tls ? "https://" : "http://",
           o->url.authority, o->path, o->chat ? "chat" : "completions",
           s->model[0] ? s->model : "(none)");
    printf("Load: %s; %llu sent in %.3f s", load, (unsigned long long)s->sent, s->wall_s);
    if (s->interrupted)
        printf(", interrupted");
    if (s->not_sent)
        printf(" (%llu due and never sent)", (unsigned long long)s->not_sent);
    printf("\n");
    if (s->failures.count) {
        printf("Failures:");
        for (size_t i = 0; i < s->failures.count; i++)
            printf("%s %s: %llu", i ? "," : "", s->failures.kind[i],
                   (unsigned long long)s->failures.n[i]);
        printf("\n");
    }
    if (s->trace)
        printf("Trace: %s\n", s->trace);
}

static void json_members(const bench_run *r, const run_summary *s)
{
    const bench_options *o = r->o;
    char load[160];
    load_text(r, load, sizeof load);
    printf(",\n  \"bench\": {\"url\": ");
    char url[URL_HOST_MAX + URL_PATH_MAX + 96];
    snprintf(url, sizeof url, "%s%s%s", o->url.tls ? "https://" : "http://", o->url.authority,
             o->path);
    stdout_json_string(url);
    printf(", \"model\": ");
    if (s->model[0])
        stdout_json_string(s->model);
    else
        printf("null");
    printf(", \"load\": ");
    stdout_json_string(load);
    printf(", \"rate\": ");
    if (o->closed || o->replay || isinf(r->rate))
        printf("null");
    else
        stdout_double(r->rate, "null");
    printf(", \"concurrency\": ");
    if (o->closed)
        printf("%u", r->concurrency);
    else
        printf("null");
    printf(", \"max_concurrency\": ");
    if (o->max_concurrency)
        printf("%u", o->max_concurrency);
    else
        printf("null");
    printf(", \"sent\": %llu, \"not_sent\": %llu, \"wall_s\": ", (unsigned long long)s->sent,
           (unsigned long long)s->not_sent);
    stdout_double(s->wall_s, "null");
    printf(", \"interrupted\": %s, \"failures\": {", s->interrupted ? "true" : "false");
    for (size_t i = 0; i < s->failures.count; i++) {
        printf("%s", i ? ", " : "");
        stdout_json_string(s->failures.kind[i]);
        printf(": %llu", (unsigned long long)s->failures.n[i]);
    }
    printf("}, \"trace\": ");
    if (s->trace)
        stdout_json_string(s->trace);
    else
        printf("null");
    printf("}");
}

int bench_report_write(const bench_run *r, const llmlat_agg *a, const run_summary *s)
{
    int32_t format = r->o->report.format;
    if (s->logprobs_missing)
        fprintf(stderr,
                PROG ": %llu chunks with output carried no logprobs: each counted 1 token "
                     "(does the server stream logprobs?)\n",
                (unsigned long long)s->logprobs_missing);
    if (format == LLMLAT_FORMAT_TEXT)
        text_heading(r, s);
    stdout_sink sink = { .hold_tail = format == LLMLAT_FORMAT_JSON };
    int32_t st = llmlat_agg_report_write(a, format, stdout_write, &sink);
    if (st != LLMLAT_OK && st != STDOUT_FAILED) {
        fflush(stdout);
        fprintf(stderr, PROG ": cannot make the report: %s\n", llmlat_strerror(st));
        return EXIT_RUNTIME;
    }
    if (st == LLMLAT_OK && format == LLMLAT_FORMAT_JSON) {
        stdout_json_reopen(&sink);
        json_members(r, s);
        printf("\n}\n");
    }
    return stdout_finish(PROG);
}
