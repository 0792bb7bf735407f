/* llmlat_agg_serialize / llmlat_agg_deserialize: lossless round trips in
 * both modes, the buffer rules, and hostile bytes. The hostile cases are
 * built with a small encoder written from docs/format.md (not from
 * lib/serialize.c), so the test also pins the documented layout. */
#include "helpers.h"

#include <stdbool.h>

#include "util/crc32.h"

static uint64_t rng_state = 0x853c49e6748fea9bu;

static uint64_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* n random requests, the first starting at first * 25 ms. */
static void add_random_from(llmlat_agg *a, int first, int n)
{
    llmlat_request *r = llmlat_request_new();
    assert_non_null(r);
    for (int i = first; i < first + n; i++) {
        int64_t t = i * 25 * MS;
        assert_int_equal(llmlat_request_start(r, t), LLMLAT_OK);
        t += (int64_t)(rng() % (500 * MS));
        for (int j = (int)(rng() % 30); j > 0; j--) {
            uint32_t k = rng() % 9 == 0 ? 0 : 1 + (rng() % 7 == 0);
            assert_int_equal(llmlat_request_event(r, t, k), LLMLAT_OK);
            t += rng() % 6 == 0 ? 0 : (int64_t)(rng() % (70 * MS));
        }
        assert_int_equal(llmlat_request_set_input_tokens(r, rng() % 999), LLMLAT_OK);
        if (rng() % 9 == 0)
            assert_int_equal(llmlat_request_fail(r, t), LLMLAT_OK);
        else
            assert_int_equal(llmlat_request_finish(r, t + 1), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(a, r), LLMLAT_OK);
        assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
    }
    llmlat_request_free(r);
}

static void add_random(llmlat_agg *a, int n)
{
    add_random_from(a, 0, n);
}

static uint8_t *bytes_of(const llmlat_agg *a, size_t *len)
{
    assert_int_equal(llmlat_agg_serialize(a, NULL, 0, len), LLMLAT_ENOSPC);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    assert_int_equal(llmlat_agg_serialize(a, buf, *len, len), LLMLAT_OK);
    return buf;
}

static void same_double(double x, double y, int st)
{
    if (st == LLMLAT_OK)
        assert_memory_equal(&x, &y, sizeof x);
    else
        assert_true(isnan(x) && isnan(y));
}

/* Everything a caller can ask of x and y is the same. */
static void assert_same_answers(const llmlat_agg *x, const llmlat_agg *y)
{
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
        for (int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MEDIAN; s++) {
            double u = NAN, v = NAN;
            int32_t st = llmlat_agg_stat(x, m, s, &u);
            assert_int_equal(llmlat_agg_stat(y, m, s, &v), st);
            same_double(u, v, st);
        }
        for (int i = 0; i <= 20; i++) {
            double u = NAN, v = NAN;
            int32_t st = llmlat_agg_quantile(x, m, i / 20.0, &u);
            assert_int_equal(llmlat_agg_quantile(y, m, i / 20.0, &v), st);
            same_double(u, v, st);
        }
    }
    for (int32_t r = LLMLAT_RATE_REQUESTS; r <= LLMLAT_RATE_PEAK_OUTPUT_TOKENS; r++) {
        double u = NAN, v = NAN;
        int32_t st = llmlat_agg_rate(x, r, &u);
        assert_int_equal(llmlat_agg_rate(y, r, &v), st);
        same_double(u, v, st);
    }
    for (int32_t c = LLMLAT_COUNT_COMPLETED; c <= LLMLAT_COUNT_MEMORY_BYTES; c++) {
        uint64_t u = 1, v = 2;
        int32_t st = llmlat_agg_counter(x, c, &u);
        assert_int_equal(llmlat_agg_counter(y, c, &v), st);
        if (c != LLMLAT_COUNT_MEMORY_BYTES) /* exact mode's capacities differ */
            assert_true(u == v);
    }
    for (int32_t p = LLMLAT_PARAM_RELATIVE_ERROR; p <= LLMLAT_PARAM_SLO_E2E; p++) {
        double u, v;
        assert_int_equal(llmlat_agg_get_param(x, p, &u), LLMLAT_OK);
        assert_int_equal(llmlat_agg_get_param(y, p, &v), LLMLAT_OK);
        assert_true(u == v);
    }
    int32_t cx, cy, mx, my;
    assert_int_equal(llmlat_agg_get_convention(x, &cx), LLMLAT_OK);
    assert_int_equal(llmlat_agg_get_convention(y, &cy), LLMLAT_OK);
    assert_int_equal(llmlat_agg_get_mode(x, &mx), LLMLAT_OK);
    assert_int_equal(llmlat_agg_get_mode(y, &my), LLMLAT_OK);
    assert_true(cx == cy && mx == my);
}

