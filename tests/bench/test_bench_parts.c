/* The parts of `llmlat bench` that are functions of their input: the URL,
 * the buffer's exact seconds and JSON strings, the random streams and the
 * arrival processes, the request it writes (bodies, --extra-body merged). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "bench_arrival.h"
#include "bench_buf.h"
#include "bench_options.h"
#include "bench_random.h"
#include "bench_url.h"
#include "bench_workload.h"
#include "llmlat.h"

static void test_url(void **state)
{
    (void)state;
    bench_url u;
    char why[128], path[256];
    assert_true(bench_url_parse("http://127.0.0.1:8000", &u, why, sizeof why));
    assert_string_equal(u.host, "127.0.0.1");
    assert_string_equal(u.port, "8000");
    assert_string_equal(u.prefix, "");
    assert_false(u.tls);
    assert_true(bench_url_parse("HTTPS://[::1]/v1/", &u, why, sizeof why));
    assert_string_equal(u.host, "::1");
    assert_string_equal(u.port, "443");
    assert_string_equal(u.authority, "[::1]");
    assert_string_equal(u.prefix, "/v1");
    assert_true(u.tls);
    assert_true(bench_url_path(&u, "/v1/chat/completions", path, sizeof path));
    assert_string_equal(path, "/v1/chat/completions"); /* /v1 once */
    assert_true(bench_url_parse("http://gw.example:81/team/a", &u, why, sizeof why));
    assert_true(bench_url_path(&u, "/v1/completions", path, sizeof path));
    assert_string_equal(path, "/team/a/v1/completions");
    assert_string_equal(u.authority, "gw.example:81");
    const char *bad[] = { "ftp://x", "http://", "http://:80", "http://h:0", "http://h:65536",
                          "http://h:8x", "http://[::1", "http://u@h", "http://h/?q=1",
                          "http://[::1]x", "http://h/a b" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (bench_url_parse(bad[i], &u, why, sizeof why))
            fail_msg("accepted %s", bad[i]);
}

