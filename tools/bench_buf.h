/* A growing byte buffer for what `llmlat bench` writes: request bodies,
 * HTTP heads, trace lines. An append that cannot grow sets `failed` and
 * drops the bytes, so a caller checks once at the end. */
#ifndef LLMLAT_BENCH_BUF_H
#define LLMLAT_BENCH_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bench_buf {
    char *p;
    size_t len, cap;
    bool failed;
} bench_buf;

void buf_free(bench_buf *b);
void buf_reset(bench_buf *b); /* empty, keeping the memory */
void buf_add(bench_buf *b, const void *p, size_t n);
void buf_str(bench_buf *b, const char *s);
void buf_printf(bench_buf *b, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void buf_u64(bench_buf *b, uint64_t v);
/* Nanoseconds as seconds with 9 decimals, exactly ("-0.000000001"). */
void buf_seconds(bench_buf *b, int64_t ns);
/* s (n bytes) as a JSON string, quotes included: control characters
 * escaped, bytes that are not UTF-8 written as U+FFFD, so the line reads
 * back whatever a server sent. */
void buf_json_string(bench_buf *b, const char *s, size_t n);

#endif
