#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "llmlat.h"
#include "output.h"

static bool put(const void *p, size_t n)
{
    return fwrite(p, 1, n, stdout) == n;
}

int32_t stdout_write(void *user, const void *bytes, size_t len)
{
    stdout_sink *s = user;
    const char *p = bytes;
    bool ok = true;
    if (!s->hold_tail) {
        ok = put(p, len);
    } else if (len >= OUTPUT_JSON_TAIL) { /* the tail so far, and all but the end of p */
        ok = put(s->tail, s->n_tail) && put(p, len - OUTPUT_JSON_TAIL);
        memcpy(s->tail, p + len - OUTPUT_JSON_TAIL, OUTPUT_JSON_TAIL);
        s->n_tail = OUTPUT_JSON_TAIL;
    } else { /* the oldest bytes of the tail make room for p */
        size_t keep = OUTPUT_JSON_TAIL - len, out = s->n_tail > keep ? s->n_tail - keep : 0;
        ok = put(s->tail, out);
        memmove(s->tail, s->tail + out, s->n_tail - out);
        memcpy(s->tail + s->n_tail - out, p, len);
        s->n_tail += len - out;
    }
    return ok ? LLMLAT_OK : STDOUT_FAILED;
}

void stdout_json_reopen(const stdout_sink *s)
{
    size_t body = s->n_tail;
    while (body > 0 && s->tail[body - 1] != '}')
        body--;
    if (body > 0)
        body--;
    while (body > 0 && isspace((unsigned char)s->tail[body - 1]))
        body--;
    put(s->tail, body);
}

void stdout_openmetrics_reopen(const stdout_sink *s)
{
    static const char eof[] = "# EOF\n";
    size_t body = s->n_tail, n = sizeof eof - 1;
    if (body >= n && memcmp(s->tail + body - n, eof, n) == 0)
        body -= n;
    put(s->tail, body);
}

int stdout_finish(const char *prog)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: cannot write the report: %s\n", prog, strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

void stdout_json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

void stdout_double(double v, const char *nan_text)
{
    if (!isfinite(v)) {
        fputs(nan_text, stdout);
        return;
    }
    char tmp[40];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(tmp, sizeof tmp, "%.*g", digits, v);
        for (char *c = tmp; *c; c++) /* the C locale's point may be ',' */
            if (*c == ',')
                *c = '.';
        if (strtod(tmp, NULL) == v)
            break;
    }
    fputs(tmp, stdout);
}
