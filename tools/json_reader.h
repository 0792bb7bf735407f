/* A streaming JSON tokenizer for the llmlat command: it reads a FILE in
 * blocks (a trace can be far larger than memory needs to be), knows the
 * line and column of every token, and keeps the first error as one line
 * "name:line:column: what is wrong". Columns count bytes from 1.
 *
 * Every reading function returns false on error; the caller stops and
 * prints jr->error. Numbers are handed over as their text, checked against
 * JSON's grammar, so that callers can convert them exactly. */
#ifndef LLMLAT_JSON_READER_H
#define LLMLAT_JSON_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JR_EOF (-1)
#define JR_NUMBER_MAX 128 /* longest number text accepted, NUL included */
#define JR_ERROR_MAX 512

typedef struct json_reader {
    FILE *f;
    const char *name;       /* input name used in messages */
    unsigned char *buf;
    size_t pos, len, cap;
    uint64_t base;          /* input offset of buf[0] */
    uint64_t line;          /* current line, from 1 */
    uint64_t line_start;    /* input offset of its first byte */
    uint64_t tok_line, tok_col; /* where the last peeked token starts */
    bool failed;
    char error[JR_ERROR_MAX];
} json_reader;

/* false when the block buffer cannot be allocated. */
bool jr_init(json_reader *r, FILE *f, const char *name);
void jr_free(json_reader *r);

/* Skips whitespace and returns the next byte without consuming it (JR_EOF
 * at the end), remembering its position as the current token's. */
int jr_peek(json_reader *r);
/* Consumes the byte jr_peek returned. */
void jr_advance(json_reader *r);

/* Records an error at the current token (or at line:col) and returns
 * false; only the first error is kept. */
bool jr_fail(json_reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
bool jr_fail_at(json_reader *r, uint64_t line, uint64_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Consumes byte c, or fails with "expected <what>, found ...". */
bool jr_expect(json_reader *r, int c, const char *what);
/* A string, unescaped into out (at most cap - 1 bytes kept, NUL added;
 * longer strings are cut, which no key of the trace format needs). */
bool jr_string(json_reader *r, char *out, size_t cap);
/* A number's text into out (JR_NUMBER_MAX bytes). */
bool jr_number(json_reader *r, char *out);
/* One of the literals true, false, null; *which is 't', 'f' or 'n'. */
bool jr_literal(json_reader *r, char *which);
/* Skips any value (nested at most 256 deep). */
bool jr_skip_value(json_reader *r);

/* The unread bytes of the current block (after jr_peek: at least one),
 * for a caller's fast path over a common shape, and how many of them it
 * took. The bytes taken must not hold a newline: lines are counted by
 * jr_peek. */
const unsigned char *jr_window(const json_reader *r, size_t *avail);
void jr_consume(json_reader *r, size_t n);

/* "'x'", "end of input" or "byte 0xNN": how a found byte is named. */
const char *jr_describe(int c, char *tmp, size_t cap);

#endif
