/* llmlat_agg_serialize / llmlat_agg_deserialize: the versioned,
 * little-endian byte format of docs/format.md. The header, the settings
 * and counters, and the checks that tie sections together live here; the
 * sample sections in serialize_data.c. */
#include <string.h>

#include "util/crc32.h"
#include "format/serialize.h"

static const uint8_t MAGIC[8] = { 'L', 'L', 'M', 'L', 'A', 'T', 'A', 'G' };
/* Version 2 (llmlat 1.1) adds the labels, the lacks, the NTPOT metric,
 * the GuideLLM and inference-perf conventions and their status groups,
 * bounded sketches in native-histogram buckets and exact mode's request
 * log. Version 3 (llmlat 1.2) adds the metrics from the intended start
 * (DISPATCH_DELAY, SCHEDULED_TTFT, SCHEDULED_E2E), the MAX_DISPATCH_DELAY
 * param and each logged request's intended start. Versions 1 and 2 still
 * read. */
#define FORMAT_VERSION 3
#define FORMAT_VERSION_OLDEST 1
#define HEADER_BYTES 24 /* magic, version, flags, total size */
#define TRAILER_BYTES 4 /* CRC-32 */
/* The header's flags: N is the server's usage count
 * (LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, llmlat 1.2: the one param carried as
 * a flag, not among the settings' doubles, which version 3 writes through
 * MAX_DISPATCH_DELAY). */
#define FLAG_SERVER_OUTPUT_TOKENS 1u
#define V3_PARAM_LAST LLMLAT_PARAM_MAX_DISPATCH_DELAY
/* What version 1 knows: metrics 1..10, conventions 0..4; version 2:
 * metrics 1..11; both: params 1..5. */
#define V1_METRIC_LAST LLMLAT_TOOL_ITL
#define V1_CONVENTION_LAST LLMLAT_CONV_LLMPERF
#define V2_METRIC_LAST LLMLAT_NTPOT
#define V2_PARAM_LAST LLMLAT_PARAM_SLO_E2E

/* The metrics with a section in bytes of a version. */
static int32_t metric_last_of(uint32_t version)
{
    return version == 1 ? V1_METRIC_LAST : version == 2 ? V2_METRIC_LAST : METRIC_LAST;
}

/* The params in bytes of a version (the others keep their defaults). */
static int32_t param_last_of(uint32_t version)
{
    return version <= 2 ? V2_PARAM_LAST : V3_PARAM_LAST;
}

static void write_settings(bytes_writer *w, const llmlat_agg *a)
{
    put_u32(w, (uint32_t)a->conv->id);
    put_u32(w, (uint32_t)a->mode);
    for (int32_t p = PARAM_FIRST; p <= V3_PARAM_LAST; p++)
        put_f64(w, agg_param(a, p));
    put_u32(w, (uint32_t)a->n_quantiles);
    for (size_t i = 0; i < a->n_quantiles; i++)
        put_f64(w, a->quantiles[i]);
    for (int m = 0; m < METRIC_COUNT; m++) {
        put_u32(w, a->n_bucket_bounds[m]);
        for (size_t i = 0; i < a->n_bucket_bounds[m]; i++)
            put_f64(w, a->bucket_bounds[m][i]);
    }
}

static void write_labels(bytes_writer *w, const llmlat_agg *a)
{
    put_u32(w, (uint32_t)a->n_labels);
    for (size_t i = 0; i < a->n_labels; i++) {
        const char *text[2] = { a->labels[i].name, a->labels[i].value };
        for (int j = 0; j < 2; j++) {
            size_t n = strlen(text[j]);
            put_u32(w, (uint32_t)n);
            put_bytes(w, text[j], n);
        }
    }
}

/* What the requests lack (version 2): the LLMLAT_LACKS_* mask and the
 * conventions whose values the values-only ones carry. */
static void write_lacks(bytes_writer *w, const llmlat_agg *a)
{
    put_u32(w, a->lacks);
    put_u32(w, a->sources);
}

static void write_counters(bytes_writer *w, const llmlat_agg *a)
{
    put_u64(w, a->completed);
    put_u64(w, a->failed);
    put_u64(w, a->tpot_undefined);
    put_u64(w, a->input_tokens);
    put_u64(w, a->output_tokens);
    put_u64(w, a->good);
    put_i64(w, a->all.lo);
    put_i64(w, a->all.hi);
    put_i64(w, a->valid.lo);
    put_i64(w, a->valid.hi);
}

