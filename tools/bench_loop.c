/* One thread of `llmlat bench`: an epoll loop over non-blocking sockets
 * that sends its share of a run's requests when they are due and records
 * their streams.
 *
 * Where the times come from (docs/bench.md): a request's intended start is
 * its arrival (open loop, replay) or the end of the one before it (closed
 * loop); the loop wakes at it on a timerfd armed at that absolute time
 * (CLOCK_MONOTONIC, TFD_TIMER_ABSTIME, timer slack 1 ns), so lateness
 * never accumulates. Its start is read just before the first byte of the
 * request is written; each read that returns bytes is timed right after it
 * returns, and every event parsed from those bytes gets that time; the
 * end is the time of the read that decided the outcome ([DONE], an error,
 * the close), or of the timeout or cancellation. A request that fails
 * before a byte could be written (no connection) starts when its
 * connection was attempted.
 *
 * The sockets are edge-triggered; the reads of one epoll batch are all
 * made (and timed) before any of them is parsed, so a stream's time does
 * not wait for the parsing of the streams ahead of it in the batch.
 *
 * Requests are recorded into llmlat recorders (kept and reused), written
 * to the trace as each ends, and added to the thread's exact aggregator
 * (the report) and to the live recorder (progress line, metrics port).
 * Connections are kept alive and reused, unless the server closed them; a
 * request whose reused connection turns out closed by the server before
 * any byte of a response is sent again once on a new one. */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "bench_arrival.h"
#include "bench_run.h"
#include "completion_stream.h"

#define PROG "llmlat bench"
#define MAX_EVENTS 256
#define READ_SIZE (1 << 16)
#define SLAB_SIZE (1 << 20)
#define DRAIN_LIMIT_NS INT64_C(10000000000) /* a body's rest after [DONE] */
#define NS 1000000000.0

/* ----------------------------------------------------------------- lists */

typedef struct node {
    struct node *prev, *next;
} node;

typedef struct list {
    node head; /* circular, with this sentinel */
    size_t n;
} list;

#define CONTAINER(p, type, field) ((type *)(void *)((char *)(p) - offsetof(type, field)))

static void list_init(list *l)
{
    l->head.prev = l->head.next = &l->head;
    l->n = 0;
}

static void list_push(list *l, node *x)
{
    x->prev = l->head.prev;
    x->next = &l->head;
    l->head.prev->next = x;
    l->head.prev = x;
    l->n++;
}

static void list_remove(list *l, node *x)
{
    x->prev->next = x->next;
    x->next->prev = x->prev;
    x->prev = x->next = x;
    l->n--;
}

static node *list_first(list *l)
{
    return l->n ? l->head.next : NULL;
}

/* -------------------------------------------------------------- the parts */

typedef struct req {
    node link;            /* in waiting, inflight or free_reqs */
    uint64_t index;
    uint32_t user;        /* closed loop: whose request */
    int64_t intended, picked, deadline;
    work_item item;
    llmlat_request *rec;
    bench_buf out;        /* the HTTP request */
    size_t sent;
    struct conn *c;
    bool started, retried, refused;
    char id[40];
} req;

enum { C_CONNECTING, C_HANDSHAKE, C_WRITING, C_READING, C_DRAINING, C_IDLE, C_CLOSED };

typedef struct freed_slot {
    uint32_t user;
    int64_t t;
} freed_slot;

typedef struct conn {
    node link;            /* in connecting, draining, idle or closed */
    int fd;
    tls_session *tls;
    int state;
    bool readable;        /* data came while the request was being written */
    bool peer_closed;     /* an edge said the server closed its side (RDHUP, HUP) */
    req *q;
    bool reused;          /* it carried a request before */
    int64_t deadline;     /* connecting, draining */
    completion_stream stream;
} conn;

struct worker {
    bench_run *r;
    uint32_t id, threads;
    int ep, timer, wake;
    int64_t armed;
    list free_reqs, waiting, inflight, idle, connecting, draining, closed;
    uint64_t active;      /* picked and not ended */
    /* open loop and replay */
    arrivals arr;
    uint64_t arr_index, next_index;
    int64_t next_due;
    uint32_t cap;
    /* closed loop */
    uint32_t users;
    bool schedule_done, cancelled_all;
    llmlat_agg *agg;
    llmlat_live_writer *live;
    failure_counts failures;
    worker_stats stats;
    uint64_t not_sent, logprobs_missing;
    bool broken;
    int64_t read_time;    /* the read being parsed */
    req *reading;
    freed_slot *freed;    /* slots freed, in order (release_slot) */
    size_t n_freed, cap_freed;
    bool releasing;
    char rbuf[READ_SIZE];
    char slab[SLAB_SIZE];  /* the reads of one epoll batch, taken before any is parsed */
};

static char TIMER_TAG, WAKE_TAG; /* epoll data of the timerfd and eventfd */

/* ---------------------------------------------------------------- helpers */

