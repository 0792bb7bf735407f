/* Shared by the JSON report (report_json.c) and its `tool` object
 * (report_tool.c). */
#ifndef LLMLAT_REPORT_JSON_H
#define LLMLAT_REPORT_JSON_H

#include "report/report.h"
#include "report/report_jsonw.h"

/* A counter as a member; null when undefined. */
LLMLAT_PRIVATE void json_counter(report_ctx *c, jsonw *w, const char *key, int32_t counter);

/* The `tool` member: the summary fields of the convention's tool, named
 * and scaled as that tool's result file has them. Nothing under the
 * default convention. */
LLMLAT_PRIVATE void json_tool(report_ctx *c, jsonw *w);

#endif
