/* `llmlat report --convention all` (report_all.c). */
#ifndef LLMLAT_REPORT_ALL_H
#define LLMLAT_REPORT_ALL_H

#include "report_options.h"

/* Reads the input once into an aggregator of each convention and writes
 * their headline figures side by side (text, JSON or HTML). Returns the
 * exit status. */
int report_all(const report_options *o);

#endif
