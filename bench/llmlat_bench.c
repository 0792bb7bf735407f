/* llmlat-bench: the figures of docs/performance.md, each beside a
 * reference measured in the same run.
 *
 *   llmlat-bench [--json] [--repeats N] [--quick] [--only PARTS]
 *                [--fold-data FILE]
 *
 * PARTS is a comma list of recorder, fold, query, exact, expose (default
 * all).
 * scripts/bench runs it together with the Python references (numpy, vLLM's
 * formulas); see docs/performance.md. Not a test: timings depend on the
 * machine and its load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: llmlat-bench [--json] [--repeats N] [--quick] "
               "[--only recorder,fold,query,exact,expose] [--fold-data FILE]\n");
}

static int wanted(const char *only, const char *part)
{
    if (!only)
        return 1;
    size_t n = strlen(part);
    for (const char *p = only; (p = strstr(p, part)) != NULL; p += n)
        if ((p == only || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    bench_opts o = { .repeats = 11 };
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json"))
            o.json = 1;
        else if (!strcmp(a, "--quick"))
            o.quick = 1;
        else if (!strcmp(a, "--repeats") && i + 1 < argc)
            o.repeats = atoi(argv[++i]);
        else if (!strcmp(a, "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(a, "--fold-data") && i + 1 < argc)
            o.fold_data = argv[++i];
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (o.repeats < 1)
        o.repeats = 1;
    if (wanted(only, "recorder"))
        bench_recorder(&o);
    if (wanted(only, "fold"))
        bench_fold(&o);
    if (wanted(only, "query"))
        bench_query(&o);
    if (wanted(only, "exact"))
        bench_exact_quantiles(&o);
    if (wanted(only, "expose"))
        bench_expose(&o);
    if (o.fold_data && bench_write_fold_data(o.fold_data) != 0) {
        fprintf(stderr, "llmlat-bench: cannot write %s\n", o.fold_data);
        return 1;
    }
    if (o.json)
        bench_print_json(&o);
    else
        bench_print_table(&o);
    return 0;
}
