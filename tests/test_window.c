/* Windows over an exact aggregator's requests (llmlat_agg_add_window,
 * llmlat_agg_span): each rule keeps what it says, the requests are added
 * again as llmlat_agg_add would add them (under dst's convention), slices
 * partition a run, and the log that makes it possible survives merge,
 * reset and serialization. */
#include <stdbool.h>

#include "helpers.h"

/* Request i: starts every 100 ms, lasts 50 + 10 i ms, 4 chunks, every
 * seventh one fails; its data lack `lacks`. */
static llmlat_request *request_lacking(int i, uint32_t lacks)
{
    int64_t start = i * 100 * MS, t = start + 20 * MS;
    llmlat_request *r = llmlat_request_new();
    assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
    for (int e = 0; e < 4; e++) {
        assert_int_equal(llmlat_request_event(r, t, (uint32_t)(e == 1 ? 0 : 1 + e % 2)),
                         LLMLAT_OK);
        t += (5 + i) * MS;
    }
    assert_int_equal(llmlat_request_set_input_tokens(r, (uint64_t)(10 + i)), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_lacks(r, lacks), LLMLAT_OK);
    int64_t end = start + (50 + 10 * i) * MS;
    if (i % 7 == 6)
        assert_int_equal(llmlat_request_fail(r, end), LLMLAT_OK);
    else
        assert_int_equal(llmlat_request_finish(r, end), LLMLAT_OK);
    return r;
}

static llmlat_request *request_i(int i)
{
    return request_lacking(i, 0);
}

static void add_range(llmlat_agg *a, int from, int to)
{
    for (int i = from; i < to; i++) {
        llmlat_request *r = request_i(i);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        llmlat_request_free(r);
    }
}

static int64_t start_of(int i)
{
    return i * 100 * MS;
}

static int64_t end_of(int i)
{
    return start_of(i) + (50 + 10 * i) * MS;
}

/* The JSON report says everything the queries say: equal reports, equal
 * aggregators. */
static char *json_of(const llmlat_agg *a)
{
    size_t len = 0;
    assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, NULL, 0, &len), LLMLAT_ENOSPC);
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_JSON, buf, len, &len), LLMLAT_OK);
    buf[len] = '\0';
    return buf;
}

static void assert_same_report(const llmlat_agg *x, const llmlat_agg *y)
{
    char *a = json_of(x), *b = json_of(y);
    assert_string_equal(a, b);
    free(a);
    free(b);
}

static uint64_t requests_of(const llmlat_agg *a)
{
    return counter_of(a, LLMLAT_COUNT_COMPLETED) + counter_of(a, LLMLAT_COUNT_FAILED);
}

/* Each rule keeps exactly the requests it names, and dst equals an
 * aggregator given those requests directly. */
static void rules_select(void **state)
{
    (void)state;
    llmlat_agg *src = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    add_range(src, 0, 30);
    int64_t from = start_of(5), to = end_of(12);
    for (int32_t rule = LLMLAT_WINDOW_START; rule <= LLMLAT_WINDOW_INSIDE; rule++) {
        llmlat_agg *dst = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
        llmlat_agg *want = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
        assert_int_equal(llmlat_agg_add_window(dst, src, from, to, rule), LLMLAT_OK);
        uint64_t kept = 0;
        for (int i = 0; i < 30; i++) {
            int64_t s = start_of(i), e = end_of(i);
            bool keep = rule == LLMLAT_WINDOW_START ? s >= from && s < to
                        : rule == LLMLAT_WINDOW_END ? e >= from && e < to
                                                    : s >= from && e <= to;
            if (keep) {
                add_range(want, i, i + 1);
                kept++;
            }
        }
        assert_true(kept > 0 && kept < 30);
        assert_int_equal(requests_of(dst), kept);
        assert_same_report(dst, want);
        llmlat_agg_free(dst);
        llmlat_agg_free(want);
    }
    /* START is half-open, INSIDE closed at its end */
    llmlat_agg *dst = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_add_window(dst, src, start_of(3), start_of(4),
                                           LLMLAT_WINDOW_START), LLMLAT_OK);
    assert_int_equal(requests_of(dst), 1);
    assert_int_equal(llmlat_agg_reset(dst), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add_window(dst, src, start_of(3), end_of(3),
                                           LLMLAT_WINDOW_INSIDE), LLMLAT_OK);
    assert_int_equal(requests_of(dst), 1);
    assert_int_equal(llmlat_agg_reset(dst), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add_window(dst, src, start_of(3), end_of(3) - 1,
                                           LLMLAT_WINDOW_INSIDE), LLMLAT_OK);
    assert_int_equal(requests_of(dst), 0);
    llmlat_agg_free(dst);
    llmlat_agg_free(src);
}

