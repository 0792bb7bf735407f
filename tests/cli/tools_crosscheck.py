"""The GuideLLM and inference-perf conventions against their tools' own
formulas (their schedule-relative figures included): on random traces, `llmlat report --convention guidellm|
inference-perf --format json`'s "tool" object must equal what
scripts/guidellm-reference.py and scripts/inference-perf-reference.py
(plain Python, no numpy, no llmlat) compute from the same trace: counts
exactly, every latency within 1 ns, every other number within 1e-9
relative; in bounded mode, a number that is a quantile (a percentile, a
median) within the relative error alpha, GuideLLM's mode absent (null),
and GuideLLM's percentiles those of exact sums of its probabilities (where
numpy's rounded cumsum moves a percentile by one rank, bounded mode keeps
the exact rank: docs/metrics.md).

The references follow DESIGN section 9 as corrected on 7 December: a
GuideLLM errored request's N is its number of content chunks, whatever
usage count it carries; inference-perf's N is the sum of k unless the
server's usage count is asked for (--output-tokens server, tested too).

GuideLLM merges event times closer than 0.1 ms before it takes a rate; a
rate whose last time is moved so (docs/metrics.md) differs from llmlat's by
up to 0.1 ms of its span. Traces are drawn until no rate is affected: the
reference computed with and without that merging agrees.

    python3 tests/cli/tools_crosscheck.py          (meson: suite cli)
"""
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
LLMLAT = os.environ.get("LLMLAT", os.path.join(ROOT, "build", "tools", "llmlat"))
ALPHA = 0.01
SEEDS = range(1, 9)


def load(name):
    path = os.path.join(ROOT, "scripts", name + "-reference.py")
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GUIDELLM = load("guidellm")
INFERENCE_PERF = load("inference-perf")


def random_trace(rng):
    """Requests of every kind: multi-token and empty chunks, zero gaps, one
    token, no content, usage counts, failures and cancellations; intended
    starts for none, all or some of them, sent on time or late."""
    requests = []
    scheduled = rng.choice([0.0, 1.0, 1.0, 0.7])  # the share with one
    for i in range(rng.randint(20, 70)):
        start = rng.randint(0, 4 * 10**9)
        t = start + rng.randint(20 * 10**6, 400 * 10**6)
        events = []
        for _ in range(rng.choice([0, 1, 1, 2, rng.randint(3, 40), rng.randint(3, 40)])):
            k = rng.choice([1, 1, 1, 1, 2, 3, 0, rng.randint(4, 9)])
            events.append([t, k])
            t += rng.choice([0, rng.randint(10**6, 60 * 10**6), rng.randint(10**6, 60 * 10**6)])
        end = t + rng.randint(0, 5 * 10**6)
        r = {"id": i, "start": start, "events": events, "end": end,
             "input_tokens": rng.randint(0, 3000)}
        status = rng.random()
        if status < 0.1:
            r["ok"] = False
        elif status < 0.2:
            r["cancelled"] = True
        if rng.random() < 0.15:  # a usage count, sometimes not the sum of k
            r["output_tokens"] = sum(k for _, k in events) + rng.choice([0, 0, 1, 5])
        if rng.random() < scheduled:
            r["scheduled"] = start - rng.choice([0, rng.randint(1, 10**6),
                                                 rng.randint(10**6, 900 * 10**6)])
        requests.append(r)
    return requests


def write_trace(requests, path):
    """Times in seconds with nine decimals: exact ns."""
    def s(ns):
        return "%d.%09d" % divmod(ns, 10**9)
    with open(path, "w") as f:
        for r in requests:
            q = dict(r, start=None, end=None, events=None, scheduled=None)
            text = json.dumps({k: v for k, v in q.items() if v is not None})
            events = ", ".join("[%s, %d]" % (s(t), k) for t, k in r["events"])
            scheduled = ', "scheduled": %s' % s(r["scheduled"]) if "scheduled" in r else ""
            f.write(text[:-1] + ', "start": %s%s, "end": %s, "events": [%s]}\n'
                    % (s(r["start"]), scheduled, s(r["end"]), events))


def llmlat_tool(trace, convention, mode, *args):
    out = subprocess.run([LLMLAT, "report", "--convention", convention, "--mode", mode,
                          "--format", "json", *args, trace], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout)["tool"]


def is_quantile(path):
    last = path[-1]
    return path[-2:-1] == ("percentiles",) or last == "median" or \
        (last.startswith("p") and last[1:].replace(".", "").isdigit())


