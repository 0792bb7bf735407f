#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bench_options.h"
#include "bench_tls.h"
#include "completion_stream.h"
#include "json_scan.h"
#include "llmlat.h"
#include "usage.h"

#define PROG "llmlat bench"

static bool bad(const char *flag, const char *value, const char *why)
{
    fprintf(stderr, PROG ": %s: '%s' %s\n", flag, value, why);
    return false;
}

static bool refuse(const char *why)
{
    fprintf(stderr, PROG ": %s\n", why);
    return false;
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    if (!*s)
        return false;
    errno = 0;
    *out = strtod(s, &end);
    return *end == '\0' && !isnan(*out) && errno != ERANGE;
}

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

/* Seconds in (0, 1e6] (or [0, 1e6] when zero is allowed). */
static bool seconds(const char *flag, const char *v, bool zero, double *out)
{
    if (!parse_double(v, out) || !(*out > 0 || (zero && *out == 0)) || *out > 1e6)
        return bad(flag, v, zero ? "is not a number of seconds from 0 to 1e6"
                                 : "is not a number of seconds > 0 (at most 1e6)");
    return true;
}

/* N or A:B, integers from 1 to max. */
static bool set_length(length_range *r, const char *flag, const char *v, uint64_t max)
{
    char lo[32];
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : strlen(v);
    uint64_t a, b;
    if (n >= sizeof lo)
        return bad(flag, v, "is not N or A:B");
    memcpy(lo, v, n);
    lo[n] = '\0';
    if (!parse_unsigned(lo, max, &a) || a == 0 ||
        !(colon ? parse_unsigned(colon + 1, max, &b) : (b = a, true)) || b < a) {
        char why[96];
        snprintf(why, sizeof why, "is not N or A:B (integers, 1 <= A <= B <= %llu)",
                 (unsigned long long)max);
        return bad(flag, v, why);
    }
    r->lo = (uint32_t)a;
    r->hi = (uint32_t)b;
    return true;
}

typedef bool (*setter)(bench_options *o, const char *flag, const char *v);

static bool set_base_url(bench_options *o, const char *flag, const char *v)
{
    char why[128];
    if (!bench_url_parse(v, &o->url, why, sizeof why))
        return bad(flag, v, why);
    o->base_url = v;
    return true;
}

static bool set_endpoint(bench_options *o, const char *flag, const char *v)
{
    if (v[0] != '/' || strlen(v) >= 512 || strpbrk(v, " \t\r\n"))
        return bad(flag, v, "is not a path (such as /v1/completions or /v1/chat/completions)");
    o->endpoint = v;
    return true;
}

static bool set_model(bench_options *o, const char *flag, const char *v)
{
    if (!*v)
        return bad(flag, v, "is empty");
    o->model = v;
    return true;
}

static bool set_api_key(bench_options *o, const char *flag, const char *v)
{
    (void)flag;
    o->api_key = v;
    return true;
}

/* A field name (RFC 9110 token) and a value without line breaks. */
static bool set_header(bench_options *o, const char *flag, const char *v)
{
    const char *colon = strchr(v, ':');
    size_t n = colon ? (size_t)(colon - v) : 0;
    /* a value may be a secret: messages show the name only */
    if (!colon || n == 0 || strspn(v, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyz"
                                      "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != n) {
        fprintf(stderr, PROG ": %s: not NAME:VALUE (NAME a header field name)\n", flag);
        return false;
    }
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)n, v);
    if (strpbrk(colon, "\r\n"))
        return bad(flag, name, "has a line break in its value");
    static const char *const OURS[] = { "host", "content-length", "content-type",
                                        "transfer-encoding", "connection" };
    for (size_t i = 0; i < sizeof OURS / sizeof OURS[0]; i++)
        if (strlen(OURS[i]) == n && strncasecmp(v, OURS[i], n) == 0)
            return bad(flag, name, "is a header the client writes itself");
    if (o->n_headers == BENCH_MAX_HEADERS)
        return bad(flag, name, "is one header too many (at most 32)");
    o->headers[o->n_headers++] = v;
    return true;
}

