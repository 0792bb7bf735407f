#!/usr/bin/env python3
"""An independent computation of GuideLLM's benchmark metrics on a trace.

It re-implements, without numpy and without llmlat, what vllm-project/guidellm
does with a benchmark's requests (read from its code):

- per request, src/guidellm/schemas/request_stats.py (GenerativeRequestStats):
  time_to_first_token_ms, time_per_output_token_ms (TTFT included),
  inter_token_latency_ms, request_latency, output_tokens_timings;
- the timings, src/guidellm/backends/openai/http.py (_resolve_streaming):
  only chunks with content are token iterations; request_end is set only
  when the stream closed normally;
- the status groups, benchmark/schemas/accumulator.py and the handlers'
  _validate_text_response (a finished stream with no content and no
  output tokens is errored; a cancelled one is incomplete);
- the statistics, src/guidellm/schemas/statistics.py (DistributionSummary
  .from_values / from_pdf / rate_distribution_from_timings, with its
  0.1 ms merging of event times), numpy's cumsum, searchsorted and argmax
  written out as plain Python on doubles;
- the fields, benchmark/schemas/metrics.py (GenerativeMetrics.compile),
  and the benchmark's start_time / end_time / duration;
- the schedule-relative fields of GuideLLM #1053: request_dispatch_delay
  = request_start - targeted_start and request_scheduled_latency =
  request_end - targeted_start per request (None without either time, and
  then left out of the distribution, not counted as 0), both None for a
  benchmark without an arrival schedule (here: no request of the trace has
  a "scheduled" time, its targeted_start).

It prints the JSON that `llmlat report --convention guidellm --format
json` writes as "tool". With --exact-sums the cumulative probabilities are
summed exactly (fractions) instead of in double as numpy.cumsum sums them:
the percentiles llmlat's bounded mode approximates (where the rounding of
the double sums moves a percentile by one rank, it takes the exact rank). Trace conventions: times are read exactly (integer
ns) and every time difference is taken in ns; N is the trace's usage count
("output_tokens"), else the sum of the events' tokens, standing for the
server's usage count that GuideLLM asks for; a failed (errored) request's N
is its number of content chunks, whatever usage count it carries: its
stream raised before its usage arrived, so GuideLLM keeps no output
metrics for it and counts its token iterations (backends/openai/http.py;
schemas/response.py, compile_stats; schemas/request_stats.py,
output_tokens). The benchmark runs from the earliest start to the latest
end (or start + the trace's "duration").

    python3 scripts/guidellm-reference.py [--exact-sums] TRACE > out.json
"""
import bisect
import fractions
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_trace import NS, read_requests  # noqa: E402

GROUPS = ("successful", "incomplete", "errored")
PERCENTILES = {"p001": 0.001, "p01": 0.01, "p05": 0.05, "p10": 0.1, "p25": 0.25, "p50": 0.5,
               "p75": 0.75, "p90": 0.9, "p95": 0.95, "p99": 0.99, "p999": 0.999}
EPSILON = 1e-6      # DistributionSummary's epsilon
THRESHOLD = 1e-4    # rate_distribution_from_timings' merging threshold, s
EXACT_SUMS = False  # cumulative probabilities as fractions (--exact-sums)


