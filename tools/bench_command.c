/* `llmlat bench`: options -> the workload (datasets and traces read and
 * checked) -> the server probed -> for each load level of the sweep, a
 * run: its event loops on their threads (tools/bench_loop.c) watched by
 * the main thread (tools/bench_monitor.c), then its report
 * (tools/bench_report.c). docs/bench.md says what each part measures. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench_monitor.h"
#include "bench_probe.h"
#include "bench_report.h"
#include "cli.h"
#include "input.h"
#include "usage.h"

#define PROG "llmlat bench"
#define EXIT_INTERRUPTED 130
#define START_DELAY_NS INT64_C(5000000) /* the threads' start before request 0 is due */
#define SPARE_FDS 64

void bench_usage(FILE *out)
{
    fputs("Usage: llmlat bench [OPTIONS] --base-url URL\n"
          "\n"
          "Measures an OpenAI-compatible server: sends streamed requests to\n"
          "/v1/completions or /v1/chat/completions on a schedule (open loop at a rate,\n"
          "closed loop at a concurrency, or a recorded trace), takes the timestamps at\n"
          "the socket, and reports TTFT, TPOT, ITL, E2E latency, throughput and goodput\n"
          "as the chosen tool computes them (the report's options, as llmlat report).\n"
          "\n"
          "Options:\n",
          out);
    bench_options_usage(out);
    fputs("\n"
          "Each request's intended start (its arrival, or the end of the one before it\n"
          "in a closed loop) is kept when the client or a send slot is late, and the\n"
          "dispatch delay measured from it. On a terminal a progress line shows the\n"
          "last 10 s. SIGINT or SIGTERM: no more requests, the streams in flight get\n"
          "--drain seconds, the rest are cancelled; the trace and the report are\n"
          "written, and the exit status is 130.\n"
          "\n"
          "Exit status: 0 the run was made (whatever its requests' outcomes), 1 the\n"
          "server could not be reached or a runtime failure, 2 bad usage, 130\n"
          "interrupted. Details: man llmlat, docs/bench.md.\n",
          out);
}

/* As many descriptors as the hard limit allows: each stream is a socket. */
static rlim_t raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    return rl.rlim_cur;
}

/* The trace of level i: FILE itself, or in a sweep FILE with ".rate-R" or
 * ".conc-C" before its extension. */
static void trace_path(const bench_options *o, size_t i, char *out, size_t cap)
{
    if (o->n_levels == 1) {
        snprintf(out, cap, "%s", o->output);
        return;
    }
    char tag[32];
    if (o->closed)
        snprintf(tag, sizeof tag, ".conc-%u", o->concurrency[i]);
    else
        snprintf(tag, sizeof tag, ".rate-%g", o->rates[i]);
    const char *slash = strrchr(o->output, '/'), *dot = strrchr(o->output, '.');
    size_t stem = dot && dot > (slash ? slash : o->output) ? (size_t)(dot - o->output)
                                                           : strlen(o->output);
    snprintf(out, cap, "%.*s%s%s", (int)stem, o->output, tag, o->output + stem);
}

/* The live recorder's settings: bounded, the report's convention and SLOs,
 * labelled with the model and the endpoint (what Prometheus sums over
 * hosts). */
static llmlat_agg *live_settings(const bench_options *o, const char *model)
{
    llmlat_agg *a = llmlat_agg_new(o->report.convention, LLMLAT_MODE_BOUNDED);
    int32_t st = a ? LLMLAT_OK : LLMLAT_ENOMEM;
    if (st == LLMLAT_OK && o->report.slo_ttft_s > 0)
        st = llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, o->report.slo_ttft_s);
    if (st == LLMLAT_OK && o->report.slo_tpot_s > 0)
        st = llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TPOT, o->report.slo_tpot_s);
    if (st == LLMLAT_OK && o->report.slo_e2e_s > 0)
        st = llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_E2E, o->report.slo_e2e_s);
    if (st == LLMLAT_OK && model[0])
        st = llmlat_agg_set_label(a, "model", model);
    if (st == LLMLAT_OK)
        st = llmlat_agg_set_label(a, "endpoint", o->endpoint);
    if (st != LLMLAT_OK) {
        fprintf(stderr, PROG ": cannot set up the live measurements: %s\n",
                llmlat_strerror(st));
        llmlat_agg_free(a);
        return NULL;
    }
    return a;
}

