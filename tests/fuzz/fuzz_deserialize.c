/* Fuzz target (b): llmlat_agg_deserialize on arbitrary bytes. Every byte
 * is hostile: the call must return an aggregator or NULL with EFORMAT,
 * never crash, leak or read out of bounds. What parses must be a working
 * aggregator:
 *   - it serializes back to exactly the input bytes (the format has one
 *     encoding per state: shortest varints, fixed fields);
 *   - every query answers with a documented status;
 *   - merged into an empty aggregator of the same kind, the result answers
 *     every query alike (merge of shards = the union);
 *   - it still accepts requests (or refuses them with EOVERFLOW at a counter's
 *     limit).
 * Each parsed input is deserialized again with each of its allocations
 * failing in turn: ENOMEM, and nothing leaked.
 *
 * Input: one mode byte, then the bytes. Mode 0 (even) first fixes the
 * size field and the CRC trailer up, so that mutations reach the body's
 * checks instead of all dying at the CRC; mode 1 (odd) passes the bytes
 * as they are, for the frame checks. The seeds are serialized aggregators
 * after a 0 byte (seed_writer.c). */
#include <math.h>

#include "util/crc32.h"
#include "fuzz_common.h"

/* Every answer of a, for comparing two aggregators. */
typedef struct answers {
    int32_t st[14][7];
    double stats[14][6];
    double q[14][5];
    uint64_t counters[7];
    double rates[5];
} answers;

static void ask(const llmlat_agg *a, answers *x)
{
    static const double qs[5] = { 0.0, 0.3, 0.5, 0.99, 1.0 };
    memset(x, 0, sizeof *x);
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_SCHEDULED_E2E; m++) {
        for (int32_t s = LLMLAT_STAT_COUNT; s <= LLMLAT_STAT_MEDIAN; s++) {
            int32_t st = llmlat_agg_stat(a, m, s, &x->stats[m - 1][s - 1]);
            FZ_CHECK(st == LLMLAT_OK || st == LLMLAT_EUNDEFINED, "stat %d/%d: %d", m, s, st);
            x->st[m - 1][s - 1] = st;
        }
        int32_t st = llmlat_agg_quantiles(a, m, qs, 5, x->q[m - 1]);
        FZ_CHECK(st == LLMLAT_OK || st == LLMLAT_EUNDEFINED, "quantiles %d: %d", m, st);
        x->st[m - 1][6] = st;
        for (int i = 0; st == LLMLAT_OK && i < 5; i++) {
            FZ_CHECK(!isnan(x->q[m - 1][i]), "quantile %d: NaN with OK", m);
            FZ_CHECK(i == 0 || x->q[m - 1][i] >= x->q[m - 1][i - 1],
                     "quantiles of %d decrease: %.17g < %.17g", m, x->q[m - 1][i],
                     x->q[m - 1][i - 1]);
        }
    }
    for (int32_t c = LLMLAT_COUNT_COMPLETED; c <= LLMLAT_COUNT_PEAK_CONCURRENCY; c++) {
        int32_t st = llmlat_agg_counter(a, c, &x->counters[c - 1]);
        FZ_CHECK(st == LLMLAT_OK || st == LLMLAT_EUNDEFINED, "counter %d: %d", c, st);
    }
    for (int32_t r = LLMLAT_RATE_REQUESTS; r <= LLMLAT_RATE_PEAK_OUTPUT_TOKENS; r++) {
        int32_t st = llmlat_agg_rate(a, r, &x->rates[r - 1]);
        FZ_CHECK(st == LLMLAT_OK || st == LLMLAT_EUNDEFINED, "rate %d: %d", r, st);
    }
}

/* The native buckets of every metric: they count every sample; a metric
 * the data lack has none (EUNDEFINED, whatever samples its store holds). */
