/* llmlat-bench's measuring loop, its rows, and printing them. */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

/* ------------------------------------------------------------ measuring */

int64_t bench_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static double time_batch(bench_batch fn, void *ctx)
{
    int64_t t0 = bench_cpu_ns();
    fn(ctx);
    return (double)(bench_cpu_ns() - t0);
}

measure bench_pair(bench_batch subject, double units, bench_batch ref, double ref_units,
                   void *ctx, int repeats)
{
    double *v = bench_alloc((size_t)repeats * 3 * sizeof *v);
    double *r = v + repeats, *q = r + repeats;
    subject(ctx); /* warm-up: caches, page faults, grown buffers */
    if (ref)
        ref(ctx);
    for (int i = 0; i < repeats; i++) {
        if (ref && i % 2)
            r[i] = time_batch(ref, ctx);
        v[i] = time_batch(subject, ctx) / units;
        if (ref && !(i % 2))
            r[i] = time_batch(ref, ctx);
        if (ref) {
            r[i] /= ref_units;
            q[i] = v[i] / r[i];
        }
    }
    measure m = { 0, NAN, NAN, v[0], v[0] };
    for (int i = 1; i < repeats; i++) {
        m.lo = v[i] < m.lo ? v[i] : m.lo;
        m.hi = v[i] > m.hi ? v[i] : m.hi;
    }
    m.value = bench_median(v, repeats);
    if (ref) {
        m.ref = bench_median(r, repeats);
        m.ratio = bench_median(q, repeats);
    }
    free(v);
    return m;
}

measure bench_difference(bench_batch with, bench_batch without, double units, void *ctx,
                         int repeats)
{
    double *d = bench_alloc((size_t)repeats * 3 * sizeof *d);
    double *r = d + repeats, *q = r + repeats;
    with(ctx);
    without(ctx);
    for (int i = 0; i < repeats; i++) {
        double a, b;
        if (i % 2) {
            b = time_batch(without, ctx);
            a = time_batch(with, ctx);
        } else {
            a = time_batch(with, ctx);
            b = time_batch(without, ctx);
        }
        d[i] = (a - b) / units;
        r[i] = b / units;
        q[i] = d[i] / r[i];
    }
    measure m = { 0, 0, 0, d[0], d[0] };
    for (int i = 1; i < repeats; i++) {
        m.lo = d[i] < m.lo ? d[i] : m.lo;
        m.hi = d[i] > m.hi ? d[i] : m.hi;
    }
    m.value = bench_median(d, repeats);
    m.ref = bench_median(r, repeats);
    m.ratio = bench_median(q, repeats);
    free(d);
    return m;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

void bench_rng_seed(uint64_t seed)
{
    rng_state = seed ? seed : 0x9e3779b97f4a7c15u;
}

uint64_t bench_rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}

int64_t bench_gap_ns(void)
{
    uint64_t a = bench_rng() % (20 * MS), b = bench_rng() % (20 * MS);
    int64_t stall = bench_rng() % 16 == 0 ? (int64_t)(bench_rng() % (20 * MS)) : 0;
    return 5 * MS + (int64_t)(a < b ? a : b) + stall;
}

void bench_check(int32_t status, const char *what)
{
    if (status != LLMLAT_OK) {
        fprintf(stderr, "llmlat-bench: %s: %s\n", what, llmlat_strerror(status));
        exit(1);
    }
}

void *bench_alloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p) {
        fprintf(stderr, "llmlat-bench: out of memory (%zu bytes)\n", size);
        exit(1);
    }
    return p;
}

#if defined(__GNUC__) || defined(__clang__)
__attribute__((noinline))
#endif
static int32_t sink_append(bench_sink *s, int64_t t, uint32_t k)
{
    if (s->n >= s->cap)
        return LLMLAT_ENOMEM;
    s->t[s->n] = t;
    s->k[s->n] = k;
    s->n++;
    return LLMLAT_OK;
}

bench_sink_fn volatile bench_sink_append = sink_append;

/* ---------------------------------------------------------------- rows */