/* Round trip in every convention and both modes, empty or not, with
 * settings: the copy answers everything the same and serializes to the
 * same bytes. */
static void round_trip(void **state)
{
    (void)state;
    const double q[] = { 0.25, 0.999 }, bounds[] = { 0.01, 0.1, 1 };
    for (int32_t conv = LLMLAT_CONV_DEFAULT; conv <= CONV_LAST; conv++)
        for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++)
            for (int n = 0; n <= 500; n += 500) {
                llmlat_agg *a = llmlat_agg_new(conv, mode);
                assert_non_null(a);
                assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.02),
                                 LLMLAT_OK);
                assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_SLO_TTFT, 0.3), LLMLAT_OK);
                assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_DURATION, 40), LLMLAT_OK);
                assert_int_equal(llmlat_agg_set_quantiles(a, q, 2), LLMLAT_OK);
                assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_E2E, bounds, 3), LLMLAT_OK);
                add_random(a, n);
                size_t len, len2;
                uint8_t *buf = bytes_of(a, &len);
                int32_t st = -99;
                llmlat_agg *b = llmlat_agg_deserialize(buf, len, &st);
                assert_int_equal(st, LLMLAT_OK);
                assert_non_null(b);
                assert_same_answers(a, b);
                uint8_t *buf2 = bytes_of(b, &len2);
                assert_int_equal(len, len2);
                assert_memory_equal(buf, buf2, len);
                /* the copy goes on like the original */
                uint64_t seed = rng_state;
                add_random(a, 50);
                rng_state = seed;
                add_random(b, 50);
                assert_same_answers(a, b);
                free(buf);
                free(buf2);
                llmlat_agg_free(a);
                llmlat_agg_free(b);
            }
}

/* Aggregators of many processes meet as bytes: shards serialized,
 * deserialized and merged are the aggregator of everything, bit for bit. */
static void shards_meet_as_bytes(void **state)
{
    (void)state;
    llmlat_agg *whole = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    llmlat_agg *total = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    uint64_t seed = rng_state;
    add_random(whole, 900);
    rng_state = seed;
    for (int host = 0; host < 3; host++) {
        llmlat_agg *shard = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
        add_random_from(shard, 300 * host, 300);
        size_t len;
        uint8_t *buf = bytes_of(shard, &len);
        llmlat_agg *copy = llmlat_agg_deserialize(buf, len, NULL);
        assert_non_null(copy);
        assert_int_equal(llmlat_agg_merge(total, copy), LLMLAT_OK);
        free(buf);
        llmlat_agg_free(copy);
        llmlat_agg_free(shard);
    }
    size_t lw, lt;
    uint8_t *bw = bytes_of(whole, &lw), *bt = bytes_of(total, &lt);
    assert_int_equal(lw, lt);
    assert_memory_equal(bw, bt, lw);
    free(bw);
    free(bt);
    llmlat_agg_free(whole);
    llmlat_agg_free(total);
}