static void write_span(bytes_writer *w, span s)
{
    put_i64(w, s.lo);
    put_i64(w, s.hi);
}

static void write_stores(bytes_writer *w, const llmlat_agg *a, const metric_store *stores)
{
    (void)a;
    for (int m = 0; m < METRIC_COUNT; m++)
        store_write(w, &stores[m]);
}

/* Under a convention with status groups: the successes' token points, then
 * each other group's counters and metric sections. */
static void write_groups(bytes_writer *w, const llmlat_agg *a)
{
    write_span(w, a->tokens);
    for (int g = 0; g < FAILED_GROUPS; g++) {
        const agg_group *f = &a->failures[g];
        put_u64(w, f->count);
        put_u64(w, f->input_tokens);
        put_u64(w, f->output_tokens);
        write_span(w, f->tokens);
        write_stores(w, a, f->stores);
    }
}

static void write_all(bytes_writer *w, const llmlat_agg *a, uint64_t size)
{
    put_bytes(w, MAGIC, sizeof MAGIC);
    put_u32(w, FORMAT_VERSION);
    put_u32(w, agg_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS) == 1.0 ? FLAG_SERVER_OUTPUT_TOKENS : 0);
    put_u64(w, size);
    write_settings(w, a);
    write_labels(w, a);
    write_counters(w, a);
    write_lacks(w, a);
    write_stores(w, a, a->stores);
    if (a->conv->status_groups)
        write_groups(w, a);
    if (agg_keeps_timeline(a)) {
        write_timeline(w, &a->tl);
        write_request_log(w, &a->log);
    }
}

LLMLAT_API int32_t llmlat_agg_serialize(const llmlat_agg *a, void *buf, size_t cap,
                                        size_t *len)
{
    if (!a || !len || (!buf && cap > 0))
        return LLMLAT_EINVAL;
    bytes_writer w = { NULL, 0 };
    write_all(&w, a, 0);
    size_t size = w.n + TRAILER_BYTES;
    if (cap < size) {
        *len = size;
        return LLMLAT_ENOSPC;
    }
    w = (bytes_writer){ buf, 0 };
    write_all(&w, a, size);
    put_u32(&w, crc32_of(buf, w.n));
    *len = size;
    return LLMLAT_OK;
}

/* ------------------------------------------------------------------ read */

/* Settings go through the public setters, which check them as they would
 * a caller's values: a refusal is malformed bytes. */
static int32_t setter_status(int32_t st)
{
    return st == LLMLAT_EINVAL ? LLMLAT_EFORMAT : st;
}

static int32_t read_settings(bytes_reader *r, llmlat_agg *a, uint32_t version)
{
    for (int32_t p = PARAM_FIRST; p <= param_last_of(version); p++) {
        double v = get_f64(r);
        int32_t st = r->bad ? LLMLAT_EFORMAT : setter_status(llmlat_agg_set_param(a, p, v));
        if (st != LLMLAT_OK)
            return st;
    }
    double q[MAX_QUANTILES];
    uint32_t nq = get_u32(r);
    if (r->bad || nq > MAX_QUANTILES)
        return LLMLAT_EFORMAT;
    for (uint32_t i = 0; i < nq; i++)
        q[i] = get_f64(r);
    if (r->bad || llmlat_agg_set_quantiles(a, q, nq) != LLMLAT_OK)
        return LLMLAT_EFORMAT;
    for (int32_t m = METRIC_FIRST; m <= metric_last_of(version); m++) {
        double b[MAX_BUCKET_BOUNDS];
        uint32_t nb = get_u32(r);
        if (r->bad || nb > MAX_BUCKET_BOUNDS)
            return LLMLAT_EFORMAT;
        for (uint32_t i = 0; i < nb; i++)
            b[i] = get_f64(r);
        if (r->bad || (nb && llmlat_agg_set_buckets(a, m, b, nb) != LLMLAT_OK))
            return LLMLAT_EFORMAT;
    }
    return LLMLAT_OK;
}

/* Labels go through the public setter too, in strictly increasing name
 * order: the one form a set of labels is written in. */
