/*
 * llmlat — latency metrics of streamed LLM responses.
 *
 * The whole public API. Definitions of every metric and convention are in
 * docs/metrics.md; the ABI promise is in docs/abi.md.
 *
 * Conventions used throughout:
 *   - Timestamps are int64_t nanoseconds on one monotonic clock chosen by
 *     the host (llmlat_now_ns() is CLOCK_MONOTONIC). Results are double
 *     seconds (token counts and tokens/s where the metric says so).
 *   - Every function returns an int32_t status (LLMLAT_OK or a negative
 *     LLMLAT_E* value) unless documented otherwise, and writes results
 *     through out parameters. A function that fails leaves its object
 *     exactly as it was: nothing is half-updated, no accepted sample is lost.
 *   - No function aborts, prints, or keeps global state other than the
 *     optional allocator hook.
 *   - Threads (docs/threads.md): an object (recorder, aggregator, window)
 *     is changed by one thread at a time. Queries (value, stat, quantile,
 *     rate, counter, serialize, report) only read, so several threads may
 *     query one aggregator while none changes it. Different objects may be
 *     used from different threads freely; the usual pattern is one
 *     aggregator per thread, merged when reporting. The exception is the
 *     live recorder (llmlat_live): many writer threads add to it while one
 *     reader takes snapshots, without locks.
 */
#ifndef LLMLAT_H
#define LLMLAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* LLMLAT_API marks every exported function. The shared library is built
 * with hidden visibility, so only these symbols are exported. */
#ifndef LLMLAT_API
#  if defined(_WIN32) && defined(LLMLAT_BUILDING_DLL)
#    define LLMLAT_API __declspec(dllexport)
#  elif defined(_WIN32) && defined(LLMLAT_USING_DLL)
#    define LLMLAT_API __declspec(dllimport)
#  elif defined(__GNUC__) || defined(__clang__)
#    define LLMLAT_API __attribute__((visibility("default")))
#  else
#    define LLMLAT_API
#  endif
#endif

/* ---------------------------------------------------------------- version */

/* Release version of these headers. The ABI (SONAME libllmlat.so.1) is
 * versioned separately: a minor release only adds. */
#define LLMLAT_VERSION_MAJOR 1
#define LLMLAT_VERSION_MINOR 2
#define LLMLAT_VERSION_PATCH 0
#define LLMLAT_VERSION_NUMBER \
    (LLMLAT_VERSION_MAJOR * 10000 + LLMLAT_VERSION_MINOR * 100 + LLMLAT_VERSION_PATCH)

/* Version of the library actually linked, as LLMLAT_VERSION_NUMBER would
 * give it. Bindings compare its major (value / 10000) at load time. */
LLMLAT_API uint32_t llmlat_version_number(void);
/* The same as "MAJOR.MINOR.PATCH"; a static string, never NULL. */
LLMLAT_API const char *llmlat_version_string(void);

/* ----------------------------------------------------------------- status */

/* Status values are fixed forever; a retired value is never reused. */
#define LLMLAT_OK          0
#define LLMLAT_EINVAL     (-1) /* bad argument: NULL, unknown id, NaN/inf, out of bounds */
#define LLMLAT_ENOMEM     (-2) /* allocation failed; the object is unchanged */
#define LLMLAT_EORDER     (-3) /* timestamp before the previous one of the same request */
#define LLMLAT_ESTATE     (-4) /* call not valid in this state (event before start, after finish) */
#define LLMLAT_EUNDEFINED (-5) /* the value is undefined (e.g. TPOT with N <= 1, empty set); out is NaN */
#define LLMLAT_EFORMAT    (-6) /* malformed bytes or trace */
#define LLMLAT_EMISMATCH  (-7) /* merging incompatible aggregators */
#define LLMLAT_ENOSPC     (-8) /* output buffer too small; *len holds the size needed */
#define LLMLAT_EOVERFLOW  (-9) /* a count, sum or time span would not fit its type (1.1) */

/* A static English description of a status ("unknown status" for values
 * that are not listed above); never NULL. */
LLMLAT_API const char *llmlat_strerror(int32_t status);

/* -------------------------------------------------------------------- ids */

/* Metrics (docs/metrics.md has the definitions). */
#define LLMLAT_TTFT           1 /* time to first token, s */
#define LLMLAT_TPOT           2 /* (E2E - TTFT) / (N - 1), s, request-weighted */
#define LLMLAT_ITL            3 /* inter-token latency, per token (token-weighted), s */
#define LLMLAT_ICL            4 /* inter-chunk latency, one gap per event, s */
#define LLMLAT_E2E            5 /* end-to-end latency, s */
#define LLMLAT_TPS_USER       6 /* per-user speed, tokens/s */
#define LLMLAT_ITL_MAX        7 /* largest event gap of a request, s */
#define LLMLAT_OUTPUT_TOKENS  8 /* N, tokens */
#define LLMLAT_INPUT_TOKENS   9 /* prompt length, tokens */
/* What the aggregator's convention's tool calls "ITL": ITL under the
 * default convention, ICL under vLLM and SGLang, TPOT under AIPerf and
 * GuideLLM (its inter_token_latency, (last - first non-empty event) /
 * (N - 1), weighted by N - 1), ITL under inference-perf (there every
 * token of a chunk has the chunk's time: the chunk's gap, then zeros), and
 * LLMPerf's own per-request figure (last non-empty event - start) /
 * (number of events) under LLMPerf. */
#define LLMLAT_TOOL_ITL      10
/* Normalized time per output token: latency / N, s (inference-perf's
 * normalized_time_per_output_token; GuideLLM's time_per_output_token,
 * whose latency ends at the last non-empty event). */
#define LLMLAT_NTPOT         11
/* From the intended start (llmlat_request_schedule; docs/metrics.md, "The
 * intended start"), s, defined only for requests that have one: a metric
 * no request recorded is EUNDEFINED under every convention, never a
 * placeholder. (1.2) */
#define LLMLAT_DISPATCH_DELAY 12 /* start - intended start: how late the client sent it */
#define LLMLAT_SCHEDULED_TTFT 13 /* the convention's TTFT anchor - intended start */
#define LLMLAT_SCHEDULED_E2E  14 /* the end of the convention's E2E - intended start */

/* Conventions (docs/metrics.md section "Conventions"). */
#define LLMLAT_CONV_DEFAULT  0
#define LLMLAT_CONV_VLLM     1 /* vllm bench serve */
#define LLMLAT_CONV_AIPERF   2 /* NVIDIA AIPerf / GenAI-Perf */
#define LLMLAT_CONV_SGLANG   3 /* sglang bench_serving */
#define LLMLAT_CONV_LLMPERF  4 /* ray-project llmperf */
#define LLMLAT_CONV_GUIDELLM 5 /* vllm-project guidellm */
#define LLMLAT_CONV_INFERENCE_PERF 6 /* kubernetes-sigs inference-perf */

/* Aggregation modes. */
#define LLMLAT_MODE_EXACT    0 /* keeps every sample; numpy-identical percentiles */
#define LLMLAT_MODE_BOUNDED  1 /* fixed memory, relative-error quantiles (docs/bounded.md) */

/* Statistics for llmlat_agg_stat(). */
#define LLMLAT_STAT_COUNT    1
#define LLMLAT_STAT_MEAN     2
#define LLMLAT_STAT_STD      3 /* population (ddof 0) unless the convention says otherwise */
#define LLMLAT_STAT_MIN      4
#define LLMLAT_STAT_MAX      5
#define LLMLAT_STAT_MEDIAN   6 /* numpy.median (GuideLLM: its inverse CDF at 0.5) */
/* The exact sum of the samples (of w x for ITL's weighted samples), in the
 * metric's unit, correctly rounded: each sample as kept, cut once at 2^-64
 * of the internal unit (ns for times in bounded mode), added in integers.
 * It never decreases as samples are added, in either mode, so it is what
 * the expositions write as _sum. 0 for an empty set. */
#define LLMLAT_STAT_SUM      7

/* System rates for llmlat_agg_rate(), per second of the duration D. */
#define LLMLAT_RATE_REQUESTS           1 /* completed / D */
#define LLMLAT_RATE_OUTPUT_TOKENS      2 /* sum N / D (GuideLLM: over its token points) */
#define LLMLAT_RATE_TOTAL_TOKENS       3 /* (sum input + sum N) / D (GuideLLM: likewise) */
#define LLMLAT_RATE_GOODPUT            4 /* good / D; needs at least one SLO */
#define LLMLAT_RATE_PEAK_OUTPUT_TOKENS 5 /* largest 1-second bucket; exact mode only */

/* Counters for llmlat_agg_counter(). */
#define LLMLAT_COUNT_COMPLETED        1 /* successes under the convention */
#define LLMLAT_COUNT_FAILED           2 /* everything added that is not a success */
#define LLMLAT_COUNT_TPOT_UNDEFINED   3 /* successes without a TPOT value */
#define LLMLAT_COUNT_GOOD             4 /* successes meeting every SLO; needs an SLO */
#define LLMLAT_COUNT_INPUT_TOKENS     5 /* over successes */
#define LLMLAT_COUNT_OUTPUT_TOKENS    6 /* over successes */
#define LLMLAT_COUNT_PEAK_CONCURRENCY 7 /* sweep over [start, start + E2E); exact mode only */
#define LLMLAT_COUNT_MEMORY_BYTES     8 /* bytes the aggregator holds (fixed in bounded mode) */

