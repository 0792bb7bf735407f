/* GuideLLM's benchmarks.json (docs/importers.md): {"metadata", "args",
 * "benchmarks": [...]}, one GenerativeBenchmark per strategy run
 * (vllm-project/guidellm, src/guidellm/benchmark/schemas/generative/
 * benchmark.py), each with its requests by status
 * ("requests": {"successful", "errored", "incomplete"}) as
 * GenerativeRequestStats (src/guidellm/schemas/request_stats.py): a
 * request's info.timings (schemas/info.py, RequestTimings: request_start,
 * first and last request iteration, first and last token iteration, their
 * counts, request_end, resolve_end, targeted_start), and the counts
 * GuideLLM used (the computed "prompt_tokens" and "output_tokens").
 * Before 0.4 a request had start_time, first_token_time, last_token_time
 * and end_time instead.
 *
 * The file has the first and last chunk times of each request and how
 * many chunks it had, not the times between: the chunks between are
 * placed evenly, as GuideLLM's own output_tokens_timings place the
 * tokens (numpy.linspace), and marked LLMLAT_LACKS_GAPS.
 *
 * GuideLLM's metrics count the requests of its measurement window only
 * (GenerativeMetrics.compile: get_within_range(start_time, end_time),
 * which drops the warm-up and cool-down): so does this reader. The
 * benchmark's start_time and end_time come after its requests (computed
 * fields), so a benchmark's requests are held (arrays[GL_ARRAY]) and
 * handed over once the input ended, which also tells the last benchmark
 * apart (--run). */
#include <string.h>

#include "read/decimal.h"
#include "read/import.h"
#include "util/wide.h"

#define GL_ARRAY 0
/* More iterations than a request could stream: refused, so that a damaged
 * count does not make the reader place billions of chunks. */
#define GL_ITERATIONS_MAX ((uint64_t)1 << 24)

enum {
    GL_FILE = 1, GL_BENCHMARKS, GL_BENCH, GL_SCHEDULER, GL_METRICS, GL_TOTALS, GL_REQUESTS,
    GL_LIST, GL_REQ, GL_INFO, GL_TIMINGS, GL_INPUT_METRICS, GL_OUTPUT_METRICS,
};

enum gl_group { GL_SUCCESSFUL, GL_ERRORED, GL_INCOMPLETE };

/* A request's times, as the file names them (info.timings, or before 0.4
 * the request's own). */
enum gl_time {
    GT_TARGETED, GT_REQUEST_START, GT_RESOLVE_START, GT_FIRST_REQ, GT_LAST_REQ, GT_FIRST_TOK,
    GT_LAST_TOK, GT_REQUEST_END, GT_RESOLVE_END, GT_COUNT
};

static const char *const GL_TIMING_KEYS[GT_COUNT] = {
    [GT_TARGETED] = "targeted_start",
    [GT_REQUEST_START] = "request_start",
    [GT_RESOLVE_START] = "resolve_start",
    [GT_FIRST_REQ] = "first_request_iteration",
    [GT_LAST_REQ] = "last_request_iteration",
    [GT_FIRST_TOK] = "first_token_iteration",
    [GT_LAST_TOK] = "last_token_iteration",
    [GT_REQUEST_END] = "request_end",
    [GT_RESOLVE_END] = "resolve_end",
};

/* record.have: the times (bit i for enum gl_time), then the counts. */
#define GH_TIME(i) (1u << (i))
enum {
    GH_REQUEST_ITERATIONS = 1u << GT_COUNT,
    GH_TOKEN_ITERATIONS = 1u << (GT_COUNT + 1),
    GH_PROMPT = 1u << (GT_COUNT + 2),       /* "prompt_tokens" (a number) */
    GH_OUTPUT_KEY = 1u << (GT_COUNT + 3),   /* "output_tokens", a number or null */
    GH_OUTPUT = 1u << (GT_COUNT + 4),       /* ... a number */
    GH_INPUT_TOTAL = 1u << (GT_COUNT + 5),  /* input_metrics.total_tokens */
    GH_OUTPUT_TOTAL = 1u << (GT_COUNT + 6), /* output_metrics.total_tokens */
    GH_TIMINGS = 1u << (GT_COUNT + 7),      /* info.timings (0.4 on) */
    GH_OLD = 1u << (GT_COUNT + 8),          /* start_time ... (before 0.4) */
};

