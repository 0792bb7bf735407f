#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmlat.h"
#include "fail_rules.h"
#include "report_options.h"
#include "usage.h"

/* The command being parsed, for messages. */
static const char *g_prog = "llmlat report";

static bool bad(const char *flag, const char *value, const char *why)
{
    fprintf(stderr, "%s: %s: '%s' %s\n", g_prog, flag, value, why);
    return false;
}

static bool refuse(const char *why)
{
    fprintf(stderr, "%s: %s\n", g_prog, why);
    return false;
}

/* The whole of s as a finite double. */
static bool parse_double(const char *s, double *out)
{
    char *end;
    if (!*s)
        return false;
    *out = strtod(s, &end);
    return *end == '\0' && isfinite(*out);
}

/* A positive number, divided by `unit` (1000 for ms), within a
 * parameter's bounds. */
static bool parse_param(const char *flag, const char *value, int32_t param, double unit,
                        double *out)
{
    double v, lo, hi;
    llmlat_param_bounds(param, &lo, &hi);
    if (!parse_double(value, &v))
        return bad(flag, value, "is not a number");
    v /= unit;
    if (!(v > 0.0 && v >= lo && v <= hi)) {
        char why[96];
        if (lo > 0.0)
            snprintf(why, sizeof why, "is out of range [%g, %g]", lo * unit, hi * unit);
        else
            snprintf(why, sizeof why, "is out of range (0, %g]", hi * unit);
        return bad(flag, value, why);
    }
    *out = v;
    return true;
}

static bool set_convention(report_options *o, const char *flag, const char *v)
{
    if (strcmp(v, "all") == 0 && o->command == COMMAND_REPORT) {
        o->convention = CONVENTION_ALL;
        return true;
    }
    for (int32_t id = 0; llmlat_convention_name(id); id++) {
        if (strcmp(v, llmlat_convention_name(id)) == 0) {
            o->convention = id;
            return true;
        }
    }
    return bad(flag, v,
               "is not a convention (default, vllm, aiperf, sglang, llmperf, guidellm, "
               "inference-perf)");
}

static bool set_mode(report_options *o, const char *flag, const char *v)
{
    if (strcmp(v, "exact") == 0)
        o->mode = LLMLAT_MODE_EXACT;
    else if (strcmp(v, "bounded") == 0)
        o->mode = LLMLAT_MODE_BOUNDED;
    else
        return bad(flag, v, "is not a mode (exact, bounded)");
    return true;
}

#define REPORTS (COMMAND_REPORT | COMMAND_BENCH)

static const struct {
    const char *name;
    int32_t format;
    int commands;
} FORMATS[] = {
    { "text", LLMLAT_FORMAT_TEXT, REPORTS | COMMAND_COMPARE },
    { "json", LLMLAT_FORMAT_JSON, REPORTS | COMMAND_COMPARE },
    { "prometheus", LLMLAT_FORMAT_PROMETHEUS, REPORTS },
    { "openmetrics", LLMLAT_FORMAT_OPENMETRICS, REPORTS },
    { "html", LLMLAT_FORMAT_HTML, REPORTS },
    { "chrome-trace", LLMLAT_FORMAT_CHROME_TRACE, REPORTS },
    { "csv", FORMAT_SLICES_CSV, COMMAND_REPORT },
};

static bool set_format(report_options *o, const char *flag, const char *v)
{
    for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++) {
        if (strcmp(v, FORMATS[i].name) == 0 && (FORMATS[i].commands & o->command)) {
            o->format = FORMATS[i].format;
            o->format_set = true;
            return true;
        }
    }
    return bad(flag, v, o->command == COMMAND_COMPARE ? "is not a format (text, json)"
                        : o->command == COMMAND_BENCH
                            ? "is not a format (text, json, prometheus, openmetrics, html, "
                              "chrome-trace)"
                            : "is not a format (text, json, prometheus, openmetrics, html, "
                              "chrome-trace; csv with --slice)");
}

