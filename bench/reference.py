#!/usr/bin/python3
"""llmlat against what users would otherwise use: same data, same run.

    LLMLAT_LIBRARY=build-bench/lib/libllmlat.so.1 \\
        /usr/bin/python3 bench/reference.py [--json] [--repeats N] [--quick]
        [--only numpy|vllm] [--llmlat build-bench/tools/llmlat]

- Exact quantiles: llmlat_agg_quantiles(ITL, P50/P90/P95/P99) on an exact
  aggregator holding 1M and 10M per-token samples, against
  numpy.percentile(x, [50, 90, 95, 99]) on the very same samples; the
  results must be the same doubles, bit for bit.
- vLLM's summary: `llmlat report --convention vllm --format json` against
  scripts/vllm-reference.py (vLLM's calculate_metrics in Python + numpy) on
  the same traces, as commands (CPU time of each process, start-up
  included), and in process (vLLM's formulas on already parsed requests
  against feeding the same requests to llmlat through its Python binding and
  asking for the JSON report). Their numbers must agree.

Each figure is the median of the repeats, the two sides alternating; the
ratio is the median of the per-repeat ratios (llmlat / reference). Times
are CPU time (thread or child processes), as llmlat-bench measures. Needs
numpy: Debian's python3-numpy (/usr/bin/python3). scripts/bench runs this
together with llmlat-bench (docs/performance.md).
"""
import argparse
import importlib.util
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import numpy as np  # noqa: E402

import llmlat  # noqa: E402

MS = 1_000_000
QS = [0.5, 0.9, 0.95, 0.99]


def row(section, rid, label, unit, values, refs, ref_label, target=None, target_text=""):
    """A row as llmlat-bench --json writes them: medians, ratio of medians
    of the per-repeat ratios."""
    ratios = [v / r for v, r in zip(values, refs)]
    return {
        "id": rid, "section": section, "label": label,
        "value": statistics.median(values), "unit": unit,
        "reference": ref_label, "ref": statistics.median(refs),
        "ratio": statistics.median(ratios),
        "min": min(values), "max": max(values),
        "target": target, "target_text": target_text,
    }


def paired(subject, reference, repeats):
    """Times of subject() and reference(), alternating which goes first,
    after one untimed run of each. Each returns its own time in ns."""
    subject()
    reference()
    values, refs = [], []
    for i in range(repeats):
        if i % 2:
            refs.append(reference())
            values.append(subject())
        else:
            values.append(subject())
            refs.append(reference())
    return values, refs


def thread_timed(fn):
    """fn's thread CPU time, ns (and its result in timed.last)."""
    def run():
        t0 = time.thread_time_ns()
        run.last = fn()
        return time.thread_time_ns() - t0
    run.last = None
    return run


# ------------------------------------------------------- exact quantiles

def gaps_ns(rng, shape):
    """Decode gaps as llmlat-bench draws them: 5..25 ms skewed low, plus a
    stall up to 20 ms one time in 16."""
    a = rng.integers(0, 20 * MS, shape)
    b = rng.integers(0, 20 * MS, shape)
    stall = np.where(rng.integers(0, 16, shape) == 0, rng.integers(0, 20 * MS, shape), 0)
    return 5 * MS + np.minimum(a, b) + stall


def exact_filled(requests, rng):
    """An exact aggregator with `requests` requests of 1001 one-token
    events, and the requests * 1000 ITL samples it holds, as numpy would
    be given them (gap / 1e9, the same division as llmlat's)."""
    gaps = gaps_ns(rng, (requests, 1000))
    agg = llmlat.Aggregator("default", "exact")
    ones = np.ones(1001, dtype=np.uint32)
    with llmlat.Request() as r:
        for i in range(requests):
            start = i * 20 * MS
            first = start + 100 * MS + int(rng.integers(0, 200 * MS))
            t = np.empty(1001, dtype=np.int64)
            t[0] = first
            np.cumsum(gaps[i], out=t[1:])
            t[1:] += first
            r.reset()
            r.start(start)
            r.events(t, ones)
            r.finish(int(t[-1]))
            agg.add(r)
    return agg, gaps.ravel() / 1e9


def same_bits(a, b):
    return all(float(x).hex() == float(y).hex() for x, y in zip(a, b))