/* guidellm_state.have: the benchmark's fields. */
enum {
    GB_MEASURE_LO = 1 << 0, GB_MEASURE_HI = 1 << 1, GB_START = 1 << 2, GB_END = 1 << 3,
    GB_DURATION = 1 << 4, GB_REQUESTS = 1 << 5, GB_TOTAL = 1 << 6,
};

typedef struct gl_record {
    uint64_t line, col;
    uint32_t have;
    uint8_t group;
    int64_t t[GT_COUNT];
    uint64_t request_iterations, token_iterations;
    uint64_t prompt, output, input_total, output_total;
    char id[RD_ID_MAX];
} gl_record;

static int gl_done(bool ok)
{
    return ok ? RD_STEP_ON : RD_STEP_FAILED;
}

static int gl_skip(llmlat_reader *rd)
{
    return gl_done(jt_skip_value(&rd->jt));
}

/* The record being read: the slot after the held ones (reserved when its
 * object opened; the count moves once it closes). */
static gl_record *gl_current(llmlat_reader *rd)
{
    return (gl_record *)rd->arrays[GL_ARRAY].p + rd->p.f.imp.gl.n;
}

static const gl_record *gl_at(const llmlat_reader *rd, uint64_t i)
{
    return (const gl_record *)rd->arrays[GL_ARRAY].p + i;
}

/* A time of the file (epoch seconds as Python floats), null allowed. */
static int gl_time(llmlat_reader *rd, gl_record *g, int which, const char *what)
{
    bool ok;
    if (jt_take_null(&rd->jt, &ok))
        return gl_done(ok);
    g->have |= GH_TIME(which);
    return gl_done(rd_time_double(rd, what, DEC_SECONDS, &g->t[which]));
}

/* A count of the file, null allowed: *have gets bit when it is a number. */
static int gl_count(llmlat_reader *rd, uint32_t *have, uint32_t bit, const char *what,
                    uint64_t *out)
{
    bool ok;
    if (jt_take_null(&rd->jt, &ok))
        return gl_done(ok);
    *have |= bit;
    return gl_done(rd_count(rd, what, UINT64_MAX, out));
}

/* A benchmark-level time (the measurement window), null allowed. */
static int gl_bench_time(llmlat_reader *rd, uint32_t bit, const char *what, int64_t *out)
{
    bool ok;
    if (jt_take_null(&rd->jt, &ok))
        return gl_done(ok);
    rd->p.f.imp.gl.have |= bit;
    return gl_done(rd_time_double(rd, what, DEC_SECONDS, out));
}

static int gl_timing(llmlat_reader *rd, const char *key)
{
    gl_record *g = gl_current(rd);
    for (int i = 0; i < GT_COUNT; i++) {
        if (strcmp(key, GL_TIMING_KEYS[i]) == 0) {
            char what[RD_KEY_MAX + 16];
            strcpy(what, "info.timings.");
            strcat(what, GL_TIMING_KEYS[i]);
            return gl_time(rd, g, i, what);
        }
    }
    if (strcmp(key, "request_iterations") == 0)
        return gl_count(rd, &g->have, GH_REQUEST_ITERATIONS, "info.timings.request_iterations",
                        &g->request_iterations);
    if (strcmp(key, "token_iterations") == 0)
        return gl_count(rd, &g->have, GH_TOKEN_ITERATIONS, "info.timings.token_iterations",
                        &g->token_iterations);
    return gl_skip(rd);
}