/* cap too small: nothing written, *len the size needed, ENOSPC. */
static void buffer_rules(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_BOUNDED);
    add_random(a, 100);
    size_t need = 0, len = 0;
    assert_int_equal(llmlat_agg_serialize(a, NULL, 0, &need), LLMLAT_ENOSPC);
    uint8_t *buf = malloc(need + 16);
    memset(buf, 0xAA, need + 16);
    assert_int_equal(llmlat_agg_serialize(a, buf, need - 1, &len), LLMLAT_ENOSPC);
    assert_true(len == need);
    for (size_t i = 0; i < need + 16; i++)
        assert_true(buf[i] == 0xAA);
    assert_int_equal(llmlat_agg_serialize(a, buf, need + 16, &len), LLMLAT_OK);
    assert_true(len == need);
    assert_true(buf[need] == 0xAA);
    assert_int_equal(llmlat_agg_serialize(NULL, buf, need, &len), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_serialize(a, buf, need, NULL), LLMLAT_EINVAL);
    assert_int_equal(llmlat_agg_serialize(a, NULL, 5, &len), LLMLAT_EINVAL);
    int32_t st = 0;
    assert_null(llmlat_agg_deserialize(NULL, 5, &st));
    assert_int_equal(st, LLMLAT_EINVAL);
    assert_null(llmlat_agg_deserialize(NULL, 0, &st));
    assert_int_equal(st, LLMLAT_EFORMAT);
    assert_null(llmlat_agg_deserialize(buf, 0, NULL)); /* status may be NULL */
    free(buf);
    llmlat_agg_free(a);
}

static void expect_format_error(const uint8_t *buf, size_t len, const char *what)
{
    int32_t st = 0;
    llmlat_agg *a = llmlat_agg_deserialize(buf, len, &st);
    if (a || st != LLMLAT_EFORMAT)
        fail_msg("%s: status %d", what, st);
}

/* Every truncation, a trailing byte, and every flipped bit (the CRC) of
 * real aggregators in both modes. */
static void damaged_bytes(void **state)
{
    (void)state;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_SGLANG, mode);
        add_random(a, mode == LLMLAT_MODE_EXACT ? 5 : 60);
        size_t len;
        uint8_t *buf = bytes_of(a, &len);
        for (size_t n = 0; n < len; n++)
            expect_format_error(buf, n, "truncated");
        uint8_t *longer = malloc(len + 1);
        memcpy(longer, buf, len);
        longer[len] = 0;
        expect_format_error(longer, len + 1, "trailing byte");
        for (size_t i = 0; i < len; i++)
            for (int bit = 0; bit < 8; bit++) {
                buf[i] ^= (uint8_t)(1u << bit);
                expect_format_error(buf, len, "bit flip");
                buf[i] ^= (uint8_t)(1u << bit);
            }
        free(longer);
        free(buf);
        llmlat_agg_free(a);
    }
}

/* --------------------------------------------- an encoder after the docs */

typedef struct blob {
    uint8_t b[4096];
    size_t n;
} blob;

static void b_raw(blob *x, const void *p, size_t n)
{
    assert_true(x->n + n <= sizeof x->b);
    memcpy(x->b + x->n, p, n);
    x->n += n;
}

static void b_u64(blob *x, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        uint8_t c = (uint8_t)(v >> (8 * i));
        b_raw(x, &c, 1);
    }
}

static void b_u32(blob *x, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        uint8_t c = (uint8_t)(v >> (8 * i));
        b_raw(x, &c, 1);
    }
}

static void b_f64(blob *x, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    b_u64(x, u);
}

/* Fixes the size field (offset 16) and appends the CRC-32. */
static void b_seal(blob *x)
{
    uint64_t size = x->n + 4;
    for (int i = 0; i < 8; i++)
        x->b[16 + i] = (uint8_t)(size >> (8 * i));
    b_u32(x, crc32_of(x->b, x->n));
}