void failures_add(failure_counts *f, const char *kind, uint64_t n)
{
    for (size_t i = 0; i < f->count; i++) {
        if (strcmp(f->kind[i], kind) == 0) {
            f->n[i] += n;
            return;
        }
    }
    size_t i = f->count < FAILURE_KINDS ? f->count++ : FAILURE_KINDS - 1;
    if (i == FAILURE_KINDS - 1)
        snprintf(f->kind[i], sizeof f->kind[i], "%s", "other");
    else
        snprintf(f->kind[i], sizeof f->kind[i], "%s", kind);
    f->n[i] += n;
}

/* A failure's kind: its reason up to the first ':' or " (". */
static void reason_kind(const char *reason, char *kind, size_t cap)
{
    size_t n = strcspn(reason, ":");
    const char *paren = strstr(reason, " (");
    if (paren && (size_t)(paren - reason) < n)
        n = (size_t)(paren - reason);
    snprintf(kind, cap, "%.*s", (int)n, reason);
}

static void stat_max(atomic_int_fast64_t *a, int64_t v)
{
    int_fast64_t cur = atomic_load_explicit(a, memory_order_relaxed);
    while (v > cur && !atomic_compare_exchange_weak_explicit(a, &cur, v, memory_order_relaxed,
                                                             memory_order_relaxed))
        ;
}

/* ------------------------------------------------------------ connections */

/* Closes c. Its memory is freed only after the epoll batch being handled
 * (conn_free_closed): a later event of the batch may still point to it, and
 * must find it closed rather than another connection's. */
static void conn_close(worker *w, conn *c)
{
    if (c->state == C_CONNECTING || c->state == C_HANDSHAKE)
        list_remove(&w->connecting, &c->link);
    else if (c->state == C_DRAINING)
        list_remove(&w->draining, &c->link);
    else if (c->state == C_IDLE)
        list_remove(&w->idle, &c->link);
    tls_session_free(c->tls);
    c->tls = NULL;
    close(c->fd);
    c->fd = -1;
    c->state = C_CLOSED;
    stream_free(&c->stream);
    list_push(&w->closed, &c->link);
}

static void conn_free_closed(worker *w)
{
    while (w->closed.n) {
        node *n = list_first(&w->closed);
        list_remove(&w->closed, n);
        free(CONTAINER(n, conn, link));
    }
}

/* A new connection for q, its connect under way. NULL with *err. */
static conn *conn_open(worker *w, req *q, int64_t now, int *err)
{
    const bench_run *r = w->r;
    conn *c = calloc(1, sizeof *c);
    if (!c) {
        *err = ENOMEM;
        return NULL;
    }
    c->fd = socket(r->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        *err = errno;
        free(c);
        return NULL;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (const struct sockaddr *)&r->addr, r->addr_len) != 0 &&
        errno != EINPROGRESS) {
        *err = errno;
        close(c->fd);
        free(c);
        return NULL;
    }
    /* edge-triggered, both ways, once: no epoll_ctl per request; a read
     * shorter than asked drained the socket, so no read ends in EAGAIN */
    struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET,
                              .data.ptr = c };
    if (epoll_ctl(w->ep, EPOLL_CTL_ADD, c->fd, &ev) != 0) {
        *err = errno;
        close(c->fd);
        free(c);
        return NULL;
    }
    stream_init(&c->stream, r->o->count_tokens);
    c->state = C_CONNECTING;
    c->deadline = now + (int64_t)(r->o->connect_timeout_s * NS);
    list_push(&w->connecting, &c->link);
    c->q = q;
    q->c = c;
    return c;
}

/* ---------------------------------------------------------------- ending */

static void dispatch(worker *w, req *q, int64_t now);
static void start_user(worker *w, uint32_t user, int64_t intended);
static void release_slot(worker *w, uint32_t user, int64_t t);

static req *req_take(worker *w)
{
    node *n = list_first(&w->free_reqs);
    if (n) {
        list_remove(&w->free_reqs, n);
        return CONTAINER(n, req, link);
    }
    req *q = calloc(1, sizeof *q);
    if (q && !(q->rec = llmlat_request_new())) {
        free(q);
        q = NULL;
    }
    if (q)
        q->link.prev = q->link.next = &q->link;
    return q;
}

static void req_give_back(worker *w, req *q)
{
    llmlat_request_reset(q->rec);
    q->c = NULL;
    q->started = q->retried = q->refused = false;
    q->sent = 0;
    list_push(&w->free_reqs, &q->link);
}

/* What ends a request. */
enum { END_OK, END_FAILED, END_CANCELLED };

/* A slot a request left: the closed loop's user sends its next request,
 * the open loop's first waiting request goes. */