/* Consecutive START windows partition the run: their counts add up, and
 * merged they are the whole. */
static void slices_partition(void **state)
{
    (void)state;
    llmlat_agg *src = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    add_range(src, 0, 40);
    int64_t first, last;
    assert_int_equal(llmlat_agg_span(src, &first, &last), LLMLAT_OK);
    assert_int_equal(first, 0);
    assert_int_equal(last, end_of(39));
    llmlat_agg *all = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    int64_t width = 730 * MS;
    int n = 0;
    for (int64_t lo = first; lo <= last; lo += width, n++) {
        llmlat_agg *slice = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
        assert_int_equal(llmlat_agg_add_window(slice, src, lo, lo + width, LLMLAT_WINDOW_START),
                         LLMLAT_OK);
        assert_int_equal(llmlat_agg_merge(all, slice), LLMLAT_OK);
        llmlat_agg_free(slice);
    }
    assert_true(n > 5);
    assert_int_equal(requests_of(all), 40);
    assert_same_report(all, src);
    llmlat_agg_free(all);
    llmlat_agg_free(src);
}

/* dst computes the requests under its own convention and mode. */
static void dst_convention_and_mode(void **state)
{
    (void)state;
    llmlat_agg *src = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    add_range(src, 0, 20);
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= LLMLAT_CONV_LLMPERF; conv++)
        for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
            llmlat_agg *dst = llmlat_agg_new(conv, mode), *want = llmlat_agg_new(conv, mode);
            assert_int_equal(llmlat_agg_set_param(dst, LLMLAT_PARAM_SLO_TTFT, 0.021),
                             LLMLAT_OK);
            assert_int_equal(llmlat_agg_set_param(want, LLMLAT_PARAM_SLO_TTFT, 0.021),
                             LLMLAT_OK);
            assert_int_equal(llmlat_agg_add_window(dst, src, INT64_MIN, INT64_MAX,
                                                   LLMLAT_WINDOW_INSIDE), LLMLAT_OK);
            add_range(want, 0, 20);
            assert_same_report(dst, want);
            llmlat_agg_free(dst);
            llmlat_agg_free(want);
        }
    llmlat_agg_free(src);
}

