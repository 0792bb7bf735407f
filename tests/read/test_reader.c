/* The push reader (lib/read/reader.c) over every way of feeding it: the
 * same requests, rejections and errors whatever the pieces the input comes
 * in; what it hands over, exactly; its memory bounded by the largest
 * request; its API's rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llmlat.h"
#include "read/reader.h"

/* ------------------------------------------------ reading, recorded */

/* Everything a reading gave, as text: one line per request or rejection,
 * then how it ended. Two readings are the same when their texts are. */
typedef struct outcome {
    char *text;
    size_t len, cap;
} outcome;

static void out_add(outcome *o, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof line);
    if (o->len + (size_t)n + 1 > o->cap) {
        o->cap = (o->len + (size_t)n + 1) * 2;
        o->text = realloc(o->text, o->cap);
        assert_non_null(o->text);
    }
    memcpy(o->text + o->len, line, (size_t)n + 1);
    o->len += (size_t)n;
}

static void out_request(outcome *o, const llmlat_reader *rd, const llmlat_request *r)
{
    int32_t state;
    int64_t start, end;
    const int64_t *t;
    const uint32_t *k;
    size_t n;
    uint64_t in, out, index, line, col;
    uint32_t lacks;
    assert_int_equal(llmlat_request_get_state(r, &state), LLMLAT_OK);
    assert_int_equal(llmlat_request_get_start(r, &start), LLMLAT_OK);
    assert_int_equal(llmlat_request_get_end(r, &end), LLMLAT_OK);
    assert_int_equal(llmlat_request_get_events(r, &t, &k, &n), LLMLAT_OK);
    assert_int_equal(llmlat_request_get_input_tokens(r, &in), LLMLAT_OK);
    bool has_out = llmlat_request_get_output_tokens(r, &out) == LLMLAT_OK;
    assert_int_equal(llmlat_request_get_lacks(r, &lacks), LLMLAT_OK);
    assert_int_equal(llmlat_reader_request_position(rd, &index, &line, &col), LLMLAT_OK);
    out_add(o, "request %llu at %llu:%llu id '%s' state %d start %lld end %lld in %llu",
            (unsigned long long)index, (unsigned long long)line, (unsigned long long)col,
            llmlat_reader_request_id(rd), state, (long long)start, (long long)end,
            (unsigned long long)in);
    if (has_out)
        out_add(o, " out %llu", (unsigned long long)out);
    int64_t sched;
    if (llmlat_request_get_schedule(r, &sched) == LLMLAT_OK)
        out_add(o, " scheduled %lld", (long long)sched);
    out_add(o, " lacks %u events", lacks);
    for (size_t i = 0; i < n; i++)
        out_add(o, " %lld:%u", (long long)t[i], k[i]);
    double v;
    if (llmlat_request_value(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT, &v) == LLMLAT_OK)
        out_add(o, " ttft %.9f", v);
    out_add(o, "\n");
}

/* Reads `text` as `input`, fed in pieces of `piece` bytes (0: at once). */
static outcome read_in_pieces(int32_t input, uint64_t run, const char *text, size_t len,
                              size_t piece)
{
    outcome o = { 0 };
    llmlat_reader *rd = llmlat_reader_new(input, "t.json");
    llmlat_request *r = llmlat_request_new();
    assert_non_null(rd);
    assert_non_null(r);
    if (run)
        assert_int_equal(llmlat_reader_set_run(rd, run), LLMLAT_OK);
    size_t fed = 0;
    for (;;) {
        int32_t what;
        int32_t st = llmlat_reader_next(rd, r, &what);
        if (st != LLMLAT_OK) {
            out_add(&o, "error %d: %s\n", st, llmlat_reader_message(rd));
            break;
        }
        if (what == LLMLAT_READ_END) {
            double d;
            if (llmlat_reader_duration(rd, &d) == LLMLAT_OK)
                out_add(&o, "duration %.9f\n", d);
            uint64_t runs;
            if (llmlat_reader_counter(rd, LLMLAT_READ_COUNT_RUNS, &runs) == LLMLAT_OK)
                out_add(&o, "runs %llu\n", (unsigned long long)runs);
            out_add(&o, "end\n");
            break;
        }
        if (what == LLMLAT_READ_REQUEST) {
            out_request(&o, rd, r);
        } else if (what == LLMLAT_READ_REJECTED) {
            out_add(&o, "rejected: %s\n", llmlat_reader_message(rd));
        } else {
            assert_int_equal(what, LLMLAT_READ_MORE);
            if (fed == len) {
                assert_int_equal(llmlat_reader_end(rd), LLMLAT_OK);
                continue;
            }
            size_t n = piece == 0 || len - fed < piece ? len - fed : piece;
            assert_int_equal(llmlat_reader_feed(rd, text + fed, n), LLMLAT_OK);
            fed += n;
        }
    }
    uint64_t requests, rejected;
    assert_int_equal(llmlat_reader_counter(rd, LLMLAT_READ_COUNT_REQUESTS, &requests), LLMLAT_OK);
    assert_int_equal(llmlat_reader_counter(rd, LLMLAT_READ_COUNT_REJECTED, &rejected), LLMLAT_OK);
    out_add(&o, "%llu read, %llu rejected\n", (unsigned long long)requests,
            (unsigned long long)rejected);
    llmlat_request_free(r);
    llmlat_reader_free(rd);
    return o;
}

static outcome read_whole(int32_t input, const char *text)
{
    return read_in_pieces(input, 0, text, strlen(text), 0);
}

/* ------------------------------------------------ the same in any pieces */