#define MAX_ROWS 64
#define MAX_FOLD 16

static bench_row rows[MAX_ROWS];
static int n_rows;
static fold_point fold[MAX_FOLD];
static int n_fold;

static void copy(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

bench_row *bench_add(const char *section, const char *id, const char *label, const char *unit,
                     measure m, const char *ref_label)
{
    if (n_rows == MAX_ROWS) {
        fprintf(stderr, "llmlat-bench: too many rows\n");
        exit(1);
    }
    bench_row *row = &rows[n_rows++];
    memset(row, 0, sizeof *row);
    copy(row->section, sizeof row->section, section);
    copy(row->id, sizeof row->id, id);
    copy(row->label, sizeof row->label, label);
    copy(row->unit, sizeof row->unit, unit);
    copy(row->ref_label, sizeof row->ref_label, ref_label);
    row->value = m.value;
    row->ref = ref_label ? m.ref : NAN;
    row->ratio = ref_label ? m.ratio : NAN;
    row->lo = m.lo;
    row->hi = m.hi;
    row->target = TARGET_NONE;
    return row;
}

void bench_target(bench_row *row, int met, const char *text)
{
    row->target = met ? TARGET_MET : TARGET_MISSED;
    copy(row->target_text, sizeof row->target_text, text);
}

void bench_add_fold_point(fold_point p)
{
    if (n_fold < MAX_FOLD)
        fold[n_fold++] = p;
}

/* ------------------------------------------------------------- printing */

/* "12.3 ns", "4.56 ms", "8.8 KiB": a value in its unit, 3 significant
 * digits or so. */
static void fmt_value(char *buf, size_t cap, double v, const char *unit)
{
    if (isnan(v)) {
        snprintf(buf, cap, "-");
        return;
    }
    if (!strcmp(unit, "ns") && v >= 1e6)
        snprintf(buf, cap, "%.2f ms", v / 1e6);
    else if (!strcmp(unit, "ns") && v >= 1e4)
        snprintf(buf, cap, "%.1f us", v / 1e3);
    else if (!strcmp(unit, "B") && v >= 1024 * 1024)
        snprintf(buf, cap, "%.1f MiB", v / (1024 * 1024));
    else if (!strcmp(unit, "B") && v >= 1024)
        snprintf(buf, cap, "%.1f KiB", v / 1024);
    else if (!strcmp(unit, "B"))
        snprintf(buf, cap, "%.0f B", v);
    else
        snprintf(buf, cap, "%.*f %s", v < 10 ? 2 : 1, v, unit);
}

static void load_average(double out[3])
{
    out[0] = out[1] = out[2] = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &out[0], &out[1], &out[2]) != 3)
            out[0] = out[1] = out[2] = NAN;
        fclose(f);
    }
}

static void cpu_model(char *buf, size_t cap)
{
    copy(buf, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!strncmp(line, "model name", 10) && colon) {
            copy(buf, cap, colon + 2);
            buf[strcspn(buf, "\n")] = 0;
            break;
        }
    }
    fclose(f);
}

void bench_print_table(const bench_opts *o)
{
    double load[3];
    char cpu[128];
    load_average(load);
    cpu_model(cpu, sizeof cpu);
    printf("llmlat %s benchmark: median of %d runs, thread CPU time; cpu %s, load %.2f\n",
           llmlat_version_string(), o->repeats, cpu, load[0]);
    const char *section = "";
    for (int i = 0; i < n_rows; i++) {
        const bench_row *r = &rows[i];
        if (strcmp(section, r->section)) {
            section = r->section;
            printf("\n%-46s %11s  %-40s %11s %9s  %s\n", section, "value", "reference",
                   "ref", "ratio", "target");
        }
        char v[32], ref[32], ratio[24] = "";
        fmt_value(v, sizeof v, r->value, r->unit);
        fmt_value(ref, sizeof ref, r->ref, r->unit);
        if (!isnan(r->ratio))
            snprintf(ratio, sizeof ratio, r->ratio < 0.01 ? "%.2gx" : "%.2fx", r->ratio);
        printf("  %-44s %11s  %-40s %11s %9s  %s%s%s\n", r->label, v,
               r->ref_label[0] ? r->ref_label : "-", ref, ratio,
               r->target == TARGET_NONE ? "" : r->target == TARGET_MET ? "met: " : "MISSED: ",
               r->target_text, "");
    }
    if (n_fold) {
        printf("\nfold sweep (ns per request; per token = / tokens; floor = one read pass "
               "over the events)\n  %7s %12s %12s %12s %10s %10s\n", "tokens", "exact",
               "bounded", "floor", "exact/tok", "bnd/tok");
        for (int i = 0; i < n_fold; i++)
            printf("  %7u %12.1f %12.1f %12.1f %10.2f %10.2f\n", fold[i].tokens,
                   fold[i].exact_ns, fold[i].bounded_ns, fold[i].floor_ns,
                   fold[i].exact_ns / fold[i].tokens, fold[i].bounded_ns / fold[i].tokens);
    }
}

