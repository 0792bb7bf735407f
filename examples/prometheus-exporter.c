/* The pattern a server follows to hand llmlat's numbers to Prometheus
 * (docs/prometheus.md): one bounded aggregator per label set and per
 * worker thread, merged when scraped, exposed at /metrics.
 *
 *   - Each worker thread records its requests into its own aggregators
 *     (one per label set), never shared with another worker: adding is
 *     cheap and touches no other thread's memory. A mutex per worker lets
 *     the scraper read them between two adds.
 *   - On a scrape, the label set's scrape aggregator (which carries the
 *     constant labels) is reset and every worker's aggregator merged into
 *     it; llmlat_expose_write streams all label sets, in the format the
 *     scraper asked for, straight to the socket.
 *   - Everything exposed is cumulative: Prometheus' rate() and increase()
 *     make the windows, and histogram_quantile over sum() of the native
 *     histograms is the fleet's P99 (docs/prometheus.md has the PromQL).
 *
 * This one is a demonstration: a synthetic workload with known
 * distributions (seeded) instead of real requests, a loopback-only HTTP
 * server, a bounded run time. It serves
 *   /metrics                 as the Accept header asks: protobuf (with
 *                            native histograms), OpenMetrics, or text 0.0.4
 *   /metrics?format=text     text 0.0.4 whatever the Accept header (a
 *                            Prometheus job can so scrape the classic
 *                            buckets; 2.x drops them from protobuf when
 *                            native ones are there); also =openmetrics,
 *                            =protobuf
 *   /state/N                 label set N's merged aggregator, serialized
 *                            (docs/format.md): how another process merges it
 *   /start                   with --hold, starts the workload (a test first
 *                            lets its scraper see the empty series)
 * /metrics is written in the naming scheme of --names (llmlat_expose_names):
 * llmlat's own series (default), or those vLLM's, SGLang's or the
 * OpenTelemetry GenAI conventions' dashboards read (vllm, sglang, otel).
 * Each label set carries model (--model), route, operation ("chat" or
 * "text_completion") and, with --provider, provider: the labels the
 * schemes rename to model_name or gen_ai_request_model,
 * gen_ai_operation_name and gen_ai_provider_name.
 *
 * Usage: prometheus-exporter [--port P] [--seconds S] [--model NAME]
 *                            [--seed N] [--requests N] [--ramp S]
 *                            [--names llmlat|vllm|sglang|otel] [--provider NAME]
 *                            [--hold]
 * It listens on 127.0.0.1:P (0: any free port), prints "listening on
 * 127.0.0.1:PORT", feeds N requests (default 20000) over S_ramp seconds
 * (default 2), prints "workload done", and exits after S seconds (default
 * 30). Built with the examples; POSIX (sockets, threads). */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <llmlat.h>

#define MS INT64_C(1000000)
#define WORKERS 2
#define SETS 2 /* label sets: the two routes */

static const char *const ROUTES[SETS] = { "/v1/chat", "/v1/completions" };
/* gen_ai.operation.name of each route (OpenTelemetry's well-known values) */
static const char *const OPERATIONS[SETS] = { "chat", "text_completion" };

/* ------------------------------------------------------------ workload */

/* Known distributions, per route: TTFT log-normal (median, sigma), output
 * tokens uniform, chunks of 1 token (80%) or 2-4, each chunk's gap
 * exponential with a mean per token; 5% of requests fail. */
typedef struct route_shape {
    double ttft_median_s, ttft_sigma;
    int tokens_min, tokens_max;
    double gap_mean_s; /* per token */
} route_shape;

static const route_shape SHAPES[SETS] = {
    { 0.120, 0.6, 8, 200, 0.015 },
    { 0.300, 0.4, 50, 400, 0.025 },
};

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

static double rng_uniform(rng *r) /* (0, 1) */
{
    return ((double)(rng_next(r) >> 11) + 0.5) * 0x1p-53;
}

static double rng_normal(rng *r) /* Box-Muller */
{
    return sqrt(-2.0 * log(rng_uniform(r))) * cos(6.283185307179586 * rng_uniform(r));
}

