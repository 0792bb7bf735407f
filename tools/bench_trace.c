#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "bench_trace.h"

bool trace_open(trace_writer *t, const char *path)
{
    t->fd = -1;
    t->error = 0;
    pthread_mutex_init(&t->lock, NULL);
    if (!path)
        return true;
    t->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    return t->fd >= 0;
}

bool trace_close(trace_writer *t)
{
    bool ok = t->error == 0;
    if (t->fd >= 0 && close(t->fd) != 0 && ok) {
        t->error = errno;
        ok = false;
    }
    t->fd = -1;
    pthread_mutex_destroy(&t->lock);
    if (!ok)
        errno = t->error;
    return ok;
}

static void format_line(bench_buf *b, const llmlat_request *r, const trace_extra *x)
{
    int64_t start = 0, end = 0, scheduled;
    int32_t state = LLMLAT_STATE_NEW;
    uint64_t in = 0, out;
    llmlat_request_get_start(r, &start);
    llmlat_request_get_end(r, &end);
    llmlat_request_get_state(r, &state);
    llmlat_request_get_input_tokens(r, &in);
    bool has_out = llmlat_request_get_output_tokens(r, &out) == LLMLAT_OK;
    bool has_scheduled = llmlat_request_get_schedule(r, &scheduled) == LLMLAT_OK;

    buf_reset(b);
    buf_str(b, "{\"id\":");
    buf_json_string(b, x->id, strlen(x->id));
    if (has_scheduled) {
        buf_str(b, ",\"scheduled\":");
        buf_seconds(b, scheduled);
    }
    buf_str(b, ",\"start\":");
    buf_seconds(b, start);
    buf_str(b, ",\"end\":");
    buf_seconds(b, end);
    buf_str(b, state == LLMLAT_STATE_FINISHED ? ",\"ok\":true" : ",\"ok\":false");
    buf_str(b, state == LLMLAT_STATE_CANCELLED ? ",\"cancelled\":true" : ",\"cancelled\":false");
    buf_str(b, ",\"status\":");
    if (x->status)
        buf_u64(b, (uint64_t)x->status);
    else
        buf_str(b, "null");
    buf_str(b, ",\"error\":");
    if (x->error)
        buf_json_string(b, x->error, strlen(x->error));
    else
        buf_str(b, "null");
    buf_str(b, ",\"input_tokens\":");
    buf_u64(b, in);
    buf_str(b, ",\"output_tokens\":");
    if (has_out)
        buf_u64(b, out);
    else
        buf_str(b, "null");
    buf_str(b, ",\"events\":[");
    const int64_t *t;
    const uint32_t *k;
    size_t n = 0;
    llmlat_request_get_events(r, &t, &k, &n);
    for (size_t i = 0; i < n; i++) {
        buf_str(b, i ? ",[" : "[");
        buf_seconds(b, t[i]);
        buf_add(b, ",", 1);
        buf_u64(b, k[i]);
        buf_add(b, "]", 1);
    }
    buf_str(b, "]}\n");
}

void trace_write(trace_writer *t, bench_buf *line, const llmlat_request *r,
                 const trace_extra *x)
{
    if (t->fd < 0)
        return;
    format_line(line, r, x);
    pthread_mutex_lock(&t->lock);
    if (line->failed && !t->error)
        t->error = ENOMEM;
    for (size_t off = 0; !t->error && off < line->len;) {
        ssize_t n = write(t->fd, line->p + off, line->len - off);
        if (n > 0)
            off += (size_t)n;
        else if (n < 0 && errno != EINTR)
            t->error = errno;
    }
    pthread_mutex_unlock(&t->lock);
}
