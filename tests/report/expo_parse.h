/* Readers of the expositions, for the tests: the text formats as a list of
 * samples (the series text, the value), and the delimited protobuf format
 * decoded field by field from metrics.proto (strict: an unknown field, a
 * wrong wire type or a byte too many fails). Independent of the library:
 * it reads what a scraper reads. */
#ifndef EXPO_PARSE_H
#define EXPO_PARSE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ text */

typedef struct text_sample {
    const char *series; /* "name{labels}" as written, NUL-terminated */
    char name[128];
    double value;
} text_sample;

typedef struct text_expo {
    char *text; /* a copy, cut into lines */
    text_sample *s;
    size_t n;
    size_t n_help, n_type, n_unit, n_eof;
    bool eof_last; /* "# EOF" is the last line */
} text_expo;

static inline double text_number(const char *v)
{
    if (strcmp(v, "+Inf") == 0)
        return INFINITY;
    if (strcmp(v, "-Inf") == 0)
        return -INFINITY;
    if (strcmp(v, "NaN") == 0)
        return NAN;
    char *end;
    double d = strtod(v, &end);
    if (*end != '\0' || end == v) {
        fprintf(stderr, "not a number: '%s'\n", v);
        abort();
    }
    return d;
}

/* Splits the text into lines and samples; returns false on a malformed
 * line (no value, unterminated labels, no final newline). */
static inline bool text_parse(const char *buf, size_t len, text_expo *out)
{
    memset(out, 0, sizeof *out);
    out->text = malloc(len + 1);
    memcpy(out->text, buf, len);
    out->text[len] = '\0';
    size_t cap = 0;
    char *p = out->text, *end = out->text + len;
    while (p < end) {
        char *line = p, *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return false;
        *nl = '\0';
        p = nl + 1;
        out->eof_last = false;
        if (line[0] == '#') {
            out->n_help += strncmp(line, "# HELP ", 7) == 0;
            out->n_type += strncmp(line, "# TYPE ", 7) == 0;
            out->n_unit += strncmp(line, "# UNIT ", 7) == 0;
            if (strcmp(line, "# EOF") == 0) {
                out->n_eof++;
                out->eof_last = true;
            }
            continue;
        }
        /* the value follows the last space outside quotes */
        bool quoted = false;
        char *space = NULL;
        for (char *c = line; *c; c++) {
            if (quoted && *c == '\\' && c[1]) {
                c++;
                continue;
            }
            if (*c == '"')
                quoted = !quoted;
            else if (*c == ' ' && !quoted)
                space = c;
        }
        if (!space || quoted)
            return false;
        *space = '\0';
        if (out->n == cap) {
            cap = cap ? 2 * cap : 256;
            out->s = realloc(out->s, cap * sizeof *out->s);
        }
        text_sample *s = &out->s[out->n++];
        s->value = text_number(space + 1);
        size_t nn = strcspn(line, "{");
        if (nn >= sizeof s->name)
            nn = sizeof s->name - 1;
        memcpy(s->name, line, nn);
        s->name[nn] = '\0';
        s->series = line;
    }
    return true;
}

static inline void text_free(text_expo *t)
{
    free(t->text);
    free(t->s);
    memset(t, 0, sizeof *t);
}

static inline bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* ------------------------------------------------------------- protobuf */

enum { PBD_COUNTER = 0, PBD_GAUGE = 1, PBD_SUMMARY = 2, PBD_HISTOGRAM = 4 };

typedef struct pbd_metric {
    char key[1024]; /* "name{a=\"x\",b=\"y\"}", labels in the order written */
    size_t n_labels;
    char label_name[24][64];
    bool labels_sorted;
    double value;    /* counter, gauge */
    bool has_value;
    uint64_t count;  /* summary, histogram */
    double sum;
    size_t n_q;
    double q[32], qv[32];
    size_t n_b;
    double le[80];
    uint64_t cum[80];
    bool has_schema; /* native */
    int32_t schema;
    double zt;
    uint64_t zc;
    size_t n_spans;
    int64_t *span_offset;
    uint32_t *span_length;
    size_t n_deltas;
    int64_t *delta;
    /* the spans and deltas resolved: bucket index -> count */
    size_t n_buckets;
    int64_t *index;
    uint64_t *counts;
} pbd_metric;