static const struct {
    int32_t input;
    const char *text;
} INPUTS[] = {
    { LLMLAT_INPUT_AUTO, "[{\"start\": 0, \"events\": [[0.1, 1], [0.2, 2]], \"end\": 0.3, "
                         "\"input_tokens\": 5, \"id\": \"a\"}, {\"start\": 1e-1, \"ok\": false}]" },
    { LLMLAT_INPUT_AUTO, "{\"model\": \"m\", \"duration\": 2.5, \"requests\": [\n"
                         "  {\"start\": 0, \"events\": [[0.1,1],[0.2,1]]},\n"
                         "  {\"start\": 1, \"events\": [[0.5, 1]], \"id\": 7}\n"
                         "], \"note\": [1, {\"x\": null}]}" },
    { LLMLAT_INPUT_AUTO, "{\"start\": 0, \"events\": [[0.1, 1]]}\n\n{\"start\": 1.5, "
                         "\"events\": [[1.6, 3]], \"output_tokens\": 4}\r\n{\"start\": 2}" },
    { LLMLAT_INPUT_TRACE, "[{\"start\": 0, \"events\": [[0.1, 1]]}, {\"start\": 0, \"events\": "
                          "[[0.3, 1], [0.2, 1]]}, {\"start\": 0, \"end\": -1}]" },
    { LLMLAT_INPUT_AUTO, "[{\"start\": 0}, {\"start\": 1, \"events\": [[1, 01]]}]" },
    { LLMLAT_INPUT_AUTO, "{\"requests\": [{\"start\": 0}], \"duration\": -1}" },
    { LLMLAT_INPUT_AUTO, "[{\"start\": 0, \"x\": \"\\u00e9\\ud83d\\ude00\"}] x" },
    { LLMLAT_INPUT_AUTO, "" },
    /* vLLM, two runs (--append-result) */
    { LLMLAT_INPUT_AUTO,
      "{\"date\": \"x\", \"duration\": 3.0, \"ttfts\": [0.5], \"itls\": [[0.1]]}\n"
      "{\"date\": \"y\", \"duration\": 2.0, \"completed\": 2, \"input_lens\": [3, 4], "
      "\"output_lens\": [2, 0], \"ttfts\": [0.1, 0.0], \"itls\": [[0.01], []], "
      "\"start_times\": [10.0, 10.5], \"errors\": [\"\", \"boom\"], \"rate\": NaN}" },
    /* SGLang */
    { LLMLAT_INPUT_AUTO, "{\"backend\": \"sglang\", \"dataset_name\": \"random\", \"duration\": 1.5, "
                         "\"input_lens\": [7], \"output_lens\": [3], \"ttfts\": [0.2], "
                         "\"itls\": [[0.05, 0.05]], \"generated_texts\": [\"abc\"], "
                         "\"errors\": [\"\"]}" },
    /* AIPerf records, and a raw record */
    { LLMLAT_INPUT_AUTO,
      "{\"metadata\": {\"x_request_id\": \"r0\", \"request_start_ns\": 1000, "
      "\"request_end_ns\": 9000}, \"metrics\": {\"time_to_first_token\": {\"value\": 0.001, "
      "\"unit\": \"ms\"}, \"inter_chunk_latency\": {\"value\": [0.002, 0.003], \"unit\": \"ms\"}, "
      "\"output_sequence_length\": {\"value\": 3, \"unit\": \"tokens\"}}, \"error\": null}\n"
      "{\"metadata\": {\"request_start_ns\": 2000, \"benchmark_phase\": \"warmup\"}, "
      "\"metrics\": {}}\n"
      "{\"metadata\": {\"request_start_ns\": 5000, \"start\": 1}, \"start_perf_ns\": 100, "
      "\"responses\": [{\"perf_ns\": 150, \"text\": \"data: {\\\"choices\\\": [{\\\"delta\\\": "
      "{\\\"content\\\": \\\"\\\"}}]}\"}, {\"perf_ns\": 170, \"packets\": [{\"name\": \"data\", "
      "\"value\": \"{\\\"choices\\\":[{\\\"delta\\\":{\\\"content\\\":\\\"x\\\"}}]}\"}]}], "
      "\"error\": null}" },
    /* GenAI-Perf */
    { LLMLAT_INPUT_AUTO,
      "{\"experiments\": [{\"experiment\": {\"mode\": \"concurrency\", \"value\": 1}, "
      "\"requests\": [{\"timestamp\": 100, \"response_timestamps\": [150, 170, 190], "
      "\"response_outputs\": [{\"response\": \"data: {\\\"choices\\\":[{\\\"text\\\":\\\"a\\\"}]}"
      "\"}, {\"response\": \"data: {\\\"choices\\\":[{\\\"text\\\":\\\"b\\\"}]}\"}, "
      "{\"response\": \"data: [DONE]\"}]}]}], \"endpoint\": \"v1/completions\"}" },
    /* LLMPerf */
    { LLMLAT_INPUT_AUTO, "[{\"error_code\": null, \"inter_token_latency_s\": 0.01, \"ttft_s\": "
                         "0.2, \"end_to_end_latency_s\": 1.2, \"number_output_tokens\": 100, "
                         "\"number_input_tokens\": 5}, {\"error_code\": 500, \"ttft_s\": 0}]" },
    /* malformed importer files */
    { LLMLAT_INPUT_VLLM, "{\"date\": \"x\", \"ttfts\": [0.1, 0.2], \"itls\": [[0.1]]}" },
    { LLMLAT_INPUT_VLLM, "{\"date\": \"x\", \"duration\": 1}" },
    { LLMLAT_INPUT_AIPERF, "{\"metadata\": {\"request_start_ns\": 5}, \"metrics\": "
                           "{\"time_to_first_token\": {\"value\": 1, \"unit\": \"parsecs\"}}}" },
    { LLMLAT_INPUT_GENAI_PERF, "{\"experiments\": [{\"requests\": [{\"timestamp\": 1, "
                               "\"response_timestamps\": [2]" },
    { LLMLAT_INPUT_LLMPERF, "[{\"ttft_s\": -1}]" },
    /* GuideLLM: two benchmarks; the last one's requests of its window (one
     * ended before it), each status group, the intended start */
    { LLMLAT_INPUT_AUTO,
      "{\"metadata\": {\"version\": 1, \"guidellm_version\": \"0.5.0\"}, \"args\": {}, "
      "\"benchmarks\": [{\"requests\": {\"successful\": [], \"errored\": [], \"incomplete\": "
      "[]}, \"duration\": 5}, {\"scheduler_metrics\": {\"measure_start_time\": 100.0, "
      "\"measure_end_time\": 200.0}, \"metrics\": {\"request_totals\": {\"total\": 3}}, "
      "\"requests\": {\"successful\": [{\"request_id\": \"a\", \"info\": {\"timings\": "
      "{\"targeted_start\": 99.5, \"request_start\": 100.5, \"first_request_iteration\": 100.6, "
      "\"last_request_iteration\": 101.2, \"request_iterations\": 6, \"first_token_iteration\": "
      "100.7, \"last_token_iteration\": 101.0, \"token_iterations\": 4, \"request_end\": 101.3, "
      "\"resolve_end\": 101.4}}, \"prompt_tokens\": 10, \"output_tokens\": 5}, {\"request_id\": "
      "\"w\", \"info\": {\"timings\": {\"request_start\": 50.0, \"request_end\": 60.0, "
      "\"token_iterations\": 0}}, \"output_tokens\": null}], \"errored\": [{\"request_id\": "
      "\"e\", \"info\": {\"timings\": {\"request_start\": 150.0, \"first_token_iteration\": "
      "150.5, \"last_token_iteration\": 150.5, \"token_iterations\": 1, \"request_iterations\": "
      "1, \"first_request_iteration\": 150.5, \"last_request_iteration\": 150.5, "
      "\"resolve_end\": 151.0}}, \"prompt_tokens\": 2, \"output_tokens\": 1}], \"incomplete\": "
      "[{\"request_id\": \"c\", \"info\": {\"timings\": {\"request_start\": 190.0, "
      "\"resolve_end\": 210.0}}, \"output_tokens\": null}], \"total\": null}, \"start_time\": "
      "100.0, \"end_time\": 200.0, \"duration\": 100.0}]}" },
    /* inference-perf, as written since late 2025: chunk times, token times
     * (re-tokenized, or not), the server's usage */
    { LLMLAT_INPUT_AUTO,
      "[{\"start_time\": 10.0, \"end_time\": 10.5, \"request\": \"{}\", \"response\": \"x\", "
      "\"info\": {\"request_metrics\": {\"text\": {\"input_tokens\": 7}}, \"response_metrics\": "
      "{\"output_tokens\": 3, \"server_usage\": {\"completion_tokens\": 4}, \"response_chunks\": "
      "[\"a\", \"b\"], \"chunk_times\": [10.1, 10.3], \"output_token_times\": [10.1, 10.1, "
      "10.3]}, \"extra_info\": {}, \"input_tokens\": 7}, \"error\": null}, {\"start_time\": "
      "11.0, \"end_time\": 11.2, \"request\": \"{}\", \"response\": null, \"info\": "
      "{\"request_metrics\": {\"text\": {\"input_tokens\": 2}}, \"response_metrics\": null, "
      "\"input_tokens\": 2}, \"error\": {\"error_type\": \"X\", \"error_msg\": \"y\"}}, "
      "{\"start_time\": 12.0, \"end_time\": 12.4, \"info\": {\"response_metrics\": "
      "{\"output_tokens\": 5, \"chunk_times\": [12.1, 12.2], \"output_token_times\": [12.1, "
      "12.2]}}, \"error\": null}]" },
    /* inference-perf before: a time per line of the response */
    { LLMLAT_INPUT_INFERENCE_PERF,
      "[{\"start_time\": 1.0, \"end_time\": 1.3, \"request\": \"\", \"response\": \"\", \"info\": "
      "{\"input_tokens\": 3, \"output_tokens\": 2, \"output_token_times\": [1.1, 1.1, 1.2, "
      "1.25]}, \"error\": null}]" },
    /* vLLM with latencies and queue times */
    { LLMLAT_INPUT_AUTO,
      "{\"date\": \"z\", \"duration\": 1.0, \"ttfts\": [0.1], \"itls\": [[0.05, 0.05]], "
      "\"latencies\": [0.200000002], \"start_times\": [5.0], \"queue_times\": [0.25], "
      "\"output_lens\": [3], \"input_lens\": [1], \"errors\": [\"\"]}" },
    /* AIPerf's records before October 2025 */
    { LLMLAT_INPUT_AUTO,
      "{\"metadata\": {\"x_request_id\": \"o1\", \"timestamp_ns\": 1000, \"credit_phase\": "
      "\"profiling\"}, \"metrics\": {\"ttft\": {\"value\": 0.001, \"unit\": \"ms\"}, "
      "\"inter_chunk_latency\": {\"value\": [0.002], \"unit\": \"ms\"}, \"request_latency\": "
      "{\"value\": 0.003, \"unit\": \"ms\"}, \"output_sequence_length\": {\"value\": 2, "
      "\"unit\": \"tokens\"}}, \"error\": null}\n"
      "{\"metadata\": {\"timestamp_ns\": 2000, \"credit_phase\": \"warmup\"}, \"metrics\": {}}\n"
      "{\"metadata\": {\"timestamp_ns\": 3000, \"credit_phase\": \"profiling\"}, \"metrics\": "
      "{\"error_request_count\": {\"value\": 1, \"unit\": \"requests\"}}, \"error\": {\"code\": "
      "499, \"type\": \"RequestCancellationError\", \"message\": \"m\"}}" },
};


