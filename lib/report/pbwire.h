/* The protocol-buffers wire format, as much as the exposition writes:
 * varints, zigzag integers, little-endian doubles, and length-delimited
 * fields (strings, nested messages, packed repeated integers). A nested
 * message is written in place and its length inserted in front of it when
 * it closes, so a message is built in one pass. */
#ifndef LLMLAT_PBWIRE_H
#define LLMLAT_PBWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "report/report_buf.h"

LLMLAT_PRIVATE void pb_varint(rbuf *b, uint64_t v);
/* Field `field` of wire type 0 (varint), as uint64 / uint32 / enum. */
LLMLAT_PRIVATE void pb_uint(rbuf *b, uint32_t field, uint64_t v);
/* sint32 / sint64 (zigzag). */
LLMLAT_PRIVATE void pb_sint(rbuf *b, uint32_t field, int64_t v);
/* double (wire type 1). */
LLMLAT_PRIVATE void pb_double(rbuf *b, uint32_t field, double v);
/* string / bytes (wire type 2). */
LLMLAT_PRIVATE void pb_string(rbuf *b, uint32_t field, const char *s);
/* A nested message or packed field: pb_open writes its tag and returns
 * where its content starts; pb_close puts the content's length there. */
LLMLAT_PRIVATE size_t pb_open(rbuf *b, uint32_t field);
LLMLAT_PRIVATE void pb_close(rbuf *b, size_t start);
/* One element of a packed sint64 field, between pb_open and pb_close. */
LLMLAT_PRIVATE void pb_packed_sint(rbuf *b, int64_t v);

#endif
