/* Fuzz target (d): the importers of other tools' result files. The first
 * byte picks the format (LLMLAT_INPUT_VLLM ... LLMLAT_INPUT_INFERENCE_PERF,
 * or AUTO), the convention and the mode; the rest is the file
 * (fuzz_reader.h says what must hold). The seeds are the files
 * tests/importers writes, one per format (make_fuzz_seeds.py). */
#include "fuzz_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int32_t input = (int32_t)(data[0] % 9); /* 0 is AUTO, 1 the trace */
    int32_t conv = (int32_t)(data[0] / 9 % 7), mode = (int32_t)(data[0] / 63 % 2);
    fz_read(data + 1, size - 1, input, conv, mode, (data[0] & 0x80) != 0);
    return 0;
}