static bool set_extra_body(bench_options *o, const char *flag, const char *v)
{
    json_cur c;
    json_init(&c, v, strlen(v));
    if (!(json_peek(&c) == '{' && json_skip(&c) && json_end(&c))) {
        char why[128];
        json_error(&c, why, sizeof why);
        char text[160];
        snprintf(text, sizeof text, "is not a JSON object (%s)", why[0] ? why : "not an object");
        return bad(flag, v, text);
    }
    o->extra_body = v;
    return true;
}

static bool set_requests(bench_options *o, const char *flag, const char *v)
{
    if (!parse_unsigned(v, UINT32_MAX, &o->requests) || o->requests == 0)
        return bad(flag, v, "is not a number of requests from 1 to 4294967295");
    o->has_requests = true;
    return true;
}

static bool set_duration(bench_options *o, const char *flag, const char *v)
{
    return seconds(flag, v, false, &o->duration_s);
}

static bool set_input_len(bench_options *o, const char *flag, const char *v)
{
    return set_length(&o->input_len, flag, v, 10000000);
}

static bool set_output_len(bench_options *o, const char *flag, const char *v)
{
    return set_length(&o->output_len, flag, v, 10000000);
}

static bool set_token_ids(bench_options *o, const char *flag, const char *v)
{
    char lo[16];
    const char *colon = strchr(v, ':');
    uint64_t a, b;
    if (!colon || (size_t)(colon - v) >= sizeof lo)
        return bad(flag, v, "is not A:B (token ids, 0 <= A <= B < 2^31)");
    memcpy(lo, v, (size_t)(colon - v));
    lo[colon - v] = '\0';
    if (!parse_unsigned(lo, INT32_MAX, &a) || !parse_unsigned(colon + 1, INT32_MAX, &b) ||
        b < a)
        return bad(flag, v, "is not A:B (token ids, 0 <= A <= B < 2^31)");
    o->token_ids.lo = (uint32_t)a;
    o->token_ids.hi = (uint32_t)b;
    return true;
}

static bool set_ignore_eos(bench_options *o, const char *flag, const char *v)
{
    (void)flag;
    (void)v;
    o->ignore_eos = true;
    return true;
}

static bool set_dataset(bench_options *o, const char *flag, const char *v)
{
    (void)flag;
    o->dataset = v;
    return true;
}

static bool set_replay(bench_options *o, const char *flag, const char *v)
{
    (void)flag;
    o->replay = v;
    return true;
}

static bool set_seed(bench_options *o, const char *flag, const char *v)
{
    if (!parse_unsigned(v, UINT64_MAX, &o->seed))
        return bad(flag, v, "is not a seed (an integer from 0 to 2^64 - 1)");
    return true;
}

/* A comma-separated list of load levels (a sweep when more than one). */
static bool set_levels(bench_options *o, const char *flag, const char *v, bool closed)
{
    if (o->n_levels)
        return refuse("give one load: --rate or --concurrency (each may list a sweep)");
    o->closed = closed;
    const char *s = v;
    for (;;) {
        char item[32];
        size_t n = strcspn(s, ",");
        if (n == 0 || n >= sizeof item)
            return bad(flag, v, closed ? "is not a list of concurrencies, such as 1,8,64"
                                       : "is not a list of rates, such as 1,2.5,10 or inf");
        memcpy(item, s, n);
        item[n] = '\0';
        if (o->n_levels == BENCH_MAX_LEVELS)
            return bad(flag, v, "has more than 32 levels");
        if (closed) {
            uint64_t c;
            if (!parse_unsigned(item, 1000000, &c) || c == 0)
                return bad(flag, v, "is not a list of concurrencies from 1 to 1000000");
            o->concurrency[o->n_levels++] = (uint32_t)c;
        } else {
            double r;
            if (strcmp(item, "inf") == 0)
                r = INFINITY;
            else if (!parse_double(item, &r) || !(r > 0) || r > 1e7)
                return bad(flag, v, "is not a list of rates in requests/s (> 0, at most 1e7, "
                                    "or inf)");
            o->rates[o->n_levels++] = r;
        }
        if (!s[n])
            return true;
        s += n + 1;
    }
}

static bool set_rate(bench_options *o, const char *flag, const char *v)
{
    return set_levels(o, flag, v, false);
}

