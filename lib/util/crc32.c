/* Four bits at a time: a 16-entry table, no state to initialize. */
#include "util/crc32.h"

static const uint32_t NIBBLE[16] = {
    0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu,
    0x76dc4190u, 0x6b6b51f4u, 0x4db26158u, 0x5005713cu,
    0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
    0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
};

LLMLAT_PRIVATE uint32_t crc32_of(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        c ^= p[i];
        c = (c >> 4) ^ NIBBLE[c & 15];
        c = (c >> 4) ^ NIBBLE[c & 15];
    }
    return c ^ 0xffffffffu;
}
