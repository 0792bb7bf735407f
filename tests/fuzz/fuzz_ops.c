/* Fuzz target (a): random sequences of recorder and aggregator calls, in
 * every convention and both modes, checked against a reference model kept
 * here. The model is a second, deliberately naive implementation of
 * DESIGN.md's rules: it keeps every request's events and every sample in
 * plain arrays and recomputes what the library must return. Any
 * difference (a status, a count, a min/max, a TTFT, E2E or TPOT, a mean,
 * a std, a quantile, a leak) aborts.
 *
 * Input: a sequence of operations, each an opcode byte and its operands
 * (fuzz_common.h reads them; a short input reads as zeros). Allocation
 * failures are injected on demand: any call may then return ENOMEM, and
 * the model is left as it was, so the next check verifies that the object
 * was too. */
#include <math.h>

#include "fuzz_common.h"

#define N_REQ 4
#define N_AGG 3
#define MAX_EV 384      /* events per modelled request */
#define MAX_SAMPLES 4096 /* samples per modelled metric */

enum { S_NEW, S_STARTED, S_FINISHED, S_FAILED, S_CANCELLED };

/* ------------------------------------------------------------ the model */

typedef struct mreq {
    llmlat_request *r; /* NULL: empty slot */
    int state;
    int64_t start, end, last, max_t;
    bool has_sched;    /* its intended start */
    int64_t sched;
    size_t n;
    int64_t t[MAX_EV];
    uint32_t k[MAX_EV];
    uint64_t in_tok, out_tok;
    bool has_out;
    /* a streaming recorder: the relative error and gap rule it folds by */
    bool streaming;
    double alpha;
    int rule;
} mreq;

typedef struct mlist {
    size_t n;
    double v[MAX_SAMPLES];
    uint32_t w[MAX_SAMPLES]; /* weights: 1, but for GuideLLM's TPOT and NTPOT */
} mlist;

enum { L_TTFT, L_E2E, L_TPOT, L_ITL_MAX, L_NTPOT, L_DELAY, L_STTFT, L_SE2E, N_LISTS };
static const int32_t LIST_METRIC[N_LISTS] = { LLMLAT_TTFT,          LLMLAT_E2E,
                                              LLMLAT_TPOT,          LLMLAT_ITL_MAX,
                                              LLMLAT_NTPOT,         LLMLAT_DISPATCH_DELAY,
                                              LLMLAT_SCHEDULED_TTFT, LLMLAT_SCHEDULED_E2E };
#define N_PARAMS LLMLAT_PARAM_MAX_DISPATCH_DELAY

typedef struct magg {
    llmlat_agg *a; /* NULL: empty slot */
    int32_t conv, mode;
    double params[N_PARAMS]; /* LLMLAT_PARAM_* - 1 */
    uint64_t completed, failed, tpot_undef, in_tok, out_tok;
    uint64_t itl_count, icl_count;
    /* the failures' tokens by status group, where the convention keeps
     * them (GuideLLM, inference-perf): [0] cancelled, [1] the others */
    uint64_t fail_in[2], fail_out[2];
    /* a request added that starts, or ends, at INT64_MAX: no START (END)
     * window from .. to holds it, to being at most INT64_MAX */
    bool start_at_max, end_at_max;
    mlist lists[N_LISTS];
} magg;

static mreq reqs[N_REQ];
static magg aggs[N_AGG];

static double ns_to_s(int64_t ns)
{
    return (double)ns / 1e9;
}

static double param_default(int32_t p)
{
    return p == LLMLAT_PARAM_RELATIVE_ERROR      ? 0.01
           : p == LLMLAT_PARAM_MAX_DISPATCH_DELAY ? 0.001
                                                  : 0.0;
}

/* What one request contributes under a convention, from DESIGN.md's
 * table, computed from the raw events. */
typedef struct mview {
    bool success;
    bool has_anchor;
    bool has_ttft, has_e2e, has_tpot, has_tps, has_itl_max, has_ntpot;
    /* from the intended start: the delay, and TTFT and E2E where they are
     * measured (not a placeholder), plus the delay */
    bool has_delay, has_sttft, has_se2e;
    int64_t delay, sttft, se2e;
    int64_t ttft, e2e;
    double tpot, tps, itl_max, ntpot;
    uint64_t tpot_w, ntpot_w;
    uint64_t n_out;
    uint64_t itl_w, icl_n;
} mview;

static bool keeps_groups(int32_t conv)
{
    return conv == LLMLAT_CONV_GUIDELLM || conv == LLMLAT_CONV_INFERENCE_PERF;
}

/* span / n seconds: GuideLLM's values as one division (equal fractions,
 * equal doubles), the others' as llmlat 1.0 computed them */
static double per_token(int32_t conv, int64_t span, uint64_t n)
{
    if (conv == LLMLAT_CONV_GUIDELLM)
        return (double)span / (1e9 * (double)n);
    return (double)span / 1e9 / (double)n;
}

static bool counts_event(int32_t conv, uint32_t k)
{
    return conv == LLMLAT_CONV_VLLM || k > 0; /* only vLLM anchors on empty chunks */
}

static void model_view(const mreq *q, int32_t conv, mview *v)
{
    memset(v, 0, sizeof *v);
    const bool gl = conv == LLMLAT_CONV_GUIDELLM, ip = conv == LLMLAT_CONV_INFERENCE_PERF;
    bool ended = q->state == S_FINISHED || q->state == S_FAILED || q->state == S_CANCELLED;
    size_t first = SIZE_MAX, last = SIZE_MAX, first_tok = SIZE_MAX, last_tok = SIZE_MAX;
    uint64_t sum_k = 0, content = 0;
    for (size_t i = 0; i < q->n; i++) {
        if (counts_event(conv, q->k[i])) {
            if (first == SIZE_MAX)
                first = i;
            last = i;
        }
        if (q->k[i]) {
            if (first_tok == SIZE_MAX)
                first_tok = i;
            last_tok = i;
            sum_k += q->k[i];
            content++;
        }
    }
    /* DESIGN section 9: inference-perf counts the client's tokens; a
     * GuideLLM errored request its content chunks */
    v->n_out = ip ? sum_k : gl && q->state == S_FAILED ? content : q->has_out ? q->out_tok : sum_k;
    switch (conv) {
    case LLMLAT_CONV_VLLM:
        v->success = q->state == S_FINISHED && q->n > 0;
        break;
    case LLMLAT_CONV_AIPERF:
        v->success = q->state == S_FINISHED && first_tok != SIZE_MAX &&
                     q->t[last_tok] > q->start;
        break;
    case LLMLAT_CONV_GUIDELLM: /* content, or output tokens */
        v->success = q->state == S_FINISHED && (first_tok != SIZE_MAX || v->n_out > 0);
        break;
    default:
        v->success = q->state == S_FINISHED;
    }
    bool ends_at_finish = conv == LLMLAT_CONV_SGLANG || conv == LLMLAT_CONV_LLMPERF || ip || gl;
    v->has_anchor = first != SIZE_MAX;
    v->has_delay = q->has_sched;
    v->delay = q->start - q->sched;
    if (v->has_anchor && !(ip && sum_k < 2)) { /* inference-perf: two token times */
        v->has_ttft = true;
        v->ttft = q->t[first] - q->start;
        v->has_sttft = q->has_sched;
        v->sttft = q->t[first] - q->sched;
    } else if (!v->has_anchor && ((ends_at_finish && !ip && ended) || gl)) {
        v->has_ttft = true; /* no content: TTFT 0 */
        v->ttft = 0;
    }
    if (ends_at_finish) {
        if (gl ? q->state == S_FINISHED : ended) {
            v->has_e2e = true;
            v->e2e = q->end - q->start;
            v->has_se2e = q->has_sched;
            v->se2e = q->end - q->sched;
        } else if (gl && ended) { /* GuideLLM: no request_end, latency 0 */
            v->has_e2e = true;
            v->e2e = 0;
        }
    } else if (ended && v->has_anchor) {
        v->has_e2e = true;
        v->e2e = q->t[last] - q->start;
        v->has_se2e = q->has_sched;
        v->se2e = q->t[last] - q->sched;
    }
    if ((gl || ip) && ended && v->n_out > 1) { /* first to last token */
        if (v->has_ttft && v->has_anchor) {
            v->has_tpot = true;
            v->tpot = per_token(conv, q->t[last] - q->t[first], v->n_out - 1);
        } else if (gl) {
            v->has_tpot = true;
            v->tpot = 0.0;
        }
    } else if (!gl && !ip && v->has_ttft && v->has_e2e && v->n_out > 1 &&
               !(conv == LLMLAT_CONV_AIPERF && v->ttft == 0)) {
        v->has_tpot = true;
        v->tpot = per_token(conv, v->e2e - v->ttft, v->n_out - 1);
    }
    v->tpot_w = gl && v->has_tpot ? v->n_out - 1 : 1;
    if (ended && v->n_out > 0) { /* NTPOT: latency / N */
        if (gl) {
            v->has_ntpot = true;
            v->ntpot = per_token(conv, (last_tok != SIZE_MAX ? q->t[last_tok] : q->end) - q->start,
                                 v->n_out);
        } else if (v->has_e2e) {
            v->has_ntpot = true;
            v->ntpot = per_token(conv, v->e2e, v->n_out);
        }
    } else if (ended && ip) {
        v->has_ntpot = true;
        v->ntpot = 0.0;
    }
    v->ntpot_w = gl && v->has_ntpot ? v->n_out : 1;
    if (conv == LLMLAT_CONV_AIPERF) {
        v->has_tps = v->has_tpot && v->tpot != 0.0;
        v->tps = v->has_tps ? 1.0 / v->tpot : 0.0;
    } else if (v->has_e2e && v->e2e > 0) {
        v->has_tps = true;
        v->tps = (double)v->n_out / ((double)v->e2e / 1e9);
    }
    /* gaps between counted events, after the anchor */
    if (!v->has_anchor)
        return;
    v->itl_w = q->k[first] > 1 ? q->k[first] - 1 : 0;
    int64_t prev = q->t[first], max_gap = -1;
    uint64_t gaps = 0;
    bool zero_gap = false;
    for (size_t i = first + 1; i <= last; i++) {
        if (!counts_event(conv, q->k[i]))
            continue;
        int64_t g = q->t[i] - prev;
        prev = q->t[i];
        gaps++;
        zero_gap |= g == 0;
        if (g > max_gap)
            max_gap = g;
        v->itl_w += q->k[i];
    }
    v->icl_n = conv == LLMLAT_CONV_AIPERF && zero_gap ? 0 : gaps;
    if (max_gap >= 0) {
        v->has_itl_max = true;
        v->itl_max = ns_to_s(max_gap);
    }
}

