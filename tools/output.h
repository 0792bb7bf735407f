/* The command's output: reports stream to stdout as the library writes
 * them. A JSON object takes more members before its closing brace, and an
 * OpenMetrics exposition more families before its "# EOF", so their last
 * bytes are held back until the end. */
#ifndef LLMLAT_OUTPUT_H
#define LLMLAT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OUTPUT_JSON_TAIL 64
#define STDOUT_FAILED 1 /* the sink's status when stdout refuses bytes */

typedef struct stdout_sink {
    bool hold_tail;
    char tail[OUTPUT_JSON_TAIL];
    size_t n_tail;
} stdout_sink;

/* An llmlat_write_fn onto stdout (user: a stdout_sink). */
int32_t stdout_write(void *user, const void *bytes, size_t len);

/* Writes the held tail without the object's closing brace (and the space
 * before it): the caller writes its members, each after ",\n", then
 * "\n}\n". */
void stdout_json_reopen(const stdout_sink *s);

/* Writes the held tail without the exposition's final "# EOF\n": the
 * caller writes its families, then "# EOF\n". */
void stdout_openmetrics_reopen(const stdout_sink *s);

/* s as a JSON string, quotes and escapes included. */
void stdout_json_string(const char *s);
/* v as the shortest text that reads back as it ('.' whatever the
 * locale), or `nan_text` when it is NaN or infinite. */
void stdout_double(double v, const char *nan_text);

/* EXIT_OK once stdout took everything, else says why (EXIT_RUNTIME). */
int stdout_finish(const char *prog);

#endif