static bool set_concurrency(bench_options *o, const char *flag, const char *v)
{
    return set_levels(o, flag, v, true);
}

static bool set_arrival(bench_options *o, const char *flag, const char *v)
{
    if (strcmp(v, "poisson") == 0) {
        o->arrival = ARRIVAL_POISSON;
    } else if (strcmp(v, "constant") == 0) {
        o->arrival = ARRIVAL_CONSTANT;
    } else if (strncmp(v, "gamma:", 6) == 0 && parse_double(v + 6, &o->gamma_shape) &&
               o->gamma_shape >= 1e-3 && o->gamma_shape <= 1e3) {
        o->arrival = ARRIVAL_GAMMA;
    } else {
        return bad(flag, v, "is not an arrival process (poisson, constant, or gamma:SHAPE with "
                            "SHAPE from 0.001 to 1000)");
    }
    return true;
}

static bool set_max_concurrency(bench_options *o, const char *flag, const char *v)
{
    uint64_t c;
    if (!parse_unsigned(v, 1000000, &c) || c == 0)
        return bad(flag, v, "is not a number of requests from 1 to 1000000");
    o->max_concurrency = (uint32_t)c;
    return true;
}

static bool set_count_tokens(bench_options *o, const char *flag, const char *v)
{
    if (strcmp(v, "chunks") == 0)
        o->count_tokens = STREAM_COUNT_CHUNKS;
    else if (strcmp(v, "logprobs") == 0)
        o->count_tokens = STREAM_COUNT_LOGPROBS;
    else
        return bad(flag, v, "is not a way to count tokens (chunks, logprobs)");
    return true;
}

static bool set_threads(bench_options *o, const char *flag, const char *v)
{
    uint64_t t;
    if (!parse_unsigned(v, BENCH_MAX_THREADS, &t) || t == 0)
        return bad(flag, v, "is not a number of threads from 1 to 64");
    o->threads = (uint32_t)t;
    return true;
}

static bool set_timeout(bench_options *o, const char *flag, const char *v)
{
    return seconds(flag, v, false, &o->timeout_s);
}

static bool set_connect_timeout(bench_options *o, const char *flag, const char *v)
{
    return seconds(flag, v, false, &o->connect_timeout_s);
}

static bool set_drain(bench_options *o, const char *flag, const char *v)
{
    return seconds(flag, v, true, &o->drain_s);
}

static bool set_output(bench_options *o, const char *flag, const char *v)
{
    if (!*v)
        return bad(flag, v, "is empty");
    o->output = v;
    return true;
}

static bool set_metrics_port(bench_options *o, const char *flag, const char *v)
{
    uint64_t p;
    if (!parse_unsigned(v, 65535, &p))
        return bad(flag, v, "is not a port from 0 (any free one) to 65535");
    o->metrics_port = (int)p;
    return true;
}

static bool set_metrics_host(bench_options *o, const char *flag, const char *v)
{
    if (!*v)
        return bad(flag, v, "is empty");
    o->metrics_host = v;
    return true;
}

static bool set_ca_file(bench_options *o, const char *flag, const char *v)
{
    (void)flag;
    o->ca_file = v;
    return true;
}

static bool set_insecure(bench_options *o, const char *flag, const char *v)
{
    (void)flag;
    (void)v;
    o->insecure = true;
    return true;
}

static bool set_quiet(bench_options *o, const char *flag, const char *v)
{
    (void)flag;
    (void)v;
    o->quiet = true;
    return true;
}

/* Every option of bench but the report's: the parser and the help read
 * this one table (tests/cli/test_manpage.py holds the man page to the
 * help). value NULL: a flag without a value. */
