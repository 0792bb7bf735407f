#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_buf.h"
#include "bench_probe.h"
#include "http_response.h"
#include "json_scan.h"
#include "llmlat.h"

#define PROG "llmlat bench"
#define MODELS_BODY_MAX (1u << 20)

/* Waits until fd is ready for `events` or the deadline passed. */
static bool wait_for(int fd, short events, int64_t deadline)
{
    for (;;) {
        int64_t left = (deadline - llmlat_now_ns()) / 1000000;
        if (left < 0)
            return false;
        struct pollfd p = { .fd = fd, .events = events };
        int n = poll(&p, 1, (int)(left > 1000 ? 1000 : left) + 1);
        if (n > 0)
            return true;
        if (n < 0 && errno != EINTR)
            return false;
    }
}

/* A connected socket to one address, or -1 with *err. */
static int connect_one(const struct addrinfo *ai, int64_t deadline, int *err)
{
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        *err = errno;
        return -1;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
        *err = errno;
        close(fd);
        return -1;
    }
    if (!wait_for(fd, POLLOUT, deadline)) {
        *err = ETIMEDOUT;
        close(fd);
        return -1;
    }
    socklen_t len = sizeof *err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, err, &len);
    if (*err) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The stream to the server over fd (TLS or not), for the models request. */
typedef struct probe_link {
    int fd;
    tls_session *tls;
    int64_t deadline;
} probe_link;

static bool link_write(probe_link *l, const char *p, size_t n)
{
    while (n) {
        int want = TLS_WANT_WRITE;
        ssize_t k = l->tls ? tls_write(l->tls, p, n, &want) : send(l->fd, p, n, MSG_NOSIGNAL);
        if (k > 0) {
            p += k;
            n -= (size_t)k;
        } else if (!((l->tls && k == TLS_AGAIN) || (!l->tls && errno == EAGAIN)) ||
                   !wait_for(l->fd, want == TLS_WANT_READ ? POLLIN : POLLOUT, l->deadline)) {
            return false;
        }
    }
    return true;
}

/* Bytes read (> 0), 0 at the close, -1 on an error or the deadline. */
static ssize_t link_read(probe_link *l, char *p, size_t n)
{
    for (;;) {
        int want = TLS_WANT_READ;
        ssize_t k = l->tls ? tls_read(l->tls, p, n, &want) : recv(l->fd, p, n, 0);
        if (k >= 0)
            return k;
        if (!((l->tls && k == TLS_AGAIN) || (!l->tls && errno == EAGAIN)) ||
            !wait_for(l->fd, want == TLS_WANT_WRITE ? POLLOUT : POLLIN, l->deadline))
            return -1;
    }
}

static int collect(void *user, const char *p, size_t n)
{
    bench_buf *b = user;
    if (b->len + n > MODELS_BODY_MAX)
        return 1;
    buf_add(b, p, n);
    return 0;
}

/* The first "id" of {"data": [{"id": ...}, ...]}. */
static bool first_model(const char *json, size_t n, char *model, size_t cap)
{
    json_cur c;
    json_init(&c, json, n);
    char key[16];
    bool more;
    if (!json_open(&c, '{'))
        return false;
    while (json_next(&c, '}', &more) && more) {
        if (!json_key(&c, key, sizeof key))
            return false;
        if (strcmp(key, "data") != 0 || json_peek(&c) != '[') {
            json_skip(&c);
            continue;
        }
        json_open(&c, '[');
        if (!json_next(&c, ']', &more) || !more || !json_open(&c, '{'))
            return false;
        while (json_next(&c, '}', &more) && more) {
            if (!json_key(&c, key, sizeof key))
                return false;
            if (strcmp(key, "id") == 0 && json_peek(&c) == '"') {
                size_t len;
                return json_string(&c, model, cap, &len) && len > 0 && len < cap;
            }
            json_skip(&c);
        }
        return false;
    }
    return false;
}

/* GET /v1/models over l: the first model's name into model. */
static void ask_model(const bench_options *o, probe_link *l, char *model, size_t cap)
{
    char path[URL_PATH_MAX + 16];
    bench_buf req = { 0 }, body = { 0 };
    bench_url_path(&o->url, "/v1/models", path, sizeof path);
    buf_printf(&req, "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: llmlat-bench/%s\r\n"
                     "Accept: application/json\r\nConnection: close\r\n",
               path, o->url.authority, llmlat_version_string());
    if (o->api_key)
        buf_printf(&req, "Authorization: Bearer %s\r\n", o->api_key);
    for (size_t h = 0; h < o->n_headers; h++) {
        const char *colon = strchr(o->headers[h], ':');
        buf_printf(&req, "%.*s: %s\r\n", (int)(colon - o->headers[h]), o->headers[h],
                   colon + 1 + strspn(colon + 1, " \t"));
    }
    buf_str(&req, "\r\n");
    http_response *h = malloc(sizeof *h);
    bool ok = h && !req.failed && link_write(l, req.p, req.len);
    if (h)
        http_response_init(h);
    char chunk[4096];
    int rc = HTTP_MORE;
    while (ok && rc == HTTP_MORE) {
        ssize_t n = link_read(l, chunk, sizeof chunk);
        size_t used;
        if (n > 0)
            rc = http_response_feed(h, chunk, (size_t)n, &used, collect, &body);
        else if (n == 0)
            rc = http_response_eof(h);
        else
            ok = false;
    }
    model[0] = '\0';
    if (ok && rc == HTTP_DONE && h->status == 200 && !body.failed)
        first_model(body.p ? body.p : "", body.len, model, cap);
    if (!model[0])
        fprintf(stderr, PROG ": no --model, and GET %s named none: the requests name no "
                        "model\n", path);
    free(h);
    buf_free(&req);
    buf_free(&body);
}

int probe_server(const bench_options *o, tls_context *tls, struct sockaddr_storage *addr,
                 socklen_t *addr_len, char *model, size_t model_cap)
{
    int64_t deadline = llmlat_now_ns() + (int64_t)(o->connect_timeout_s * 1e9);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
                              .ai_flags = AI_NUMERICSERV };
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(o->url.host, o->url.port, &hints, &res);
    if (rc != 0) {
        fprintf(stderr, PROG ": cannot reach %s: %s\n", o->base_url, gai_strerror(rc));
        return 1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = connect_one(ai, deadline, &err);
        if (fd >= 0) {
            memcpy(addr, ai->ai_addr, ai->ai_addrlen);
            *addr_len = ai->ai_addrlen;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        fprintf(stderr, PROG ": cannot reach %s: %s\n", o->base_url,
                err == ETIMEDOUT ? "no answer within --connect-timeout" : strerror(err));
        return 1;
    }
    probe_link l = { .fd = fd, .deadline = deadline };
    int status = 0;
    if (tls) {
        l.tls = tls_session_new(tls, fd, o->url.host);
        int want = 0, hs = l.tls ? TLS_AGAIN : TLS_FAILED;
        while (hs == TLS_AGAIN && (hs = tls_handshake(l.tls, &want)) == TLS_AGAIN)
            if (!wait_for(fd, want == TLS_WANT_WRITE ? POLLOUT : POLLIN, deadline))
                hs = TLS_FAILED;
        if (hs != 1) {
            fprintf(stderr, PROG ": cannot reach %s: %s\n", o->base_url,
                    l.tls ? tls_error(l.tls) : "out of memory");
            status = 1;
        }
    }
    model[0] = '\0';
    if (status == 0 && !o->model)
        ask_model(o, &l, model, model_cap);
    tls_session_free(l.tls);
    close(fd);
    return status;
}
