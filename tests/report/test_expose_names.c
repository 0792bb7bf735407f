/* llmlat_expose_names and llmlat_expose_write_names: the naming schemes
 * of the systems whose dashboards read an exposition (vLLM, SGLang,
 * OpenTelemetry GenAI). Each scheme's families, exactly (names, types,
 * units, the llmlat metric each is given, the system's default classic
 * bounds); the labels renamed and the clashes refused; the buckets set
 * with llmlat_agg_set_buckets winning; the protobuf saying what the text
 * says, with native buckets; the llmlat scheme being llmlat_expose; and a
 * metric the data lack having no series in any scheme (nor buckets). */
#include "report/expose_check.h"

typedef struct sink {
    char *p;
    size_t len;
    int calls;
} sink;

static int32_t sink_write(void *user, const void *bytes, size_t n)
{
    sink *s = user;
    s->calls++;
    s->p = realloc(s->p, s->len + n + 1);
    assert_non_null(s->p);
    memcpy(s->p + s->len, bytes, n);
    s->len += n;
    s->p[s->len] = '\0';
    return LLMLAT_OK;
}

/* The exposition as a NUL-terminated string, through both calls, which
 * must agree. */
static char *expose(const llmlat_agg *const *aggs, size_t n, int32_t format, int32_t names,
                    size_t *len)
{
    size_t need = 0;
    int32_t st = llmlat_expose_names(aggs, n, format, names, NULL, 0, &need);
    assert_true(st == LLMLAT_ENOSPC || (st == LLMLAT_OK && need == 0));
    char *buf = malloc(need + 1);
    assert_non_null(buf);
    assert_int_equal(llmlat_expose_names(aggs, n, format, names, buf, need, len), LLMLAT_OK);
    assert_int_equal(*len, need);
    buf[need] = '\0';
    sink s = { 0 };
    assert_int_equal(llmlat_expose_write_names(aggs, n, format, names, sink_write, &s),
                     LLMLAT_OK);
    assert_int_equal(s.len, need);
    if (need)
        assert_memory_equal(s.p, buf, need);
    free(s.p);
    return buf;
}

/* Requests with known values (expected_at_most counts them): TTFT
 * 53 + 10 i ms, then chunks of 2 and 1 tokens at 303 + 7 i and 903 ms,
 * the end at 1203 ms (E2E ends at the last token), a prompt of 100 i + 7
 * tokens; one in five failed. No time sample is on a bound of any
 * scheme. */
static void fill(llmlat_agg *a, int count)
{
    for (int i = 0; i < count; i++) {
        int64_t t = i * SEC;
        add_request(a, t,
                    EVS({ t + (53 + 10 * i) * MS, 1 }, { t + (303 + 7 * i) * MS, 2 },
                        { t + 903 * MS, 1 }),
                    i % 5 == 4 ? ENDS_FAILED : ENDS_FINISHED, t + 1203 * MS,
                    (uint64_t)(100 * i + 7));
    }
}

/* The weight of fill's samples of metric at or below le. */
static uint64_t expected_at_most(int count, int32_t metric, double le)
{
    uint64_t n = 0;
    for (int i = 0; i < count; i++) {
        if (i % 5 == 4)
            continue;
        double ms[3], v[3];
        uint64_t w[3] = { 1, 1, 1 };
        size_t k = 0;
        switch (metric) {
        case LLMLAT_TTFT: ms[k++] = 53 + 10 * i; break;
        case LLMLAT_ICL:
            ms[k++] = 250 - 3 * i;
            ms[k++] = 600 - 7 * i;
            break;
        case LLMLAT_ITL: /* a 2-token chunk: 2 samples of half its gap */
            ms[k] = (250 - 3 * i) / 2.0;
            w[k++] = 2;
            ms[k++] = 600 - 7 * i;
            break;
        case LLMLAT_TPOT: ms[k++] = (850 - 10 * i) / 3.0; break;
        case LLMLAT_E2E: ms[k++] = 903; break; /* to the last token */
        case LLMLAT_INPUT_TOKENS: v[k++] = 100 * i + 7; break;
        case LLMLAT_OUTPUT_TOKENS: v[k++] = 4; break;
        default: fail_msg("metric %d", metric);
        }
        for (size_t j = 0; j < k; j++) {
            double x = metric == LLMLAT_INPUT_TOKENS || metric == LLMLAT_OUTPUT_TOKENS
                           ? v[j]
                           : ms[j] / 1000.0;
            if (x <= le)
                n += w[j];
        }
    }
    return n;
}

/* Two aggregators: bounded {model="llama", route="/v1/chat",
 * operation="chat", provider="openai"} and exact {model="mistral"}. */
typedef struct pair {
    llmlat_agg *a[2];
} pair;