/* Parameters for llmlat_agg_set_param() (seconds where a time). */
#define LLMLAT_PARAM_RELATIVE_ERROR 1 /* bounded mode's alpha, default 0.01 */
#define LLMLAT_PARAM_DURATION       2 /* host wall time D; 0 = derive it (default) */
#define LLMLAT_PARAM_SLO_TTFT       3 /* 0 = no SLO (default) */
#define LLMLAT_PARAM_SLO_TPOT       4 /* 0 = no SLO (default) */
#define LLMLAT_PARAM_SLO_E2E        5 /* 0 = no SLO (default) */
/* The P99 dispatch delay beyond which the text and HTML reports say that
 * the client fell behind its schedule; default 0.001 (1 ms). A reporting
 * threshold: it may change at any time and is kept by merges' dst. (1.2) */
#define LLMLAT_PARAM_MAX_DISPATCH_DELAY 6
/* N under inference-perf's convention: 0 (default) the client's count, the
 * sum of the events' k, as inference-perf counts the streamed text; 1 the
 * server's usage count (llmlat_request_set_output_tokens) where a request
 * has one, as its use_server_output_tokens. The other conventions take the
 * usage count already (GuideLLM: but for an errored request). Set before
 * any request is added (ESTATE after); an aggregator of 0 and one of 1 do
 * not merge under inference-perf (EMISMATCH). (1.2) */
#define LLMLAT_PARAM_SERVER_OUTPUT_TOKENS 7

/* Report formats for llmlat_agg_report(); 3 to 5 are also the formats of
 * llmlat_expose() (docs/prometheus.md). */
#define LLMLAT_FORMAT_TEXT                1 /* readable summary table */
#define LLMLAT_FORMAT_JSON                2 /* docs/report-json.md */
#define LLMLAT_FORMAT_PROMETHEUS          3 /* Prometheus text exposition format 0.0.4 */
#define LLMLAT_FORMAT_OPENMETRICS         4 /* OpenMetrics 1.0 text, ending in "# EOF" */
#define LLMLAT_FORMAT_PROMETHEUS_PROTOBUF 5 /* delimited io.prometheus.client.MetricFamily
                                               messages, native histograms included */
#define LLMLAT_FORMAT_HTML                6 /* one self-contained page: tables, inline SVG charts */
/* Reports of what an exact aggregator keeps of each request (see the
 * windows section; EUNDEFINED for one that keeps none). */
#define LLMLAT_FORMAT_CHROME_TRACE   7 /* the requests on a timeline: Trace Event Format JSON */
#define LLMLAT_FORMAT_REQUESTS_CSV   8 /* one row per request: its values under the convention */
#define LLMLAT_FORMAT_REQUESTS_JSONL 9 /* the same, one JSON object per line */

/* Lower-case names of ids ("ttft", "vllm", "mean", ...): static strings,
 * NULL for an unknown id. The same names are used by the CLI, the JSON
 * report and the bindings. */
LLMLAT_API const char *llmlat_metric_name(int32_t metric);
LLMLAT_API const char *llmlat_convention_name(int32_t convention);

/* -------------------------------------------------------------- allocator */

typedef void *(*llmlat_malloc_fn)(void *user, size_t size);
typedef void *(*llmlat_realloc_fn)(void *user, void *ptr, size_t size);
typedef void (*llmlat_free_fn)(void *user, void *ptr);

/* Installs the functions used by objects created from now on (each object
 * keeps the functions it was created with, so changing them later is
 * safe for existing objects). All three NULL restores malloc/realloc/free.
 * Errors: EINVAL when only some are NULL. This is the library's only global
 * state: set it before other threads create objects. */
LLMLAT_API int32_t llmlat_set_allocator(llmlat_malloc_fn malloc_fn,
                                        llmlat_realloc_fn realloc_fn,
                                        llmlat_free_fn free_fn, void *user);

/* ------------------------------------------------------------------ clock */

/* CLOCK_MONOTONIC in nanoseconds (0 if the clock is unavailable). */
LLMLAT_API int64_t llmlat_now_ns(void);

/* --------------------------------------------------------------- recorder */

/* One in-flight request. Life cycle:
 *   new -> start -> event* -> finish | fail -> (llmlat_agg_add) -> reset
 * Recording is O(1) per event; the event buffer grows geometrically and is
 * kept across llmlat_request_reset(), so a reused recorder stops allocating.
 * One thread at a time. */
typedef struct llmlat_request llmlat_request;

/* A new, empty recorder; NULL when out of memory. */
LLMLAT_API llmlat_request *llmlat_request_new(void);
/* Frees r and everything it holds; NULL is a no-op. */
LLMLAT_API void llmlat_request_free(llmlat_request *r);
/* Back to the state of a new recorder, keeping the event buffer.
 * Errors: EINVAL (r NULL). */
LLMLAT_API int32_t llmlat_request_reset(llmlat_request *r);

/* Marks the request sent/arrived at t_ns.
 * Errors: EINVAL (r NULL), ESTATE (already started: reset first), and
 * with an intended start (llmlat_request_schedule) EORDER (t_ns before
 * it) or EOVERFLOW (t_ns minus it does not fit int64). */
LLMLAT_API int32_t llmlat_request_start(llmlat_request *r, int64_t t_ns);

/* One streamed event (chunk) at t_ns carrying k >= 0 output tokens
 * (k = 0: role chunk, keep-alive, empty delta).
 * Errors: EINVAL (r NULL), EOVERFLOW (t_ns - start does not fit int64; a
 * request holds at most 2^32 - 1 events, so its token sum always fits
 * uint64), ESTATE (not started, or already finished/failed), EORDER (t_ns
 * before the start or the previous event), ENOMEM.
 * A rejected event leaves no trace. */
LLMLAT_API int32_t llmlat_request_event(llmlat_request *r, int64_t t_ns, uint32_t k);

/* n events at once: all accepted or none (same errors as
 * llmlat_request_event, checked for every element before any is stored).
 * t_ns and k may be NULL only when n is 0. */
LLMLAT_API int32_t llmlat_request_events(llmlat_request *r, const int64_t *t_ns,
                                         const uint32_t *k, size_t n);

/* When the request was meant to start (its intended start, e.g. the
 * arrival time a benchmark's schedule gave it), at or before its start: a
 * request that left late measures, from here, the wait that latencies
 * from the start do not show (coordinated omission; docs/metrics.md,
 * "The intended start"). Optional: a request without one has no
 * DISPATCH_DELAY, SCHEDULED_TTFT or SCHEDULED_E2E. Before the start, the
 * start must then be at or after t_ns; set again, it replaces the last.
 * Errors: EINVAL (r NULL), ESTATE (r ended), EORDER (t_ns after the
 * start), EOVERFLOW (a time of r minus t_ns does not fit int64). (1.2) */
LLMLAT_API int32_t llmlat_request_schedule(llmlat_request *r, int64_t t_ns);

/* Prompt length of the request (default 0). Any time before it is added.
 * Errors: EINVAL (r NULL). */
LLMLAT_API int32_t llmlat_request_set_input_tokens(llmlat_request *r, uint64_t n);
/* The server's usage count of output tokens; when set it is N, otherwise N
 * is the sum of k over events. Errors: EINVAL (r NULL). */
LLMLAT_API int32_t llmlat_request_set_output_tokens(llmlat_request *r, uint64_t n);

/* The stream closed normally at t_ns.
 * Errors: EINVAL (r NULL), EOVERFLOW (t_ns - start does not fit int64),
 * ESTATE (not started, or already finished/failed), EORDER (t_ns before
 * the start or the last event). */
LLMLAT_API int32_t llmlat_request_finish(llmlat_request *r, int64_t t_ns);
/* The request failed (error, timeout, cancelled) at t_ns. Same errors as
 * llmlat_request_finish. */
LLMLAT_API int32_t llmlat_request_fail(llmlat_request *r, int64_t t_ns);
/* The client cancelled the request at t_ns (a benchmark that stops with
 * requests in flight, a user who leaves): a failure under every
 * convention, which GuideLLM reports as "incomplete" rather than
 * "errored". Same errors as llmlat_request_finish. */
LLMLAT_API int32_t llmlat_request_cancel(llmlat_request *r, int64_t t_ns);

/* The request's own value of a metric under a convention, in the metric's
 * unit (seconds for times). Per request, ITL and ICL are the request's mean
 * gap; for ITL that is its TPOT when N = sum k. Valid on a started request
 * (in flight, finished or failed): what needs data not yet seen is
 * undefined. Errors: EINVAL (NULL, unknown id), ESTATE (not started),
 * EUNDEFINED (no value, e.g. TPOT with N <= 1; *out is NaN). */
LLMLAT_API int32_t llmlat_request_value(const llmlat_request *r, int32_t convention,
                                        int32_t metric, double *out);

/* What a request rebuilt from another tool's result file lacks
 * (llmlat_request_set_lacks; docs/importers.md). An aggregator that was
 * given such a request reports what needs the missing data as not
 * available, with the reason (llmlat_agg_unavailable), never a guess. */
#define LLMLAT_LACKS_START_TIMES   (1u << 0) /* starts are not on one clock (relative only) */
#define LLMLAT_LACKS_END           (1u << 1) /* the end of the stream is unknown (finish = last event) */
#define LLMLAT_LACKS_CHUNK_TOKENS  (1u << 2) /* tokens per chunk are unknown (each event's k is 1) */
#define LLMLAT_LACKS_CHUNKS        (1u << 3) /* no chunk times: per-request values only */
#define LLMLAT_LACKS_OUTPUT_TOKENS (1u << 4) /* N is unknown */
#define LLMLAT_LACKS_INPUT_TOKENS  (1u << 5) /* the prompt length is unknown */
/* Only the first and last chunk times (of content, and of any chunk) and
 * the number of chunks are known, not the times between: GuideLLM's
 * benchmarks.json. The events between are placed evenly, as GuideLLM's
 * own token timings place them, and nothing that needs their gaps (ITL,
 * ICL, ITL max, peak output tokens/s) is computed from them. (1.2) */