/* The knobs of the hand-made aggregator, each a way to break it. */
typedef struct recipe {
    const char *magic;
    uint32_t version, flags, conv, mode;
    double alpha;
    uint32_t n_quantiles;
    double quantile;
    uint32_t n_bounds; /* for TTFT's histogram: 0.1, 0.2, ... */
    uint64_t completed, tpot_undefined, good;
    int64_t all_lo, all_hi;
    /* TTFT's sketch: count, zeros, min, max, top, low, then its buckets */
    uint64_t count, zero;
    double min, max;
    int64_t top, low;
    const uint8_t *varints;
    size_t n_varint_bytes;
    uint64_t exact_n;    /* exact mode: TTFT's sample count, */
    double exact_value;  /* their value, */
    uint64_t n_events;   /* timeline events (count 1), */
    int64_t event_t;     /* at this time */
} recipe;

static const uint8_t ONE_BUCKET[] = { 0x01 };

/* Bounded, default convention: one success with TTFT 1 s (one sample in
 * bucket 36851 at alpha 1%: 1052 octaves of 35, then 31), no tokens, no TPOT. */
static recipe valid_bounded(void)
{
    return (recipe){ "LLMLATAG", 1, 0, 0, 1, 0.01, 4, 0.5, 0, 1, 1, 0, 0, 2000000000,
                     1, 0, 1.0, 1.0, 36851, 36851, ONE_BUCKET, 1, 0, 1.0, 0, 0 };
}

static void b_empty_sketch(blob *x)
{
    b_u64(x, 0);
    b_u64(x, 0);
    b_f64(x, INFINITY);
    b_f64(x, -INFINITY);
    for (int i = 0; i < 7; i++)
        b_u64(x, 0);
    b_u64(x, (uint64_t)-1); /* top: none */
}

/* A sketch of `count` samples all 0 (OUTPUT and INPUT tokens here). */
static void b_zero_sketch(blob *x, uint64_t count)
{
    b_u64(x, count);
    b_u64(x, count);
    b_f64(x, count ? 0.0 : INFINITY);
    b_f64(x, count ? 0.0 : -INFINITY);
    for (int i = 0; i < 7; i++)
        b_u64(x, 0);
    b_u64(x, (uint64_t)-1);
}

static void encode(blob *x, const recipe *r)
{
    x->n = 0;
    b_raw(x, r->magic, 8);
    b_u32(x, r->version);
    b_u32(x, r->flags);
    b_u64(x, 0); /* size, sealed later */
    b_u32(x, r->conv);
    b_u32(x, r->mode);
    b_f64(x, r->alpha);
    for (int i = 0; i < 4; i++)
        b_f64(x, 0.0); /* duration, SLOs */
    b_u32(x, r->n_quantiles);
    for (uint32_t i = 0; i < r->n_quantiles && i < 40; i++)
        b_f64(x, r->quantile);
    for (int m = LLMLAT_TTFT; m <= LLMLAT_TOOL_ITL; m++) {
        uint32_t nb = m == LLMLAT_TTFT ? r->n_bounds : 0;
        b_u32(x, nb);
        for (uint32_t i = 0; i < nb && i < 80; i++)
            b_f64(x, 0.1 * (i + 1));
    }
    b_u64(x, r->completed);
    b_u64(x, 0); /* failed */
    b_u64(x, r->tpot_undefined);
    b_u64(x, 0); /* input tokens */
    b_u64(x, 0); /* output tokens */
    b_u64(x, r->good);
    b_u64(x, (uint64_t)r->all_lo);
    b_u64(x, (uint64_t)r->all_hi);
    b_u64(x, (uint64_t)r->all_lo); /* valid span: the same */
    b_u64(x, (uint64_t)r->all_hi);
    for (int m = LLMLAT_TTFT; m <= LLMLAT_TOOL_ITL; m++) {
        bool per_success = m == LLMLAT_OUTPUT_TOKENS || m == LLMLAT_INPUT_TOKENS;
        if (r->mode == LLMLAT_MODE_EXACT) {
            if (m == LLMLAT_TTFT) {
                b_u64(x, r->exact_n);
                for (uint64_t i = 0; i < r->exact_n && i < 4; i++)
                    b_f64(x, r->exact_value);
            } else if (per_success) {
                b_u64(x, r->completed);
                for (uint64_t i = 0; i < r->completed && i < 4; i++) {
                    b_f64(x, 0.0);
                }
            } else {
                b_u64(x, 0);
            }
            continue;
        }
        if (m == LLMLAT_TTFT) {
            b_u64(x, r->count);
            b_u64(x, r->zero);
            b_f64(x, r->min);
            b_f64(x, r->max);
            b_u64(x, 0); /* s1: 1e9 ns = 1 s, times 2^64 */
            b_u64(x, 1000000000);
            b_u64(x, 0);
            b_u64(x, 0); /* s2: 1e18 times 2^64 */
            b_u64(x, 1000000000000000000u);
            b_u64(x, 0);
            b_u64(x, 0);
            b_u64(x, (uint64_t)r->top);
            if (r->top >= 0) {
                b_u64(x, (uint64_t)r->low);
                b_raw(x, r->varints, r->n_varint_bytes);
            }
        } else if (per_success) {
            b_zero_sketch(x, r->completed);
        } else {
            b_empty_sketch(x);
        }
    }
    if (r->mode == LLMLAT_MODE_EXACT) {
        b_u64(x, r->completed); /* timeline records */
        for (uint64_t i = 0; i < r->completed && i < 4; i++) {
            b_u64(x, 0);
            b_u64(x, 2000000000);
            b_f64(x, 1.0);
            b_f64(x, NAN);
            b_f64(x, 2.0);
        }
        b_u64(x, r->n_events); /* token events */
        for (uint64_t i = 0; i < r->n_events; i++) {
            b_u64(x, (uint64_t)r->event_t);
            b_u32(x, 1);
        }
    }
    b_seal(x);
}