static bool set_per_request(report_options *o, const char *flag, const char *v)
{
    if (strcmp(v, "csv") == 0)
        o->format = LLMLAT_FORMAT_REQUESTS_CSV;
    else if (strcmp(v, "jsonl") == 0)
        o->format = LLMLAT_FORMAT_REQUESTS_JSONL;
    else
        return bad(flag, v, "is not a table format (csv, jsonl)");
    o->per_request_set = true;
    return true;
}

/* Seconds >= 0 (> 0 when positive), finite. */
static bool parse_seconds(const char *flag, const char *v, bool positive, double *out)
{
    if (!parse_double(v, out) || *out < 0.0 || (positive && *out == 0.0) || *out > 1e9)
        return bad(flag, v, positive ? "is not a number of seconds > 0"
                                     : "is not a number of seconds >= 0");
    return true;
}

/* FROM:TO, seconds from the first start; either side may be left out. */
static bool set_window(report_options *o, const char *flag, const char *v)
{
    const char *colon = strchr(v, ':');
    char from[64];
    if (!colon || (size_t)(colon - v) >= sizeof from)
        return bad(flag, v, "is not FROM:TO (seconds from the first start, such as 60:240)");
    memcpy(from, v, (size_t)(colon - v));
    from[colon - v] = '\0';
    o->has_window_from = from[0] != '\0';
    o->has_window_to = colon[1] != '\0';
    if ((o->has_window_from && !parse_seconds(flag, from, false, &o->window_from_s)) ||
        (o->has_window_to && !parse_seconds(flag, colon + 1, false, &o->window_to_s)))
        return false;
    if (o->has_window_from && o->has_window_to && o->window_to_s <= o->window_from_s)
        return bad(flag, v, "ends before it starts");
    return true;
}

static bool set_warmup(report_options *o, const char *flag, const char *v)
{
    return parse_seconds(flag, v, false, &o->warmup_s);
}

static bool set_cooldown(report_options *o, const char *flag, const char *v)
{
    return parse_seconds(flag, v, false, &o->cooldown_s);
}

static bool set_slice(report_options *o, const char *flag, const char *v)
{
    return parse_seconds(flag, v, true, &o->slice_s);
}

/* The whole of v as an unsigned integer <= max. */
static bool parse_unsigned(const char *v, uint64_t max, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-' || v[0] == '+' || n > max)
        return false;
    *out = n;
    return true;
}

static bool set_resamples(report_options *o, const char *flag, const char *v)
{
    uint64_t n;
    if (!parse_unsigned(v, LLMLAT_COMPARE_MAX_RESAMPLES, &n))
        return bad(flag, v, "is not a number of resamples from 0 to 100000");
    o->resamples = (uint32_t)n;
    return true;
}

static bool set_seed(report_options *o, const char *flag, const char *v)
{
    if (!parse_unsigned(v, UINT64_MAX, &o->seed))
        return bad(flag, v, "is not a seed (an integer from 0 to 2^64 - 1)");
    return true;
}

static bool set_fail_if(report_options *o, const char *flag, const char *v)
{
    char figure[64];
    double limit;
    for (const char *s = v; s;) {
        s = fail_rule_next(s, figure, sizeof figure, &limit);
        if (s == FAIL_RULE_BAD)
            return bad(flag, v, "is not a list of FIGURE:+P% or FIGURE:-P%, such as "
                                "p99_ttft:+5%,output_throughput:-3%");
    }
    o->fail_if = v;
    return true;
}

static bool set_input(report_options *o, const char *flag, const char *v)
{
    for (int32_t id = 0; llmlat_input_name(id); id++) {
        if (strcmp(v, llmlat_input_name(id)) == 0) {
            o->input = id;
            return true;
        }
    }
    return bad(flag, v, "is not an input format (auto, trace, vllm, aiperf, genai-perf, sglang, "
                        "llmperf, guidellm, inference-perf)");
}

static bool set_output_tokens(report_options *o, const char *flag, const char *v)
{
    if (strcmp(v, "client") != 0 && strcmp(v, "server") != 0)
        return bad(flag, v, "is not client or server");
    o->server_output_tokens = strcmp(v, "server") == 0;
    return true;
}

static bool set_run(report_options *o, const char *flag, const char *v)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (!*v || *end || errno || n == 0 || v[0] == '-' || v[0] == '+')
        return bad(flag, v, "is not a run number (1 for the first)");
    o->run = n;
    return true;
}