#define LLMLAT_LACKS_GAPS          (1u << 6)
/* The source has no intended start times (llmlat_request_schedule): a
 * tool's file that does not record them, so the metrics measured from the
 * intended start are not available, with this reason, rather than absent
 * for want of a schedule. (1.2) */
#define LLMLAT_LACKS_SCHEDULE      (1u << 7)
#define LLMLAT_LACKS_ALL           (0x3fu) /* the bits of 1.1, kept as they were */
#define LLMLAT_LACKS_KNOWN         (0xffu) /* every bit of this header (1.2) */

/* Says what r's data lacks (a LLMLAT_LACKS_* mask; 0 by default and after
 * reset). LLMLAT_LACKS_CHUNKS is set by llmlat_request_set_known and may
 * not be set here. Errors: EINVAL (r NULL, unknown bits or CHUNKS),
 * ESTATE (r already ended). */
LLMLAT_API int32_t llmlat_request_set_lacks(llmlat_request *r, uint32_t lacks);

/* A per-request value of a request whose chunk times are unknown (a tool's
 * result file with only per-request figures, such as LLMPerf's): metric
 * TTFT, E2E (seconds, >= 0), TOOL_ITL (the tool's own ITL figure) or
 * TPS_USER (the tool's own per-request output throughput, tokens/s: used
 * under that tool's convention only, where it may not be N / E2E, as in
 * LLMPerf before April 2024; 1.2), as the tool of `convention` measures it. It marks r LLMLAT_LACKS_CHUNKS: r
 * then takes no event. Aggregators and llmlat_request_value use such a
 * value under a convention that defines the metric the same way (the same
 * TTFT anchor; E2E to the same end), and report it as not available
 * under the others. All values of r share one convention. The end time
 * (finish or fail) still counts for durations.
 * Errors: EINVAL (r NULL; unknown convention or metric; value NaN,
 * infinite, negative or beyond int64 ns), ESTATE (not started, ended, has
 * events, or a value of another convention was set). */
LLMLAT_API int32_t llmlat_request_set_known(llmlat_request *r, int32_t convention,
                                            int32_t metric, double value);

/* What a recorder holds, for hosts that read requests back (the trace
 * reader's, for one). States of llmlat_request_get_state: */
#define LLMLAT_STATE_NEW      0
#define LLMLAT_STATE_STARTED  1
#define LLMLAT_STATE_FINISHED 2
#define LLMLAT_STATE_FAILED   3
#define LLMLAT_STATE_CANCELLED 4 /* llmlat_request_cancel */
/* Errors of these getters: EINVAL (a NULL argument). */
LLMLAT_API int32_t llmlat_request_get_state(const llmlat_request *r, int32_t *state);
/* The start; ESTATE when not started. */
LLMLAT_API int32_t llmlat_request_get_start(const llmlat_request *r, int64_t *t_ns);
/* The finish or fail time; ESTATE when not ended. */
LLMLAT_API int32_t llmlat_request_get_end(const llmlat_request *r, int64_t *t_ns);
/* The events: *t_ns and *k point into r (valid until r is next changed,
 * reset or freed; NULL when *n is 0). A streaming recorder
 * (llmlat_request_new_streaming) keeps none: EMISMATCH, *n the number of
 * events it folded, *t_ns and *k NULL. */
LLMLAT_API int32_t llmlat_request_get_events(const llmlat_request *r, const int64_t **t_ns,
                                             const uint32_t **k, size_t *n);
/* The prompt length. */
LLMLAT_API int32_t llmlat_request_get_input_tokens(const llmlat_request *r, uint64_t *n);
/* The usage count; EUNDEFINED (and *n the sum of k) when none was set. */
LLMLAT_API int32_t llmlat_request_get_output_tokens(const llmlat_request *r, uint64_t *n);
/* The LLMLAT_LACKS_* mask. */
LLMLAT_API int32_t llmlat_request_get_lacks(const llmlat_request *r, uint32_t *lacks);
/* The intended start (llmlat_request_schedule); EUNDEFINED when none was
 * given (*t_ns 0). (1.2) */
LLMLAT_API int32_t llmlat_request_get_schedule(const llmlat_request *r, int64_t *t_ns);

/* ------------------------------------------------------------- aggregator */

/* Statistics of many requests under one convention. Changed by one thread
 * at a time (queries only read); use one aggregator per thread and
 * llmlat_agg_merge() to combine. */
typedef struct llmlat_agg llmlat_agg;

/* A new aggregator; NULL on an unknown convention or mode, or no memory.
 *
 * LLMLAT_MODE_BOUNDED (docs/bounded.md) allocates everything here and never
 * again: per metric a Prometheus native histogram of fixed size (a window
 * of 31 powers of two of uint64 bucket counts below the largest sample,
 * and a zero bucket), 15.5 KiB at the default relative error alpha = 1%
 * (schema 6; memory doubles with each finer schema), whatever the
 * traffic: 223 KiB for a default aggregator in all. Adding a request never
 * allocates. COUNT, MIN and MAX are exact.
 * MEAN and STD come from sums of x and x^2 kept as wide integers of 2^-64
 * units (ns, tokens, tokens/s): exact for integer samples, but for one cut
 * at 2^-64 per k-token chunk (the squares g^2 / k of its ITL samples) and
 * per fractional sample (TPOT, TPS_USER, LLMPerf's ITL); n sum(x^2) -
 * (sum x)^2 is computed exactly and rounded once. So MEAN and STD are
 * within 2^-51 (relative) of the mean and std of the samples so kept, and
 * the same bits whatever the order of adds and merges (docs/bounded.md,
 * "What COUNT, MEAN and STD are"). Quantiles are within alpha of exact
 * mode's (see llmlat_agg_quantile); llmlat_agg_buckets exports the
 * buckets. It keeps no timeline: the
 * PEAK rate and counter are EUNDEFINED, and the good count is taken as
 * requests are added (so SLOs, like alpha, are fixed once data arrived). */
LLMLAT_API llmlat_agg *llmlat_agg_new(int32_t convention, int32_t mode);
/* The same, telling why it failed: *out is the new aggregator, or NULL on
 * an error. Errors: EINVAL (unknown convention or mode, out NULL), ENOMEM. */
LLMLAT_API int32_t llmlat_agg_create(int32_t convention, int32_t mode, llmlat_agg **out);
/* A new, empty aggregator set up as a is: its convention, mode, params,
 * report quantiles, histogram bounds and labels (a template for
 * per-thread aggregators, or the destination of a window). NULL when a is
 * NULL or memory runs out. */
LLMLAT_API llmlat_agg *llmlat_agg_new_like(const llmlat_agg *a);
/* Frees a and everything it holds; NULL is a no-op. */
LLMLAT_API void llmlat_agg_free(llmlat_agg *a);
/* Drops every sample and counter, keeping the convention, mode, params and
 * report quantiles. Errors: EINVAL (a NULL). */
LLMLAT_API int32_t llmlat_agg_reset(llmlat_agg *a);

/* The convention and mode a was made with (useful after deserialize).
 * Errors: EINVAL (NULL). */
LLMLAT_API int32_t llmlat_agg_get_convention(const llmlat_agg *a, int32_t *out);
LLMLAT_API int32_t llmlat_agg_get_mode(const llmlat_agg *a, int32_t *out);

/* Sets a numbered parameter. Errors: EINVAL (NULL, unknown param, NaN/inf,
 * outside llmlat_param_bounds), ESTATE (a bounded aggregator's relative
 * error or SLOs once it holds data: its buckets and good count are fixed
 * then). */
LLMLAT_API int32_t llmlat_agg_set_param(llmlat_agg *a, int32_t param, double value);
/* Reads a parameter back. Errors: EINVAL (NULL, unknown param). */
LLMLAT_API int32_t llmlat_agg_get_param(const llmlat_agg *a, int32_t param, double *out);
/* The accepted range [*lo, *hi] of a parameter.
 * Errors: EINVAL (NULL, unknown param). */
LLMLAT_API int32_t llmlat_param_bounds(int32_t param, double *lo, double *hi);

/* The quantiles (each in [0, 1], at most 32) that reports print; default
 * 0.5, 0.9, 0.95, 0.99. The array is copied. Errors: EINVAL (NULL with
 * n > 0, n = 0, n > 32, a value outside [0, 1] or NaN). */
LLMLAT_API int32_t llmlat_agg_set_quantiles(llmlat_agg *a, const double *q, size_t n);

/* The upper bounds (seconds, finite, strictly increasing, at most 64; +Inf
 * is implicit) of the classic histogram a PROMETHEUS report writes for a
 * time metric: TTFT, TPOT, ITL, ICL, E2E, ITL_MAX, NTPOT, DISPATCH_DELAY,
 * SCHEDULED_TTFT or SCHEDULED_E2E. The array is copied; bounds NULL with
 * n = 0 restores the default, the buckets vLLM's server uses (its TTFT
 * buckets for TTFT, SCHEDULED_TTFT and DISPATCH_DELAY, its
 * time-per-output-token buckets for TPOT, NTPOT, ITL, ICL and ITL_MAX,
 * its request-latency buckets for E2E and SCHEDULED_E2E). Kept
 * by llmlat_agg_reset. Bounds set here are used by every naming scheme of
 * the exposition (llmlat_expose_names): left at their default, each
 * scheme writes its own system's default buckets.
 * Errors: EINVAL (NULL a, another metric, NULL bounds
 * with n > 0, n > 64, a bound NaN, infinite or not above the previous). */
