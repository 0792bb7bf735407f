#!/usr/bin/env python3
"""Speed of the Python binding (bindings/python), with same-run references.

    LLMLAT_LIBRARY=build/lib/libllmlat.so.1 /usr/bin/python3 bench/bench_python.py

Prints, for each measurement, the median of --repeat runs and its ratio to a
reference measured in the same run (timings on a shared machine are noisy;
ratios travel better than absolute numbers):

- events(): one million events handed over in ONE call, from numpy int64 /
  uint32 arrays (zero copy), from array('q') with tokens=1, and from Python
  lists (converted first). Reference: numpy copying the same 12 MB.
  Target: <= 20 ms for a million events from arrays (checked; exit 1 if not).
- event(): the per-call cost of recording one event at a time. References:
  an empty Python method with the same arguments, and a bare ctypes call
  (llmlat_now_ns) - the floor any ctypes binding pays per call.
- add_columns(): a whole benchmark, one million requests of 20 events, from
  numpy columns in ONE call, exact and bounded mode. Reference: the same
  requests through the per-request calls (Request.start/events/finish and
  Aggregator.add), timed on 20 000 of them. Target: <= 1 s for the million
  (checked; exit 1 if not).

numpy is needed for the numpy rows (Debian's python3-numpy, /usr/bin/python3);
without it they are left out.
"""

import argparse
import os
import statistics
import sys
import time
from array import array

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bindings", "python"))

import llmlat  # noqa: E402
from llmlat import _native  # noqa: E402

try:
    import numpy as np
except ImportError:  # the numpy rows are skipped
    np = None

N = 1_000_000
LIMIT_MS = 20.0


def median_ns(fn, repeat, setup=None):
    """Median wall time of fn() over `repeat` runs (setup() untimed)."""
    times = []
    for _ in range(repeat):
        arg = setup() if setup else None
        t0 = time.perf_counter_ns()
        fn(arg)
        times.append(time.perf_counter_ns() - t0)
        if isinstance(arg, llmlat.Request):
            arg.close()
    return statistics.median(times)


def started():
    r = llmlat.Request()
    r.start(0)
    return r


def bench_events(repeat):
    rows = []
    times_l = list(range(1, N + 1))
    times_a = array("q", times_l)
    ones_a = array("I", [1]) * N
    if np is not None:
        times_np = np.arange(1, N + 1, dtype=np.int64)
        ones_np = np.ones(N, dtype=np.uint32)
        ref = median_ns(lambda _: (times_np.copy(), ones_np.copy()), repeat)
        ref_name = "numpy copy of the 12 MB"
    else:
        ref = median_ns(lambda _: (array("q", times_a), array("I", ones_a)), repeat)
        ref_name = "array() copy of the 12 MB"
    rows.append(("reference: " + ref_name, ref, N))
    if np is not None:
        rows.append(("events(numpy int64, numpy uint32), new request",
                     median_ns(lambda r: r.events(times_np, ones_np), repeat, started), N))
        reused = started()
        reused.events(times_np, ones_np)

        def again(_):
            reused.reset()
            reused.start(0)
            reused.events(times_np, ones_np)
        rows.append(("events(numpy int64, numpy uint32), reused request",
                     median_ns(again, repeat), N))
        rows.append(("events(numpy int64, tokens=1)",
                     median_ns(lambda r: r.events(times_np), repeat, started), N))
        reused.close()
    rows.append(("events(array('q'), array('I'))",
                 median_ns(lambda r: r.events(times_a, ones_a), repeat, started), N))
    rows.append(("events(array('q'), tokens=1)",
                 median_ns(lambda r: r.events(times_a), repeat, started), N))
    rows.append(("events(list of int, tokens=1)  [converted]",
                 median_ns(lambda r: r.events(times_l), repeat, started), N))
    return rows


class Empty:
    def event(self, t_ns, tokens=1):
        pass


def bench_event(repeat, n=200_000):
    rows = []
    ts = range(1, n + 1)
    empty = Empty()
    now = _native.lib.llmlat_now_ns

    def py_loop(_):
        ev = empty.event
        for t in ts:
            ev(t, 1)

    def ctypes_loop(_):
        for _t in ts:
            now()

    def event_loop(r):
        ev = r.event
        for t in ts:
            ev(t, 1)

    ref = median_ns(py_loop, repeat)
    rows.append(("reference: empty Python method, same arguments", ref, n))
    rows.append(("reference: bare ctypes call (llmlat_now_ns)", median_ns(ctypes_loop, repeat), n))
    rows.append(("event(t, 1), one call per event", median_ns(event_loop, repeat, started), n))
    return rows


