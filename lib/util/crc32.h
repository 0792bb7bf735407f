/* CRC-32 as zlib computes it (CRC-32/ISO-HDLC: reflected polynomial
 * 0xEDB88320, initial and final xor 0xFFFFFFFF), so that the check of a
 * serialized aggregator can be verified with zlib.crc32 or `crc32`. */
#ifndef LLMLAT_CRC32_H
#define LLMLAT_CRC32_H

#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

LLMLAT_PRIVATE uint32_t crc32_of(const void *buf, size_t len);

#endif