typedef struct pbd_family {
    char name[128];
    char help[256];
    int type;
    size_t n_metrics;
    pbd_metric **metrics;
} pbd_family;

typedef struct pbd_expo {
    size_t n;
    pbd_family *f;
} pbd_expo;

typedef struct pbd_reader {
    const unsigned char *p, *end;
    bool ok;
} pbd_reader;

static inline uint64_t pbd_varint(pbd_reader *r)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            r->ok = false;
            return 0;
        }
        unsigned char c = *r->p++;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    r->ok = false;
    return 0;
}

static inline int64_t pbd_zigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline double pbd_double(pbd_reader *r)
{
    if (r->end - r->p < 8) {
        r->ok = false;
        return 0;
    }
    uint64_t bits = 0;
    for (int i = 0; i < 8; i++)
        bits |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* A length-delimited field's reader. */
static inline pbd_reader pbd_sub(pbd_reader *r)
{
    uint64_t n = pbd_varint(r);
    pbd_reader s = { r->p, r->p, r->ok };
    if (!r->ok || n > (uint64_t)(r->end - r->p)) {
        r->ok = false;
        s.ok = false;
        return s;
    }
    s.end = r->p + n;
    r->p += n;
    return s;
}

static inline void pbd_string(pbd_reader *r, char *out, size_t cap)
{
    pbd_reader s = pbd_sub(r);
    size_t n = (size_t)(s.end - s.p);
    if (!s.ok || n >= cap) {
        r->ok = false;
        return;
    }
    memcpy(out, s.p, n);
    out[n] = '\0';
}

/* The next tag, checked to have wire type `wire` when the field is known. */
#define PBD_EXPECT(r, wire_got, wire_want)  \
    do {                                    \
        if ((wire_got) != (wire_want))      \
            (r)->ok = false;                \
    } while (0)

static inline void pbd_label(pbd_reader r, pbd_metric *m)
{
    char name[64] = "", value[1100] = "";
    while (r.ok && r.p < r.end) {
        uint64_t tag = pbd_varint(&r);
        PBD_EXPECT(&r, tag & 7, 2);
        if ((tag >> 3) == 1)
            pbd_string(&r, name, sizeof name);
        else if ((tag >> 3) == 2)
            pbd_string(&r, value, sizeof value);
        else
            r.ok = false;
    }
    if (!r.ok)
        abort();
    if (m->n_labels && strcmp(m->label_name[m->n_labels - 1], name) >= 0)
        m->labels_sorted = false;
    snprintf(m->label_name[m->n_labels++], 64, "%s", name);
    size_t k = strlen(m->key);
    snprintf(m->key + k, sizeof m->key - k, "%s%s=\"%s\"", m->n_labels > 1 ? "," : "{", name,
             value);
}

static inline void pbd_value(pbd_reader r, pbd_metric *m)
{
    while (r.ok && r.p < r.end) {
        uint64_t tag = pbd_varint(&r);
        if ((tag >> 3) == 1 && (tag & 7) == 1) {
            m->value = pbd_double(&r);
            m->has_value = true;
        } else {
            r.ok = false;
        }
    }
    if (!r.ok)
        abort();
}

static inline void pbd_pair(pbd_reader r, double *a, double *b, uint64_t *u)
{
    while (r.ok && r.p < r.end) {
        uint64_t tag = pbd_varint(&r);
        uint64_t f = tag >> 3, w = tag & 7;
        if (u && f == 1 && w == 0)
            *u = pbd_varint(&r);
        else if (!u && f == 1 && w == 1)
            *a = pbd_double(&r);
        else if (f == 2 && w == 1)
            *b = pbd_double(&r);
        else
            r.ok = false;
    }
    if (!r.ok)
        abort();
}

static inline void pbd_summary(pbd_reader r, pbd_metric *m)
{
    while (r.ok && r.p < r.end) {
        uint64_t tag = pbd_varint(&r);
        uint64_t f = tag >> 3, w = tag & 7;
        if (f == 1 && w == 0) {
            m->count = pbd_varint(&r);
        } else if (f == 2 && w == 1) {
            m->sum = pbd_double(&r);
        } else if (f == 3 && w == 2 && m->n_q < 32) {
            pbd_reader s = pbd_sub(&r);
            pbd_pair(s, &m->q[m->n_q], &m->qv[m->n_q], NULL);
            m->n_q++;
        } else {
            r.ok = false;
        }
    }
    if (!r.ok)
        abort();
}

static inline void pbd_push_delta(pbd_metric *m, int64_t d)
{
    size_t n = m->n_deltas;
    if ((n & (n - 1)) == 0 && n >= 16) /* 16, 32, 64, ...: double */
        m->delta = realloc(m->delta, 2 * n * sizeof *m->delta);
    else if (n == 0)
        m->delta = malloc(16 * sizeof *m->delta);
    m->delta[m->n_deltas++] = d;
}

static inline void pbd_histogram(pbd_reader r, pbd_metric *m)
{
    while (r.ok && r.p < r.end) {
        uint64_t tag = pbd_varint(&r);
        uint64_t f = tag >> 3, w = tag & 7;
        if (f == 1 && w == 0) {
            m->count = pbd_varint(&r);
        } else if (f == 2 && w == 1) {
            m->sum = pbd_double(&r);
        } else if (f == 3 && w == 2 && m->n_b < 80) {
            pbd_reader s = pbd_sub(&r);
            double ub = NAN;
            uint64_t cum = 0;
            pbd_pair(s, NULL, &ub, &cum);
            m->le[m->n_b] = ub;
            m->cum[m->n_b++] = cum;
        } else if (f == 5 && w == 0) {
            m->schema = (int32_t)pbd_zigzag(pbd_varint(&r));
            m->has_schema = true;
        } else if (f == 6 && w == 1) {
            m->zt = pbd_double(&r);
        } else if (f == 7 && w == 0) {
            m->zc = pbd_varint(&r);
        } else if (f == 12 && w == 2) {
            pbd_reader s = pbd_sub(&r);
            int64_t off = 0;
            uint64_t len = 0;
            while (s.ok && s.p < s.end) {
                uint64_t t2 = pbd_varint(&s);
                if (t2 == (1 << 3 | 0))
                    off = pbd_zigzag(pbd_varint(&s));
                else if (t2 == (2 << 3 | 0))
                    len = pbd_varint(&s);
                else
                    s.ok = false;
            }
            if (!s.ok)
                abort();
            m->span_offset = realloc(m->span_offset, (m->n_spans + 1) * sizeof *m->span_offset);
            m->span_length = realloc(m->span_length, (m->n_spans + 1) * sizeof *m->span_length);
            m->span_offset[m->n_spans] = off;
            m->span_length[m->n_spans++] = (uint32_t)len;
        } else if (f == 13 && w == 2) { /* packed */
            pbd_reader s = pbd_sub(&r);
            while (s.ok && s.p < s.end)
                pbd_push_delta(m, pbd_zigzag(pbd_varint(&s)));
            if (!s.ok)
                abort();
        } else if (f == 13 && w == 0) { /* unpacked: also valid protobuf */
            pbd_push_delta(m, pbd_zigzag(pbd_varint(&r)));
        } else {
            r.ok = false;
        }
    }
    if (!r.ok)
        abort();
    /* spans and deltas -> (index, count) */
    size_t total = 0;
    for (size_t i = 0; i < m->n_spans; i++)
        total += m->span_length[i];
    if (total != m->n_deltas) {
        fprintf(stderr, "%zu bucket(s) in spans, %zu deltas\n", total, m->n_deltas);
        abort();
    }
    m->index = malloc((total + 1) * sizeof *m->index);
    m->counts = malloc((total + 1) * sizeof *m->counts);
    int64_t at = 0, count = 0;
    size_t k = 0;
    for (size_t i = 0; i < m->n_spans; i++) {
        at += m->span_offset[i];
        for (uint32_t j = 0; j < m->span_length[i]; j++, k++) {
            count += m->delta[k];
            if (count < 0)
                abort();
            m->index[k] = at++;
            m->counts[k] = (uint64_t)count;
        }
    }
    m->n_buckets = total;
}

static inline pbd_metric *pbd_metric_read(pbd_reader r, const char *family)
{
    pbd_metric *m = calloc(1, sizeof *m);
    m->labels_sorted = true;
    snprintf(m->key, sizeof m->key, "%s", family);
    while (r.ok && r.p < r.end) {
        uint64_t tag = pbd_varint(&r);
        uint64_t f = tag >> 3;
        PBD_EXPECT(&r, tag & 7, 2);
        pbd_reader s = pbd_sub(&r);
        if (!r.ok)
            break;
        switch (f) {
        case 1: pbd_label(s, m); break;
        case 2:
        case 3: pbd_value(s, m); break;
        case 4: pbd_summary(s, m); break;
        case 7: pbd_histogram(s, m); break;
        default: r.ok = false;
        }
    }
    if (!r.ok)
        abort();
    if (m->n_labels) {
        size_t k = strlen(m->key);
        snprintf(m->key + k, sizeof m->key - k, "}");
    }
    return m;
}

/* Decodes the whole stream; false when a message is cut or malformed. */
static inline bool pbd_parse(const void *buf, size_t len, pbd_expo *out)
{
    memset(out, 0, sizeof *out);
    pbd_reader top = { buf, (const unsigned char *)buf + len, true };
    while (top.ok && top.p < top.end) {
        pbd_reader msg = pbd_sub(&top);
        if (!top.ok)
            return false;
        out->f = realloc(out->f, (out->n + 1) * sizeof *out->f);
        pbd_family *fam = &out->f[out->n++];
        memset(fam, 0, sizeof *fam);
        fam->type = -1;
        while (msg.ok && msg.p < msg.end) {
            uint64_t tag = pbd_varint(&msg);
            uint64_t f = tag >> 3, w = tag & 7;
            if (f == 1 && w == 2) {
                pbd_string(&msg, fam->name, sizeof fam->name);
            } else if (f == 2 && w == 2) {
                pbd_string(&msg, fam->help, sizeof fam->help);
            } else if (f == 3 && w == 0) {
                fam->type = (int)pbd_varint(&msg);
            } else if (f == 4 && w == 2) {
                pbd_reader s = pbd_sub(&msg);
                fam->metrics = realloc(fam->metrics, (fam->n_metrics + 1) * sizeof *fam->metrics);
                fam->metrics[fam->n_metrics++] = pbd_metric_read(s, fam->name);
            } else {
                msg.ok = false;
            }
        }
        if (!msg.ok)
            return false;
    }
    return top.ok;
}

static inline void pbd_free(pbd_expo *e)
{
    for (size_t i = 0; i < e->n; i++) {
        for (size_t j = 0; j < e->f[i].n_metrics; j++) {
            pbd_metric *m = e->f[i].metrics[j];
            free(m->delta);
            free(m->span_offset);
            free(m->span_length);
            free(m->index);
            free(m->counts);
            free(m);
        }
        free(e->f[i].metrics);
    }
    free(e->f);
    memset(e, 0, sizeof *e);
}

static inline const pbd_family *pbd_find(const pbd_expo *e, const char *name)
{
    for (size_t i = 0; i < e->n; i++)
        if (strcmp(e->f[i].name, name) == 0)
            return &e->f[i];
    return NULL;
}

/* The metric of that key; `hint` (family, metric) is looked at first. */
static inline const pbd_metric *pbd_find_metric_at(const pbd_expo *e, const char *key,
                                                   size_t fi, size_t mi)
{
    if (fi < e->n && mi < e->f[fi].n_metrics && strcmp(e->f[fi].metrics[mi]->key, key) == 0)
        return e->f[fi].metrics[mi];
    for (size_t i = 0; i < e->n; i++)
        for (size_t j = 0; j < e->f[i].n_metrics; j++)
            if (strcmp(e->f[i].metrics[j]->key, key) == 0)
                return e->f[i].metrics[j];
    return NULL;
}

static inline const pbd_metric *pbd_find_metric(const pbd_expo *e, const char *key)
{
    return pbd_find_metric_at(e, key, SIZE_MAX, SIZE_MAX);
}

/* A native bucket's count in m (0 when not in its spans). */
static inline uint64_t pbd_bucket(const pbd_metric *m, int64_t index, bool *in_span)
{
    for (size_t i = 0; i < m->n_buckets; i++)
        if (m->index[i] == index) {
            if (in_span)
                *in_span = true;
            return m->counts[i];
        }
    if (in_span)
        *in_span = false;
    return 0;
}

#endif