/* What the whole command holds across its runs. */
typedef struct bench_state {
    const bench_options *o;
    workload w;
    tls_context *tls;
    struct sockaddr_storage addr;
    socklen_t addr_len;
    char model[256];
    llmlat_agg *like;       /* the report's aggregator settings */
    llmlat_agg *live_like;
    llmlat_live *live;
    monitor mon;
} bench_state;

/* One run: its threads, watched; its report. Returns the exit status. */
static int run_level(bench_state *b, size_t level)
{
    const bench_options *o = b->o;
    bench_run r = {
        .o = o, .w = &b->w, .level = level,
        .rate = o->closed || o->replay ? 0 : o->rates[level],
        .concurrency = o->closed ? o->concurrency[level] : 0,
        .count = workload_count(&b->w),
        .addr = b->addr, .addr_len = b->addr_len, .tls = b->tls,
        .live = b->live, .like = b->like,
        .stop_at = INT64_MAX,
    };
    snprintf(r.tag, sizeof r.tag, "%08x", (unsigned)(llmlat_now_ns() ^ ((int64_t)getpid() << 20) ^
                                                     (int64_t)level) & 0xffffffffu);
    char path[4096];
    trace_writer trace;
    if (o->output)
        trace_path(o, level, path, sizeof path);
    if (!trace_open(&trace, o->output ? path : NULL)) {
        fprintf(stderr, PROG ": cannot write '%s': %s\n", path, strerror(errno));
        return EXIT_RUNTIME;
    }
    r.trace = &trace;
    r.done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    uint32_t n = o->threads;
    worker *workers[BENCH_MAX_THREADS] = { 0 };
    pthread_t threads[BENCH_MAX_THREADS];
    int rc = r.done_fd < 0 ? EXIT_RUNTIME : EXIT_OK;
    for (uint32_t i = 0; rc == EXIT_OK && i < n; i++)
        if (!(workers[i] = worker_new(&r, i)))
            rc = EXIT_RUNTIME;
    if (rc == EXIT_OK) {
        r.t0 = llmlat_now_ns() + START_DELAY_NS;
        if (o->duration_s)
            r.stop_at = r.t0 + (int64_t)(o->duration_s * 1e9);
        atomic_store(&r.running, n);
        uint32_t started = 0;
        for (; started < n; started++)
            if (pthread_create(&threads[started], NULL, worker_main, workers[started]) != 0)
                break;
        if (started < n) { /* the ones that started are stopped */
            fprintf(stderr, PROG ": cannot start a thread\n");
            atomic_fetch_sub(&r.running, n - started);
            atomic_store(&r.stop, STOP_NOW);
            for (uint32_t i = 0; i < started; i++)
                worker_wake(workers[i]);
            rc = EXIT_RUNTIME;
        }
        if (started == n)
            monitor_run(&b->mon, &r, workers, n);
        for (uint32_t i = 0; i < started; i++)
            pthread_join(threads[i], NULL);
    }
    run_summary s = { .model = b->model, .trace = o->output ? path : NULL };
    llmlat_agg *all = rc == EXIT_OK ? llmlat_agg_new_like(b->like) : NULL;
    for (uint32_t i = 0; rc == EXIT_OK && i < n; i++) {
        if (!all || llmlat_agg_merge(all, worker_agg(workers[i])) != LLMLAT_OK ||
            worker_broken(workers[i])) {
            fprintf(stderr, PROG ": out of memory recording the requests\n");
            rc = EXIT_RUNTIME;
            break;
        }
        const failure_counts *f = worker_failures(workers[i]);
        for (size_t k = 0; k < f->count; k++)
            failures_add(&s.failures, f->kind[k], f->n[k]);
        s.sent += atomic_load(&worker_get_stats(workers[i])->sent);
        s.not_sent += worker_not_sent(workers[i]);
        s.logprobs_missing += worker_logprobs_missing(workers[i]);
    }
    int64_t first, last;
    if (all && llmlat_agg_span(all, &first, &last) == LLMLAT_OK)
        s.wall_s = (double)(last - r.t0) / 1e9;
    s.interrupted = atomic_load(&r.stop) != STOP_NONE;
    if (!trace_close(&trace) && rc == EXIT_OK) {
        fprintf(stderr, PROG ": cannot write '%s': %s\n", path, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    if (rc == EXIT_OK)
        rc = bench_report_write(&r, all, &s);
    llmlat_agg_free(all);
    for (uint32_t i = 0; i < n; i++)
        worker_free(workers[i]);
    if (r.done_fd >= 0)
        close(r.done_fd);
    return rc;
}

/* Everything a run needs that does not change between runs. */
static int set_up(bench_state *b)
{
    const bench_options *o = b->o;
    int rc = workload_load(&b->w, o);
    if (rc != EXIT_OK)
        return rc;
    rlim_t fds = raise_fd_limit();
    uint64_t streams = o->closed ? 0 : o->max_concurrency;
    for (size_t i = 0; o->closed && i < o->n_levels; i++)
        streams = o->concurrency[i] > streams ? o->concurrency[i] : streams;
    if (streams && streams + SPARE_FDS > fds) {
        fprintf(stderr,
                PROG ": %llu streams need about %llu open files; the limit is %llu (raise the "
                     "hard limit: ulimit -Hn, limits.conf)\n",
                (unsigned long long)streams, (unsigned long long)(streams + SPARE_FDS),
                (unsigned long long)fds);
        return EXIT_USAGE;
    }
    if (o->url.tls) {
        char why[160];
        if (!(b->tls = tls_context_new(o->ca_file, o->insecure, why, sizeof why))) {
            fprintf(stderr, PROG ": %s\n", why);
            return EXIT_USAGE;
        }
    }
    if (!(b->like = input_aggregator(&o->report, LLMLAT_MODE_EXACT)))
        return EXIT_RUNTIME;
    rc = probe_server(o, b->tls, &b->addr, &b->addr_len, b->model, sizeof b->model);
    if (rc != EXIT_OK)
        return rc;
    if (o->model)
        snprintf(b->model, sizeof b->model, "%s", o->model);
    b->w.model = b->model[0] ? b->model : NULL;
    if (!(b->live_like = live_settings(o, b->model)))
        return EXIT_RUNTIME;
    if (!(b->live = llmlat_live_new(b->live_like))) {
        fprintf(stderr, PROG ": out of memory\n");
        return EXIT_RUNTIME;
    }
    return monitor_open(&b->mon, o, b->live, b->live_like) ? EXIT_OK : EXIT_RUNTIME;
}

int bench_command(int argc, char **argv)
{
    bench_options o;
    if (!bench_options_parse(argc, argv, &o))
        return EXIT_USAGE;
    if (o.help) {
        bench_usage(stdout);
        return EXIT_OK;
    }
    signal(SIGPIPE, SIG_IGN); /* a closed connection is an error to record, not a death */
    bench_state b = { .o = &o, .mon = { .sigfd = -1, .metrics_fd = -1 } };
    int rc = set_up(&b);
    for (size_t level = 0; rc == EXIT_OK && level < o.n_levels; level++) {
        if (level > 0 && monitor_interrupted(&b.mon))
            break;
        if (level > 0 && o.report.format == LLMLAT_FORMAT_TEXT)
            printf("\n");
        rc = run_level(&b, level);
        fflush(stdout);
    }
    if (rc == EXIT_OK && monitor_interrupted(&b.mon))
        rc = EXIT_INTERRUPTED;
    monitor_close(&b.mon);
    llmlat_live_free(b.live);
    llmlat_agg_free(b.live_like);
    llmlat_agg_free(b.like);
    tls_context_free(b.tls);
    workload_free(&b.w);
    return rc;
}
