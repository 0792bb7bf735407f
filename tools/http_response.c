#include <string.h>
#include <strings.h>

#include "http_response.h"

enum {
    HR_STATUS,       /* the status line */
    HR_HEADERS,      /* header lines, up to the empty one */
    HR_BODY_LENGTH,  /* Content-Length bytes */
    HR_BODY_CHUNKED, /* the chunked coding */
    HR_BODY_CLOSE,   /* everything up to the close */
    HR_DONE,
};

static int fail(http_response *h, const char *why)
{
    h->why = why;
    h->state = HR_DONE;
    return HTTP_ERROR;
}

void http_response_init(http_response *h)
{
    h->status = 0;
    h->head_done = h->chunked = h->has_length = h->keep_alive = false;
    h->event_stream = h->no_body = false;
    h->content_length = h->body_bytes = h->left = 0;
    h->why = NULL;
    h->state = HR_STATUS;
    h->minor = 0;
    h->saw_close = h->saw_keep_alive = h->saw_te = h->stopped = false;
    h->line_len = h->head_len = 0;
    http_chunked_init(&h->ck);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* A token character of a field name (RFC 9110, section 5.6.2). */
static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* "HTTP/1.x SSS[ reason]" */
static int status_line(http_response *h, const char *s, size_t n)
{
    if (n < 12 || memcmp(s, "HTTP/1.", 7) != 0 || s[7] < '0' || s[7] > '9' || s[8] != ' ')
        return fail(h, "not an HTTP/1.x status line");
    int status = 0;
    for (int i = 9; i < 12; i++) {
        if (s[i] < '0' || s[i] > '9')
            return fail(h, "malformed status code");
        status = status * 10 + (s[i] - '0');
    }
    if (n > 12 && s[12] != ' ')
        return fail(h, "malformed status code");
    if (status < 100)
        return fail(h, "malformed status code");
    h->minor = s[7] - '0';
    h->status = status;
    h->state = HR_HEADERS;
    return HTTP_MORE;
}

/* Does the comma-separated list v (n bytes) hold token t? */
static bool list_has(const char *v, size_t n, const char *t)
{
    size_t tn = strlen(t), i = 0;
    while (i < n) {
        while (i < n && (is_space(v[i]) || v[i] == ','))
            i++;
        size_t j = i;
        while (j < n && v[j] != ',')
            j++;
        size_t k = j;
        while (k > i && is_space(v[k - 1]))
            k--;
        if (k - i == tn && strncasecmp(v + i, t, tn) == 0)
            return true;
        i = j;
    }
    return false;
}

static int content_length(http_response *h, const char *v, size_t n)
{
    uint64_t len = 0;
    if (n == 0)
        return fail(h, "malformed Content-Length");
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return fail(h, "malformed Content-Length");
        if (len > (UINT64_MAX / 2 - 9) / 10)
            return fail(h, "Content-Length too large");
        len = len * 10 + (uint64_t)(v[i] - '0');
    }
    if (h->has_length && h->content_length != len)
        return fail(h, "two different Content-Lengths");
    h->has_length = true;
    h->content_length = len;
    return HTTP_MORE;
}

/* "name: value" (obsolete line folding is read as a field of its own
 * and ignored: no field this client reads is ever folded). */
static int header_line(http_response *h, const char *s, size_t n)
{
    if (is_space(s[0]))
        return HTTP_MORE;
    size_t colon = 0;
    while (colon < n && is_tchar((unsigned char)s[colon]))
        colon++;
    if (colon == 0 || colon == n || s[colon] != ':')
        return fail(h, "malformed header field");
    const char *v = s + colon + 1;
    size_t vn = n - colon - 1;
    while (vn && is_space(*v))
        v++, vn--;
    while (vn && is_space(v[vn - 1]))
        vn--;
    if (colon == 14 && strncasecmp(s, "content-length", 14) == 0)
        return content_length(h, v, vn);
    if (colon == 17 && strncasecmp(s, "transfer-encoding", 17) == 0) {
        if (!(vn == 7 && strncasecmp(v, "chunked", 7) == 0))
            return fail(h, "unsupported Transfer-Encoding (only chunked is read)");
        h->saw_te = true;
    } else if (colon == 10 && strncasecmp(s, "connection", 10) == 0) {
        h->saw_close |= list_has(v, vn, "close");
        h->saw_keep_alive |= list_has(v, vn, "keep-alive");
    } else if (colon == 12 && strncasecmp(s, "content-type", 12) == 0) {
        h->event_stream = vn >= 17 && strncasecmp(v, "text/event-stream", 17) == 0 &&
                          (vn == 17 || v[17] == ';' || is_space(v[17]));
    }
    return HTTP_MORE;
}

/* The empty line: a 1xx response starts over, any other sets the body's
 * framing. */
