/* Fuzz target (c): the library's reader (llmlat_reader_*) on traces, as
 * the command reads them: the format detected from the content, requests
 * folded into an aggregator, then the report (fuzz_reader.h says what must
 * hold). The input is the trace itself, so the seeds are plain trace files
 * (the examples/ traces, cut small). The convention, the mode and whether
 * requests are taken out one by one follow from its length. */
#include "fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int32_t conv = (int32_t)(size % 5), mode = (int32_t)(size / 5 % 2);
    fz_read(data, size, LLMLAT_INPUT_AUTO, conv, mode, size / 10 % 2 == 1);
    return 0;
}