static void slot_freed(worker *w, uint32_t user, int64_t t)
{
    if (w->r->o->closed) {
        start_user(w, user, t);
    } else if (w->waiting.n && atomic_load(&w->r->stop) == STOP_NONE &&
               llmlat_now_ns() < w->r->stop_at) {
        node *n = list_first(&w->waiting);
        list_remove(&w->waiting, n);
        atomic_fetch_sub_explicit(&w->stats.waiting, 1, memory_order_relaxed);
        dispatch(w, CONTAINER(n, req, link), llmlat_now_ns());
    }
}

/* slot_freed, in a loop rather than a recursion: a request that fails as
 * it is sent (no socket, no memory) frees its slot inside the dispatch
 * that a freed slot started. */
static void release_slot(worker *w, uint32_t user, int64_t t)
{
    if (w->n_freed == w->cap_freed) {
        size_t cap = w->cap_freed ? w->cap_freed * 2 : 64;
        freed_slot *grown = realloc(w->freed, cap * sizeof *grown);
        if (!grown) {
            w->broken = true;
            return;
        }
        w->freed = grown;
        w->cap_freed = cap;
    }
    w->freed[w->n_freed++] = (freed_slot){ user, t };
    if (w->releasing)
        return;
    w->releasing = true;
    for (size_t i = 0; i < w->n_freed; i++)
        slot_freed(w, w->freed[i].user, w->freed[i].t);
    w->n_freed = 0;
    w->releasing = false;
}

/* Records q's end at t and sends what its end makes due. c (may be NULL)
 * is the connection's stream, for the usage counts and the status. */
static void end_request(worker *w, req *q, int how, int64_t t, const char *reason,
                        const completion_stream *s)
{
    bench_run *r = w->r;
    if (q->started) {
        list_remove(&w->inflight, &q->link);
    } else { /* failed before a byte was written: started at its connect attempt */
        llmlat_request_schedule(q->rec, q->intended);
        llmlat_request_start(q->rec, q->picked);
    }
    if (s && s->has_completion_tokens)
        llmlat_request_set_output_tokens(q->rec, s->completion_tokens);
    llmlat_request_set_input_tokens(q->rec, s && s->has_prompt_tokens ? s->prompt_tokens
                                                                     : q->item.input_len);
    int32_t st = how == END_OK     ? llmlat_request_finish(q->rec, t)
                 : how == END_FAILED ? llmlat_request_fail(q->rec, t)
                                     : llmlat_request_cancel(q->rec, t);
    if (st == LLMLAT_OK) {
        trace_extra x = { .id = q->id,
                          .status = s && s->http.head_done ? s->http.status : 0,
                          .error = how == END_FAILED ? reason : NULL };
        trace_write(r->trace, q->rec, &x);
        if (llmlat_agg_add(w->agg, q->rec) != LLMLAT_OK ||
            llmlat_live_add(w->live, q->rec) != LLMLAT_OK)
            w->broken = true;
    } else {
        w->broken = true;
    }
    if (how == END_FAILED) {
        char kind[32];
        reason_kind(reason, kind, sizeof kind);
        failures_add(&w->failures, kind, 1);
        atomic_fetch_add_explicit(&w->stats.failed, 1, memory_order_relaxed);
    } else if (how == END_CANCELLED) {
        atomic_fetch_add_explicit(&w->stats.cancelled, 1, memory_order_relaxed);
    }
    if (s)
        w->logprobs_missing += s->logprobs_missing;
    atomic_fetch_add_explicit(&w->stats.done, 1, memory_order_relaxed);
    atomic_fetch_sub_explicit(&w->stats.inflight, 1, memory_order_relaxed);
    w->active--;
    uint32_t user = q->user;
    req_give_back(w, q);
    release_slot(w, user, t);
}

/* The connection's request fails for a reason of its own (timeout, the
 * socket's error) at t; the connection is closed. */
static void conn_fail(worker *w, conn *c, int64_t t, const char *fmt, const char *detail)
{
    req *q = c->q;
    c->q = NULL;
    if (q) {
        stream_fail(&c->stream, fmt, detail);
        q->c = NULL;
        end_request(w, q, END_FAILED, t, c->stream.reason, &c->stream);
    }
    conn_close(w, c);
}

/* A reused connection the server had closed: q goes again, once, on a new
 * connection (no byte of a response came: nothing was measured). */
static bool retry(worker *w, conn *c)
{
    req *q = c->q;
    if (!q || !c->reused || q->retried || c->stream.http.head_len || c->stream.http.status)
        return false;
    if (q->started) {
        list_remove(&w->inflight, &q->link);
        llmlat_request_reset(q->rec);
        q->started = false;
    }
    c->q = NULL;
    q->c = NULL;
    q->retried = true;
    q->sent = 0;
    conn_close(w, c);
    int err;
    if (!conn_open(w, q, llmlat_now_ns(), &err)) {
        char reason[96];
        snprintf(reason, sizeof reason, "cannot connect: %s", strerror(err));
        end_request(w, q, END_FAILED, llmlat_now_ns(), reason, NULL);
    }
    return true;
}