static bool list_push(mlist *l, double x, uint32_t w)
{
    if (l->n == MAX_SAMPLES)
        return false;
    l->w[l->n] = w;
    l->v[l->n++] = x;
    return true;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* numpy.percentile's default ('linear'), as numpy computes it. */
static double numpy_quantile(const double *sorted, size_t n, double q)
{
    double vi = (double)(n - 1) * q;
    if (vi >= (double)(n - 1))
        return sorted[n - 1];
    double lo = floor(vi), t = vi - lo;
    double a = sorted[(size_t)lo], b = sorted[(size_t)lo + 1], diff = b - a;
    return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

/* ----------------------------------------------------------- operands */

static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

static const int64_t SPECIAL_TIMES[] = {
    INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX,
    INT64_MAX / 2, -INT64_C(1000000000000000000), INT64_C(1000000000000000000),
    INT64_MIN / 2, INT64_C(3600000000000),
};

/* A time relative to `base`: mostly forward by ns .. hours, sometimes
 * equal, backwards, or one of the extremes. */
static int64_t pick_time(fz_input *in, int64_t base)
{
    static const int64_t scale[] = { 1, 1000, 1000000, 1000000000 };
    uint8_t sel = fz_u8(in);
    switch (sel % 8) {
    case 0: case 1: case 2: case 3:
        return sat_add(base, (int64_t)fz_u16(in) * scale[sel % 4]);
    case 4:
        return sat_add(base, -(int64_t)fz_u8(in) - 1);
    case 5:
        return SPECIAL_TIMES[fz_u8(in) % (sizeof SPECIAL_TIMES / sizeof SPECIAL_TIMES[0])];
    case 6:
        return base;
    default:
        return sat_add(base, (int64_t)fz_u32(in) * 1000);
    }
}

static uint32_t pick_tokens(fz_input *in)
{
    uint8_t sel = fz_u8(in);
    switch (sel % 8) {
    case 0: case 1: case 2:
        return 1;
    case 3:
        return 0;
    case 4:
        return fz_u8(in);
    case 5:
        return UINT32_MAX - fz_u8(in);
    default:
        return fz_u16(in);
    }
}

static uint64_t pick_count(fz_input *in)
{
    uint8_t sel = fz_u8(in);
    switch (sel % 4) {
    case 0:
        return fz_u8(in);
    case 1:
        return fz_u32(in);
    case 2:
        return UINT64_MAX - fz_u8(in);
    default:
        return fz_u64(in);
    }
}

/* --------------------------------------------------------- the recorder */

/* A convention's gap rule: which events make gaps (vLLM counts empty
 * ones), how a chunk's tokens share its gap (inference-perf). */
static int gap_rule(int32_t conv)
{
    return conv == LLMLAT_CONV_VLLM ? 1 : conv == LLMLAT_CONV_INFERENCE_PERF ? 2 : 0;
}

/* Whether the library must refuse q's gaps under g (EMISMATCH): a
 * streaming recorder folded them by its own layout and gap rule. */
static bool folds_otherwise(const mreq *q, int32_t conv)
{
    return q->streaming && gap_rule(conv) != q->rule;
}

static void req_clear_model(mreq *q)
{
    q->state = S_NEW;
    q->has_sched = false;
    q->n = 0;
    q->in_tok = q->out_tok = 0;
    q->has_out = false;
}

/* The status the library must return for a time at this point (event,
 * finish or fail), from the contract: ESTATE unless started, EORDER before
 * the last time, EOVERFLOW when t - start does not fit int64. */
static int32_t time_status(const mreq *q, int64_t t)
{
    if (q->state != S_STARTED)
        return LLMLAT_ESTATE;
    if (t < q->last)
        return LLMLAT_EORDER;
    if (t > q->max_t)
        return LLMLAT_EOVERFLOW;
    return LLMLAT_OK;
}

static void expect_status(int32_t got, int32_t want, const char *what)
{
    FZ_CHECK(got == want, "%s: status %d, model says %d", what, got, want);
}

/* The call returned ENOMEM (allowed only while failures are injected) or
 * what the model predicted; true when it took effect. */
static bool took_effect(int32_t got, int32_t want, const char *what)
{
    if (got == LLMLAT_ENOMEM && want == LLMLAT_OK && fz_al.fail_at >= 0)
        return false;
    expect_status(got, want, what);
    return got == LLMLAT_OK;
}

/* llmlat_request_schedule: ESTATE once ended; once started, at or before
 * the start and within int64 of every time recorded (the last is the
 * latest). */
static void op_schedule(fz_input *in, mreq *q)
{
    if (!q->r)
        return;
    int64_t t = pick_time(in, q->state == S_NEW ? 0 : q->start);
    bool ended = q->state == S_FINISHED || q->state == S_FAILED || q->state == S_CANCELLED;
    int64_t max_t = t <= 0 ? t + INT64_MAX : INT64_MAX;
    int32_t want = ended                                    ? LLMLAT_ESTATE
                   : q->state == S_STARTED && t > q->start  ? LLMLAT_EORDER
                   : q->state == S_STARTED && q->last > max_t ? LLMLAT_EOVERFLOW
                                                              : LLMLAT_OK;
    expect_status(llmlat_request_schedule(q->r, t), want, "schedule");
    if (want != LLMLAT_OK)
        return;
    q->has_sched = true;
    q->sched = t;
    if (q->state == S_STARTED)
        q->max_t = max_t;
    int64_t got = 0;
    expect_status(llmlat_request_get_schedule(q->r, &got), LLMLAT_OK, "get_schedule");
    FZ_CHECK(got == t, "get_schedule %lld, model %lld", (long long)got, (long long)t);
}

static void op_request(fz_input *in, mreq *q)
{
    uint8_t op = fz_u8(in);
    if (!q->r) {
        /* a streaming recorder like a bounded aggregator, by op's top bit */
        const magg *like = &aggs[((op >> 4) & 3) % N_AGG];
        q->streaming = (op & 0x80) && like->a && like->mode == LLMLAT_MODE_BOUNDED;
        q->r = q->streaming ? llmlat_request_new_streaming(like->a) : llmlat_request_new();
        FZ_CHECK(q->r || fz_al.fail_at >= 0, "request_new failed without injection");
        if (q->streaming) {
            q->alpha = like->params[LLMLAT_PARAM_RELATIVE_ERROR - 1];
            q->rule = gap_rule(like->conv);
        }
        req_clear_model(q);
        return;
    }
    switch (op % 9) {
    case 0: /* reset */
        expect_status(llmlat_request_reset(q->r), LLMLAT_OK, "reset");
        req_clear_model(q);
        break;
    case 1: { /* start */
        int64_t t = pick_time(in, q->state == S_NEW ? 0 : q->start);
        if (q->state != S_NEW) {
            expect_status(llmlat_request_start(q->r, t), LLMLAT_ESTATE, "start twice");
            break;
        }
        /* with an intended start: at or after it, within int64 of it */
        int64_t from = q->has_sched ? q->sched : t;
        int64_t max_t = from <= 0 ? from + INT64_MAX : INT64_MAX;
        int32_t want = !q->has_sched ? LLMLAT_OK
                       : t < q->sched ? LLMLAT_EORDER
                       : t > max_t    ? LLMLAT_EOVERFLOW
                                      : LLMLAT_OK;
        expect_status(llmlat_request_start(q->r, t), want, "start");
        if (want != LLMLAT_OK)
            break;
        q->state = S_STARTED;
        q->start = q->last = t;
        q->max_t = max_t;
        break;
    }
    case 2: case 3: case 4: { /* event */
        int64_t t = pick_time(in, q->last);
        uint32_t k = pick_tokens(in);
        if (q->n == MAX_EV)
            break;
        int32_t want = time_status(q, t);
        if (took_effect(llmlat_request_event(q->r, t, k), want, "event")) {
            q->t[q->n] = t;
            q->k[q->n++] = k;
            q->last = t;
        }
        break;
    }
    case 5: { /* bulk events: all or nothing */
        size_t n = fz_u8(in) % 9;
        int64_t t[8];
        uint32_t k[8];
        int64_t prev = q->last;
        for (size_t i = 0; i < n; i++) {
            t[i] = pick_time(in, prev);
            k[i] = pick_tokens(in);
            prev = t[i] > prev ? t[i] : prev;
        }
        if (q->n + n > MAX_EV)
            break;
        int32_t want = q->state == S_STARTED ? LLMLAT_OK : LLMLAT_ESTATE;
        mreq probe = *q;
        for (size_t i = 0; i < n && want == LLMLAT_OK; i++) {
            want = time_status(&probe, t[i]);
            probe.last = t[i];
        }
        if (n > 0 && fz_u8(in) == 0xff) { /* NULL arrays with n > 0 */
            expect_status(llmlat_request_events(q->r, NULL, k, n), LLMLAT_EINVAL, "events NULL");
            break;
        }
        if (took_effect(llmlat_request_events(q->r, n ? t : NULL, n ? k : NULL, n), want,
                        "events")) {
            memcpy(q->t + q->n, t, n * sizeof *t);
            memcpy(q->k + q->n, k, n * sizeof *k);
            q->n += n;
            if (n)
                q->last = t[n - 1];
        }
        break;
    }
    case 6: case 7: { /* finish, or fail / cancel by an operand */
        int64_t t = pick_time(in, q->last);
        int32_t want = time_status(q, t);
        int how = op % 9 == 6 ? S_FINISHED : fz_u8(in) & 1 ? S_CANCELLED : S_FAILED;
        int32_t got = how == S_FINISHED ? llmlat_request_finish(q->r, t)
                      : how == S_FAILED ? llmlat_request_fail(q->r, t)
                                        : llmlat_request_cancel(q->r, t);
        expect_status(got, want, "finish/fail/cancel");
        if (got == LLMLAT_OK) {
            q->state = how;
            q->end = t;
        }
        break;
    }
    default: { /* token counts */
        uint64_t n = pick_count(in);
        if (fz_u8(in) & 1) {
            expect_status(llmlat_request_set_input_tokens(q->r, n), LLMLAT_OK, "input tokens");
            q->in_tok = n;
        } else {
            expect_status(llmlat_request_set_output_tokens(q->r, n), LLMLAT_OK, "output tokens");
            q->out_tok = n;
            q->has_out = true;
        }
    }
    }
}

static void expect_value(const mreq *q, int32_t conv, int32_t metric, bool has, double want)
{
    double got = -1.0;
    int32_t st = llmlat_request_value(q->r, conv, metric, &got);
    if (!has) {
        FZ_CHECK(st == LLMLAT_EUNDEFINED && isnan(got),
                 "value conv %d metric %d: status %d, %.17g; model: undefined", conv, metric, st,
                 got);
        return;
    }
    FZ_CHECK(st == LLMLAT_OK, "value conv %d metric %d: status %d; model: %.17g", conv, metric,
             st, want);
    FZ_CHECK(got == want || fabs(got - want) <= 1e-12 * fabs(want),
             "value conv %d metric %d: %.17g; model: %.17g", conv, metric, got, want);
}

static void check_request(const mreq *q)
{
    if (!q->r)
        return;
    double v;
    if (q->state == S_NEW) {
        expect_status(llmlat_request_value(q->r, LLMLAT_CONV_DEFAULT, LLMLAT_TTFT, &v),
                      LLMLAT_ESTATE, "value before start");
        return;
    }
    bool ended = q->state != S_STARTED;
    for (int32_t c = LLMLAT_CONV_DEFAULT; c <= LLMLAT_CONV_INFERENCE_PERF; c++) {
        mview m;
        model_view(q, c, &m);
        /* In flight, the no-content TTFT of SGLang/LLMPerf is the
         * library's choice; everything else is the contract's. */
        if (ended || m.has_anchor)
            expect_value(q, c, LLMLAT_TTFT, m.has_ttft, ns_to_s(m.ttft));
        expect_value(q, c, LLMLAT_E2E, m.has_e2e, ns_to_s(m.e2e));
        expect_value(q, c, LLMLAT_TPOT, m.has_tpot, m.tpot);
        expect_value(q, c, LLMLAT_NTPOT, m.has_ntpot, m.ntpot);
        expect_value(q, c, LLMLAT_OUTPUT_TOKENS, ended, (double)m.n_out);
        expect_value(q, c, LLMLAT_INPUT_TOKENS, true, (double)q->in_tok);
        expect_value(q, c, LLMLAT_DISPATCH_DELAY, m.has_delay, ns_to_s(m.delay));
        if (ended || m.has_anchor)
            expect_value(q, c, LLMLAT_SCHEDULED_TTFT, m.has_sttft, ns_to_s(m.sttft));
        expect_value(q, c, LLMLAT_SCHEDULED_E2E, m.has_se2e, ns_to_s(m.se2e));
        if (folds_otherwise(q, c))
            FZ_CHECK(llmlat_request_value(q->r, c, LLMLAT_ITL_MAX, &v) == LLMLAT_EMISMATCH,
                     "streaming recorder's ITL_MAX under another gap rule");
        else
            expect_value(q, c, LLMLAT_ITL_MAX, m.has_itl_max, m.itl_max);
    }
}

/* ------------------------------------------------------- the aggregator */

static void agg_clear_model(magg *g)
{
    g->completed = g->failed = g->tpot_undef = g->in_tok = g->out_tok = 0;
    g->itl_count = g->icl_count = 0;
    g->fail_in[0] = g->fail_in[1] = g->fail_out[0] = g->fail_out[1] = 0;
    g->start_at_max = g->end_at_max = false;
    for (int i = 0; i < N_LISTS; i++)
        g->lists[i].n = 0;
}

static void agg_free_slot(magg *g)
{
    llmlat_agg_free(g->a);
    g->a = NULL;
}

static bool add_overflows(uint64_t x, uint64_t y)
{
    return y > UINT64_MAX - x;
}

static void op_agg_new(fz_input *in, magg *g)
{
    int32_t conv = fz_u8(in) % 9 - 1; /* -1 and 7: unknown */
    int32_t mode = fz_u8(in) % 3;     /* 2: unknown */
    agg_free_slot(g);
    g->a = llmlat_agg_new(conv, mode);
    bool known = conv >= 0 && conv <= LLMLAT_CONV_INFERENCE_PERF && mode <= 1;
    if (!known) {
        FZ_CHECK(!g->a, "agg_new accepted convention %d mode %d", conv, mode);
        return;
    }
    FZ_CHECK(g->a || fz_al.fail_at >= 0, "agg_new failed without injection");
    g->conv = conv;
    g->mode = mode;
    for (int32_t p = 1; p <= N_PARAMS; p++)
        g->params[p - 1] = param_default(p);
    agg_clear_model(g);
}

static void op_add(magg *g, const mreq *q)
{
    if (!g->a || !q->r)
        return;
    bool ended = q->state == S_FINISHED || q->state == S_FAILED || q->state == S_CANCELLED;
    if (!ended) {
        expect_status(llmlat_agg_add(g->a, q->r), LLMLAT_ESTATE, "add in flight");
        return;
    }
    mview m;
    model_view(q, g->conv, &m);
    int grp = q->state == S_CANCELLED ? 0 : 1;
    /* what the request's tokens are added to: the successes', or its
     * status group's where the convention keeps them */
    bool kept = m.success || keeps_groups(g->conv);
    uint64_t *in_tok = m.success ? &g->in_tok : &g->fail_in[grp];
    uint64_t *out_tok = m.success ? &g->out_tok : &g->fail_out[grp];
    int32_t want = LLMLAT_OK;
    if (q->streaming && (g->mode != LLMLAT_MODE_BOUNDED || folds_otherwise(q, g->conv) ||
                         g->params[LLMLAT_PARAM_RELATIVE_ERROR - 1] != q->alpha))
        want = LLMLAT_EMISMATCH;
    else if (m.tpot_w > UINT32_MAX || m.ntpot_w > UINT32_MAX) /* GuideLLM: exact weights */
        want = LLMLAT_EOVERFLOW;
    else if (kept && (add_overflows(*in_tok, q->in_tok) || add_overflows(*out_tok, m.n_out)))
        want = LLMLAT_EOVERFLOW;
    else if (kept && m.has_tps && !(m.tps >= 0.0 && m.tps < 18446744073709551616.0))
        want = LLMLAT_EOVERFLOW; /* samples below 2^64, in both modes */
    if (m.success)
        for (int i = 0; i < N_LISTS; i++)
            if (g->lists[i].n == MAX_SAMPLES)
                return; /* beyond the model's room */
    if (!took_effect(llmlat_agg_add(g->a, q->r), want, "add"))
        return;
    g->start_at_max |= q->start == INT64_MAX;
    g->end_at_max |= q->end == INT64_MAX;
    if (kept) {
        *in_tok += q->in_tok;
        *out_tok += m.n_out;
    }
    if (!m.success) {
        g->failed++;
        return;
    }
    g->completed++;
    g->tpot_undef += !m.has_tpot;
    g->itl_count += m.itl_w;
    g->icl_count += m.icl_n;
    if (m.has_ttft)
        list_push(&g->lists[L_TTFT], ns_to_s(m.ttft), 1);
    if (m.has_e2e)
        list_push(&g->lists[L_E2E], ns_to_s(m.e2e), 1);
    if (m.has_tpot)
        list_push(&g->lists[L_TPOT], m.tpot, (uint32_t)m.tpot_w);
    if (m.has_itl_max)
        list_push(&g->lists[L_ITL_MAX], m.itl_max, 1);
    if (m.has_ntpot)
        list_push(&g->lists[L_NTPOT], m.ntpot, (uint32_t)m.ntpot_w);
    if (m.has_delay)
        list_push(&g->lists[L_DELAY], ns_to_s(m.delay), 1);
    if (m.has_sttft)
        list_push(&g->lists[L_STTFT], ns_to_s(m.sttft), 1);
    if (m.has_se2e)
        list_push(&g->lists[L_SE2E], ns_to_s(m.se2e), 1);
}

static bool same_bounded_params(const magg *x, const magg *y)
{
    for (int32_t p = 1; p <= 5; p++)
        if (p != LLMLAT_PARAM_DURATION && x->params[p - 1] != y->params[p - 1])
            return false;
    return true;
}

static void op_merge(magg *dst, const magg *src)
{
    if (!dst->a || !src->a)
        return;
    if (dst == src) {
        expect_status(llmlat_agg_merge(dst->a, dst->a), LLMLAT_EINVAL, "merge into itself");
        return;
    }
    int32_t want = LLMLAT_OK;
    if (dst->conv != src->conv || dst->mode != src->mode ||
        (dst->mode == LLMLAT_MODE_BOUNDED && !same_bounded_params(dst, src)))
        want = LLMLAT_EMISMATCH;
    else if (add_overflows(dst->in_tok, src->in_tok) || add_overflows(dst->out_tok, src->out_tok) ||
             add_overflows(dst->fail_in[0], src->fail_in[0]) ||
             add_overflows(dst->fail_in[1], src->fail_in[1]) ||
             add_overflows(dst->fail_out[0], src->fail_out[0]) ||
             add_overflows(dst->fail_out[1], src->fail_out[1]))
        want = LLMLAT_EOVERFLOW;
    for (int i = 0; i < N_LISTS; i++)
        if (dst->lists[i].n + src->lists[i].n > MAX_SAMPLES)
            return;
    if (!took_effect(llmlat_agg_merge(dst->a, src->a), want, "merge"))
        return;
    dst->completed += src->completed;
    dst->failed += src->failed;
    dst->start_at_max |= src->start_at_max;
    dst->end_at_max |= src->end_at_max;
    dst->tpot_undef += src->tpot_undef;
    dst->in_tok += src->in_tok;
    dst->out_tok += src->out_tok;
    dst->itl_count += src->itl_count;
    dst->icl_count += src->icl_count;
    for (int i = 0; i < 2; i++) {
        dst->fail_in[i] += src->fail_in[i];
        dst->fail_out[i] += src->fail_out[i];
    }
    for (int i = 0; i < N_LISTS; i++)
        for (size_t j = 0; j < src->lists[i].n; j++)
            list_push(&dst->lists[i], src->lists[i].v[j], src->lists[i].w[j]);
}

static void op_param(fz_input *in, magg *g)
{
    static const double values[] = { 0.0, 0.01, 0.02, 0.05, 0.25, 1.0, 0.5, 1e-4, -1.0, 3.0 };
    int32_t p = fz_u8(in) % (N_PARAMS + 1); /* 0: unknown */
    double v = values[fz_u8(in) % (sizeof values / sizeof values[0])];
    if (!g->a)
        return;
    int32_t want = LLMLAT_OK;
    double lo = 0.0, hi = 0.0;
    if (p == 0) {
        want = LLMLAT_EINVAL;
    } else {
        expect_status(llmlat_param_bounds(p, &lo, &hi), LLMLAT_OK, "param bounds");
        if (!(v >= lo && v <= hi))
            want = LLMLAT_EINVAL;
        else if (g->mode == LLMLAT_MODE_BOUNDED && p != LLMLAT_PARAM_DURATION &&
                 p != LLMLAT_PARAM_MAX_DISPATCH_DELAY && v != g->params[p - 1] &&
                 (g->completed || g->failed))
            want = LLMLAT_ESTATE;
    }
    if (took_effect(llmlat_agg_set_param(g->a, p, v), want, "set_param"))
        g->params[p - 1] = v;
    if (p) {
        double back;
        expect_status(llmlat_agg_get_param(g->a, p, &back), LLMLAT_OK, "get_param");
        FZ_CHECK(back == g->params[p - 1], "param %d reads %g, model %g", p, back,
                 g->params[p - 1]);
    }
}

static bool any_slo(const magg *g)
{
    return g->params[LLMLAT_PARAM_SLO_TTFT - 1] > 0 || g->params[LLMLAT_PARAM_SLO_TPOT - 1] > 0 ||
           g->params[LLMLAT_PARAM_SLO_E2E - 1] > 0;
}

static void expect_counter(const magg *g, int32_t counter, uint64_t want)
{
    uint64_t got = 0;
    expect_status(llmlat_agg_counter(g->a, counter, &got), LLMLAT_OK, "counter");
    FZ_CHECK(got == want, "counter %d = %llu, model %llu (conv %d mode %d)", counter,
             (unsigned long long)got, (unsigned long long)want, g->conv, g->mode);
}

/* A query that allocates may fail while failures are injected. */
static bool query_ok(int32_t st, const char *what)
{
    if (st == LLMLAT_ENOMEM && fz_al.fail_at >= 0)
        return false;
    expect_status(st, LLMLAT_OK, what);
    return true;
}

static double mean_of(const double *v, size_t n)
{
    long double s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i];
    return (double)(s / (long double)n);
}

static double std_of(const double *v, size_t n, unsigned ddof)
{
    long double s = 0, mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += v[i];
    mean /= (long double)n;
    for (size_t i = 0; i < n; i++)
        s += ((long double)v[i] - mean) * ((long double)v[i] - mean);
    return (double)sqrtl(s / (long double)(n - ddof));
}

static bool zero_placeholder(int32_t conv)
{
    return conv == LLMLAT_CONV_VLLM || conv == LLMLAT_CONV_SGLANG ||
           conv == LLMLAT_CONV_GUIDELLM;
}

typedef struct wsample {
    double v;
    uint32_t w;
} wsample;

static int cmp_wsample(const void *x, const void *y)
{
    return cmp_double(&((const wsample *)x)->v, &((const wsample *)y)->v);
}

/* The value at 0-based rank r of the samples expanded by their weights. */
static double at_rank(const wsample *s, size_t n, uint64_t r)
{
    uint64_t below = 0;
    size_t i = 0;
    while (i + 1 < n && below + s[i].w <= r)
        below += s[i++].w;
    return s[i].v;
}

/* GuideLLM's inverse CDF: equal values merged, their probabilities w / W
 * summed in double one value at a time (numpy.cumsum), the first value
 * whose sum reaches q (numpy.searchsorted), the largest past every sum. */
static double guidellm_quantile(const wsample *s, size_t n, uint64_t total, double q)
{
    double cdf = 0.0;
    for (size_t i = 0; i < n;) {
        double v = s[i].v;
        uint64_t w = 0;
        for (; i < n && s[i].v == v; i++)
            w += s[i].w;
        cdf += (double)w / (double)total;
        if (cdf >= q)
            return v;
    }
    return s[n - 1].v;
}

/* Weighted samples: GuideLLM's TPOT and NTPOT weigh N - 1 and N, which
 * the model does not expand; its quantiles are the inverse CDF. */
static void check_weighted(const magg *g, int32_t metric, const wsample *s, size_t n,
                           uint64_t total)
{
    double got = -1.0;
    bool bounded = g->mode == LLMLAT_MODE_BOUNDED;
    long double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++)
        sum += (long double)s[i].w * s[i].v;
    long double mean = sum / (long double)total;
    for (size_t i = 0; i < n; i++)
        sq += (long double)s[i].w * ((long double)s[i].v - mean) * ((long double)s[i].v - mean);
    double lo = s[0].v, hi = s[n - 1].v;
    if (query_ok(llmlat_agg_stat(g->a, metric, LLMLAT_STAT_MEAN, &got), "mean"))
        FZ_CHECK(fabs(got - (double)mean) <= 1e-9 * fabs((double)mean) + 1e-20,
                 "metric %d weighted mean %.17g, model %.17g (mode %d)", metric, got,
                 (double)mean, g->mode);
    if (query_ok(llmlat_agg_stat(g->a, metric, LLMLAT_STAT_STD, &got), "std")) {
        /* bounded mode sums the squares span^2 / w of weighted samples
         * exactly but for a cut at 2^-64 ns^2 each (fixsum.h), as it cuts
         * fractional samples: the unweighted lists' allowance */
        double sd = (double)sqrtl(sq / (long double)total);
        double cut = bounded ? sqrt(ldexp(hi * 1e9 + 1.0, -60)) / 1e9 : 1e-300;
        FZ_CHECK(fabs(got - sd) <= 1e-9 * hi + cut,
                 "metric %d weighted std %.17g, model %.17g (mode %d)", metric, got, sd,
                 g->mode);
    }
    static const double qs[] = { 0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 1.0 };
    double out[7];
    if (!query_ok(llmlat_agg_quantiles(g->a, metric, qs, 7, out), "quantiles"))
        return;
    double alpha = g->params[LLMLAT_PARAM_RELATIVE_ERROR - 1];
    for (int i = 0; i < 7; i++) {
        if (!bounded) {
            double want = guidellm_quantile(s, n, total, qs[i]);
            FZ_CHECK(out[i] == want, "metric %d inverse-CDF q%g %.17g, model %.17g", metric,
                     qs[i], out[i], want);
            continue;
        }
        /* bounded: the rank exact sums reach, within alpha in the window */
        double reach = ceil(qs[i] * (double)total);
        uint64_t r = reach < 1.0 ? 0 : (uint64_t)reach - 1;
        double want = at_rank(s, n, r < total ? r : total - 1);
        FZ_CHECK(out[i] >= lo && out[i] <= hi, "bounded q%g %.17g outside [%.17g, %.17g]",
                 qs[i], out[i], lo, hi);
        if (want == 0.0 || want >= ldexp(hi, -31))
            FZ_CHECK(fabs(out[i] - want) <= alpha * fabs(want) * (1 + 1e-9) + 1e-300,
                     "bounded inverse-CDF metric %d q%g %.17g, exact %.17g", metric, qs[i],
                     out[i], want);
    }
    double median;
    if (query_ok(llmlat_agg_stat(g->a, metric, LLMLAT_STAT_MEDIAN, &median), "median"))
        FZ_CHECK(median == out[3], "metric %d median %.17g != q0.5 %.17g", metric, median,
                 out[3]);
}