static int32_t read_labels(bytes_reader *r, llmlat_agg *a)
{
    uint32_t n = get_u32(r);
    if (r->bad || n > LLMLAT_MAX_LABELS)
        return LLMLAT_EFORMAT;
    for (uint32_t i = 0; i < n; i++) {
        char text[2][LLMLAT_LABEL_MAX + 1];
        for (int j = 0; j < 2; j++) {
            uint32_t len = get_u32(r);
            const uint8_t *p = len <= LLMLAT_LABEL_MAX ? take(r, len) : NULL;
            if (r->bad || !p || len == 0 || memchr(p, 0, len))
                return LLMLAT_EFORMAT;
            memcpy(text[j], p, len);
            text[j][len] = '\0';
        }
        if (a->n_labels && strcmp(a->labels[a->n_labels - 1].name, text[0]) >= 0)
            return LLMLAT_EFORMAT;
        int32_t st = setter_status(llmlat_agg_set_label(a, text[0], text[1]));
        if (st != LLMLAT_OK)
            return st;
    }
    return LLMLAT_OK;
}

/* A span is empty (as a new aggregator has it) or ordered. */
static bool span_valid(span s)
{
    return (s.lo == SPAN_EMPTY.lo && s.hi == SPAN_EMPTY.hi) || s.lo <= s.hi;
}

static int32_t read_counters(bytes_reader *r, llmlat_agg *a)
{
    a->completed = get_u64(r);
    a->failed = get_u64(r);
    a->tpot_undefined = get_u64(r);
    a->input_tokens = get_u64(r);
    a->output_tokens = get_u64(r);
    a->good = get_u64(r);
    a->all.lo = get_i64(r);
    a->all.hi = get_i64(r);
    a->valid.lo = get_i64(r);
    a->valid.hi = get_i64(r);
    bool any = a->completed || a->failed;
    bool counted = !agg_keeps_timeline(a) && agg_any_slo(a);
    if (r->bad || a->completed > UINT64_MAX - a->failed ||
        a->tpot_undefined > a->completed || a->good > a->completed ||
        (!counted && a->good) || !span_valid(a->all) || !span_valid(a->valid) ||
        any != (a->all.lo <= a->all.hi) || (!a->completed && a->valid.lo <= a->valid.hi))
        return LLMLAT_EFORMAT;
    return LLMLAT_OK;
}

/* A values-only request's convention is among the known ones, and there
 * are such conventions exactly when some request had values only. */
static int32_t read_lacks(bytes_reader *r, llmlat_agg *a)
{
    a->lacks = get_u32(r);
    a->sources = get_u32(r);
    bool values_only = (a->lacks & LLMLAT_LACKS_CHUNKS) != 0;
    bool sources_known = true;
    for (int32_t id = 0; id < 32; id++)
        if ((a->sources >> id) & 1u)
            sources_known &= conv_get(id) != NULL;
    if (r->bad || (a->lacks & ~LLMLAT_LACKS_KNOWN) || !sources_known ||
        values_only != (a->sources != 0) || (a->lacks && !(a->completed || a->failed)))
        return LLMLAT_EFORMAT;
    return LLMLAT_OK;
}

/* The samples a store keeps (exact mode), or the weights a sketch
 * counts (it keeps no more). */
static uint64_t samples_of(const metric_store *s)
{
    const double *v;
    const uint32_t *w;
    size_t n;
    return store_samples(s, &v, &w, &n) ? n : store_count(s);
}

/* Whether a store keeps more samples than max (a sketch keeps none). */
static bool keeps_more_than(const metric_store *s, uint64_t max)
{
    const double *v;
    const uint32_t *w;
    size_t n;
    return store_samples(s, &v, &w, &n) && n > max;
}

/* Sample counts a group's counters imply: one OUTPUT and INPUT sample per
 * request, at most one for the other per-request metrics (TPOT and NTPOT
 * weigh at most N under a weighted convention: their weights add up to at
 * most the group's output tokens), TOOL_ITL only under LLMPerf. */