class Stats:
    """GenerativeRequestStats of one request, times in s from ns."""

    def __init__(self, q):
        content = q.content()
        self.start = q.start_ns
        self.targeted_start = q.scheduled_ns
        self.first = content[0] if content else None
        self.last = content[-1] if content else None
        self.iterations = len(content)
        self.request_end = q.end_ns if q.status == "finished" else None
        self.resolve_end = q.end_ns
        self.output_tokens = q.n or None      # usage, 0 -> None as `or None` reads it
        if q.status == "failed":
            # the stream raised before its usage arrived: no output_metrics,
            # its token iterations stand for them (request_stats.py,
            # output_tokens; response.py, compile_stats)
            self.output_tokens = len(content) or None
        self.prompt_tokens = q.input_tokens
        if q.status == "cancelled":
            self.group = "incomplete"
        elif q.status == "failed" or (not content and q.n <= 0):
            self.group = "errored"          # "empty response payload" too
        else:
            self.group = "successful"

    def request_end_time(self):
        return self.request_end if self.request_end is not None else self.resolve_end

    def request_latency(self):
        if self.request_end is None:
            return None
        return (self.request_end - self.start) / NS

    def request_dispatch_delay(self):
        if self.targeted_start is None:
            return None
        return (self.start - self.targeted_start) / NS

    def request_scheduled_latency(self):
        if self.targeted_start is None or self.request_end is None:
            return None
        return (self.request_end - self.targeted_start) / NS

    def time_to_first_token_ms(self):
        return None if self.first is None else (self.first - self.start) / 1e6

    def time_per_output_token_ms(self):
        last = self.last if self.last is not None else self.request_end_time()
        if not self.output_tokens:
            return None
        return (last - self.start) / (1e6 * self.output_tokens)

    def inter_token_latency_ms(self):
        if self.first is None or not self.output_tokens or self.output_tokens <= 1:
            return None
        return (self.last - self.first) / (1e6 * (self.output_tokens - 1))

    def output_tokens_timings(self):
        """(time in s, tokens): the first token at the first iteration and
        the others spread evenly (numpy.linspace) up to the last one."""
        n = self.output_tokens or 0.0
        if self.first is None or self.iterations <= 1:
            at = self.last if self.last is not None else self.request_end_time()
            return [(at / NS, n)]
        first = [(self.first / NS, 1.0 * bool(self.output_tokens))]
        if not self.output_tokens or self.output_tokens <= 1:
            return first
        per = (self.output_tokens - 1.0) / (self.iterations - 1.0)
        return first + [(t, per) for t in linspace(self.first / NS, self.last / NS,
                                                    self.iterations)[1:]]


def linspace(a, b, num):
    """numpy.linspace(a, b, num): a + i * step, the last exactly b."""
    step = (b - a) / (num - 1)
    ys = [a + i * step for i in range(num)]
    ys[-1] = b
    return ys


def empty_summary(count=0):
    return {"mean": 0.0, "median": 0.0, "mode": 0.0, "variance": 0.0, "std_dev": 0.0,
            "min": 0.0, "max": 0.0, "count": count, "total_sum": 0.0,
            "percentiles": dict.fromkeys(PERCENTILES, 0.0)}


def from_values(values):
    """DistributionSummary.from_values over (value, weight) pairs."""
    if not values:
        return empty_summary()
    count = round(sum(w for _, w in values))
    merged = {}
    for v, w in values:                     # numpy.unique + add.at
        merged[v] = merged.get(v, 0.0) + w
    items = sorted((v, w) for v, w in merged.items() if w > 0)
    total = sum(w for _, w in items)
    if total <= EPSILON:
        items = [(v, 1.0) for v, _ in items]
        total = float(len(items))
    if not items:
        return empty_summary(count)
    values = [v for v, _ in items]
    probs = [w / total for _, w in items]
    cdf, running = [], fractions.Fraction(0) if EXACT_SUMS else 0.0
    for (_, w), p in zip(items, probs):     # numpy.cumsum: one addend at a time
        running += fractions.Fraction(w) / fractions.Fraction(total) if EXACT_SUMS else p
        cdf.append(running)
    def reach(q):  # exact sums are compared with the decimal q
        return fractions.Fraction(repr(q)) if EXACT_SUMS else q
    percentiles = {k: values[min(bisect.bisect_left(cdf, reach(q)), len(values) - 1)]
                   for k, q in PERCENTILES.items()}
    mean = sum(v * p for v, p in zip(values, probs))
    mode = values[probs.index(max(probs))]  # numpy.argmax: the first largest
    variance = sum((v - mean) ** 2 * p for v, p in zip(values, probs))
    return {"mean": mean, "median": percentiles["p50"], "mode": mode, "variance": variance,
            "std_dev": math.sqrt(variance), "min": values[0], "max": values[-1],
            "count": count, "total_sum": mean * count, "percentiles": percentiles}


def merge_times(times, threshold):
    """_merge_sorted_times_with_weights: equal times summed, then runs of
    times within the threshold of a run's first merged into it, until none
    is left."""
    merged = {}
    for t, w in times:
        merged[t] = merged.get(t, 0.0) + w
    wt = sorted(merged.items())
    while len(wt) > 1:
        ts = [t for t, _ in wt]
        ws = [w for _, w in wt]
        within = [b - a <= threshold for a, b in zip(ts, ts[1:])]
        if not any(within):
            break
        starts = [i for i, x in enumerate(within) if x and (i == 0 or not within[i - 1])]
        ends = [bisect.bisect_right(ts, ts[s] + threshold) - 1 for s in starts]
        keep = [True] + [starts[j] > ends[j - 1] for j in range(1, len(starts))]
        starts = [s for s, k in zip(starts, keep) if k]
        ends = [e for e, k in zip(ends, keep) if k]
        cumsum = [0.0]
        for w in ws:
            cumsum.append(cumsum[-1] + w)
        removed = set()
        for s, e in zip(starts, ends):
            ws[s] = cumsum[e + 1] - cumsum[s]
            removed.update(range(s + 1, e + 1))
        wt = [(t, w) for i, (t, w) in enumerate(zip(ts, ws)) if i not in removed]
    return wt