static void buckets(const llmlat_agg *a)
{
    for (int32_t m = LLMLAT_TTFT; m <= LLMLAT_TOOL_ITL; m++) {
        int32_t schema, offset;
        double zt;
        uint64_t zc;
        size_t len = 0;
        const char *why = NULL;
        if (llmlat_agg_unavailable(a, LLMLAT_KIND_METRIC, m, &why) == LLMLAT_EUNDEFINED) {
            int32_t st = llmlat_agg_buckets(a, m, &schema, &zt, &zc, &offset, NULL, 0, &len);
            FZ_CHECK(st == LLMLAT_EUNDEFINED && why && len == 0 && zc == 0,
                     "buckets of an unavailable metric %d: %d", m, st);
            double count;
            st = llmlat_agg_stat(a, m, LLMLAT_STAT_COUNT, &count);
            FZ_CHECK(st == LLMLAT_EUNDEFINED, "count of an unavailable metric: %d", st);
            continue;
        }
        int32_t st = llmlat_agg_buckets(a, m, &schema, &zt, &zc, &offset, NULL, 0, &len);
        FZ_CHECK(st == LLMLAT_OK || st == LLMLAT_ENOSPC, "buckets %d sizing: %d", m, st);
        uint64_t *c = malloc((len ? len : 1) * sizeof *c);
        FZ_CHECK(c, "test allocation");
        st = llmlat_agg_buckets(a, m, &schema, &zt, &zc, &offset, c, len, &len);
        FZ_CHECK(st == LLMLAT_OK, "buckets %d: %d", m, st);
        uint64_t total = zc;
        for (size_t i = 0; i < len; i++)
            total += c[i];
        double count;
        st = llmlat_agg_stat(a, m, LLMLAT_STAT_COUNT, &count);
        FZ_CHECK(st == LLMLAT_OK, "count %d: %d", m, st);
        FZ_CHECK((double)total == count, "buckets %d count %.17g of %.17g", m, (double)total,
                 count);
        FZ_CHECK(!len || (c[0] && c[len - 1]), "buckets %d: empty end bucket", m);
        FZ_CHECK(schema >= 1 && schema <= 12 && zt >= 0.0, "buckets %d schema %d", m, schema);
        free(c);
    }
}

static void reports(const llmlat_agg *a)
{
    static const int32_t FORMATS[] = { LLMLAT_FORMAT_TEXT, LLMLAT_FORMAT_JSON,
                                       LLMLAT_FORMAT_PROMETHEUS, LLMLAT_FORMAT_HTML,
                                       LLMLAT_FORMAT_CHROME_TRACE, LLMLAT_FORMAT_REQUESTS_CSV,
                                       LLMLAT_FORMAT_REQUESTS_JSONL };
    int64_t first, last;
    bool keeps = llmlat_agg_span(a, &first, &last) == LLMLAT_OK;
    for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++) {
        int32_t f = FORMATS[i];
        size_t len = 0;
        int32_t st = llmlat_agg_report(a, f, NULL, 0, &len);
        if (st == LLMLAT_EUNDEFINED && f >= LLMLAT_FORMAT_CHROME_TRACE && !keeps)
            continue; /* what keeps no request has no per-request report */
        if (st == LLMLAT_OK && len == 0 && f == LLMLAT_FORMAT_REQUESTS_JSONL && !keeps)
            continue; /* no request, no line */
        FZ_CHECK(st == LLMLAT_ENOSPC, "report %d sizing: %d", f, st);
        char *buf = malloc(len);
        FZ_CHECK(buf, "test allocation");
        size_t got = 0;
        st = llmlat_agg_report(a, f, buf, len, &got);
        FZ_CHECK(st == LLMLAT_OK && got == len, "report %d: %d, %zu of %zu", f, st, got, len);
        free(buf);
    }
    /* a window of everything is the same aggregator again */
    if (keeps) {
        llmlat_agg *all = llmlat_agg_new_like(a);
        FZ_CHECK(all, "new_like");
        FZ_CHECK(llmlat_agg_add_window(all, a, INT64_MIN, INT64_MAX, LLMLAT_WINDOW_INSIDE) ==
                     LLMLAT_OK, "window of everything");
        uint64_t x, y;
        llmlat_agg_counter(a, LLMLAT_COUNT_COMPLETED, &x);
        llmlat_agg_counter(all, LLMLAT_COUNT_COMPLETED, &y);
        FZ_CHECK(x == y, "window of everything: %llu completed, not %llu",
                 (unsigned long long)y, (unsigned long long)x);
        llmlat_agg_free(all);
    }
}