/* A member of a request (GenerativeRequestStats). */
static int gl_request_member(llmlat_reader *rd, const char *key)
{
    gl_record *g = gl_current(rd);
    jtok *t = &rd->jt;
    if (strcmp(key, "request_id") == 0 && jt_peek(t) == '"')
        return gl_done(jt_string(t, g->id, sizeof g->id, NULL));
    if (strcmp(key, "info") == 0)
        return gl_done(walk_enter(rd, true, GL_INFO, "a request's \"info\""));
    if (strcmp(key, "input_metrics") == 0 && jt_peek(t) == '{')
        return gl_done(walk_enter(rd, true, GL_INPUT_METRICS, "\"input_metrics\""));
    if (strcmp(key, "output_metrics") == 0 && jt_peek(t) == '{')
        return gl_done(walk_enter(rd, true, GL_OUTPUT_METRICS, "\"output_metrics\""));
    if (strcmp(key, "prompt_tokens") == 0)
        return gl_count(rd, &g->have, GH_PROMPT, "\"prompt_tokens\"", &g->prompt);
    if (strcmp(key, "output_tokens") == 0) {
        g->have |= GH_OUTPUT_KEY;
        return gl_count(rd, &g->have, GH_OUTPUT, "\"output_tokens\"", &g->output);
    }
    /* before 0.4 (GenerativeTextResponseStats) */
    static const struct {
        const char *key;
        int time;
    } OLD[] = { { "start_time", GT_REQUEST_START },     { "end_time", GT_REQUEST_END },
                { "first_token_time", GT_FIRST_TOK }, { "last_token_time", GT_LAST_TOK } };
    for (size_t i = 0; i < sizeof OLD / sizeof OLD[0]; i++) {
        if (strcmp(key, OLD[i].key) == 0) {
            g->have |= GH_OLD;
            char what[RD_KEY_MAX + 4];
            strcpy(what, "\"");
            strcat(what, OLD[i].key);
            strcat(what, "\"");
            return gl_time(rd, g, OLD[i].time, what);
        }
    }
    return gl_skip(rd);
}

/* A run (benchmark) begins: the one asked for is read, the others skipped
 * but counted. */
static int gl_benchmark(llmlat_reader *rd, uint64_t index)
{
    guidellm_state *gl = &rd->p.f.imp.gl;
    jtok *t = &rd->jt;
    jt_peek(t);
    if (import_run_begin(rd, index + 1))
        *gl = (guidellm_state){ .line = t->tok_line, .col = t->tok_col };
    return gl_done(walk_enter(rd, true, GL_BENCH, "a benchmark"));
}

static int gl_bench_member(llmlat_reader *rd, const char *key)
{
    guidellm_state *gl = &rd->p.f.imp.gl;
    jtok *t = &rd->jt;
    if (rd->p.f.imp.run == 0)
        return gl_skip(rd); /* not the benchmark asked for */
    if (strcmp(key, "requests") == 0) {
        gl->have |= GB_REQUESTS;
        return gl_done(walk_enter(rd, true, GL_REQUESTS, "a benchmark's \"requests\""));
    }
    if (strcmp(key, "scheduler_metrics") == 0 && jt_peek(t) == '{')
        return gl_done(walk_enter(rd, true, GL_SCHEDULER, "\"scheduler_metrics\""));
    if (strcmp(key, "metrics") == 0 && jt_peek(t) == '{')
        return gl_done(walk_enter(rd, true, GL_METRICS, "a benchmark's \"metrics\""));
    if (strcmp(key, "start_time") == 0)
        return gl_bench_time(rd, GB_START, "a benchmark's \"start_time\"", &gl->start_time);
    if (strcmp(key, "end_time") == 0)
        return gl_bench_time(rd, GB_END, "a benchmark's \"end_time\"", &gl->end_time);
    if (strcmp(key, "duration") == 0) {
        bool ok;
        if (jt_take_null(t, &ok))
            return gl_done(ok);
        gl->have |= GB_DURATION;
        return gl_done(rd_double(rd, "a benchmark's \"duration\"", &gl->duration));
    }
    return gl_skip(rd);
}