LLMLAT_API int32_t llmlat_agg_set_buckets(llmlat_agg *a, int32_t metric, const double *bounds,
                                          size_t n);

/* Constant labels (Prometheus): name/value pairs that every exposition
 * and report of a writes beside its figures, e.g. model="llama-3-70b",
 * route="/v1/chat" (docs/prometheus.md). A name matches
 * [a-zA-Z_][a-zA-Z0-9_]*, does not start with "__" (reserved by
 * Prometheus) and is none of the labels the expositions write themselves:
 * "le", "quantile", and llmlat_info's "version", "convention" and "mode".
 * A value is any valid UTF-8 (escaped by the text formats). Setting a name
 * again replaces its value; a NULL or empty value removes the label
 * (Prometheus reads an empty label as an absent one). Labels are kept
 * sorted by name, kept by llmlat_agg_reset, serialized, and not changed by
 * merging (a merge keeps dst's labels, as it keeps dst's params: merge a
 * label set's per-thread aggregators into the one that carries them).
 * Errors: EINVAL (NULL a or name; an invalid name or value; a name or a
 * value longer than LLMLAT_LABEL_MAX bytes; a new label beyond
 * LLMLAT_MAX_LABELS), ENOMEM; on error a's labels are unchanged. */
#define LLMLAT_MAX_LABELS 16
#define LLMLAT_LABEL_MAX 1024
LLMLAT_API int32_t llmlat_agg_set_label(llmlat_agg *a, const char *name, const char *value);
/* The number of labels of a. Errors: EINVAL (NULL). */
LLMLAT_API int32_t llmlat_agg_label_count(const llmlat_agg *a, size_t *n);
/* Label i (0 <= i < count, in name order): NUL-terminated strings owned by
 * a, valid until its labels are next changed or a is freed.
 * Errors: EINVAL (NULL, i out of range). */
LLMLAT_API int32_t llmlat_agg_get_label(const llmlat_agg *a, size_t i, const char **name,
                                        const char **value);

/* Folds a finished, failed or cancelled request into a (the request is
 * not changed and may be reset right after). Both modes accept the same
 * requests: every counter and count a request adds to must stay below
 * 2^64 (requests added, input and output tokens, ITL samples = tokens, ICL
 * samples = events; under GuideLLM and inference-perf a failure's in its
 * status group), its TPS_USER below 2^64 tokens/s (the one sample that can
 * be that large, with a usage count near 2^64; every time fits anyway),
 * and under GuideLLM its N below 2^32 (the weight of its TPOT and NTPOT).
 * Errors: EINVAL (NULL), EOVERFLOW (those limits), ESTATE (request not
 * ended), ENOMEM. */
LLMLAT_API int32_t llmlat_agg_add(llmlat_agg *a, const llmlat_request *r);

#define LLMLAT_COLUMN_CANCELLED 2 /* ok[i] of a cancelled request */

/* Many requests at once, given as columns (a benchmark harness's arrays,
 * numpy's in the Python binding): request i starts at start_ns[i], has
 * the events offsets[i] .. offsets[i + 1] - 1 of t_ns[] and k[], and ends
 * at end_ns[i]: failed when ok[i] is 0, cancelled by the client
 * (llmlat_request_cancel) when it is LLMLAT_COLUMN_CANCELLED, finished
 * otherwise.
 *   end_ns          NULL: each request ends at its last event (or start)
 *   ok              NULL: every request finished
 *   offsets         n + 1 non-decreasing entries (NULL only when no
 *                   request has events: offsets[0] .. offsets[n] all 0)
 *   t_ns, k         offsets[n] events (NULL when offsets[n] is 0)
 *   input_tokens    NULL: 0 each; otherwise >= 0
 *   output_tokens   NULL: none; a negative entry: none for that request
 *                   (N = sum of its k), otherwise its usage count
 * All or nothing: every request is checked (the rules of the recorder:
 * times not going back, spans and sums that fit) and memory is reserved
 * before any is added; on error none is, and *bad (may be NULL) is the
 * index of the first request at fault (SIZE_MAX when the fault is not one
 * request's: NULL arrays, ENOMEM). The result is that of adding the
 * requests one by one, in order. Errors: EINVAL (NULL arrays, offsets
 * going back, a negative input count), EORDER (times going back),
 * EOVERFLOW (a span, a count or a sum past the limits of llmlat_agg_add),
 * ENOMEM. */
LLMLAT_API int32_t llmlat_agg_add_columns(llmlat_agg *a, size_t n, const int64_t *start_ns,
                                          const int64_t *end_ns, const uint8_t *ok,
                                          const uint64_t *offsets, const int64_t *t_ns,
                                          const uint32_t *k, const int64_t *input_tokens,
                                          const int64_t *output_tokens, size_t *bad);

/* A scheduled_ns entry of a request without an intended start. */
#define LLMLAT_NO_SCHEDULE INT64_MIN

/* The same, each request i with its intended start scheduled_ns[i]
 * (llmlat_request_schedule; LLMLAT_NO_SCHEDULE: none), at or before
 * start_ns[i]; scheduled_ns NULL: none has one (llmlat_agg_add_columns).
 * Every time of request i, its intended start included, is then within
 * int64 of the earliest. Errors: as llmlat_agg_add_columns, and EORDER
 * for an intended start after its start. (1.2) */
LLMLAT_API int32_t llmlat_agg_add_columns_scheduled(
    llmlat_agg *a, size_t n, const int64_t *start_ns, const int64_t *end_ns, const uint8_t *ok,
    const uint64_t *offsets, const int64_t *t_ns, const uint32_t *k, const int64_t *input_tokens,
    const int64_t *output_tokens, const int64_t *scheduled_ns, size_t *bad);

/* Adds everything src holds to dst: afterwards dst equals an aggregator
 * that was given the requests of both (bounded mode: the same state bit for
 * bit, so merging is associative and commutative). dst's params are kept.
 * src is not changed. Errors: EINVAL (NULL, dst == src), EOVERFLOW (a
 * counter or count would pass 2^64 - 1), EMISMATCH (different convention
 * or mode, or bounded aggregators with different relative errors or SLOs),
 * ENOMEM. */
LLMLAT_API int32_t llmlat_agg_merge(llmlat_agg *dst, const llmlat_agg *src);

/* A statistic of a metric's samples (COUNT is the number of samples: of
 * tokens for ITL; under GuideLLM, which weighs TPOT by N - 1 and NTPOT by
 * N, the sum of the weights, and MEAN, STD are weighted, MEDIAN its
 * inverse CDF at 0.5). Errors: EINVAL (NULL, unknown id), EUNDEFINED
 * (empty set, or STD with ddof 1 over one sample; *out NaN) unless the
 * convention's placeholder applies (vLLM, SGLang and GuideLLM report 0.0). */
LLMLAT_API int32_t llmlat_agg_stat(const llmlat_agg *a, int32_t metric, int32_t stat,
                                   double *out);
/* The q-quantile (q in [0, 1]) of a metric's samples. Exact mode: numpy's
 * default linear interpolation, the same double as numpy.quantile(x, q) on
 * the same samples (numpy.percentile(x, p) is q = p / 100.0, divided as
 * numpy divides); under GuideLLM its inverse CDF, the first value whose
 * cumulative probability (summed in double as numpy.cumsum sums it)
 * reaches q, no interpolation. Bounded mode: a value v with
 * |v - E| <= e * E <= alpha * E for E the exact-mode value, for every q,
 * e the error (base - 1) / (base + 1) of the native-histogram schema
 * alpha selects (0.54% at alpha 1%), provided the non-zero samples lie in
 * the sketch's window, within about a factor 2^31 below the largest (28 ns
 * to 60 s, or 1 to 2.1e9 tokens); q = 0 and q = 1 give min and max
 * exactly, and zeros are exact. A sample further below is in the zero
 * bucket: a quantile landing on it is within [min, zero threshold], i.e.
 * within (z - min) / (z + min) <= 1 of it (docs/bounded.md).
 * Errors: EINVAL (NULL, unknown id, q outside [0, 1] or NaN), EUNDEFINED
 * (empty set; placeholders as for llmlat_agg_stat). */
LLMLAT_API int32_t llmlat_agg_quantile(const llmlat_agg *a, int32_t metric, double q,
                                       double *out);
/* n quantiles (n <= 32) of one metric at once: the same values as n calls
 * of llmlat_agg_quantile, for the cost of about one in exact mode (one
 * selection pass finds every rank). Errors as llmlat_agg_quantile, plus
 * EINVAL for n = 0 or n > 32; on EUNDEFINED every out[i] is NaN. */
LLMLAT_API int32_t llmlat_agg_quantiles(const llmlat_agg *a, int32_t metric, const double *q,
                                        size_t n, double *out);
