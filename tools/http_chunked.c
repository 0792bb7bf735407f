#include "http_chunked.h"

/* Where in the coding. Lines end in CRLF; a bare LF is taken too, as
 * curl and most clients take it. */
enum {
    CK_SIZE,       /* hex digits of a chunk's size */
    CK_EXT,        /* the rest of the size line (extensions): up to LF */
    CK_DATA,       /* the chunk's bytes */
    CK_DATA_CR,    /* the CRLF after them */
    CK_DATA_LF,
    CK_TRAILER,    /* a trailer line, or the empty line that ends the body */
    CK_TRAILER_LINE,
    CK_DONE,
};

static int fail(http_chunked *c, const char *why)
{
    c->why = why;
    c->state = CK_DONE;
    return CHUNKED_ERROR;
}

void http_chunked_init(http_chunked *c)
{
    *c = (http_chunked){ .state = CK_SIZE };
}

static int hex_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

int http_chunked_feed(http_chunked *c, const char *p, size_t len, size_t *used, http_data_fn fn,
                      void *user)
{
    size_t i = 0;
    int rc = CHUNKED_MORE;
    if (c->why) {
        *used = 0;
        return CHUNKED_ERROR;
    }
    while (i < len && rc == CHUNKED_MORE) {
        char ch = p[i];
        switch (c->state) {
        case CK_SIZE: {
            int h = hex_digit(ch);
            if (h >= 0) {
                if (c->digits == 15) /* 2^60 bytes: no real chunk */
                    return fail(c, "chunk size too large");
                c->size = c->size << 4 | (uint64_t)h;
                c->digits++;
                i++;
                break;
            }
            if (c->digits == 0)
                return fail(c, "chunk size is not hexadecimal");
            c->state = CK_EXT;
            c->line = 0;
            break;
        }
        case CK_EXT:
            i++;
            if (ch == '\n') {
                c->digits = 0;
                c->state = c->size == 0 ? CK_TRAILER : CK_DATA;
                c->line = 0;
            } else if (++c->line > CHUNKED_LINE_MAX) {
                return fail(c, "chunk size line too long");
            } else if (ch != '\r' && ch != ';' && ch != ' ' && ch != '\t' && c->line == 1) {
                return fail(c, "junk after a chunk size");
            }
            break;
        case CK_DATA: {
            size_t n = len - i;
            if ((uint64_t)n > c->size)
                n = (size_t)c->size;
            c->size -= n;
            if (c->size == 0)
                c->state = CK_DATA_CR;
            if (fn && fn(user, p + i, n) != 0)
                rc = CHUNKED_STOP;
            i += n;
            break;
        }
        case CK_DATA_CR:
            i++;
            if (ch == '\n')
                c->state = CK_SIZE;
            else if (ch == '\r')
                c->state = CK_DATA_LF;
            else
                return fail(c, "no CRLF after a chunk's data");
            break;
        case CK_DATA_LF:
            i++;
            if (ch != '\n')
                return fail(c, "no CRLF after a chunk's data");
            c->state = CK_SIZE;
            break;
        case CK_TRAILER:
            i++;
            if (ch == '\n') {
                c->state = CK_DONE;
                rc = CHUNKED_DONE;
            } else if (ch != '\r') {
                c->state = CK_TRAILER_LINE;
                c->line = 1;
            }
            break;
        case CK_TRAILER_LINE:
            i++;
            if (ch == '\n')
                c->state = CK_TRAILER;
            else if (++c->line > CHUNKED_LINE_MAX)
                return fail(c, "trailer line too long");
            break;
        default: /* CK_DONE */
            *used = i;
            return CHUNKED_DONE;
        }
    }
    *used = i;
    if (rc == CHUNKED_MORE && c->state == CK_DONE)
        rc = CHUNKED_DONE;
    return rc;
}
