/* Fuzz target (f): `llmlat bench`'s server-sent events parser
 * (tools/sse.c) on arbitrary bytes, fed whole and in pieces of 1 to 128
 * bytes (the first byte chooses), which must give the same events, the
 * same types and data, in the same order; an event larger than the limit
 * (4 KiB here) is an error either way. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sse.h"

#define LIMIT 4096

typedef struct event_log {
    unsigned char bytes[1 << 16];
    size_t n;
    size_t events;
} event_log;

static int record(void *user, const sse_event *ev)
{
    event_log *l = user;
    size_t t = strlen(ev->type);
    if (ev->data_len > LIMIT || ev->data[ev->data_len] != '\0')
        abort();
    if (l->n + t + ev->data_len + 2 <= sizeof l->bytes) {
        memcpy(l->bytes + l->n, ev->type, t + 1);
        memcpy(l->bytes + l->n + t + 1, ev->data, ev->data_len);
        l->n += t + 1 + ev->data_len;
        l->bytes[l->n++] = 0xff;
    }
    l->events++;
    return 0;
}

static int run(const uint8_t *p, size_t n, size_t piece, event_log *l)
{
    sse_parser s;
    sse_init(&s, LIMIT);
    memset(l, 0, sizeof *l);
    int rc = SSE_MORE;
    for (size_t from = 0; from < n && rc == SSE_MORE;) {
        size_t len = n - from < piece ? n - from : piece, used;
        rc = sse_feed(&s, (const char *)p + from, len, &used, record, l);
        if (used > len || (rc == SSE_MORE && used != len))
            abort();
        from += used;
    }
    sse_free(&s);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static event_log whole, pieces;
    size_t piece = 1 + data[0] % 128;
    int a = run(data + 1, size - 1, size, &whole);
    int b = run(data + 1, size - 1, piece, &pieces);
    if (a != b || whole.events != pieces.events || whole.n != pieces.n ||
        memcmp(whole.bytes, pieces.bytes, whole.n) != 0)
        abort();
    return 0;
}
