/* Fuzz target (c): the trace reader of `llmlat report`, through the same
 * entry points the command uses (tools/report_command.c: jr_init on a
 * stream, trace_read with ingest_request into an aggregator, then the
 * report). Every byte is hostile: the reading must end, either with every
 * request accounted for (added as a success or a failure, or rejected) or
 * with one error line naming the input; no crash, no leak.
 *
 * The input is the trace itself, so the seeds are plain trace files
 * (the examples/ traces, cut small). The convention and mode follow from
 * its length. */
#define _POSIX_C_SOURCE 200809L /* fmemopen */
#include <stdio.h>

#include "fuzz_common.h"
#include "ingest.h"
#include "json_reader.h"
#include "trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0; /* fmemopen needs a byte; the empty trace is a unit test */
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f)
        return 0;
    fz_alloc_install();
    int32_t conv = (int32_t)(size % 7), mode = (int32_t)(size / 7 % 2);
    llmlat_agg *a = llmlat_agg_new(conv, mode);
    FZ_CHECK(a, "agg_new");
    json_reader jr;
    ingest g;
    FZ_CHECK(jr_init(&jr, f, "fuzz"), "jr_init");
    FZ_CHECK(ingest_init(&g, a, "fuzz"), "ingest_init");
    trace_info info;
    if (trace_read(&jr, ingest_request, &g, &info)) {
        FZ_CHECK(g.status == LLMLAT_OK, "read, with status %d", g.status);
        uint64_t completed = 0, failed = 0;
        FZ_CHECK(llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &completed) == LLMLAT_OK, "c");
        FZ_CHECK(llmlat_agg_counter(a, LLMLAT_COUNT_FAILED, &failed) == LLMLAT_OK, "f");
        FZ_CHECK(completed + failed + g.rejected == info.requests,
                 "%llu requests read, %llu + %llu added, %llu rejected",
                 (unsigned long long)info.requests, (unsigned long long)completed,
                 (unsigned long long)failed, (unsigned long long)g.rejected);
        if (info.has_duration) /* as the command does */
            llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, info.duration_s);
        size_t len = 0;
        FZ_CHECK(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, NULL, 0, &len) == LLMLAT_ENOSPC,
                 "report sizing");
        char *buf = malloc(len);
        FZ_CHECK(buf, "test allocation");
        FZ_CHECK(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, buf, len, &len) == LLMLAT_OK,
                 "report");
        free(buf);
    } else {
        FZ_CHECK(g.status == LLMLAT_OK && !info.out_of_memory,
                 "out of memory without injection (status %d)", g.status);
        /* one line: "name:line:column: what" */
        size_t n = strnlen(jr.error, sizeof jr.error);
        FZ_CHECK(n > 0 && n < sizeof jr.error, "error message of %zu bytes", n);
        FZ_CHECK(strncmp(jr.error, "fuzz:", 5) == 0, "error without the input name: %s",
                 jr.error);
        FZ_CHECK(!strchr(jr.error, '\n'), "error of several lines: %s", jr.error);
    }
    ingest_free(&g);
    jr_free(&jr);
    fclose(f);
    llmlat_agg_free(a);
    fz_alloc_check_released();
    return 0;
}