static void errors(void **state)
{
    (void)state;
    llmlat_agg *src = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *dst = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *bounded = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    int64_t lo, hi;
    assert_int_equal(llmlat_agg_span(src, &lo, &hi), LLMLAT_EUNDEFINED); /* empty */
    add_range(src, 0, 5);
    add_range(bounded, 0, 5);
    assert_int_equal(llmlat_agg_add_window(NULL, src, 0, 1, LLMLAT_WINDOW_START), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_add_window(dst, NULL, 0, 1, LLMLAT_WINDOW_START), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_add_window(src, src, 0, 1, LLMLAT_WINDOW_START), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_add_window(dst, src, 0, 1, 0), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_add_window(dst, src, 0, 1, 4), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_add_window(dst, src, 2, 1, LLMLAT_WINDOW_START), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_add_window(dst, bounded, 0, 1, LLMLAT_WINDOW_START),
                     LLMLAT_EUNDEFINED);
    assert_int_equal(llmlat_agg_span(bounded, &lo, &hi), LLMLAT_EUNDEFINED);
    assert_int_equal(llmlat_agg_span(NULL, &lo, &hi), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_span(src, NULL, &hi), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_span(src, &lo, NULL), LLMLAT_EINVAL);
    assert_int_equal(requests_of(dst), 0);
    /* an empty window adds nothing and is fine */
    assert_int_equal(llmlat_agg_add_window(dst, src, 5, 5, LLMLAT_WINDOW_START), LLMLAT_OK);
    assert_int_equal(requests_of(dst), 0);
    llmlat_agg_free(src);
    llmlat_agg_free(dst);
    llmlat_agg_free(bounded);
}

/* The log follows merge and reset, costs memory, and round-trips through
 * the byte format. */
static void log_merge_reset_serialize(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_EXACT);
    llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_EXACT);
    llmlat_agg *whole = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_EXACT);
    uint64_t empty_memory = counter_of(a, LLMLAT_COUNT_MEMORY_BYTES);
    add_range(a, 0, 10);
    add_range(b, 10, 25);
    add_range(whole, 0, 25);
    assert_true(counter_of(a, LLMLAT_COUNT_MEMORY_BYTES) > empty_memory);
    assert_int_equal(llmlat_agg_merge(a, b), LLMLAT_OK);
    int64_t from = start_of(8), to = end_of(17);
    llmlat_agg *x = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_EXACT);
    llmlat_agg *y = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_add_window(x, a, from, to, LLMLAT_WINDOW_INSIDE), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add_window(y, whole, from, to, LLMLAT_WINDOW_INSIDE), LLMLAT_OK);
    assert_same_report(x, y);

    size_t len = 0;
    assert_int_equal(llmlat_agg_serialize(a, NULL, 0, &len), LLMLAT_ENOSPC);
    unsigned char *buf = malloc(len);
    assert_int_equal(llmlat_agg_serialize(a, buf, len, &len), LLMLAT_OK);
    int32_t st;
    llmlat_agg *copy = llmlat_agg_deserialize(buf, len, &st);
    assert_non_null(copy);
    llmlat_agg *z = llmlat_agg_new(LLMLAT_CONV_SGLANG, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_add_window(z, copy, from, to, LLMLAT_WINDOW_INSIDE), LLMLAT_OK);
    assert_same_report(x, z);
    int64_t lo1, hi1, lo2, hi2;
    assert_int_equal(llmlat_agg_span(a, &lo1, &hi1), LLMLAT_OK);
    assert_int_equal(llmlat_agg_span(copy, &lo2, &hi2), LLMLAT_OK);
    assert_int_equal(lo1, lo2);
    assert_int_equal(hi1, hi2);

    assert_int_equal(llmlat_agg_reset(a), LLMLAT_OK);
    assert_int_equal(llmlat_agg_span(a, &lo1, &hi1), LLMLAT_EUNDEFINED);
    add_range(a, 3, 4);
    assert_int_equal(llmlat_agg_span(a, &lo1, &hi1), LLMLAT_OK);
    assert_int_equal(lo1, start_of(3));
    assert_int_equal(hi1, end_of(3));
    free(buf);
    llmlat_agg_free(a);
    llmlat_agg_free(b);
    llmlat_agg_free(whole);
    llmlat_agg_free(x);
    llmlat_agg_free(y);
    llmlat_agg_free(z);
    llmlat_agg_free(copy);
}

/* Merging in an aggregator that keeps no requests (a bounded one cannot
 * be merged into an exact one, so: one whose log is cut off by bytes
 * from before the log, simulated by deserializing a copy whose log
 * section is empty) leaves dst without a complete log. */