static void check_list(const magg *g, int32_t metric, const mlist *l)
{
    static double sorted[MAX_SAMPLES];
    static wsample pairs[MAX_SAMPLES];
    uint64_t total = 0;
    for (size_t i = 0; i < l->n; i++) {
        pairs[i] = (wsample){ l->v[i], l->w[i] };
        total += l->w[i];
    }
    double got = -1.0;
    expect_status(llmlat_agg_stat(g->a, metric, LLMLAT_STAT_COUNT, &got), LLMLAT_OK, "count");
    FZ_CHECK(got == (double)total, "metric %d count %.17g, model %llu (conv %d mode %d)",
             metric, got, (unsigned long long)total, g->conv, g->mode);
    if (l->n == 0) {
        int32_t st = llmlat_agg_stat(g->a, metric, LLMLAT_STAT_MEAN, &got);
        /* nobody's measurement from the intended start has no placeholder */
        bool from_schedule = metric >= LLMLAT_DISPATCH_DELAY;
        if (zero_placeholder(g->conv) && !from_schedule)
            FZ_CHECK(st == LLMLAT_OK && got == 0.0, "empty metric %d: %d %g", metric, st, got);
        else
            FZ_CHECK(st == LLMLAT_EUNDEFINED && isnan(got), "empty metric %d: %d %g", metric, st,
                     got);
        return;
    }
    qsort(pairs, l->n, sizeof *pairs, cmp_wsample);
    double lo = pairs[0].v, hi = pairs[l->n - 1].v;
    expect_status(llmlat_agg_stat(g->a, metric, LLMLAT_STAT_MIN, &got), LLMLAT_OK, "min");
    FZ_CHECK(got == lo, "metric %d min %.17g, model %.17g", metric, got, lo);
    expect_status(llmlat_agg_stat(g->a, metric, LLMLAT_STAT_MAX, &got), LLMLAT_OK, "max");
    FZ_CHECK(got == hi, "metric %d max %.17g, model %.17g", metric, got, hi);
    if (g->conv == LLMLAT_CONV_GUIDELLM) {
        check_weighted(g, metric, pairs, l->n, total);
        return;
    }
    for (size_t i = 0; i < l->n; i++)
        sorted[i] = pairs[i].v; /* weights are all 1 */

    /* Bounded mode sums in fixed point: a fraction of a ns is cut at
     * 2^-64 ns (fixsum.h), which only shows on absurdly small values
     * (a TPOT of 1e-24 s); the std's variance inherits that cut. */
    bool bounded = g->mode == LLMLAT_MODE_BOUNDED;
    double scale = fabs(hi) > fabs(lo) ? fabs(hi) : fabs(lo);
    double abs_mean = bounded ? 1e-28 : 1e-300;
    double abs_std = bounded ? sqrt(ldexp(scale * 1e9 + 1.0, -60)) / 1e9 : 1e-300;
    double mean = mean_of(sorted, l->n);
    if (query_ok(llmlat_agg_stat(g->a, metric, LLMLAT_STAT_MEAN, &got), "mean"))
        FZ_CHECK(fabs(got - mean) <= 1e-9 * fabs(mean) + abs_mean,
                 "metric %d mean %.17g, model %.17g (conv %d mode %d)", metric, got, mean,
                 g->conv, g->mode);
    unsigned ddof = g->conv == LLMLAT_CONV_LLMPERF;
    int32_t st = llmlat_agg_stat(g->a, metric, LLMLAT_STAT_STD, &got);
    if (l->n <= ddof) {
        FZ_CHECK(st == LLMLAT_EUNDEFINED && isnan(got), "std of one sample: %d %g", st, got);
    } else if (query_ok(st, "std")) {
        double sd = std_of(sorted, l->n, ddof);
        FZ_CHECK(fabs(got - sd) <= 1e-9 * scale + abs_std,
                 "metric %d std %.17g, model %.17g (conv %d mode %d)", metric, got, sd, g->conv,
                 g->mode);
    }

    static const double qs[] = { 0.0, 0.01, 0.25, 0.5, 0.9, 0.99, 1.0 };
    double out[7];
    if (!query_ok(llmlat_agg_quantiles(g->a, metric, qs, 7, out), "quantiles"))
        return;
    double median;
    if (query_ok(llmlat_agg_stat(g->a, metric, LLMLAT_STAT_MEDIAN, &median), "median")) {
        if (g->mode == LLMLAT_MODE_EXACT) {
            size_t h = l->n / 2;
            double want = l->n % 2 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2.0;
            FZ_CHECK(median == want, "metric %d median %.17g, model %.17g", metric, median, want);
        } else {
            FZ_CHECK(median == out[3], "bounded median %.17g != q0.5 %.17g", median, out[3]);
        }
    }
    double alpha = g->params[LLMLAT_PARAM_RELATIVE_ERROR - 1];
    for (int i = 0; i < 7; i++) {
        double want = numpy_quantile(sorted, l->n, qs[i]);
        if (g->mode == LLMLAT_MODE_EXACT) {
            FZ_CHECK(out[i] == want, "metric %d q%g %.17g, numpy %.17g (conv %d)", metric, qs[i],
                     out[i], want, g->conv);
            continue;
        }
        /* Bounded: within alpha of exact while the ranks involved lie in
         * the sketch's 2^32-wide window below the maximum (sketch.h). */
        double vi = (double)(l->n - 1) * qs[i];
        size_t r = vi >= (double)(l->n - 1) ? l->n - 1 : (size_t)floor(vi);
        size_t r1 = r + 1 < l->n ? r + 1 : r;
        double floor_v = ldexp(hi, -31);
        bool in_window = (sorted[r] == 0.0 || sorted[r] >= floor_v) &&
                         (sorted[r1] == 0.0 || sorted[r1] >= floor_v);
        FZ_CHECK(out[i] >= lo && out[i] <= hi, "bounded q%g %.17g outside [%.17g, %.17g]", qs[i],
                 out[i], lo, hi);
        if (in_window)
            FZ_CHECK(fabs(out[i] - want) <= alpha * fabs(want) * (1 + 1e-9) + 1e-300,
                     "bounded metric %d q%g %.17g, exact %.17g, alpha %g (conv %d)", metric,
                     qs[i], out[i], want, alpha, g->conv);
    }
}