static int head_end(http_response *h)
{
    if (h->status == 101)
        return fail(h, "unexpected protocol switch (101)");
    if (h->status < 200) {
        http_response_init(h);
        return HTTP_MORE;
    }
    h->head_done = true;
    h->keep_alive = !h->saw_close && (h->minor >= 1 || h->saw_keep_alive);
    if (h->status == 204 || h->status == 304) {
        h->no_body = true;
        h->state = HR_DONE;
        return HTTP_DONE;
    }
    if (h->saw_te) {
        h->chunked = true;
        if (h->has_length) { /* RFC 9112 6.3: the coding wins, the connection is suspect */
            h->has_length = false;
            h->keep_alive = false;
        }
        h->state = HR_BODY_CHUNKED;
        return HTTP_MORE;
    }
    if (h->has_length) {
        h->left = h->content_length;
        h->state = h->left ? HR_BODY_LENGTH : HR_DONE;
        return h->left ? HTTP_MORE : HTTP_DONE;
    }
    h->keep_alive = false;
    h->state = HR_BODY_CLOSE;
    return HTTP_MORE;
}

/* A complete line of the head (its CR dropped). */
static int head_line(http_response *h, const char *s, size_t n)
{
    if (h->state == HR_STATUS)
        return status_line(h, s, n);
    if (n == 0)
        return head_end(h);
    return header_line(h, s, n);
}

/* Head bytes: lines, from the parser's buffer when a line spans feeds,
 * else straight from p. Returns the bytes used. */
static size_t feed_head(http_response *h, const char *p, size_t len, int *rc)
{
    size_t i = 0;
    *rc = HTTP_MORE;
    while (i < len && *rc == HTTP_MORE && (h->state == HR_STATUS || h->state == HR_HEADERS)) {
        const char *nl = memchr(p + i, '\n', len - i);
        size_t take = nl ? (size_t)(nl - (p + i)) + 1 : len - i;
        h->head_len += take;
        if (h->head_len > HTTP_HEAD_MAX) {
            *rc = fail(h, "response head too large");
            return i;
        }
        const char *line = p + i;
        size_t n = take;
        if (h->line_len || !nl) { /* the line spans feeds: hold it */
            if (h->line_len + take > HTTP_LINE_MAX) {
                *rc = fail(h, "header line too long");
                return i;
            }
            memcpy(h->line + h->line_len, p + i, take);
            h->line_len += take;
            line = h->line;
            n = h->line_len;
        }
        i += take;
        if (!nl)
            break;
        h->line_len = 0;
        n--; /* the LF */
        if (n && line[n - 1] == '\r')
            n--;
        *rc = head_line(h, line, n);
    }
    return i;
}

typedef struct body_sink {
    http_response *h;
    http_data_fn fn;
    void *user;
} body_sink;

static int body_span(void *user, const char *p, size_t n)
{
    body_sink *s = user;
    s->h->body_bytes += n;
    return s->fn ? s->fn(s->user, p, n) : 0;
}

int http_response_feed(http_response *h, const char *p, size_t len, size_t *used,
                       http_data_fn fn, void *user)
{
    size_t i = 0;
    int rc = HTTP_MORE;
    body_sink sink = { h, fn, user };
    *used = 0;
    if (h->why)
        return HTTP_ERROR;
    if (h->state == HR_DONE)
        return HTTP_DONE;
    i = feed_head(h, p, len, &rc);
    if (rc != HTTP_MORE || i == len) {
        *used = i;
        return rc;
    }
    size_t n = len - i, took = n;
    switch (h->state) {
    case HR_BODY_LENGTH:
        if ((uint64_t)n > h->left)
            took = n = (size_t)h->left;
        h->left -= n;
        if (h->left == 0) {
            h->state = HR_DONE;
            rc = HTTP_DONE;
        }
        if (body_span(&sink, p + i, n) != 0)
            rc = HTTP_STOP;
        break;
    case HR_BODY_CLOSE:
        if (body_span(&sink, p + i, n) != 0)
            rc = HTTP_STOP;
        break;
    case HR_BODY_CHUNKED:
        switch (http_chunked_feed(&h->ck, p + i, n, &took, body_span, &sink)) {
        case CHUNKED_DONE:
            h->state = HR_DONE;
            rc = HTTP_DONE;
            break;
        case CHUNKED_ERROR:
            rc = fail(h, h->ck.why);
            break;
        case CHUNKED_STOP:
            rc = HTTP_STOP;
            break;
        }
        break;
    }
    *used = i + took;
    h->stopped |= rc == HTTP_STOP;
    return rc;
}

int http_response_eof(http_response *h)
{
    if (h->why)
        return HTTP_ERROR;
    switch (h->state) {
    case HR_DONE:
        return HTTP_DONE;
    case HR_BODY_CLOSE:
        h->state = HR_DONE;
        return HTTP_DONE;
    case HR_STATUS:
        return fail(h, h->head_len ? "connection closed in the response head"
                                   : "connection closed before a response");
    case HR_HEADERS:
        return fail(h, "connection closed in the response head");
    default:
        return fail(h, "connection closed before the end of the body");
    }
}

bool http_response_complete(const http_response *h)
{
    return h->head_done && h->state == HR_DONE && !h->why && !h->stopped;
}