static void pair_make(pair *p)
{
    p->a[0] = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    p->a[1] = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_set_label(p->a[0], "model", "llama"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(p->a[0], "route", "/v1/chat"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(p->a[0], "operation", "chat"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(p->a[0], "provider", "openai"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(p->a[1], "model", "mistral"), LLMLAT_OK);
    fill(p->a[0], 40);
    fill(p->a[1], 25);
}

static void pair_free(pair *p)
{
    llmlat_agg_free(p->a[0]);
    llmlat_agg_free(p->a[1]);
}

#define AGGS(p) ((const llmlat_agg *const *)(p)->a)

/* ------------------------------------------------- what each scheme is */

/* The systems' default bounds, as their code has them. */
static const double VLLM_TTFT[] = { 0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,
                                    0.25,  0.5,   0.75, 1.0,  2.5,  5.0,  7.5,  10.0,
                                    20.0,  40.0,  80.0, 160.0, 640.0, 2560.0 };
static const double VLLM_PER_TOKEN[] = { 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,
                                         0.3,  0.4,   0.5,  0.75,  1.0, 2.5,  5.0,
                                         7.5,  10.0,  20.0, 40.0,  80.0 };
static const double VLLM_E2E[] = { 0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,
                                   5.0,  10.0, 15.0, 20.0, 30.0,  40.0,  50.0,
                                   60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0 };
/* build_1_2_5_buckets, up to 10^7 */
static const double VLLM_TOKENS[] = { 1,   2,   5,   10,  20,  50,  100, 200, 500, 1e3, 2e3,
                                      5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7 };
static const double SGLANG_TTFT[] = { 0.1, 0.2, 0.4, 0.6, 0.8, 1,  2,  4,   6,
                                      8,   10,  20,  40,  60,  80, 100, 200, 400 };
static const double SGLANG_ITL[] = { 0.002, 0.004, 0.006, 0.008, 0.010, 0.015, 0.020, 0.025,
                                     0.030, 0.035, 0.040, 0.060, 0.080, 0.100, 0.200, 0.400,
                                     0.600, 0.800, 1.000, 2.000, 4.000, 6.000, 8.000 };
static const double SGLANG_E2E[] = { 0.1, 0.2, 0.4, 0.6, 0.8, 1,   2,   4,    6,    8,    10,
                                     20,  40,  60,  80,  100, 200, 400, 600, 1200, 1800, 2400 };
static const double SGLANG_TOKENS[] = { 100,   300,   500,   700,    1000,   1500,
                                        2000,  3000,  4000,  5000,   6000,   7000,
                                        8000,  9000,  10000, 12000,  15000,  20000,
                                        22000, 25000, 30000, 35000,  40000,  66000,
                                        99000, 132000, 300000, 600000, 900000, 1100000 };
/* semantic-conventions v1.41.0, docs/gen-ai/gen-ai-metrics.md */
static const double OTEL_TTFT[] = { 0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,
                                    0.25,  0.5,   0.75, 1.0,  2.5,  5.0,  7.5,  10.0 };
static const double OTEL_TPOT[] = { 0.01, 0.025, 0.05, 0.075, 0.1,  0.15, 0.2,
                                    0.3,  0.4,   0.5,  0.75,  1.0,  2.5 };
static const double OTEL_DURATION[] = { 0.01, 0.02, 0.04, 0.08,  0.16,  0.32,  0.64,
                                        1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92 };
static const double OTEL_TOKENS[] = { 1,     4,      16,      64,      256,      1024,    4096,
                                      16384, 65536, 262144, 1048576, 4194304, 16777216,
                                      67108864 };

#define N(x) (sizeof(x) / sizeof((x)[0]))

/* One family a scheme writes: its name, type, OpenMetrics unit (NULL:
 * none), the llmlat counter or metric it carries, its bounds. */
typedef struct want_family {
    const char *name;
    const char *type;
    const char *unit;
    bool counter;
    int32_t id;
    const double *bounds;
    size_t n_bounds;
    const char *own_label; /* e.g. gen_ai_token_type="input" */
} want_family;

#define COUNTER(name, id) { name, "counter", NULL, true, id, NULL, 0, NULL }
#define HIST(name, unit, id, b) { name, "histogram", unit, false, id, b, N(b), NULL }

static const want_family VLLM[] = {
    COUNTER("vllm:prompt_tokens_total", LLMLAT_COUNT_INPUT_TOKENS),
    COUNTER("vllm:generation_tokens_total", LLMLAT_COUNT_OUTPUT_TOKENS),
    COUNTER("vllm:request_success_total", LLMLAT_COUNT_COMPLETED),
    HIST("vllm:request_prompt_tokens", "tokens", LLMLAT_INPUT_TOKENS, VLLM_TOKENS),
    HIST("vllm:request_generation_tokens", "tokens", LLMLAT_OUTPUT_TOKENS, VLLM_TOKENS),
    HIST("vllm:time_to_first_token_seconds", "seconds", LLMLAT_TTFT, VLLM_TTFT),
    HIST("vllm:inter_token_latency_seconds", "seconds", LLMLAT_ICL, VLLM_PER_TOKEN),
    HIST("vllm:time_per_output_token_seconds", "seconds", LLMLAT_ICL, VLLM_PER_TOKEN),
    HIST("vllm:request_time_per_output_token_seconds", "seconds", LLMLAT_TPOT, VLLM_PER_TOKEN),
    HIST("vllm:e2e_request_latency_seconds", "seconds", LLMLAT_E2E, VLLM_E2E),
};

static const want_family SGLANG[] = {
    COUNTER("sglang:prompt_tokens_total", LLMLAT_COUNT_INPUT_TOKENS),
    COUNTER("sglang:generation_tokens_total", LLMLAT_COUNT_OUTPUT_TOKENS),
    COUNTER("sglang:num_requests_total", LLMLAT_COUNT_COMPLETED),
    HIST("sglang:prompt_tokens_histogram", NULL, LLMLAT_INPUT_TOKENS, SGLANG_TOKENS),
    HIST("sglang:generation_tokens_histogram", NULL, LLMLAT_OUTPUT_TOKENS, SGLANG_TOKENS),
    HIST("sglang:time_to_first_token_seconds", "seconds", LLMLAT_TTFT, SGLANG_TTFT),
    HIST("sglang:inter_token_latency_seconds", "seconds", LLMLAT_ITL, SGLANG_ITL),
    HIST("sglang:e2e_request_latency_seconds", "seconds", LLMLAT_E2E, SGLANG_E2E),
};

static const want_family OTEL[] = {
    { "gen_ai_client_token_usage", "histogram", NULL, false, LLMLAT_INPUT_TOKENS, OTEL_TOKENS,
      N(OTEL_TOKENS), "gen_ai_token_type=\"input\"" },
    { "gen_ai_client_token_usage", "histogram", NULL, false, LLMLAT_OUTPUT_TOKENS, OTEL_TOKENS,
      N(OTEL_TOKENS), "gen_ai_token_type=\"output\"" },
    HIST("gen_ai_server_request_duration_seconds", "seconds", LLMLAT_E2E, OTEL_DURATION),
    HIST("gen_ai_server_time_per_output_token_seconds", "seconds", LLMLAT_TPOT, OTEL_TPOT),
    HIST("gen_ai_server_time_to_first_token_seconds", "seconds", LLMLAT_TTFT, OTEL_TTFT),
};

typedef struct want_scheme {
    int32_t id;
    const char *name;
    const want_family *f;
    size_t n;
} want_scheme;

static const want_scheme SCHEMES[] = {
    { LLMLAT_NAMES_VLLM, "vllm", VLLM, N(VLLM) },
    { LLMLAT_NAMES_SGLANG, "sglang", SGLANG, N(SGLANG) },
    { LLMLAT_NAMES_OTEL, "otel", OTEL, N(OTEL) },
};

/* The labels each aggregator of the pair has in a scheme, as text. */
static const char *pair_labels(int32_t names, int i)
{
    if (names == LLMLAT_NAMES_OTEL)
        return i == 0 ? "gen_ai_request_model=\"llama\",gen_ai_operation_name=\"chat\","
                        "gen_ai_provider_name=\"openai\",route=\"/v1/chat\""
                      : "gen_ai_request_model=\"mistral\"";
    return i == 0 ? "model_name=\"llama\",operation=\"chat\",provider=\"openai\","
                    "route=\"/v1/chat\""
                  : "model_name=\"mistral\"";
}

static void series_key(char *out, size_t cap, const char *name, const char *suffix,
                       const char *labels, const char *own, const char *extra)
{
    snprintf(out, cap, "%s%s{%s%s%s%s%s}", name, suffix, labels, own ? "," : "", own ? own : "",
             extra ? "," : "", extra ? extra : "");
}

/* Each scheme writes exactly its families, with the values of the llmlat
 * metric or counter of the same meaning, its system's bounds, the
 * aggregators' labels under its names. */
static void families_of_each_scheme(void **state)
{
    (void)state;
    pair p;
    pair_make(&p);
    for (size_t s = 0; s < N(SCHEMES); s++) {
        const want_scheme *w = &SCHEMES[s];
        size_t len;
        char *text = expose(AGGS(&p), 2, LLMLAT_FORMAT_PROMETHEUS, w->id, &len);
        char *om = expose(AGGS(&p), 2, LLMLAT_FORMAT_OPENMETRICS, w->id, &len);
        text_expo x;
        assert_true(text_parse(text, strlen(text), &x));
        /* its families and none other: one # TYPE per family name */
        size_t families = 0;
        for (size_t i = 0; i < w->n; i++) {
            if (i > 0 && strcmp(w->f[i].name, w->f[i - 1].name) == 0)
                continue;
            families++;
            char line[256];
            snprintf(line, sizeof line, "# TYPE %s %s\n", w->f[i].name, w->f[i].type);
            assert_int_equal(occurrences(text, line), 1);
            /* OpenMetrics: a counter's family without _total, its unit */
            char om_name[128];
            snprintf(om_name, sizeof om_name, "%.*s", (int)(strlen(w->f[i].name) -
                     (w->f[i].counter ? strlen("_total") : 0)), w->f[i].name);
            snprintf(line, sizeof line, "# TYPE %s %s\n", om_name, w->f[i].type);
            assert_int_equal(occurrences(om, line), 1);
            snprintf(line, sizeof line, "# UNIT %s %s\n", om_name, w->f[i].unit ? w->f[i].unit : "");
            assert_int_equal(occurrences(om, line), w->f[i].unit ? 1 : 0);
        }
        assert_int_equal(x.n_type, families);
        assert_null(strstr(text, "llmlat_")); /* no llmlat name in a system's scheme */
        assert_null(strstr(text, "quantile="));
        for (size_t i = 0; i < w->n; i++) {
            const want_family *f = &w->f[i];
            for (int j = 0; j < 2; j++) {
                const llmlat_agg *a = p.a[j];
                const char *labels = pair_labels(w->id, j);
                char key[512];
                if (f->counter) {
                    uint64_t c;
                    assert_int_equal(llmlat_agg_counter(a, f->id, &c), LLMLAT_OK);
                    series_key(key, sizeof key, f->name, "", labels, NULL, NULL);
                    assert_true(text_value(&x, key) == (double)c);
                    continue;
                }
                double count, sum;
                assert_int_equal(llmlat_agg_stat(a, f->id, LLMLAT_STAT_COUNT, &count), LLMLAT_OK);
                assert_int_equal(llmlat_agg_stat(a, f->id, LLMLAT_STAT_SUM, &sum), LLMLAT_OK);
                assert_true(count > 0);
                series_key(key, sizeof key, f->name, "_count", labels, f->own_label, NULL);
                assert_true(text_value(&x, key) == count);
                series_key(key, sizeof key, f->name, "_sum", labels, f->own_label, NULL);
                assert_true(text_value(&x, key) == sum);
                /* the bounds, exactly, and nothing but them and +Inf */
                char prefix[512];
                series_key(prefix, sizeof prefix, f->name, "_bucket", labels, f->own_label,
                           "le=\"");
                prefix[strlen(prefix) - 1] = '\0';
                size_t buckets = 0;
                for (size_t k = 0; k < x.n; k++)
                    buckets += strncmp(x.s[k].series, prefix, strlen(prefix)) == 0;
                assert_int_equal(buckets, f->n_bounds + 1);
                assert_true(text_bucket(&x, prefix, INFINITY) == count);
                double prev = 0;
                for (size_t b = 0; b < f->n_bounds; b++) {
                    double v = text_bucket(&x, prefix, f->bounds[b]);
                    assert_true(v >= prev && v <= count);
                    prev = v;
                    if (j == 1) /* exact mode: the samples at or below the bound */
                        assert_true(v == (double)expected_at_most(25, f->id, f->bounds[b]));
                }
            }
        }
        text_free(&x);
        free(text);
        free(om);
    }
    pair_free(&p);
}

/* LLMLAT_NAMES_LLMLAT is llmlat_expose, byte for byte; an unknown scheme
 * is refused with nothing written. */
static void llmlat_scheme_and_arguments(void **state)
{
    (void)state;
    pair p;
    pair_make(&p);
    for (int32_t f = LLMLAT_FORMAT_PROMETHEUS; f <= LLMLAT_FORMAT_PROMETHEUS_PROTOBUF; f++) {
        size_t n1, n2;
        char *named = expose(AGGS(&p), 2, f, LLMLAT_NAMES_LLMLAT, &n1);
        assert_int_equal(llmlat_expose(AGGS(&p), 2, f, NULL, 0, &n2), LLMLAT_ENOSPC);
        assert_int_equal(n1, n2);
        char *plain = malloc(n2);
        assert_int_equal(llmlat_expose(AGGS(&p), 2, f, plain, n2, &n2), LLMLAT_OK);
        assert_memory_equal(named, plain, n1);
        free(named);
        free(plain);
        for (int32_t names = -1; names <= 4; names += 5) {
            size_t len = 0;
            assert_int_equal(llmlat_expose_names(AGGS(&p), 2, f, names, NULL, 0, &len),
                             LLMLAT_EINVAL);
            sink s = { 0 };
            assert_int_equal(llmlat_expose_write_names(AGGS(&p), 2, f, names, sink_write, &s),
                             LLMLAT_EINVAL);
            assert_int_equal(s.calls, 0);
        }
        /* the other arguments as llmlat_expose checks them */
        size_t len;
        assert_int_equal(llmlat_expose_names(AGGS(&p), 2, f, LLMLAT_NAMES_VLLM, NULL, 0, NULL),
                         LLMLAT_EINVAL);
        assert_int_equal(llmlat_expose_names(NULL, 1, f, LLMLAT_NAMES_VLLM, NULL, 0, &len),
                         LLMLAT_EINVAL);
        assert_int_equal(llmlat_expose_write_names(AGGS(&p), 2, f, LLMLAT_NAMES_OTEL, NULL, NULL),
                         LLMLAT_EINVAL);
        free(expose(NULL, 0, f, LLMLAT_NAMES_OTEL, &len));
    }
    size_t len;
    assert_int_equal(llmlat_expose_names(AGGS(&p), 2, LLMLAT_FORMAT_JSON, LLMLAT_NAMES_VLLM, NULL,
                                         0, &len),
                     LLMLAT_EINVAL);
    assert_string_equal(llmlat_names_name(LLMLAT_NAMES_LLMLAT), "llmlat");
    assert_string_equal(llmlat_names_name(LLMLAT_NAMES_VLLM), "vllm");
    assert_string_equal(llmlat_names_name(LLMLAT_NAMES_SGLANG), "sglang");
    assert_string_equal(llmlat_names_name(LLMLAT_NAMES_OTEL), "otel");
    assert_null(llmlat_names_name(4));
    assert_null(llmlat_names_name(-1));
    pair_free(&p);
}

/* ---------------------------------------------------------------- labels */

static void refused(const llmlat_agg *const *aggs, size_t n, int32_t names)
{
    for (int32_t f = LLMLAT_FORMAT_PROMETHEUS; f <= LLMLAT_FORMAT_PROMETHEUS_PROTOBUF; f++) {
        size_t len = 0;
        assert_int_equal(llmlat_expose_names(aggs, n, f, names, NULL, 0, &len), LLMLAT_EINVAL);
        sink s = { 0 };
        assert_int_equal(llmlat_expose_write_names(aggs, n, f, names, sink_write, &s),
                         LLMLAT_EINVAL);
        assert_int_equal(s.calls, 0);
    }
}

static void accepted(const llmlat_agg *const *aggs, size_t n, int32_t names)
{
    size_t len;
    free(expose(aggs, n, LLMLAT_FORMAT_PROMETHEUS, names, &len));
}

/* A rename that makes a label twice, takes a label the scheme writes, or
 * makes two aggregators' label sets the same is refused, in that scheme
 * only. */
static void label_clashes_refused(void **state)
{
    (void)state;
    llmlat_agg *both = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_label(both, "model", "x"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(both, "model_name", "y"), LLMLAT_OK);
    const llmlat_agg *one = both;
    refused(&one, 1, LLMLAT_NAMES_VLLM);
    refused(&one, 1, LLMLAT_NAMES_SGLANG);
    accepted(&one, 1, LLMLAT_NAMES_LLMLAT);
    accepted(&one, 1, LLMLAT_NAMES_OTEL);

    llmlat_agg *typed = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_label(typed, "gen_ai_token_type", "input"), LLMLAT_OK);
    one = typed;
    refused(&one, 1, LLMLAT_NAMES_OTEL);
    accepted(&one, 1, LLMLAT_NAMES_VLLM);
    llmlat_agg *op = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    assert_int_equal(llmlat_agg_set_label(op, "operation", "chat"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(op, "gen_ai_operation_name", "chat"), LLMLAT_OK);
    one = op;
    refused(&one, 1, LLMLAT_NAMES_OTEL);
    accepted(&one, 1, LLMLAT_NAMES_SGLANG);

    /* {model="x"} and {model_name="x"} are one label set under vLLM's names */
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    llmlat_agg *b = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_set_label(a, "model", "x"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(b, "model_name", "x"), LLMLAT_OK);
    const llmlat_agg *two[2] = { a, b };
    refused(two, 2, LLMLAT_NAMES_VLLM);
    refused(two, 2, LLMLAT_NAMES_SGLANG);
    accepted(two, 2, LLMLAT_NAMES_LLMLAT);
    accepted(two, 2, LLMLAT_NAMES_OTEL);
    /* the same pointer twice: the same labels in every scheme */
    const llmlat_agg *twice[2] = { a, a };
    for (int32_t names = LLMLAT_NAMES_LLMLAT; names <= LLMLAT_NAMES_OTEL; names++)
        refused(twice, 2, names);
    llmlat_agg_free(both);
    llmlat_agg_free(typed);
    llmlat_agg_free(op);
    llmlat_agg_free(a);
    llmlat_agg_free(b);
}

/* The protobuf says what the text says; its labels, renamed, are in name
 * order; its histograms carry the native buckets of llmlat_agg_buckets
 * beside the system's classic ones. */
static void protobuf_in_each_scheme(void **state)
{
    (void)state;
    pair p;
    pair_make(&p);
    for (size_t s = 0; s < N(SCHEMES); s++) {
        const want_scheme *w = &SCHEMES[s];
        size_t n_pb, n_text;
        char *pb = expose(AGGS(&p), 2, LLMLAT_FORMAT_PROMETHEUS_PROTOBUF, w->id, &n_pb);
        char *text = expose(AGGS(&p), 2, LLMLAT_FORMAT_PROMETHEUS, w->id, &n_text);
        pbd_expo x;
        text_expo tx;
        assert_true(pbd_parse(pb, n_pb, &x));
        assert_true(text_parse(text, n_text, &tx));
        assert_int_equal(x.n, tx.n_type);
        for (size_t i = 0; i < x.n; i++) {
            const pbd_family *f = &x.f[i];
            const want_family *wf = NULL;
            for (size_t k = 0; k < w->n && !wf; k++)
                if (strcmp(w->f[k].name, f->name) == 0)
                    wf = &w->f[k];
            assert_non_null(wf);
            assert_int_equal(f->type, wf->counter ? PBD_COUNTER : PBD_HISTOGRAM);
            /* a series per aggregator and per own label */
            size_t entries = 0;
            for (size_t k = 0; k < w->n; k++)
                entries += strcmp(w->f[k].name, f->name) == 0;
            assert_int_equal(f->n_metrics, 2 * entries);
            for (size_t j = 0; j < f->n_metrics; j++) {
                const pbd_metric *m = f->metrics[j];
                assert_true(m->labels_sorted);
                /* which aggregator, which entry: by the labels */
                const llmlat_agg *owner = strstr(m->key, "llama") ? p.a[0] : p.a[1];
                if (wf->counter) {
                    uint64_t c;
                    assert_int_equal(llmlat_agg_counter(owner, wf->id, &c), LLMLAT_OK);
                    assert_true(m->value == (double)c);
                    continue;
                }
                int32_t metric = wf->id;
                if (strstr(m->key, "gen_ai_token_type=\"output\""))
                    metric = LLMLAT_OUTPUT_TOKENS;
                check_native(m, owner, metric);
                /* the classic bounds: the system's */
                const double *bounds = wf->bounds;
                size_t n_bounds = wf->n_bounds;
                assert_int_equal(m->n_b, n_bounds);
                for (size_t b = 0; b < n_bounds; b++)
                    assert_true(m->le[b] == bounds[b]);
            }
        }
        /* the labels, renamed, sorted: OTel's gen_ai_* before route */
        if (w->id == LLMLAT_NAMES_OTEL)
            assert_non_null(pbd_find_metric(
                &x, "gen_ai_client_token_usage{gen_ai_operation_name=\"chat\","
                    "gen_ai_provider_name=\"openai\",gen_ai_request_model=\"llama\","
                    "gen_ai_token_type=\"output\",route=\"/v1/chat\"}"));
        else
            assert_non_null(pbd_find_metric(
                &x, w->id == LLMLAT_NAMES_VLLM
                        ? "vllm:request_success_total{model_name=\"llama\",operation=\"chat\","
                          "provider=\"openai\",route=\"/v1/chat\"}"
                        : "sglang:num_requests_total{model_name=\"mistral\"}"));
        pbd_free(&x);
        text_free(&tx);
        free(pb);
        free(text);
    }
    pair_free(&p);
}

/* Buckets set with llmlat_agg_set_buckets are written in every scheme;
 * left at their default, each scheme writes its system's. */
static void set_buckets_win_in_every_scheme(void **state)
{
    (void)state;
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_set_label(a, "model", "m"), LLMLAT_OK);
    fill(a, 10);
    static const double mine[] = { 0.05, 0.123, 0.5 };
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, mine, 3), LLMLAT_OK);
    const llmlat_agg *one = a;
    static const char *const TTFT[] = {
        [LLMLAT_NAMES_LLMLAT] = "llmlat_ttft_hist_seconds_bucket{model=\"m\",le=\"",
        [LLMLAT_NAMES_VLLM] = "vllm:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"",
        [LLMLAT_NAMES_SGLANG] = "sglang:time_to_first_token_seconds_bucket{model_name=\"m\",le=\"",
        [LLMLAT_NAMES_OTEL] =
            "gen_ai_server_time_to_first_token_seconds_bucket{gen_ai_request_model=\"m\",le=\"",
    };
    static const size_t DEFAULTS[] = { N(VLLM_TTFT), N(VLLM_TTFT), N(SGLANG_TTFT), N(OTEL_TTFT) };
    for (int32_t names = LLMLAT_NAMES_LLMLAT; names <= LLMLAT_NAMES_OTEL; names++) {
        size_t len;
        char *text = expose(&one, 1, LLMLAT_FORMAT_PROMETHEUS, names, &len);
        assert_int_equal(occurrences(text, TTFT[names]), 4);
        char line[256];
        snprintf(line, sizeof line, "%s0.123\"} ", TTFT[names]);
        assert_non_null(strstr(text, line));
        free(text);
    }
    assert_int_equal(llmlat_agg_set_buckets(a, LLMLAT_TTFT, NULL, 0), LLMLAT_OK);
    for (int32_t names = LLMLAT_NAMES_LLMLAT; names <= LLMLAT_NAMES_OTEL; names++) {
        size_t len;
        char *text = expose(&one, 1, LLMLAT_FORMAT_PROMETHEUS, names, &len);
        assert_int_equal(occurrences(text, TTFT[names]), DEFAULTS[names] + 1);
        free(text);
    }
    llmlat_agg_free(a);
}