/* Its exposition in every naming scheme and exposition format. A scheme
 * that renames its labels may make two of them one ("model" and
 * "model_name" under vLLM's names): refused then, nothing written. */
static void expositions(const llmlat_agg *a)
{
    for (int32_t names = LLMLAT_NAMES_LLMLAT; names <= LLMLAT_NAMES_OTEL; names++)
        for (int32_t f = LLMLAT_FORMAT_PROMETHEUS; f <= LLMLAT_FORMAT_PROMETHEUS_PROTOBUF; f++) {
            size_t len = 0;
            int32_t st = llmlat_expose_names(&a, 1, f, names, NULL, 0, &len);
            if (st == LLMLAT_EINVAL && names != LLMLAT_NAMES_LLMLAT)
                continue;
            FZ_CHECK(st == LLMLAT_ENOSPC || (st == LLMLAT_OK && len == 0),
                     "exposition %d/%d sizing: %d", names, f, st);
            char *buf = malloc(len ? len : 1);
            FZ_CHECK(buf, "test allocation");
            size_t got = 0;
            st = llmlat_expose_names(&a, 1, f, names, buf, len, &got);
            FZ_CHECK(st == LLMLAT_OK && got == len, "exposition %d/%d: %d", names, f, st);
            free(buf);
        }
}

/* An empty aggregator that may be merged with a. */
static llmlat_agg *empty_like(const llmlat_agg *a)
{
    int32_t conv, mode;
    FZ_CHECK(llmlat_agg_get_convention(a, &conv) == LLMLAT_OK, "get_convention");
    FZ_CHECK(llmlat_agg_get_mode(a, &mode) == LLMLAT_OK, "get_mode");
    llmlat_agg *e = llmlat_agg_new(conv, mode);
    FZ_CHECK(e, "agg_new(%d, %d)", conv, mode);
    for (int32_t p = LLMLAT_PARAM_RELATIVE_ERROR; p <= LLMLAT_PARAM_SERVER_OUTPUT_TOKENS; p++) {
        double v;
        FZ_CHECK(llmlat_agg_get_param(a, p, &v) == LLMLAT_OK, "get_param");
        FZ_CHECK(llmlat_agg_set_param(e, p, v) == LLMLAT_OK, "set_param %d %.17g", p, v);
    }
    return e;
}

/* The format version of bytes that parsed (header offset 8). */
static uint32_t version_of(const uint8_t *data)
{
    return (uint32_t)data[8] | (uint32_t)data[9] << 8 | (uint32_t)data[10] << 16 |
           (uint32_t)data[11] << 24;
}

/* a serialized: `len` bytes, freed by the caller. */
static uint8_t *serialized(const llmlat_agg *a, size_t *len)
{
    FZ_CHECK(llmlat_agg_serialize(a, NULL, 0, len) == LLMLAT_ENOSPC, "serialize sizing");
    uint8_t *out = malloc(*len);
    FZ_CHECK(out, "test allocation");
    FZ_CHECK(llmlat_agg_serialize(a, out, *len, len) == LLMLAT_OK, "serialize");
    return out;
}

