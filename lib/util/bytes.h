/* Little-endian byte streams for the serialized format (docs/format.md).
 *
 * A writer with a NULL buffer only counts, so one routine both measures
 * and writes. A reader never reads past its end: a short read sets `bad`
 * and yields zeros, and the caller checks `bad` once per section. */
#ifndef LLMLAT_BYTES_H
#define LLMLAT_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct bytes_writer {
    uint8_t *p; /* NULL: measure only */
    size_t n;   /* bytes written (or that would be) */
} bytes_writer;

static inline void put_bytes(bytes_writer *w, const void *src, size_t n)
{
    if (w->p)
        memcpy(w->p + w->n, src, n);
    w->n += n;
}

static inline void put_u64(bytes_writer *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put_bytes(w, b, 8);
}

static inline void put_u32(bytes_writer *w, uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put_bytes(w, b, 4);
}

static inline void put_i64(bytes_writer *w, int64_t v)
{
    put_u64(w, (uint64_t)v);
}

static inline void put_f64(bytes_writer *w, double v)
{
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    put_u64(w, b);
}

/* LEB128: 7 bits a byte, low first; bucket counts are mostly small. */
static inline void put_varint(bytes_writer *w, uint64_t v)
{
    uint8_t b[10];
    size_t n = 0;
    do {
        b[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        b[n++] |= v ? 0x80 : 0;
    } while (v);
    put_bytes(w, b, n);
}

typedef struct bytes_reader {
    const uint8_t *p;
    size_t left;
    bool bad; /* a read ran past the end, or a varint was malformed */
} bytes_reader;

static inline const uint8_t *take(bytes_reader *r, size_t n)
{
    if (r->bad || n > r->left) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->p;
    r->p += n;
    r->left -= n;
    return p;
}

static inline uint64_t get_u64(bytes_reader *r)
{
    const uint8_t *b = take(r, 8);
    uint64_t v = 0;
    for (int i = 0; b && i < 8; i++)
        v |= (uint64_t)b[i] << (8 * i);
    return v;
}

static inline uint32_t get_u32(bytes_reader *r)
{
    const uint8_t *b = take(r, 4);
    uint32_t v = 0;
    for (int i = 0; b && i < 4; i++)
        v |= (uint32_t)b[i] << (8 * i);
    return v;
}

static inline int64_t get_i64(bytes_reader *r)
{
    return (int64_t)get_u64(r);
}

static inline double get_f64(bytes_reader *r)
{
    uint64_t b = get_u64(r);
    double v;
    memcpy(&v, &b, sizeof v);
    return v;
}

/* The shortest encoding only (as put_varint writes): one value, one byte
 * string, so that equal states always serialize to equal bytes. */
static inline uint64_t get_varint(bytes_reader *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        const uint8_t *b = take(r, 1);
        if (!b)
            return 0;
        uint64_t bits = *b & 0x7f;
        if ((shift == 63 && bits > 1) || (shift && !*b)) {
            r->bad = true; /* beyond 64 bits, or a padded (overlong) form */
            return 0;
        }
        v |= bits << shift;
        if (!(*b & 0x80))
            return v;
    }
    r->bad = true;
    return 0;
}

#endif