static int gl_value(llmlat_reader *rd, uint16_t tag, const char *key, uint64_t index)
{
    guidellm_state *gl = &rd->p.f.imp.gl;
    jtok *t = &rd->jt;
    switch (tag) {
    case IMPORT_TOP:
        return gl_done(walk_enter(rd, true, GL_FILE, "GuideLLM's benchmarks.json"));
    case GL_FILE:
        if (strcmp(key, "benchmarks") == 0)
            return gl_done(walk_enter(rd, false, GL_BENCHMARKS, "\"benchmarks\""));
        return gl_skip(rd);
    case GL_BENCHMARKS:
        return gl_benchmark(rd, index);
    case GL_BENCH:
        return gl_bench_member(rd, key);
    case GL_SCHEDULER:
        if (strcmp(key, "measure_start_time") == 0)
            return gl_bench_time(rd, GB_MEASURE_LO, "scheduler_metrics.measure_start_time",
                                 &gl->measure_lo);
        if (strcmp(key, "measure_end_time") == 0)
            return gl_bench_time(rd, GB_MEASURE_HI, "scheduler_metrics.measure_end_time",
                                 &gl->measure_hi);
        return gl_skip(rd);
    case GL_METRICS:
        if (strcmp(key, "request_totals") == 0 && jt_peek(t) == '{')
            return gl_done(walk_enter(rd, true, GL_TOTALS, "metrics.request_totals"));
        return gl_skip(rd);
    case GL_TOTALS:
        if (strcmp(key, "total") == 0)
            return gl_count(rd, &gl->have, GB_TOTAL, "metrics.request_totals.total",
                            &gl->total);
        return gl_skip(rd);
    case GL_REQUESTS: {
        static const char *const LISTS[] = { [GL_SUCCESSFUL] = "successful",
                                             [GL_ERRORED] = "errored",
                                             [GL_INCOMPLETE] = "incomplete" };
        for (uint8_t g = 0; g < 3; g++) {
            if (strcmp(key, LISTS[g]) == 0) {
                bool ok;
                if (jt_take_null(t, &ok))
                    return gl_done(ok);
                gl->group = g;
                return gl_done(walk_enter(rd, false, GL_LIST, "a list of requests"));
            }
        }
        return gl_skip(rd); /* "total": null */
    }
    case GL_LIST: {
        jt_peek(t);
        uint64_t line = t->tok_line, col = t->tok_col;
        if (!rd_reserve(rd, GL_ARRAY, (size_t)gl->n + 1, sizeof(gl_record)))
            return RD_STEP_FAILED;
        gl_record *g = gl_current(rd);
        memset(g, 0, sizeof *g);
        g->line = line;
        g->col = col;
        g->group = gl->group;
        return gl_done(walk_enter(rd, true, GL_REQ, "a request"));
    }
    case GL_REQ:
        return gl_request_member(rd, key);
    case GL_INFO:
        if (strcmp(key, "timings") == 0) {
            gl_current(rd)->have |= GH_TIMINGS;
            return gl_done(walk_enter(rd, true, GL_TIMINGS, "info.timings"));
        }
        return gl_skip(rd);
    case GL_TIMINGS:
        return gl_timing(rd, key);
    case GL_INPUT_METRICS:
    case GL_OUTPUT_METRICS: {
        gl_record *g = gl_current(rd);
        if (strcmp(key, "total_tokens") != 0)
            return gl_skip(rd);
        bool in = tag == GL_INPUT_METRICS;
        return gl_count(rd, &g->have, in ? GH_INPUT_TOTAL : GH_OUTPUT_TOTAL,
                        in ? "input_metrics.total_tokens" : "output_metrics.total_tokens",
                        in ? &g->input_total : &g->output_total);
    }
    }
    return gl_skip(rd);
}

