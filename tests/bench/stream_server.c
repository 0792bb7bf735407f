/* A scripted OpenAI-compatible streaming server for the tests and the
 * benchmark of `llmlat bench`: /v1/completions and /v1/chat/completions
 * stream events on a script (TTFT, gaps, tokens per chunk, stalls, usage,
 * errors, HTTP statuses, mid-stream closes, slow headers, ...), each event
 * written at its scheduled time from an epoll loop with a timerfd (one
 * thread, thousands of streams), and the time each event was written
 * logged, so that a client's timestamps can be checked against it.
 *
 * Usage: stream_server [--port P] [--seconds S] [--script SPEC]...
 *                      [--log FILE] [--stats FILE] [--requests-log FILE]
 *
 * It listens on 127.0.0.1:P (0, the default: any free port), prints
 * "listening on 127.0.0.1:PORT" on stdout, and exits after S seconds
 * (default 60) or on SIGTERM/SIGINT, writing the log and the stats.
 *
 * A request takes script number N mod (the number of --script), N the
 * number that ends its X-Request-Id header (llmlat bench's ids end in the
 * request's number), else its arrival order. A SPEC is comma-separated
 * KEY=VALUE (times in seconds):
 *   ttft=0.005 gap=0.005   the first event after the request arrived; then
 *                          one every gap
 *   tokens=8 chunk=1       content events (max: the request's max_tokens),
 *                          and tokens in each (its text has that many
 *                          words; its logprobs, asked for with "logprobs",
 *                          that many entries)
 *   stall_at=N stall=S     S more before content event N (0-based)
 *   spread=S               each stream's events S x frac(N x 0.618...)
 *                          later, N its number: the phases of many streams
 *                          spread evenly over S (a load without bursts)
 *   usage=1 done=1         the usage chunk, and data: [DONE]
 *   role=1                 chat's role chunk, with the first content event
 *   status=200             another status: a JSON error body instead
 *   error_after=N          an error chunk after N content events, then the
 *                          body's end (no [DONE])
 *   close_after=N          close the connection after N content events
 *   reset_after=N          reset it (RST) after N content events
 *   malformed_after=N      a chunk that is not JSON after N content events
 *   slow_headers=S         the head S after the request (else at once)
 *   head_with_first=1      the head with the first event (llama-server)
 *   framing=chunked|close  the body chunked, or ended by the close
 *   keepalive=1            Connection: keep-alive (0: close)
 *   fin_after_done=1       the server's FIN right after the response, though
 *                          it said keep-alive (as llama-server does)
 *   comment=1              an SSE comment before each event
 *   crlf=1 nospace=1       SSE lines end in CRLF; "data:" without a space
 *   split=S                each event in two writes, S apart
 * --requests-log FILE: each request's head and body as received, then a
 * line "----". --log FILE: one line per content event, "ID INDEX WRITE_NS SCHEDULED_NS"
 * (CLOCK_MONOTONIC, the write time read just before the event's bytes
 * were written). --stats FILE: JSON of the requests received and the
 * server's own lateness (write - scheduled) over every event: count, p50,
 * p99, max in ns. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_SCRIPTS 64
#define REQ_MAX (1 << 20)

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t secs(double s)
{
    return (int64_t)(s * 1e9 + 0.5);
}

/* ---------------------------------------------------------------- scripts */

typedef struct script {
    double ttft, gap, stall, slow_headers, split, spread;
    int tokens, chunk, stall_at, usage, done, role, status, error_after, close_after,
        malformed_after, reset_after, head_with_first, framing_close, keepalive, comment, crlf,
        nospace, fin_after_done;
} script;