static const struct {
    const char *name;
    const char *value;
    const char *help;
    setter set;
} OPTIONS[] = {
    { "--base-url", "URL", "the server: http://HOST[:PORT] or https://... (required)",
      set_base_url },
    { "--endpoint", "PATH",
      "/v1/completions (prompts as token ids) or /v1/chat/completions (default: "
      "/v1/completions)",
      set_endpoint },
    { "--model", "NAME", "the model to ask for (default: the first of GET /v1/models)",
      set_model },
    { "--api-key", "KEY",
      "sent as \"Authorization: Bearer KEY\" (default: $LLMLAT_API_KEY); never printed",
      set_api_key },
    { "--header", "NAME:VALUE", "an HTTP header sent with every request (repeatable)",
      set_header },
    { "--extra-body", "JSON", "a JSON object whose members are merged into every request body",
      set_extra_body },
    { "--requests", "N",
      "requests of each run (default: 100, or the dataset's or trace's number)", set_requests },
    { "--duration", "S",
      "send nothing after S seconds (with --requests: whichever comes first)", set_duration },
    { "--input-len", "N|A:B", "prompt tokens, or uniform in A..B (default: 1024)",
      set_input_len },
    { "--output-len", "N|A:B",
      "max_tokens of each request, or uniform in A..B (default: 128)", set_output_len },
    { "--token-ids", "A:B",
      "the token ids random prompts are drawn from (default: 1000:2000)", set_token_ids },
    { "--ignore-eos", NULL, "send \"ignore_eos\": true, for exact output lengths",
      set_ignore_eos },
    { "--dataset", "FILE",
      "prompts from JSON Lines, each with \"prompt\" or \"messages\" and optionally "
      "\"max_tokens\"",
      set_dataset },
    { "--replay", "TRACE",
      "send an llmlat trace's requests at their recorded offsets with their lengths",
      set_replay },
    { "--seed", "N", "the seed of lengths, prompts and arrivals (default: 0)", set_seed },
    { "--rate", "R[,R...]",
      "open loop: requests/s (inf: all at once); a list runs a sweep", set_rate },
    { "--arrival", "PROCESS",
      "poisson, gamma:SHAPE (burstiness) or constant (default: poisson)", set_arrival },
    { "--concurrency", "C[,C...]",
      "closed loop: C requests in flight, each sent when one ends; a list runs a sweep",
      set_concurrency },
    { "--max-concurrency", "C",
      "with --rate or --replay: at most C in flight (later ones wait; the wait is measured)",
      set_max_concurrency },
    { "--count-tokens", "HOW",
      "chunks (one token per chunk with output) or logprobs (asks for logprobs and counts "
      "each chunk's entries) (default: chunks)",
      set_count_tokens },
    { "--threads", "T", "event loops, one per thread (default: 1)", set_threads },
    { "--timeout", "S", "a request's limit from its start (default: 600)", set_timeout },
    { "--connect-timeout", "S", "a connection's limit (default: 10)", set_connect_timeout },
    { "--drain", "S",
      "on SIGINT or SIGTERM, how long the streams in flight may finish (default: 10)",
      set_drain },
    { "--output", "FILE",
      "the trace, one line per request as it ends (a sweep: FILE gets .rate-R or .conc-C "
      "before its extension)",
      set_output },
    { "--metrics-port", "P",
      "serve the live measurements for Prometheus on this port (0: any free one)",
      set_metrics_port },
    { "--metrics-host", "ADDR", "the address it listens on (default: 127.0.0.1)",
      set_metrics_host },
    { "--ca-file", "FILE", "https: the certificates to trust (default: the system's)",
      set_ca_file },
    { "--insecure", NULL, "https: do not verify the server's certificate", set_insecure },
    { "--quiet", NULL, "no progress line", set_quiet },
};

#define N_OPTIONS (sizeof OPTIONS / sizeof OPTIONS[0])

