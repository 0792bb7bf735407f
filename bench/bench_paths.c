/* The four hot paths, one at a time, for counting their instructions:
 *
 *   valgrind --tool=callgrind --collect-atstart=no \
 *            --toggle-collect=run_phase bench_paths PART
 *
 * PART is one of
 *   event   a buffered recorder's token event (2^20 events; the buffer
 *           grown beforehand, as a reused recorder has it)
 *   stream  a streaming recorder's token event (2^20 events; the folds of
 *           its full blocks included)
 *   fold    a bounded add of a finished 500-token request (4096 adds)
 *   one     a bounded add of a one-token request (2^20 adds)
 * and the count callgrind reports, divided by the loop's iterations
 * (printed), is the path's instructions. Only run_phase is counted: the
 * set-up is outside it. Statically linked (meson builds it against the
 * static library), so that two builds of the library compare in the same
 * harness. The public API, libc and the suite's generator only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#define EVENTS ((size_t)1 << 20)
#define FOLD_TOKENS 500
#define FOLD_ADDS 4096

typedef struct phase {
    llmlat_request *r;
    llmlat_agg *a;
    const int64_t *t;
    size_t n;
} phase;

/* The measured loops; noinline so that callgrind's toggle sees one
 * function. A failed call is counted and printed: it would mean the loop
 * measured something else. */
__attribute__((noinline)) static size_t run_phase(int part, const phase *p)
{
    size_t bad = 0;
    switch (part) {
    case 0:
    case 1:
        for (size_t i = 0; i < p->n; i++)
            bad += llmlat_request_event(p->r, p->t[i], 1) != LLMLAT_OK;
        break;
    default:
        for (size_t i = 0; i < p->n; i++)
            bad += llmlat_agg_add(p->a, p->r) != LLMLAT_OK;
        break;
    }
    return bad;
}

static int64_t *times(size_t n, int64_t t0)
{
    int64_t *t = malloc(n * sizeof *t);
    if (!t)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        t0 += bench_gap_ns(); /* the suite's generator (bench_util.c) */
        t[i] = t0;
    }
    return t;
}

/* A finished request of n one-token events. */
static llmlat_request *finished(size_t n)
{
    llmlat_request *r = llmlat_request_new();
    int64_t *t = times(n, 100 * MS);
    if (!r || !t)
        return NULL;
    llmlat_request_start(r, 0);
    for (size_t i = 0; i < n; i++)
        llmlat_request_event(r, t[i], 1);
    llmlat_request_set_input_tokens(r, 1000);
    llmlat_request_finish(r, n ? t[n - 1] : 0);
    free(t);
    return r;
}

int main(int argc, char **argv)
{
    static const char *const PARTS[] = { "event", "stream", "fold", "one" };
    int part = -1;
    for (int i = 0; argc == 2 && i < 4; i++)
        if (strcmp(argv[1], PARTS[i]) == 0)
            part = i;
    if (part < 0) {
        fprintf(stderr, "usage: bench_paths event|stream|fold|one\n");
        return 2;
    }
    phase p = { 0 };
    int64_t *t = NULL;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    if (!a)
        return 1;
    switch (part) {
    case 0: /* grown once, then reset: the buffer is kept */
        t = times(EVENTS, 0);
        p.r = llmlat_request_new();
        if (!t || !p.r)
            return 1;
        llmlat_request_start(p.r, 0);
        for (size_t i = 0; i < EVENTS; i++)
            llmlat_request_event(p.r, t[i], 1);
        llmlat_request_reset(p.r);
        llmlat_request_start(p.r, 0);
        p.t = t;
        p.n = EVENTS;
        break;
    case 1:
        t = times(EVENTS, 0);
        p.r = llmlat_request_new_streaming(a);
        if (!t || !p.r)
            return 1;
        llmlat_request_start(p.r, 0);
        p.t = t;
        p.n = EVENTS;
        break;
    default:
        p.r = finished(part == 2 ? FOLD_TOKENS : 1);
        if (!p.r)
            return 1;
        p.a = a;
        p.n = part == 2 ? FOLD_ADDS : EVENTS;
        llmlat_agg_add(a, p.r); /* the sketches' windows placed */
        break;
    }
    size_t bad = run_phase(part, &p);
    printf("%s: %zu iterations, %zu failed\n", PARTS[part], p.n, bad);
    llmlat_request_free(p.r);
    llmlat_agg_free(a);
    free(t);
    return bad != 0;
}