/* Queries without a model: they must answer with a documented status. */
static void probe_other_queries(const magg *g)
{
    double v;
    uint64_t u;
    for (int32_t r = LLMLAT_RATE_REQUESTS; r <= LLMLAT_RATE_PEAK_OUTPUT_TOKENS; r++) {
        int32_t st = llmlat_agg_rate(g->a, r, &v);
        FZ_CHECK(st == LLMLAT_OK || st == LLMLAT_EUNDEFINED ||
                     (st == LLMLAT_ENOMEM && fz_al.fail_at >= 0),
                 "rate %d status %d", r, st);
        FZ_CHECK(st == LLMLAT_OK ? !isnan(v) && v >= 0 : isnan(v) || st == LLMLAT_ENOMEM,
                 "rate %d value %g with status %d", r, v, st);
    }
    int32_t st = llmlat_agg_counter(g->a, LLMLAT_COUNT_GOOD, &u);
    FZ_CHECK(any_slo(g) ? st == LLMLAT_OK && u <= g->completed : st == LLMLAT_EUNDEFINED,
             "good counter: status %d, %llu", st, (unsigned long long)u);
    st = llmlat_agg_counter(g->a, LLMLAT_COUNT_PEAK_CONCURRENCY, &u);
    if (g->mode == LLMLAT_MODE_EXACT && query_ok(st, "peak concurrency"))
        FZ_CHECK(u <= g->completed, "peak concurrency %llu > completed",
                 (unsigned long long)u);
    expect_status(llmlat_agg_counter(g->a, LLMLAT_COUNT_MEMORY_BYTES, &u), LLMLAT_OK, "memory");
    for (int32_t m = LLMLAT_ITL; m <= LLMLAT_SCHEDULED_E2E; m++) {
        static const double q[] = { 0.5, 0.999 };
        double out[2];
        st = llmlat_agg_quantiles(g->a, m, q, 2, out);
        FZ_CHECK(st == LLMLAT_OK || st == LLMLAT_EUNDEFINED ||
                     (st == LLMLAT_ENOMEM && fz_al.fail_at >= 0),
                 "quantiles of %d: status %d", m, st);
    }
}