def numpy_row(requests, rng, repeats):
    """llmlat_agg_quantiles against numpy.percentile on the same samples."""
    agg, x = exact_filled(requests, rng)
    ours = thread_timed(lambda: agg.quantiles("itl", QS))
    theirs = thread_timed(lambda: np.percentile(x, [100 * q for q in QS]))
    values, refs = paired(ours, theirs, repeats)
    identical = same_bits(ours.last, theirs.last)
    agg.close()
    r = row("against numpy and vLLM's formulas", "numpy_%dM" % (requests // 1000),
            "exact P50/90/95/99, %dM ITL samples" % (requests // 1000), "ns",
            values, refs, "numpy.percentile, same samples")
    r["samples"] = requests * 1000
    r["bit_identical"] = identical
    return numpy_verdict(r)


def numpy_verdict(r):
    """The speedup over numpy and the target (over 10M samples: >= 8x,
    bit-identical), from the row's ratio."""
    speedup = 1 / r["ratio"]
    r["speedup"] = speedup
    r["target_text"] = "%.1fx faster, %s" % (
        speedup, "bit-identical" if r["bit_identical"] else "RESULTS DIFFER")
    if r["samples"] == 10_000_000:
        r["target"] = "met" if speedup >= 8 and r["bit_identical"] else "missed"
        r["target_text"] = ">= 8x faster, bit-identical: " + r["target_text"]
    elif not r["bit_identical"]:
        r["target"] = "missed"
    return r


def bench_numpy(repeats, quick):
    rng = np.random.default_rng(20261130)
    return [numpy_row(requests, rng, repeats) for requests in ([1000] if quick else [1000, 10000])]


# ------------------------------------------------------- vLLM's formulas

def load_vllm_reference():
    spec = importlib.util.spec_from_file_location(
        "vllm_reference", os.path.join(ROOT, "scripts", "vllm-reference.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def child_timed(argv):
    """A command's CPU time (user + system of the child), ns; its stdout in
    run.last."""
    def run():
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = subprocess.run(argv, check=True, stdout=subprocess.PIPE).stdout
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        run.last = out
        return ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1e9
    run.last = None
    return run


def agreement(ours, theirs):
    """Largest relative difference over vLLM's fields (absolute below
    1e-9 ms: a time of 0), and whether every field agrees within 1e-9."""
    worst = 0.0
    for key, want in theirs.items():
        got = ours.get(key)
        if want is None or got is None:
            if want is not got:
                return math.inf, False
            continue
        diff = abs(got - want)
        if diff > 1e-9:
            worst = max(worst, diff / max(abs(want), 1e-300))
    return worst, worst <= 1e-9


def feed(outputs, duration):
    """An llmlat vLLM-convention aggregator fed from vLLM-style outputs
    (already parsed: numpy times and token counts per request), and its
    JSON report."""
    agg = llmlat.Aggregator("vllm", "exact")
    agg.set_param("duration", duration)
    with llmlat.Request() as r:
        for o in outputs:
            r.reset()
            r.start(o.start_ns)
            if len(o.np_times):
                r.events(o.np_times, o.np_tokens)
            r.set_input_tokens(o.prompt_len)
            if o.usage is not None:
                r.set_output_tokens(o.usage)
            end = o.end_ns if o.end_ns is not None else o.last_ns()
            if o.ok:
                r.finish(end)
            else:
                r.fail(end)
            agg.add(r)
    summary = agg.summary()
    agg.close()
    return summary


def bench_vllm(repeats, quick, llmlat_cmd, tmp):
    vr = load_vllm_reference()
    traces = [("examples/sample-trace.json, 3000 requests",
               os.path.join(ROOT, "examples", "sample-trace.json"))]
    if not quick:
        gen = os.path.join(os.path.dirname(llmlat_cmd), "..", "bench", "report_gen")
        path = os.path.join(tmp, "trace-5000x100.jsonl")
        with open(path, "wb") as f:
            subprocess.run([gen, "5000", "100"], check=True, stdout=f)
        traces.append(("5000 requests x 100 events", path))
    rows = []
    for i, (name, path) in enumerate(traces):
        # as commands: start-up, parsing and all
        ours = child_timed([llmlat_cmd, "report", "--convention", "vllm", "--format", "json", path])
        theirs = child_timed([sys.executable, os.path.join(ROOT, "scripts", "vllm-reference.py"), path])
        values, refs = paired(ours, theirs, max(3, repeats // 2))
        worst, agree = agreement(json.loads(ours.last)["tool"], json.loads(theirs.last))
        r = row("against numpy and vLLM's formulas", "vllm_cli_%d" % i,
                "llmlat report --convention vllm, %s" % name, "ns", values, refs,
                "scripts/vllm-reference.py")
        r["agree"], r["max_rel_diff"] = agree, worst
        rows.append(r)

        # in process: the summary only, from requests already parsed
        requests, trace_duration = vr.load_trace(path)
        outputs = []
        for req in requests:
            o = vr.Output(req)
            if o.rejected():
                continue
            o.np_times = np.array(o.times_ns, dtype=np.int64)
            o.np_tokens = np.array(o.tokens, dtype=np.uint32)
            o.ok = bool(req.get("ok", True))
            usage = req.get("output_tokens")
            o.usage = int(usage) if usage is not None else None
            outputs.append(o)
        duration = trace_duration or vr.fallback_duration(outputs)
        ours = thread_timed(lambda: feed(outputs, duration))
        theirs = thread_timed(lambda: vr.calculate_metrics(outputs, duration, [50, 90, 95, 99], {}))
        values, refs = paired(ours, theirs, repeats)
        worst, agree = agreement(ours.last["tool"], theirs.last)
        r = row("against numpy and vLLM's formulas", "vllm_inproc_%d" % i,
                "binding: feed + JSON report, %s" % name, "ns", values, refs,
                "vLLM's calculate_metrics (Python)")
        r["agree"], r["max_rel_diff"] = agree, worst
        rows.append(r)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="rows as JSON")
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="1M samples and the sample trace only")
    ap.add_argument("--llmlat", default=os.path.join(ROOT, "build-bench", "tools", "llmlat"))
    ap.add_argument("--only", choices=["numpy", "vllm"], help="one of the two comparisons")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.only != "vllm":
            rows += bench_numpy(args.repeats, args.quick)
        if args.only != "numpy":
            rows += bench_vllm(args.repeats, args.quick, args.llmlat, tmp)
    if args.json:
        json.dump({"rows": rows, "numpy": np.__version__, "python": sys.version.split()[0]},
                  sys.stdout, indent=1)
        print()
        return 0
    for r in rows:
        print("%-52s %10.3f ms  %-36s %10.3f ms  %7.3fx  %s" % (
            r["label"], r["value"] / 1e6, r["reference"], r["ref"] / 1e6, r["ratio"],
            r.get("target_text") or ("agree" if r.get("agree") else "")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
