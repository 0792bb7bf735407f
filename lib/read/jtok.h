/* The reader's JSON tokenizer: it reads a window of bytes the host fed
 * (the reader's buffer), knows the line and column of every token, and
 * keeps the first error as one line "name:line:column: what is wrong".
 * Columns count bytes from 1.
 *
 * Push reading: the window may end before the input does. A read at the
 * window's end then sees JT_EOF and marks the tokenizer `starved`; the
 * reader (read/reader.c) throws the step's outcome away, error included,
 * and runs the step again from its start once more bytes arrived. So the
 * parsing code below is written as if it had the whole input.
 *
 * Every reading function returns false on error; the caller stops. Numbers
 * are handed over as their text, checked against JSON's grammar, so that
 * callers can convert them exactly (read/decimal.h). */
#ifndef LLMLAT_READ_JTOK_H
#define LLMLAT_READ_JTOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

#define JT_EOF (-1)
#define JT_NUMBER_MAX 128 /* longest number text accepted, NUL included */
#define JT_ERROR_MAX 512  /* longest message, NUL included */
#define JT_DESCRIBE_MAX 16

typedef struct jtok {
    const unsigned char *buf;
    size_t pos, len;
    bool ended;             /* len is the end of the input */
    bool starved;           /* a read reached len before the end of the input */
    bool lenient;           /* skipped values may be NaN, Infinity, -Infinity (Python's json) */
    uint64_t base;          /* input offset of buf[0] */
    uint64_t line;          /* current line, from 1 */
    uint64_t line_start;    /* input offset of its first byte */
    uint64_t tok_line, tok_col; /* where the last peeked token starts */
    bool failed;
    const char *name;       /* input name used in messages */
    char *error;            /* JT_ERROR_MAX bytes, owned by the reader */
} jtok;

/* The next raw byte (no whitespace skipping), JT_EOF at the end of the
 * window (starving the tokenizer when the input goes on). */
static inline int jt_raw_peek(jtok *t)
{
    if (t->pos < t->len)
        return t->buf[t->pos];
    if (!t->ended)
        t->starved = true;
    return JT_EOF;
}

/* Skips whitespace and returns the next byte without consuming it (JT_EOF
 * at the end), remembering its position as the current token's. */
LLMLAT_PRIVATE int jt_peek(jtok *t);
/* Consumes the byte jt_peek returned. */
static inline void jt_advance(jtok *t)
{
    if (t->pos < t->len)
        t->pos++;
}

/* Records an error at the current token (or at line:col) and returns
 * false; only the first error is kept. */
LLMLAT_PRIVATE bool jt_fail(jtok *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
LLMLAT_PRIVATE bool jt_fail_at(jtok *t, uint64_t line, uint64_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Consumes byte c, or fails with "expected <what>, found ...". */
LLMLAT_PRIVATE bool jt_expect(jtok *t, int c, const char *what);
/* A string, unescaped into out (at most cap - 1 bytes kept, NUL added;
 * longer strings are cut). *full (may be NULL) is the whole unescaped
 * length. */
LLMLAT_PRIVATE bool jt_string(jtok *t, char *out, size_t cap, size_t *full);
/* A number's text into out (JT_NUMBER_MAX bytes), *len its length. */
LLMLAT_PRIVATE bool jt_number(jtok *t, char *out, size_t *len);
/* One of the literals true, false, null; *which is 't', 'f' or 'n'. */
LLMLAT_PRIVATE bool jt_literal(jtok *t, char *which);
/* Skips any value (nested at most 256 deep). */
LLMLAT_PRIVATE bool jt_skip_value(jtok *t);

/* null, consumed: true with *ok the outcome; false, nothing consumed, for
 * anything else. */
LLMLAT_PRIVATE bool jt_take_null(jtok *t, bool *ok);

/* "'x'", "end of input" or "byte 0xNN": how a found byte is named. */
LLMLAT_PRIVATE const char *jt_describe(int c, char *tmp, size_t cap);

static inline bool jt_starts_number(int c)
{
    return c == '-' || (c >= '0' && c <= '9');
}

#endif