static void check_parsed(llmlat_agg *a, const uint8_t *data, size_t size)
{
    buckets(a);
    /* the one encoding of this state: the input itself when it is of the
     * current version; bytes of an older one are rewritten in the current
     * version, whose reading gives the same bytes again */
    size_t len = 0;
    uint8_t *again = serialized(a, &len);
    if (version_of(again) == version_of(data)) {
        FZ_CHECK(len == size, "re-serialized to %zu bytes, from %zu", len, size);
        FZ_CHECK(memcmp(again, data, size) == 0, "re-serialized bytes differ");
    } else {
        int32_t st;
        llmlat_agg *c = llmlat_agg_deserialize(again, len, &st);
        FZ_CHECK(c && st == LLMLAT_OK, "reading the rewritten bytes: %d", st);
        size_t len2;
        uint8_t *third = serialized(c, &len2);
        FZ_CHECK(len2 == len && memcmp(third, again, len) == 0, "rewritten bytes not stable");
        free(third);
        llmlat_agg_free(c);
    }
    free(again);

    answers x, y;
    ask(a, &x);
    reports(a);
    expositions(a);

    llmlat_agg *u = empty_like(a);
    int32_t st = llmlat_agg_merge(u, a);
    FZ_CHECK(st == LLMLAT_OK, "merge into an empty aggregator: %d", st);
    ask(u, &y);
    FZ_CHECK(memcmp(&x, &y, sizeof x) == 0, "merged into empty: answers differ");
    llmlat_agg_free(u);

    /* it goes on accepting requests */
    llmlat_request *r = llmlat_request_new();
    FZ_CHECK(r, "request_new");
    llmlat_request_start(r, 1000);
    llmlat_request_event(r, 2000, 1);
    llmlat_request_event(r, 5000, 3);
    llmlat_request_finish(r, 6000);
    st = llmlat_agg_add(a, r);
    FZ_CHECK(st == LLMLAT_OK || st == LLMLAT_EOVERFLOW, "add to a deserialized aggregator: %d",
             st);
    llmlat_request_free(r);
    ask(a, &x);
}

/* The size field (offset 16) and the trailing CRC-32 made right. */
static void fix_frame(uint8_t *p, size_t n)
{
    if (n < 28)
        return;
    for (int i = 0; i < 8; i++)
        p[16 + i] = (uint8_t)((uint64_t)n >> (8 * i));
    uint32_t crc = crc32_of(p, n - 4);
    for (int i = 0; i < 4; i++)
        p[n - 4 + i] = (uint8_t)(crc >> (8 * i));
}

static void run(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *input, size_t input_size)
{
    if (input_size == 0)
        return 0;
    size_t size = input_size - 1;
    uint8_t *data = malloc(size ? size : 1); /* a copy of its own: ASan sees overreads */
    FZ_CHECK(data, "test allocation");
    memcpy(data, input + 1, size);
    if (input[0] % 2 == 0)
        fix_frame(data, size);
    run(data, size);
    free(data);
    return 0;
}

static void run(const uint8_t *data, size_t size)
{
    fz_alloc_install();
    int32_t st = 12345;
    llmlat_agg *a = llmlat_agg_deserialize(data, size, &st);
    if (a) {
        FZ_CHECK(st == LLMLAT_OK, "an aggregator with status %d", st);
        check_parsed(a, data, size);
        llmlat_agg_free(a);
        /* the same bytes again, each allocation failing in turn */
        for (long n = 0;; n++) {
            fz_alloc_arm(n, false);
            a = llmlat_agg_deserialize(data, size, &st);
            fz_alloc_disarm();
            if (a)
                break;
            FZ_CHECK(st == LLMLAT_ENOMEM, "deserialize under injection: %d", st);
            FZ_CHECK(fz_al.live == 0, "%ld blocks leaked by a failed deserialize", fz_al.live);
        }
        llmlat_agg_free(a);
    } else {
        FZ_CHECK(st == LLMLAT_EFORMAT, "NULL with status %d", st);
    }
    fz_alloc_check_released();
}