/* The native-histogram buckets of one metric (docs/bounded.md), for
 * exporters (Prometheus native histograms, OpenTelemetry exponential
 * histograms): bucket i covers (base^(i-1), base^i] in the metric's
 * exported unit (seconds for times, tokens, tokens/s), base =
 * 2^(2^-schema), with exactly the boundaries (doubles) of Prometheus'
 * client_golang, so a value's bucket is the one client_golang gives the
 * same float64. *schema is the coarsest whose relative error
 * (base - 1) / (base + 1) is within the aggregator's relative error:
 * 1..12 (alpha 1% gives 6). Samples at or below *zero_threshold (0
 * included) are counted in *zero_count: the zeros, and the samples more
 * than 2^31 below the largest (the threshold is the lower edge of the
 * sketch's window, 0 while no sample is above 0; it only rises, and a
 * bucket's count only grows, as requests are added: Prometheus sees no
 * counter reset). counts[j] is the count of bucket *offset + j for
 * j < *len, from the lowest bucket with a count to the highest (empty
 * buckets between them included); *len is 0 when no sample is above the
 * threshold. Prometheus 2.x accepts schemas up to 8: for alpha below
 * 0.135% (schema 9..12), add each 2^(schema-8) consecutive buckets into
 * one (bucket i goes to ceil(i / 2^(schema-8)), the schemas nest exactly)
 * and raise the zero threshold to the upper bound of the schema-8 bucket
 * holding it, adding that bucket's part into the zero count.
 * Bounded mode: the sketch itself. Exact mode: the samples counted into
 * the same buckets and window a bounded aggregator of the same relative
 * error would hold (O(samples) per call).
 * Buffer rules of llmlat_agg_serialize, counted in elements of counts:
 * when cap < the count needed (counts may be NULL with cap 0) nothing is
 * written but *len, set to that count, and ENOSPC is returned; on success
 * the elements of counts past *len may have been used as scratch.
 * A metric a's data lack (llmlat_agg_unavailable) has no buckets either:
 * EUNDEFINED, with *len, *zero_count, *zero_threshold and *offset 0.
 * Errors: EINVAL (NULL a or out parameter, NULL counts with cap > 0,
 * unknown metric), ENOSPC, EUNDEFINED. */
LLMLAT_API int32_t llmlat_agg_buckets(const llmlat_agg *a, int32_t metric, int32_t *schema,
                                      double *zero_threshold, uint64_t *zero_count,
                                      int32_t *offset, uint64_t *counts, size_t cap,
                                      size_t *len);

/* A system rate per second of the duration D (docs/metrics.md).
 * Errors: EINVAL (NULL, unknown id), EUNDEFINED (D is 0 or unknown;
 * GOODPUT without an SLO; PEAK with no success unless a placeholder, and
 * PEAK in bounded mode). */
LLMLAT_API int32_t llmlat_agg_rate(const llmlat_agg *a, int32_t rate, double *out);
/* A counter. Errors: EINVAL (NULL, unknown id), EUNDEFINED (GOOD without
 * an SLO; PEAK_CONCURRENCY in bounded mode, *out 0). */
LLMLAT_API int32_t llmlat_agg_counter(const llmlat_agg *a, int32_t counter, uint64_t *out);

/* Kinds of llmlat_agg_unavailable's ids. */
#define LLMLAT_KIND_METRIC  1 /* a metric id: its statistics and quantiles */
#define LLMLAT_KIND_RATE    2 /* a LLMLAT_RATE_* id */
#define LLMLAT_KIND_COUNTER 3 /* a LLMLAT_COUNT_* id */

/* Whether a's data can support a metric, rate or counter under its
 * convention: requests rebuilt from a tool's result file may lack what it
 * needs (llmlat_request_set_lacks). OK with *reason NULL when available;
 * EUNDEFINED with *reason a static English sentence (such as "the source
 * has no start times") when not: then its queries return EUNDEFINED (and
 * NaN, 0 for counters), whatever the convention's placeholders. Merging
 * and serializing keep what is lacking. Errors: EINVAL (NULL, unknown kind
 * or id). */
LLMLAT_API int32_t llmlat_agg_unavailable(const llmlat_agg *a, int32_t kind, int32_t id,
                                          const char **reason);

/* Writes a's state, in either mode, to buf in the documented byte format
 * (docs/format.md): little-endian, the magic "LLMLATAG", a format version,
 * the settings (convention, mode, params, report quantiles, histogram
 * bounds), counters and samples, and a CRC-32. Bounded mode needs about
 * 1.3 KiB plus a few bytes per bucket in use; equal states give equal
 * bytes. When cap is too small (buf may be NULL with cap 0) nothing is
 * written, *len is set to the size needed and ENOSPC returned; on success
 * *len is the size written. Errors: EINVAL (NULL a or len, NULL buf with
 * cap > 0), ENOSPC. */
LLMLAT_API int32_t llmlat_agg_serialize(const llmlat_agg *a, void *buf, size_t cap,
                                        size_t *len);
/* A new aggregator from bytes written by llmlat_agg_serialize (any
 * version this library knows), equal to the one serialized: same answers,
 * same bytes when serialized again. NULL on error with *status set
 * (EINVAL: NULL buf with len > 0; EFORMAT: any malformed, truncated,
 * corrupted or trailing bytes, an unknown version, settings or counts that
 * do not hold together; ENOMEM). status may be NULL. Every byte is treated
 * as hostile: nothing is allocated for a count before the bytes it
 * announces are known to be there. */
LLMLAT_API llmlat_agg *llmlat_agg_deserialize(const void *buf, size_t len, int32_t *status);

/* A report of a in one of the LLMLAT_FORMAT_* formats (not NUL-terminated;
 * *len bytes; text but for PROMETHEUS_PROTOBUF), docs/report-json.md and
 * docs/report-formats.md. The three exposition formats write what
 * llmlat_expose(&a, 1, format, ...) writes plus the gauges of a benchmark
 * run: the duration D and the rates and peaks over it (docs/prometheus.md).
 * Buffer rules as for llmlat_agg_serialize.
 * The report is made once per call (asking for the size with cap 0 costs
 * as much as the report itself): callers that do not know its size should
 * stream it with llmlat_agg_report_write instead.
 * Errors: EINVAL (NULL, unknown format), ENOSPC, ENOMEM, EUNDEFINED (a
 * per-request format of an aggregator that keeps no requests). */
LLMLAT_API int32_t llmlat_agg_report(const llmlat_agg *a, int32_t format, void *buf,
                                     size_t cap, size_t *len);

/* Receives streamed output: the next len >= 1 bytes, valid only during the
 * call. Returns LLMLAT_OK to go on; any other value stops the output and
 * is returned by the call that was writing. */
typedef int32_t (*llmlat_write_fn)(void *user, const void *bytes, size_t len);

/* The same report as llmlat_agg_report, made once and handed to fn in
 * pieces as it is written (pieces of at most a few KiB, in order; their
 * sizes are not part of the contract), so no buffer of the report's size
 * is needed. fn is called on the calling thread, before this returns; it
 * must not change a (queries are fine). On an error the pieces already
 * delivered are a prefix of the report: discard them.
 * Errors: EINVAL (NULL a or fn, unknown format), ENOMEM (a query's
 * scratch), or the first status other than LLMLAT_OK that fn returned. */
LLMLAT_API int32_t llmlat_agg_report_write(const llmlat_agg *a, int32_t format,
                                           llmlat_write_fn fn, void *user);

/* A new, empty aggregator with every setting of a: its convention, mode,
 * params (relative error, duration, SLOs), report quantiles, histogram
 * bounds and labels -- what llmlat_agg_reset keeps -- and none of its
 * data. So it merges with a. NULL when a is NULL or out of memory. */
LLMLAT_API llmlat_agg *llmlat_agg_new_like(const llmlat_agg *a);

/* ------------------------------------------------------------- streaming */

/* A streaming recorder: the same life cycle and calls as a recorder made
 * by llmlat_request_new, but it keeps only a block of its latest 64
 * events. A full block is folded at once, by like's gap rule and bucket
 * layout, into buckets and sums of the recorder's own, so its memory
 * follows the spread of the request's gaps, not their number: 2 bytes
 * per bucket its ITL and ICL values span (at the default relative error
 * 64 buckets per power of two, at most 31 powers of two: 3.9 KiB per
 * metric), 4 bytes once more than 4 of its buckets hold 65536 samples
 * each, plus about 1,550 bytes (768 of them the block); a 100,000-token
 * stream with bursts and stalls takes about 7.8 KiB (docs/threads.md has
 * the figures). Whatever reads it (llmlat_request_value in flight,
 * llmlat_agg_add) counts the block's events without folding them, and
 * llmlat_agg_add gives the same aggregator, bit for bit, as a buffered
 * recorder of the same events.
 *
 * It is for bounded mode: like must be a bounded aggregator, and r can be
 * added (llmlat_agg_add, llmlat_live_add, llmlat_window_add) to bounded
 * aggregators of the same relative error whose convention has the same
 * gap rule as like's: vLLM's (every event counts) or every other
 * convention's (events with tokens): else EMISMATCH. like is only read,
 * and may be freed or changed afterwards. llmlat_request_value gives
 * every metric under conventions of that gap rule, and all but ITL, ICL
 * and ITL_MAX (EMISMATCH) under the other. The event that finds the block
 * full, and llmlat_request_events, fold what it holds, and may fail with
 * ENOMEM when the request's values spread further than before (nothing
 * is changed then; the other events allocate nothing). Exact mode keeps
 * every sample by definition: use llmlat_request_new there. Threads: it
 * reads only like's settings, so it may be made while other threads add
 * to or query like; the recorder itself is one thread's at a time, as any
 * recorder. NULL when like is NULL or exact, or out of memory. */
LLMLAT_API llmlat_request *llmlat_request_new_streaming(const llmlat_agg *like);

/* ------------------------------------------------------------------ live */