/* ---------------------------------------------------------------- sending */

static void conn_readable(worker *w, conn *c);

static void conn_send(worker *w, conn *c)
{
    req *q = c->q;
    bench_run *r = w->r;
    if (!q->started) {
        stream_begin(&c->stream);
        c->readable = false;
        int64_t t = llmlat_now_ns(); /* just before the first byte is written */
        if (llmlat_request_schedule(q->rec, q->intended) != LLMLAT_OK ||
            llmlat_request_start(q->rec, t) != LLMLAT_OK)
            w->broken = true;
        q->started = true;
        q->deadline = t + (int64_t)(r->o->timeout_s * NS);
        list_push(&w->inflight, &q->link);
        if (!q->retried)
            atomic_fetch_add_explicit(&w->stats.sent, 1, memory_order_relaxed);
    }
    while (q->sent < q->out.len) {
        ssize_t n;
        int want = 0;
        if (c->tls) {
            n = tls_write(c->tls, q->out.p + q->sent, q->out.len - q->sent, &want);
        } else {
            n = send(c->fd, q->out.p + q->sent, q->out.len - q->sent, MSG_NOSIGNAL);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                n = TLS_AGAIN;
                want = TLS_WANT_WRITE;
            } else if (n < 0 && errno == EINTR) {
                continue;
            } else if (n < 0) {
                n = TLS_FAILED;
            }
        }
        if (n == TLS_AGAIN) /* the next edge goes on */
            return;
        if (n == TLS_FAILED) {
            int err = errno;
            if (retry(w, c))
                return;
            conn_fail(w, c, llmlat_now_ns(), "%s",
                      c->tls ? tls_error(c->tls) : strerror(err));
            return;
        }
        q->sent += (size_t)n;
    }
    c->state = C_READING;
    if (c->readable) { /* its edge came while writing: it will not come again */
        c->readable = false;
        conn_readable(w, c);
    }
}

/* After the connect: TLS's handshake, or the request. */
static void conn_connected(worker *w, conn *c)
{
    if (w->r->tls && !c->tls) {
        c->tls = tls_session_new(w->r->tls, c->fd, w->r->o->url.host);
        if (!c->tls) {
            conn_fail(w, c, llmlat_now_ns(), "cannot connect: %s", "out of memory");
            return;
        }
        c->state = C_HANDSHAKE;
    }
    if (c->state == C_HANDSHAKE) {
        int want = 0, rc = tls_handshake(c->tls, &want);
        if (rc == TLS_AGAIN)
            return;
        if (rc == TLS_FAILED) {
            conn_fail(w, c, llmlat_now_ns(), "cannot connect: %s", tls_error(c->tls));
            return;
        }
    }
    list_remove(&w->connecting, &c->link);
    c->state = C_WRITING;
    conn_send(w, c);
}

/* q goes out: on an idle connection at once, else on a new one. */
static void dispatch(worker *w, req *q, int64_t now)
{
    bench_run *r = w->r;
    q->picked = now;
    workload_item(r->w, q->index, &q->item);
    snprintf(q->id, sizeof q->id, "%s-%llu", r->tag, (unsigned long long)q->index);
    workload_request(r->w, q->index, &q->item, q->id, &q->out);
    atomic_fetch_add_explicit(&w->stats.inflight, 1, memory_order_relaxed);
    if (q->out.failed) {
        end_request(w, q, END_FAILED, llmlat_now_ns(), "client: out of memory", NULL);
        return;
    }
    node *n = list_first(&w->idle);
    if (n) {
        list_remove(&w->idle, n);
        conn *c = CONTAINER(n, conn, link);
        c->q = q;
        q->c = c;
        c->state = C_WRITING;
        conn_send(w, c);
        return;
    }
    int err;
    if (!conn_open(w, q, now, &err)) {
        char reason[96];
        snprintf(reason, sizeof reason, "cannot connect: %s", strerror(err));
        end_request(w, q, END_FAILED, llmlat_now_ns(), reason, NULL);
    }
}

/* ---------------------------------------------------------------- reading */

static int on_event(void *user, uint32_t k)
{
    worker *w = user;
    req *q = w->reading;
    if (!q)
        return 0; /* the rest of a body after [DONE] */
    if (llmlat_request_event(q->rec, w->read_time, k) != LLMLAT_OK) {
        q->refused = true;
        return 1;
    }
    return 0;
}

/* The request of c decided (outcome) at t: the connection goes idle,
 * drains the rest of the body, or is closed -- before anything the end
 * makes due is sent, so that it can take this connection. */