static void check_agg(const magg *g)
{
    if (!g->a)
        return;
    if (getenv("LLMLAT_FUZZ_TRACE")) /* what a replayed input reached */
        fprintf(stderr, "check agg %d conv %d mode %d: completed %llu failed %llu, "
                "%zu TTFT %zu E2E %zu TPOT, %llu ITL\n", (int)(g - aggs), g->conv, g->mode,
                (unsigned long long)g->completed, (unsigned long long)g->failed,
                g->lists[L_TTFT].n, g->lists[L_E2E].n, g->lists[L_TPOT].n,
                (unsigned long long)g->itl_count);
    int32_t c = -1, m = -1;
    expect_status(llmlat_agg_get_convention(g->a, &c), LLMLAT_OK, "get_convention");
    expect_status(llmlat_agg_get_mode(g->a, &m), LLMLAT_OK, "get_mode");
    FZ_CHECK(c == g->conv && m == g->mode, "convention %d mode %d, model %d %d", c, m, g->conv,
             g->mode);
    expect_counter(g, LLMLAT_COUNT_COMPLETED, g->completed);
    expect_counter(g, LLMLAT_COUNT_FAILED, g->failed);
    expect_counter(g, LLMLAT_COUNT_TPOT_UNDEFINED, g->tpot_undef);
    expect_counter(g, LLMLAT_COUNT_INPUT_TOKENS, g->in_tok);
    expect_counter(g, LLMLAT_COUNT_OUTPUT_TOKENS, g->out_tok);
    double got;
    expect_status(llmlat_agg_stat(g->a, LLMLAT_ITL, LLMLAT_STAT_COUNT, &got), LLMLAT_OK, "count");
    FZ_CHECK(got == (double)g->itl_count, "ITL count %.17g, model %llu (conv %d)", got,
             (unsigned long long)g->itl_count, g->conv);
    expect_status(llmlat_agg_stat(g->a, LLMLAT_ICL, LLMLAT_STAT_COUNT, &got), LLMLAT_OK, "count");
    FZ_CHECK(got == (double)g->icl_count, "ICL count %.17g, model %llu (conv %d)", got,
             (unsigned long long)g->icl_count, g->conv);
    for (int i = 0; i < N_LISTS; i++)
        check_list(g, LIST_METRIC[i], &g->lists[i]);
    probe_other_queries(g);
}

