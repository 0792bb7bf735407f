#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_buf.h"

void buf_free(bench_buf *b)
{
    free(b->p);
    *b = (bench_buf){ 0 };
}

void buf_reset(bench_buf *b)
{
    b->len = 0;
    b->failed = false;
}

static bool reserve(bench_buf *b, size_t n)
{
    if (b->failed)
        return false;
    if (b->len + n + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) {
        b->failed = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void buf_add(bench_buf *b, const void *p, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void buf_str(bench_buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

void buf_printf(bench_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char tmp[256];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = true;
        return;
    }
    if ((size_t)n < sizeof tmp) {
        buf_add(b, tmp, (size_t)n);
        return;
    }
    if (!reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_u64(bench_buf *b, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    buf_add(b, tmp + i, sizeof tmp - i);
}

void buf_seconds(bench_buf *b, int64_t ns)
{
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        buf_add(b, "-", 1);
    buf_u64(b, u / 1000000000u);
    char frac[11];
    uint64_t f = u % 1000000000u;
    frac[0] = '.';
    for (int i = 9; i >= 1; i--, f /= 10)
        frac[i] = (char)('0' + f % 10);
    buf_add(b, frac, 10);
}

/* The length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, nothing past U+10FFFF), 0 when there is none. */
static size_t utf8_valid(const unsigned char *p, size_t n)
{
    if (p[0] < 0x80)
        return 1;
    size_t len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;
    if (len == 0 || p[0] > 0xf4 || n < len)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
        (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
        return 0;
    return len;
}

void buf_json_string(bench_buf *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    buf_add(b, "\"", 1);
    size_t i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && p[run] >= 0x20 && p[run] < 0x80 && p[run] != '"' && p[run] != '\\')
            run++;
        buf_add(b, p + i, run - i);
        i = run;
        if (i == n)
            break;
        if (p[i] == '"' || p[i] == '\\') {
            char esc[2] = { '\\', (char)p[i] };
            buf_add(b, esc, 2);
            i++;
        } else if (p[i] < 0x20) {
            buf_printf(b, "\\u%04x", p[i]);
            i++;
        } else {
            size_t len = utf8_valid(p + i, n - i);
            if (len) {
                buf_add(b, p + i, len);
                i += len;
            } else {
                buf_str(b, "\xef\xbf\xbd");
                i++;
            }
        }
    }
    buf_add(b, "\"", 1);
}
