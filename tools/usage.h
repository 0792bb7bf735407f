/* Writing the command's help: one option or command per entry, its text
 * wrapped to the terminal's 80 columns under a fixed indent. */
#ifndef LLMLAT_USAGE_H
#define LLMLAT_USAGE_H

#include <stdio.h>

/* One entry of an "Options:" or "Commands:" list: "  NAME  TEXT", TEXT
 * starting at column USAGE_TEXT_COLUMN (on the next line when NAME is too
 * long) and wrapped at word boundaries before column 80. */
#define USAGE_TEXT_COLUMN 23
void usage_entry(FILE *out, const char *name, const char *text);

#endif