/* What a streamed report wrote: compared with the buffered one. */
typedef struct fz_stream {
    const char *want;
    size_t want_len, len;
    bool differs;
} fz_stream;

static int32_t fz_stream_write(void *user, const void *bytes, size_t n)
{
    fz_stream *s = user;
    if (n == 0 || n > s->want_len - s->len || memcmp(s->want + s->len, bytes, n) != 0)
        s->differs = true;
    else
        s->len += n;
    return LLMLAT_OK;
}

/* A report in each format: the buffer contract (ENOSPC with the size,
 * then exactly that size), the same bytes streamed, or ENOMEM under
 * injection. */
static void op_report(fz_input *in, const magg *g)
{
    /* 0: unknown; the per-request formats need an exact aggregator */
    static const int32_t FORMATS[] = { 0,
                                       LLMLAT_FORMAT_TEXT,
                                       LLMLAT_FORMAT_JSON,
                                       LLMLAT_FORMAT_PROMETHEUS,
                                       LLMLAT_FORMAT_OPENMETRICS,
                                       LLMLAT_FORMAT_PROMETHEUS_PROTOBUF,
                                       LLMLAT_FORMAT_HTML,
                                       LLMLAT_FORMAT_CHROME_TRACE,
                                       LLMLAT_FORMAT_REQUESTS_CSV,
                                       LLMLAT_FORMAT_REQUESTS_JSONL };
    int32_t format = FORMATS[fz_u8(in) % (sizeof FORMATS / sizeof FORMATS[0])];
    if (!g->a)
        return;
    size_t len = 0;
    int32_t st = llmlat_agg_report(g->a, format, NULL, 0, &len);
    if (format == 0) {
        expect_status(st, LLMLAT_EINVAL, "report format 0");
        return;
    }
    if (format >= LLMLAT_FORMAT_CHROME_TRACE && g->mode == LLMLAT_MODE_BOUNDED) {
        expect_status(st, LLMLAT_EUNDEFINED, "per-request report in bounded mode");
        return;
    }
    if (st == LLMLAT_ENOMEM && fz_al.fail_at >= 0)
        return;
    /* an empty report (JSONL of no request) fits the empty buffer */
    expect_status(st, len ? LLMLAT_ENOSPC : LLMLAT_OK, "report sizing");
    char *buf = malloc(len ? len : 1);
    FZ_CHECK(buf, "test allocation");
    size_t got = 0;
    st = llmlat_agg_report(g->a, format, buf, len, &got);
    if (!(st == LLMLAT_ENOMEM && fz_al.fail_at >= 0)) {
        expect_status(st, LLMLAT_OK, "report");
        FZ_CHECK(got == len, "report of %zu bytes, sized %zu", got, len);
        fz_stream s = { buf, len, 0, false };
        st = llmlat_agg_report_write(g->a, format, fz_stream_write, &s);
        if (!(st == LLMLAT_ENOMEM && fz_al.fail_at >= 0)) {
            expect_status(st, LLMLAT_OK, "report_write");
            FZ_CHECK(!s.differs && s.len == len, "streamed report differs from the buffered one");
        }
    }
    free(buf);
}

