/* Whether a streamed response has content, from its text: GenAI-Perf
 * (llm_profile_data_parser.py, _is_empty_response) and AIPerf drop the
 * responses whose text is empty, such as an OpenAI stream's role chunk,
 * its usage chunk and "[DONE]". Their parsers read the JSON of each SSE
 * "data:" line; here one scan looks for a "content", "text",
 * "text_output" or "generated_text" member holding a non-empty string,
 * which is what those parsers take the text from. */
#include <string.h>

#include "read/import.h"

static const char *const SSE_TEXT_KEYS[] = {
    "\"content\"", "\"text\"", "\"text_output\"", "\"generated_text\"",
};

static bool sse_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* The key at s[i] (a quoted name, not escaped inside a string) holds a
 * non-empty string. */
static bool sse_nonempty_at(const char *s, size_t n, size_t i, size_t key_len)
{
    if (i > 0 && s[i - 1] == '\\')
        return false;
    size_t j = i + key_len;
    while (j < n && sse_space(s[j]))
        j++;
    if (j == n || s[j] != ':')
        return false;
    for (j++; j < n && sse_space(s[j]); j++)
        ;
    return j + 1 < n && s[j] == '"' && s[j + 1] != '"';
}

LLMLAT_PRIVATE bool sse_has_content(const char *text, size_t n)
{
    for (size_t k = 0; k < sizeof SSE_TEXT_KEYS / sizeof SSE_TEXT_KEYS[0]; k++) {
        const char *key = SSE_TEXT_KEYS[k];
        size_t key_len = strlen(key);
        for (size_t i = 0; i + key_len <= n; i++)
            if (text[i] == '"' && memcmp(text + i, key, key_len) == 0 &&
                sse_nonempty_at(text, n, i, key_len))
                return true;
    }
    return false;
}
