#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json_reader.h"

#define BLOCK_SIZE (1u << 20)
#define MAX_DEPTH 256

bool jr_init(json_reader *r, FILE *f, const char *name)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->name = name;
    r->line = 1;
    r->tok_line = r->tok_col = 1;
    r->cap = BLOCK_SIZE;
    r->buf = malloc(r->cap);
    return r->buf != NULL;
}

void jr_free(json_reader *r)
{
    free(r->buf);
    r->buf = NULL;
}

static bool vfail(json_reader *r, uint64_t line, uint64_t col, const char *fmt, va_list ap)
{
    if (r->failed)
        return false;
    r->failed = true;
    int n = snprintf(r->error, sizeof r->error, "%s:%llu:%llu: ", r->name,
                     (unsigned long long)line, (unsigned long long)col);
    if (n > 0 && (size_t)n < sizeof r->error)
        vsnprintf(r->error + n, sizeof r->error - (size_t)n, fmt, ap);
    return false;
}

bool jr_fail(json_reader *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(r, r->tok_line, r->tok_col, fmt, ap);
    va_end(ap);
    return false;
}

bool jr_fail_at(json_reader *r, uint64_t line, uint64_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfail(r, line, col, fmt, ap);
    va_end(ap);
    return false;
}

/* The next block; false at the end of input or on a read error (which is
 * recorded). */
static bool refill(json_reader *r)
{
    if (r->failed)
        return false;
    r->base += r->len;
    r->pos = 0;
    r->len = fread(r->buf, 1, r->cap, r->f);
    if (r->len == 0 && ferror(r->f)) {
        uint64_t col = r->base - r->line_start + 1;
        return jr_fail_at(r, r->line, col, "read error: %s", strerror(errno));
    }
    return r->len > 0;
}

/* The next raw byte (no whitespace skipping), JR_EOF at the end. */
static inline int raw_peek(json_reader *r)
{
    if (r->pos == r->len && !refill(r))
        return JR_EOF;
    return r->buf[r->pos];
}

static inline void mark_token(json_reader *r)
{
    r->tok_line = r->line;
    r->tok_col = r->base + r->pos - r->line_start + 1;
}

int jr_peek(json_reader *r)
{
    for (;;) {
        while (r->pos < r->len) {
            unsigned char c = r->buf[r->pos];
            if (c == ' ' || c == '\t' || c == '\r') {
                r->pos++;
            } else if (c == '\n') {
                r->pos++;
                r->line++;
                r->line_start = r->base + r->pos;
            } else {
                mark_token(r);
                return c;
            }
        }
        if (!refill(r)) {
            mark_token(r);
            return JR_EOF;
        }
    }
}

void jr_advance(json_reader *r)
{
    if (r->pos < r->len)
        r->pos++;
}

const unsigned char *jr_window(const json_reader *r, size_t *avail)
{
    *avail = r->len - r->pos;
    return r->buf + r->pos;
}

void jr_consume(json_reader *r, size_t n)
{
    r->pos += n <= r->len - r->pos ? n : r->len - r->pos;
}

const char *jr_describe(int c, char *tmp, size_t cap)
{
    if (c == JR_EOF)
        return "end of input";
    if (c > 0x20 && c < 0x7f)
        snprintf(tmp, cap, "'%c'", c);
    else
        snprintf(tmp, cap, "byte 0x%02x", (unsigned)c);
    return tmp;
}

bool jr_expect(json_reader *r, int c, const char *what)
{
    int got = jr_peek(r);
    if (got == c) {
        jr_advance(r);
        return true;
    }
    if (r->failed)
        return false;
    char tmp[16];
    return jr_fail(r, "expected %s, found %s", what, jr_describe(got, tmp, sizeof tmp));
}

static int hex_value(int c)
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
static bool read_hex4(json_reader *r, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int d = hex_value(raw_peek(r));
        if (d < 0)
            return jr_fail(r, "malformed \\u escape in a string");
        r->pos++;
        v = v * 16 + (unsigned)d;
    }
    *out = v;
    return true;
}

typedef struct out_text {
    char *p;
    size_t n, cap;
} out_text;

static void put_byte(out_text *o, unsigned char c)
{
    if (o->n + 1 < o->cap)
        o->p[o->n++] = (char)c;
}

