/* The reader's JSON tokenizer (read/jtok.h): the grammar of RFC 8259, the
 * positions, the first error. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "read/jtok.h"

#define JT_MAX_DEPTH 256

/* A message is one line, whatever the file's own strings it quotes (a key,
 * a unit) hold: their control bytes become \u00XX, as JSON writes them. */
static void jt_one_line(char *msg)
{
    char out[JT_ERROR_MAX];
    size_t n = 0;
    for (const char *s = msg; *s && n + 7 < sizeof out; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c == 0x7f)
            n += (size_t)snprintf(out + n, sizeof out - n, "\\u%04x", c);
        else
            out[n++] = (char)c;
    }
    out[n] = '\0';
    memcpy(msg, out, n + 1);
}

static bool jt_vfail(jtok *t, uint64_t line, uint64_t col, const char *fmt, va_list ap)
{
    if (t->failed)
        return false;
    t->failed = true;
    int n = snprintf(t->error, JT_ERROR_MAX, "%s:%llu:%llu: ", t->name,
                     (unsigned long long)line, (unsigned long long)col);
    if (n > 0 && n < JT_ERROR_MAX)
        vsnprintf(t->error + n, JT_ERROR_MAX - (size_t)n, fmt, ap);
    jt_one_line(t->error);
    return false;
}

LLMLAT_PRIVATE bool jt_fail(jtok *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jt_vfail(t, t->tok_line, t->tok_col, fmt, ap);
    va_end(ap);
    return false;
}

LLMLAT_PRIVATE bool jt_fail_at(jtok *t, uint64_t line, uint64_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    jt_vfail(t, line, col, fmt, ap);
    va_end(ap);
    return false;
}

static inline void jt_mark_token(jtok *t)
{
    t->tok_line = t->line;
    t->tok_col = t->base + t->pos - t->line_start + 1;
}

LLMLAT_PRIVATE int jt_peek(jtok *t)
{
    const unsigned char *buf = t->buf;
    size_t pos = t->pos, len = t->len;
    while (pos < len) {
        unsigned char c = buf[pos];
        if (c == ' ' || c == '\t' || c == '\r') {
            pos++;
        } else if (c == '\n') {
            pos++;
            t->line++;
            t->line_start = t->base + pos;
        } else {
            t->pos = pos;
            jt_mark_token(t);
            return c;
        }
    }
    t->pos = pos;
    jt_mark_token(t);
    if (!t->ended)
        t->starved = true;
    return JT_EOF;
}

LLMLAT_PRIVATE const char *jt_describe(int c, char *tmp, size_t cap)
{
    if (c == JT_EOF)
        return "end of input";
    if (c > 0x20 && c < 0x7f)
        snprintf(tmp, cap, "'%c'", c);
    else
        snprintf(tmp, cap, "byte 0x%02x", (unsigned)c);
    return tmp;
}

LLMLAT_PRIVATE bool jt_expect(jtok *t, int c, const char *what)
{
    int got = jt_peek(t);
    if (got == c) {
        jt_advance(t);
        return true;
    }
    if (t->failed)
        return false;
    char tmp[JT_DESCRIBE_MAX];
    return jt_fail(t, "expected %s, found %s", what, jt_describe(got, tmp, sizeof tmp));
}

