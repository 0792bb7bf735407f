#include <stdio.h>
#include <string.h>

#include "json_scan.h"

static bool fail(json_cur *c, const char *why)
{
    if (!c->why) {
        c->why = why;
        c->at = (size_t)(c->p - c->start);
    }
    c->p = c->end;
    return false;
}

void json_init(json_cur *c, const void *bytes, size_t len)
{
    c->start = c->p = bytes;
    c->end = c->p + len;
    c->why = NULL;
    c->at = 0;
    c->opened = false;
}

static void skip_space(json_cur *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

int json_peek(json_cur *c)
{
    if (c->why)
        return -1;
    skip_space(c);
    return c->p < c->end ? (unsigned char)*c->p : -1;
}

static int hex_value(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Four hex digits at p (advanced past them). */
static bool hex4(json_cur *c, unsigned *u)
{
    if (c->end - c->p < 4)
        return fail(c, "a \\u escape needs four hex digits");
    *u = 0;
    for (int i = 0; i < 4; i++) {
        int h = hex_value(c->p[i]);
        if (h < 0)
            return fail(c, "a \\u escape needs four hex digits");
        *u = *u << 4 | (unsigned)h;
    }
    c->p += 4;
    return true;
}

/* cp as UTF-8 into tmp; the byte count. */
static size_t utf8_encode(unsigned cp, char tmp[4])
{
    if (cp < 0x80) {
        tmp[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        tmp[0] = (char)(0xc0 | cp >> 6);
        tmp[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        tmp[0] = (char)(0xe0 | cp >> 12);
        tmp[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        tmp[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    tmp[0] = (char)(0xf0 | cp >> 18);
    tmp[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    tmp[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    tmp[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* The code point of an escape after its backslash (p past it). A lone
 * surrogate is read as U+FFFD, as decoders that do not reject it do. */
static bool escape(json_cur *c, unsigned *cp)
{
    if (c->p == c->end)
        return fail(c, "unterminated string");
    char e = *c->p++;
    switch (e) {
    case '"': *cp = '"'; return true;
    case '\\': *cp = '\\'; return true;
    case '/': *cp = '/'; return true;
    case 'b': *cp = '\b'; return true;
    case 'f': *cp = '\f'; return true;
    case 'n': *cp = '\n'; return true;
    case 'r': *cp = '\r'; return true;
    case 't': *cp = '\t'; return true;
    case 'u': break;
    default: c->p--; return fail(c, "unknown escape in a string");
    }
    if (!hex4(c, cp))
        return false;
    if (*cp >= 0xd800 && *cp < 0xdc00 && c->end - c->p >= 6 && c->p[0] == '\\' &&
        c->p[1] == 'u') {
        const char *save = c->p;
        unsigned lo;
        c->p += 2;
        if (!hex4(c, &lo))
            return false;
        if (lo >= 0xdc00 && lo < 0xe000) {
            *cp = 0x10000 + ((*cp - 0xd800) << 10) + (lo - 0xdc00);
            return true;
        }
        c->p = save;
    }
    if (*cp >= 0xd800 && *cp < 0xe000)
        *cp = 0xfffd;
    return true;
}

bool json_string(json_cur *c, char *out, size_t cap, size_t *len)
{
    if (json_peek(c) != '"')
        return fail(c, "expected a string");
    c->p++;
    size_t n = 0;
    for (;;) {
        const char *run = c->p;
        while (c->p < c->end && *c->p != '"' && *c->p != '\\' && (unsigned char)*c->p >= 0x20)
            c->p++;
        size_t m = (size_t)(c->p - run);
        if (out && n < cap) {
            size_t room = cap - 1 - n;
            memcpy(out + n, run, m < room ? m : room);
        }
        n += m;
        if (c->p == c->end)
            return fail(c, "unterminated string");
        char ch = *c->p;
        if (ch == '"') {
            c->p++;
            break;
        }
        if (ch != '\\')
            return fail(c, "control character in a string");
        c->p++;
        unsigned cp;
        if (!escape(c, &cp))
            return false;
        char tmp[4];
        size_t k = utf8_encode(cp, tmp);
        for (size_t i = 0; i < k; i++, n++)
            if (out && n + 1 < cap)
                out[n] = tmp[i];
    }
    if (out && cap > 0)
        out[n < cap ? n : cap - 1] = '\0';
    if (len)
        *len = n;
    return true;
}

/* One number, checked against the grammar; *integer tells whether it had
 * neither fraction nor exponent. */
static bool number(json_cur *c, bool *integer)
{
    const char *p = c->p;
    *integer = true;
    if (p < c->end && *p == '-')
        p++;
    if (p == c->end || *p < '0' || *p > '9')
        return fail(c, "malformed number");
    if (*p == '0')
        p++;
    else
        while (p < c->end && *p >= '0' && *p <= '9')
            p++;
    if (p < c->end && *p == '.') {
        *integer = false;
        p++;
        if (p == c->end || *p < '0' || *p > '9')
            return fail(c, "malformed number");
        while (p < c->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < c->end && (*p == 'e' || *p == 'E')) {
        *integer = false;
        p++;
        if (p < c->end && (*p == '+' || *p == '-'))
            p++;
        if (p == c->end || *p < '0' || *p > '9')
            return fail(c, "malformed number");
        while (p < c->end && *p >= '0' && *p <= '9')
            p++;
    }
    c->p = p;
    return true;
}

bool json_uint(json_cur *c, uint64_t *v)
{
    int ch = json_peek(c);
    if (!(ch >= '0' && ch <= '9'))
        return fail(c, "expected a non-negative integer");
    const char *digits = c->p;
    bool integer;
    if (!number(c, &integer))
        return false;
    if (!integer) {
        c->p = digits;
        return fail(c, "expected an integer");
    }
    uint64_t n = 0;
    for (const char *p = digits; p < c->p; p++) {
        unsigned d = (unsigned)(*p - '0');
        if (n > (UINT64_MAX - d) / 10) {
            c->p = digits;
            return fail(c, "integer too large");
        }
        n = n * 10 + d;
    }
    *v = n;
    return true;
}

static bool literal(json_cur *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0)
        return fail(c, "unexpected character");
    c->p += n;
    return true;
}

bool json_null(json_cur *c, bool *was_null)
{
    *was_null = json_peek(c) == 'n';
    return *was_null ? literal(c, "null") : !c->why;
}

/* A scalar value (string, number, literal) at the next byte. */
static bool scalar(json_cur *c, int ch)
{
    bool integer;
    switch (ch) {
    case '"': return json_string(c, NULL, 0, NULL);
    case 't': return literal(c, "true");
    case 'f': return literal(c, "false");
    case 'n': return literal(c, "null");
    case -1: return fail(c, c->why ? c->why : "expected a value");
    default:
        if (ch == '-' || (ch >= '0' && ch <= '9'))
            return number(c, &integer);
        return fail(c, "unexpected character");
    }
}

/* "key": inside an object being skipped. */
static bool skip_key(json_cur *c)
{
    if (!json_string(c, NULL, 0, NULL))
        return false;
    if (json_peek(c) != ':')
        return fail(c, "expected ':' after a key");
    c->p++;
    return true;
}

bool json_skip(json_cur *c)
{
    char stack[JSON_MAX_DEPTH];
    int depth = 0;
    for (;;) {
        int ch = json_peek(c);
        if (ch == '{' || ch == '[') {
            if (depth == JSON_MAX_DEPTH)
                return fail(c, "nested too deeply");
            c->p++;
            stack[depth++] = (char)ch;
            int next = json_peek(c);
            if (next == (ch == '{' ? '}' : ']')) {
                c->p++;
                depth--;
            } else {
                if (ch == '{' && !skip_key(c))
                    return false;
                continue;
            }
        } else if (!scalar(c, ch)) {
            return false;
        }
        /* after a value: close containers, or go to the next element */
        for (;;) {
            if (depth == 0)
                return true;
            char open = stack[depth - 1];
            int next = json_peek(c);
            if (next == ',') {
                c->p++;
                if (open == '{' && !skip_key(c))
                    return false;
                break;
            }
            if (next != (open == '{' ? '}' : ']'))
                return fail(c, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
            c->p++;
            depth--;
        }
    }
}

bool json_open(json_cur *c, char open)
{
    if (json_peek(c) != open)
        return fail(c, open == '{' ? "expected an object" : "expected an array");
    c->p++;
    c->opened = true;
    return true;
}

bool json_next(json_cur *c, char close, bool *more)
{
    bool first = c->opened;
    c->opened = false;
    *more = false;
    int ch = json_peek(c);
    if (ch < 0)
        return fail(c, c->why ? c->why : "unterminated container");
    if (ch == close) {
        c->p++;
        return true;
    }
    if (!first) {
        if (ch != ',')
            return fail(c, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        c->p++;
    }
    *more = true;
    return true;
}

bool json_key(json_cur *c, char *key, size_t cap)
{
    if (!json_string(c, key, cap, NULL))
        return false;
    if (json_peek(c) != ':')
        return fail(c, "expected ':' after a key");
    c->p++;
    return true;
}

bool json_end(json_cur *c)
{
    if (json_peek(c) != -1 || c->why)
        return c->why ? false : fail(c, "unexpected bytes after the value");
    return true;
}

void json_error(const json_cur *c, char *buf, size_t cap)
{
    if (!c->why)
        snprintf(buf, cap, "%s", "");
    else
        snprintf(buf, cap, "%s at byte %zu", c->why, c->at);
}