static script parse_script(const char *spec)
{
    script s = { .ttft = 0.005, .gap = 0.005, .tokens = 8, .chunk = 1, .stall_at = -1,
                 .usage = 1, .done = 1, .role = 1, .status = 200, .error_after = -1,
                 .close_after = -1, .malformed_after = -1, .reset_after = -1, .keepalive = 1 };
    char *copy = strdup(spec), *save = NULL;
    for (char *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq) {
            fprintf(stderr, "stream_server: bad script item '%s'\n", kv);
            exit(2);
        }
        *eq = '\0';
        const char *k = kv, *v = eq + 1;
        double d = atof(v);
        int i = atoi(v);
        if (!strcmp(k, "ttft")) s.ttft = d;
        else if (!strcmp(k, "gap")) s.gap = d;
        else if (!strcmp(k, "stall")) s.stall = d;
        else if (!strcmp(k, "slow_headers")) s.slow_headers = d;
        else if (!strcmp(k, "split")) s.split = d;
        else if (!strcmp(k, "spread")) s.spread = d;
        else if (!strcmp(k, "tokens")) s.tokens = strcmp(v, "max") == 0 ? -1 : i;
        else if (!strcmp(k, "chunk")) s.chunk = i;
        else if (!strcmp(k, "stall_at")) s.stall_at = i;
        else if (!strcmp(k, "usage")) s.usage = i;
        else if (!strcmp(k, "done")) s.done = i;
        else if (!strcmp(k, "role")) s.role = i;
        else if (!strcmp(k, "status")) s.status = i;
        else if (!strcmp(k, "error_after")) s.error_after = i;
        else if (!strcmp(k, "close_after")) s.close_after = i;
        else if (!strcmp(k, "malformed_after")) s.malformed_after = i;
        else if (!strcmp(k, "reset_after")) s.reset_after = i;
        else if (!strcmp(k, "head_with_first")) s.head_with_first = i;
        else if (!strcmp(k, "framing")) s.framing_close = !strcmp(v, "close");
        else if (!strcmp(k, "keepalive")) s.keepalive = i;
        else if (!strcmp(k, "fin_after_done")) s.fin_after_done = i;
        else if (!strcmp(k, "comment")) s.comment = i;
        else if (!strcmp(k, "crlf")) s.crlf = i;
        else if (!strcmp(k, "nospace")) s.nospace = i;
        else {
            fprintf(stderr, "stream_server: unknown script key '%s'\n", k);
            exit(2);
        }
    }
    free(copy);
    return s;
}

/* ---------------------------------------------------------------- the log */

typedef struct log_entry {
    uint64_t id;
    uint32_t index;
    int64_t written, scheduled;
} log_entry;

static log_entry *g_log;
static uint64_t g_requests;
static FILE *g_requests_log;
static size_t g_log_n, g_log_cap;