/* The live recorder: many threads add finished requests while one reader
 * takes snapshots, as HdrHistogram's interval recorder does
 * (docs/threads.md).
 *
 * Each writer thread takes a writer handle (llmlat_live_writer_new) and
 * adds through it. A writer has two aggregators and never takes a lock
 * nor waits: llmlat_live_add is one atomic increment, llmlat_agg_add into
 * the aggregator of the current phase, and one atomic store. The reader's
 * llmlat_live_snapshot flips each writer to its other aggregator and
 * waits, for each writer, at most until the add that writer has in
 * progress returns (it spins, yields the processor, then sleeps 50 us
 * between looks: a writer preempted mid-add makes it wait for the
 * scheduler); then it folds the aggregators it took into its own.
 *
 * Every accepted add is in exactly one interval snapshot: an add that
 * returned before a snapshot began is in that one or an earlier one, an
 * add that overlaps a snapshot in that one or the next. A cumulative
 * snapshot holds every
 * interval taken so far and the one in progress. So nothing is lost nor
 * counted twice: after the last add returned, a cumulative snapshot holds
 * exactly the requests added (bounded mode: the same bytes as one
 * aggregator given them all in any order).
 *
 * Needs C11 atomics (<stdatomic.h>, lock-free 64-bit integers). */
typedef struct llmlat_live llmlat_live;
typedef struct llmlat_live_writer llmlat_live_writer;

/* Kinds of llmlat_live_snapshot. */
#define LLMLAT_SNAPSHOT_CUMULATIVE 1 /* everything added so far */
#define LLMLAT_SNAPSHOT_INTERVAL   2 /* what was added since the last interval snapshot */

/* A new live recorder whose aggregators take like's settings (as
 * llmlat_agg_new_like: convention, mode, params, labels, ...), either
 * mode. like is only read, and may be freed afterwards. NULL when like is
 * NULL or out of memory. */
LLMLAT_API llmlat_live *llmlat_live_new(const llmlat_agg *like);
/* Frees l, its writers' handles and everything it holds; NULL is a no-op.
 * No writer or reader may be using it. */
LLMLAT_API void llmlat_live_free(llmlat_live *l);

/* A writer handle of l, for one thread at a time (any thread may call
 * this, concurrently with writers and the reader). It reuses the slot of
 * a released handle, with the data that slot still holds, before
 * allocating one (two aggregators). Slots are kept until l is freed.
 * NULL when l is NULL or out of memory. */
LLMLAT_API llmlat_live_writer *llmlat_live_writer_new(llmlat_live *l);
/* Releases a writer handle: w may not be used afterwards. What it added
 * stays in l (the next snapshots see it). NULL is a no-op. */
LLMLAT_API void llmlat_live_writer_free(llmlat_live_writer *w);

/* Folds a finished or failed request into l through writer w, without a
 * lock, concurrently with other writers and the reader. Errors as
 * llmlat_agg_add: EINVAL (NULL), EOVERFLOW (a count or sum would not fit),
 * ESTATE (request not ended), EMISMATCH (a streaming recorder of another
 * layout), ENOMEM (exact mode); a rejected request is in no snapshot. */
LLMLAT_API int32_t llmlat_live_add(llmlat_live_writer *w, const llmlat_request *r);

/* Replaces out's data by a snapshot of l: everything added so far
 * (CUMULATIVE), or what was added since the previous INTERVAL snapshot
 * (INTERVAL; the first one: since l was made). out keeps its own settings
 * (params such as the duration, labels, report quantiles) and is an
 * ordinary aggregator: query, merge, serialize or report it. It must merge
 * with l's aggregators: made by llmlat_agg_new_like of l's like (or of an
 * aggregator with the same convention, mode, relative error and SLOs).
 * One snapshot at a time; writers keep adding meanwhile (see above for
 * which adds a snapshot holds). Cost: one merge per writer slot, plus one
 * or two. Errors: EINVAL (NULL, unknown kind), EOVERFLOW (a count would
 * not fit),
 * EMISMATCH (out does not merge with l), ESTATE (another thread is taking
 * a snapshot of l), ENOMEM (exact mode); on error out is left empty and l
 * keeps every request for the next snapshots. */
LLMLAT_API int32_t llmlat_live_snapshot(llmlat_live *l, int32_t kind, llmlat_agg *out);

/* ---------------------------------------------------------------- window */

/* A sliding window: the requests that ended during the last width_ns of
 * the host's clock, in steps of step_ns, in fixed memory
 * (docs/threads.md, "Sliding windows").
 *
 * Time is what the host passes: each request's end time (its finish or
 * fail time) and the times given to llmlat_window_merge and
 * llmlat_window_advance; the window's clock is the latest of them, and
 * the library reads no clock of its own. Steps are aligned on multiples of
 * step_ns (step e covers [e step, (e + 1) step)). At clock c, in step e,
 * the window holds exactly the requests given to it that ended in steps
 * e - n + 1 .. e, n = width / step: times from (e - n + 1) step to c,
 * between width - step and width long. A time before that (from the
 * window's point of view, already dropped) is EORDER; a time after the
 * clock moves it, and the steps that leave the window are dropped.
 *
 * The view (llmlat_window_view) is an ordinary bounded aggregator holding
 * the union of the window's steps, with like's settings and, as its
 * duration, the span the window covers: from the start of its oldest step
 * (or from the earliest time it was given, if later) to the clock. So
 * every query -- statistics, quantiles, rates, goodput, counters, reports
 * -- is over the window, at the cost of a query of one aggregator. A
 * query is always as of the clock: to see the window at time `now`,
 * llmlat_window_advance(w, now) first (a time before the clock is EORDER:
 * the past is not kept). One thread at a time changes a window. */
typedef struct llmlat_window llmlat_window;

#define LLMLAT_WINDOW_MAX_SLOTS 1024 /* width_ns / step_ns at most */

/* A new, empty window of width_ns in steps of step_ns over aggregators
 * with like's settings (as llmlat_agg_new_like; like must be bounded and is
 * only read). It allocates n + 1 aggregators (n = width_ns / step_ns;
 * each holds like's LLMLAT_COUNT_MEMORY_BYTES) and never again. NULL on
 * error, with *status (status may be NULL): EINVAL (like NULL or exact
 * mode; step_ns or width_ns <= 0; width_ns not a multiple of step_ns;
 * more than LLMLAT_WINDOW_MAX_SLOTS steps), ENOMEM. */
LLMLAT_API llmlat_window *llmlat_window_new(const llmlat_agg *like, int64_t width_ns,
                                            int64_t step_ns, int32_t *status);
/* Frees w and everything it holds (the view too); NULL is a no-op. */
LLMLAT_API void llmlat_window_free(llmlat_window *w);
/* Empties w and forgets its clock (as new). Errors: EINVAL (NULL). */
LLMLAT_API int32_t llmlat_window_reset(llmlat_window *w);

/* Counts a finished or failed request in the step of its end time,
 * moving the clock there if it is later (a request that ended earlier, in
 * a step still in the window, joins that step). Errors: EINVAL (NULL),
 * EOVERFLOW (a count or sum of the window would not fit: checked against
 * the window as it is, before a rotation), ESTATE (request not ended),
 * EMISMATCH (a streaming recorder of another layout), EORDER (it ended
 * before the window's oldest step); on error nothing changed. Never
 * allocates. */
LLMLAT_API int32_t llmlat_window_add(llmlat_window *w, const llmlat_request *r);
/* Counts everything src holds as requests that ended at t_ns (e.g. an
 * interval snapshot of a live recorder, taken at t_ns). src must merge
 * with w's aggregators and is not changed. Errors: EINVAL (NULL, src is w's
 * view), EOVERFLOW (a count would not fit), EMISMATCH, EORDER (t_ns before
 * the window's oldest step); on error nothing changed. */
LLMLAT_API int32_t llmlat_window_merge(llmlat_window *w, const llmlat_agg *src, int64_t t_ns);
/* Moves the clock to now_ns, dropping the steps that leave the window;
 * call it before reading the view at time now_ns. The call that enters a
 * new step costs up to n merges (none when the steps dropped were empty);
 * any other costs a few compares. Errors: EINVAL (NULL), EORDER (now_ns
 * before the clock; nothing changed). */
LLMLAT_API int32_t llmlat_window_advance(llmlat_window *w, int64_t now_ns);
/* The window as an aggregator, to query with llmlat_agg_* (never to
 * change): owned by w, valid until w is freed, its content as of the
 * clock until w next changes. Several threads may query it while none
 * changes w. Errors: EINVAL (NULL). */
LLMLAT_API int32_t llmlat_window_view(const llmlat_window *w, const llmlat_agg **out);
/* ------------------------------------------------------------- exposition */

/* One Prometheus exposition of n aggregators (docs/prometheus.md), in
 * format PROMETHEUS (text 0.0.4), OPENMETRICS (1.0, "# EOF" at the end)
 * or PROMETHEUS_PROTOBUF (delimited MetricFamily messages; histograms
 * carry native buckets beside the classic ones). Each family's metadata
 * is written once, then one series per aggregator, labelled with its
 * constant labels: aggregators of different label sets, conventions or
 * modes make one valid exposition. Two aggregators with the same label
 * set (the same pointer twice included) are refused: merge them first
 * (llmlat_agg_merge), as a server does with its per-thread aggregators.
 * Every _sum, _count, bucket and counter only grows as requests are added
 * (reset aside), so rate() and increase() read them. Only cumulative
 * series are written, none derived from the aggregator's duration (what
 * a server needs; llmlat_agg_report adds them for a benchmark). n = 0
 * writes an empty exposition ("# EOF" alone in OpenMetrics). Reads the
 * aggregators only: other threads may query them meanwhile, none may
 * change them. Buffer rules as for llmlat_agg_serialize (the exposition
 * is made once per call: a caller that does not know its size streams it
 * with llmlat_expose_write).
 * Errors: EINVAL (NULL len, NULL aggs with n > 0, a NULL aggregator, NULL
 * buf with cap > 0, another format, two aggregators with the same
 * labels), ENOSPC, ENOMEM. */