void bench_options_usage(FILE *out)
{
    for (size_t i = 0; i < N_OPTIONS; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%s%s", OPTIONS[i].name, OPTIONS[i].value ? " " : "",
                 OPTIONS[i].value ? OPTIONS[i].value : "");
        usage_entry(out, name, OPTIONS[i].help);
    }
    report_options_usage(COMMAND_BENCH, out);
}

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* What the options mean together. */
static bool consistent(bench_options *o)
{
    if (!o->base_url)
        return refuse("no server given: --base-url URL (such as http://127.0.0.1:8000)");
    if (o->url.tls && !bench_tls_available())
        return refuse("https:// needs TLS, which this build lacks (meson option -Dtls=enabled, "
                      "with Debian's libssl-dev)");
    if (!bench_url_path(&o->url, o->endpoint, o->path, sizeof o->path))
        return refuse("--base-url and --endpoint make a path too long");
    o->chat = ends_with(o->endpoint, "/chat/completions");
    if (!o->chat && !ends_with(o->endpoint, "/completions"))
        return refuse("--endpoint must end in /completions or /chat/completions");
    if (o->replay && o->n_levels)
        return refuse("--replay sends at the trace's times: no --rate or --concurrency");
    if (o->replay && o->dataset)
        return refuse("--replay takes its lengths from the trace: no --dataset");
    if (!o->replay && o->n_levels == 0)
        return refuse("no load given: --rate R (open loop), --concurrency C (closed loop) or "
                      "--replay TRACE");
    if (o->replay)
        o->n_levels = 1;
    if (o->closed && o->max_concurrency)
        return refuse("--max-concurrency caps an open loop: with --concurrency C the cap is C");
    if (o->report.format != LLMLAT_FORMAT_TEXT && o->report.format != LLMLAT_FORMAT_JSON &&
        o->n_levels > 1)
        return refuse("a sweep writes one report per level: --format text or json");
    if (o->output && strcmp(o->output, "-") == 0)
        return refuse("--output -: the report goes to standard output, the trace to a file");
    if ((o->ca_file || o->insecure) && !o->url.tls)
        return refuse("--ca-file and --insecure are for https:// servers");
    if (o->metrics_host && o->metrics_port < 0)
        return refuse("--metrics-host needs --metrics-port");
    if (!o->has_requests && !o->duration_s && !o->dataset && !o->replay) {
        o->has_requests = true;
        o->requests = 100;
    }
    if (!o->metrics_host)
        o->metrics_host = "127.0.0.1";
    if (!o->api_key) {
        const char *env = getenv("LLMLAT_API_KEY");
        o->api_key = env && *env ? env : NULL;
    }
    if (o->api_key && strpbrk(o->api_key, "\r\n"))
        return refuse("the API key has a line break");
    return true;
}

static setter find(const char *name, size_t len, bool *flag_only)
{
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (strlen(OPTIONS[i].name) == len && strncmp(OPTIONS[i].name, name, len) == 0) {
            *flag_only = OPTIONS[i].value == NULL;
            return OPTIONS[i].set;
        }
    return NULL;
}

bool bench_options_parse(int argc, char **argv, bench_options *o)
{
    report_options r;
    report_options_init(COMMAND_BENCH, &r);
    *o = (bench_options){
        .report = r,
        .endpoint = "/v1/completions",
        .input_len = { 1024, 1024 },
        .output_len = { 128, 128 },
        .token_ids = { 1000, 2000 },
        .arrival = ARRIVAL_POISSON,
        .count_tokens = STREAM_COUNT_CHUNKS,
        .threads = 1,
        .timeout_s = 600,
        .connect_timeout_s = 10,
        .drain_s = 10,
        .metrics_port = -1,
    };
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            o->help = true;
            return true;
        }
        if (arg[0] != '-' || arg[1] != '-')
            return refuse("takes options only (see llmlat bench --help)");
        size_t len = strcspn(arg, "=");
        bool flag_only;
        setter set = find(arg, len, &flag_only);
        if (!set) {
            int taken = report_options_take(&o->report, argc, argv, &i);
            if (taken == 0)
                fprintf(stderr, PROG ": unknown option '%.*s' (see " PROG " --help)\n",
                        (int)len, arg);
            if (taken != 1)
                return false;
            continue;
        }
        char flag[32];
        snprintf(flag, sizeof flag, "%.*s", (int)len, arg);
        const char *value = NULL;
        if (flag_only) {
            if (arg[len] == '=') {
                fprintf(stderr, PROG ": %s takes no value\n", flag);
                return false;
            }
        } else {
            value = arg[len] == '=' ? arg + len + 1 : (i + 1 < argc ? argv[++i] : NULL);
            if (!value) {
                fprintf(stderr, PROG ": option %s needs a value\n", flag);
                return false;
            }
        }
        if (!set(o, flag, value))
            return false;
    }
    return consistent(o);
}
