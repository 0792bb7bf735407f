#include <stdio.h>

#include "decimal.h"
#include "ingest.h"

bool ingest_init(ingest *g, llmlat_agg *a, const char *name)
{
    g->a = a;
    g->rec = llmlat_request_new();
    g->name = name;
    g->rejected = 0;
    g->status = LLMLAT_OK;
    return g->rec != NULL;
}

void ingest_free(ingest *g)
{
    llmlat_request_free(g->rec);
    g->rec = NULL;
}

/* Why q breaks the rule, into why; false when it does not. */
static bool breaks_rule(const trace_request *q, char *why, size_t cap)
{
    char a[32], b[32];
    int64_t prev = q->start;
    for (size_t i = 0; i < q->n; i++) {
        if (q->t[i] < prev) {
            ns_to_seconds_text(q->t[i], a);
            ns_to_seconds_text(prev, b);
            if (i == 0)
                snprintf(why, cap, "event 1 at %s s is before its start at %s s", a, b);
            else
                snprintf(why, cap, "event %zu at %s s is before event %zu at %s s", i + 1, a, i,
                         b);
            return true;
        }
        prev = q->t[i];
    }
    if (q->has_end && q->end < prev) {
        ns_to_seconds_text(q->end, a);
        ns_to_seconds_text(prev, b);
        if (q->n)
            snprintf(why, cap, "its end at %s s is before its last event (%zu) at %s s", a, q->n,
                     b);
        else
            snprintf(why, cap, "its end at %s s is before its start at %s s", a, b);
        return true;
    }
    return false;
}

static void reject(ingest *g, const trace_request *q, const char *why)
{
    g->rejected++;
    if (g->rejected > INGEST_MESSAGES_MAX)
        return;
    fprintf(stderr, "%s:%llu:%llu: request %llu%s%s%s rejected: %s\n", g->name,
            (unsigned long long)q->line, (unsigned long long)q->col,
            (unsigned long long)q->index, q->id[0] ? " (id \"" : "", q->id,
            q->id[0] ? "\")" : "", why);
    if (g->rejected == INGEST_MESSAGES_MAX)
        fprintf(stderr, "%s: further rejected requests are counted but not listed\n", g->name);
}

/* Records q in the reused recorder and adds it. */
static int32_t record(ingest *g, const trace_request *q)
{
    llmlat_request *r = g->rec;
    int32_t st = llmlat_request_reset(r);
    if (st == LLMLAT_OK)
        st = llmlat_request_start(r, q->start);
    if (st == LLMLAT_OK)
        st = llmlat_request_events(r, q->t, q->k, q->n);
    if (st == LLMLAT_OK)
        st = llmlat_request_set_input_tokens(r, q->input_tokens);
    if (st == LLMLAT_OK && q->has_output_tokens)
        st = llmlat_request_set_output_tokens(r, q->output_tokens);
    /* ends at "end", else at its last event (or start) */
    int64_t end = q->has_end ? q->end : q->n ? q->t[q->n - 1] : q->start;
    if (st == LLMLAT_OK)
        st = q->cancelled ? llmlat_request_cancel(r, end)
             : q->ok      ? llmlat_request_finish(r, end)
                          : llmlat_request_fail(r, end);
    if (st == LLMLAT_OK)
        st = llmlat_agg_add(g->a, r);
    return st;
}

bool ingest_request(void *user, const trace_request *q)
{
    ingest *g = user;
    char why[160];
    if (breaks_rule(q, why, sizeof why)) {
        reject(g, q, why);
        return true;
    }
    int32_t st = record(g, q);
    if (st == LLMLAT_ENOMEM) {
        g->status = st;
        return false;
    }
    if (st != LLMLAT_OK) {
        /* what the rule does not spell out: a span past int64 ns, token
         * sums past 2^64 */
        snprintf(why, sizeof why, "the library refused it: %s", llmlat_strerror(st));
        reject(g, q, why);
    }
    return true;
}