/* One synthetic request on route `set` starting at t, into rec. */
static void synthesize(llmlat_request *rec, rng *r, int set, int64_t t)
{
    const route_shape *sh = &SHAPES[set];
    llmlat_request_reset(rec);
    llmlat_request_start(rec, t);
    llmlat_request_set_input_tokens(rec, 50 + rng_next(r) % 1950);
    t += (int64_t)(sh->ttft_median_s * exp(sh->ttft_sigma * rng_normal(r)) * 1e9);
    int left = sh->tokens_min + (int)(rng_next(r) % (uint64_t)(sh->tokens_max - sh->tokens_min + 1));
    bool first = true;
    while (left > 0) {
        uint32_t k = rng_uniform(r) < 0.8 ? 1 : 2 + (uint32_t)(rng_next(r) % 3);
        if (k > (uint32_t)left)
            k = (uint32_t)left;
        if (!first)
            t += (int64_t)(-log(rng_uniform(r)) * sh->gap_mean_s * k * 1e9);
        llmlat_request_event(rec, t, k);
        left -= (int)k;
        first = false;
    }
    if (rng_uniform(r) < 0.05)
        llmlat_request_fail(rec, t);
    else
        llmlat_request_finish(rec, t);
}

/* --------------------------------------------------- aggregators, merge */

typedef struct worker {
    pthread_t thread;
    pthread_mutex_t lock; /* held while adding, and while a scrape merges */
    llmlat_agg *agg[SETS];
    rng r;
    long requests;
    double ramp_s;
} worker;

static worker workers[WORKERS];
static bool started; /* the workers run (at once, or on /start with --hold) */
static atomic_int finished;      /* workers done with the workload */
static atomic_bool stopping;     /* the run time is over */
static llmlat_agg *scraped[SETS]; /* the constant labels live here */
static int32_t names = LLMLAT_NAMES_LLMLAT; /* the naming scheme of /metrics */
static pthread_mutex_t scrape_lock = PTHREAD_MUTEX_INITIALIZER;

static llmlat_agg *new_agg(void)
{
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    /* merging needs equal SLOs: every aggregator gets the same */
    if (a && llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.5) != LLMLAT_OK) {
        llmlat_agg_free(a);
        a = NULL;
    }
    return a;
}

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - floor(s)) * 1e9) };
    nanosleep(&ts, NULL);
}

static void *work(void *arg)
{
    worker *w = arg;
    llmlat_request *rec = llmlat_request_new();
    if (!rec)
        return NULL;
    int64_t t = 0;
    for (long i = 0; i < w->requests && !atomic_load(&stopping); i++) {
        int set = (int)(rng_next(&w->r) % SETS);
        synthesize(rec, &w->r, set, t);
        t += 10 * MS;
        pthread_mutex_lock(&w->lock);
        llmlat_agg_add(w->agg[set], rec);
        pthread_mutex_unlock(&w->lock);
        if (i % 100 == 99) /* spread the workload over the ramp */
            sleep_s(w->ramp_s * 100.0 / (double)w->requests);
    }
    llmlat_request_free(rec);
    atomic_fetch_add(&finished, 1);
    return NULL;
}

static void start_workload(void)
{
    if (started)
        return;
    started = true;
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&workers[i].thread, NULL, work, &workers[i]);
}

/* The scrape aggregators as of now: each label set's workers merged. */
static int32_t merge_all(void)
{
    for (int s = 0; s < SETS; s++) {
        int32_t st = llmlat_agg_reset(scraped[s]);
        for (int i = 0; i < WORKERS && st == LLMLAT_OK; i++) {
            pthread_mutex_lock(&workers[i].lock);
            st = llmlat_agg_merge(scraped[s], workers[i].agg[s]);
            pthread_mutex_unlock(&workers[i].lock);
        }
        if (st != LLMLAT_OK)
            return st;
    }
    return LLMLAT_OK;
}

/* ---------------------------------------------------------------- HTTP */

static int32_t send_all(void *user, const void *bytes, size_t len)
{
    int fd = *(const int *)user;
    const char *p = bytes;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1000; /* not an llmlat status: the peer went away */
        p += n;
        len -= (size_t)n;
    }
    return LLMLAT_OK;
}

static void respond(int fd, const char *status, const char *type, const void *body, size_t len)
{
    char head[512];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n",
                     status, type, len);
    if (send_all(&fd, head, (size_t)n) == LLMLAT_OK && len)
        send_all(&fd, body, len);
}

/* The format asked for: ?format= first, then the Accept header
 * (protobuf when offered, as Prometheus with native histograms offers it;
 * else OpenMetrics when offered; else text 0.0.4). */