static bool set_relative_error(report_options *o, const char *flag, const char *v)
{
    o->has_relative_error = true;
    return parse_param(flag, v, LLMLAT_PARAM_RELATIVE_ERROR, 1.0, &o->relative_error);
}

static bool set_duration(report_options *o, const char *flag, const char *v)
{
    o->has_duration = true;
    return parse_param(flag, v, LLMLAT_PARAM_DURATION, 1.0, &o->duration_s);
}

/* milliseconds, as --goodput's */
static bool set_max_dispatch_delay(report_options *o, const char *flag, const char *v)
{
    o->has_max_dispatch_delay = true;
    return parse_param(flag, v, LLMLAT_PARAM_MAX_DISPATCH_DELAY, 1000.0,
                       &o->max_dispatch_delay_s);
}

/* The next item of a comma-separated list, copied into item ("" when too
 * long, which no valid item is); returns the rest, *more telling whether a
 * comma followed. */
static const char *next_item(const char *s, char *item, size_t cap, bool *more)
{
    const char *comma = strchr(s, ',');
    size_t n = comma ? (size_t)(comma - s) : strlen(s);
    if (n >= cap)
        n = 0;
    memcpy(item, s, n);
    item[n] = '\0';
    *more = comma != NULL;
    return comma ? comma + 1 : s + strlen(s);
}

static bool set_percentiles(report_options *o, const char *flag, const char *v)
{
    char item[64];
    size_t n = 0;
    bool more;
    const char *s = v;
    do {
        s = next_item(s, item, sizeof item, &more);
        double p;
        if (!parse_double(item, &p) || p < 0.0 || p > 100.0)
            return bad(flag, v, "is not a list of percentiles from 0 to 100, such as 50,90,99.9");
        if (n == MAX_PERCENTILES)
            return bad(flag, v, "has more than 32 percentiles");
        o->quantiles[n++] = p / 100.0; /* numpy.percentile divides the same way */
    } while (more);
    o->n_quantiles = n;
    return true;
}

static bool set_goodput(report_options *o, const char *flag, const char *v)
{
    char item[64];
    bool more;
    const char *s = v;
    o->slo_ttft_s = o->slo_tpot_s = o->slo_e2e_s = 0.0;
    do {
        s = next_item(s, item, sizeof item, &more);
        char *colon = strchr(item, ':');
        if (!colon)
            return bad(flag, v, "is not a list of NAME:MS (ttft, tpot, e2el), such as ttft:200");
        *colon = '\0';
        double *slo = strcmp(item, "ttft") == 0   ? &o->slo_ttft_s
                      : strcmp(item, "tpot") == 0 ? &o->slo_tpot_s
                      : strcmp(item, "e2el") == 0 || strcmp(item, "e2e") == 0
                          ? &o->slo_e2e_s
                          : NULL;
        if (!slo)
            return bad(flag, v, "names an unknown SLO (ttft, tpot, e2el)");
        /* milliseconds, divided as vLLM does: value / 1000 */
        if (!parse_param(flag, colon + 1, LLMLAT_PARAM_SLO_TTFT, 1000.0, slo))
            return false;
    } while (more);
    return true;
}

typedef bool (*option_setter)(report_options *o, const char *flag, const char *value);

#define BOTH (COMMAND_REPORT | COMMAND_COMPARE)
#define ALL (BOTH | COMMAND_BENCH)

/* Every option of `llmlat report` and `llmlat compare`: the parser and the
 * help read this one table (and tests/cli/test_manpage.py holds the man
 * page to the help). */
