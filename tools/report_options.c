#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llmlat.h"
#include "report_options.h"

#define PREFIX "llmlat report: "

static bool bad(const char *flag, const char *value, const char *why)
{
    fprintf(stderr, PREFIX "%s: '%s' %s\n", flag, value, why);
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
    for (int32_t id = 0; llmlat_convention_name(id); id++) {
        if (strcmp(v, llmlat_convention_name(id)) == 0) {
            o->convention = id;
            return true;
        }
    }
    return bad(flag, v, "is not a convention (default, vllm, aiperf, sglang, llmperf)");
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

static bool set_format(report_options *o, const char *flag, const char *v)
{
    if (strcmp(v, "text") == 0)
        o->format = LLMLAT_FORMAT_TEXT;
    else if (strcmp(v, "json") == 0)
        o->format = LLMLAT_FORMAT_JSON;
    else if (strcmp(v, "prometheus") == 0)
        o->format = LLMLAT_FORMAT_PROMETHEUS;
    else
        return bad(flag, v, "is not a format (text, json, prometheus)");
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
                        "llmperf)");
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

static const struct {
    const char *name;
    option_setter set;
} OPTIONS[] = {
    { "--convention", set_convention },
    { "--mode", set_mode },
    { "--relative-error", set_relative_error },
    { "--percentiles", set_percentiles },
    { "--goodput", set_goodput },
    { "--duration", set_duration },
    { "--format", set_format },
    { "--input", set_input },
    { "--run", set_run },
};

static option_setter find_option(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof OPTIONS / sizeof OPTIONS[0]; i++)
        if (strlen(OPTIONS[i].name) == len && strncmp(OPTIONS[i].name, name, len) == 0)
            return OPTIONS[i].set;
    return NULL;
}

static bool positional(report_options *o, const char *arg)
{
    if (o->trace) {
        fprintf(stderr, PREFIX "more than one trace given ('%s' and '%s')\n", o->trace, arg);
        return false;
    }
    o->trace = arg;
    return true;
}

bool report_options_parse(int argc, char **argv, report_options *o)
{
    memset(o, 0, sizeof *o);
    o->convention = LLMLAT_CONV_DEFAULT;
    o->mode = LLMLAT_MODE_EXACT;
    o->format = LLMLAT_FORMAT_TEXT;
    o->input = LLMLAT_INPUT_AUTO;
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
        const char *eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        option_setter set = find_option(arg, name_len);
        if (!set) {
            fprintf(stderr, PREFIX "unknown option '%.*s' (see llmlat --help)\n", (int)name_len,
                    arg);
            return false;
        }
        char flag[32];
        snprintf(flag, sizeof flag, "%.*s", (int)name_len, arg);
        const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!value) {
            fprintf(stderr, PREFIX "option %s needs a value\n", flag);
            return false;
        }
        if (!set(o, flag, value))
            return false;
    }
    if (!o->trace) {
        fprintf(stderr, PREFIX "no trace given (a file, or - for standard input)\n");
        return false;
    }
    return true;
}