static void same_in_any_pieces(void **state)
{
    (void)state;
    static const size_t PIECES[] = { 1, 2, 3, 7, 64, 4096 };
    for (size_t i = 0; i < sizeof INPUTS / sizeof INPUTS[0]; i++) {
        const char *text = INPUTS[i].text;
        outcome whole = read_whole(INPUTS[i].input, text);
        for (size_t p = 0; p < sizeof PIECES / sizeof PIECES[0]; p++) {
            outcome o = read_in_pieces(INPUTS[i].input, 0, text, strlen(text), PIECES[p]);
            if (strcmp(o.text, whole.text) != 0)
                fail_msg("input %zu in pieces of %zu:\n%s\nat once:\n%s", i, PIECES[p], o.text,
                         whole.text);
            free(o.text);
        }
        free(whole.text);
    }
}

/* ------------------------------------------------------ what it reads */

static void expect(int32_t input, const char *text, const char *want)
{
    outcome o = read_whole(input, text);
    if (strcmp(o.text, want) != 0)
        fail_msg("got:\n%s\nwant:\n%s", o.text, want);
    free(o.text);
}

static void trace_values(void **state)
{
    (void)state;
    expect(LLMLAT_INPUT_AUTO,
           "[{\"start\": 1700000000.000000001, \"events\": [[1700000000.0000000045, 2], "
           "[1700000000.1, 0]], \"end\": 1700000000.2, \"input_tokens\": 5, "
           "\"output_tokens\": 9, \"id\": \"abc\"},\n {\"start\": 1, \"ok\": false, \"id\": 12}]",
           "request 1 at 1:2 id 'abc' state 2 start 1700000000000000001 end "
           "1700000000200000000 in 5 out 9 lacks 0 events 1700000000000000005:2 "
           "1700000000100000000:0 ttft 0.000000004\n"
           "request 2 at 2:2 id '12' state 3 start 1000000000 end 1000000000 in 0 lacks 0 "
           "events\n"
           "end\n2 read, 0 rejected\n");
}