/* The JSON report of a, for comparing aggregators (NULL under an injected
 * failure). */
static char *fz_json_of(const llmlat_agg *a)
{
    size_t len = 0;
    int32_t st = llmlat_agg_report(a, LLMLAT_FORMAT_JSON, NULL, 0, &len);
    if (st == LLMLAT_ENOMEM && fz_al.fail_at >= 0)
        return NULL;
    expect_status(st, LLMLAT_ENOSPC, "json sizing");
    char *buf = malloc(len + 1);
    FZ_CHECK(buf, "test allocation");
    st = llmlat_agg_report(a, LLMLAT_FORMAT_JSON, buf, len, &len);
    if (st == LLMLAT_ENOMEM && fz_al.fail_at >= 0) {
        free(buf);
        return NULL;
    }
    expect_status(st, LLMLAT_OK, "json");
    buf[len] = '\0';
    return buf;
}

/* Windows of g into new aggregators like it: the window of everything is
 * g again, and two START windows split at any time add up to it (but for
 * a request at INT64_MAX, which no START or END window holds). */
static void op_window(fz_input *in, const magg *g)
{
    if (!g->a)
        return;
    int64_t cut = (int64_t)fz_u32(in) * 1000;
    int32_t rule = (int32_t)(fz_u8(in) % 3) + LLMLAT_WINDOW_START;
    llmlat_agg *all = llmlat_agg_new_like(g->a), *lo = llmlat_agg_new_like(g->a);
    llmlat_agg *hi = llmlat_agg_new_like(g->a);
    if (!all || !lo || !hi) {
        FZ_CHECK(fz_al.fail_at >= 0, "new_like without injection");
        goto done;
    }
    int32_t want = g->mode == LLMLAT_MODE_BOUNDED ? LLMLAT_EUNDEFINED : LLMLAT_OK;
    int32_t st = llmlat_agg_add_window(all, g->a, INT64_MIN, INT64_MAX, rule);
    if (!took_effect(st, want, "window of everything"))
        goto done;
    st = llmlat_agg_add_window(lo, g->a, INT64_MIN, cut, LLMLAT_WINDOW_START);
    if (!took_effect(st, LLMLAT_OK, "window below"))
        goto done;
    st = llmlat_agg_add_window(hi, g->a, cut, INT64_MAX, LLMLAT_WINDOW_START);
    if (!took_effect(st, LLMLAT_OK, "window above"))
        goto done;
    st = llmlat_agg_merge(lo, hi);
    if (!took_effect(st, LLMLAT_OK, "merge of the halves"))
        goto done;
    char *x = fz_json_of(g->a), *y = fz_json_of(all), *z = fz_json_of(lo);
    bool all_kept = rule == LLMLAT_WINDOW_INSIDE ||
                    (rule == LLMLAT_WINDOW_START ? !g->start_at_max : !g->end_at_max);
    if (x && y && z && all_kept)
        FZ_CHECK(strcmp(x, y) == 0, "the window of everything differs:\n%s\n%s", x, y);
    if (x && y && z && !g->start_at_max)
        FZ_CHECK(strcmp(x, z) == 0, "two halves differ from the whole:\n%s\n%s", x, z);
    free(x);
    free(y);
    free(z);
done:
    llmlat_agg_free(all);
    llmlat_agg_free(lo);
    llmlat_agg_free(hi);
}

