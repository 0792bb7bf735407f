/* What data rebuilt from another tool's result file cannot support
 * (LLMLAT_LACKS_*, docs/importers.md), in one place: the recorder's
 * llmlat_request_value and the aggregator's queries and reports both ask
 * here, so a metric is never computed from data the source did not have. */
#ifndef LLMLAT_LACKS_H
#define LLMLAT_LACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "record/convention.h"

/* What some requests lack, and under which convention they are read. */
typedef struct lacks_ctx {
    uint32_t lacks;          /* LLMLAT_LACKS_* of any of them */
    uint32_t sources;        /* 1 << convention of each one's known values (CHUNKS) */
    const conv_rules *c;     /* the convention they are read under */
    bool host_duration;      /* rates have a duration that needs no start time */
    bool slo[3];             /* SLOs set: TTFT, TPOT, E2E (goodput needs those metrics) */
} lacks_ctx;

/* Why they cannot support metric, rate or counter `id` (kind
 * LLMLAT_KIND_*): a static sentence, NULL when they can. */
LLMLAT_PRIVATE const char *lacks_reason(const lacks_ctx *x, int32_t kind, int32_t id);

/* Whether a values-only request's value of a metric measured by the tool
 * of `source` means the same under c (the same TTFT anchor, E2E to the
 * same end). metric: LLMLAT_TTFT or LLMLAT_E2E. */
LLMLAT_PRIVATE bool lacks_same_measure(const conv_rules *source, const conv_rules *c,
                                       int32_t metric);

#endif