static void log_event(uint64_t id, uint32_t index, int64_t written, int64_t scheduled)
{
    if (g_log_n == g_log_cap) {
        g_log_cap = g_log_cap ? g_log_cap * 2 : 65536;
        g_log = realloc(g_log, g_log_cap * sizeof *g_log);
        if (!g_log) {
            fprintf(stderr, "stream_server: out of memory\n");
            exit(1);
        }
    }
    g_log[g_log_n++] = (log_entry){ id, index, written, scheduled };
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void write_outputs(const char *log_path, const char *stats_path)
{
    if (log_path) {
        FILE *f = fopen(log_path, "w");
        if (!f) {
            perror(log_path);
            exit(1);
        }
        for (size_t i = 0; i < g_log_n; i++)
            fprintf(f, "%llu %u %lld %lld\n", (unsigned long long)g_log[i].id, g_log[i].index,
                    (long long)g_log[i].written, (long long)g_log[i].scheduled);
        fclose(f);
    }
    if (stats_path) {
        int64_t *late = malloc((g_log_n + 1) * sizeof *late);
        for (size_t i = 0; i < g_log_n; i++)
            late[i] = g_log[i].written - g_log[i].scheduled;
        qsort(late, g_log_n, sizeof *late, cmp_i64);
        FILE *f = fopen(stats_path, "w");
        if (!f) {
            perror(stats_path);
            exit(1);
        }
        size_t n = g_log_n;
        fprintf(f, "{\"requests\": %llu, \"events\": %zu, \"late_p50_ns\": %lld, "
                   "\"late_p99_ns\": %lld, \"late_max_ns\": %lld}\n",
                (unsigned long long)g_requests, n, n ? (long long)late[n / 2] : 0LL,
                n ? (long long)late[(size_t)((double)(n - 1) * 0.99)] : 0LL,
                n ? (long long)late[n - 1] : 0LL);
        fclose(f);
        free(late);
    }
}

/* ------------------------------------------------------------ connections */

enum { S_READ, S_STREAM };

typedef struct conn {
    struct conn *prev, *next; /* every connection, freed at exit */
    int fd;
    int state;
    char *in;
    size_t in_len;
    /* the response being streamed */
    const script *sc;
    uint64_t id;
    bool chat, logprobs, head_sent;
    int tokens;           /* content events of this response */
    int64_t t_req;
    int next_event;       /* content events written */
    char *out;            /* bytes the socket did not take yet */
    size_t out_len, out_off;
    int64_t due;          /* the next action, INT64_MAX: none */
    size_t heap_at;       /* its place in the heap, SIZE_MAX: none */
} conn;

/* A min-heap of connections by their next action's time. */
static conn **g_heap;
static size_t g_heap_n, g_heap_cap;

static void heap_swap(size_t a, size_t b)
{
    conn *t = g_heap[a];
    g_heap[a] = g_heap[b];
    g_heap[b] = t;
    g_heap[a]->heap_at = a;
    g_heap[b]->heap_at = b;
}

static void heap_up(size_t i)
{
    while (i > 0 && g_heap[(i - 1) / 2]->due > g_heap[i]->due) {
        heap_swap(i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_down(size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < g_heap_n && g_heap[l]->due < g_heap[m]->due)
            m = l;
        if (r < g_heap_n && g_heap[r]->due < g_heap[m]->due)
            m = r;
        if (m == i)
            return;
        heap_swap(i, m);
        i = m;
    }
}

static void heap_remove(conn *c)
{
    if (c->heap_at == SIZE_MAX)
        return;
    size_t i = c->heap_at;
    heap_swap(i, --g_heap_n);
    c->heap_at = SIZE_MAX;
    if (i < g_heap_n) {
        heap_up(i);
        heap_down(i);
    }
}

static void schedule(conn *c, int64_t due)
{
    heap_remove(c);
    c->due = due;
    if (g_heap_n == g_heap_cap) {
        g_heap_cap = g_heap_cap ? g_heap_cap * 2 : 1024;
        g_heap = realloc(g_heap, g_heap_cap * sizeof *g_heap);
    }
    g_heap[g_heap_n] = c;
    c->heap_at = g_heap_n++;
    heap_up(c->heap_at);
}

static int g_ep;
static script g_scripts[MAX_SCRIPTS];
static int g_nscripts;
static uint64_t g_arrivals;

static conn *g_conns;

static void conn_close(conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        g_conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    heap_remove(c);
    close(c->fd);
    free(c->in);
    free(c->out);
    free(c);
}

static void want_write(conn *c, bool on)
{
    struct epoll_event ev = { .events = EPOLLIN | (on ? EPOLLOUT : 0), .data.ptr = c };
    epoll_ctl(g_ep, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Writes bytes (after what is pending); false when the connection broke. */
static bool send_bytes(conn *c, const char *p, size_t n)
{
    if (c->out_len == c->out_off) {
        while (n) {
            ssize_t k = send(c->fd, p, n, MSG_NOSIGNAL);
            if (k < 0 && errno == EINTR)
                continue;
            if (k < 0 && errno == EAGAIN)
                break;
            if (k < 0)
                return false;
            p += k;
            n -= (size_t)k;
        }
        c->out_len = c->out_off = 0;
    }
    if (n) {
        c->out = realloc(c->out, c->out_len + n);
        memcpy(c->out + c->out_len, p, n);
        c->out_len += n;
        want_write(c, true);
    }
    return true;
}

/* ---------------------------------------------------------------- output */

typedef struct buf {
    char p[1 << 16];
    size_t n;
} buf;

static void put(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(b->p + b->n, sizeof b->p - b->n, fmt, ap);
    va_end(ap);
    if (k > 0)
        b->n += (size_t)k < sizeof b->p - b->n ? (size_t)k : sizeof b->p - b->n - 1;
}

static const char *eol(const conn *c)
{
    return c->sc->crlf ? "\r\n" : "\n";
}

/* One SSE event of data, in an HTTP chunk when the body is chunked. */
static void put_event(buf *b, const conn *c, const char *data)
{
    char ev[8192];
    size_t n = 0;
    if (c->sc->comment)
        n += (size_t)snprintf(ev + n, sizeof ev - n, ": ping%s", eol(c));
    n += (size_t)snprintf(ev + n, sizeof ev - n, "data:%s%s%s%s", c->sc->nospace ? "" : " ",
                          data, eol(c), eol(c));
    if (c->sc->framing_close)
        put(b, "%.*s", (int)n, ev);
    else
        put(b, "%zx\r\n%.*s\r\n", n, (int)n, ev);
}

static void put_head(buf *b, conn *c, int status, const char *type, long length)
{
    put(b, "HTTP/1.1 %d %s\r\nServer: stream_server\r\nContent-Type: %s\r\n", status,
        status == 200 ? "OK" : "Scripted", type);
    if (length >= 0)
        put(b, "Content-Length: %ld\r\n", length);
    else if (!c->sc->framing_close)
        put(b, "Transfer-Encoding: chunked\r\n");
    put(b, "Connection: %s\r\n\r\n",
        c->sc->keepalive && !c->sc->framing_close ? "keep-alive" : "close");
    c->head_sent = true;
}

static void content_chunk(buf *b, const conn *c)
{
    char words[1024] = "", lp[4096] = "";
    for (int k = 0; k < c->sc->chunk; k++) {
        strcat(words, " w");
        if (c->logprobs)
            snprintf(lp + strlen(lp), sizeof lp - strlen(lp),
                     "%s{\"token\":\" w\",\"logprob\":-0.5}", k ? "," : "");
    }
    char data[6144];
    if (c->chat)
        snprintf(data, sizeof data,
                 "{\"id\":\"chatcmpl-%llu\",\"object\":\"chat.completion.chunk\",\"choices\":"
                 "[{\"index\":0,\"delta\":{\"content\":\"%s\"},%s%s%s\"finish_reason\":null}]}",
                 (unsigned long long)c->id, words, c->logprobs ? "\"logprobs\":{\"content\":[" : "",
                 lp, c->logprobs ? "]}," : "");
    else
        snprintf(data, sizeof data,
                 "{\"id\":\"cmpl-%llu\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,"
                 "\"text\":\"%s\",%s%s%s\"finish_reason\":null}]}",
                 (unsigned long long)c->id, words, c->logprobs ? "\"logprobs\":{\"content\":[" : "",
                 lp, c->logprobs ? "]}," : "");
    put_event(b, c, data);
}

/* The end of a stream: the finish chunk, usage, [DONE], the coding's end. */
static void stream_end(buf *b, const conn *c)
{
    char data[512];
    snprintf(data, sizeof data,
             c->chat ? "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                       "\"delta\":{},\"finish_reason\":\"length\"}]}"
                     : "{\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"\","
                       "\"finish_reason\":\"length\"}]}");
    put_event(b, c, data);
    if (c->sc->usage) {
        snprintf(data, sizeof data,
                 "{\"object\":\"%s\",\"choices\":[],\"usage\":{\"prompt_tokens\":7,"
                 "\"completion_tokens\":%d,\"total_tokens\":%d}}",
                 c->chat ? "chat.completion.chunk" : "text_completion",
                 c->tokens * c->sc->chunk, 7 + c->tokens * c->sc->chunk);
        put_event(b, c, data);
    }
    if (c->sc->done)
        put_event(b, c, "[DONE]");
    if (!c->sc->framing_close)
        put(b, "0\r\n\r\n");
}

static int64_t event_time(const conn *c, int e)
{
    const script *s = c->sc;
    double phase = (double)c->id * 0.6180339887498949;
    phase -= (double)(uint64_t)phase;
    int64_t t = c->t_req + secs(s->ttft + s->spread * phase) + (int64_t)e * secs(s->gap);
    if (s->stall_at >= 0 && e >= s->stall_at)
        t += secs(s->stall);
    return t;
}

/* The response is over: the connection waits for the next request, or
 * closes. */
static void response_done(conn *c)
{
    heap_remove(c);
    if (!c->sc->keepalive || c->sc->framing_close || c->sc->fin_after_done) {
        shutdown(c->fd, SHUT_WR); /* closed once the client closes, or at exit */
        c->state = S_READ;
        c->sc = NULL;
        return;
    }
    c->state = S_READ;
    c->sc = NULL;
}

/* The action due on c. */
static void act(conn *c)
{
    const script *s = c->sc;
    static buf b; /* one thread */
    b.n = 0;
    if (s->status != 200) {
        char body[256];
        int n = snprintf(body, sizeof body,
                         "{\"error\":{\"message\":\"scripted status %d\",\"type\":\"test\","
                         "\"code\":%d}}",
                         s->status, s->status);
        put_head(&b, c, s->status, "application/json", n);
        put(&b, "%s", body);
        if (!send_bytes(c, b.p, b.n)) {
            conn_close(c);
            return;
        }
        response_done(c);
        return;
    }
    if (!c->head_sent && !s->head_with_first) {
        put_head(&b, c, 200, "text/event-stream", -1);
        if (!send_bytes(c, b.p, b.n)) {
            conn_close(c);
            return;
        }
        schedule(c, event_time(c, 0));
        return;
    }
    if (!c->head_sent)
        put_head(&b, c, 200, "text/event-stream", -1);
    int e = c->next_event;
    if (e == 0 && c->chat && s->role)
        put_event(&b, c,
                  "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
                  "{\"role\":\"assistant\",\"content\":null},\"finish_reason\":null}]}");
    if (e == s->malformed_after)
        put_event(&b, c, "{\"choices\":[{\"text\":\"x\"");
    if (e == s->error_after) {
        put_event(&b, c, "{\"error\":{\"message\":\"scripted error\",\"type\":\"test\"}}");
        if (!s->framing_close)
            put(&b, "0\r\n\r\n");
        if (!send_bytes(c, b.p, b.n)) {
            conn_close(c);
            return;
        }
        response_done(c);
        return;
    }
    if (e == s->close_after || e == s->reset_after) {
        if (b.n)
            send_bytes(c, b.p, b.n);
        if (e == s->reset_after) { /* an RST instead of a FIN */
            struct linger lg = { 1, 0 };
            setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
        }
        conn_close(c);
        return;
    }
    content_chunk(&b, c);
    c->next_event = ++e;
    if (e == c->tokens)
        stream_end(&b, c);
    int64_t written = now_ns();
    log_event(c->id, (uint32_t)(e - 1), written, c->due);
    bool ok;
    if (s->split > 0) { /* two writes, split apart: two reads at the client */
        size_t half = b.n / 2;
        ok = send_bytes(c, b.p, half);
        struct timespec ts = { 0, (long)(s->split * 1e9) };
        nanosleep(&ts, NULL);
        ok = ok && send_bytes(c, b.p + half, b.n - half);
    } else {
        ok = send_bytes(c, b.p, b.n);
    }
    if (!ok) {
        conn_close(c);
        return;
    }
    if (e == c->tokens)
        response_done(c);
    else
        schedule(c, event_time(c, e));
}

/* ---------------------------------------------------------------- requests */

static const char *find_header(const char *head, const char *name)
{
    size_t n = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line; line = strstr(line, "\r\n")) {
        line += 2;
        if (strncasecmp(line, name, n) == 0 && line[n] == ':')
            return line + n + 1 + strspn(line + n + 1, " ");
    }
    return NULL;
}

static void respond_plain(conn *c, int status, const char *type, const char *body)
{
    char head[512];
    int n = snprintf(head, sizeof head,
                     "HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
                     "Connection: keep-alive\r\n\r\n%s",
                     status, type, strlen(body), body);
    send_bytes(c, head, (size_t)n);
}

/* A whole request in c->in: its script starts. Returns the bytes it took,
 * 0 when it is not whole yet. */
static size_t take_request(conn *c)
{
    char *end = memmem(c->in, c->in_len, "\r\n\r\n", 4);
    if (!end)
        return 0;
    size_t head_len = (size_t)(end - c->in) + 4;
    char saved = c->in[head_len - 1];
    c->in[head_len - 1] = '\0';
    const char *cl = find_header(c->in, "content-length");
    size_t body_len = cl ? strtoul(cl, NULL, 10) : 0;
    c->in[head_len - 1] = saved;
    if (c->in_len < head_len + body_len)
        return 0;
    c->in[head_len - 1] = '\0';
    if (strncmp(c->in, "GET /v1/models", 14) == 0) {
        respond_plain(c, 200, "application/json",
                      "{\"object\":\"list\",\"data\":[{\"id\":\"test-model\",\"object\":"
                      "\"model\"}]}");
        return head_len + body_len;
    }
    if (strncmp(c->in, "GET ", 4) == 0) {
        respond_plain(c, 200, "text/plain", "ok\n");
        return head_len + body_len;
    }
    const char *rid = find_header(c->in, "x-request-id");
    uint64_t n = g_arrivals++;
    if (rid) {
        const char *stop = rid + strcspn(rid, "\r\n"), *d = stop;
        while (d > rid && d[-1] >= '0' && d[-1] <= '9')
            d--;
        if (d < stop)
            n = strtoull(d, NULL, 10);
    }
    c->id = n;
    c->sc = &g_scripts[n % (uint64_t)g_nscripts];
    c->chat = strstr(c->in, "/chat/completions") != NULL;
    c->logprobs = memmem(c->in + head_len, body_len, "\"logprobs\"", 10) != NULL;
    c->tokens = c->sc->tokens;
    const char *mt = memmem(c->in + head_len, body_len, "\"max_tokens\":", 13);
    if (c->tokens < 0)
        c->tokens = mt ? atoi(mt + 13) : 8;
    if (g_requests_log) {
        fwrite(c->in, 1, head_len - 1, g_requests_log);
        fputc('\n', g_requests_log);
        fwrite(c->in + head_len, 1, body_len, g_requests_log);
        fputs("\n----\n", g_requests_log);
    }
    g_requests++;
    c->head_sent = false;
    c->next_event = 0;
    c->t_req = now_ns();
    c->state = S_STREAM;
    const script *s = c->sc;
    if (s->status != 200)
        schedule(c, c->t_req + secs(s->slow_headers > 0 ? s->slow_headers : s->ttft));
    else if (!s->head_with_first)
        schedule(c, c->t_req + secs(s->slow_headers));
    else
        schedule(c, event_time(c, 0));
    return head_len + body_len;
}

static void readable(conn *c)
{
    char tmp[65536];
    for (;;) {
        ssize_t n = recv(c->fd, tmp, sizeof tmp, 0);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            conn_close(c);
            return;
        }
        if (n < 0)
            break;
        if (c->in_len + (size_t)n > REQ_MAX) {
            conn_close(c);
            return;
        }
        c->in = realloc(c->in, c->in_len + (size_t)n + 1);
        memcpy(c->in + c->in_len, tmp, (size_t)n);
        c->in_len += (size_t)n;
    }
    while (c->state == S_READ && c->in_len) {
        size_t took = take_request(c);
        if (!took)
            break;
        memmove(c->in, c->in + took, c->in_len - took);
        c->in_len -= took;
    }
}

static void writable(conn *c)
{
    while (c->out_off < c->out_len) {
        ssize_t k = send(c->fd, c->out + c->out_off, c->out_len - c->out_off, MSG_NOSIGNAL);
        if (k < 0 && errno == EAGAIN)
            return;
        if (k < 0) {
            conn_close(c);
            return;
        }
        c->out_off += (size_t)k;
    }
    c->out_len = c->out_off = 0;
    want_write(c, false);
}

/* ---------------------------------------------------------------- main */

static char LISTEN_TAG, TIMER_TAG, SIGNAL_TAG;

int main(int argc, char **argv)
{
    int port = 0;
    double seconds = 60;
    const char *log_path = NULL, *stats_path = NULL;
    for (int i = 1; i < argc; i += 2) { /* OPTION VALUE pairs */
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "stream_server: %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "--port"))
            port = atoi(v);
        else if (!strcmp(a, "--seconds"))
            seconds = atof(v);
        else if (!strcmp(a, "--script") && g_nscripts < MAX_SCRIPTS)
            g_scripts[g_nscripts++] = parse_script(v);
        else if (!strcmp(a, "--log"))
            log_path = v;
        else if (!strcmp(a, "--stats"))
            stats_path = v;
        else if (!strcmp(a, "--requests-log"))
            g_requests_log = fopen(v, "w");
        else {
            fprintf(stderr, "stream_server: unknown option %s\n", a);
            return 2;
        }
    }
    if (g_nscripts == 0)
        g_scripts[g_nscripts++] = parse_script("");
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    int sfd = signalfd(-1, &set, SFD_CLOEXEC);

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(lfd, 4096) != 0) {
        perror("stream_server: listen");
        return 1;
    }
    socklen_t len = sizeof sa;
    getsockname(lfd, (struct sockaddr *)&sa, &len);
    printf("listening on 127.0.0.1:%d\n", ntohs(sa.sin_port));
    fflush(stdout);

    g_ep = epoll_create1(EPOLL_CLOEXEC);
    int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &LISTEN_TAG };
    epoll_ctl(g_ep, EPOLL_CTL_ADD, lfd, &ev);
    ev.data.ptr = &TIMER_TAG;
    epoll_ctl(g_ep, EPOLL_CTL_ADD, tfd, &ev);
    ev.data.ptr = &SIGNAL_TAG;
    epoll_ctl(g_ep, EPOLL_CTL_ADD, sfd, &ev);

    int64_t end = now_ns() + secs(seconds), armed = -1;
    struct epoll_event events[256];
    for (;;) {
        int64_t now = now_ns();
        if (now >= end)
            break;
        while (g_heap_n && g_heap[0]->due <= now) {
            conn *c = g_heap[0];
            heap_remove(c);
            act(c);
            now = now_ns();
        }
        int64_t wake = g_heap_n && g_heap[0]->due < end ? g_heap[0]->due : end;
        if (wake != armed) {
            struct itimerspec its = { .it_value = { wake / 1000000000, wake % 1000000000 } };
            timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
            armed = wake;
        }
        int n = epoll_wait(g_ep, events, 256, -1);
        bool stop = false;
        for (int i = 0; i < n; i++) {
            void *tag = events[i].data.ptr;
            if (tag == &SIGNAL_TAG) {
                stop = true;
            } else if (tag == &TIMER_TAG) {
                uint64_t ticks;
                if (read(tfd, &ticks, sizeof ticks) > 0)
                    armed = -1;
            } else if (tag == &LISTEN_TAG) {
                for (;;) {
                    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
                    if (fd < 0)
                        break;
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    conn *c = calloc(1, sizeof *c);
                    c->fd = fd;
                    c->next = g_conns;
                    if (g_conns)
                        g_conns->prev = c;
                    g_conns = c;
                    c->heap_at = SIZE_MAX;
                    struct epoll_event cev = { .events = EPOLLIN, .data.ptr = c };
                    epoll_ctl(g_ep, EPOLL_CTL_ADD, fd, &cev);
                }
            } else {
                conn *c = tag;
                if (events[i].events & EPOLLOUT) {
                    writable(c);
                    continue; /* c may be gone; its reading comes next time */
                }
                readable(c);
            }
        }
        if (stop)
            break;
    }
    write_outputs(log_path, stats_path);
    if (g_requests_log)
        fclose(g_requests_log);
    while (g_conns)
        conn_close(g_conns);
    free(g_heap);
    free(g_log);
    close(g_ep);
    close(tfd);
    close(lfd);
    close(sfd);
    return 0;
}