/* A request read: checked and held. */
static int gl_request_end(llmlat_reader *rd)
{
    guidellm_state *gl = &rd->p.f.imp.gl;
    gl_record *g = gl_current(rd);
    uint64_t number = gl->n + 1;
    const char *missing = NULL;
    if (!(g->have & (GH_TIMINGS | GH_OLD)))
        missing = "no info.timings";
    else if (!(g->have & (GH_TIME(GT_REQUEST_START) | GH_TIME(GT_RESOLVE_START))))
        missing = (g->have & GH_OLD) ? "no \"start_time\"" : "no info.timings.request_start";
    else if ((g->have & GH_TOKEN_ITERATIONS) && g->token_iterations > 0 &&
             (g->have & (GH_TIME(GT_FIRST_TOK) | GH_TIME(GT_LAST_TOK))) !=
                 (GH_TIME(GT_FIRST_TOK) | GH_TIME(GT_LAST_TOK)))
        missing = "token iterations but not its first and last token iteration";
    if (missing) {
        jt_fail_at(&rd->jt, g->line, g->col, "request %llu of the benchmark has %s",
                   (unsigned long long)number, missing);
        return RD_STEP_FAILED;
    }
    if ((g->have & GH_REQUEST_ITERATIONS) && (g->have & GH_TOKEN_ITERATIONS) &&
        g->token_iterations > g->request_iterations) {
        jt_fail_at(&rd->jt, g->line, g->col,
                   "request %llu of the benchmark has more token iterations (%llu) than "
                   "iterations (%llu)",
                   (unsigned long long)number, (unsigned long long)g->token_iterations,
                   (unsigned long long)g->request_iterations);
        return RD_STEP_FAILED;
    }
    if (g->request_iterations > GL_ITERATIONS_MAX || g->token_iterations > GL_ITERATIONS_MAX) {
        jt_fail_at(&rd->jt, g->line, g->col,
                   "request %llu of the benchmark has more than %llu iterations",
                   (unsigned long long)number, (unsigned long long)GL_ITERATIONS_MAX);
        return RD_STEP_FAILED;
    }
    gl->n = number;
    return RD_STEP_ON;
}

static int gl_close(llmlat_reader *rd, uint16_t tag)
{
    guidellm_state *gl = &rd->p.f.imp.gl;
    if (tag == GL_REQ)
        return gl_request_end(rd);
    if (tag == GL_BENCH && rd->p.f.imp.run) {
        if (!(gl->have & GB_REQUESTS)) {
            jt_fail_at(&rd->jt, gl->line, gl->col,
                       "looks like GuideLLM benchmarks.json (summary only: no per-request data): "
                       "benchmark %llu has no \"requests\"",
                       (unsigned long long)rd->p.f.imp.run);
            return RD_STEP_FAILED;
        }
        if ((gl->have & GB_DURATION) && gl->duration > 0.0) {
            rd->p.has_duration = true;
            rd->p.duration_s = gl->duration;
        }
    }
    return RD_STEP_ON;
}

static bool gl_window(const guidellm_state *gl, int64_t *lo, int64_t *hi);
static bool gl_in_window(const gl_record *g, int64_t lo, int64_t hi);

/* The benchmark's requests are complete: those of its window are all of
 * those its metrics counted, unless GuideLLM kept a sample of them
 * (--sample-requests), or none. */
static bool gl_seal(llmlat_reader *rd)
{
    guidellm_state *gl = &rd->p.f.imp.gl;
    int64_t lo, hi;
    bool windowed = gl_window(gl, &lo, &hi);
    uint64_t kept = 0;
    for (uint64_t i = 0; i < gl->n; i++)
        kept += !windowed || gl_in_window(gl_at(rd, i), lo, hi);
    if ((gl->have & GB_TOTAL) && kept < gl->total) {
        if (gl->n == 0)
            jt_fail_at(&rd->jt, gl->line, gl->col,
                       "looks like GuideLLM benchmarks.json (summary only: no per-request "
                       "data): benchmark %llu counted %llu requests but kept none",
                       (unsigned long long)rd->p.run, (unsigned long long)gl->total);
        else
            jt_fail_at(&rd->jt, gl->line, gl->col,
                       "benchmark %llu of GuideLLM's benchmarks.json keeps a sample of its "
                       "requests (%llu of the %llu its metrics counted): its figures cannot "
                       "be rebuilt from them",
                       (unsigned long long)rd->p.run, (unsigned long long)kept,
                       (unsigned long long)gl->total);
        return false;
    }
    gl->sealed = true;
    return true;
}

static int gl_end(llmlat_reader *rd)
{
    int r = import_runs_end(rd);
    if (r != RD_STEP_END)
        return r;
    if (rd->p.runs == 0) {
        jt_fail(&rd->jt, "GuideLLM's benchmarks.json has no benchmark");
        return RD_STEP_FAILED;
    }
    return gl_seal(rd) ? RD_STEP_END : RD_STEP_FAILED;
}