LLMLAT_API int32_t llmlat_expose(const llmlat_agg *const *aggs, size_t n, int32_t format,
                                 void *buf, size_t cap, size_t *len);

/* The same exposition, streamed to fn as llmlat_agg_report_write streams
 * a report (what an HTTP handler writes to its connection). Nothing is
 * written when the arguments are refused (two aggregators with the same
 * labels included). Errors: EINVAL (NULL fn, and as llmlat_expose),
 * ENOMEM, or the first status other than LLMLAT_OK that fn returned. */
LLMLAT_API int32_t llmlat_expose_write(const llmlat_agg *const *aggs, size_t n, int32_t format,
                                       llmlat_write_fn fn, void *user);

/* Naming schemes of an exposition (docs/prometheus.md has each one's
 * series): the names, meanings, labels and default classic buckets that
 * a system's own exporter writes, so that its dashboards, alerts and
 * autoscalers read llmlat's aggregators unchanged. A system's name is
 * given only to the llmlat metric of the same meaning; what the system
 * has no name for is left out (llmlat_info, the summaries, and the
 * metrics and counters below that are not listed).
 *   LLMLAT_NAMES_LLMLAT  llmlat_expose's own series (llmlat_ttft_hist_seconds, ...)
 *   LLMLAT_NAMES_VLLM    vLLM's server (vllm/v1/metrics/loggers.py):
 *                        vllm:time_to_first_token_seconds (TTFT),
 *                        vllm:inter_token_latency_seconds and its older name
 *                        vllm:time_per_output_token_seconds (both ICL: vLLM's
 *                        per-step gap), vllm:request_time_per_output_token_seconds
 *                        (TPOT), vllm:e2e_request_latency_seconds (E2E),
 *                        vllm:request_prompt_tokens and _generation_tokens
 *                        (INPUT_TOKENS, OUTPUT_TOKENS per request),
 *                        vllm:prompt_tokens_total, vllm:generation_tokens_total,
 *                        vllm:request_success_total (COMPLETED); label
 *                        "model" written as "model_name"
 *   LLMLAT_NAMES_SGLANG  SGLang's server (python/sglang/srt/metrics/collector.py):
 *                        sglang:time_to_first_token_seconds (TTFT),
 *                        sglang:inter_token_latency_seconds (ITL, per token),
 *                        sglang:e2e_request_latency_seconds (E2E),
 *                        sglang:prompt_tokens_histogram, _generation_tokens_histogram,
 *                        sglang:prompt_tokens_total, sglang:generation_tokens_total,
 *                        sglang:num_requests_total (COMPLETED); "model" as
 *                        "model_name"
 *   LLMLAT_NAMES_OTEL    the OpenTelemetry GenAI semantic conventions (v1.41) in
 *                        Prometheus form: gen_ai_server_time_to_first_token_seconds
 *                        (TTFT), gen_ai_server_time_per_output_token_seconds (TPOT),
 *                        gen_ai_server_request_duration_seconds (E2E),
 *                        gen_ai_client_token_usage (INPUT_TOKENS and
 *                        OUTPUT_TOKENS, told apart by gen_ai_token_type="input" /
 *                        "output"); labels "model", "operation", "provider" and
 *                        "response_model" written as gen_ai_request_model,
 *                        gen_ai_operation_name, gen_ai_provider_name and
 *                        gen_ai_response_model (set "operation" and "provider":
 *                        the conventions require them)
 * Other labels keep their names. Histograms carry the system's default
 * classic buckets unless llmlat_agg_set_buckets set the metric's, and in
 * protobuf the native buckets beside them, as in the llmlat scheme. */
#define LLMLAT_NAMES_LLMLAT 0
#define LLMLAT_NAMES_VLLM   1
#define LLMLAT_NAMES_SGLANG 2
#define LLMLAT_NAMES_OTEL   3

/* llmlat_expose and llmlat_expose_write in a naming scheme (LLMLAT_NAMES_*;
 * LLMLAT_NAMES_LLMLAT writes exactly what they write). Besides their
 * errors: EINVAL for an unknown scheme, and when the scheme's label names
 * make two labels of one aggregator the same ("model" and "model_name"
 * under VLLM), make a label one the scheme writes itself
 * ("gen_ai_token_type" under OTEL), or make two aggregators' label sets
 * the same; nothing is written then. */
LLMLAT_API int32_t llmlat_expose_names(const llmlat_agg *const *aggs, size_t n, int32_t format,
                                       int32_t names, void *buf, size_t cap, size_t *len);
LLMLAT_API int32_t llmlat_expose_write_names(const llmlat_agg *const *aggs, size_t n,
                                             int32_t format, int32_t names, llmlat_write_fn fn,
                                             void *user);
/* The scheme's lower-case name ("llmlat", "vllm", "sglang", "otel"): a
 * static string, NULL for an unknown id. */
LLMLAT_API const char *llmlat_names_name(int32_t names);

/* The HTTP Content-Type of a format's bytes, e.g. for PROMETHEUS_PROTOBUF
 * "application/vnd.google.protobuf; proto=io.prometheus.client.MetricFamily;
 * encoding=delimited": a static string, NULL for an unknown format. */
LLMLAT_API const char *llmlat_format_content_type(int32_t format);
/* ------------------------------------------------------------------ reader */

/* A push reader of traces and of other tools' result files: the host
 * feeds it bytes (the library does no I/O) and takes requests out one at a
 * time. Formats: llmlat's trace (docs/cli.md) and the result files of
 * vLLM, AIPerf, GenAI-Perf, SGLang and LLMPerf (docs/importers.md). Times
 * are converted from their decimal text to integer ns exactly. A request
 * whose times go backwards, or that has events after its end, is rejected
 * (named and counted; the reading goes on); anything else malformed ends
 * the reading with one message "name:line:column: what is wrong".
 * Memory: the bytes of the step being parsed and the current request's
 * events (the llmlat trace, AIPerf and LLMPerf: bounded by the largest
 * request, not the input); vLLM, SGLang and GenAI-Perf files keep a run's
 * requests in separate arrays, which are held until the input ends.
 * One thread at a time. */
typedef struct llmlat_reader llmlat_reader;

/* Input formats (llmlat_input_name gives "trace", "vllm", ...). */
#define LLMLAT_INPUT_AUTO       0 /* detected from the first bytes */
#define LLMLAT_INPUT_TRACE      1 /* llmlat's trace: array, {"requests": ...} or JSON Lines */
#define LLMLAT_INPUT_VLLM       2 /* vllm bench serve --save-result --save-detailed */
#define LLMLAT_INPUT_AIPERF     3 /* AIPerf profile_export.jsonl (or its raw export) */
#define LLMLAT_INPUT_GENAI_PERF 4 /* GenAI-Perf profile_export.json */
#define LLMLAT_INPUT_SGLANG     5 /* python -m sglang.bench_serving --output-file --output-details */
#define LLMLAT_INPUT_LLMPERF    6 /* LLMPerf *_individual_responses.json */
#define LLMLAT_INPUT_GUIDELLM   7 /* GuideLLM benchmarks.json (1.2) */
#define LLMLAT_INPUT_INFERENCE_PERF 8 /* inference-perf per_request_lifecycle_metrics.json (1.2) */

/* Lower-case name of an input format; NULL for an unknown id. */
LLMLAT_API const char *llmlat_input_name(int32_t input);

/* What llmlat_reader_next and llmlat_reader_add_to found (*what). */
#define LLMLAT_READ_REQUEST  1 /* a request (next: in r; add_to: never returned) */
#define LLMLAT_READ_REJECTED 2 /* a request was rejected: llmlat_reader_message says why */
#define LLMLAT_READ_MORE     3 /* every byte fed was used: feed more, or end the input */
#define LLMLAT_READ_END      4 /* the input was read to its end */

/* A new reader of `input` (LLMLAT_INPUT_*); name (copied; NULL: "<input>")
 * starts its messages. NULL on an unknown format or no memory. */
LLMLAT_API llmlat_reader *llmlat_reader_new(int32_t input, const char *name);
/* Frees rd; NULL is a no-op. */
LLMLAT_API void llmlat_reader_free(llmlat_reader *rd);
/* Which run to read of a file that holds several (vLLM --append-result and
 * SGLang files have one JSON line per run, GenAI-Perf one experiment per
 * load level): 1 for the first, 0 (the default) for the last. The reader
 * then counts the runs (llmlat_reader_counter). A run that is not there
 * is an error once the input ends. Errors: EINVAL (NULL), ESTATE (bytes
 * were fed). */
LLMLAT_API int32_t llmlat_reader_set_run(llmlat_reader *rd, uint64_t run);
/* The next len bytes of the input, copied (buf may be NULL when len is 0).
 * Errors: EINVAL, ESTATE (after llmlat_reader_end), ENOMEM (nothing was
 * kept: feed them again), and the error that ended the reading. */
LLMLAT_API int32_t llmlat_reader_feed(llmlat_reader *rd, const void *buf, size_t len);
/* The same without a copy, for a host that reads its input straight into
 * the reader's buffer: space gives room for at least `want` bytes (*buf,
 * *cap: where, and how many fit), valid until the next call on rd; commit
 * then feeds the n <= *cap bytes written there. Errors: as feed, and
 * EINVAL (want 0; n beyond the room). */
