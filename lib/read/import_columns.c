/* The columns of one run (read/import.h): files that keep each request's
 * fields in separate arrays (vLLM, SGLang), or whose last run is only
 * known to be the last at the end (GenAI-Perf), are held here and handed
 * over request by request once the input ended. */
#include <string.h>

#include "read/import.h"

static const size_t COLS_ELEM[COLS] = {
    [COL_START] = sizeof(int64_t), [COL_TTFT] = sizeof(int64_t),
    [COL_INPUT] = sizeof(uint64_t), [COL_OUTPUT] = sizeof(uint64_t),
    [COL_FAILED] = sizeof(uint8_t), [COL_LATENCY] = sizeof(int64_t),
    [COL_QUEUE] = sizeof(int64_t),  [COL_EVENTS] = sizeof(uint64_t),
    [COL_EV_T] = sizeof(int64_t),   [COL_EV_K] = sizeof(uint32_t),
    [COL_LINE] = sizeof(uint64_t),  [COL_COL] = sizeof(uint64_t),
};

static const char *const COLS_NAME[COLS] = {
    [COL_START] = "start times", [COL_TTFT] = "TTFTs", [COL_INPUT] = "input lengths",
    [COL_OUTPUT] = "output lengths", [COL_FAILED] = "errors", [COL_LATENCY] = "latencies",
    [COL_QUEUE] = "queue times", [COL_EVENTS] = "chunk lists",
};

/* The next free entry of column id, NULL on no memory. */
static void *cols_slot(llmlat_reader *rd, int id)
{
    cols_state *c = &rd->p.f.imp.c;
    uint64_t n = c->len[id];
    if (!rd_reserve(rd, id, (size_t)n + 1, COLS_ELEM[id]))
        return NULL;
    c->len[id] = n + 1;
    return (char *)rd->arrays[id].p + n * COLS_ELEM[id];
}

LLMLAT_PRIVATE bool cols_push_i64(llmlat_reader *rd, int id, int64_t v)
{
    void *p = cols_slot(rd, id);
    if (p)
        memcpy(p, &v, sizeof v);
    return p != NULL;
}

LLMLAT_PRIVATE bool cols_push_u64(llmlat_reader *rd, int id, uint64_t v)
{
    void *p = cols_slot(rd, id);
    if (p)
        memcpy(p, &v, sizeof v);
    return p != NULL;
}

LLMLAT_PRIVATE bool cols_push_u32(llmlat_reader *rd, int id, uint32_t v)
{
    void *p = cols_slot(rd, id);
    if (p)
        memcpy(p, &v, sizeof v);
    return p != NULL;
}

LLMLAT_PRIVATE bool cols_push_u8(llmlat_reader *rd, int id, uint8_t v)
{
    void *p = cols_slot(rd, id);
    if (p)
        memcpy(p, &v, sizeof v);
    return p != NULL;
}

LLMLAT_PRIVATE void cols_clear(llmlat_reader *rd)
{
    rd->p.f.imp.c = (cols_state){ .sealed = false };
}

static const void *cols_at(const llmlat_reader *rd, int id, uint64_t i)
{
    return (const char *)rd->arrays[id].p + i * COLS_ELEM[id];
}

LLMLAT_PRIVATE bool cols_seal(llmlat_reader *rd, bool gaps, uint32_t lacks, uint64_t line,
                              uint64_t col)
{
    cols_state *c = &rd->p.f.imp.c;
    int count = gaps ? COL_TTFT : COL_START;
    uint64_t n = c->len[count];
    for (int id = COL_START; id <= COL_EVENTS; id++) {
        if (c->len[id] == 0 || c->len[id] == n)
            continue;
        jt_fail_at(&rd->jt, line, col, "the run has %llu %s but %llu %s",
                   (unsigned long long)n, COLS_NAME[count], (unsigned long long)c->len[id],
                   COLS_NAME[id]);
        return false;
    }
    uint64_t events = 0;
    for (uint64_t i = 0; i < c->len[COL_EVENTS]; i++) {
        uint64_t e;
        memcpy(&e, cols_at(rd, COL_EVENTS, i), sizeof e);
        events += e;
    }
    if (events != c->len[COL_EV_T] || (!gaps && c->len[COL_EV_K] != events)) {
        jt_fail_at(&rd->jt, line, col, "the run's chunk lists do not add up");
        return false;
    }
    c->n = n;
    c->sealed = true;
    c->gaps = gaps;
    c->lacks = lacks;
    c->line = line;
    c->col = col;
    return true;
}