static void decided(worker *w, conn *c, int outcome, int64_t t, bool extra_bytes)
{
    req *q = c->q;
    c->q = NULL;
    q->c = NULL;
    bool complete = stream_http_complete(&c->stream);
    completion_stream s = c->stream; /* its counts, copied before the connection goes */
    if (q->refused)
        stream_fail(&s, "client: the event was not recorded (out of memory)");
    /* a response that ended with the server's close (its edge seen, its
     * zero-byte read not made) is no connection to reuse */
    bool keep = outcome == STREAM_OK && complete && c->stream.http.keep_alive && !extra_bytes &&
                !c->peer_closed;
    if (keep) {
        c->state = C_IDLE;
        c->reused = true;
        list_push(&w->idle, &c->link);
    } else if (outcome == STREAM_OK && !complete && c->stream.http.keep_alive &&
               !c->peer_closed) {
        c->state = C_DRAINING;
        c->deadline = t + DRAIN_LIMIT_NS;
        list_push(&w->draining, &c->link);
    } else {
        conn_close(w, c);
    }
    end_request(w, q, s.outcome == STREAM_OK ? END_OK : END_FAILED, t, s.reason, &s);
}

/* Bytes read at t. Returns false when c was closed or given away (or
 * idle: its response ended). */
static bool conn_feed(worker *w, conn *c, const char *buf, size_t n, int64_t t)
{
    size_t off = 0;
    w->read_time = t;
    w->reading = c->q;
    while (off < n) {
        size_t used;
        int rc = stream_feed(&c->stream, buf + off, n - off, &used, on_event, w);
        off += used;
        bool complete = stream_http_complete(&c->stream);
        if (c->q && rc != STREAM_MORE) {
            bool draining = rc == STREAM_OK && !complete && c->stream.http.keep_alive &&
                            !c->peer_closed;
            decided(w, c, rc, t, complete && off < n);
            w->reading = NULL;
            return draining; /* a draining connection is still read */
        }
        if (c->state == C_DRAINING && (complete || rc == STREAM_FAILED)) {
            bool keep = complete && off == n && !c->peer_closed;
            list_remove(&w->draining, &c->link);
            if (keep) {
                c->state = C_IDLE;
                c->reused = true;
                list_push(&w->idle, &c->link);
            } else {
                c->state = C_READING; /* out of every list */
                conn_close(w, c);
            }
            return false;
        }
        if (used == 0)
            break;
    }
    w->reading = NULL;
    return true;
}

/* The peer closed c at t (or reset it: err). */
static void conn_ended(worker *w, conn *c, int64_t t, int err)
{
    if (c->state == C_DRAINING || !c->q) {
        conn_close(w, c);
        return;
    }
    if (retry(w, c))
        return;
    if (err)
        stream_fail(&c->stream, "%s", err == ECONNRESET ? "connection reset by the server"
                                                          : strerror(err));
    int rc = stream_eof(&c->stream);
    req *q = c->q;
    c->q = NULL;
    q->c = NULL;
    completion_stream s = c->stream;
    conn_close(w, c);
    end_request(w, q, rc == STREAM_OK ? END_OK : END_FAILED, t, s.reason, &s);
}

/* One read of c into buf: bytes (> 0), 0 at the close, TLS_AGAIN, or
 * TLS_FAILED with *err. */
static ssize_t conn_read(conn *c, char *buf, size_t cap, int *err)
{
    int want = 0;
    *err = 0;
    if (c->tls) {
        ssize_t n = tls_read(c->tls, buf, cap, &want);
        if (n == TLS_FAILED)
            *err = ECONNRESET;
        return n;
    }
    for (;;) {
        ssize_t n = recv(c->fd, buf, cap, 0);
        if (n >= 0)
            return n;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return TLS_AGAIN;
        *err = errno;
        return TLS_FAILED;
    }
}

/* What one read of c gave at t: its bytes (already in buf) fed, or the
 * close. Returns true when c may have more to read. */
static bool conn_took(worker *w, conn *c, const char *buf, ssize_t n, int err, int64_t t,
                      size_t cap)
{
    if (n > 0) {
        if (!conn_feed(w, c, buf, (size_t)n, t))
            return false;
        /* a plain read shorter than asked drained the socket; TLS may hold
         * a record's rest, or the socket more records */
        if ((size_t)n == cap || c->tls)
            return true;
        if (c->peer_closed) /* drained, and the server's close came with the edge */
            conn_ended(w, c, t, 0);
        return false;
    }
    if (n == TLS_AGAIN)
        return false;
    conn_ended(w, c, t, n == 0 ? 0 : err);
    return false;
}

/* Reads c until it is drained (its edge was taken). */
static void conn_readable(worker *w, conn *c)
{
    bool more = true;
    while (more) {
        int err;
        ssize_t n = conn_read(c, w->rbuf, READ_SIZE, &err);
        int64_t t = llmlat_now_ns(); /* right after the read returned */
        more = conn_took(w, c, w->rbuf, n, err, t, READ_SIZE);
    }
}

