/* The README's C example: record two streamed responses, then ask for the
 * numbers under the default convention and under vLLM's. */
#include <stdio.h>

#include <llmlat.h>

#define MS 1000000LL /* timestamps are nanoseconds */

int main(void)
{
    llmlat_agg *agg = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg *vllm = llmlat_agg_new(LLMLAT_CONV_VLLM, LLMLAT_MODE_EXACT);
    llmlat_request *req = llmlat_request_new();
    if (!agg || !vllm || !req)
        return 1;

    /* A: 100 tokens 10 ms apart, after a role chunk with no token. */
    llmlat_request_start(req, 0);
    llmlat_request_event(req, 150 * MS, 0);
    for (int i = 0; i < 100; i++)
        llmlat_request_event(req, 200 * MS + i * 10 * MS, 1);
    llmlat_request_finish(req, 1200 * MS);
    llmlat_agg_add(agg, req);
    llmlat_agg_add(vllm, req);

    /* B: 2 tokens 50 ms apart; the recorder is reused without allocating. */
    llmlat_request_reset(req);
    llmlat_request_start(req, 0);
    llmlat_request_event(req, 300 * MS, 1);
    llmlat_request_event(req, 350 * MS, 1);
    llmlat_request_finish(req, 350 * MS);
    llmlat_agg_add(agg, req);
    llmlat_agg_add(vllm, req);

    double tpot, itl, p99, ttft_vllm;
    if (llmlat_agg_stat(agg, LLMLAT_TPOT, LLMLAT_STAT_MEAN, &tpot) != LLMLAT_OK ||
        llmlat_agg_stat(agg, LLMLAT_ITL, LLMLAT_STAT_MEAN, &itl) != LLMLAT_OK ||
        llmlat_agg_quantile(agg, LLMLAT_ITL, 0.99, &p99) != LLMLAT_OK ||
        llmlat_agg_stat(vllm, LLMLAT_TTFT, LLMLAT_STAT_MEAN, &ttft_vllm) != LLMLAT_OK)
        return 1;
    printf("mean TPOT %.1f ms (per request), mean ITL %.1f ms (per token), P99 ITL %.1f ms\n",
           tpot * 1e3, itl * 1e3, p99 * 1e3);
    /* vLLM anchors TTFT on the role chunk: (150 + 300) / 2 ms */
    printf("mean TTFT under vLLM's convention: %.1f ms\n", ttft_vllm * 1e3);

    llmlat_request_free(req);
    llmlat_agg_free(agg);
    llmlat_agg_free(vllm);
    return 0;
}