static const struct {
    const char *name;
    const char *value; /* what the help calls the option's value */
    const char *help;
    int commands;
    option_setter set;
} OPTIONS[] = {
    { "--convention", "NAME",
      "default, vllm, aiperf, sglang, llmperf, guidellm or inference-perf (default: default)",
      COMMAND_COMPARE | COMMAND_BENCH, set_convention },
    { "--convention", "NAME",
      "default, vllm, aiperf, sglang, llmperf, guidellm or inference-perf, or all: each "
      "one's headline figures side by side (default: default)",
      COMMAND_REPORT, set_convention },
    { "--mode", "MODE", "exact or bounded (default: exact)", COMMAND_REPORT, set_mode },
    { "--relative-error", "A", "the bounded mode's relative error (default: 0.01)",
      COMMAND_REPORT, set_relative_error },
    { "--percentiles", "LIST",
      "percentiles to report, comma-separated (default: 50,90,95,99)", ALL,
      set_percentiles },
    { "--goodput", "SLOS",
      "service levels in ms for goodput, comma-separated NAME:MS with NAME ttft, tpot or "
      "e2el",
      ALL, set_goodput },
    { "--duration", "S",
      "benchmark wall time in seconds for the rates (default: the trace's \"duration\", "
      "else from its timestamps)",
      COMMAND_REPORT, set_duration },
    { "--max-dispatch-delay", "MS",
      "warn when the P99 dispatch delay (start minus intended start) passes MS "
      "milliseconds: the client fell behind its schedule (default: 1)",
      REPORTS, set_max_dispatch_delay },
    { "--format", "FORMAT",
      "text, json, prometheus, openmetrics, html or chrome-trace; with --slice text, json "
      "or csv (default: text)",
      COMMAND_REPORT, set_format },
    { "--format", "FORMAT", "text or json (default: text)", COMMAND_COMPARE, set_format },
    { "--format", "FORMAT",
      "the report's: text, json, prometheus, openmetrics, html or chrome-trace (default: text)",
      COMMAND_BENCH, set_format },
    { "--per-request", "FORMAT",
      "instead of the report, one row per request: csv or jsonl", COMMAND_REPORT,
      set_per_request },
    { "--window", "FROM:TO",
      "only the requests wholly inside FROM..TO, seconds from the first start (either "
      "side may be left out)",
      BOTH, set_window },
    { "--warmup", "S", "drop the requests that start in the first S seconds", BOTH,
      set_warmup },
    { "--cooldown", "S", "drop the requests that end in the last S seconds", BOTH,
      set_cooldown },
    { "--slice", "S",
      "one report per consecutive S-second slice of the run, each of the requests that "
      "start in it",
      COMMAND_REPORT, set_slice },
    { "--resamples", "N",
      "bootstrap resamples of each run's requests for the intervals (default: 1000)",
      COMMAND_COMPARE, set_resamples },
    { "--seed", "N", "the seed of the resampling (default: 0)", COMMAND_COMPARE, set_seed },
    { "--fail-if", "RULES",
      "exit 1 when a rule is broken: comma-separated FIGURE:+P% (may grow by at most P%) "
      "or FIGURE:-P% (may fall by at most P%), such as p99_ttft:+5%",
      COMMAND_COMPARE, set_fail_if },
    { "--output-tokens", "WHOSE",
      "N under inference-perf: client (the tokens of the streamed chunks, default) or "
      "server (the usage count, as its use_server_output_tokens)",
      ALL, set_output_tokens },
    { "--input", "FORMAT",
      "what the file is: trace, vllm, aiperf, genai-perf, sglang, llmperf, guidellm or "
      "inference-perf (default: auto, told from the content)",
      BOTH, set_input },
    { "--run", "N", "the run to read of a file with several (default: the last)", BOTH,
      set_run },
};

#define N_OPTIONS (sizeof OPTIONS / sizeof OPTIONS[0])

void report_options_usage(int command, FILE *out)
{
    for (size_t i = 0; i < N_OPTIONS; i++) {
        if (!(OPTIONS[i].commands & command))
            continue;
        char name[64];
        snprintf(name, sizeof name, "%s %s", OPTIONS[i].name, OPTIONS[i].value);
        usage_entry(out, name, OPTIONS[i].help);
    }
    usage_entry(out, "-h, --help", "this help");
}

static option_setter find_option(int command, const char *name, size_t len)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if ((OPTIONS[i].commands & command) && strlen(OPTIONS[i].name) == len &&
            strncmp(OPTIONS[i].name, name, len) == 0)
            return OPTIONS[i].set;
    return NULL;
}