static void conn_event(worker *w, conn *c, uint32_t events)
{
    if (events & (EPOLLRDHUP | EPOLLHUP))
        c->peer_closed = true;
    switch (c->state) {
    case C_CLOSED: /* closed earlier in this batch */
        return;
    case C_CONNECTING: {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err == 0 && (events & (EPOLLERR | EPOLLHUP)))
            err = ECONNREFUSED;
        if (err) {
            conn_fail(w, c, llmlat_now_ns(),
                      err == ECONNREFUSED ? "connection refused%s" : "cannot connect: %s",
                      err == ECONNREFUSED ? "" : strerror(err));
            return;
        }
        conn_connected(w, c);
        return;
    }
    case C_HANDSHAKE:
        conn_connected(w, c);
        return;
    case C_WRITING:
        if (events & (EPOLLIN | EPOLLRDHUP))
            c->readable = true;
        conn_send(w, c);
        return;
    case C_IDLE: /* the server closed a connection at rest, or spoke out of turn */
        if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
            conn_close(w, c);
        return;
    default: /* READING, DRAINING: an edge of writability alone brings nothing */
        if (c->tls || (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
            conn_readable(w, c);
    }
}

/* -------------------------------------------------------------- schedule */

/* The next request of this thread in the open loop: its number and when
 * it is due (the arrival process runs through every request, each thread
 * taking its own, so a run is the same whatever the thread count). */
static void next_arrival(worker *w)
{
    bench_run *r = w->r;
    while (!w->schedule_done) {
        uint64_t i = w->arr_index++;
        if (i >= r->count) {
            w->schedule_done = true;
            break;
        }
        int64_t offset;
        if (r->w->n_replay) {
            work_item it;
            workload_item(r->w, i, &it);
            offset = it.offset_ns;
        } else {
            offset = arrivals_next(&w->arr);
        }
        int64_t due = offset > INT64_MAX - r->t0 ? INT64_MAX : r->t0 + offset;
        if (due >= r->stop_at) {
            w->schedule_done = true;
            break;
        }
        if (i % w->threads == w->id) {
            w->next_index = i;
            w->next_due = due;
            return;
        }
    }
    w->next_due = INT64_MAX;
}

/* Closed loop: user sends the next request of the run, meant to start at
 * intended (the end of its last one). */
static void start_user(worker *w, uint32_t user, int64_t intended)
{
    bench_run *r = w->r;
    if (w->schedule_done || intended >= r->stop_at)
        return;
    uint64_t i = atomic_fetch_add(&r->next_closed, 1);
    if (i >= r->count)
        return;
    req *q = req_take(w);
    if (!q) {
        w->broken = true;
        return;
    }
    q->index = i;
    q->user = user;
    q->intended = intended;
    w->active++;
    dispatch(w, q, llmlat_now_ns());
}

/* The open loop's requests that are due. */
static void run_schedule(worker *w, int64_t now)
{
    while (!w->schedule_done && w->next_due <= now) {
        req *q = req_take(w);
        if (!q) {
            w->broken = true;
            w->schedule_done = true;
            return;
        }
        q->index = w->next_index;
        q->intended = w->next_due;
        w->active++;
        next_arrival(w);
        if (w->cap && w->active > w->cap) { /* waits for a slot: the wait is measured */
            list_push(&w->waiting, &q->link);
            atomic_fetch_add_explicit(&w->stats.waiting, 1, memory_order_relaxed);
            continue;
        }
        stat_max(&w->stats.lag_max_ns, now - q->intended);
        dispatch(w, q, now);
        now = llmlat_now_ns();
    }
}

/* ---------------------------------------------------------------- time */

/* The requests waiting for a slot: due, and now never sent. */
static void drop_waiting(worker *w)
{
    while (w->waiting.n) {
        node *n = list_first(&w->waiting);
        list_remove(&w->waiting, n);
        atomic_fetch_sub_explicit(&w->stats.waiting, 1, memory_order_relaxed);
        w->active--;
        w->not_sent++;
        req_give_back(w, CONTAINER(n, req, link));
    }
}

static void cancel_all(worker *w, int64_t now)
{
    drop_waiting(w);
    while (w->connecting.n) { /* no byte written */
        conn *c = CONTAINER(list_first(&w->connecting), conn, link);
        req *q = c->q;
        c->q = NULL;
        conn_close(w, c);
        if (q) {
            atomic_fetch_sub_explicit(&w->stats.inflight, 1, memory_order_relaxed);
            w->active--;
            w->not_sent++;
            req_give_back(w, q);
        }
    }
    while (w->inflight.n) {
        req *q = CONTAINER(list_first(&w->inflight), req, link);
        conn *c = q->c;
        completion_stream s; /* its counts, copied before the connection goes */
        if (c) {
            c->q = NULL;
            q->c = NULL;
            s = c->stream;
            conn_close(w, c);
        }
        end_request(w, q, END_CANCELLED, now, NULL, c ? &s : NULL);
    }
    w->cancelled_all = true;
}

/* What a signal asked, and the deadlines that passed. */
static void expire(worker *w, int64_t now)
{
    bench_run *r = w->r;
    int stop = atomic_load(&r->stop);
    if (stop != STOP_NONE && !w->schedule_done) {
        w->schedule_done = true;
        w->next_due = INT64_MAX;
    }
    if (stop != STOP_NONE || now >= r->stop_at) /* nothing is sent after --duration */
        drop_waiting(w);
    if (!w->cancelled_all && (stop == STOP_NOW || (stop == STOP_SENDING && now >= r->drain_until)))
        cancel_all(w, now);
    while (w->inflight.n) {
        req *q = CONTAINER(list_first(&w->inflight), req, link);
        if (q->deadline > now)
            break;
        char reason[64];
        snprintf(reason, sizeof reason, "timeout (%g s from the start)", r->o->timeout_s);
        conn_fail(w, q->c, now, "%s", reason);
    }
    while (w->connecting.n) {
        conn *c = CONTAINER(list_first(&w->connecting), conn, link);
        if (c->deadline > now)
            break;
        char reason[64];
        snprintf(reason, sizeof reason, "%g s", r->o->connect_timeout_s);
        conn_fail(w, c, now, "cannot connect: timeout (%s)", reason);
    }
    while (w->draining.n) {
        conn *c = CONTAINER(list_first(&w->draining), conn, link);
        if (c->deadline > now)
            break;
        conn_close(w, c);
    }
}

static int64_t earliest(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* The next time the loop must wake without a socket's event. */
static int64_t next_deadline(worker *w)
{
    bench_run *r = w->r;
    int64_t t = INT64_MAX;
    if (!w->schedule_done)
        t = w->next_due;
    if (w->inflight.n)
        t = earliest(t, CONTAINER(list_first(&w->inflight), req, link)->deadline);
    if (w->connecting.n)
        t = earliest(t, CONTAINER(list_first(&w->connecting), conn, link)->deadline);
    if (w->draining.n)
        t = earliest(t, CONTAINER(list_first(&w->draining), conn, link)->deadline);
    if (atomic_load(&r->stop) == STOP_SENDING && !w->cancelled_all)
        t = earliest(t, r->drain_until);
    if (w->waiting.n)
        t = earliest(t, r->stop_at);
    return t;
}

static void arm(worker *w, int64_t t)
{
    if (t == w->armed)
        return;
    struct itimerspec its = { 0 };
    if (t != INT64_MAX) {
        int64_t at = t > 0 ? t : 1; /* 0 would disarm */
        its.it_value.tv_sec = at / 1000000000;
        its.it_value.tv_nsec = at % 1000000000;
    }
    timerfd_settime(w->timer, TFD_TIMER_ABSTIME, &its, NULL);
    w->armed = t;
}

/* --------------------------------------------------------------- the loop */

/* A read made for an event of the batch, before any event is handled. */
typedef struct batch_read {
    bool taken;
    ssize_t n;
    int err;
    int64_t t;
    size_t at; /* in the slab */
} batch_read;

/* First the reads of every stream the batch found readable, each timed as
 * it returns, into the slab; then (the caller) the parsing, recording and
 * sending. So a stream's time does not wait for the parsing of the
 * streams before it in the batch, only for their reads. Only requests'
 * connections are read early: handling an event never closes another such
 * one (only idle or connecting ones), so none goes before its turn. TLS
 * reads come in their turn (a record may need more than one). */
static void read_batch(worker *w, const struct epoll_event *events, int n, batch_read *reads)
{
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        conn *c = events[i].data.ptr;
        reads[i].taken = false;
        uint32_t readable = EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR;
        if ((void *)c == &TIMER_TAG || (void *)c == &WAKE_TAG || c->state != C_READING ||
            !c->q || c->tls || !(events[i].events & readable) || used + READ_SIZE > SLAB_SIZE)
            continue;
        batch_read *b = &reads[i];
        if (events[i].events & (EPOLLRDHUP | EPOLLHUP))
            c->peer_closed = true;
        b->taken = true;
        b->at = used;
        b->n = conn_read(c, w->slab + used, READ_SIZE, &b->err);
        b->t = llmlat_now_ns(); /* right after the read returned */
        if (b->n > 0)
            used += (size_t)b->n;
    }
}

void *worker_main(void *arg)
{
    worker *w = arg;
    bench_run *r = w->r;
    prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* wake at the deadline, not up to 50 us later */
    if (r->o->closed) { /* every user's first request is due at the origin */
        struct timespec at = { .tv_sec = r->t0 / 1000000000, .tv_nsec = r->t0 % 1000000000 };
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
            ;
        for (uint32_t u = 0; u < w->users; u++)
            start_user(w, u, r->t0);
        w->schedule_done = w->schedule_done || atomic_load(&r->next_closed) >= r->count;
    } else {
        next_arrival(w);
    }
    struct epoll_event events[MAX_EVENTS];
    batch_read reads[MAX_EVENTS];
    for (;;) {
        int64_t now = llmlat_now_ns();
        expire(w, now);
        if (!r->o->closed)
            run_schedule(w, now);
        else if (atomic_load(&r->next_closed) >= r->count || now >= r->stop_at)
            w->schedule_done = true;
        /* the closed loop's users start their next request as one ends:
         * none in flight, none to come */
        if (w->active == 0 && (w->schedule_done || w->broken || r->o->closed))
            break;
        arm(w, next_deadline(w));
        int n = epoll_wait(w->ep, events, MAX_EVENTS, -1);
        read_batch(w, events, n, reads);
        for (int i = 0; i < n; i++) {
            void *tag = events[i].data.ptr;
            if (tag == &TIMER_TAG || tag == &WAKE_TAG) {
                uint64_t ticks;
                if (read(tag == &TIMER_TAG ? w->timer : w->wake, &ticks, sizeof ticks) < 0)
                    continue;
                if (tag == &TIMER_TAG)
                    w->armed = INT64_MAX;
                continue;
            }
            const batch_read *b = &reads[i];
            if (!b->taken || ((conn *)tag)->state == C_CLOSED)
                conn_event(w, tag, events[i].events);
            else if (conn_took(w, tag, w->slab + b->at, b->n, b->err, b->t, READ_SIZE))
                conn_readable(w, tag);
        }
        conn_free_closed(w);
    }
    while (w->idle.n)
        conn_close(w, CONTAINER(list_first(&w->idle), conn, link));
    while (w->draining.n)
        conn_close(w, CONTAINER(list_first(&w->draining), conn, link));
    conn_free_closed(w);
    if (atomic_fetch_sub(&r->running, 1) == 1) {
        uint64_t one = 1;
        if (write(r->done_fd, &one, sizeof one) < 0)
            w->broken = true;
    }
    return NULL;
}

void worker_wake(worker *w)
{
    uint64_t one = 1;
    if (write(w->wake, &one, sizeof one) < 0) {
        /* the counter is full: the loop has a wake-up pending anyway */
    }
}

/* ---------------------------------------------------------------- set-up */

static bool add_fd(int ep, int fd, void *tag)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };
    return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == 0;
}

