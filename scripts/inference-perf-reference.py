#!/usr/bin/env python3
"""An independent computation of inference-perf's summary_lifecycle_metrics.json
on a trace.

It re-implements, without numpy and without llmlat, what
kubernetes-sigs/inference-perf does (read from its code):

- inference_perf/apis/streaming_parser.py: only chunks with content get a
  time; inference_perf/reportgen/base.py (summarize_requests) with a
  tokenizer: every token of a chunk gets the chunk's time, so a chunk of k
  tokens gives k equal token times;
- per success: request latency = end - start; NTPOT = latency / N (0.0
  when N = 0); with more than one token time, TTFT = first token time -
  start, TPOT = (last - first token time) / (N - 1) for N > 1, and the
  differences of consecutive token times, pooled over requests, are the
  inter-token latencies;
- summarize(): mean, min, max and numpy.percentile (linear) at 0.1, 1, 5,
  10, 25, 50 ("median"), 75, 90, 95, 99, 99.9, None when empty; the
  throughputs over successes divided by max end - min start of all
  requests, failed ones included; failures counted with their latency
  and prompt tokens.

It prints the JSON that `llmlat report --convention inference-perf
--format json` writes as "tool". Trace conventions: times are read
exactly (integer ns), differences taken in ns; N is the sum of the events'
tokens (the tokenizer's count of the chunks: reportgen/base.py,
effective_output_tokens without use_server_output_tokens), whatever usage
count ("output_tokens") the trace carries; with --server-output-tokens
(llmlat's --output-tokens server) N is that usage count where a request
has one, as use_server_output_tokens reads it. inference-perf reports the
client's count in output_len and the server's, when it has one, in
output_tokens (summarize_output_token_usage); llmlat reports its N in both,
and so does this script. "cancelled" and "ok": false requests are
failures; no cached prompt tokens. load_summary's schedule_delay
summarizes start - scheduled time of every request with a "scheduled" time
(inference-perf has one for every request: a trace without any has None).

    python3 scripts/inference-perf-reference.py [--server-output-tokens] TRACE > out.json
"""
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_trace import NS, read_requests  # noqa: E402

PERCENTILES = [0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9]


def percentile(sorted_values, p):
    """numpy.percentile(values, p), method 'linear', as numpy computes it:
    virtual index (n - 1) * q, then numpy's _lerp."""
    q = p / 100
    n = len(sorted_values)
    vi = (n - 1) * q
    if vi >= n - 1:
        return sorted_values[-1]
    lo = math.floor(vi)
    t = vi - lo
    a, b = sorted_values[lo], sorted_values[lo + 1]
    diff = b - a
    return b - diff * (1 - t) if t >= 0.5 else a + diff * t


def summarize(items):
    if not items:
        return None
    s = sorted(items)
    result = {"mean": sum(items) / len(items), "min": s[0], "max": s[-1]}
    for p in PERCENTILES:
        result["median" if p == 50 else f"p{p:g}"] = percentile(s, p)
    return result


def token_usage(values, prompt):
    result = {"total": float(sum(values))}
    if prompt:
        result.update({"cached": 0.0, "uncached": float(sum(values))})
    if (distribution := summarize([float(v) for v in values])):
        result.update(distribution)
    return result


def output_tokens(q, server):
    """N: the client's count (the sum of k), or the server's usage count."""
    if server and q.usage is not None:
        return q.usage
    return sum(k for _, k in q.events)


def inference_perf(requests, server=False):
    for q in requests:
        q.n = output_tokens(q, server)
    successes = [q for q in requests if q.status == "finished"]
    failures = [q for q in requests if q.status != "finished"]
    total_time = (max(q.end_ns for q in requests) - min(q.start_ns for q in requests)) / NS

    latencies, ntpots, tpots, ttfts, itls = [], [], [], [], []
    for q in successes:
        latency = (q.end_ns - q.start_ns) / NS
        latencies.append(latency)
        ntpots.append((q.end_ns - q.start_ns) / NS / q.n if q.n > 0 else 0.0)
        times = [t for t, k in q.events for _ in range(k)]
        if len(times) > 1:
            ttfts.append((times[0] - q.start_ns) / NS)
            if q.n > 1:
                tpots.append((times[-1] - times[0]) / NS / (q.n - 1))
            itls += [(b - a) / NS for a, b in zip(times, times[1:])]

    def rate(x):
        return x / total_time if total_time > 0 else 0.0

    inputs = sum(q.input_tokens for q in successes)
    outputs = sum(q.n for q in successes)
    return {
        "benchmark_time_seconds": total_time,
        "load_summary": {"count": len(requests), "schedule_delay": summarize(
            [(q.start_ns - q.scheduled_ns) / NS for q in requests if q.scheduled_ns is not None])},
        "successes": {
            "count": len(successes),
            "latency": {
                "request_latency": summarize(latencies),
                "normalized_time_per_output_token": summarize(ntpots),
                "time_per_output_token": summarize(tpots),
                "time_to_first_token": summarize(ttfts),
                "inter_token_latency": summarize(itls),
            },
            "throughput": {
                "input_tokens_per_sec": rate(inputs),
                "output_tokens_per_sec": rate(outputs),
                "total_tokens_per_sec": rate(inputs + outputs),
                "requests_per_sec": rate(len(successes)),
            },
            "prompt_tokens": token_usage([q.input_tokens for q in successes], True),
            "output_len": summarize([float(q.n) for q in successes]),
            "output_tokens": token_usage([q.n for q in successes], False),
        },
        "failures": {
            "count": len(failures),
            "request_latency": summarize([(q.end_ns - q.start_ns) / NS for q in failures]),
            "prompt_tokens": token_usage([q.input_tokens for q in failures], True),
        },
    }


def main():
    args = sys.argv[1:]
    server = args[:1] == ["--server-output-tokens"]
    args = args[1:] if server else args
    if len(args) != 1:
        sys.exit(__doc__)
    requests, _ = read_requests(args[0])
    json.dump(inference_perf(requests, server), sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
