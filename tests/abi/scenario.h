/* One end-to-end use of the public API with known answers, shared by the
 * single-header tests (C, C++ and LLMLAT_STATIC builds). Include it after
 * llmlat.h. The numbers are docs/metrics.md's seed example: request A has
 * 100 tokens 10 ms apart, B has 2 tokens 50 ms apart; mean TPOT is 30 ms,
 * mean ITL (99 * 10 + 1 * 50) / 100 = 10.4 ms. */
#ifndef LLMLAT_TEST_SCENARIO_H
#define LLMLAT_TEST_SCENARIO_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SCENARIO_MS INT64_C(1000000)

static int scenario_near(const char *what, double got, double want)
{
    if (fabs(got - want) <= 1e-12 * fabs(want))
        return 0;
    fprintf(stderr, "%s: got %.17g, want %.17g\n", what, got, want);
    return 1;
}

static int scenario_status(const char *what, int32_t got)
{
    if (got == LLMLAT_OK)
        return 0;
    fprintf(stderr, "%s: %s (%d)\n", what, llmlat_strerror(got), (int)got);
    return 1;
}

static int scenario_one(llmlat_agg *a, int64_t start, int64_t ttft, int64_t gap,
                        int tokens)
{
    int bad = 0;
    llmlat_request *r = llmlat_request_new();
    if (!r)
        return 1;
    bad += scenario_status("start", llmlat_request_start(r, start));
    for (int i = 0; i < tokens; i++)
        bad += scenario_status("event", llmlat_request_event(r, start + ttft + i * gap, 1));
    bad += scenario_status("finish",
                           llmlat_request_finish(r, start + ttft + (tokens - 1) * gap));
    bad += scenario_status("add", llmlat_agg_add(a, r));
    llmlat_request_free(r);
    return bad;
}

/* The number of failed checks (0: all good). */
static int scenario(void)
{
    int bad = 0;
    char version[32];
    snprintf(version, sizeof version, "%d.%d.%d", LLMLAT_VERSION_MAJOR,
             LLMLAT_VERSION_MINOR, LLMLAT_VERSION_PATCH);
    if (llmlat_version_number() != LLMLAT_VERSION_NUMBER ||
        strcmp(llmlat_version_string(), version) != 0) {
        fprintf(stderr, "version %s != %s\n", llmlat_version_string(), version);
        bad++;
    }
    if (strcmp(llmlat_strerror(LLMLAT_EORDER),
               "timestamp before the previous one of the same request") != 0)
        bad++;

    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    if (!a)
        return bad + 1;
    bad += scenario_one(a, 0, 40 * SCENARIO_MS, 10 * SCENARIO_MS, 100);
    bad += scenario_one(a, 5 * SCENARIO_MS, 20 * SCENARIO_MS, 50 * SCENARIO_MS, 2);

    double v = 0;
    uint64_t n = 0;
    bad += scenario_status("tpot", llmlat_agg_stat(a, LLMLAT_TPOT, LLMLAT_STAT_MEAN, &v));
    bad += scenario_near("mean TPOT", v, 0.030);
    bad += scenario_status("itl", llmlat_agg_stat(a, LLMLAT_ITL, LLMLAT_STAT_MEAN, &v));
    bad += scenario_near("mean ITL", v, 0.0104);
    bad += scenario_status("ttft", llmlat_agg_quantile(a, LLMLAT_TTFT, 0.5, &v));
    bad += scenario_near("median TTFT", v, 0.030);
    bad += scenario_status("completed", llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &n));
    if (n != 2) {
        fprintf(stderr, "completed: %llu\n", (unsigned long long)n);
        bad++;
    }
    /* Bad input is a status, never a crash. */
    if (llmlat_agg_quantile(a, LLMLAT_TTFT, 1.5, &v) != LLMLAT_EINVAL ||
        llmlat_request_event(NULL, 0, 1) != LLMLAT_EINVAL)
        bad++;
    llmlat_agg_free(a);
    return bad;
}

#endif
