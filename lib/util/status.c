/* Version, status strings, names, clock: the small fixed facts. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#endif
#include <time.h>

#include "util/metric.h"

#define STR2(x) #x
#define STR(x) STR2(x)

LLMLAT_API uint32_t llmlat_version_number(void)
{
    return LLMLAT_VERSION_NUMBER;
}

LLMLAT_API const char *llmlat_version_string(void)
{
    return STR(LLMLAT_VERSION_MAJOR) "." STR(LLMLAT_VERSION_MINOR) "." STR(
        LLMLAT_VERSION_PATCH);
}

LLMLAT_API const char *llmlat_strerror(int32_t status)
{
    switch (status) {
    case LLMLAT_OK: return "success";
    case LLMLAT_EINVAL: return "invalid argument";
    case LLMLAT_ENOMEM: return "out of memory";
    case LLMLAT_EORDER: return "timestamp before the previous one of the same request";
    case LLMLAT_ESTATE: return "call not valid in this state";
    case LLMLAT_EUNDEFINED: return "value undefined";
    case LLMLAT_EFORMAT: return "malformed bytes or trace";
    case LLMLAT_EMISMATCH: return "incompatible aggregators";
    case LLMLAT_ENOSPC: return "output buffer too small";
    case LLMLAT_EOVERFLOW: return "a count or sum would overflow";
    }
    return "unknown status";
}

LLMLAT_API const char *llmlat_metric_name(int32_t metric)
{
    static const char *const NAMES[METRIC_COUNT] = {
        "ttft", "tpot", "itl", "icl", "e2e", "tps_user", "itl_max",
        "output_tokens", "input_tokens", "tool_itl", "ntpot",
        "dispatch_delay", "scheduled_ttft", "scheduled_e2e",
    };
    return metric_valid(metric) ? NAMES[metric_index(metric)] : NULL;
}

LLMLAT_API int64_t llmlat_now_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}