static void test_buf(void **state)
{
    (void)state;
    bench_buf b = { 0 };
    buf_seconds(&b, INT64_C(2416195850883));
    buf_str(&b, " ");
    buf_seconds(&b, -1);
    buf_str(&b, " ");
    buf_seconds(&b, INT64_MAX);
    buf_str(&b, " ");
    buf_seconds(&b, INT64_MIN);
    assert_string_equal(b.p, "2416.195850883 -0.000000001 9223372036.854775807 "
                             "-9223372036.854775808");
    buf_reset(&b);
    /* quotes, controls, valid UTF-8 kept, invalid bytes as U+FFFD */
    const char s[] = "a\"b\\c\n\x01\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xff\xc3(\xed\xa0\x80";
    buf_json_string(&b, s, sizeof s - 1);
    assert_string_equal(b.p, "\"a\\\"b\\\\c\\u000a\\u0001\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"
                             "\xef\xbf\xbd\xef\xbf\xbd(\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    buf_reset(&b);
    for (int i = 0; i < 1000; i++)
        buf_printf(&b, "%0300d", i);
    assert_int_equal(b.len, 300000);
    assert_false(b.failed);
    buf_free(&b);
}

static void test_random(void **state)
{
    (void)state;
    bench_rng a, b;
    rng_seed(&a, 7, 3);
    rng_seed(&b, 7, 3);
    for (int i = 0; i < 100; i++)
        assert_true(rng_next(&a) == rng_next(&b));
    rng_seed(&b, 7, 4);
    assert_true(rng_next(&a) != rng_next(&b));
    int seen[5] = { 0 };
    for (int i = 0; i < 5000; i++) {
        uint32_t v = rng_range(&a, 10, 14);
        assert_true(v >= 10 && v <= 14);
        seen[v - 10]++;
    }
    for (int i = 0; i < 5; i++)
        assert_true(seen[i] > 800 && seen[i] < 1200);
    assert_true(rng_range(&a, 0, UINT32_MAX) <= UINT32_MAX);
    /* the gamma's mean is its shape, below and above 1 */
    for (double shape = 0.25; shape <= 4; shape *= 4) {
        double sum = 0;
        for (int i = 0; i < 200000; i++)
            sum += rng_gamma(&a, shape);
        assert_true(fabs(sum / 200000 / shape - 1) < 0.02);
    }
}

static void test_arrivals(void **state)
{
    (void)state;
    arrivals a;
    arrivals_init(&a, 0, ARRIVAL_CONSTANT, 0, 3);
    for (int64_t i = 0; i < 1000; i++) /* i/3 s, each rounded once */
        assert_true(arrivals_next(&a) == (int64_t)llround((double)i * 1e9 / 3));
    arrivals_init(&a, 0, ARRIVAL_POISSON, 0, INFINITY);
    for (int i = 0; i < 10; i++)
        assert_true(arrivals_next(&a) == 0);
    /* the mean gap is 1/rate; gamma's variance shrinks with the shape */
    int kinds[3] = { ARRIVAL_POISSON, ARRIVAL_GAMMA, ARRIVAL_GAMMA };
    double shapes[3] = { 0, 0.5, 8 }, var[3];
    for (int k = 0; k < 3; k++) {
        arrivals_init(&a, 1, kinds[k], shapes[k], 100);
        int64_t last = arrivals_next(&a);
        double sum = 0, sum2 = 0;
        int n = 100000;
        for (int i = 0; i < n; i++) {
            int64_t t = arrivals_next(&a);
            double gap = (double)(t - last) / 1e9;
            assert_true(gap >= 0);
            sum += gap;
            sum2 += gap * gap;
            last = t;
        }
        double mean = sum / n;
        var[k] = sum2 / n - mean * mean;
        assert_true(fabs(mean / 0.01 - 1) < 0.02);
    }
    assert_true(var[1] > var[0] * 1.5 && var[2] < var[0] / 4);
}

static void test_request(void **state)
{
    (void)state;
    bench_options o;
    char *argv[] = { "--base-url", "http://h:1/v1", "--rate", "1", "--input-len", "3",
                     "--output-len", "5:5", "--token-ids", "7:7", "--ignore-eos",
                     "--extra-body", "{\"max_tokens\": 9, \"temperature\": 0.5}",
                     "--header", "X-A:  b", "--api-key", "sk", "--count-tokens", "logprobs" };
    assert_true(bench_options_parse(sizeof argv / sizeof argv[0], argv, &o));
    workload w;
    assert_int_equal(workload_load(&w, &o), 0);
    w.model = "m";
    work_item it;
    workload_item(&w, 0, &it);
    assert_int_equal(it.input_len, 3);
    assert_int_equal(it.max_tokens, 5);
    bench_buf b = { 0 };
    workload_request(&w, 0, &it, "t-0", &b);
    const char *body = "{\"model\":\"m\",\"prompt\":[7,7,7],\"max_tokens\":9,\"ignore_eos\":true,"
                       "\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                       "\"logprobs\":1,\"temperature\":0.5}";
    char want[1024];
    snprintf(want, sizeof want,
             "POST /v1/completions HTTP/1.1\r\nHost: h:1\r\nUser-Agent: llmlat-bench/%s\r\n"
             "Accept: text/event-stream\r\nContent-Type: application/json\r\n"
             "X-Request-Id: t-0\r\nAuthorization: Bearer sk\r\nX-A: b\r\n"
             "Content-Length: %zu\r\n\r\n%s",
             llmlat_version_string(), strlen(body), body);
    assert_string_equal(b.p, want);
    assert_int_equal(b.len, strlen(want));
    buf_free(&b);
    workload_free(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_url),
        cmocka_unit_test(test_buf),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_arrivals),
        cmocka_unit_test(test_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