/* -------------------------------------------------------------- handing over */

/* GuideLLM's measurement window: the benchmark's start and end time, or
 * its scheduler's measure start and end (the same, read before the
 * requests); none: every request. */
static bool gl_window(const guidellm_state *gl, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MIN;
    *hi = INT64_MAX;
    if (gl->have & GB_START)
        *lo = gl->start_time;
    else if (gl->have & GB_MEASURE_LO)
        *lo = gl->measure_lo;
    if (gl->have & GB_END)
        *hi = gl->end_time;
    else if (gl->have & GB_MEASURE_HI)
        *hi = gl->measure_hi;
    return *lo != INT64_MIN || *hi != INT64_MAX;
}

static int64_t gl_first_of(const gl_record *g, int a, int b)
{
    return (g->have & GH_TIME(a)) ? g->t[a] : g->t[b];
}

/* GenerativeRequestStats.request_end_time: request_end, else resolve_end. */
static bool gl_end_time(const gl_record *g, int64_t *end)
{
    if (!(g->have & (GH_TIME(GT_REQUEST_END) | GH_TIME(GT_RESOLVE_END))))
        return false;
    *end = gl_first_of(g, GT_REQUEST_END, GT_RESOLVE_END);
    return true;
}

/* get_within_range(start, end): ended at or after the window's start, and
 * started (or, without a start, ended) at or before its end. */
static bool gl_in_window(const gl_record *g, int64_t lo, int64_t hi)
{
    int64_t end;
    if (!gl_end_time(g, &end))
        return true; /* GuideLLM cannot have written it without: keep it */
    if (end < lo)
        return false;
    if (g->have & (GH_TIME(GT_REQUEST_START) | GH_TIME(GT_RESOLVE_START)))
        return gl_first_of(g, GT_REQUEST_START, GT_RESOLVE_START) <= hi;
    return end <= hi;
}

/* t0 + (t1 - t0) i / n, exactly rounded down (t0 <= t1, i <= n). */
static int64_t gl_spread(int64_t t0, int64_t t1, uint64_t i, uint64_t n)
{
    uint64_t span = (uint64_t)t1 - (uint64_t)t0, lo, hi;
    wide_mul(span, i, &lo, &hi);
    /* (hi:lo) / n, hi < n since i <= n */
    uint64_t q = 0, r = hi;
    for (int b = 63; b >= 0; b--) {
        bool top = r >> 63;
        r = (r << 1) | ((lo >> b) & 1);
        if (top || r >= n) {
            r -= n;
            q |= (uint64_t)1 << b;
        }
    }
    return (int64_t)((uint64_t)t0 + q);
}

/* The chunks of g: an empty one at the first iteration when it came
 * before the first token iteration; the token iterations, evenly from
 * the first to the last; the other empty iterations at the last token
 * iteration (before it), and one at the last iteration when it came
 * after. lacks: GAPS when a time was placed rather than read. */