static int32_t pick_format(const char *query, const char *accept)
{
    if (query) {
        if (strcmp(query, "format=text") == 0)
            return LLMLAT_FORMAT_PROMETHEUS;
        if (strcmp(query, "format=openmetrics") == 0)
            return LLMLAT_FORMAT_OPENMETRICS;
        if (strcmp(query, "format=protobuf") == 0)
            return LLMLAT_FORMAT_PROMETHEUS_PROTOBUF;
    }
    if (accept && strstr(accept, "application/vnd.google.protobuf") &&
        strstr(accept, "proto=io.prometheus.client.MetricFamily") &&
        strstr(accept, "encoding=delimited"))
        return LLMLAT_FORMAT_PROMETHEUS_PROTOBUF;
    if (accept && strstr(accept, "application/openmetrics-text"))
        return LLMLAT_FORMAT_OPENMETRICS;
    return LLMLAT_FORMAT_PROMETHEUS;
}

static void serve_metrics(int fd, const char *query, const char *accept)
{
    int32_t format = pick_format(query, accept);
    pthread_mutex_lock(&scrape_lock);
    if (merge_all() != LLMLAT_OK) {
        pthread_mutex_unlock(&scrape_lock);
        respond(fd, "500 Internal Server Error", "text/plain", "merge failed\n", 13);
        return;
    }
    /* streamed: the body ends when the connection closes */
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nConnection: close\r\n\r\n",
                     llmlat_format_content_type(format));
    if (send_all(&fd, head, (size_t)n) == LLMLAT_OK)
        llmlat_expose_write_names((const llmlat_agg *const *)scraped, SETS, format, names,
                                  send_all, &fd);
    pthread_mutex_unlock(&scrape_lock);
}

static void serve_state(int fd, const char *which)
{
    int set = atoi(which);
    if (set < 0 || set >= SETS) {
        respond(fd, "404 Not Found", "text/plain", "no such label set\n", 18);
        return;
    }
    pthread_mutex_lock(&scrape_lock);
    size_t len = 0;
    void *buf = NULL;
    int32_t st = merge_all();
    if (st == LLMLAT_OK && llmlat_agg_serialize(scraped[set], NULL, 0, &len) == LLMLAT_ENOSPC &&
        (buf = malloc(len)) != NULL)
        st = llmlat_agg_serialize(scraped[set], buf, len, &len);
    pthread_mutex_unlock(&scrape_lock);
    if (st == LLMLAT_OK && buf)
        respond(fd, "200 OK", "application/octet-stream", buf, len);
    else
        respond(fd, "500 Internal Server Error", "text/plain", "", 0);
    free(buf);
}

/* The value of header `name` in the request head (NUL-terminated, lower
 * case name), cut at its line's end; NULL when absent. */
static char *header(char *head, const char *name)
{
    size_t n = strlen(name);
    for (char *line = strstr(head, "\r\n"); line; line = strstr(line, "\r\n")) {
        line += 2;
        if (strncasecmp(line, name, n) == 0 && line[n] == ':') {
            char *v = line + n + 1, *end = strstr(v, "\r\n");
            while (*v == ' ')
                v++;
            if (end)
                *end = '\0';
            return v;
        }
    }
    return NULL;
}

