#include <stdlib.h>
#include <string.h>

#include "sse.h"

static const char BOM[3] = { '\xef', '\xbb', '\xbf' };
#define BOM_PAST 4

void sse_init(sse_parser *s, size_t max_event)
{
    memset(s, 0, sizeof *s);
    s->max_event = max_event;
}

void sse_reset(sse_parser *s)
{
    s->line_len = s->data_len = 0;
    s->type[0] = '\0';
    s->bom = 0;
    s->cr = false;
    s->why = NULL;
}

void sse_free(sse_parser *s)
{
    free(s->line);
    free(s->data);
    s->line = s->data = NULL;
    s->line_cap = s->data_cap = 0;
}

static int fail(sse_parser *s, const char *why)
{
    s->why = why;
    return SSE_ERROR;
}

/* Room for n more bytes (and a NUL) in *buf, within max_event: a line
 * (the line buffer) or an event's data (the data buffer) longer than that
 * is an error, however the bytes were split. */
static bool reserve(sse_parser *s, char **buf, size_t *cap, size_t len, size_t n)
{
    if (len + n > s->max_event)
        return fail(s, "an event larger than the limit"), false;
    if (len + n + 1 <= *cap)
        return true;
    size_t want = *cap ? *cap : 256;
    while (want < len + n + 1)
        want *= 2;
    char *grown = realloc(*buf, want);
    if (!grown)
        return fail(s, "out of memory"), false;
    *buf = grown;
    *cap = want;
    return true;
}

static bool append(sse_parser *s, char **buf, size_t *cap, size_t *len, const char *p, size_t n)
{
    if (!reserve(s, buf, cap, *len, n))
        return false;
    memcpy(*buf + *len, p, n);
    *len += n;
    return true;
}

/* The empty line: the event, if it has data. */
static int dispatch(sse_parser *s, sse_event_fn fn, void *user)
{
    if (s->data_len == 0) {
        s->type[0] = '\0';
        return SSE_MORE;
    }
    s->data_len--; /* the '\n' after the last data line */
    s->data[s->data_len] = '\0';
    sse_event ev = { s->type, s->data, s->data_len };
    int stop = fn ? fn(user, &ev) : 0;
    s->data_len = 0;
    s->type[0] = '\0';
    return stop ? SSE_STOP : SSE_MORE;
}

/* One complete line, without its end. */
static int line(sse_parser *s, const char *p, size_t n, sse_event_fn fn, void *user)
{
    if (n == 0)
        return dispatch(s, fn, user);
    if (p[0] == ':')
        return SSE_MORE;
    const char *colon = memchr(p, ':', n);
    size_t name = colon ? (size_t)(colon - p) : n;
    const char *value = colon ? colon + 1 : p + n;
    size_t vn = colon ? n - name - 1 : 0;
    if (vn && *value == ' ')
        value++, vn--;
    if (name == 4 && memcmp(p, "data", 4) == 0) {
        if (!reserve(s, &s->data, &s->data_cap, s->data_len, vn + 1))
            return SSE_ERROR;
        memcpy(s->data + s->data_len, value, vn);
        s->data[s->data_len + vn] = '\n';
        s->data_len += vn + 1;
    } else if (name == 5 && memcmp(p, "event", 5) == 0) {
        size_t keep = vn < SSE_TYPE_MAX - 1 ? vn : SSE_TYPE_MAX - 1;
        memcpy(s->type, value, keep);
        s->type[keep] = '\0';
    } /* id, retry and unknown fields change nothing this client uses */
    return SSE_MORE;
}

/* The byte order mark a stream may start with: the bytes of a partial
 * match that turns out not to be one go back to the line. */
static size_t skip_bom(sse_parser *s, const char *p, size_t len, int *rc)
{
    size_t i = 0;
    *rc = SSE_MORE;
    while (s->bom < 3 && i < len && p[i] == BOM[s->bom])
        s->bom++, i++;
    if (s->bom == 3) {
        s->bom = BOM_PAST;
    } else if (i < len) { /* a mismatch: what matched was text */
        if (s->bom && !append(s, &s->line, &s->line_cap, &s->line_len, BOM, s->bom))
            *rc = SSE_ERROR;
        s->bom = BOM_PAST;
    }
    return i;
}

int sse_feed(sse_parser *s, const char *p, size_t len, size_t *used, sse_event_fn fn,
             void *user)
{
    size_t i = 0;
    int rc = SSE_MORE;
    *used = 0;
    if (s->why)
        return SSE_ERROR;
    if (s->bom != BOM_PAST) {
        i = skip_bom(s, p, len, &rc);
        if (rc != SSE_MORE || s->bom != BOM_PAST) {
            *used = i;
            return rc;
        }
    }
    while (i < len && rc == SSE_MORE) {
        if (s->cr) {
            s->cr = false;
            if (p[i] == '\n') {
                i++;
                continue;
            }
        }
        size_t end = i;
        while (end < len && p[end] != '\n' && p[end] != '\r')
            end++;
        if (end == len) { /* an unfinished line */
            if (s->line_len + (len - i) > s->max_event)
                rc = fail(s, "a line longer than the limit");
            else if (!append(s, &s->line, &s->line_cap, &s->line_len, p + i, len - i))
                rc = SSE_ERROR;
            i = len;
            break;
        }
        s->cr = p[end] == '\r';
        if (s->line_len) {
            if (!append(s, &s->line, &s->line_cap, &s->line_len, p + i, end - i)) {
                rc = SSE_ERROR;
                break;
            }
            rc = line(s, s->line, s->line_len, fn, user);
            s->line_len = 0;
        } else {
            if (end - i > s->max_event) { /* as append() refuses it in pieces */
                rc = fail(s, "a line longer than the limit");
                break;
            }
            rc = line(s, p + i, end - i, fn, user);
        }
        i = end + 1;
    }
    *used = i;
    return rc;
}