static void incomplete_log(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    add_range(a, 0, 3);
    size_t len = 0;
    assert_int_equal(llmlat_agg_serialize(a, NULL, 0, &len), LLMLAT_ENOSPC);
    unsigned char *buf = malloc(len);
    assert_int_equal(llmlat_agg_serialize(a, buf, len, &len), LLMLAT_OK);
    /* The log is the last section: its count then 3 requests. Writing a
     * count of 0 and dropping those bytes keeps a valid aggregator. */
    size_t log_bytes = 0;
    for (int i = 0; i < 3; i++)
        log_bytes += 52 + 4 * 12; /* 4 events each */
    size_t cut = len - 4 - log_bytes;
    unsigned char *b2 = malloc(cut + 4);
    memcpy(b2, buf, cut);
    uint64_t total = cut + 4;
    for (int i = 0; i < 8; i++)
        b2[16 + i] = (unsigned char)(total >> (8 * i));
    for (int i = 0; i < 8; i++)
        b2[cut - 8 + i] = 0; /* log count */
    /* CRC-32 of zlib, bitwise */
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < cut; i++) {
        crc ^= b2[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    crc ^= 0xFFFFFFFFu;
    for (int i = 0; i < 4; i++)
        b2[cut + i] = (unsigned char)(crc >> (8 * i));
    int32_t st = 0;
    llmlat_agg *nolog = llmlat_agg_deserialize(b2, cut + 4, &st);
    assert_int_equal(st, LLMLAT_OK);
    assert_non_null(nolog);
    int64_t lo, hi;
    assert_int_equal(llmlat_agg_span(nolog, &lo, &hi), LLMLAT_EUNDEFINED);
    assert_int_equal(llmlat_agg_merge(a, nolog), LLMLAT_OK);
    assert_int_equal(llmlat_agg_span(a, &lo, &hi), LLMLAT_EUNDEFINED);
    llmlat_agg *dst = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_add_window(dst, a, INT64_MIN, INT64_MAX, LLMLAT_WINDOW_START),
                     LLMLAT_EUNDEFINED);
    free(buf);
    free(b2);
    llmlat_agg_free(a);
    llmlat_agg_free(nolog);
    llmlat_agg_free(dst);
}

/* llmlat_agg_new_like: the settings, none of the data. */
static void new_like(void **state)
{
    (void)state;
    assert_null(llmlat_agg_new_like(NULL));
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_AIPERF, LLMLAT_MODE_BOUNDED);
    static const double q[] = { 0.1, 0.75 };
    static const double bounds[] = { 0.01, 0.5 };
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.02), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_E2E, 0.3), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, 12.0), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_quantiles(a, q, 2), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, bounds, 2), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(a, "model", "m1"), LLMLAT_OK);
    add_range(a, 0, 5);
    llmlat_agg *b = llmlat_agg_new_like(a);
    assert_non_null(b);
    int32_t conv, mode;
    assert_int_equal(llmlat_agg_get_convention(b, &conv), LLMLAT_OK);
    assert_int_equal(llmlat_agg_get_mode(b, &mode), LLMLAT_OK);
    assert_int_equal(conv, LLMLAT_CONV_AIPERF);
    assert_int_equal(mode, LLMLAT_MODE_BOUNDED);
    for (int32_t p = LLMLAT_PARAM_RELATIVE_ERROR; p <= LLMLAT_PARAM_SLO_E2E; p++) {
        double x, y;
        assert_int_equal(llmlat_agg_get_param(a, p, &x), LLMLAT_OK);
        assert_int_equal(llmlat_agg_get_param(b, p, &y), LLMLAT_OK);
        assert_true(x == y);
    }
    assert_int_equal(requests_of(b), 0);
    /* given the same requests, the same reports: quantiles, buckets, labels */
    add_range(b, 0, 5);
    assert_same_report(a, b);
    size_t la = 0, lb = 0;
    assert_int_equal(llmlat_agg_report(a, LLMLAT_FORMAT_PROMETHEUS, NULL, 0, &la), LLMLAT_ENOSPC);
    assert_int_equal(llmlat_agg_report(b, LLMLAT_FORMAT_PROMETHEUS, NULL, 0, &lb), LLMLAT_ENOSPC);
    assert_int_equal(la, lb);
    assert_int_equal(llmlat_agg_merge(a, b), LLMLAT_OK); /* bounded: same alpha and SLOs */
    llmlat_agg_free(a);
    llmlat_agg_free(b);
}

