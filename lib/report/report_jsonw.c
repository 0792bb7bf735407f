#include <math.h>

#include "report/report_jsonw.h"

static void indent(jsonw *w)
{
    for (int i = 0; i < w->depth; i++)
        rbuf_putn(w->b, "  ", 2);
}

static void member(jsonw *w, const char *key)
{
    rbuf_puts(w->b, w->empty[w->depth] ? "\n" : ",\n");
    w->empty[w->depth] = false;
    indent(w);
    rbuf_putn(w->b, "\"", 1);
    rbuf_puts(w->b, key);
    rbuf_putn(w->b, "\": ", 3);
}

static void open_object(jsonw *w)
{
    rbuf_putn(w->b, "{", 1);
    /* Deeper levels than the report uses are a programming error: stay
     * inside the array and let the output show it. */
    if (w->depth < JSONW_MAX_DEPTH - 1)
        w->depth++;
    w->empty[w->depth] = true;
}

LLMLAT_PRIVATE void jw_begin(jsonw *w, rbuf *b)
{
    w->b = b;
    w->depth = 0;
    open_object(w);
}

LLMLAT_PRIVATE void jw_close(jsonw *w)
{
    bool was_empty = w->empty[w->depth];
    if (w->depth > 0)
        w->depth--;
    if (!was_empty) {
        rbuf_putn(w->b, "\n", 1);
        indent(w);
    }
    rbuf_putn(w->b, "}", 1);
}

LLMLAT_PRIVATE void jw_end(jsonw *w)
{
    jw_close(w);
    rbuf_putn(w->b, "\n", 1);
}

LLMLAT_PRIVATE void jw_object(jsonw *w, const char *key)
{
    member(w, key);
    open_object(w);
}

LLMLAT_PRIVATE void jw_number(jsonw *w, const char *key, double v)
{
    member(w, key);
    rbuf_double(w->b, isfinite(v) ? v : NAN, "null"); /* JSON has no inf */
}

LLMLAT_PRIVATE void jw_u64(jsonw *w, const char *key, uint64_t v)
{
    member(w, key);
    rbuf_u64(w->b, v);
}

LLMLAT_PRIVATE void jw_string(jsonw *w, const char *key, const char *v)
{
    member(w, key);
    rbuf_putn(w->b, "\"", 1);
    rbuf_json_escaped(w->b, v);
    rbuf_putn(w->b, "\"", 1);
}

LLMLAT_PRIVATE void jw_null(jsonw *w, const char *key)
{
    member(w, key);
    rbuf_puts(w->b, "null");
}

LLMLAT_PRIVATE void jw_bool(jsonw *w, const char *key, bool v)
{
    member(w, key);
    rbuf_puts(w->b, v ? "true" : "false");
}