static bool stores_consistent(const llmlat_agg *a, const metric_store *stores, uint64_t count,
                              uint64_t output_tokens)
{
    for (int32_t m = METRIC_FIRST; m <= METRIC_LAST; m++) {
        const metric_store *s = &stores[metric_index(m)];
        uint64_t n = store_count(s);
        switch (m) {
        case LLMLAT_ITL:
        case LLMLAT_ICL:
            break;
        case LLMLAT_TOOL_ITL: /* samples of its own only under LLMPerf */
            if (n > (a->conv->tool_itl == TOOL_ITL_LLMPERF ? count : 0))
                return false;
            break;
        case LLMLAT_OUTPUT_TOKENS:
        case LLMLAT_INPUT_TOKENS:
            if (n != count)
                return false;
            break;
        case LLMLAT_TPOT:
        case LLMLAT_NTPOT:
            if (!a->conv->weighted ? n > count
                                   : n > output_tokens ||
                                         keeps_more_than(s, count))
                return false;
            break;
        default:
            if (n > count)
                return false;
        }
    }
    return true;
}

/* The successes' counts, and their one TPOT sample per success with a
 * TPOT (weighted bounded sketches count weights, not samples). */
static bool counts_consistent(const llmlat_agg *a)
{
    const metric_store *tpot = &a->stores[metric_index(LLMLAT_TPOT)];
    bool tpot_countable = !a->conv->weighted || agg_keeps_timeline(a);
    if (!stores_consistent(a, a->stores, a->completed, a->output_tokens) ||
        (tpot_countable && samples_of(tpot) != a->completed - a->tpot_undefined))
        return false;
    for (int g = 0; g < FAILED_GROUPS; g++) {
        const agg_group *f = &a->failures[g];
        if (!stores_consistent(a, f->stores, f->count, f->output_tokens))
            return false;
    }
    return !agg_keeps_timeline(a) || a->tl.n_rec == a->completed;
}

/* The log holds at most the requests the counters count, and when it holds
 * them all, its successes under the convention are the completed count. */
static bool log_consistent(const llmlat_agg *a)
{
    const request_log *g = &a->log;
    if (g->n_req > a->completed + a->failed)
        return false;
    if (!agg_holds_requests(a))
        return true;
    uint64_t successes = 0;
    for (size_t i = 0; i < g->n_req; i++) {
        llmlat_request q;
        req_view v;
        request_log_view(g, i, &q);
        conv_view(a->conv, &q, &v);
        successes += v.success;
    }
    return successes == a->completed;
}

static int32_t read_stores(bytes_reader *r, llmlat_agg *a, metric_store *stores,
                           uint32_t version)
{
    for (int32_t m = METRIC_FIRST; m <= metric_last_of(version); m++) {
        metric_store *s = &stores[metric_index(m)];
        int32_t st = store_read(r, s, &a->al, version);
        if (st != LLMLAT_OK)
            return st;
    }
    return LLMLAT_OK;
}

/* Token points exist for every request of a group exactly under
 * GuideLLM's token rates. */
static bool tokens_valid(const llmlat_agg *a, span s, uint64_t count)
{
    bool any = a->conv->token_rates_over_token_span && count > 0;
    return span_valid(s) && any == (s.lo <= s.hi);
}

static int32_t read_groups(bytes_reader *r, llmlat_agg *a, uint32_t version)
{
    a->tokens.lo = get_i64(r);
    a->tokens.hi = get_i64(r);
    if (r->bad || !tokens_valid(a, a->tokens, a->completed))
        return LLMLAT_EFORMAT;
    uint64_t failures = 0;
    for (int g = 0; g < FAILED_GROUPS; g++) {
        agg_group *f = &a->failures[g];
        f->count = get_u64(r);
        f->input_tokens = get_u64(r);
        f->output_tokens = get_u64(r);
        f->tokens.lo = get_i64(r);
        f->tokens.hi = get_i64(r);
        if (r->bad || f->count > a->failed - failures || !tokens_valid(a, f->tokens, f->count))
            return LLMLAT_EFORMAT;
        failures += f->count;
        int32_t st = read_stores(r, a, f->stores, version);
        if (st != LLMLAT_OK)
            return st;
    }
    /* every request that is not a success is in a group */
    return failures == a->failed ? LLMLAT_OK : LLMLAT_EFORMAT;
}

