/* Serialization lands with the bounded-mode issue (docs/format.md). */
#include "agg.h"

LLMLAT_API int32_t llmlat_agg_serialize(const llmlat_agg *a, void *buf, size_t cap,
                                        size_t *len)
{
    (void)a; (void)buf; (void)cap; (void)len;
    return LLMLAT_EINVAL;
}

LLMLAT_API llmlat_agg *llmlat_agg_deserialize(const void *buf, size_t len, int32_t *status)
{
    (void)buf; (void)len;
    if (status)
        *status = LLMLAT_EINVAL;
    return NULL;
}
