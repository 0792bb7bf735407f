/* Reports land with the report issue. */
#include "agg.h"

LLMLAT_API int32_t llmlat_agg_report(const llmlat_agg *a, int32_t format, void *buf,
                                     size_t cap, size_t *len)
{
    (void)a; (void)format; (void)buf; (void)cap; (void)len;
    return LLMLAT_EINVAL;
}