/* What a request's data lack travels with it through the log: a window
 * keeps it, and one without start times on one clock has no window. */
static void lacks_kept(void **state)
{
    (void)state;
    llmlat_agg *src = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    for (int i = 0; i < 6; i++) {
        llmlat_request *r = request_lacking(i, LLMLAT_LACKS_CHUNK_TOKENS);
        assert_int_equal(llmlat_agg_add(src, r), LLMLAT_OK);
        llmlat_request_free(r);
    }
    llmlat_agg *dst = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_add_window(dst, src, INT64_MIN, INT64_MAX, LLMLAT_WINDOW_START),
                     LLMLAT_OK);
    assert_same_report(dst, src); /* "not available" where src says it */
    const char *why = NULL;
    assert_int_equal(llmlat_agg_unavailable(dst, LLMLAT_KIND_METRIC, LLMLAT_ITL, &why),
                     LLMLAT_EUNDEFINED);
    assert_non_null(why);
    /* relative starts: no window, no span, no timeline; the table has no
     * times but its values */
    llmlat_request *r = request_lacking(7, LLMLAT_LACKS_START_TIMES);
    assert_int_equal(llmlat_agg_add(src, r), LLMLAT_OK);
    llmlat_request_free(r);
    int64_t lo, hi;
    assert_int_equal(llmlat_agg_span(src, &lo, &hi), LLMLAT_EUNDEFINED);
    assert_int_equal(llmlat_agg_add_window(dst, src, 0, 1, LLMLAT_WINDOW_START),
                     LLMLAT_EUNDEFINED);
    size_t len;
    assert_int_equal(llmlat_agg_report(src, LLMLAT_FORMAT_CHROME_TRACE, NULL, 0, &len),
                     LLMLAT_EUNDEFINED);
    assert_int_equal(llmlat_agg_report(src, LLMLAT_FORMAT_REQUESTS_CSV, NULL, 0, &len),
                     LLMLAT_ENOSPC);
    char *csv = malloc(len + 1);
    assert_int_equal(llmlat_agg_report(src, LLMLAT_FORMAT_REQUESTS_CSV, csv, len, &len),
                     LLMLAT_OK);
    csv[len] = '\0';
    assert_non_null(strstr(csv, "\n6,,,")); /* the 7th request: no start, no end */
    free(csv);
    /* a request known by its values only is not kept: no per-request report */
    r = llmlat_request_new();
    assert_int_equal(llmlat_request_start(r, 0), LLMLAT_OK);
    assert_int_equal(llmlat_request_set_known(r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT, 0.1),
                     LLMLAT_OK);
    assert_int_equal(llmlat_request_finish(r, 500 * MS), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(dst, r), LLMLAT_OK);
    llmlat_request_free(r);
    assert_int_equal(llmlat_agg_report(dst, LLMLAT_FORMAT_REQUESTS_JSONL, NULL, 0, &len),
                     LLMLAT_EUNDEFINED);
    llmlat_agg_free(src);
    llmlat_agg_free(dst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rules_select),
        cmocka_unit_test(slices_partition),
        cmocka_unit_test(dst_convention_and_mode),
        cmocka_unit_test(errors),
        cmocka_unit_test(log_merge_reset_serialize),
        cmocka_unit_test(incomplete_log),
        cmocka_unit_test(new_like),
        cmocka_unit_test(lacks_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
