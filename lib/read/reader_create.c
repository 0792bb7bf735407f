/* llmlat_reader_create: llmlat_reader_new telling why it failed. Its
 * only failures are an unknown format and memory, told apart here. */
#include "read/reader.h"

LLMLAT_API int32_t llmlat_reader_create(int32_t input, const char *name, llmlat_reader **out)
{
    if (!out)
        return LLMLAT_EINVAL;
    *out = NULL;
    if (!llmlat_input_name(input))
        return LLMLAT_EINVAL;
    *out = llmlat_reader_new(input, name);
    return *out ? LLMLAT_OK : LLMLAT_ENOMEM;
}