static void put_utf8(out_text *o, unsigned cp)
{
    if (cp < 0x80) {
        put_byte(o, (unsigned char)cp);
    } else if (cp < 0x800) {
        put_byte(o, (unsigned char)(0xc0 | (cp >> 6)));
        put_byte(o, (unsigned char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        put_byte(o, (unsigned char)(0xe0 | (cp >> 12)));
        put_byte(o, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
        put_byte(o, (unsigned char)(0x80 | (cp & 0x3f)));
    } else {
        put_byte(o, (unsigned char)(0xf0 | (cp >> 18)));
        put_byte(o, (unsigned char)(0x80 | ((cp >> 12) & 0x3f)));
        put_byte(o, (unsigned char)(0x80 | ((cp >> 6) & 0x3f)));
        put_byte(o, (unsigned char)(0x80 | (cp & 0x3f)));
    }
}

/* A \uXXXX escape, with its low surrogate when it is a high one; a lone
 * surrogate becomes U+FFFD. */
static bool unicode_escape(json_reader *r, out_text *o)
{
    unsigned cp;
    if (!read_hex4(r, &cp))
        return false;
    if (cp >= 0xd800 && cp < 0xdc00 && raw_peek(r) == '\\') {
        r->pos++;
        if (raw_peek(r) != 'u')
            return jr_fail(r, "malformed \\u escape in a string");
        r->pos++;
        unsigned lo;
        if (!read_hex4(r, &lo))
            return false;
        cp = (lo >= 0xdc00 && lo < 0xe000) ? 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00)
                                            : 0xfffd;
    } else if (cp >= 0xd800 && cp < 0xe000) {
        cp = 0xfffd;
    }
    put_utf8(o, cp);
    return true;
}

bool jr_string(json_reader *r, char *out, size_t cap)
{
    if (!jr_expect(r, '"', "a string"))
        return false;
    out_text o = { out, 0, cap };
    for (;;) {
        int c = raw_peek(r);
        if (c == JR_EOF)
            return r->failed ? false : jr_fail(r, "unterminated string");
        r->pos++;
        if (c == '"')
            break;
        if (c < 0x20)
            return jr_fail(r, "control character (byte 0x%02x) in a string", (unsigned)c);
        if (c != '\\') {
            put_byte(&o, (unsigned char)c);
            continue;
        }
        int e = raw_peek(r);
        r->pos += e != JR_EOF;
        switch (e) {
        case '"': case '\\': case '/': put_byte(&o, (unsigned char)e); break;
        case 'b': put_byte(&o, '\b'); break;
        case 'f': put_byte(&o, '\f'); break;
        case 'n': put_byte(&o, '\n'); break;
        case 'r': put_byte(&o, '\r'); break;
        case 't': put_byte(&o, '\t'); break;
        case 'u':
            if (!unicode_escape(r, &o))
                return false;
            break;
        default:
            return r->failed ? false : jr_fail(r, "invalid escape in a string");
        }
    }
    if (cap > 0)
        out[o.n] = '\0';
    return true;
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* Appends the byte under the cursor to the number text. */
static bool take(json_reader *r, char *out, size_t *n)
{
    if (*n + 1 >= JR_NUMBER_MAX)
        return jr_fail(r, "number longer than %d characters", JR_NUMBER_MAX - 1);
    out[(*n)++] = (char)r->buf[r->pos++];
    return true;
}

static bool take_digits(json_reader *r, char *out, size_t *n, const char *what)
{
    if (!is_digit(raw_peek(r)))
        return r->failed ? false : jr_fail(r, "malformed number: %s", what);
    while (is_digit(raw_peek(r)))
        if (!take(r, out, n))
            return false;
    return true;
}

static bool is_number_byte(int c)
{
    return is_digit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

static const unsigned char *skip_digits(const unsigned char *p, const unsigned char *end)
{
    while (p < end && is_digit(*p))
        p++;
    return p;
}

/* The end of the longest prefix of [p, end) that is a JSON number, or p
 * when there is none. */
static const unsigned char *number_end(const unsigned char *p, const unsigned char *end)
{
    const unsigned char *start = p;
    p += p < end && *p == '-';
    if (p == end || !is_digit(*p))
        return start;
    p = *p == '0' ? p + 1 : skip_digits(p, end);
    if (p + 1 < end && *p == '.' && is_digit(p[1]))
        p = skip_digits(p + 1, end);
    if (p < end && (*p == 'e' || *p == 'E')) {
        const unsigned char *e = p + 1;
        e += e < end && (*e == '+' || *e == '-');
        if (e < end && is_digit(*e))
            p = skip_digits(e, end);
    }
    return p;
}

/* The common case in one scan: a well-formed number followed, inside the
 * buffer, by a byte that ends it. false (nothing consumed) otherwise, and
 * the byte-by-byte path decides and explains. */
static bool number_in_buffer(json_reader *r, char *out)
{
    const unsigned char *p = r->buf + r->pos, *end = r->buf + r->len;
    const unsigned char *q = number_end(p, end);
    size_t n = (size_t)(q - p);
    if (n == 0 || q == end || n >= JR_NUMBER_MAX || is_number_byte(*q) ||
        (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    r->pos += n;
    return true;
}

bool jr_number(json_reader *r, char *out)
{
    size_t n = 0;
    int c = jr_peek(r);
    if ((c == '-' || is_digit(c)) && number_in_buffer(r, out))
        return true;
    if (c != '-' && !is_digit(c)) {
        char tmp[16];
        return r->failed ? false
                         : jr_fail(r, "expected a number, found %s",
                                   jr_describe(c, tmp, sizeof tmp));
    }
    if (c == '-' && !take(r, out, &n))
        return false;
    if (raw_peek(r) == '0') {
        if (!take(r, out, &n))
            return false;
        if (is_digit(raw_peek(r)))
            return jr_fail(r, "malformed number: leading zero");
    } else if (!take_digits(r, out, &n, "digits expected")) {
        return false;
    }
    if (raw_peek(r) == '.') {
        if (!take(r, out, &n) || !take_digits(r, out, &n, "digits expected after '.'"))
            return false;
    }
    c = raw_peek(r);
    if (c == 'e' || c == 'E') {
        if (!take(r, out, &n))
            return false;
        c = raw_peek(r);
        if ((c == '+' || c == '-') && !take(r, out, &n))
            return false;
        if (!take_digits(r, out, &n, "digits expected in the exponent"))
            return false;
    }
    c = raw_peek(r);
    if (is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.' ||
        c == '+' || c == '-')
        return r->failed ? false : jr_fail(r, "malformed number");
    out[n] = '\0';
    return !r->failed;
}

bool jr_literal(json_reader *r, char *which)
{
    static const char *const WORDS[] = { "true", "false", "null" };
    int c = jr_peek(r);
    for (size_t w = 0; w < 3; w++) {
        if (c != WORDS[w][0])
            continue;
        for (const char *p = WORDS[w]; *p; p++) {
            if (raw_peek(r) != *p)
                return r->failed ? false : jr_fail(r, "invalid literal (expected %s)", WORDS[w]);
            r->pos++;
        }
        int next = raw_peek(r);
        if ((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z') || is_digit(next))
            return r->failed ? false : jr_fail(r, "invalid literal (expected %s)", WORDS[w]);
        *which = WORDS[w][0];
        return !r->failed;
    }
    char tmp[16];
    return r->failed ? false
                     : jr_fail(r, "expected a value, found %s", jr_describe(c, tmp, sizeof tmp));
}

static bool skip_at(json_reader *r, int depth);

/* The rest of an array or object after its opening byte. */
static bool skip_members(json_reader *r, int depth, bool object)
{
    int close = object ? '}' : ']';
    if (jr_peek(r) == close) {
        jr_advance(r);
        return true;
    }
    for (;;) {
        if (object) {
            char key[8];
            if (!jr_string(r, key, sizeof key) || !jr_expect(r, ':', "':' after a key"))
                return false;
        }
        if (!skip_at(r, depth + 1))
            return false;
        int c = jr_peek(r);
        if (c == close) {
            jr_advance(r);
            return true;
        }
        if (!jr_expect(r, ',', object ? "',' or '}'" : "',' or ']'"))
            return false;
    }
}

static bool skip_at(json_reader *r, int depth)
{
    if (depth > MAX_DEPTH)
        return jr_fail(r, "values nested deeper than %d", MAX_DEPTH);
    int c = jr_peek(r);
    char scratch[JR_NUMBER_MAX];
    switch (c) {
    case '{':
    case '[':
        jr_advance(r);
        return skip_members(r, depth, c == '{');
    case '"':
        return jr_string(r, scratch, 1);
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        return jr_number(r, scratch);
    default:
        return jr_literal(r, scratch);
    }
}

bool jr_skip_value(json_reader *r)
{
    return skip_at(r, 0);
}
