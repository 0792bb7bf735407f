/* A small JSON writer for the JSON report: objects nested a few levels,
 * one member per line, two-space indent, NaN (and inf) written as null.
 * Keys are the report's own ASCII names (and label names), written as
 * given; string values are escaped. */
#ifndef LLMLAT_REPORT_JSONW_H
#define LLMLAT_REPORT_JSONW_H

#include <stdbool.h>
#include <stdint.h>

#include "report/report_buf.h"

#define JSONW_MAX_DEPTH 8

typedef struct jsonw {
    rbuf *b;
    int depth;
    bool empty[JSONW_MAX_DEPTH]; /* no member yet at that depth */
} jsonw;

/* Opens the top-level object; jw_end closes it and ends the line. */
LLMLAT_PRIVATE void jw_begin(jsonw *w, rbuf *b);
LLMLAT_PRIVATE void jw_end(jsonw *w);

/* Members of the innermost open object. */
LLMLAT_PRIVATE void jw_object(jsonw *w, const char *key); /* opens a nested object */
LLMLAT_PRIVATE void jw_close(jsonw *w);                   /* closes it */
LLMLAT_PRIVATE void jw_number(jsonw *w, const char *key, double v);
LLMLAT_PRIVATE void jw_u64(jsonw *w, const char *key, uint64_t v);
LLMLAT_PRIVATE void jw_string(jsonw *w, const char *key, const char *v);
LLMLAT_PRIVATE void jw_null(jsonw *w, const char *key);
LLMLAT_PRIVATE void jw_bool(jsonw *w, const char *key, bool v);

#endif