/* JSON numbers: NaN (no reference) is null. */
static void json_num(const char *key, double v, const char *after)
{
    if (isnan(v) || isinf(v))
        printf("\"%s\": null%s", key, after);
    else
        printf("\"%s\": %.6g%s", key, v, after);
}

/* Labels are ours: plain ASCII without quotes or backslashes. */
static void json_str(const char *key, const char *v, const char *after)
{
    printf("\"%s\": \"%s\"%s", key, v, after);
}

void bench_print_json(const bench_opts *o)
{
    double load[3];
    char cpu[128];
    load_average(load);
    cpu_model(cpu, sizeof cpu);
    printf("{\n  \"schema\": 1,\n  ");
    json_str("llmlat", llmlat_version_string(), ",\n  ");
    json_str("cpu", cpu, ",\n  ");
    printf("\"load_average\": [%.2f, %.2f, %.2f],\n  \"repeats\": %d,\n  \"quick\": %s,\n",
           load[0], load[1], load[2], o->repeats, o->quick ? "true" : "false");
    printf("  \"clock\": \"thread CPU time\",\n  \"rows\": [\n");
    for (int i = 0; i < n_rows; i++) {
        const bench_row *r = &rows[i];
        printf("    {");
        json_str("id", r->id, ", ");
        json_str("section", r->section, ", ");
        json_str("label", r->label, ", ");
        json_num("value", r->value, ", ");
        json_str("unit", r->unit, ", ");
        json_str("reference", r->ref_label, ", ");
        json_num("ref", r->ref, ", ");
        json_num("ratio", r->ratio, ", ");
        json_num("min", r->lo, ", ");
        json_num("max", r->hi, ", ");
        printf("\"target\": %s, ", r->target == TARGET_NONE ? "null"
                                   : r->target == TARGET_MET ? "\"met\""
                                                             : "\"missed\"");
        json_str("target_text", r->target_text, "}");
        printf("%s\n", i + 1 < n_rows ? "," : "");
    }
    printf("  ],\n  \"fold\": [\n");
    for (int i = 0; i < n_fold; i++) {
        printf("    {\"tokens\": %u, ", fold[i].tokens);
        json_num("exact_ns_per_request", fold[i].exact_ns, ", ");
        json_num("bounded_ns_per_request", fold[i].bounded_ns, ", ");
        json_num("floor_ns_per_request", fold[i].floor_ns, ", ");
        json_num("exact_ratio", fold[i].exact_ratio, ", ");
        json_num("bounded_ratio", fold[i].bounded_ratio, "}");
        printf("%s\n", i + 1 < n_fold ? "," : "");
    }
    printf("  ]\n}\n");
}

int bench_write_fold_data(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# tokens  exact_ns_per_token  bounded_ns_per_token  floor_ns_per_token\n");
    for (int i = 0; i < n_fold; i++)
        fprintf(f, "%u %.4f %.4f %.4f\n", fold[i].tokens, fold[i].exact_ns / fold[i].tokens,
                fold[i].bounded_ns / fold[i].tokens, fold[i].floor_ns / fold[i].tokens);
    return fclose(f);
}
