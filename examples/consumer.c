/* A benchmark client's view of llmlat: replay a few streamed responses,
 * aggregate them under two conventions, print the usual summary.
 *
 * Build against an installed llmlat:
 *     cc consumer.c $(pkg-config --cflags --libs llmlat) -o consumer
 *     cc -static consumer.c $(pkg-config --static --cflags --libs llmlat)
 * or with the single header (single/llmlat.h), in one file:
 *     cc -DLLMLAT_IMPLEMENTATION consumer.c -lm
 *
 * The timestamps are synthetic (a fixed schedule instead of a clock) so
 * that the output is the same on every run; a real client would call
 * llmlat_now_ns() where this one reads the schedule. */
#include <llmlat.h>

#include <stdio.h>
#include <stdlib.h>

#define MS INT64_C(1000000)

/* One streamed response: when it was sent, when each chunk arrived and
 * how many tokens the chunk carried, how it ended. */
typedef struct response {
    int64_t sent;
    int64_t first;     /* first chunk, relative to sent */
    int64_t gap;       /* between chunks */
    uint32_t chunks;
    uint32_t tokens_per_chunk;
    uint64_t prompt_tokens;
    int failed;
} response;

static const response RESPONSES[] = {
    { 0 * MS, 120 * MS, 20 * MS, 50, 1, 512, 0 },
    { 30 * MS, 95 * MS, 25 * MS, 40, 1, 128, 0 },
    { 60 * MS, 210 * MS, 40 * MS, 12, 2, 2048, 0 }, /* speculative decoding: 2 per chunk */
    { 90 * MS, 80 * MS, 15 * MS, 1, 1, 64, 0 },     /* one token: TPOT undefined */
    { 120 * MS, 300 * MS, 30 * MS, 5, 1, 256, 1 },  /* timed out */
};

static int check(int32_t status, const char *what)
{
    if (status == LLMLAT_OK)
        return 0;
    fprintf(stderr, "consumer: %s: %s\n", what, llmlat_strerror(status));
    return 1;
}

/* Records every response into a, reusing one recorder as a server would. */
static int record_all(llmlat_agg *a)
{
    llmlat_request *r = llmlat_request_new();
    if (!r)
        return check(LLMLAT_ENOMEM, "llmlat_request_new");
    int bad = 0;
    for (size_t i = 0; i < sizeof RESPONSES / sizeof RESPONSES[0] && !bad; i++) {
        const response *s = &RESPONSES[i];
        int64_t t = s->sent + s->first;
        bad |= check(llmlat_request_start(r, s->sent), "start");
        bad |= check(llmlat_request_set_input_tokens(r, s->prompt_tokens), "input tokens");
        /* The role chunk, no token yet (k = 0): vLLM's TTFT counts it. */
        bad |= check(llmlat_request_event(r, t - 5 * MS, 0), "role chunk");
        for (uint32_t c = 0; c < s->chunks && !bad; c++, t += s->gap)
            bad |= check(llmlat_request_event(r, t, s->tokens_per_chunk), "event");
        t -= s->gap;
        bad |= check(s->failed ? llmlat_request_fail(r, t) : llmlat_request_finish(r, t),
                     "end");
        bad |= check(llmlat_agg_add(a, r), "add");
        bad |= check(llmlat_request_reset(r), "reset");
    }
    llmlat_request_free(r);
    return bad;
}

static void print_ms(llmlat_agg *a, int32_t metric, const char *label)
{
    double mean, p50, p99;
    int32_t s1 = llmlat_agg_stat(a, metric, LLMLAT_STAT_MEAN, &mean);
    int32_t s2 = llmlat_agg_quantile(a, metric, 0.5, &p50);
    int32_t s3 = llmlat_agg_quantile(a, metric, 0.99, &p99);
    if (s1 != LLMLAT_OK || s2 != LLMLAT_OK || s3 != LLMLAT_OK) {
        printf("  %-6s undefined\n", label);
        return;
    }
    printf("  %-6s mean %8.3f ms  p50 %8.3f ms  p99 %8.3f ms\n", label, mean * 1e3,
           p50 * 1e3, p99 * 1e3);
}

static int summary(int32_t convention)
{
    llmlat_agg *a = llmlat_agg_new(convention, LLMLAT_MODE_EXACT);
    if (!a)
        return check(LLMLAT_ENOMEM, "llmlat_agg_new");
    int bad = record_all(a);
    if (!bad) {
        uint64_t done = 0, failed = 0, out = 0, no_tpot = 0;
        double rps = 0, tps = 0;
        bad |= check(llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &done), "completed");
        bad |= check(llmlat_agg_counter(a, LLMLAT_COUNT_FAILED, &failed), "failed");
        bad |= check(llmlat_agg_counter(a, LLMLAT_COUNT_OUTPUT_TOKENS, &out), "tokens");
        bad |= check(llmlat_agg_counter(a, LLMLAT_COUNT_TPOT_UNDEFINED, &no_tpot), "tpot");
        bad |= check(llmlat_agg_rate(a, LLMLAT_RATE_REQUESTS, &rps), "requests/s");
        bad |= check(llmlat_agg_rate(a, LLMLAT_RATE_OUTPUT_TOKENS, &tps), "tokens/s");
        printf("%s: %llu completed, %llu failed, %llu output tokens, "
               "%llu without TPOT\n",
               llmlat_convention_name(convention), (unsigned long long)done,
               (unsigned long long)failed, (unsigned long long)out,
               (unsigned long long)no_tpot);
        printf("  %.3f requests/s, %.3f output tokens/s\n", rps, tps);
        print_ms(a, LLMLAT_TTFT, "TTFT");
        print_ms(a, LLMLAT_TPOT, "TPOT");
        print_ms(a, LLMLAT_ITL, "ITL");
        print_ms(a, LLMLAT_E2E, "E2E");
    }
    llmlat_agg_free(a);
    return bad;
}

int main(void)
{
    /* A program built against one major version must not run on another. */
    if (llmlat_version_number() / 10000 != LLMLAT_VERSION_MAJOR) {
        fprintf(stderr, "consumer: built for llmlat %d.x, running with %s\n",
                LLMLAT_VERSION_MAJOR, llmlat_version_string());
        return EXIT_FAILURE;
    }
    printf("llmlat %s\n", llmlat_version_string());
    int bad = summary(LLMLAT_CONV_DEFAULT);
    bad |= summary(LLMLAT_CONV_VLLM);
    return bad ? EXIT_FAILURE : EXIT_SUCCESS;
}