static bool positional(report_options *o, const char *arg)
{
    size_t max = o->command == COMMAND_COMPARE ? 2 : 1;
    if (o->n_inputs == max) {
        if (max == 1)
            fprintf(stderr, "%s: more than one trace given ('%s' and '%s')\n", g_prog,
                    o->inputs[0], arg);
        else
            fprintf(stderr, "%s: more than two runs given ('%s')\n", g_prog, arg);
        return false;
    }
    o->inputs[o->n_inputs++] = arg;
    return true;
}

/* What the options mean together. */
static bool options_consistent(report_options *o)
{
    size_t want = o->command == COMMAND_COMPARE ? 2 : 1;
    if (o->n_inputs < want)
        return refuse(want == 1 ? "no trace given (a file, or - for standard input)"
                                : "compare needs two runs: BASE CAND (files, or - for one)");
    if (o->n_inputs == 2 && strcmp(o->inputs[0], "-") == 0 && strcmp(o->inputs[1], "-") == 0)
        return refuse("standard input can be only one of the two runs");
    o->trace = o->inputs[0];
    bool per_request = o->format == LLMLAT_FORMAT_REQUESTS_CSV ||
                       o->format == LLMLAT_FORMAT_REQUESTS_JSONL;
    if (o->per_request_set && o->format_set)
        return refuse("--per-request and --format: choose one");
    if (o->slice_s > 0 && (per_request || !(o->format == LLMLAT_FORMAT_TEXT ||
                                            o->format == LLMLAT_FORMAT_JSON ||
                                            o->format == FORMAT_SLICES_CSV)))
        return refuse("--slice writes text, json or csv");
    if (o->format == FORMAT_SLICES_CSV && o->slice_s == 0)
        return refuse("--format csv is the slices' table: it needs --slice");
    if (o->mode == LLMLAT_MODE_BOUNDED &&
        (per_request || o->format == LLMLAT_FORMAT_CHROME_TRACE))
        return refuse("the per-request formats need the requests, which bounded mode does not "
                      "keep: use --mode exact");
    if (o->has_duration && options_select(o))
        return refuse("--duration is the whole run's: a window or slice derives its own");
    if (o->convention == CONVENTION_ALL &&
        (options_select(o) || o->per_request_set ||
         !(o->format == LLMLAT_FORMAT_TEXT || o->format == LLMLAT_FORMAT_JSON ||
           o->format == LLMLAT_FORMAT_HTML)))
        return refuse("--convention all writes text, json or html, of the whole run");
    return true;
}

static const char *command_name(int command)
{
    return command == COMMAND_COMPARE ? "llmlat compare"
           : command == COMMAND_BENCH ? "llmlat bench"
                                      : "llmlat report";
}

void report_options_init(int command, report_options *o)
{
    memset(o, 0, sizeof *o);
    o->command = command;
    o->prog = g_prog = command_name(command);
    o->resamples = 1000;
    o->convention = LLMLAT_CONV_DEFAULT;
    o->mode = LLMLAT_MODE_EXACT;
    o->format = LLMLAT_FORMAT_TEXT;
    o->input = LLMLAT_INPUT_AUTO;
}

int report_options_take(report_options *o, int argc, char **argv, int *i)
{
    const char *arg = argv[*i];
    const char *eq = strchr(arg, '=');
    size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
    option_setter set = find_option(o->command, arg, name_len);
    if (!set)
        return 0;
    char flag[32];
    snprintf(flag, sizeof flag, "%.*s", (int)name_len, arg);
    const char *value = eq ? eq + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
    if (!value) {
        fprintf(stderr, "%s: option %s needs a value\n", g_prog, flag);
        return -1;
    }
    return set(o, flag, value) ? 1 : -1;
}

bool report_options_parse(int command, int argc, char **argv, report_options *o)
{
    report_options_init(command, o);
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (!positional(o, arg))
                return false;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            o->help = true;
            return true;
        }
        int taken = report_options_take(o, argc, argv, &i);
        if (taken == 0) {
            size_t name_len = strcspn(arg, "=");
            fprintf(stderr, "%s: unknown option '%.*s' (see %s --help)\n", g_prog,
                    (int)name_len, arg, g_prog);
        }
        if (taken != 1)
            return false;
    }
    return options_consistent(o);
}