/* A comparison of g with h: the points are the aggregators' own values,
 * intervals are ordered, the reports are made. */
static void op_compare(fz_input *in, const magg *g, const magg *h)
{
    if (!g->a || !h->a)
        return;
    uint32_t resamples = fz_u8(in) % 8;
    int32_t st = 0;
    llmlat_compare *c = llmlat_compare_new(g->a, h->a, resamples, fz_u8(in), &st);
    if (g->conv != h->conv) {
        FZ_CHECK(!c && st == LLMLAT_EMISMATCH, "compare of two conventions: %d", st);
        return;
    }
    if (!c) {
        FZ_CHECK(st == LLMLAT_ENOMEM && fz_al.fail_at >= 0, "compare: %d", st);
        return;
    }
    double v, mean;
    int32_t qs = llmlat_agg_stat(g->a, LLMLAT_TTFT, LLMLAT_STAT_MEAN, &mean);
    int32_t cs = llmlat_compare_get(c, "mean_ttft", LLMLAT_COMPARE_BASE, &v);
    FZ_CHECK(qs == LLMLAT_ENOMEM || (cs == LLMLAT_OK) == (qs == LLMLAT_OK),
             "mean_ttft: compare %d, stat %d", cs, qs);
    FZ_CHECK(cs != LLMLAT_OK || qs != LLMLAT_OK || v == mean, "mean_ttft %.17g vs %.17g", v,
             mean);
    for (size_t i = 0; llmlat_compare_figure(c, i); i++) {
        const char *name = llmlat_compare_figure(c, i);
        double lo, hi;
        if (llmlat_compare_get(c, name, LLMLAT_COMPARE_DIFF_LOW, &lo) == LLMLAT_OK) {
            FZ_CHECK(llmlat_compare_get(c, name, LLMLAT_COMPARE_DIFF_HIGH, &hi) == LLMLAT_OK &&
                         lo <= hi, "%s: interval [%g, %g]", name, lo, hi);
        }
    }
    for (int32_t f = LLMLAT_FORMAT_TEXT; f <= LLMLAT_FORMAT_JSON; f++) {
        size_t len = 0;
        st = llmlat_compare_report(c, f, NULL, 0, &len);
        FZ_CHECK(st == LLMLAT_ENOSPC || (st == LLMLAT_ENOMEM && fz_al.fail_at >= 0),
                 "compare report sizing: %d", st);
    }
    llmlat_compare_free(c);
}

/* Serialize, deserialize, and the copy must answer as the original. */
static void op_roundtrip(magg *g)
{
    if (!g->a)
        return;
    size_t len = 0;
    int32_t st = llmlat_agg_serialize(g->a, NULL, 0, &len);
    if (st == LLMLAT_EINVAL) /* not implemented yet in this build */
        return;
    if (st == LLMLAT_ENOMEM && fz_al.fail_at >= 0)
        return;
    expect_status(st, LLMLAT_ENOSPC, "serialize sizing");
    unsigned char *buf = malloc(len);
    FZ_CHECK(buf, "test allocation");
    size_t got = 0;
    st = llmlat_agg_serialize(g->a, buf, len, &got);
    if (!(st == LLMLAT_ENOMEM && fz_al.fail_at >= 0)) {
        expect_status(st, LLMLAT_OK, "serialize");
        FZ_CHECK(got == len, "serialized %zu bytes, sized %zu", got, len);
        int32_t dst = 0;
        llmlat_agg *copy = llmlat_agg_deserialize(buf, len, &dst);
        if (copy) {
            /* the copy replaces the original: later checks read it */
            expect_status(dst, LLMLAT_OK, "deserialize status");
            llmlat_agg_free(g->a);
            g->a = copy;
        } else {
            FZ_CHECK(dst == LLMLAT_ENOMEM && fz_al.fail_at >= 0,
                     "deserialize of serialized bytes: %d", dst);
        }
    }
    free(buf);
}

/* ------------------------------------------------------------- driving */

/* Opcodes (op % 64), in make-seeds too: 0..OP_ADD-1 are recorder calls. */
enum {
    OP_ADD = 36,      /* ..43 */
    OP_MERGE = 44,    /* ..46 */
    OP_RESET = 47,    /* ..48 */
    OP_AGG_NEW = 49,  /* ..50 */
    OP_PARAM = 51,    /* ..52 */
    OP_CHECK = 53,    /* ..55 */
    OP_ALLOC = 56,    /* ..57 */
    OP_REPORT = 58,
    OP_ROUNDTRIP = 59,
    OP_WINDOW = 60,
    OP_COMPARE = 61,
    OP_SCHEDULE = 62, /* the intended start, before or after the start */
    /* 63: add as well */
};

static void free_all(void)
{
    for (int i = 0; i < N_REQ; i++) {
        llmlat_request_free(reqs[i].r);
        reqs[i].r = NULL;
    }
    for (int i = 0; i < N_AGG; i++)
        agg_free_slot(&aggs[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_input in = { data, size, 0 };
    fz_alloc_install();
    for (int i = 0; i < N_AGG; i++) { /* a useful start: three aggregators */
        aggs[i].a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, i == 2);
        aggs[i].conv = LLMLAT_CONV_DEFAULT;
        aggs[i].mode = i == 2;
        for (int32_t p = 1; p <= N_PARAMS; p++)
            aggs[i].params[p - 1] = param_default(p);
        agg_clear_model(&aggs[i]);
    }
    for (int i = 0; i < N_REQ; i++)
        reqs[i].r = NULL;

    while (fz_more(&in)) {
        uint8_t op = fz_u8(&in), x = fz_u8(&in);
        mreq *q = &reqs[(x & 3) % N_REQ];
        magg *g = &aggs[((x >> 2) & 3) % N_AGG], *h = &aggs[((x >> 4) & 3) % N_AGG];
        /* 64 opcodes: the cheap, state-building calls are the common
         * ones; reports and round trips (costly) the rare ones. */
        switch (op % 64) {
        case OP_REPORT:
            op_report(&in, g);
            break;
        case OP_ROUNDTRIP:
            op_roundtrip(g);
            break;
        case OP_WINDOW:
            op_window(&in, g);
            break;
        case OP_COMPARE:
            op_compare(&in, g, h);
            break;
        case OP_SCHEDULE:
            op_schedule(&in, q);
            break;
        case OP_MERGE: case OP_MERGE + 1: case OP_MERGE + 2:
            op_merge(g, h);
            break;
        case OP_RESET: case OP_RESET + 1:
            if (g->a) {
                expect_status(llmlat_agg_reset(g->a), LLMLAT_OK, "agg reset");
                agg_clear_model(g);
            }
            break;
        case OP_AGG_NEW: case OP_AGG_NEW + 1:
            op_agg_new(&in, g);
            break;
        case OP_PARAM: case OP_PARAM + 1:
            op_param(&in, g);
            break;
        case OP_CHECK: case OP_CHECK + 1: case OP_CHECK + 2:
            check_agg(g);
            check_request(q);
            break;
        case OP_ALLOC: case OP_ALLOC + 1: { /* inject allocation failures, or stop */
            uint8_t b = fz_u8(&in);
            if (b == 0)
                fz_alloc_disarm();
            else
                fz_alloc_arm(b >> 2, b & 1);
            break;
        }
        default:
            if (op % 64 >= OP_ADD)
                op_add(g, q);
            else
                op_request(&in, q);
        }
    }
    fz_alloc_disarm();
    for (int i = 0; i < N_AGG; i++)
        check_agg(&aggs[i]);
    for (int i = 0; i < N_REQ; i++)
        check_request(&reqs[i]);
    free_all();
    fz_alloc_check_released();
    return 0;
}