static void handle(int fd)
{
    struct timeval tv = { 2, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char head[8192];
    size_t len = 0;
    while (len < sizeof head - 1) {
        ssize_t n = recv(fd, head + len, sizeof head - 1 - len, 0);
        if (n <= 0)
            return;
        len += (size_t)n;
        head[len] = '\0';
        if (strstr(head, "\r\n\r\n"))
            break;
    }
    char method[8], target[1024];
    if (sscanf(head, "%7s %1023s", method, target) != 2 || strcmp(method, "GET") != 0) {
        respond(fd, "405 Method Not Allowed", "text/plain", "", 0);
        return;
    }
    char *accept = header(head, "accept");
    char *query = strchr(target, '?');
    if (query)
        *query++ = '\0';
    if (strcmp(target, "/metrics") == 0)
        serve_metrics(fd, query, accept);
    else if (strncmp(target, "/state/", 7) == 0)
        serve_state(fd, target + 7);
    else if (strcmp(target, "/start") == 0) {
        start_workload();
        respond(fd, "200 OK", "text/plain", "started\n", 8);
    }
    else
        respond(fd, "404 Not Found", "text/plain", "try /metrics\n", 13);
}

/* -------------------------------------------------------------- main */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

static int usage(void)
{
    fprintf(stderr, "usage: prometheus-exporter [--port P] [--seconds S] [--model NAME] "
                    "[--seed N] [--requests N] [--ramp S] [--names llmlat|vllm|sglang|otel] "
                    "[--provider NAME] [--hold]\n");
    return 2;
}

/* The scheme named `name`; -1 for none. */
static int32_t names_of(const char *name)
{
    for (int32_t n = LLMLAT_NAMES_LLMLAT; llmlat_names_name(n); n++)
        if (strcmp(llmlat_names_name(n), name) == 0)
            return n;
    return -1;
}

int main(int argc, char **argv)
{
    long port = 0, requests = 20000;
    double seconds = 30, ramp = 2;
    unsigned long long seed = 1;
    const char *model = "llama-3-70b", *provider = NULL;
    bool hold = false;
    for (int i = 1; i < argc; i++) { /* --hold, --option value */
        if (strcmp(argv[i], "--hold") == 0) {
            hold = true;
            continue;
        }
        const char *opt = argv[i], *v = ++i < argc ? argv[i] : NULL;
        if (!v)
            return usage();
        if (strcmp(opt, "--port") == 0)
            port = strtol(v, NULL, 10);
        else if (strcmp(opt, "--seconds") == 0)
            seconds = strtod(v, NULL);
        else if (strcmp(opt, "--model") == 0)
            model = v;
        else if (strcmp(opt, "--seed") == 0)
            seed = strtoull(v, NULL, 10);
        else if (strcmp(opt, "--requests") == 0)
            requests = strtol(v, NULL, 10);
        else if (strcmp(opt, "--ramp") == 0)
            ramp = strtod(v, NULL);
        else if (strcmp(opt, "--names") == 0)
            names = names_of(v);
        else if (strcmp(opt, "--provider") == 0)
            provider = v;
        else
            return usage();
    }
    if (port < 0 || port > 65535 || !(seconds > 0) || requests < 0 || !(ramp >= 0) ||
        names < 0)
        return usage();

    for (int s = 0; s < SETS; s++) {
        scraped[s] = new_agg();
        if (!scraped[s] || llmlat_agg_set_label(scraped[s], "model", model) != LLMLAT_OK ||
            llmlat_agg_set_label(scraped[s], "provider", provider) != LLMLAT_OK) {
            fprintf(stderr, "prometheus-exporter: bad model or provider label\n");
            return 1;
        }
        if (llmlat_agg_set_label(scraped[s], "route", ROUTES[s]) != LLMLAT_OK ||
            llmlat_agg_set_label(scraped[s], "operation", OPERATIONS[s]) != LLMLAT_OK)
            return 1;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK); /* loopback only */
    socklen_t alen = sizeof addr;
    if (fd < 0 || bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&addr, &alen) != 0) {
        perror("prometheus-exporter: listen");
        return 1;
    }
    printf("listening on 127.0.0.1:%d\n", ntohs(addr.sin_port));
    fflush(stdout);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    for (int i = 0; i < WORKERS; i++) {
        worker *w = &workers[i];
        pthread_mutex_init(&w->lock, NULL);
        w->r.s = seed * 0x9e3779b97f4a7c15u + (uint64_t)i + 1;
        w->requests = requests / WORKERS + (i < requests % WORKERS);
        w->ramp_s = ramp;
        for (int s = 0; s < SETS; s++)
            if (!(w->agg[s] = new_agg()))
                return 1;
    }
    if (!hold)
        start_workload();

    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool done = false;
    while (!stop) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = seconds - (double)(now.tv_sec - t0.tv_sec) -
                      (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
        if (left <= 0)
            break;
        struct pollfd p = { fd, POLLIN, 0 };
        if (poll(&p, 1, left < 0.1 ? (int)(left * 1000) + 1 : 100) > 0) {
            int c = accept(fd, NULL, NULL);
            if (c >= 0) {
                handle(c);
                close(c);
            }
        }
        if (!done && atomic_load(&finished) == WORKERS) {
            printf("workload done: %ld requests\n", requests);
            fflush(stdout);
            done = true;
        }
    }
    close(fd);
    atomic_store(&stopping, true);
    for (int i = 0; i < WORKERS && started; i++)
        pthread_join(workers[i].thread, NULL);
    for (int s = 0; s < SETS; s++) {
        llmlat_agg_free(scraped[s]);
        for (int i = 0; i < WORKERS; i++)
            llmlat_agg_free(workers[i].agg[s]);
    }
    return 0;
}
