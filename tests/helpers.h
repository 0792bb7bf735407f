/* Shared by the unit tests: cmocka, time units, and building requests from
 * compact descriptions. */
#ifndef LLMLAT_TEST_HELPERS_H
#define LLMLAT_TEST_HELPERS_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llmlat.h"

/* The last convention id: loops over every convention end here. */
#define CONV_LAST LLMLAT_CONV_INFERENCE_PERF

#define US INT64_C(1000)
#define MS INT64_C(1000000)
#define SEC INT64_C(1000000000)

/* How a test request ends. */
enum { ENDS_NOT, ENDS_FINISHED, ENDS_FAILED, ENDS_CANCELLED };

typedef struct ev {
    int64_t t;
    uint32_t k;
} ev;

/* A request started at `start`, with events evs[0..n), ended as `how` at
 * `end`. Every call must succeed. */
static inline llmlat_request *make_request(int64_t start, const ev *evs, size_t n, int how,
                                           int64_t end)
{
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    assert_int_equal(llmlat_request_start(r, start), LLMLAT_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(llmlat_request_event(r, evs[i].t, evs[i].k), LLMLAT_OK);
    if (how == ENDS_FINISHED)
        assert_int_equal(llmlat_request_finish(r, end), LLMLAT_OK);
    else if (how == ENDS_FAILED)
        assert_int_equal(llmlat_request_fail(r, end), LLMLAT_OK);
    else if (how == ENDS_CANCELLED)
        assert_int_equal(llmlat_request_cancel(r, end), LLMLAT_OK);
    return r;
}

#define EVS(...) ((const ev[]){ __VA_ARGS__ }), (sizeof((const ev[]){ __VA_ARGS__ }) / sizeof(ev))

/* Adds a request built as make_request describes, then frees it. */
static inline void add_request(llmlat_agg *a, int64_t start, const ev *evs, size_t n, int how,
                               int64_t end, uint64_t input_tokens)
{
    llmlat_request *r = make_request(start, evs, n, how, end);
    assert_int_equal(llmlat_request_set_input_tokens(r, input_tokens), LLMLAT_OK);
    assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
    llmlat_request_free(r);
}

/* |got - want| <= tol, with both values printed on failure. */
#define assert_close(got, want, tol)                                                   \
    do {                                                                               \
        double got_ = (got), want_ = (want);                                           \
        if (!(fabs(got_ - want_) <= (tol)))                                            \
            fail_msg("%s = %.17g, want %.17g (tol %g)", #got, got_, want_, (double)(tol)); \
    } while (0)

/* Latencies are compared to 1 ps: far inside the contract's 1 ns. */
#define TOL_S 1e-12

static inline double value_of(const llmlat_request *r, int32_t conv, int32_t metric)
{
    double v;
    assert_int_equal(llmlat_request_value(r, conv, metric, &v), LLMLAT_OK);
    return v;
}

static inline void assert_value_undefined(const llmlat_request *r, int32_t conv, int32_t metric)
{
    double v = 0;
    assert_int_equal(llmlat_request_value(r, conv, metric, &v), LLMLAT_EUNDEFINED);
    assert_true(isnan(v));
}

static inline double stat_of(const llmlat_agg *a, int32_t metric, int32_t stat)
{
    double v;
    assert_int_equal(llmlat_agg_stat(a, metric, stat, &v), LLMLAT_OK);
    return v;
}

static inline double quantile_of(const llmlat_agg *a, int32_t metric, double q)
{
    double v;
    assert_int_equal(llmlat_agg_quantile(a, metric, q, &v), LLMLAT_OK);
    return v;
}

static inline double rate_of(const llmlat_agg *a, int32_t rate)
{
    double v;
    assert_int_equal(llmlat_agg_rate(a, rate, &v), LLMLAT_OK);
    return v;
}

static inline uint64_t counter_of(const llmlat_agg *a, int32_t counter)
{
    uint64_t v;
    assert_int_equal(llmlat_agg_counter(a, counter, &v), LLMLAT_OK);
    return v;
}

/* An allocator that counts calls and fails from the n-th on (fail_at < 0:
 * never), for "no allocation" and "ENOMEM leaves the object as it was". */
typedef struct counting_alloc {
    long calls;
    long fail_at;
} counting_alloc;

static inline void *counting_malloc(void *user, size_t size)
{
    counting_alloc *c = user;
    if (c->fail_at >= 0 && c->calls >= c->fail_at)
        return NULL;
    c->calls++;
    return malloc(size);
}

static inline void *counting_realloc(void *user, void *p, size_t size)
{
    counting_alloc *c = user;
    if (c->fail_at >= 0 && c->calls >= c->fail_at)
        return NULL;
    c->calls++;
    return realloc(p, size);
}

static inline void counting_free(void *user, void *p)
{
    (void)user;
    free(p);
}

static inline void use_counting_alloc(counting_alloc *c, long fail_at)
{
    c->calls = 0;
    c->fail_at = fail_at;
    assert_int_equal(llmlat_set_allocator(counting_malloc, counting_realloc, counting_free, c),
                     LLMLAT_OK);
}

static inline void use_default_alloc(void)
{
    assert_int_equal(llmlat_set_allocator(NULL, NULL, NULL, NULL), LLMLAT_OK);
}

#endif
