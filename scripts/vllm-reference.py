#!/usr/bin/python3
"""An independent computation of `vllm bench serve`'s summary on a trace.

It re-implements, with numpy, the formulas of vLLM's
vllm/benchmarks/serve.py::calculate_metrics and benchmark() (request
timestamps as vllm/benchmarks/lib/endpoint_request_func.py records them:
ttft = first chunk - start, itl = gaps between consecutive chunks, latency =
last chunk - start) and prints the numeric fields of vLLM's result dict as
JSON. It shares no code with llmlat; tests/report compares its committed
output with `llmlat report --convention vllm --format json`'s "tool" object.

    /usr/bin/python3 scripts/vllm-reference.py TRACE [--percentiles 50,99]
        [--goodput ttft:MS,tpot:MS,e2el:MS] [--duration S] > out.json

Times are read exactly (decimal -> integer ns) and converted to float
seconds the way vLLM's clients hold them. Where vLLM has no wall time (a
trace without "duration" and no --duration), the duration is llmlat's
documented fallback: earliest start to latest event of any request. Needs
numpy (Debian: /usr/bin/python3 with python3-numpy).
"""
import argparse
import json
import os
import sys

import numpy as np

MILLISECONDS_TO_SECONDS_CONVERSION = 1000

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_trace import NS, load_trace, to_ns  # noqa: E402


class Output:
    """What vLLM's request function returns (RequestFuncOutput), in ns."""

    def __init__(self, r):
        self.start_ns = to_ns(r["start"])
        # the request's arrival on the schedule: vLLM's queue time is how
        # long it then waited for a --max-concurrency slot (PR #54136)
        scheduled = r.get("scheduled")
        self.scheduled_ns = to_ns(scheduled) if scheduled is not None else None
        self.times_ns = [to_ns(t) for t, _ in r.get("events", [])]
        self.tokens = [int(k) for _, k in r.get("events", [])]
        self.end_ns = to_ns(r["end"]) if r.get("end") is not None else None
        self.prompt_len = int(r.get("input_tokens") or 0)
        usage = r.get("output_tokens")
        self.output_tokens = int(usage) if usage is not None else sum(self.tokens)
        # vLLM: a request succeeds when its stream ended normally and it
        # received at least one chunk
        ended_normally = bool(r.get("ok", True)) and not r.get("cancelled", False)
        self.success = ended_normally and len(self.times_ns) > 0
        if self.success:
            self.ttft = (self.times_ns[0] - self.start_ns) / NS
            self.itl = [(b - a) / NS for a, b in zip(self.times_ns, self.times_ns[1:])]
            self.latency = (self.times_ns[-1] - self.start_ns) / NS
        self.queue_time = (None if self.scheduled_ns is None
                           else (self.start_ns - self.scheduled_ns) / NS)

    def rejected(self):
        """llmlat's rejection rule (times going backwards, an intended start
        after the start, events after end)."""
        if self.scheduled_ns is not None and self.scheduled_ns > self.start_ns:
            return True
        prev = self.start_ns
        for t in self.times_ns:
            if t < prev:
                return True
            prev = t
        return self.end_ns is not None and self.end_ns < prev

    def last_ns(self):
        return self.times_ns[-1] if self.times_ns else self.start_ns


def fallback_duration(outputs):
    """llmlat's duration without host wall time: earliest start -> latest event."""
    lo = min(o.start_ns for o in outputs)
    hi = max(o.last_ns() for o in outputs)
    return (hi - lo) / NS


