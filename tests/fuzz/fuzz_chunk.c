/* Fuzz target (g): `llmlat bench`'s reader of an OpenAI-compatible chunk
 * (tools/openai_chunk.c) and the JSON scanner under it (tools/json_scan.c)
 * on arbitrary bytes: the reader takes exactly the bytes the scanner finds
 * to be one JSON object, its message is a string either way, an error's
 * message is never empty, and what it counts is consistent (content and
 * logprobs only with choices). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json_scan.h"
#include "openai_chunk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    chunk_info c;
    bool read = chunk_read((const char *)data, size, &c);
    json_cur j;
    json_init(&j, data, size);
    bool object = json_peek(&j) == '{' && json_skip(&j) && json_end(&j);
    if (read != object || memchr(c.message, '\0', sizeof c.message) == NULL ||
        memchr(c.finish_reason, '\0', sizeof c.finish_reason) == NULL)
        abort();
    if (!read && (c.choices || c.content || c.error || !c.message[0]))
        abort();
    if (c.error && !c.message[0])
        abort();
    if ((c.content || c.has_logprobs) && !c.choices)
        abort();
    return 0;
}