static void rejections(void **state)
{
    (void)state;
    expect(LLMLAT_INPUT_AUTO,
           "{\"start\": 0, \"events\": [[0.3, 1], [0.2, 1]], \"id\": \"back\"}\n"
           "{\"start\": 1, \"events\": [[0.5, 1]]}\n"
           "{\"start\": 0, \"events\": [[0.1, 1]], \"end\": 0.05}\n"
           "{\"start\": 2, \"end\": 1}\n"
           "{\"start\": -9223372036.854775808, \"events\": [[9223372036.854775807, 1]]}\n"
           /* an id with a newline, a quote and a backslash: one line */
           "{\"start\": 3, \"end\": 2, \"id\": \"x\\u00e9\\n\\\"\\\\\"}\n",
           "rejected: t.json:1:1: request 1 (id \"back\") rejected: event 2 at 0.2 s is before "
           "event 1 at 0.3 s\n"
           "rejected: t.json:2:1: request 2 rejected: event 1 at 0.5 s is before its start at 1 s\n"
           "rejected: t.json:3:1: request 3 rejected: its end at 0.05 s is before its last "
           "event (1) at 0.1 s\n"
           "rejected: t.json:4:1: request 4 rejected: its end at 1 s is before its start at 2 s\n"
           "rejected: t.json:5:1: request 5 rejected: the library refused it: a count or sum would overflow\n"
           "rejected: t.json:6:1: request 6 (id \"x\xc3\xa9\\u000a\\\"\\\\\") rejected: its end at 2 s is "
           "before its start at 3 s\n"
           "end\n6 read, 6 rejected\n");
}

/* `text` read into a (llmlat_reader_add_to) and into b (next +
 * llmlat_agg_add): the same JSON report. */
static void read_both_ways(const char *text, llmlat_agg *a, llmlat_agg *b)
{
    llmlat_reader *ra = llmlat_reader_new(LLMLAT_INPUT_AUTO, NULL);
    llmlat_reader *rb = llmlat_reader_new(LLMLAT_INPUT_AUTO, NULL);
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_reader_feed(ra, text, strlen(text)), LLMLAT_OK);
    assert_int_equal(llmlat_reader_feed(rb, text, strlen(text)), LLMLAT_OK);
    llmlat_reader_end(ra);
    llmlat_reader_end(rb);
    int32_t what;
    do
        assert_int_equal(llmlat_reader_add_to(ra, a, &what), LLMLAT_OK);
    while (what != LLMLAT_READ_END);
    do {
        assert_int_equal(llmlat_reader_next(rb, r, &what), LLMLAT_OK);
        if (what == LLMLAT_READ_REQUEST)
            assert_int_equal(llmlat_agg_add(b, r), LLMLAT_OK);
    } while (what != LLMLAT_READ_END);
    char ja[8192], jb[8192];
    size_t la, lb;
    assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, ja, sizeof ja, &la), LLMLAT_OK);
    assert_int_equal(llmlat_agg_report(b, LLMLAT_FORMAT_JSON, jb, sizeof jb, &lb), LLMLAT_OK);
    assert_int_equal(la, lb);
    assert_memory_equal(ja, jb, la);
    llmlat_request_free(r);
    llmlat_reader_free(ra);
    llmlat_reader_free(rb);
}

/* A request's intended start ("scheduled"), read exactly as the other
 * times; null is none; after the start, the request is rejected. Read
 * one by one or added, the same aggregator. */
static void trace_scheduled(void **state)
{
    (void)state;
    static const char TEXT[] =
        "{\"scheduled\": 1700000000.0000000015, \"start\": 1700000000.5, \"events\": "
        "[[1700000000.75, 1]]}\n"
        "{\"start\": 2, \"scheduled\": null, \"events\": [[2.5, 1]]}\n"
        "{\"scheduled\": 3.5, \"start\": 3, \"events\": [[3.6, 1]]}\n"
        "{\"scheduled\": 4, \"start\": 4, \"end\": 4.25}\n";
    expect(LLMLAT_INPUT_AUTO, TEXT,
           "request 1 at 1:1 id '' state 2 start 1700000000500000000 end 1700000000750000000 in "
           "0 scheduled 1700000000000000002 lacks 0 events 1700000000750000000:1 ttft "
           "0.250000000\n"
           "request 2 at 2:1 id '' state 2 start 2000000000 end 2500000000 in 0 lacks 0 events "
           "2500000000:1 ttft 0.500000000\n"
           "rejected: t.json:3:1: request 3 rejected: its intended start (\"scheduled\") at 3.5 "
           "s is after its start at 3 s\n"
           "request 4 at 4:1 id '' state 2 start 4000000000 end 4250000000 in 0 scheduled "
           "4000000000 lacks 0 events\n"
           "end\n4 read, 1 rejected\n");
    expect(LLMLAT_INPUT_AUTO, "{\"scheduled\": true, \"start\": 1}",
           "error -6: t.json:1:15: \"scheduled\" must be a number (seconds)\n"
           "0 read, 0 rejected\n");
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    read_both_ways(TEXT, a, b);
    double v;
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_DISPATCH_DELAY, LLMLAT_STAT_COUNT, &v), LLMLAT_OK);
    assert_true(v == 2.0);
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_SCHEDULED_E2E, LLMLAT_STAT_MAX, &v), LLMLAT_OK);
    assert_true(v == 0.749999998); /* 1.5 ns rounds away from 0: 2 */
    llmlat_agg_free(a);
    llmlat_agg_free(b);
}