def compare(ref, got, path, bounded, problems):
    if isinstance(ref, dict):
        if not isinstance(got, dict) or set(ref) != set(got):
            problems.append("%s: keys %s, llmlat %s" % (".".join(path), sorted(ref),
                                                        sorted(got) if isinstance(got, dict)
                                                        else got))
            return
        for k in ref:
            if bounded and k == "mode" and ref.get("count"):
                if got[k] is not None:  # a sketch keeps no values
                    problems.append("%s.mode: %r in bounded mode" % (".".join(path), got[k]))
                continue
            compare(ref[k], got[k], path + (k,), bounded, problems)
        return
    name = ".".join(path)
    if ref is None or got is None:
        ok = ref is None and got is None
    elif isinstance(ref, int) and not isinstance(ref, bool) and path[-1] in ("count",) + \
            tuple(GUIDELLM.GROUPS) + ("total",):
        ok = ref == got
    elif bounded and is_quantile(path):
        ok = abs(got - ref) <= ALPHA * abs(ref) * (1 + 1e-9) + 1e-12
    elif bounded and path[-1] in ("variance", "std_dev"):
        # from exact sums but for their squares' cut: 1e-9, or 1 ns of std
        unit = 1e-6 if any(p.endswith("_ms") for p in path) else 1e-9
        sd_ref, sd_got = (ref, got) if path[-1] == "std_dev" else (ref ** 0.5, got ** 0.5)
        ok = abs(sd_got - sd_ref) <= 1e-9 * abs(sd_ref) + unit
    else:  # 1e-9 relative, and never looser than 1 ns for seconds
        ok = abs(got - ref) <= 1e-9 * max(1.0, abs(ref))
    if not ok:
        problems.append("%s: %s %r, llmlat %r" % (name, "tool", ref, got))


def no_tail_merges(requests):
    """GuideLLM's rates are the same with and without its 0.1 ms merging."""
    merged = GUIDELLM.guidellm(requests)["metrics"]
    saved = GUIDELLM.THRESHOLD
    GUIDELLM.THRESHOLD = 0.0
    try:
        plain = GUIDELLM.guidellm(requests)["metrics"]
    finally:
        GUIDELLM.THRESHOLD = saved
    return all(merged[f] == plain[f] for f in ("requests_per_second", "output_tokens_per_second"))


class ToolsCrossCheck(unittest.TestCase):
    def check(self, convention, module, function, mode, *args):
        with tempfile.TemporaryDirectory() as tmp:
            for seed in SEEDS:
                rng = random.Random(seed)
                trace = os.path.join(tmp, "trace-%d.jsonl" % seed)
                while True:
                    write_trace(random_trace(rng), trace)
                    requests, _ = module.read_requests(trace)
                    if convention != "guidellm" or no_tail_merges(requests):
                        break
                ref = function(requests)
                got = llmlat_tool(trace, convention, mode, *args)
                problems = []
                compare(ref, got, (), mode == "bounded", problems)
                with self.subTest(seed=seed, mode=mode):
                    self.assertFalse(problems, "\n".join(problems[:20]))

    def test_guidellm_exact(self):
        self.check("guidellm", GUIDELLM, GUIDELLM.guidellm, "exact")

    def test_guidellm_bounded(self):
        """Bounded mode takes the rank that exact sums of the probabilities
        reach (the reference's --exact-sums)."""
        GUIDELLM.EXACT_SUMS = True
        try:
            self.check("guidellm", GUIDELLM, GUIDELLM.guidellm, "bounded")
        finally:
            GUIDELLM.EXACT_SUMS = False

    def test_inference_perf_exact(self):
        self.check("inference-perf", INFERENCE_PERF, INFERENCE_PERF.inference_perf, "exact")

    def test_inference_perf_bounded(self):
        self.check("inference-perf", INFERENCE_PERF, INFERENCE_PERF.inference_perf, "bounded")

    def test_inference_perf_server_output_tokens(self):
        """use_server_output_tokens: N is the usage count where a request
        has one (--output-tokens server)."""
        for mode in ("exact", "bounded"):
            self.check("inference-perf", INFERENCE_PERF,
                       lambda requests: INFERENCE_PERF.inference_perf(requests, server=True),
                       mode, "--output-tokens", "server")

    def test_corrections_are_exercised(self):
        """The traces hold what DESIGN section 9's corrections of 7 December
        are about: failed requests whose usage count is not their number of
        content chunks (GuideLLM's errored N), and usage counts that are not
        the sum of k (inference-perf's N), so that the references, which
        follow the corrections, would catch llmlat not following them."""
        errored = usage = 0
        for seed in SEEDS:
            for q in random_trace(random.Random(seed)):
                content = sum(1 for _, k in q["events"] if k > 0)
                total = sum(k for _, k in q["events"])
                if "output_tokens" in q and q["output_tokens"] != total:
                    usage += 1
                if q.get("ok") is False and q.get("output_tokens", total) != content:
                    errored += 1
        self.assertGreater(usage, 10)
        self.assertGreater(errored, 3)


if __name__ == "__main__":
    unittest.main(verbosity=1)
