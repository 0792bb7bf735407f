#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "bench_monitor.h"

#define PROG "llmlat bench"
#define WINDOW_S 10
#define LATE_WARNING_NS INT64_C(10000000) /* the client 10 ms late: say so */

/* ------------------------------------------------------------ the port */

static bool metrics_listen(monitor *m, const bench_options *o)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
    struct addrinfo *res;
    char port[16];
    snprintf(port, sizeof port, "%d", o->metrics_port);
    int rc = getaddrinfo(o->metrics_host, port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, PROG ": --metrics-host %s: %s\n", o->metrics_host, gai_strerror(rc));
        return false;
    }
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd < 0 || bind(fd, res->ai_addr, res->ai_addrlen) != 0 || listen(fd, 64) != 0) {
        fprintf(stderr, PROG ": cannot listen on %s port %d: %s\n", o->metrics_host,
                o->metrics_port, strerror(errno));
        if (fd >= 0)
            close(fd);
        freeaddrinfo(res);
        return false;
    }
    freeaddrinfo(res);
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    char host[64] = "?", serv[8] = "?";
    getsockname(fd, (struct sockaddr *)&sa, &len);
    getnameinfo((struct sockaddr *)&sa, len, host, sizeof host, serv, sizeof serv,
                NI_NUMERICHOST | NI_NUMERICSERV);
    fprintf(stderr, PROG ": metrics on http://%s%s%s:%s/metrics\n",
            strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "", serv);
    m->metrics_fd = fd;
    return true;
}

static int32_t send_all(void *user, const void *bytes, size_t len)
{
    int fd = *(int *)user;
    const char *p = bytes;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 1;
        p += n;
        len -= (size_t)n;
    }
    return LLMLAT_OK;
}

/* The format a scrape asks for: ?format= first, then the Accept header
 * (protobuf when offered, as Prometheus with native histograms offers it;
 * else OpenMetrics; else text 0.0.4). */
static int32_t scrape_format(const char *target, const char *head)
{
    const char *q = strchr(target, '?');
    if (q && strcmp(q, "?format=text") == 0)
        return LLMLAT_FORMAT_PROMETHEUS;
    if (q && strcmp(q, "?format=openmetrics") == 0)
        return LLMLAT_FORMAT_OPENMETRICS;
    if (q && strcmp(q, "?format=protobuf") == 0)
        return LLMLAT_FORMAT_PROMETHEUS_PROTOBUF;
    const char *accept = strcasestr(head, "\naccept:");
    size_t n = accept ? strcspn(accept + 1, "\r\n") : 0;
    char line[1024] = "";
    snprintf(line, sizeof line, "%.*s", (int)n, accept ? accept + 1 : "");
    if (strstr(line, "application/vnd.google.protobuf") &&
        strstr(line, "proto=io.prometheus.client.MetricFamily") &&
        strstr(line, "encoding=delimited"))
        return LLMLAT_FORMAT_PROMETHEUS_PROTOBUF;
    if (strstr(line, "application/openmetrics-text"))
        return LLMLAT_FORMAT_OPENMETRICS;
    return LLMLAT_FORMAT_PROMETHEUS;
}

static void respond(int fd, const char *status, const char *text)
{
    char head[256];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
                     "Connection: close\r\n\r\n%s",
                     status, strlen(text), text);
    send_all(&fd, head, (size_t)n);
}