COLUMNS_N, COLUMNS_EVENTS, COLUMNS_LIMIT_S = 1_000_000, 20, 1.0


def benchmark_columns(n):
    """n requests every 1 ms, 20 events 10-30 ms apart after 50-150 ms,
    1 token each (2 one time in ten), as numpy columns."""
    rng = np.random.default_rng(1)
    starts = np.arange(n, dtype=np.int64) * 1_000_000
    gaps = rng.integers(10_000_000, 30_000_000, (n, COLUMNS_EVENTS), dtype=np.int64)
    gaps[:, 0] = rng.integers(50_000_000, 150_000_000, n)
    times = (starts[:, None] + np.cumsum(gaps, axis=1)).reshape(-1)
    tokens = np.where(rng.random(n * COLUMNS_EVENTS) < 0.1, 2, 1).astype(np.uint32)
    offsets = np.arange(n + 1, dtype=np.int64) * COLUMNS_EVENTS
    inputs = rng.integers(100, 2000, n)
    return starts, offsets, times, tokens, inputs


def bench_columns(repeat):
    rows = []
    ref_n = 20_000
    starts, offsets, times, tokens, inputs = benchmark_columns(ref_n)

    def per_request(_):
        agg = llmlat.Aggregator()
        r = llmlat.Request()
        for i in range(ref_n):
            r.reset()
            r.start(int(starts[i]))
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            r.events(times[lo:hi], tokens[lo:hi])
            r.set_input_tokens(int(inputs[i]))
            r.finish(int(times[hi - 1]))
            agg.add(r)
        r.close()
        agg.close()
    ref = median_ns(per_request, max(1, repeat // 5)) * COLUMNS_N / ref_n
    rows.append(("reference: per-request calls (timed on 20 000)", ref, COLUMNS_N))
    starts, offsets, times, tokens, inputs = benchmark_columns(COLUMNS_N)
    for mode in ("exact", "bounded"):
        def one_call(agg):
            agg.add_columns(starts, offsets=offsets, times=times, tokens=tokens,
                            input_tokens=inputs)
            agg.close()
        rows.append(("add_columns(numpy), %s mode" % mode,
                     median_ns(one_call, max(1, repeat // 5),
                               lambda: llmlat.Aggregator(mode=mode)), COLUMNS_N))
    return rows


def show(title, rows):
    ref = rows[0][1]
    print("\n%s" % title)
    print("  %-52s %12s %12s %8s" % ("", "median", "per event", "ratio"))
    for name, ns, n in rows:
        print("  %-52s %9.2f ms %9.1f ns %7.2fx" % (name, ns / 1e6, ns / n, ns / ref))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=15, help="runs per figure (median)")
    args = ap.parse_args()
    print("llmlat %s (%s), Python %s, numpy %s" % (
        llmlat.version(), llmlat.library_path, sys.version.split()[0],
        np.__version__ if np is not None else "absent"))
    ev = bench_events(args.repeat)
    show("1 000 000 events through events() in one call", ev)
    one = bench_event(args.repeat)
    show("one event() call per event (200 000 calls)", one)

    cols = bench_columns(args.repeat) if np is not None else None
    if cols:
        show("1 000 000 requests of 20 events, from numpy columns", cols)
        print("  (per event: the figure / 20)")

    best = min(ns for name, ns, _ in ev[1:] if "converted" not in name)
    worst = max(ns for name, ns, _ in ev[1:] if "converted" not in name)
    per_call = one[2][1] / one[2][2]
    bulk = ev[1][1] / N
    print("\nevents() from arrays: %.2f .. %.2f ms per million (limit %.0f ms): %s"
          % (best / 1e6, worst / 1e6, LIMIT_MS, "ok" if worst / 1e6 <= LIMIT_MS else "OVER"))
    print("event(): %.0f ns per call, %.0fx the per-event cost of events()"
          % (per_call, per_call / bulk))
    ok = worst / 1e6 <= LIMIT_MS
    if cols:
        slowest = max(ns for _, ns, _ in cols[1:]) / 1e9
        print("add_columns(): %.3f s for the million requests at worst (limit %.0f s), "
              "%.2f us per request against %.2f us per request through the calls: %s"
              % (slowest, COLUMNS_LIMIT_S, slowest * 1e6 / COLUMNS_N,
                 cols[0][1] / 1e3 / COLUMNS_N, "ok" if slowest <= COLUMNS_LIMIT_S else "OVER"))
        ok = ok and slowest <= COLUMNS_LIMIT_S
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