/* ------------------------------------------------------- what data lack */

/* A metric the data lack has no buckets (EUNDEFINED) and no series in any
 * scheme, in any format: that aggregator's series of that family are
 * left out, the others' written; a family every aggregator lacks is left
 * out whole. */
static void lacking_metric_has_no_series(void **state)
{
    (void)state;
    llmlat_agg *lacking = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_BOUNDED);
    llmlat_agg *full = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    assert_int_equal(llmlat_agg_set_label(lacking, "model", "lacking"), LLMLAT_OK);
    assert_int_equal(llmlat_agg_set_label(full, "model", "full"), LLMLAT_OK);
    llmlat_request *r = llmlat_request_new();
    for (int i = 0; i < 20; i++) {
        assert_int_equal(llmlat_request_reset(r), LLMLAT_OK);
        assert_int_equal(llmlat_request_start(r, i * SEC), LLMLAT_OK);
        /* a file with times but no tokens per chunk and no token counts */
        if (i % 2)
            assert_int_equal(llmlat_request_set_lacks(r, LLMLAT_LACKS_CHUNK_TOKENS |
                                                             LLMLAT_LACKS_INPUT_TOKENS |
                                                             LLMLAT_LACKS_OUTPUT_TOKENS),
                             LLMLAT_OK);
        assert_int_equal(llmlat_request_event(r, i * SEC + 80 * MS, 1), LLMLAT_OK);
        assert_int_equal(llmlat_request_event(r, i * SEC + 150 * MS, 1), LLMLAT_OK);
        assert_int_equal(llmlat_request_finish(r, i * SEC + 150 * MS), LLMLAT_OK);
        assert_int_equal(llmlat_agg_add(i % 2 ? lacking : full, r), LLMLAT_OK);
    }
    llmlat_request_free(r);
    /* llmlat_agg_buckets: EUNDEFINED, an empty histogram */
    static const int32_t LACKED[] = { LLMLAT_ITL, LLMLAT_INPUT_TOKENS, LLMLAT_OUTPUT_TOKENS,
                                      LLMLAT_TPOT };
    for (size_t i = 0; i < N(LACKED); i++) {
        const char *why = NULL;
        assert_int_equal(llmlat_agg_unavailable(lacking, LLMLAT_KIND_METRIC, LACKED[i], &why),
                         LLMLAT_EUNDEFINED);
        int32_t schema = -1, offset = 7;
        double zt = 1;
        uint64_t zc = 1, counts[8];
        size_t len = 5;
        assert_int_equal(llmlat_agg_buckets(lacking, LACKED[i], &schema, &zt, &zc, &offset,
                                            counts, 8, &len),
                         LLMLAT_EUNDEFINED);
        assert_int_equal(len, 0);
        assert_int_equal(zc, 0);
        assert_true(zt == 0.0);
        assert_int_equal(offset, 0);
        assert_int_equal(schema, 6);
        len = 5;
        assert_int_equal(llmlat_agg_buckets(lacking, LACKED[i], &schema, &zt, &zc, &offset, NULL,
                                            0, &len),
                         LLMLAT_EUNDEFINED); /* not ENOSPC: there is nothing to size */
        assert_int_equal(len, 0);
        assert_int_equal(llmlat_agg_buckets(full, LACKED[i], &schema, &zt, &zc, &offset, counts,
                                            8, &len),
                         LLMLAT_OK);
    }
    int32_t schema, offset;
    double zt;
    uint64_t zc, counts[256];
    size_t len;
    assert_int_equal(llmlat_agg_buckets(lacking, LLMLAT_TTFT, &schema, &zt, &zc, &offset, counts,
                                        256, &len),
                     LLMLAT_OK);

    /* families of what it lacks, and of what it has, in each scheme */
    static const struct {
        int32_t names;
        const char *family;
        bool kept; /* its series of the lacking aggregator are there */
    } CASES[] = {
        { LLMLAT_NAMES_LLMLAT, "llmlat_itl_hist_seconds", false },
        { LLMLAT_NAMES_LLMLAT, "llmlat_itl_seconds", false },
        { LLMLAT_NAMES_LLMLAT, "llmlat_tpot_hist_seconds", false },
        { LLMLAT_NAMES_LLMLAT, "llmlat_input_tokens_total", false },
        { LLMLAT_NAMES_LLMLAT, "llmlat_ttft_hist_seconds", true },
        { LLMLAT_NAMES_LLMLAT, "llmlat_icl_hist_seconds", true },
        { LLMLAT_NAMES_VLLM, "vllm:request_time_per_output_token_seconds", false },
        { LLMLAT_NAMES_VLLM, "vllm:request_prompt_tokens", false },
        { LLMLAT_NAMES_VLLM, "vllm:request_generation_tokens", false },
        { LLMLAT_NAMES_VLLM, "vllm:prompt_tokens_total", false },
        { LLMLAT_NAMES_VLLM, "vllm:generation_tokens_total", false },
        { LLMLAT_NAMES_VLLM, "vllm:inter_token_latency_seconds", true },
        { LLMLAT_NAMES_VLLM, "vllm:time_to_first_token_seconds", true },
        { LLMLAT_NAMES_VLLM, "vllm:request_success_total", true },
        { LLMLAT_NAMES_SGLANG, "sglang:inter_token_latency_seconds", false },
        { LLMLAT_NAMES_SGLANG, "sglang:prompt_tokens_histogram", false },
        { LLMLAT_NAMES_SGLANG, "sglang:e2e_request_latency_seconds", true },
        { LLMLAT_NAMES_OTEL, "gen_ai_client_token_usage", false },
        { LLMLAT_NAMES_OTEL, "gen_ai_server_time_per_output_token_seconds", false },
        { LLMLAT_NAMES_OTEL, "gen_ai_server_time_to_first_token_seconds", true },
    };
    const llmlat_agg *both[2] = { lacking, full };
    for (size_t c = 0; c < N(CASES); c++) {
        int32_t names = CASES[c].names;
        const char *label = names == LLMLAT_NAMES_LLMLAT ? "model"
                            : names == LLMLAT_NAMES_OTEL ? "gen_ai_request_model"
                                                         : "model_name";
        char full_series[256];
        snprintf(full_series, sizeof full_series, "%s=\"full\"", label);
        for (int32_t f = LLMLAT_FORMAT_PROMETHEUS; f <= LLMLAT_FORMAT_OPENMETRICS; f++) {
            size_t n;
            char *text = expose(both, 2, f, names, &n);
            text_expo x;
            assert_true(text_parse(text, n, &x));
            size_t of_lacking = 0, of_full = 0;
            char want_lacking[64];
            snprintf(want_lacking, sizeof want_lacking, "%s=\"lacking\"", label);
            for (size_t k = 0; k < x.n; k++) {
                const char *sname = x.s[k].name;
                size_t fl = strlen(CASES[c].family);
                if (strncmp(sname, CASES[c].family, fl) != 0 ||
                    (sname[fl] != '\0' && strcmp(sname + fl, "_bucket") != 0 &&
                     strcmp(sname + fl, "_sum") != 0 && strcmp(sname + fl, "_count") != 0))
                    continue;
                of_lacking += strstr(x.s[k].series, want_lacking) != NULL;
                of_full += strstr(x.s[k].series, full_series) != NULL;
            }
            assert_true(of_full > 0);
            assert_int_equal(of_lacking > 0, CASES[c].kept);
            text_free(&x);
            free(text);
        }
        /* protobuf: the family's series are the full aggregator's only */
        size_t n;
        char *pb = expose(both, 2, LLMLAT_FORMAT_PROMETHEUS_PROTOBUF, names, &n);
        pbd_expo x;
        assert_true(pbd_parse(pb, n, &x));
        const pbd_family *fam = pbd_find(&x, CASES[c].family);
        assert_non_null(fam);
        for (size_t j = 0; j < fam->n_metrics; j++)
            if (!CASES[c].kept)
                assert_non_null(strstr(fam->metrics[j]->key, full_series));
        pbd_free(&x);
        free(pb);
        /* the lacking aggregator alone: those families are not written */
        const llmlat_agg *alone = lacking;
        char *text = expose(&alone, 1, LLMLAT_FORMAT_PROMETHEUS, names, &n);
        char type[256];
        snprintf(type, sizeof type, "# TYPE %s ", CASES[c].family);
        assert_int_equal(strstr(text, type) != NULL, CASES[c].kept);
        free(text);
    }
    llmlat_agg_free(lacking);
    llmlat_agg_free(full);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(families_of_each_scheme),
        cmocka_unit_test(llmlat_scheme_and_arguments),
        cmocka_unit_test(label_clashes_refused),
        cmocka_unit_test(protobuf_in_each_scheme),
        cmocka_unit_test(set_buckets_win_in_every_scheme),
        cmocka_unit_test(lacking_metric_has_no_series),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