static void expect_recipe_error(const recipe *r, const char *what)
{
    blob x;
    encode(&x, r);
    expect_format_error(x.b, x.n, what);
}

/* The hand-made aggregators deserialize; each broken one is EFORMAT, and
 * absurd counts are refused before any allocation they would size. */
static void hostile_but_sealed(void **state)
{
    (void)state;
    blob x;
    recipe ok = valid_bounded();
    encode(&x, &ok);
    int32_t st;
    llmlat_agg *a = llmlat_agg_deserialize(x.b, x.n, &st);
    assert_int_equal(st, LLMLAT_OK);
    assert_true(stat_of(a, LLMLAT_TTFT, LLMLAT_STAT_MEAN) == 1.0);
    assert_close(quantile_of(a, LLMLAT_TTFT, 0.5), 1.0, 0.01);
    llmlat_agg_free(a);
    recipe ex = ok;
    ex.mode = LLMLAT_MODE_EXACT;
    ex.exact_n = 1;
    ex.n_events = 1;
    ex.event_t = 5;
    encode(&x, &ex);
    a = llmlat_agg_deserialize(x.b, x.n, &st);
    assert_int_equal(st, LLMLAT_OK);
    assert_true(quantile_of(a, LLMLAT_TTFT, 0.5) == 1.0);
    llmlat_agg_free(a);

    static const uint8_t overlong[] = { 0x81, 0x00 }, too_big[] = { 0xff, 0xff, 0xff, 0xff,
                                                                      0xff, 0xff, 0xff, 0xff,
                                                                      0xff, 0x7f };
    static const uint8_t two[] = { 0x01, 0x01 }, hole_end[] = { 0x01, 0x00 };
    struct {
        const char *what;
        recipe r;
    } bad[] = {
        { "magic", ok }, { "version", ok }, { "flags", ok }, { "convention", ok },
        { "mode", ok }, { "alpha out of bounds", ok }, { "alpha NaN", ok },
        { "no quantiles", ok }, { "33 quantiles", ok }, { "quantile > 1", ok },
        { "65 bounds", ok }, { "good without SLO", ok }, { "undefined > completed", ok },
        { "span without requests", ok }, { "count != buckets", ok }, { "zero > count", ok },
        { "min > max", ok }, { "min 0 without zeros", ok }, { "top beyond doubles", ok },
        { "low above top", ok }, { "low below window", ok }, { "overlong varint", ok },
        { "varint > 64 bits", ok }, { "zero at the top", ok }, { "missing varint", ok },
        { "exact: 2^60 samples", ex }, { "exact: samples != completed", ex },
        { "exact: a sample of 2^100", ex }, { "exact: an event before any start", ex },
    };
    size_t i = 0;
    bad[i++].r.magic = "LLMLATAX";
    bad[i++].r.version = 2;
    bad[i++].r.flags = 2; /* bit 0 is LLMLAT_PARAM_SERVER_OUTPUT_TOKENS */
    bad[i++].r.conv = 5;
    bad[i++].r.mode = 2;
    bad[i++].r.alpha = 0.5;
    bad[i++].r.alpha = NAN;
    bad[i++].r.n_quantiles = 0;
    bad[i++].r.n_quantiles = 33;
    bad[i++].r.quantile = 1.5;
    bad[i++].r.n_bounds = 65;
    bad[i++].r.good = 1;
    bad[i++].r.tpot_undefined = 2;
    bad[i].r.completed = 0, bad[i++].r.tpot_undefined = 0;
    bad[i++].r.count = 2;
    bad[i++].r.zero = 2;
    bad[i++].r.min = 3.0;
    bad[i++].r.min = 0.0;
    bad[i].r.top = 2047 * 35, bad[i++].r.low = 2047 * 35;
    bad[i++].r.low = 36852;
    bad[i].r.low = 36851 - 1121, bad[i].r.varints = two, bad[i++].r.n_varint_bytes = 2;
    bad[i].r.varints = overlong, bad[i++].r.n_varint_bytes = 2;
    bad[i].r.varints = too_big, bad[i++].r.n_varint_bytes = sizeof too_big;
    bad[i].r.low = 36850, bad[i].r.varints = hole_end, bad[i++].r.n_varint_bytes = 2;
    bad[i++].r.n_varint_bytes = 0;
    bad[i++].r.exact_n = UINT64_C(1) << 60;
    bad[i++].r.exact_n = 2;
    bad[i++].r.exact_value = 0x1p100;
    bad[i].r.n_events = 1, bad[i++].r.event_t = -1;
    assert_int_equal(i, sizeof bad / sizeof bad[0]);
    counting_alloc c;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        use_counting_alloc(&c, -1);
        expect_recipe_error(&bad[i].r, bad[i].what);
        use_default_alloc();
    }
}