static void importers(void **state)
{
    (void)state;
    /* vLLM: the last run by default; a failure keeps no chunk; k = 1 */
    expect(LLMLAT_INPUT_AUTO, INPUTS[8].text,
           "request 1 at 2:1 id '' state 2 start 10000000000 end 10110000000 in 3 out 2 lacks "
           "134 events 10100000000:1 10110000000:1 ttft 0.100000000\n"
           "request 2 at 2:1 id '' state 3 start 10500000000 end 10500000000 in 4 out 0 lacks "
           "134 events\n"
           "duration 2.000000000\nruns 2\nend\n2 read, 0 rejected\n");
    outcome first = read_in_pieces(LLMLAT_INPUT_AUTO, 1, INPUTS[8].text,
                                   strlen(INPUTS[8].text), 0);
    assert_non_null(strstr(first.text, "lacks 183 events 500000000:1 600000000:1"));
    assert_non_null(strstr(first.text, "duration 3.000000000\nruns 2\n"));
    free(first.text);
    outcome third = read_in_pieces(LLMLAT_INPUT_AUTO, 3, INPUTS[8].text,
                                   strlen(INPUTS[8].text), 0);
    assert_non_null(strstr(third.text, "error -6: t.json:2:201: run 3 was asked for, but the "
                                       "input has 2\n"));
    free(third.text);
    /* AIPerf: chunk times rebuilt from TTFT and ICL; warmup skipped; raw
     * responses placed on the wall clock, empty ones with k = 0 */
    expect(LLMLAT_INPUT_AUTO, INPUTS[10].text,
           "request 1 at 1:1 id 'r0' state 2 start 1000 end 7000 in 0 out 3 lacks 166 events "
           "2000:1 4000:1 7000:1 ttft 0.000001000\n"
           "request 2 at 3:1 id '' state 2 start 5000 end 5070 in 0 lacks 182 events 5050:0 "
           "5070:1 ttft 0.000000070\n"
           "end\n2 read, 0 rejected\n");
    /* GenAI-Perf: [DONE] has no content */
    expect(LLMLAT_INPUT_AUTO, INPUTS[11].text,
           "request 1 at 1:83 id '' state 2 start 100 end 190 in 0 lacks 182 events 150:1 170:1 "
           "190:0 ttft 0.000000050\n"
           "runs 1\nend\n1 read, 0 rejected\n");
    /* LLMPerf: values only */
    expect(LLMLAT_INPUT_AUTO, INPUTS[12].text,
           "request 1 at 1:2 id '' state 2 start 0 end 1200000000 in 5 out 100 lacks 137 events "
           "ttft 0.200000000\n"
           "request 2 at 1:154 id '' state 3 start 0 end 0 in 0 lacks 179 events\n"
           "end\n2 read, 0 rejected\n");
}

/* The importers of llmlat 1.2: GuideLLM, inference-perf; vLLM's latencies
 * and queue times; AIPerf's older records. */
static void importers_1_2(void **state)
{
    (void)state;
    /* GuideLLM: the requests of the last benchmark's window; the chunks
     * between the first and last token iteration placed evenly (lacks
     * CHUNK_TOKENS | GAPS), an empty one at the first and the last
     * iteration; an errored one ends at resolve_end; no targeted_start:
     * lacks SCHEDULE */
    expect(LLMLAT_INPUT_AUTO, INPUTS[18].text,
           "request 1 at 1:321 id 'a' state 2 start 100500000000 end 101300000000 in 10 out 5 "
           "scheduled 99500000000 lacks 68 events 100600000000:0 100700000000:1 100800000000:1 "
           "100900000000:1 101000000000:1 101200000000:0 ttft 0.200000000\n"
           "request 2 at 1:823 id 'e' state 3 start 150000000000 end 151000000000 in 2 out 1 "
           "lacks 132 events 150500000000:1 ttft 0.500000000\n"
           "request 3 at 1:1147 id 'c' state 4 start 190000000000 end 210000000000 in 0 lacks "
           "132 events\n"
           "duration 100.000000000\nruns 2\nend\n3 read, 0 rejected\n");
    outcome first = read_in_pieces(LLMLAT_INPUT_AUTO, 1, INPUTS[18].text,
                                   strlen(INPUTS[18].text), 0);
    assert_string_equal(first.text, "duration 5.000000000\nruns 2\nend\n0 read, 0 rejected\n");
    free(first.text);
    /* inference-perf: each chunk's tokens from the token times, the
     * server's count as the usage count; token times that are the chunk
     * times and do not add up to the client's count: lacks CHUNK_TOKENS,
     * N the client's count; a failure keeps no chunk */
    expect(LLMLAT_INPUT_AUTO, INPUTS[19].text,
           "request 1 at 1:2 id '' state 2 start 10000000000 end 10500000000 in 7 out 4 lacks "
           "128 events 10100000000:2 10300000000:1 ttft 0.100000000\n"
           "request 2 at 1:374 id '' state 3 start 11000000000 end 11200000000 in 2 lacks 128 "
           "events\n"
           "request 3 at 1:602 id '' state 2 start 12000000000 end 12400000000 in 0 out 5 lacks "
           "132 events 12100000000:1 12200000000:1 ttft 0.100000000\n"
           "end\n3 read, 0 rejected\n");
    expect(LLMLAT_INPUT_AUTO, INPUTS[20].text,
           "request 1 at 1:2 id '' state 2 start 1000000000 end 1300000000 in 3 out 2 lacks 132 "
           "events 1100000000:1 1100000000:1 1200000000:1 1250000000:1 ttft 0.100000000\n"
           "end\n1 read, 0 rejected\n");
    /* vLLM: the latency places the last chunk, the queue time the
     * intended start */
    expect(LLMLAT_INPUT_AUTO, INPUTS[21].text,
           "request 1 at 1:1 id '' state 2 start 5000000000 end 5200000002 in 1 out 3 scheduled "
           "4750000000 lacks 6 events 5100000000:1 5150000000:1 5200000002:1 ttft 0.100000000\n"
           "duration 1.000000000\nruns 1\nend\n1 read, 0 rejected\n");
    /* AIPerf before October 2025: timestamp_ns, credit_phase, ttft; a
     * RequestCancellationError is a cancellation */
    expect(LLMLAT_INPUT_AUTO, INPUTS[22].text,
           "request 1 at 1:1 id 'o1' state 2 start 1000 end 4000 in 0 out 2 lacks 166 events "
           "2000:1 4000:1 ttft 0.000001000\n"
           "request 2 at 3:1 id '' state 4 start 3000 end 3000 in 0 lacks 182 events\n"
           "end\n2 read, 0 rejected\n");
    /* GuideLLM before 0.4: the first and last token times, no counts */
    expect(LLMLAT_INPUT_AUTO,
           "{\"benchmarks\": [{\"start_time\": 9.5, \"end_time\": 12.0, \"requests\": "
           "{\"successful\": [{\"request_id\": \"x\", \"start_time\": 10.0, \"end_time\": "
           "11.0, \"first_token_time\": 10.2, \"last_token_time\": 10.9, \"prompt_tokens\": 5, "
           "\"output_tokens\": 8}], \"errored\": [], \"incomplete\": []}}]}",
           "request 1 at 1:83 id 'x' state 2 start 10000000000 end 11000000000 in 5 out 8 "
           "lacks 196 events 10200000000:1 10900000000:1 ttft 0.200000000\n"
           "runs 1\nend\n1 read, 0 rejected\n");
    /* LLMPerf: its own per-request throughput, under its convention only */
    llmlat_reader *rd = llmlat_reader_new(LLMLAT_INPUT_LLMPERF, NULL);
    llmlat_request *r = llmlat_request_new();
    static const char TPS[] = "[{\"error_code\": null, \"ttft_s\": 0.2, \"end_to_end_latency_s\": "
                              "1.0, \"request_output_throughput_token_per_s\": 11.5, "
                              "\"number_output_tokens\": 100}]";
    int32_t what;
    double v;
    assert_int_equal(llmlat_reader_feed(rd, TPS, strlen(TPS)), LLMLAT_OK);
    assert_int_equal(llmlat_reader_end(rd), LLMLAT_OK);
    assert_int_equal(llmlat_reader_next(rd, r, &what), LLMLAT_OK);
    assert_int_equal(what, LLMLAT_READ_REQUEST);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_LLMPERF, LLMLAT_TPS_USER, &v), LLMLAT_OK);
    assert_true(v == 11.5);
    assert_int_equal(llmlat_request_value(r, LLMLAT_CONV_SGLANG, LLMLAT_TPS_USER, &v), LLMLAT_OK);
    assert_true(v == 100.0);
    llmlat_request_free(r);
    llmlat_reader_free(rd);
}