worker *worker_new(bench_run *r, uint32_t id)
{
    worker *w = calloc(1, sizeof *w);
    if (!w) {
        fprintf(stderr, PROG ": out of memory\n");
        return NULL;
    }
    w->r = r;
    w->id = id;
    w->threads = r->o->threads;
    w->armed = INT64_MAX;
    list_init(&w->free_reqs);
    list_init(&w->waiting);
    list_init(&w->inflight);
    list_init(&w->idle);
    list_init(&w->connecting);
    list_init(&w->draining);
    list_init(&w->closed);
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    w->timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    w->wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    w->agg = llmlat_agg_new_like(r->like);
    w->live = llmlat_live_writer_new(r->live);
    if (w->ep < 0 || w->timer < 0 || w->wake < 0 || !add_fd(w->ep, w->timer, &TIMER_TAG) ||
        !add_fd(w->ep, w->wake, &WAKE_TAG) || !w->agg || !w->live) {
        fprintf(stderr, PROG ": cannot set up an event loop: %s\n",
                w->agg && w->live ? strerror(errno) : "out of memory");
        worker_free(w);
        return NULL;
    }
    /* this thread's share of the open loop's cap and of the closed loop's
     * users */
    uint32_t t = w->threads;
    if (r->o->max_concurrency)
        w->cap = r->o->max_concurrency / t + (id < r->o->max_concurrency % t);
    if (r->o->max_concurrency && w->cap == 0)
        w->cap = 1;
    if (r->o->closed)
        w->users = r->concurrency / t + (id < r->concurrency % t);
    else
        arrivals_init(&w->arr, r->o->seed, r->o->arrival, r->o->gamma_shape, r->rate);
    return w;
}

void worker_free(worker *w)
{
    if (!w)
        return;
    while (w->free_reqs.n) {
        req *q = CONTAINER(list_first(&w->free_reqs), req, link);
        list_remove(&w->free_reqs, &q->link);
        llmlat_request_free(q->rec);
        buf_free(&q->out);
        free(q);
    }
    if (w->ep >= 0)
        close(w->ep);
    if (w->timer >= 0)
        close(w->timer);
    if (w->wake >= 0)
        close(w->wake);
    llmlat_live_writer_free(w->live);
    llmlat_agg_free(w->agg);
    free(w->freed);
    free(w);
}

worker_stats *worker_get_stats(worker *w)
{
    return &w->stats;
}


const llmlat_agg *worker_agg(const worker *w)
{
    return w->agg;
}

const failure_counts *worker_failures(const worker *w)
{
    return &w->failures;
}

uint64_t worker_not_sent(const worker *w)
{
    return w->not_sent;
}

uint64_t worker_logprobs_missing(const worker *w)
{
    return w->logprobs_missing;
}

bool worker_broken(const worker *w)
{
    return w->broken;
}