static int64_t cols_i64(const llmlat_reader *rd, int id, uint64_t i, int64_t none)
{
    int64_t v = none;
    if (i < rd->p.f.imp.c.len[id])
        memcpy(&v, cols_at(rd, id, i), sizeof v);
    return v;
}

static uint64_t cols_u64(const llmlat_reader *rd, int id, uint64_t i, uint64_t none)
{
    uint64_t v = none;
    if (i < rd->p.f.imp.c.len[id])
        memcpy(&v, cols_at(rd, id, i), sizeof v);
    return v;
}

/* The tool's own latency (vLLM's "latencies": the last chunk - start, in
 * one double) places the last chunk, which the sum of the gaps, each
 * rounded to ns, may miss by a few ns; never before the chunk before it. */
static void cols_take_latency(llmlat_reader *rd, uint64_t i)
{
    rd_req *q = &rd->p.cur;
    if (i >= rd->p.f.imp.c.len[COL_LATENCY] || q->n == 0)
        return;
    int64_t last = rd_add_sat(q->start, cols_i64(rd, COL_LATENCY, i, 0));
    int64_t before = q->n > 1 ? rd->ev.t[q->n - 2] : q->start;
    if (last >= before)
        rd->ev.t[q->n - 1] = last;
}

LLMLAT_PRIVATE bool import_held_next(llmlat_reader *rd)
{
    cols_state *c = &rd->p.f.imp.c;
    if (!c->sealed || c->next == c->n)
        return false;
    uint64_t i = c->next++;
    rd_begin_request(rd, cols_u64(rd, COL_LINE, i, c->line), cols_u64(rd, COL_COL, i, c->col));
    rd_req *q = &rd->p.cur;
    q->lacks = c->lacks;
    q->start = cols_i64(rd, COL_START, i, 0);
    if (i < c->len[COL_QUEUE]) { /* the intended start: when it was let go */
        q->has_scheduled = true;
        q->scheduled = rd_sub_sat(q->start, cols_i64(rd, COL_QUEUE, i, 0));
    }
    if (c->len[COL_INPUT])
        q->input_tokens = cols_u64(rd, COL_INPUT, i, 0);
    if (c->len[COL_OUTPUT]) {
        q->has_output_tokens = true;
        q->output_tokens = cols_u64(rd, COL_OUTPUT, i, 0);
    }
    uint8_t failed = 0;
    if (i < c->len[COL_FAILED])
        memcpy(&failed, cols_at(rd, COL_FAILED, i), 1);
    q->ok = !failed;
    uint64_t events = cols_u64(rd, COL_EVENTS, i, 0);
    uint64_t first = c->next_event;
    c->next_event += events;
    if (c->gaps) {
        /* a failed request's TTFT and gaps are the tool's placeholders */
        int64_t ttft = cols_i64(rd, COL_TTFT, i, 0);
        if (failed || (ttft == 0 && events == 0)) /* SGLang: a success without content */
            return true;
        int64_t t = rd_add_sat(q->start, ttft);
        if (!rd_push_event(rd, t, 1))
            return false;
        for (uint64_t j = first; j < first + events; j++) {
            t = rd_add_sat(t, cols_i64(rd, COL_EV_T, j, 0));
            if (!rd_push_event(rd, t, 1))
                return false;
        }
        cols_take_latency(rd, i);
        return true;
    }
    for (uint64_t j = first; j < first + events; j++) {
        uint32_t k;
        memcpy(&k, cols_at(rd, COL_EV_K, j), sizeof k);
        if (!rd_push_event(rd, cols_i64(rd, COL_EV_T, j, 0), k))
            return false;
    }
    return true;
}
