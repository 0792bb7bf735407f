#include <string.h>

#include "usage.h"

#define USAGE_WIDTH 79

void usage_entry(FILE *out, const char *name, const char *text)
{
    int col = fprintf(out, "  %s", name);
    if (col + 2 > USAGE_TEXT_COLUMN) { /* at least two spaces before the text */
        fputc('\n', out);
        col = 0;
    }
    const char *p = text;
    while (*p) {
        size_t word = strcspn(p, " ");
        if (col > USAGE_TEXT_COLUMN && col + 1 + (int)word > USAGE_WIDTH) {
            fputc('\n', out);
            col = 0;
        }
        if (col < USAGE_TEXT_COLUMN)
            col += fprintf(out, "%*s", USAGE_TEXT_COLUMN - col, "");
        else
            col += fprintf(out, " ");
        col += fprintf(out, "%.*s", (int)word, p);
        p += word;
        while (*p == ' ')
            p++;
    }
    fputc('\n', out);
}