static void malformed_importer_files(void **state)
{
    (void)state;
    expect(LLMLAT_INPUT_VLLM, INPUTS[13].text,
           "error -6: t.json:1:1: the run has 2 TTFTs but 1 chunk lists\n0 read, 0 rejected\n");
    expect(LLMLAT_INPUT_VLLM, INPUTS[14].text,
           "error -6: t.json:1:1: run 1 has no \"ttfts\": per-request data is saved with vllm "
           "bench serve --save-result --save-detailed\n0 read, 0 rejected\n");
    expect(LLMLAT_INPUT_AIPERF, INPUTS[15].text,
           "error -6: t.json:1:84: metric \"time_to_first_token\" has unit \"parsecs\", not a "
           "time unit\n0 read, 0 rejected\n");
    expect(LLMLAT_INPUT_GENAI_PERF, INPUTS[16].text,
           "error -6: t.json:1:75: expected ',' or '}', found end of input\n0 read, 0 rejected\n");
    expect(LLMLAT_INPUT_LLMPERF, INPUTS[17].text,
           "error -6: t.json:1:13: \"ttft_s\" must not be negative\n0 read, 0 rejected\n");
    /* the file's own strings in a message stay on its one line (libFuzzer) */
    expect(LLMLAT_INPUT_AIPERF,
           "{\"metadata\": {\"timestamp_ns\": 5}, \"metrics\": {\"ttft\": {\"value\": 1, "
           "\"unit\": \"m\\ns\"}}}",
           "error -6: t.json:1:65: metric \"ttft\" has unit \"m\\u000as\", not a time "
           "unit\n0 read, 0 rejected\n");
    expect(LLMLAT_INPUT_SGLANG, "[1]",
           "error -6: t.json:1:1: a run must be an object, found '['\n0 read, 0 rejected\n");
    expect(LLMLAT_INPUT_LLMPERF, "",
           "error -6: t.json:1:1: empty input: expected LLMPerf's individual responses "
           "(*_individual_responses.json)\n0 read, 0 rejected\n");
}

static void detection(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int32_t input;
    } CASES[] = {
        { "[{\"start\": 0}]", LLMLAT_INPUT_TRACE },
        { "[{\"id\": 1, \"ttft_s\": 0}]", LLMLAT_INPUT_LLMPERF },
        { "{\"requests\": []}", LLMLAT_INPUT_TRACE },
        { "{\"note\": {\"date\": 1}, \"start\": 0}", LLMLAT_INPUT_TRACE },
        { "{\"date\": \"x\"}", LLMLAT_INPUT_VLLM },
        { "{\"backend\": \"sglang\", \"dataset_name\": \"x\"}", LLMLAT_INPUT_SGLANG },
        { "{\"metadata\": {}}", LLMLAT_INPUT_AIPERF },
        { "{\"experiments\": []}", LLMLAT_INPUT_GENAI_PERF },
        { "{}", LLMLAT_INPUT_AUTO }, /* refused: "not a format llmlat reads" */
        { "{\"metadata\": {\"version\": 1, \"guidellm_version\": \"0.5.0\"}}",
          LLMLAT_INPUT_GUIDELLM },
        { "{\"args\": {}, \"benchmarks\": []}", LLMLAT_INPUT_GUIDELLM },
        { "{\"metadata\": {\"timestamp_ns\": 1, \"credit_phase\": \"profiling\"}}",
          LLMLAT_INPUT_AIPERF },
        { "[{\"start_time\": 1, \"end_time\": 2}]", LLMLAT_INPUT_INFERENCE_PERF },
        { "{\"start_time\": 1, \"ok\": true}", LLMLAT_INPUT_TRACE },
        { "[1]", LLMLAT_INPUT_TRACE },
        { "nonsense", LLMLAT_INPUT_TRACE },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        llmlat_reader *rd = llmlat_reader_new(LLMLAT_INPUT_AUTO, NULL);
        llmlat_request *r = llmlat_request_new();
        int32_t input, what;
        assert_int_equal(llmlat_reader_format(rd, &input), LLMLAT_OK);
        assert_int_equal(input, LLMLAT_INPUT_AUTO);
        assert_int_equal(llmlat_reader_feed(rd, CASES[i].text, strlen(CASES[i].text)), LLMLAT_OK);
        assert_int_equal(llmlat_reader_end(rd), LLMLAT_OK);
        while (llmlat_reader_next(rd, r, &what) == LLMLAT_OK && what != LLMLAT_READ_END)
            ;
        assert_int_equal(llmlat_reader_format(rd, &input), LLMLAT_OK);
        if (input != CASES[i].input)
            fail_msg("%s: format %d, want %d", CASES[i].text, input, CASES[i].input);
        llmlat_request_free(r);
        llmlat_reader_free(rd);
    }
    /* a key split across pieces still decides */
    outcome o = read_in_pieces(LLMLAT_INPUT_AUTO, 0, "{\"experiments\": []}", 19, 1);
    assert_non_null(strstr(o.text, "error -6: t.json:1:20: the profile export has no experiment"));
    free(o.text);
}

