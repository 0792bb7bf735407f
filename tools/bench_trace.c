#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_trace.h"

/* An ended request, copied for the writer. */
struct trace_entry {
    trace_entry *next;
    int64_t start, end, scheduled;
    bool has_scheduled, has_out;
    int32_t state;
    uint64_t in, out;
    int status;
    char *id, *error;   /* in the same allocation */
    size_t n;
    int64_t *t;         /* n event times, then n token counts */
    uint32_t *k;
};

static void format_line(bench_buf *b, const trace_entry *e)
{
    buf_reset(b);
    buf_str(b, "{\"id\":");
    buf_json_string(b, e->id, strlen(e->id));
    if (e->has_scheduled) {
        buf_str(b, ",\"scheduled\":");
        buf_seconds(b, e->scheduled);
    }
    buf_str(b, ",\"start\":");
    buf_seconds(b, e->start);
    buf_str(b, ",\"end\":");
    buf_seconds(b, e->end);
    buf_str(b, e->state == LLMLAT_STATE_FINISHED ? ",\"ok\":true" : ",\"ok\":false");
    buf_str(b, e->state == LLMLAT_STATE_CANCELLED ? ",\"cancelled\":true"
                                                  : ",\"cancelled\":false");
    buf_str(b, ",\"status\":");
    if (e->status)
        buf_u64(b, (uint64_t)e->status);
    else
        buf_str(b, "null");
    buf_str(b, ",\"error\":");
    if (e->error)
        buf_json_string(b, e->error, strlen(e->error));
    else
        buf_str(b, "null");
    buf_str(b, ",\"input_tokens\":");
    buf_u64(b, e->in);
    buf_str(b, ",\"output_tokens\":");
    if (e->has_out)
        buf_u64(b, e->out);
    else
        buf_str(b, "null");
    buf_str(b, ",\"events\":[");
    for (size_t i = 0; i < e->n; i++) {
        buf_str(b, i ? ",[" : "[");
        buf_seconds(b, e->t[i]);
        buf_add(b, ",", 1);
        buf_u64(b, e->k[i]);
        buf_add(b, "]", 1);
    }
    buf_str(b, "]}\n");
}

static void write_entry(trace_writer *t, const trace_entry *e)
{
    format_line(&t->line, e);
    if (t->line.failed && !t->error)
        t->error = ENOMEM;
    for (size_t off = 0; !t->error && off < t->line.len;) {
        ssize_t n = write(t->fd, t->line.p + off, t->line.len - off);
        if (n > 0)
            off += (size_t)n;
        else if (n < 0 && errno != EINTR)
            t->error = errno;
    }
}

static void *writer_main(void *arg)
{
    trace_writer *t = arg;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (!t->head && !t->closing)
            pthread_cond_wait(&t->more, &t->lock);
        trace_entry *e = t->head;
        if (!e)
            break; /* closing, and nothing left */
        t->head = NULL;
        t->tail = NULL;
        pthread_mutex_unlock(&t->lock);
        while (e) { /* the batch taken, written without the lock */
            trace_entry *next = e->next;
            write_entry(t, e);
            free(e);
            e = next;
        }
        pthread_mutex_lock(&t->lock);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

bool trace_open(trace_writer *t, const char *path)
{
    memset(t, 0, sizeof *t);
    t->fd = -1;
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->more, NULL);
    if (!path)
        return true;
    t->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (t->fd < 0)
        return false;
    int rc = pthread_create(&t->thread, NULL, writer_main, t);
    if (rc != 0) {
        close(t->fd);
        t->fd = -1;
        errno = rc;
        return false;
    }
    return true;
}

bool trace_close(trace_writer *t)
{
    if (t->fd >= 0) {
        pthread_mutex_lock(&t->lock);
        t->closing = true;
        pthread_cond_signal(&t->more);
        pthread_mutex_unlock(&t->lock);
        pthread_join(t->thread, NULL);
    }
    if (t->lost && !t->error)
        t->error = ENOMEM;
    bool ok = t->error == 0;
    if (t->fd >= 0 && close(t->fd) != 0 && ok) {
        t->error = errno;
        ok = false;
    }
    t->fd = -1;
    buf_free(&t->line);
    pthread_cond_destroy(&t->more);
    pthread_mutex_destroy(&t->lock);
    if (!ok)
        errno = t->error;
    return ok;
}

void trace_write(trace_writer *t, const llmlat_request *r, const trace_extra *x)
{
    if (t->fd < 0)
        return;
    const int64_t *times;
    const uint32_t *ks;
    size_t n = 0;
    llmlat_request_get_events(r, &times, &ks, &n);
    size_t id_len = strlen(x->id) + 1, err_len = x->error ? strlen(x->error) + 1 : 0;
    trace_entry *e = malloc(sizeof *e + n * (sizeof *times + sizeof *ks) + id_len + err_len);
    if (!e) {
        pthread_mutex_lock(&t->lock);
        t->lost = true;
        pthread_mutex_unlock(&t->lock);
        return;
    }
    memset(e, 0, sizeof *e);
    e->t = (int64_t *)(void *)(e + 1);
    e->k = (uint32_t *)(void *)(e->t + n);
    e->id = (char *)(e->k + n);
    e->error = x->error ? e->id + id_len : NULL;
    e->n = n;
    if (n) {
        memcpy(e->t, times, n * sizeof *times);
        memcpy(e->k, ks, n * sizeof *ks);
    }
    memcpy(e->id, x->id, id_len);
    if (x->error)
        memcpy(e->error, x->error, err_len);
    e->state = LLMLAT_STATE_NEW;
    llmlat_request_get_start(r, &e->start);
    llmlat_request_get_end(r, &e->end);
    llmlat_request_get_state(r, &e->state);
    llmlat_request_get_input_tokens(r, &e->in);
    e->has_out = llmlat_request_get_output_tokens(r, &e->out) == LLMLAT_OK;
    e->has_scheduled = llmlat_request_get_schedule(r, &e->scheduled) == LLMLAT_OK;
    e->status = x->status;
    pthread_mutex_lock(&t->lock);
    if (t->tail)
        t->tail->next = e;
    else
        t->head = e;
    t->tail = e;
    pthread_cond_signal(&t->more);
    pthread_mutex_unlock(&t->lock);
}
