#include <string.h>

#include "report/pbwire.h"

enum { PB_VARINT = 0, PB_FIXED64 = 1, PB_LEN = 2 };

/* 64 bits in 7-bit groups: at most 10 bytes. */
#define PB_VARINT_MAX 10

LLMLAT_PRIVATE void pbuf_init(pbuf *b, const llmlat_alloc *al)
{
    *b = (pbuf){ .al = al, .status = LLMLAT_OK };
}

LLMLAT_PRIVATE void pbuf_free(pbuf *b)
{
    alloc_free(b->al, b->p);
    pbuf_init(b, b->al);
}

/* n bytes inserted at offset `at` <= len. */
static void pbuf_insert(pbuf *b, size_t at, const unsigned char *s, size_t n)
{
    if (b->status != LLMLAT_OK)
        return;
    void *p = b->p;
    int32_t st = n > SIZE_MAX - b->len ? LLMLAT_ENOMEM
                                       : alloc_grow(b->al, &p, &b->cap, b->len + n, 1);
    if (st != LLMLAT_OK) {
        b->status = LLMLAT_ENOMEM;
        return;
    }
    b->p = p;
    memmove(b->p + at + n, b->p + at, b->len - at);
    memcpy(b->p + at, s, n);
    b->len += n;
}

static void pbuf_put(pbuf *b, const unsigned char *s, size_t n)
{
    pbuf_insert(b, b->len, s, n);
}

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

static void pb_varint(pbuf *b, uint64_t v)
{
    unsigned char tmp[PB_VARINT_MAX];
    pbuf_put(b, tmp, pb_varint_bytes(v, tmp));
}

LLMLAT_PRIVATE void pbuf_emit(const pbuf *b, rbuf *out)
{
    unsigned char tmp[PB_VARINT_MAX];
    rbuf_putn(out, (const char *)tmp, pb_varint_bytes(b->len, tmp));
    rbuf_putn(out, (const char *)b->p, b->len);
}

static void pb_tag(pbuf *b, uint32_t field, unsigned wire)
{
    pb_varint(b, (uint64_t)field << 3 | wire);
}

LLMLAT_PRIVATE void pb_uint(pbuf *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, PB_VARINT);
    pb_varint(b, v);
}

static uint64_t pb_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

LLMLAT_PRIVATE void pb_sint(pbuf *b, uint32_t field, int64_t v)
{
    pb_uint(b, field, pb_zigzag(v));
}

LLMLAT_PRIVATE void pb_packed_sint(pbuf *b, int64_t v)
{
    pb_varint(b, pb_zigzag(v));
}

LLMLAT_PRIVATE void pb_double(pbuf *b, uint32_t field, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    unsigned char le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (unsigned char)(bits >> (8 * i));
    pb_tag(b, field, PB_FIXED64);
    pbuf_put(b, le, sizeof le);
}

LLMLAT_PRIVATE void pb_string(pbuf *b, uint32_t field, const char *s)
{
    size_t n = strlen(s);
    pb_tag(b, field, PB_LEN);
    pb_varint(b, n);
    pbuf_put(b, (const unsigned char *)s, n);
}

LLMLAT_PRIVATE size_t pb_open(pbuf *b, uint32_t field)
{
    pb_tag(b, field, PB_LEN);
    return b->len;
}

LLMLAT_PRIVATE void pb_close(pbuf *b, size_t start)
{
    if (b->status != LLMLAT_OK)
        return; /* len may be short of start */
    unsigned char tmp[PB_VARINT_MAX];
    pbuf_insert(b, start, tmp, pb_varint_bytes(b->len - start, tmp));
}