/* What a file llmlat cannot read looks like, in one line (issue 25's
 * messages): the tools' summaries, and anything else. */
static void detection_messages(void **state)
{
    (void)state;
    static const char IP[] = "looks like inference-perf summary_lifecycle_metrics.json, which "
                             "holds no requests (inference-perf writes them to "
                             "per_request_lifecycle_metrics.json, with its report's per_request: "
                             "true)";
    static const char UNKNOWN[] = "not a format llmlat reads: expected an llmlat trace (requests "
                                  "with \"start\" and \"events\") or a result file of vLLM, "
                                  "SGLang, AIPerf, GenAI-Perf, LLMPerf, GuideLLM or "
                                  "inference-perf (docs/importers.md)";
    static const struct {
        int32_t input;
        const char *text, *where, *message;
    } CASES[] = {
        { LLMLAT_INPUT_AUTO, "{\"load_summary\": {\"count\": 1}, \"successes\": {}}", "1:1", IP },
        { LLMLAT_INPUT_AUTO, "{\"benchmark_time_seconds\": 1.5, \"load_summary\": {}}", "1:1",
          IP },
        { LLMLAT_INPUT_INFERENCE_PERF, "{\"load_summary\": {}}", "1:1", IP },
        { LLMLAT_INPUT_AUTO, "{\"records\": {\"ttft\": {}}, \"input_config\": {}}", "1:1",
          "looks like AIPerf's summary profile_export_aiperf.json, which holds no requests "
          "(they are in profile_export.jsonl)" },
        { LLMLAT_INPUT_AUTO, "{\"request_throughput\": {\"unit\": \"requests/sec\", \"avg\": 1}}",
          "1:1",
          "looks like an AIPerf or GenAI-Perf summary (profile_export_aiperf.json or "
          "profile_export_genai_perf.json), which holds no requests (they are in AIPerf's "
          "profile_export.jsonl, or in GenAI-Perf's profile export)" },
        { LLMLAT_INPUT_AUTO,
          "{\"version\": \"2023-08-31\", \"name\": \"m\", \"results_ttft_s_mean\": 0.1}", "1:1",
          "looks like LLMPerf's *_summary.json, which holds no requests (they are in "
          "*_individual_responses.json)" },
        { LLMLAT_INPUT_AUTO,
          "{\"metadata\": {\"guidellm_version\": \"0.5.0\"}, \"benchmarks\": [{\"metrics\": "
          "{\"request_totals\": {\"total\": 4}}, \"requests\": {\"successful\": [], "
          "\"errored\": [], \"incomplete\": []}}]}",
          "1:60",
          "looks like GuideLLM benchmarks.json (summary only: no per-request data): benchmark 1 "
          "counted 4 requests but kept none" },
        { LLMLAT_INPUT_AUTO, "{\"foo\": 1, \"bar\": [2]}", "1:1", UNKNOWN },
        { LLMLAT_INPUT_AUTO, "\n[{\"foo\": 1}]", "2:2", UNKNOWN },
        { LLMLAT_INPUT_AUTO, "{}", "1:1", UNKNOWN },
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        char want[1024];
        snprintf(want, sizeof want, "error -6: t.json:%s: %s\n0 read, 0 rejected\n",
                 CASES[i].where, CASES[i].message);
        expect(CASES[i].input, CASES[i].text, want);
    }
}

/* ------------------------------------------------------------- memory */

/* A long JSON Lines trace fed in 4 KiB pieces: the buffer holds a piece
 * and one request, whatever the input's length. */
static void memory_bounded(void **state)
{
    (void)state;
    llmlat_reader *rd = llmlat_reader_new(LLMLAT_INPUT_TRACE, "long");
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    char line[8192];
    size_t max_cap = 0, max_events = 0;
    int32_t what;
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(line, sizeof line, "{\"start\": %d, \"events\": [", i);
        for (int e = 0; e < 200; e++)
            n += snprintf(line + n, sizeof line - (size_t)n, "%s[%d.%03d, 1]", e ? ", " : "",
                          i, e + 1);
        n += snprintf(line + n, sizeof line - (size_t)n, "]}\n");
        for (int off = 0; off < n; off += 4096) {
            int m = n - off < 4096 ? n - off : 4096;
            assert_int_equal(llmlat_reader_feed(rd, line + off, (size_t)m), LLMLAT_OK);
            do
                assert_int_equal(llmlat_reader_add_to(rd, a, &what), LLMLAT_OK);
            while (what != LLMLAT_READ_MORE);
        }
        if (rd->cap > max_cap)
            max_cap = rd->cap;
        if (rd->ev.cap > max_events)
            max_events = rd->ev.cap;
    }
    assert_int_equal(llmlat_reader_end(rd), LLMLAT_OK);
    assert_int_equal(llmlat_reader_add_to(rd, a, &what), LLMLAT_OK);
    assert_int_equal(what, LLMLAT_READ_END);
    uint64_t completed;
    assert_int_equal(llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &completed), LLMLAT_OK);
    assert_int_equal(completed, 20000);
    assert_true(max_cap <= 32768);   /* a 4 KiB piece and a ~3 KiB request */
    assert_true(max_events <= 256);  /* one request's 200 events */
    llmlat_agg_free(a);
    llmlat_reader_free(rd);
}

/* One request longer than any piece: read in time linear in its length
 * (a starved step waits until its bytes doubled), 100 bytes at a time. */