LLMLAT_API int32_t llmlat_reader_space(llmlat_reader *rd, size_t want, void **buf, size_t *cap);
LLMLAT_API int32_t llmlat_reader_commit(llmlat_reader *rd, size_t n);
/* The input is complete. Errors: EINVAL; the error that ended the reading. */
LLMLAT_API int32_t llmlat_reader_end(llmlat_reader *rd);
/* The next request, into r (reset first; changed only when *what is
 * READ_REQUEST), or why there is none now (*what). Errors: EINVAL (NULL),
 * EFORMAT (malformed input: llmlat_reader_message says where and what;
 * requests before it were handed over), ENOMEM (the request is kept: call
 * again). An error ends the reading: every later call returns it. */
LLMLAT_API int32_t llmlat_reader_next(llmlat_reader *rd, llmlat_request *r, int32_t *what);
/* Folds every request available into a (llmlat_agg_add) until one is
 * rejected (READ_REJECTED; one the aggregator refuses, such as a token sum
 * past 2^64, is rejected too), or MORE or END. Errors: as next, and ENOMEM
 * from the aggregator (the request is kept: call again). */
LLMLAT_API int32_t llmlat_reader_add_to(llmlat_reader *rd, llmlat_agg *a, int32_t *what);
/* The message of the last rejection or of the error that ended the
 * reading, "name:line:column: ..." on one line; "" otherwise. Owned by rd,
 * valid until its next call. Never NULL. */
LLMLAT_API const char *llmlat_reader_message(const llmlat_reader *rd);
/* The id of the last request handed over or rejected ("" when it has none),
 * owned by rd as llmlat_reader_message is. Never NULL. */
LLMLAT_API const char *llmlat_reader_request_id(const llmlat_reader *rd);
/* Where that request is: its 1-based number, line and column. Errors:
 * EINVAL, ESTATE (no request yet). */
LLMLAT_API int32_t llmlat_reader_request_position(const llmlat_reader *rd, uint64_t *index,
                                                  uint64_t *line, uint64_t *column);
/* Counters of llmlat_reader_counter. */
#define LLMLAT_READ_COUNT_REQUESTS 1 /* requests read, rejected ones included */
#define LLMLAT_READ_COUNT_REJECTED 2 /* requests rejected */
#define LLMLAT_READ_COUNT_RUN      3 /* the run read (1-based) of a format with runs */
#define LLMLAT_READ_COUNT_RUNS     4 /* the runs of the input, once it was read to its end */
/* Errors: EINVAL (NULL, unknown id), EUNDEFINED (RUN or RUNS not known: a
 * format without runs, or not yet read; *out 0). */
LLMLAT_API int32_t llmlat_reader_counter(const llmlat_reader *rd, int32_t counter,
                                         uint64_t *out);
/* The format being read: the one given, or the one detected
 * (LLMLAT_INPUT_AUTO until the first bytes tell). Errors: EINVAL. */
LLMLAT_API int32_t llmlat_reader_format(const llmlat_reader *rd, int32_t *input);
/* The benchmark duration the input gives (a trace's "duration", a vLLM or
 * SGLang run's "duration"), in seconds, once read. Errors: EINVAL,
 * EUNDEFINED (none: *seconds NaN). */
LLMLAT_API int32_t llmlat_reader_duration(const llmlat_reader *rd, double *seconds);

/* ---------------------------------------------------------------- windows */

/* An exact aggregator keeps every request it is given (its start, intended
 * start, end, how it ended, token counts, what its data lack and its
 * events: about 12 bytes per event and 64 per request, in
 * LLMLAT_COUNT_MEMORY_BYTES), so
 * that parts of a run can be taken out of it: a steady-state window
 * without warm-up and cool-down, consecutive time slices, the bootstrap of
 * llmlat_compare_new, the per-request reports. A bounded aggregator keeps
 * no request; neither does an exact one given a request known by its
 * values only (llmlat_request_set_known), or into which one without them
 * was merged (one read from version-1 bytes): for those, these calls are
 * EUNDEFINED. Windows, the span and the Chrome trace also need the start
 * times on one clock: EUNDEFINED when a request lacks them
 * (LLMLAT_LACKS_START_TIMES).
 *
 * A request's end is its finish or fail time. Rules of
 * llmlat_agg_add_window, for a window from .. to:
 *   START   from <= start < to (each request in exactly one of consecutive
 *           windows: the slices of AIPerf's --slice-duration)
 *   END     from <= end < to
 *   INSIDE  from <= start and end <= to (the whole request in the window:
 *           what --window, --warmup and --cooldown keep) */
#define LLMLAT_WINDOW_START  1
#define LLMLAT_WINDOW_END    2
#define LLMLAT_WINDOW_INSIDE 3

/* Adds to dst every request of src that the rule keeps in the window
 * from_ns .. to_ns, as llmlat_agg_add would add it (with what its data
 * lack): dst computes them under its own
 * convention, mode and params (its duration param, when set, is its own:
 * leave it 0 to derive a window's duration from its requests). All or
 * nothing: on error dst is unchanged. src is not changed.
 * Errors: EINVAL (NULL, dst == src, unknown rule, from_ns > to_ns),
 * EOVERFLOW (a count or sum of dst would overflow), EUNDEFINED (src keeps
 * no requests, or not their start times), ENOMEM. */
LLMLAT_API int32_t llmlat_agg_add_window(llmlat_agg *dst, const llmlat_agg *src, int64_t from_ns,
                                         int64_t to_ns, int32_t rule);

/* The earliest start and the latest end of the requests a keeps, the
 * origin and end of its windows. Errors: EINVAL (NULL), EUNDEFINED (no
 * request, a keeps none, or their start times are not on one clock). */
LLMLAT_API int32_t llmlat_agg_span(const llmlat_agg *a, int64_t *first_start_ns,
                                   int64_t *last_end_ns);

/* ---------------------------------------------------------- comparison */

/* Two runs side by side: each figure of a base and a candidate run, the
 * difference candidate - base, its relative difference (candidate - base)
 * / base, and a 95% bootstrap confidence interval of both. docs/compare.md
 * has the method and its limits; in short: B resamples of each run, each
 * drawing as many requests as the run has, with replacement, from the
 * requests the aggregator keeps (all of a drawn request's samples come
 * along), every figure computed as the aggregator computes it with the
 * run's duration held fixed; the interval is the 2.5% and 97.5% quantiles
 * (numpy-linear) of the B differences. A difference whose interval
 * excludes 0 is one the resampling of requests does not explain.
 *
 * The figures, named as the CLI's --fail-if names them: for each metric
 * (its llmlat_metric_name: "ttft", "tpot", "itl", "icl", "e2e",
 * "tool_itl", ...) "mean_M", "median_M" and "pP_M" for each quantile of
 * the base's reports other than 0.5 ("p90_ttft", "p99.9_itl"); then
 * "request_throughput", "output_throughput", "total_token_throughput" and
 * "request_goodput" (the rates, per second). Values are in the unit
 * queries give (seconds, tokens, tokens/s). */
typedef struct llmlat_compare llmlat_compare;

#define LLMLAT_COMPARE_MAX_RESAMPLES 100000

/* Fields of a figure for llmlat_compare_get. */
#define LLMLAT_COMPARE_BASE      1 /* the base run's value */
#define LLMLAT_COMPARE_CAND      2 /* the candidate's */
#define LLMLAT_COMPARE_DIFF      3 /* CAND - BASE */
#define LLMLAT_COMPARE_REL_DIFF  4 /* (CAND - BASE) / BASE; undefined when BASE is 0 */
#define LLMLAT_COMPARE_DIFF_LOW  5 /* the interval of DIFF */
#define LLMLAT_COMPARE_DIFF_HIGH 6
#define LLMLAT_COMPARE_REL_LOW   7 /* the interval of REL_DIFF */
#define LLMLAT_COMPARE_REL_HIGH  8

/* Compares cand with base, which must have the same convention; the
 * quantile figures are those of base's llmlat_agg_set_quantiles. The work
 * is all done here: about `resamples` times a report of each run. With
 * resamples 0, or when a run keeps no requests (bounded mode; see the
 * windows section), there are no intervals (their fields are EUNDEFINED).
 * The same inputs and seed give the same result on every machine.
 * Returns NULL on error with *status set (status may be NULL): EINVAL
 * (NULL, resamples > LLMLAT_COMPARE_MAX_RESAMPLES), EMISMATCH (different
 * conventions), ENOMEM. base and cand are only read, and may be freed
 * afterwards. Memory: about 16 x resamples bytes per figure while it
 * runs. */
LLMLAT_API llmlat_compare *llmlat_compare_new(const llmlat_agg *base, const llmlat_agg *cand,
                                              uint32_t resamples, uint64_t seed,
                                              int32_t *status);
/* Frees c; NULL is a no-op. */
LLMLAT_API void llmlat_compare_free(llmlat_compare *c);
/* The name of figure i, in a fixed order (metrics by id, then rates); NULL
 * past the last (and for a NULL c). Owned by c. */
LLMLAT_API const char *llmlat_compare_figure(const llmlat_compare *c, size_t i);
/* A field of a figure. Errors: EINVAL (NULL, an unknown figure or field),
 * EUNDEFINED (*out NaN: a figure undefined in a run, an interval not
 * computed or undefined in a resample). */
LLMLAT_API int32_t llmlat_compare_get(const llmlat_compare *c, const char *figure, int32_t field,
                                      double *out);
/* The comparison as TEXT (a table, times in ms, significant differences
 * marked) or JSON (docs/compare.md), with the buffer rules of
 * llmlat_agg_serialize. Errors: EINVAL (NULL, another format), ENOSPC,
 * ENOMEM. Only reads c. */
LLMLAT_API int32_t llmlat_compare_report(const llmlat_compare *c, int32_t format, void *buf,
                                         size_t cap, size_t *len);

#ifdef __cplusplus
}
#endif

#endif /* LLMLAT_H */
