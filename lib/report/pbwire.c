#include <string.h>

#include "report/pbwire.h"

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2 };

/* 64 bits in 7-bit groups: at most 10 bytes. */
#define PB_VARINT_MAX 10

static size_t pb_varint_bytes(uint64_t v, unsigned char *out)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (unsigned char)v;
    return n;
}

LLMLAT_PRIVATE void pb_varint(rbuf *b, uint64_t v)
{
    unsigned char tmp[PB_VARINT_MAX];
    rbuf_putn(b, (const char *)tmp, pb_varint_bytes(v, tmp));
}

static void pb_tag(rbuf *b, uint32_t field, unsigned wire)
{
    pb_varint(b, (uint64_t)field << 3 | wire);
}

LLMLAT_PRIVATE void pb_uint(rbuf *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, PB_VARINT);
    pb_varint(b, v);
}

static uint64_t pb_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

LLMLAT_PRIVATE void pb_sint(rbuf *b, uint32_t field, int64_t v)
{
    pb_uint(b, field, pb_zigzag(v));
}

LLMLAT_PRIVATE void pb_packed_sint(rbuf *b, int64_t v)
{
    pb_varint(b, pb_zigzag(v));
}

LLMLAT_PRIVATE void pb_double(rbuf *b, uint32_t field, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(bits >> (8 * i));
    pb_tag(b, field, PB_FIXED64);
    rbuf_putn(b, (const char *)le, sizeof le);
}

LLMLAT_PRIVATE void pb_string(rbuf *b, uint32_t field, const char *s)
{
    size_t n = strlen(s);
    pb_tag(b, field, PB_LEN);
    pb_varint(b, n);
    rbuf_putn(b, s, n);
}

LLMLAT_PRIVATE size_t pb_open(rbuf *b, uint32_t field)
{
    pb_tag(b, field, PB_LEN);
    return b->len;
}

LLMLAT_PRIVATE void pb_close(rbuf *b, size_t start)
{
    unsigned char tmp[PB_VARINT_MAX];
    size_t n = pb_varint_bytes(b->len - start, tmp);
    rbuf_insert(b, start, (const char *)tmp, n);
}