static void long_request(void **state)
{
    (void)state;
    const size_t events = 200000;
    char *text = malloc(events * 16 + 64);
    assert_non_null(text);
    size_t n = (size_t)sprintf(text, "[{\"start\": 0, \"events\": [");
    for (size_t e = 0; e < events; e++)
        n += (size_t)sprintf(text + n, "%s[%zu.5, 1]", e ? "," : "", e);
    n += (size_t)sprintf(text + n, "]}]");
    llmlat_reader *rd = llmlat_reader_new(LLMLAT_INPUT_TRACE, "long");
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    int32_t what;
    size_t fed = 0, steps = 0;
    for (;;) {
        assert_int_equal(llmlat_reader_add_to(rd, a, &what), LLMLAT_OK);
        if (what == LLMLAT_READ_END)
            break;
        assert_int_equal(what, LLMLAT_READ_MORE);
        if (fed == n) {
            assert_int_equal(llmlat_reader_end(rd), LLMLAT_OK);
            continue;
        }
        size_t m = n - fed < 100 ? n - fed : 100;
        assert_int_equal(llmlat_reader_feed(rd, text + fed, m), LLMLAT_OK);
        fed += m;
        steps++;
    }
    double count;
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_ICL, LLMLAT_STAT_COUNT, &count), LLMLAT_OK);
    assert_true(count == (double)(events - 1));
    assert_true(steps > n / 100 - 1);
    llmlat_agg_free(a);
    llmlat_reader_free(rd);
    free(text);
}

/* ---------------------------------------------------------------- API */

static void api_rules(void **state)
{
    (void)state;
    int32_t what, input;
    uint64_t v;
    double d;
    assert_null(llmlat_reader_new(99, NULL));
    assert_null(llmlat_reader_new(-1, NULL));
    assert_string_equal(llmlat_input_name(LLMLAT_INPUT_GENAI_PERF), "genai-perf");
    assert_string_equal(llmlat_input_name(LLMLAT_INPUT_AUTO), "auto");
    assert_string_equal(llmlat_input_name(LLMLAT_INPUT_GUIDELLM), "guidellm");
    assert_string_equal(llmlat_input_name(LLMLAT_INPUT_INFERENCE_PERF), "inference-perf");
    assert_null(llmlat_input_name(9));
    llmlat_reader_free(NULL);
    assert_int_equal(llmlat_reader_feed(NULL, "x", 1), LLMLAT_EINVAL);
    assert_string_equal(llmlat_reader_message(NULL), "");
    assert_string_equal(llmlat_reader_request_id(NULL), "");

    llmlat_reader *rd = llmlat_reader_new(LLMLAT_INPUT_TRACE, NULL);
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_reader_feed(rd, NULL, 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_reader_feed(rd, NULL, 0), LLMLAT_OK);
    assert_int_equal(llmlat_reader_next(rd, NULL, &what), LLMLAT_EINVAL);
    assert_int_equal(llmlat_reader_next(rd, r, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_reader_add_to(rd, NULL, &what), LLMLAT_EINVAL);
    assert_int_equal(llmlat_reader_counter(rd, 99, &v), LLMLAT_EINVAL);
    assert_int_equal(llmlat_reader_counter(rd, LLMLAT_READ_COUNT_RUN, &v), LLMLAT_EUNDEFINED);
    assert_int_equal(llmlat_reader_duration(rd, &d), LLMLAT_EUNDEFINED);
    assert_true(d != d);
    assert_int_equal(llmlat_reader_request_position(rd, &v, &v, &v), LLMLAT_ESTATE);
    assert_int_equal(llmlat_reader_format(rd, &input), LLMLAT_OK);
    assert_int_equal(input, LLMLAT_INPUT_TRACE);
    assert_int_equal(llmlat_reader_next(rd, r, &what), LLMLAT_OK);
    assert_int_equal(what, LLMLAT_READ_MORE);

    /* zero-copy input */
    void *room;
    size_t cap;
    assert_int_equal(llmlat_reader_space(rd, 0, &room, &cap), LLMLAT_EINVAL);
    assert_int_equal(llmlat_reader_space(rd, 10, &room, &cap), LLMLAT_OK);
    assert_true(cap >= 10);
    memcpy(room, "[{\"start\":", 10);
    assert_int_equal(llmlat_reader_commit(rd, cap + 1), LLMLAT_EINVAL);
    assert_int_equal(llmlat_reader_commit(rd, 10), LLMLAT_OK);
    assert_int_equal(llmlat_reader_set_run(rd, 2), LLMLAT_ESTATE); /* bytes were fed */
    assert_int_equal(llmlat_reader_feed(rd, " 1}]", 4), LLMLAT_OK);
    assert_int_equal(llmlat_reader_end(rd), LLMLAT_OK);
    assert_int_equal(llmlat_reader_feed(rd, "x", 1), LLMLAT_ESTATE);
    assert_int_equal(llmlat_reader_space(rd, 1, &room, &cap), LLMLAT_ESTATE);
    assert_int_equal(llmlat_reader_next(rd, r, &what), LLMLAT_OK);
    assert_int_equal(what, LLMLAT_READ_REQUEST);
    assert_int_equal(llmlat_reader_next(rd, r, &what), LLMLAT_OK);
    assert_int_equal(what, LLMLAT_READ_END);
    assert_int_equal(llmlat_reader_next(rd, r, &what), LLMLAT_OK); /* and END again */
    assert_int_equal(what, LLMLAT_READ_END);
    llmlat_reader_free(rd);

    /* an error is sticky */
    rd = llmlat_reader_new(LLMLAT_INPUT_TRACE, "bad");
    assert_int_equal(llmlat_reader_feed(rd, "[1]", 3), LLMLAT_OK);
    assert_int_equal(llmlat_reader_next(rd, r, &what), LLMLAT_EFORMAT);
    assert_string_equal(llmlat_reader_message(rd),
                        "bad:1:2: expected '{' starting a request, found '1'");
    assert_int_equal(llmlat_reader_next(rd, r, &what), LLMLAT_EFORMAT);
    assert_int_equal(llmlat_reader_feed(rd, "x", 1), LLMLAT_EFORMAT);
    assert_int_equal(llmlat_reader_end(rd), LLMLAT_EFORMAT);
    llmlat_reader_free(rd);
    llmlat_request_free(r);
}

/* add_to gives the aggregator next + llmlat_agg_add would. */
static void add_to_equals_next(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    read_both_ways(INPUTS[3].text, a, b);
    llmlat_agg_free(a);
    llmlat_agg_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_in_any_pieces),
        cmocka_unit_test(trace_values),
        cmocka_unit_test(rejections),
        cmocka_unit_test(trace_scheduled),
        cmocka_unit_test(importers),
        cmocka_unit_test(importers_1_2),
        cmocka_unit_test(malformed_importer_files),
        cmocka_unit_test(detection),
        cmocka_unit_test(detection_messages),
        cmocka_unit_test(memory_bounded),
        cmocka_unit_test(long_request),
        cmocka_unit_test(api_rules),
        cmocka_unit_test(add_to_equals_next),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