static int jt_hex_value(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The four hex digits after "\u". */
static bool jt_hex4(jtok *t, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int d = jt_hex_value(jt_raw_peek(t));
        if (d < 0)
            return jt_fail(t, "malformed \\u escape in a string");
        t->pos++;
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return true;
}

typedef struct jt_text {
    char *p;
    size_t n, cap, full;
} jt_text;

static void jt_put(jt_text *o, unsigned char c)
{
    if (o->n + 1 < o->cap)
        o->p[o->n++] = (char)c;
    o->full++;
}

static void jt_put_utf8(jt_text *o, unsigned cp)
{
    if (cp < 0x80) {
        jt_put(o, (unsigned char)cp);
    } else if (cp < 0x800) {
        jt_put(o, (unsigned char)(0xc0 | (cp >> 6)));
        jt_put(o, (unsigned char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        jt_put(o, (unsigned char)(0xe0 | (cp >> 12)));
        jt_put(o, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
        jt_put(o, (unsigned char)(0x80 | (cp & 0x3f)));
    } else {
        jt_put(o, (unsigned char)(0xf0 | (cp >> 18)));
        jt_put(o, (unsigned char)(0x80 | ((cp >> 12) & 0x3f)));
        jt_put(o, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
        jt_put(o, (unsigned char)(0x80 | (cp & 0x3f)));
    }
}

/* A \uXXXX escape, with its low surrogate when it is a high one; a lone
 * surrogate becomes U+FFFD. */
static bool jt_unicode_escape(jtok *t, jt_text *o)
{
    unsigned cp;
    if (!jt_hex4(t, &cp))
        return false;
    if (cp >= 0xd800 && cp < 0xdc00 && jt_raw_peek(t) == '\\') {
        t->pos++;
        if (jt_raw_peek(t) != 'u')
            return jt_fail(t, "malformed \\u escape in a string");
        t->pos++;
        unsigned lo;
        if (!jt_hex4(t, &lo))
            return false;
        cp = (lo >= 0xdc00 && lo < 0xe000) ? 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00)
                                            : 0xfffd;
    } else if (cp >= 0xd800 && cp < 0xe000) {
        cp = 0xfffd;
    }
    jt_put_utf8(o, cp);
    return true;
}

/* Plain bytes up to the next quote, backslash or control byte, in one
 * scan (most strings have no escape). */
static void jt_plain_run(jtok *t, jt_text *o)
{
    const unsigned char *p = t->buf + t->pos, *end = t->buf + t->len;
    const unsigned char *q = p;
    while (q < end && *q != '"' && *q != '\\' && *q >= 0x20)
        q++;
    size_t n = (size_t)(q - p);
    size_t room = o->cap > o->n + 1 ? o->cap - o->n - 1 : 0;
    size_t keep = n < room ? n : room;
    if (keep)
        memcpy(o->p + o->n, p, keep);
    o->n += keep;
    o->full += n;
    t->pos += n;
}

LLMLAT_PRIVATE bool jt_string(jtok *t, char *out, size_t cap, size_t *full)
{
    if (!jt_expect(t, '"', "a string"))
        return false;
    jt_text o = { out, 0, cap, 0 };
    for (;;) {
        jt_plain_run(t, &o);
        int c = jt_raw_peek(t);
        if (c == JT_EOF)
            return t->failed ? false : jt_fail(t, "unterminated string");
        t->pos++;
        if (c == '"')
            break;
        if (c < 0x20)
            return jt_fail(t, "control character (byte 0x%02x) in a string", (unsigned)c);
        /* c == '\\' */
        int e = jt_raw_peek(t);
        t->pos += e != JT_EOF;
        switch (e) {
        case '"': case '\\': case '/': jt_put(&o, (unsigned char)e); break;
        case 'b': jt_put(&o, '\b'); break;
        case 'f': jt_put(&o, '\f'); break;
        case 'n': jt_put(&o, '\n'); break;
        case 'r': jt_put(&o, '\r'); break;
        case 't': jt_put(&o, '\t'); break;
        case 'u':
            if (!jt_unicode_escape(t, &o))
                return false;
            break;
        default:
            return t->failed ? false : jt_fail(t, "invalid escape in a string");
        }
    }
    if (cap > 0)
        out[o.n] = '\0';
    if (full)
        *full = o.full;
    return true;
}

static bool jt_is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* Appends the byte under the cursor to the number text. */
static bool jt_take(jtok *t, char *out, size_t *n)
{
    if (*n + 1 >= JT_NUMBER_MAX)
        return jt_fail(t, "number longer than %d characters", JT_NUMBER_MAX - 1);
    out[(*n)++] = (char)t->buf[t->pos++];
    return true;
}

static bool jt_take_digits(jtok *t, char *out, size_t *n, const char *what)
{
    if (!jt_is_digit(jt_raw_peek(t)))
        return t->failed ? false : jt_fail(t, "malformed number: %s", what);
    while (jt_is_digit(jt_raw_peek(t)))
        if (!jt_take(t, out, n))
            return false;
    return true;
}

static bool jt_number_byte(int c)
{
    return jt_is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

static bool jt_letter(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static const unsigned char *jt_skip_digits(const unsigned char *p, const unsigned char *end)
{
    while (p < end && jt_is_digit(*p))
        p++;
    return p;
}

/* The end of the longest prefix of [p, end) that is a JSON number, or p
 * when there is none. */
static const unsigned char *jt_number_end(const unsigned char *p, const unsigned char *end)
{
    const unsigned char *start = p;
    p += p < end && *p == '-';
    if (p == end || !jt_is_digit(*p))
        return start;
    p = *p == '0' ? p + 1 : jt_skip_digits(p, end);
    if (p + 1 < end && *p == '.' && jt_is_digit(p[1]))
        p = jt_skip_digits(p + 1, end);
    if (p < end && (*p == 'e' || *p == 'E')) {
        const unsigned char *e = p + 1;
        e += e < end && (*e == '+' || *e == '-');
        if (e < end && jt_is_digit(*e))
            p = jt_skip_digits(e, end);
    }
    return p;
}

/* The common case in one scan: a well-formed number followed, inside the
 * window, by a byte that ends it. false (nothing consumed) otherwise, and
 * the byte-by-byte path decides and explains. */
static bool jt_number_in_window(jtok *t, char *out, size_t *len)
{
    const unsigned char *p = t->buf + t->pos, *end = t->buf + t->len;
    const unsigned char *q = jt_number_end(p, end);
    size_t n = (size_t)(q - p);
    if (n == 0 || q == end || n >= JT_NUMBER_MAX || jt_number_byte(*q) || jt_letter(*q))
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    *len = n;
    t->pos += n;
    return true;
}

LLMLAT_PRIVATE bool jt_number(jtok *t, char *out, size_t *len)
{
    size_t n = 0;
    int c = jt_peek(t);
    if (jt_starts_number(c) && jt_number_in_window(t, out, len))
        return true;
    if (!jt_starts_number(c)) {
        char tmp[JT_DESCRIBE_MAX];
        return t->failed ? false
                         : jt_fail(t, "expected a number, found %s",
                                   jt_describe(c, tmp, sizeof tmp));
    }
    if (c == '-' && !jt_take(t, out, &n))
        return false;
    if (jt_raw_peek(t) == '0') {
        if (!jt_take(t, out, &n))
            return false;
        if (jt_is_digit(jt_raw_peek(t)))
            return jt_fail(t, "malformed number: leading zero");
    } else if (!jt_take_digits(t, out, &n, "digits expected")) {
        return false;
    }
    if (jt_raw_peek(t) == '.') {
        if (!jt_take(t, out, &n) || !jt_take_digits(t, out, &n, "digits expected after '.'"))
            return false;
    }
    c = jt_raw_peek(t);
    if (c == 'e' || c == 'E') {
        if (!jt_take(t, out, &n))
            return false;
        c = jt_raw_peek(t);
        if ((c == '+' || c == '-') && !jt_take(t, out, &n))
            return false;
        if (!jt_take_digits(t, out, &n, "digits expected in the exponent"))
            return false;
    }
    c = jt_raw_peek(t);
    if (jt_is_digit(c) || jt_letter(c) || c == '.' || c == '+' || c == '-')
        return t->failed ? false : jt_fail(t, "malformed number");
    out[n] = '\0';
    *len = n;
    return !t->failed;
}

/* The word w at the cursor, not followed by a letter or digit. */
static bool jt_word(jtok *t, const char *w)
{
    for (const char *p = w; *p; p++) {
        if (jt_raw_peek(t) != *p)
            return false;
        t->pos++;
    }
    int next = jt_raw_peek(t);
    return !jt_letter(next) && !jt_is_digit(next);
}

LLMLAT_PRIVATE bool jt_literal(jtok *t, char *which)
{
    static const char *const WORDS[] = { "true", "false", "null" };
    int c = jt_peek(t);
    for (size_t w = 0; w < 3; w++) {
        if (c != WORDS[w][0])
            continue;
        if (!jt_word(t, WORDS[w]))
            return t->failed ? false : jt_fail(t, "invalid literal (expected %s)", WORDS[w]);
        *which = WORDS[w][0];
        return !t->failed;
    }
    char tmp[JT_DESCRIBE_MAX];
    return t->failed ? false
                     : jt_fail(t, "expected a value, found %s", jt_describe(c, tmp, sizeof tmp));
}

LLMLAT_PRIVATE bool jt_take_null(jtok *t, bool *ok)
{
    *ok = true;
    if (jt_peek(t) != 'n')
        return false;
    char which;
    *ok = jt_literal(t, &which);
    return true;
}

/* Python's json writes float('nan') and the infinities as bare words. */
static bool jt_python_word(jtok *t)
{
    int c = jt_peek(t);
    const char *w = c == 'N' ? "NaN" : c == 'I' ? "Infinity" : NULL;
    if (c == '-' && t->pos + 1 < t->len && t->buf[t->pos + 1] == 'I') {
        t->pos++;
        w = "Infinity";
    }
    if (!w)
        return false;
    if (!jt_word(t, w))
        return t->failed ? false : jt_fail(t, "invalid literal (expected %s)", w);
    return true;
}

static bool jt_skip_at(jtok *t, int depth);

/* The rest of an array or object after its opening byte. */
static bool jt_skip_members(jtok *t, int depth, bool object)
{
    int close = object ? '}' : ']';
    if (jt_peek(t) == close) {
        jt_advance(t);
        return true;
    }
    for (;;) {
        if (object) {
            char key[8];
            if (!jt_string(t, key, sizeof key, NULL) || !jt_expect(t, ':', "':' after a key"))
                return false;
        }
        if (!jt_skip_at(t, depth + 1))
            return false;
        int c = jt_peek(t);
        if (c == close) {
            jt_advance(t);
            return true;
        }
        if (!jt_expect(t, ',', object ? "',' or '}'" : "',' or ']'"))
            return false;
    }
}

static bool jt_skip_at(jtok *t, int depth)
{
    if (depth > JT_MAX_DEPTH)
        return jt_fail(t, "values nested deeper than %d", JT_MAX_DEPTH);
    int c = jt_peek(t);
    char scratch[JT_NUMBER_MAX];
    size_t n;
    switch (c) {
    case '{':
    case '[':
        jt_advance(t);
        return jt_skip_members(t, depth, c == '{');
    case '"':
        return jt_string(t, scratch, 1, NULL);
    case 'N':
    case 'I':
        if (t->lenient)
            return jt_python_word(t);
        break;
    case '-':
        if (t->lenient && t->pos + 1 < t->len && t->buf[t->pos + 1] == 'I')
            return jt_python_word(t);
        return jt_number(t, scratch, &n);
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        return jt_number(t, scratch, &n);
    }
    return jt_literal(t, scratch);
}

LLMLAT_PRIVATE bool jt_skip_value(jtok *t)
{
    return jt_skip_at(t, 0);
}