def rate_distribution(times, start=None, end=None):
    """DistributionSummary.rate_distribution_from_timings over (time, weight)."""
    wt = list(times)
    if start is not None:
        wt = [(start, 0.0)] + [x for x in wt if x[0] >= start]
    if end is not None:
        wt = [x for x in wt if x[0] <= end] + [(end, 0.0)]
    wt = merge_times(wt, THRESHOLD)
    if len(wt) <= 1:
        return empty_summary(len(wt))
    ts = [t for t, _ in wt]
    occ = [w for _, w in wt]
    mids = [(a + b) / 2 for a, b in zip(ts, ts[1:])]
    durations = [mids[0] - ts[0]] + [b - a for a, b in zip(mids, mids[1:])] + \
                [max(ts[-1] - mids[-1], EPSILON)]
    summary = from_values([(o / d, d) for o, d in zip(occ, durations)])
    summary["count"] = round(sum(occ))
    return summary


def by_group(stats, function):
    """StatusDistributionSummary.from_values_function: each group's values
    and the total of all three."""
    values = {g: [] for g in GROUPS}
    for s in stats:
        v = function(s)
        if v is not None:
            values[s.group].extend(v if isinstance(v, list) else [v])
    out = {g: from_values([x if isinstance(x, tuple) else (x, 1.0) for x in values[g]])
           for g in GROUPS}
    total = [x if isinstance(x, tuple) else (x, 1.0) for g in GROUPS for x in values[g]]
    out["total"] = from_values(total)
    return out


def rates_by_group(stats, function, start=None, end=None):
    times = {g: [] for g in GROUPS}
    for s in stats:
        v = function(s)
        times[s.group].extend(v if isinstance(v, list) else [v])
    out = {g: rate_distribution(times[g], start, end) for g in GROUPS}
    out["total"] = rate_distribution([x for g in GROUPS for x in times[g]], start, end)
    return out


def guidellm(requests, duration=None):
    stats = [Stats(q) for q in requests]
    start = min(q.start_ns for q in requests) / NS
    end = start + duration if duration else max(q.end_ns for q in requests) / NS
    totals = {g: sum(s.group == g for s in stats) for g in GROUPS}
    totals["total"] = len(stats)
    rps = rates_by_group(stats, lambda s: (s.request_end_time() / NS, 1.0), start, end)
    tps = rates_by_group(stats, lambda s: s.output_tokens_timings())
    metrics = {
        "request_totals": totals,
        "requests_per_second": {g: {"mean": rps[g]["mean"]} for g in rps},
        "output_tokens_per_second": {g: {"mean": tps[g]["mean"]} for g in tps},
        "request_latency": by_group(stats, lambda s: s.request_latency() or 0.0),
        "prompt_token_count": by_group(stats, lambda s: float(s.prompt_tokens or 0.0)),
        "output_token_count": by_group(stats, lambda s: float(s.output_tokens or 0.0)),
        "time_to_first_token_ms": by_group(stats, lambda s: s.time_to_first_token_ms() or 0.0),
        "time_per_output_token_ms": by_group(
            stats, lambda s: (s.time_per_output_token_ms() or 0.0, float(s.output_tokens or 0.0))),
        "inter_token_latency_ms": by_group(
            stats, lambda s: (s.inter_token_latency_ms() or 0.0,
                              float(s.output_tokens or 1.0) - 1.0)),
    }
    scheduled = any(s.targeted_start is not None for s in stats)
    metrics["request_dispatch_delay"] = \
        by_group(stats, Stats.request_dispatch_delay) if scheduled else None
    metrics["request_scheduled_latency"] = \
        by_group(stats, Stats.request_scheduled_latency) if scheduled else None
    return {"benchmark": {"start_time": start, "end_time": end, "duration": end - start},
            "metrics": metrics}


def main():
    global EXACT_SUMS
    args = sys.argv[1:]
    if args[:1] == ["--exact-sums"]:
        EXACT_SUMS = True
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    requests, duration = read_requests(args[0])
    json.dump(guidellm(requests, duration), sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
