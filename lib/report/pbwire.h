/* The protocol-buffers wire format, as much as the exposition writes:
 * varints, zigzag integers, little-endian doubles, and length-delimited
 * fields (strings, nested messages, packed repeated integers), into a
 * growable message buffer. A nested message is written in place and its
 * length inserted in front of it when it closes, so a message is built in
 * one pass; pbuf_emit then streams it, length first (the "delimited"
 * framing of a stream of messages). Appends never fail one by one: the
 * first allocation failure is kept in `status`. */
#ifndef LLMLAT_PBWIRE_H
#define LLMLAT_PBWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "util/alloc.h"
#include "report/report_buf.h"

typedef struct pbuf {
    const llmlat_alloc *al;
    unsigned char *p;
    size_t len, cap;
    int32_t status; /* LLMLAT_OK, or ENOMEM */
} pbuf;

LLMLAT_PRIVATE void pbuf_init(pbuf *b, const llmlat_alloc *al);
LLMLAT_PRIVATE void pbuf_free(pbuf *b);
/* The message's length as a varint, then its bytes, to out. */
LLMLAT_PRIVATE void pbuf_emit(const pbuf *b, rbuf *out);

/* Field `field` of wire type 0 (varint): uint64 / uint32 / enum. */
LLMLAT_PRIVATE void pb_uint(pbuf *b, uint32_t field, uint64_t v);
/* sint32 / sint64 (zigzag). */
LLMLAT_PRIVATE void pb_sint(pbuf *b, uint32_t field, int64_t v);
/* double (wire type 1). */
LLMLAT_PRIVATE void pb_double(pbuf *b, uint32_t field, double v);
/* string / bytes (wire type 2). */
LLMLAT_PRIVATE void pb_string(pbuf *b, uint32_t field, const char *s);
/* A nested message or packed field: pb_open writes its tag and returns
 * where its content starts; pb_close puts the content's length there. */
LLMLAT_PRIVATE size_t pb_open(pbuf *b, uint32_t field);
LLMLAT_PRIVATE void pb_close(pbuf *b, size_t start);
/* One element of a packed sint64 field, between pb_open and pb_close. */
LLMLAT_PRIVATE void pb_packed_sint(pbuf *b, int64_t v);

#endif
