/* The part of a run the options ask for (docs/cli.md): a window
 * (--window, --warmup, --cooldown: the requests wholly inside it) and its
 * slices (--slice: the requests that start in each), taken out of an
 * exact aggregator that keeps the run's requests. */
#ifndef LLMLAT_SELECTION_H
#define LLMLAT_SELECTION_H

#include <stdint.h>

#include "input.h"
#include "llmlat.h"
#include "report_options.h"

typedef struct selection {
    int64_t first, last;   /* the run's earliest start and latest end, ns */
    int64_t lo, hi;        /* the window, ns: start >= lo and end <= hi */
    uint64_t requests;     /* the run's */
    uint64_t kept;         /* inside the window */
} selection;

/* The window of `all` as a new aggregator (mode o->mode, its duration
 * derived) into *out. The exit status. */
int selection_window(const report_options *o, const llmlat_agg *all, llmlat_agg **out,
                     selection *sel);

/* The window in words, one line without its newline: "requests wholly
 * inside 30.000 s .. 265.704 s from the first start (warm-up 30 s: by
 * start; cool-down 30 s: by end): 2387 of 3000". */
void selection_text(const report_options *o, const selection *sel, char *out, size_t cap);

/* The JSON member `,\n  "window": {...}` on stdout. */
void selection_json(const report_options *o, const selection *sel);

/* --slice: the table (text or CSV) or array (JSON) of the window's slices
 * on stdout. The exit status. */
int slices_write(const report_options *o, const llmlat_agg *window, const selection *sel,
                 const reading *g);

#endif