static int32_t read_samples(bytes_reader *r, llmlat_agg *a, uint32_t version)
{
    int32_t st = read_stores(r, a, a->stores, version);
    if (st == LLMLAT_OK && a->conv->status_groups)
        st = read_groups(r, a, version);
    if (st == LLMLAT_OK && agg_keeps_timeline(a))
        st = read_timeline(r, &a->tl, &a->al);
    if (st == LLMLAT_OK && agg_keeps_timeline(a) && version >= 2)
        st = read_request_log(r, &a->log, &a->al, version);
    if (st != LLMLAT_OK)
        return st;
    return counts_consistent(a) && log_consistent(a) ? LLMLAT_OK : LLMLAT_EFORMAT;
}

/* The header and trailer; on success *body is the reader between them. */
static int32_t open_frame(const uint8_t *p, size_t len, bytes_reader *body, uint32_t *version_out,
                          uint32_t *flags_out)
{
    if (len < HEADER_BYTES + TRAILER_BYTES || memcmp(p, MAGIC, sizeof MAGIC) != 0)
        return LLMLAT_EFORMAT;
    bytes_reader h = { p + sizeof MAGIC, HEADER_BYTES - sizeof MAGIC, false };
    uint32_t version = get_u32(&h), flags = get_u32(&h);
    uint64_t size = get_u64(&h);
    if (version < FORMAT_VERSION_OLDEST || version > FORMAT_VERSION ||
        (flags & ~FLAG_SERVER_OUTPUT_TOKENS) || size != len)
        return LLMLAT_EFORMAT;
    *version_out = version;
    *flags_out = flags;
    bytes_reader t = { p + len - TRAILER_BYTES, TRAILER_BYTES, false };
    if (get_u32(&t) != crc32_of(p, len - TRAILER_BYTES))
        return LLMLAT_EFORMAT;
    *body = (bytes_reader){ p + HEADER_BYTES, len - HEADER_BYTES - TRAILER_BYTES, false };
    return LLMLAT_OK;
}

static llmlat_agg *fail(llmlat_agg *a, int32_t st, int32_t *status)
{
    llmlat_agg_free(a);
    if (status)
        *status = st;
    return NULL;
}

LLMLAT_API llmlat_agg *llmlat_agg_deserialize(const void *buf, size_t len, int32_t *status)
{
    if (!buf && len > 0)
        return fail(NULL, LLMLAT_EINVAL, status);
    bytes_reader r;
    uint32_t version = 0, flags = 0;
    int32_t st = buf ? open_frame(buf, len, &r, &version, &flags) : LLMLAT_EFORMAT;
    if (st != LLMLAT_OK)
        return fail(NULL, st, status);
    uint32_t conv = get_u32(&r), mode = get_u32(&r);
    if (r.bad || !conv_get((int32_t)conv) || (version == 1 && conv > V1_CONVENTION_LAST) ||
        !agg_mode_valid((int32_t)mode))
        return fail(NULL, LLMLAT_EFORMAT, status);
    llmlat_agg *a = llmlat_agg_new((int32_t)conv, (int32_t)mode);
    if (!a)
        return fail(NULL, LLMLAT_ENOMEM, status);
    /* Before 1.2 (versions 1 and 2) inference-perf's N was the usage
     * count: bytes of then were made, and merge, as that rule says. */
    bool server_n = (flags & FLAG_SERVER_OUTPUT_TOKENS) ||
                    (version <= 2 && conv == LLMLAT_CONV_INFERENCE_PERF);
    st = setter_status(
        llmlat_agg_set_param(a, LLMLAT_PARAM_SERVER_OUTPUT_TOKENS, server_n ? 1.0 : 0.0));
    if (st == LLMLAT_OK)
        st = read_settings(&r, a, version);
    if (st == LLMLAT_OK && version >= 2)
        st = read_labels(&r, a);
    if (st == LLMLAT_OK)
        st = read_counters(&r, a);
    if (st == LLMLAT_OK && version >= 2)
        st = read_lacks(&r, a);
    if (st == LLMLAT_OK)
        st = read_samples(&r, a, version);
    if (st == LLMLAT_OK && r.left) /* bytes the sections do not account for */
        st = LLMLAT_EFORMAT;
    if (st != LLMLAT_OK)
        return fail(a, st, status);
    if (status)
        *status = LLMLAT_OK;
    return a;
}
