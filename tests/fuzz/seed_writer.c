/* Writes the seeds of the deserialize corpus: real serialized aggregators,
 * small ones, in every convention and both modes, empty and not, with
 * non-default settings. Run from the build directory:
 *
 *   tests/fuzz/fuzz_seed_writer ../tests/fuzz/corpus/deserialize
 *
 * (files seed-*; the corpus's other files are past findings.) */
#include <stdio.h>
#include <stdlib.h>

#include "llmlat.h"

#define MS INT64_C(1000000)

static int write_seed(const char *dir, const char *name, const llmlat_agg *a)
{
    size_t len = 0;
    if (llmlat_agg_serialize(a, NULL, 0, &len) != LLMLAT_ENOSPC)
        return 1;
    unsigned char *buf = malloc(len);
    if (!buf || llmlat_agg_serialize(a, buf, len, &len) != LLMLAT_OK) {
        free(buf);
        return 1;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/seed-%s", dir, name);
    FILE *f = fopen(path, "wb");
    /* fuzz_deserialize's mode byte: 0, fix the frame up (a no-op here) */
    int bad = !f || fputc(0, f) == EOF || fwrite(buf, 1, len, f) != len;
    if (f)
        bad |= fclose(f) != 0;
    free(buf);
    if (bad)
        fprintf(stderr, "cannot write %s\n", path);
    return bad;
}

/* A few requests: empty chunks, multi-token chunks, one failed, one
 * cancelled, one without content; all but every third with an intended
 * start, some sent late. */
static int add_some(llmlat_agg *a, int n)
{
    int bad = 0;
    for (int i = 0; i < n; i++) {
        llmlat_request *r = llmlat_request_new();
        if (!r)
            return 1;
        int64_t start = i * 70 * MS, t = start + (40 + 9 * i) * MS;
        if (i % 3 != 2)
            bad |= llmlat_request_schedule(r, start - (i % 4) * 6 * MS) != LLMLAT_OK;
        bad |= llmlat_request_start(r, start) != LLMLAT_OK;
        for (int e = 0; e < (i == 3 ? 0 : 2 + i % 4); e++) {
            bad |= llmlat_request_event(r, t, (uint32_t)((i + e) % 3)) != LLMLAT_OK;
            t += (5 + 3 * e) * MS;
        }
        bad |= llmlat_request_set_input_tokens(r, (uint64_t)(10 + i)) != LLMLAT_OK;
        bad |= (i == 4   ? llmlat_request_fail(r, t)
                : i == 5 ? llmlat_request_cancel(r, t)
                         : llmlat_request_finish(r, t)) != LLMLAT_OK;
        bad |= llmlat_agg_add(a, r) != LLMLAT_OK;
        llmlat_request_free(r);
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seed_writer DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    static const char *conv_names[] = { "default", "vllm",     "aiperf",        "sglang",
                                        "llmperf", "guidellm", "inference-perf" };
    int bad = 0;
    char name[64];
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
        for (int32_t c = LLMLAT_CONV_DEFAULT; c <= LLMLAT_CONV_INFERENCE_PERF; c++) {
            llmlat_agg *a = llmlat_agg_new(c, mode);
            if (!a)
                return 1;
            if (mode == LLMLAT_MODE_BOUNDED) /* coarser buckets: smaller seeds */
                bad |= llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.05) != LLMLAT_OK;
            if (c == LLMLAT_CONV_AIPERF || c == LLMLAT_CONV_VLLM) {
                bad |= llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.05) != LLMLAT_OK;
                bad |= llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, 2.5) != LLMLAT_OK;
            }
            bad |= add_some(a, 7);
            snprintf(name, sizeof name, "%s-%s", conv_names[c],
                     mode == LLMLAT_MODE_EXACT ? "exact" : "bounded");
            bad |= write_seed(dir, name, a);
            llmlat_agg_free(a);
        }
    /* empty ones, and settings off their defaults */
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, mode);
        if (!a)
            return 1;
        bad |= write_seed(dir, mode == LLMLAT_MODE_EXACT ? "empty-exact" : "empty-bounded", a);
        static const double q[] = { 0.1, 0.999 };
        static const double bounds[] = { 0.01, 0.1, 1.0 };
        bad |= llmlat_agg_set_quantiles(a, q, 2) != LLMLAT_OK;
        bad |= llmlat_agg_set_buckets(a, LLMLAT_TTFT, bounds, 3) != LLMLAT_OK;
        bad |= llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_E2E, 0.2) != LLMLAT_OK;
        bad |= llmlat_agg_set_param(a, LLMLAT_PARAM_MAX_DISPATCH_DELAY, 0.25) != LLMLAT_OK;
        static const double delay_bounds[] = { 0.005, 0.05 };
        bad |= llmlat_agg_set_buckets(a, LLMLAT_DISPATCH_DELAY, delay_bounds, 2) != LLMLAT_OK;
        bad |= add_some(a, 2);
        bad |= write_seed(dir, mode == LLMLAT_MODE_EXACT ? "settings-exact" : "settings-bounded",
                          a);
        llmlat_agg_free(a);
    }
    return bad;
}
