/* The per-request tables: one row per request the aggregator keeps, in
 * the order they were added, with its own values under the convention
 * (llmlat_request_value), as CSV or JSON Lines (docs/report-formats.md). */
#include <math.h>

#include "report/report.h"
#include "report/report_jsonw.h"

/* The columns after index, start and end: a value of the request under
 * the convention, in seconds (tokens for the counts), empty / null when it
 * has none; and its intended start (metric 0: SCHEDULED_AT), before the
 * values measured from it. */
#define SCHEDULED_AT 0
static const struct {
    const char *name;
    int32_t metric;
} REQUEST_COLUMNS[] = {
    { "ttft_s", LLMLAT_TTFT },
    { "tpot_s", LLMLAT_TPOT },
    { "e2e_s", LLMLAT_E2E },
    { "itl_max_s", LLMLAT_ITL_MAX },
    { "output_tokens", LLMLAT_OUTPUT_TOKENS },
    { "input_tokens", LLMLAT_INPUT_TOKENS },
    { "scheduled_s", SCHEDULED_AT },
    { "dispatch_delay_s", LLMLAT_DISPATCH_DELAY },
    { "scheduled_ttft_s", LLMLAT_SCHEDULED_TTFT },
    { "scheduled_e2e_s", LLMLAT_SCHEDULED_E2E },
};
#define REQUEST_COLUMN_COUNT (sizeof REQUEST_COLUMNS / sizeof REQUEST_COLUMNS[0])

/* A request's start or end on the run's clock; empty / null when its start
 * times are not on one clock (a file that keeps them relative). */
static void request_time(rbuf *b, const logged_request *q, int64_t t, const char *none)
{
    if (q->lacks & LLMLAT_LACKS_START_TIMES)
        rbuf_puts(b, none);
    else
        rbuf_scaled(b, t, 9, 9);
}

/* Request i's values (column k's in v[k]; none for SCHEDULED_AT), and
 * whether it is a success under the convention. */
static bool request_row(const llmlat_agg *a, size_t i, double *v)
{
    llmlat_request q;
    req_view view;
    request_log_view(&a->log, i, &q);
    conv_view(a->conv, &q, &view);
    for (size_t c = 0; c < REQUEST_COLUMN_COUNT; c++) {
        int32_t m = REQUEST_COLUMNS[c].metric;
        if (m == SCHEDULED_AT || llmlat_request_value(&q, a->conv->id, m, &v[c]) != LLMLAT_OK)
            v[c] = NAN;
    }
    return view.success;
}

/* Column k of request q: its value, or its intended start. */
static void request_cell(rbuf *b, const logged_request *q, size_t k, double v, const char *none)
{
    if (REQUEST_COLUMNS[k].metric != SCHEDULED_AT)
        rbuf_double(b, isfinite(v) ? v : NAN, none);
    else if (q->flags & LOGGED_SCHEDULED)
        request_time(b, q, q->scheduled_ns, none);
    else
        rbuf_puts(b, none);
}

/* The rows need the requests: an aggregator without them has no table. */
static bool has_requests(report_ctx *c)
{
    if (agg_holds_requests(c->a))
        return true;
    rbuf_fail(&c->out, LLMLAT_EUNDEFINED);
    return false;
}

LLMLAT_PRIVATE void report_requests_csv(report_ctx *c)
{
    if (!has_requests(c))
        return;
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    rbuf_puts(b, "index,start_s,end_s");
    for (size_t k = 0; k < REQUEST_COLUMN_COUNT; k++) {
        rbuf_puts(b, ",");
        rbuf_puts(b, REQUEST_COLUMNS[k].name);
    }
    rbuf_puts(b, ",success\n");
    for (size_t i = 0; i < a->log.n_req && b->status == LLMLAT_OK; i++) {
        double v[REQUEST_COLUMN_COUNT];
        bool ok = request_row(a, i, v);
        const logged_request *q = &a->log.req[i];
        rbuf_u64(b, i);
        rbuf_puts(b, ",");
        request_time(b, q, q->start_ns, "");
        rbuf_puts(b, ",");
        request_time(b, q, q->end_ns, "");
        for (size_t k = 0; k < REQUEST_COLUMN_COUNT; k++) {
            rbuf_puts(b, ",");
            request_cell(b, q, k, v[k], "");
        }
        rbuf_puts(b, ok ? ",true\n" : ",false\n");
    }
}

LLMLAT_PRIVATE void report_requests_jsonl(report_ctx *c)
{
    if (!has_requests(c))
        return;
    const llmlat_agg *a = c->a;
    rbuf *b = &c->out;
    for (size_t i = 0; i < a->log.n_req && b->status == LLMLAT_OK; i++) {
        double v[REQUEST_COLUMN_COUNT];
        bool ok = request_row(a, i, v);
        const logged_request *q = &a->log.req[i];
        rbuf_puts(b, "{\"index\": ");
        rbuf_u64(b, i);
        rbuf_puts(b, ", \"start_s\": ");
        request_time(b, q, q->start_ns, "null");
        rbuf_puts(b, ", \"end_s\": ");
        request_time(b, q, q->end_ns, "null");
        for (size_t k = 0; k < REQUEST_COLUMN_COUNT; k++) {
            rbuf_puts(b, ", \"");
            rbuf_puts(b, REQUEST_COLUMNS[k].name);
            rbuf_puts(b, "\": ");
            request_cell(b, q, k, v[k], "null");
        }
        rbuf_puts(b, ok ? ", \"success\": true}\n" : ", \"success\": false}\n");
    }
}