/* Allocation failing at each step of a deserialization: ENOMEM, no
 * aggregator. */
static void allocation_failures(void **state)
{
    (void)state;
    for (int32_t mode = LLMLAT_MODE_EXACT; mode <= LLMLAT_MODE_BOUNDED; mode++) {
        llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_AIPERF, mode);
        assert_int_equal(llmlat_agg_set_param(a, LLMLAT_PARAM_RELATIVE_ERROR, 0.05), LLMLAT_OK);
        add_random(a, 40);
        size_t len;
        uint8_t *buf = bytes_of(a, &len);
        counting_alloc c;
        use_counting_alloc(&c, -1);
        llmlat_agg *b = llmlat_agg_deserialize(buf, len, NULL);
        long needed = c.calls;
        use_default_alloc();
        assert_non_null(b);
        llmlat_agg_free(b);
        for (long fail_at = 0; fail_at < needed; fail_at++) {
            int32_t st = 0;
            use_counting_alloc(&c, fail_at);
            b = llmlat_agg_deserialize(buf, len, &st);
            use_default_alloc();
            assert_null(b);
            assert_int_equal(st, LLMLAT_ENOMEM);
        }
        free(buf);
        llmlat_agg_free(a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(shards_meet_as_bytes),
        cmocka_unit_test(buffer_rules),
        cmocka_unit_test(damaged_bytes),
        cmocka_unit_test(hostile_but_sealed),
        cmocka_unit_test(allocation_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