/* One scrape, answered on the monitor's thread (a second's read limit). */
static void serve_one(monitor *m)
{
    int fd = accept4(m->metrics_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    struct timeval tv = { 1, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char head[8192];
    size_t len = 0;
    while (len < sizeof head - 1) {
        ssize_t n = recv(fd, head + len, sizeof head - 1 - len, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
        head[len] = '\0';
        if (strstr(head, "\r\n\r\n"))
            break;
    }
    head[len] = '\0';
    char method[8], target[512];
    if (sscanf(head, "%7s %511s", method, target) != 2) {
        close(fd);
        return;
    }
    if (strcmp(method, "GET") != 0) {
        respond(fd, "405 Method Not Allowed", "GET /metrics\n");
    } else if (strncmp(target, "/metrics", 8) != 0 || (target[8] && target[8] != '?')) {
        respond(fd, "404 Not Found", "GET /metrics\n");
    } else if (llmlat_live_snapshot(m->live, LLMLAT_SNAPSHOT_CUMULATIVE, m->scrape) !=
               LLMLAT_OK) {
        respond(fd, "500 Internal Server Error", "no snapshot\n");
    } else {
        int32_t format = scrape_format(target, head);
        char h[256];
        int n = snprintf(h, sizeof h,
                         "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nConnection: close\r\n\r\n",
                         llmlat_format_content_type(format));
        const llmlat_agg *aggs[1] = { m->scrape };
        if (send_all(&fd, h, (size_t)n) == LLMLAT_OK)
            llmlat_expose_write(aggs, 1, format, send_all, &fd);
    }
    close(fd);
}

/* ------------------------------------------------------------ set-up */

bool monitor_open(monitor *m, const bench_options *o, llmlat_live *live,
                  const llmlat_agg *live_like)
{
    *m = (monitor){ .o = o, .sigfd = -1, .metrics_fd = -1, .live = live };
    m->progress = !o->quiet && isatty(STDERR_FILENO);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0 ||
        (m->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        fprintf(stderr, PROG ": cannot watch for signals: %s\n", strerror(errno));
        return false;
    }
    m->scrape = llmlat_agg_new_like(live_like);
    m->interval = llmlat_agg_new_like(live_like);
    if (!m->scrape || !m->interval) {
        fprintf(stderr, PROG ": out of memory\n");
        return false;
    }
    return o->metrics_port < 0 || metrics_listen(m, o);
}

void monitor_close(monitor *m)
{
    if (m->sigfd >= 0)
        close(m->sigfd);
    if (m->metrics_fd >= 0)
        close(m->metrics_fd);
    llmlat_agg_free(m->scrape);
    llmlat_agg_free(m->interval);
    m->sigfd = m->metrics_fd = -1;
    m->scrape = m->interval = NULL;
}

/* Signals waiting to be read: counted. */
static int take_signals(monitor *m)
{
    struct signalfd_siginfo si;
    int n = 0;
    while (read(m->sigfd, &si, sizeof si) == (ssize_t)sizeof si)
        n++;
    m->signals += n;
    return n;
}

bool monitor_interrupted(monitor *m)
{
    take_signals(m);
    return m->signals > 0;
}

/* ------------------------------------------------------- the progress line */

typedef struct progress {
    llmlat_window *window;      /* TTFT, ITL and dispatch delay of the last 10 s */
    uint64_t sent[WINDOW_S + 1];   /* requests sent, as of each of the last seconds */
    uint64_t ticks;
    bool shown;
} progress;

static uint64_t sum_stat(worker **w, uint32_t n, size_t offset)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += atomic_load_explicit(
            (atomic_uint_fast64_t *)(void *)((char *)worker_get_stats(w[i]) + offset),
            memory_order_relaxed);
    return total;
}

#define STAT(w, n, field) sum_stat(w, n, offsetof(worker_stats, field))

/* "12.3 ms" for a time in seconds, "-" when undefined. */
static void ms(char *out, size_t cap, double s)
{
    if (isnan(s) || s < 0)
        snprintf(out, cap, "-");
    else
        snprintf(out, cap, "%.1f", s * 1e3);
}

static void quantiles(const llmlat_agg *view, int32_t metric, char *p50, char *p99, size_t cap)
{
    double a = NAN, b = NAN;
    llmlat_agg_quantile(view, metric, 0.5, &a);
    llmlat_agg_quantile(view, metric, 0.99, &b);
    ms(p50, cap, a);
    ms(p99, cap, b);
}

static void progress_tick(monitor *m, progress *p, bench_run *r, worker **w, uint32_t n)
{
    int64_t now = llmlat_now_ns();
    const bench_options *o = r->o;
    /* this second's measurements into the window */
    if (llmlat_live_snapshot(m->live, LLMLAT_SNAPSHOT_INTERVAL, m->interval) == LLMLAT_OK)
        llmlat_window_merge(p->window, m->interval, now);
    llmlat_window_advance(p->window, now);
    int64_t late = 0;
    for (uint32_t i = 0; i < n; i++) {
        int64_t l = atomic_exchange(&worker_get_stats(w[i])->lag_max_ns, 0);
        late = l > late ? l : late;
    }
    uint64_t sent = STAT(w, n, sent), done = STAT(w, n, done), failed = STAT(w, n, failed),
             inflight = STAT(w, n, inflight), waiting = STAT(w, n, waiting);
    p->ticks++;
    memmove(p->sent + 1, p->sent, WINDOW_S * sizeof p->sent[0]);
    p->sent[0] = sent;
    uint64_t span = p->ticks < WINDOW_S ? p->ticks : WINDOW_S;
    double elapsed = (double)(now - r->t0) / 1e9;
    double achieved = (double)(sent - p->sent[span]) / (double)span;
    if (p->ticks <= WINDOW_S && elapsed > 0)
        achieved = (double)sent / elapsed;

    const llmlat_agg *view = NULL;
    llmlat_window_view(p->window, &view);
    char t50[16], t99[16], i50[16], i99[16], d50[16], d99[16], target[48], rate[48];
    quantiles(view, LLMLAT_TTFT, t50, t99, sizeof t50);
    quantiles(view, LLMLAT_ITL, i50, i99, sizeof i50);
    quantiles(view, LLMLAT_DISPATCH_DELAY, d50, d99, sizeof d50);
    if (o->duration_s)
        snprintf(target, sizeof target, "%.0f/%.0f s", elapsed, o->duration_s);
    else
        snprintf(target, sizeof target, "%.0f s", elapsed);
    if (r->count != UINT64_MAX)
        snprintf(target + strlen(target), sizeof target - strlen(target), ", %llu/%llu",
                 (unsigned long long)done, (unsigned long long)r->count);
    if (o->closed)
        snprintf(rate, sizeof rate, "%.1f req/s (concurrency %u)", achieved, r->concurrency);
    else if (o->replay || isinf(r->rate))
        snprintf(rate, sizeof rate, "%.1f req/s", achieved);
    else
        snprintf(rate, sizeof rate, "%.1f/%g req/s", achieved, r->rate);
    char line[512], late_text[64] = "";
    if (late > LATE_WARNING_NS)
        snprintf(late_text, sizeof late_text, " \033[1mBEHIND SCHEDULE %.1f ms\033[0m",
                 (double)late / 1e6);
    int len = snprintf(line, sizeof line,
                       "[%s] done %llu, in flight %llu, waiting %llu, failed %llu | %s%s | "
                       "TTFT %s/%s ms, ITL %s/%s ms (p50/p99) | dispatch p99 %s ms",
                       target, (unsigned long long)done, (unsigned long long)inflight,
                       (unsigned long long)waiting, (unsigned long long)failed, rate,
                       late_text, t50, t99, i50, i99, d99);
    /* one terminal line: a wrapped one would not be overwritten */
    struct winsize ws;
    int cols = ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20 ? ws.ws_col : 200;
    int visible = len - (late_text[0] ? 8 : 0); /* the escapes take no column */
    if (visible >= cols)
        len -= visible - (cols - 1);
    fprintf(stderr, "\r\033[K%.*s", len > 0 ? len : 0, line);
    fflush(stderr);
    p->shown = true;
}

/* ------------------------------------------------------------- the watch */

/* The signals so far ask the run to stop sending (one), or to stop now
 * (two or more). */
static void on_signal(monitor *m, bench_run *r, worker **w, uint32_t n)
{
    take_signals(m);
    int want = m->signals >= 2 ? STOP_NOW : m->signals == 1 ? STOP_SENDING : STOP_NONE;
    int stop = atomic_load(&r->stop);
    if (want <= stop)
        return;
    if (stop == STOP_NONE) {
        r->drain_until = llmlat_now_ns() + (int64_t)(r->o->drain_s * 1e9);
        fprintf(stderr, "%s" PROG ": interrupted: no more requests; the streams in flight "
                        "have %g s to finish (interrupt again to stop now)\n",
                m->progress ? "\n" : "", r->o->drain_s);
    }
    if (want == STOP_NOW)
        fprintf(stderr, PROG ": stopping now\n");
    atomic_store(&r->stop, want);
    for (uint32_t i = 0; i < n; i++)
        worker_wake(w[i]);
}

void monitor_run(monitor *m, bench_run *r, worker **w, uint32_t n)
{
    progress p = { 0 };
    int tick = -1;
    if (m->progress) {
        /* the window starts empty: what earlier runs left is taken out */
        llmlat_live_snapshot(m->live, LLMLAT_SNAPSHOT_INTERVAL, m->interval);
        p.window = llmlat_window_new(m->interval, INT64_C(1000000000) * WINDOW_S,
                                     INT64_C(1000000000), NULL);
        tick = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        struct itimerspec its = { .it_interval = { 1, 0 }, .it_value = { 1, 0 } };
        if (!p.window || tick < 0 || timerfd_settime(tick, 0, &its, NULL) != 0) {
            m->progress = false;
            if (tick >= 0)
                close(tick);
            tick = -1;
        }
    }
    on_signal(m, r, w, n); /* a signal before the run: it stops at once */
    for (;;) {
        struct pollfd fds[4] = {
            { .fd = r->done_fd, .events = POLLIN },
            { .fd = m->sigfd, .events = POLLIN },
            { .fd = m->metrics_fd, .events = POLLIN },
            { .fd = tick, .events = POLLIN },
        };
        if (poll(fds, 4, -1) < 0 && errno != EINTR)
            break;
        if (fds[1].revents)
            on_signal(m, r, w, n);
        if (fds[2].revents)
            serve_one(m);
        if (fds[3].revents) {
            uint64_t ticks;
            if (read(tick, &ticks, sizeof ticks) > 0)
                progress_tick(m, &p, r, w, n);
        }
        if (fds[0].revents)
            break;
    }
    if (p.shown) {
        progress_tick(m, &p, r, w, n);
        fputc('\n', stderr);
    }
    if (tick >= 0)
        close(tick);
    llmlat_window_free(p.window);
}
