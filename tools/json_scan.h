/* A JSON scanner over bytes in memory, for what `llmlat bench` reads from
 * servers (stream chunks) and from its options (--extra-body, datasets):
 * strict RFC 8259 validation, no allocation, no recursion (nesting is
 * bounded by JSON_MAX_DEPTH), values read or skipped as the caller walks
 * through them. The first error stops the scan: every later call fails,
 * and json_error says what was wrong and where. */
#ifndef LLMLAT_JSON_SCAN_H
#define LLMLAT_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 256

typedef struct json_cur {
    const char *start, *p, *end;
    const char *why; /* NULL until an error */
    size_t at;       /* offset of the error */
    bool opened;     /* json_open just ran: json_next takes no ',' */
} json_cur;

void json_init(json_cur *c, const void *bytes, size_t len);

/* The next byte that is not whitespace (not consumed), or -1 at the end
 * or after an error. */
int json_peek(json_cur *c);

/* Skips whitespace and one value, checking it. */
bool json_skip(json_cur *c);

/* Reads a string. Up to cap - 1 of its unescaped bytes are copied into out
 * (NUL-terminated; out may be NULL when cap is 0); *len (may be NULL) is
 * its whole unescaped length. */
bool json_string(json_cur *c, char *out, size_t cap, size_t *len);

/* Reads a number that is a non-negative integer below 2^64 (no fraction,
 * no exponent); anything else at this place is an error. */
bool json_uint(json_cur *c, uint64_t *v);

/* Reads null if it is next: true (and *was_null) when it was. */
bool json_null(json_cur *c, bool *was_null);

/* Containers: json_open(c, '{') consumes the brace; then, while
 * json_next(c, '}', &more) gives more, json_key reads "key": and the
 * caller reads or skips the value. Arrays likewise with '[' and ']',
 * without keys. A key longer than cap - 1 bytes is cut (it then matches no
 * name the callers look for). */
bool json_open(json_cur *c, char open);
bool json_next(json_cur *c, char close, bool *more);
bool json_key(json_cur *c, char *key, size_t cap);

/* Only whitespace is left. */
bool json_end(json_cur *c);

/* The scan's error, "what at byte N", into buf; "" when none. */
void json_error(const json_cur *c, char *buf, size_t cap);

#endif
