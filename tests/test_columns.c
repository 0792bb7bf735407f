/* llmlat_agg_add_columns: many requests as arrays give the aggregator the
 * per-request calls would, in both modes and every convention; any fault
 * adds nothing and names the request. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llmlat.h"

#define N 200

typedef struct cols {
    int64_t start[N], end[N], input[N], output[N];
    uint8_t ok[N];
    uint64_t off[N + 1];
    int64_t t[N * 8];
    uint32_t k[N * 8];
} cols;

static uint64_t rng = 0x9e3779b97f4a7c15u;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Requests of 0-7 events, some failed, some with usage counts. */
static void make(cols *c)
{
    size_t e = 0;
    for (size_t i = 0; i < N; i++) {
        c->start[i] = (int64_t)(i * 1000000);
        c->off[i] = e;
        int64_t t = c->start[i] + (int64_t)(next_random() % 5000000);
        size_t n = next_random() % 8;
        for (size_t j = 0; j < n; j++, e++) {
            c->t[e] = t;
            c->k[e] = (uint32_t)(next_random() % 4);
            t += (int64_t)(next_random() % 3000000);
        }
        c->end[i] = t + (int64_t)(next_random() % 1000);
        c->ok[i] = next_random() % 10 != 0;
        c->input[i] = (int64_t)(next_random() % 1000);
        c->output[i] = next_random() % 3 == 0 ? -1 : (int64_t)(next_random() % 50);
    }
    c->off[N] = e;
}

/* The same requests, one by one. */
static void add_one_by_one(llmlat_agg *a, const cols *c)
{
    llmlat_request *r = llmlat_request_new();
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
        assert_int_equal(llmlat_request_start(r, c->start[i]), LLMLAT_OK);
        size_t n = (size_t)(c->off[i + 1] - c->off[i]);
        assert_int_equal(llmlat_request_events(r, c->t + c->off[i], c->k + c->off[i], n),
                         LLMLAT_OK);
        assert_int_equal(llmlat_request_set_input_tokens(r, (uint64_t)c->input[i]), LLMLAT_OK);
        if (c->output[i] >= 0)
            assert_int_equal(llmlat_request_set_output_tokens(r, (uint64_t)c->output[i]),
                             LLMLAT_OK);
        int32_t st = c->ok[i] ? llmlat_request_finish(r, c->end[i]) : llmlat_request_fail(r, c->end[i]);
        assert_int_equal(st, LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    }
    llmlat_request_free(r);
}

static void same_bytes(const llmlat_agg *a, const llmlat_agg *b)
{
    size_t la, lb;
    assert_int_equal(llmlat_agg_serialize(a, NULL, 0, &la), LLMLAT_ENOSPC);
    assert_int_equal(llmlat_agg_serialize(b, NULL, 0, &lb), LLMLAT_ENOSPC);
    assert_int_equal(la, lb);
    char *x = malloc(la), *y = malloc(lb);
    assert_int_equal(llmlat_agg_serialize(a, x, la, &la), LLMLAT_OK);
    assert_int_equal(llmlat_agg_serialize(b, y, lb, &lb), LLMLAT_OK);
    assert_memory_equal(x, y, la);
    free(x);
    free(y);
}

static void equals_one_by_one(void **state)
{
    (void)state;
    cols *c = malloc(sizeof *c);
    make(c);
    for (int32_t conv = 0; llmlat_convention_name(conv); conv++) {
        for (int32_t mode = 0; mode <= 1; mode++) {
            llmlat_agg *a = llmlat_agg_new(conv, mode), *b = llmlat_agg_new(conv, mode);
            assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.002), LLMLAT_OK);
            assert_int_equal(llmlat_agg_set_param(b, LLMLAT_PARAM_SLO_TTFT, 0.002), LLMLAT_OK);
            add_one_by_one(a, c);
            size_t bad = 7;
            assert_int_equal(llmlat_agg_add_columns(b, N, c->start, c->end, c->ok, c->off, c->t,
                                                    c->k, c->input, c->output, &bad),
                             LLMLAT_OK);
            assert_int_equal(bad, SIZE_MAX);
            same_bytes(a, b);
            llmlat_agg_free(a);
            llmlat_agg_free(b);
        }
    }
    free(c);
}