static bool gl_events(llmlat_reader *rd, const gl_record *g, uint32_t *lacks)
{
    bool has_first_req = g->have & GH_TIME(GT_FIRST_REQ);
    bool has_last_req = g->have & GH_TIME(GT_LAST_REQ);
    bool has_tok = (g->have & GH_TIME(GT_FIRST_TOK)) && (g->have & GH_TIME(GT_LAST_TOK));
    uint64_t tokens = g->token_iterations;
    if (!(g->have & GH_TOKEN_ITERATIONS)) /* before 0.4: the first and last only */
        tokens = has_tok ? (g->t[GT_LAST_TOK] > g->t[GT_FIRST_TOK] ? 2 : 1) : 0;
    if (!has_tok)
        tokens = 0;
    int64_t first = g->t[GT_FIRST_TOK], last = g->t[GT_LAST_TOK];
    uint64_t total = (g->have & GH_REQUEST_ITERATIONS) ? g->request_iterations : 0;
    bool lead = has_first_req && (tokens == 0 || g->t[GT_FIRST_REQ] < first);
    bool trail = has_last_req && tokens > 0 && g->t[GT_LAST_REQ] > last;
    if (tokens == 0 && has_last_req && has_first_req && g->t[GT_LAST_REQ] > g->t[GT_FIRST_REQ])
        trail = true;
    uint64_t placed = tokens + lead + trail;
    uint64_t others = total > placed ? total - placed : 0; /* empty ones in between */
    if (!rd_events_reserve(rd, (size_t)(placed + others)))
        return false;
    if (lead)
        rd_push_event(rd, g->t[GT_FIRST_REQ], 0);
    if (tokens == 0) {
        for (uint64_t i = 0; i < others; i++)
            rd_push_event(rd, g->t[GT_FIRST_REQ], 0);
    }
    for (uint64_t i = 0; i < tokens; i++) {
        if (i + 1 == tokens && tokens > 1)
            for (uint64_t j = 0; j < others; j++)
                rd_push_event(rd, last, 0);
        rd_push_event(rd, tokens > 1 ? gl_spread(first, last, i, tokens - 1) : first, 1);
    }
    if (tokens == 1)
        for (uint64_t j = 0; j < others; j++)
            rd_push_event(rd, first, 0);
    if (trail)
        rd_push_event(rd, g->t[GT_LAST_REQ], 0);
    if (tokens > 2 || others > 0 || (!(g->have & GH_TOKEN_ITERATIONS) && tokens == 2))
        *lacks |= LLMLAT_LACKS_GAPS;
    return true;
}

LLMLAT_PRIVATE bool import_guidellm_held_next(llmlat_reader *rd)
{
    guidellm_state *gl = &rd->p.f.imp.gl;
    if (!gl->sealed)
        return false;
    int64_t lo, hi;
    bool windowed = gl_window(gl, &lo, &hi);
    while (gl->next < gl->n && windowed && !gl_in_window(gl_at(rd, gl->next), lo, hi))
        gl->next++;
    if (gl->next == gl->n)
        return false;
    const gl_record *g = gl_at(rd, gl->next++);
    rd_begin_request(rd, g->line, g->col);
    rd_req *q = &rd->p.cur;
    memcpy(q->id, g->id, sizeof q->id);
    q->start = gl_first_of(g, GT_REQUEST_START, GT_RESOLVE_START);
    if (g->have & GH_TIME(GT_TARGETED)) {
        q->has_scheduled = true;
        q->scheduled = g->t[GT_TARGETED];
    }
    q->lacks = LLMLAT_LACKS_CHUNK_TOKENS | (q->has_scheduled ? 0 : LLMLAT_LACKS_SCHEDULE);
    if (!gl_events(rd, g, &q->lacks))
        return false;
    q->ok = g->group == GL_SUCCESSFUL;
    q->cancelled = g->group == GL_INCOMPLETE;
    int64_t end;
    if (g->group != GL_SUCCESSFUL && (g->have & GH_TIME(GT_RESOLVE_END)))
        end = g->t[GT_RESOLVE_END]; /* no request_end: the stream did not close normally */
    else if (!gl_end_time(g, &end))
        end = q->n ? rd->ev.t[q->n - 1] : q->start;
    q->has_end = true;
    q->end = end;
    if (g->have & GH_PROMPT)
        q->input_tokens = g->prompt;
    else if (g->have & GH_INPUT_TOTAL)
        q->input_tokens = g->input_total;
    /* the count GuideLLM used: "output_tokens" (null: none, its token
     * iterations stand for it), else output_metrics' */
    if (g->have & GH_OUTPUT_KEY) {
        q->has_output_tokens = (g->have & GH_OUTPUT) != 0;
        q->output_tokens = g->output;
    } else if (g->have & GH_OUTPUT_TOTAL) {
        q->has_output_tokens = true;
        q->output_tokens = g->output_total;
    }
    return true;
}

static const import_ops GUIDELLM_OPS = {
    LLMLAT_INPUT_GUIDELLM, "GuideLLM's benchmarks.json", false,
    gl_value, gl_close, gl_end,
};

LLMLAT_PRIVATE const import_ops *import_guidellm_ops(void)
{
    return &GUIDELLM_OPS;
}