def calculate_metrics(outputs, dur_s, selected_percentiles, goodput_config_dict):
    """vLLM's calculate_metrics, over RequestFuncOutput-like objects."""
    actual_output_lens, total_input, completed, good_completed = [], 0, 0, 0
    itls, tpots, all_tpots, ttfts, e2els = [], [], [], [], []
    for o in outputs:
        if o.success:
            output_len = o.output_tokens
            actual_output_lens.append(output_len)
            total_input += o.prompt_len
            tpot = 0.0
            if output_len > 1:
                tpot = (o.latency - o.ttft) / (output_len - 1)
                tpots.append(tpot)
            all_tpots.append(tpot)  # vLLM: output_len <= 1 counts as 0 for goodput
            itls += o.itl
            ttfts.append(o.ttft)
            e2els.append(o.latency)
            completed += 1
        else:
            actual_output_lens.append(0)

    if goodput_config_dict:
        valid_metrics, slo_values = [], []
        for name, values in (("ttft", ttfts), ("tpot", all_tpots), ("e2el", e2els)):
            if name in goodput_config_dict:
                valid_metrics.append(values)
                slo_values.append(goodput_config_dict[name] / MILLISECONDS_TO_SECONDS_CONVERSION)
        for req_metric in zip(*valid_metrics):
            if all(s >= r for s, r in zip(slo_values, req_metric)):
                good_completed += 1

    successes = [o for o in outputs if o.success]
    max_output_tokens_per_s, max_concurrent_requests = 0.0, 0
    if successes:
        # 1-second buckets from the earliest successful start, one count per
        # chunk (vLLM rebuilds chunk times from ttft and the itl list)
        min_start = min(o.start_ns for o in successes)
        buckets = {}
        for o in successes:
            for t in o.times_ns:
                b = (t - min_start) // NS
                buckets[b] = buckets.get(b, 0) + 1
        max_output_tokens_per_s = float(max(buckets.values()))
        # sweep over [start, start + latency), departures before arrivals
        events = []
        for o in successes:
            events.append((o.start_ns, 1))
            events.append((o.times_ns[-1], -1))
        events.sort(key=lambda x: (x[0], x[1]))
        current = 0
        for _, delta in events:
            current += delta
            max_concurrent_requests = max(max_concurrent_requests, current)

    def stats(values):
        return (np.mean(values or 0) * 1000, np.median(values or 0) * 1000,
                np.std(values or 0) * 1000,
                [(p, np.percentile(values or 0, p) * 1000) for p in selected_percentiles])

    total_output = sum(actual_output_lens)
    result = {
        "duration": dur_s,
        "completed": completed,
        "failed": len(outputs) - completed,
        "total_input_tokens": total_input,
        "total_output_tokens": total_output,
        "request_throughput": completed / dur_s,
        "request_goodput": good_completed / dur_s if goodput_config_dict else None,
        "output_throughput": total_output / dur_s,
        "total_token_throughput": (total_input + total_output) / dur_s,
        "max_output_tokens_per_s": max_output_tokens_per_s,
        "max_concurrent_requests": max_concurrent_requests,
    }
    series = [("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", e2els)]
    # vLLM #54136: per request queue_time (start - arrival) and latency +
    # queue_time, summarized like the others; llmlat writes them when the
    # trace has intended starts, over the successes that have one
    queued = [o for o in successes if o.queue_time is not None]
    if queued:
        series += [("client_queue_time", [o.queue_time for o in queued]),
                   ("e2el_including_client_queue", [o.latency + o.queue_time for o in queued])]
    for name, values in series:
        mean, median, std, percentiles = stats(values)
        result[f"mean_{name}_ms"] = float(mean)
        result[f"median_{name}_ms"] = float(median)
        result[f"std_{name}_ms"] = float(std)
        for p, value in percentiles:
            p_word = str(int(p)) if int(p) == p else str(p)
            result[f"p{p_word}_{name}_ms"] = float(value)
    return result


def parse_goodput(text):
    slos = {}
    for pair in text.split(","):
        name, value = pair.split(":")
        slos["e2el" if name == "e2e" else name] = float(value)
    return slos


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--percentiles", default="50,90,95,99")
    ap.add_argument("--goodput", default=None)
    ap.add_argument("--duration", type=float, default=None)
    args = ap.parse_args()

    requests, trace_duration = load_trace(args.trace)
    outputs = [o for o in map(Output, requests) if not o.rejected()]
    duration = args.duration or trace_duration or fallback_duration(outputs)
    percentiles = [float(p) for p in args.percentiles.split(",")]
    goodput = parse_goodput(args.goodput) if args.goodput else {}
    result = calculate_metrics(outputs, duration, percentiles, goodput)
    json.dump(result, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