/* Optional arrays: no end (at the last event), all ok, no tokens. */
static void optional_columns(void **state)
{
    (void)state;
    int64_t start[2] = { 0, 100 }, t[3] = { 10, 20, 150 };
    uint32_t k[3] = { 1, 1, 2 };
    uint64_t off[3] = { 0, 2, 3 };
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_add_columns(a, 2, start, NULL, NULL, off, t, k, NULL, NULL, NULL),
                     LLMLAT_OK);
    uint64_t v;
    double e2e;
    assert_int_equal(llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &v), LLMLAT_OK);
    assert_int_equal(v, 2);
    assert_int_equal(llmlat_agg_counter(a, LLMLAT_COUNT_OUTPUT_TOKENS, &v), LLMLAT_OK);
    assert_int_equal(v, 4);
    assert_int_equal(llmlat_agg_stat(a, LLMLAT_E2E, LLMLAT_STAT_MAX, &e2e), LLMLAT_OK);
    assert_true(e2e == 50e-9);
    /* no events at all: offsets may be NULL */
    assert_int_equal(llmlat_agg_add_columns(a, 2, start, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                            NULL),
                     LLMLAT_OK);
    assert_int_equal(llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &v), LLMLAT_OK);
    assert_int_equal(v, 4);
    /* nothing to add */
    assert_int_equal(llmlat_agg_add_columns(a, 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                            NULL),
                     LLMLAT_OK);
    llmlat_agg_free(a);
}

/* A fault anywhere adds nothing: the aggregator's bytes are unchanged. */
static void all_or_nothing(void **state)
{
    (void)state;
    cols *c = malloc(sizeof *c);
    make(c);
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *before = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    size_t bad;
    /* an event before the previous one in the first request from 150 on
     * with two events */
    cols broken = *c;
    size_t i = 150;
    for (; i < N && broken.off[i + 1] - broken.off[i] < 2; i++)
        ;
    assert_true(i < N);
    broken.t[broken.off[i] + 1] = broken.t[broken.off[i]] - 1;
    assert_int_equal(llmlat_agg_add_columns(a, N, broken.start, broken.end, broken.ok, broken.off,
                                            broken.t, broken.k, broken.input, broken.output, &bad),
                     LLMLAT_EORDER);
    assert_int_equal(bad, i);
    same_bytes(a, before);
    /* an end before the last event */
    broken = *c;
    broken.end[i] = broken.t[broken.off[i + 1] - 1] - 1;
    assert_int_equal(llmlat_agg_add_columns(a, N, broken.start, broken.end, broken.ok, broken.off,
                                            broken.t, broken.k, broken.input, broken.output, &bad),
                     LLMLAT_EORDER);
    assert_int_equal(bad, i);
    /* offsets going back, a negative input count */
    broken = *c;
    assert_true(broken.off[100] > 0);
    broken.off[101] = broken.off[100] - 1;
    assert_int_equal(llmlat_agg_add_columns(a, N, broken.start, broken.end, broken.ok, broken.off,
                                            broken.t, broken.k, broken.input, broken.output, &bad),
                     LLMLAT_EINVAL);
    assert_int_equal(bad, 100);
    broken = *c;
    broken.input[33] = -1;
    assert_int_equal(llmlat_agg_add_columns(a, N, broken.start, broken.end, broken.ok, broken.off,
                                            broken.t, broken.k, broken.input, broken.output, &bad),
                     LLMLAT_EINVAL);
    assert_int_equal(bad, 33);
    /* a span past int64 */
    broken = *c;
    broken.start[5] = INT64_MIN;
    broken.end[5] = INT64_MAX;
    assert_int_equal(llmlat_agg_add_columns(a, N, broken.start, broken.end, broken.ok, broken.off,
                                            broken.t, broken.k, broken.input, broken.output, &bad),
                     LLMLAT_EOVERFLOW);
    assert_int_equal(bad, 5);
    same_bytes(a, before);
    /* NULL arrays that are needed */
    assert_int_equal(llmlat_agg_add_columns(NULL, N, c->start, NULL, NULL, NULL, NULL, NULL, NULL,
                                            NULL, &bad),
                     LLMLAT_EINVAL);
    assert_int_equal(bad, SIZE_MAX);
    assert_int_equal(llmlat_agg_add_columns(a, N, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                            &bad),
                     LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_add_columns(a, N, c->start, NULL, NULL, c->off, NULL, c->k, NULL,
                                            NULL, &bad),
                     LLMLAT_EINVAL);
    same_bytes(a, before);
    llmlat_agg_free(a);
    llmlat_agg_free(before);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(equals_one_by_one),
        cmocka_unit_test(optional_columns),
        cmocka_unit_test(all_or_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
