#!/usr/bin/env python3
"""What the analysis features cost, each beside a reference measured in the
same run (never a test: timings depend on the machine and its load).

  bench/analysis_bench.py [--llmlat build/tools/llmlat] [--repeats 5]

For the bundled traces (examples/sample-trace.json, 3000 requests and 170k
tokens; examples/sample-candidate.json, 1000 requests), the median wall
time of:
  - reference: `llmlat report --format json` of both traces (reading both
    and one report each);
  - `llmlat compare` with 0 resamples (reading both, the points) and with
    1000 (the bootstrap): the bootstrap's cost is their difference;
  - `llmlat report --format html|chrome-trace|--per-request csv|--slice 60`
    of the sample trace, beside `--format json` of it.
"""
import argparse
import os
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BASE = os.path.join(ROOT, "examples", "sample-trace.json")
CAND = os.path.join(ROOT, "examples", "sample-candidate.json")


def wall(cmd, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--llmlat", default=os.path.join(ROOT, "build", "tools", "llmlat"))
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args()
    L, n = a.llmlat, a.repeats
    ref2 = wall([L, "report", "--format", "json", BASE], n) + \
        wall([L, "report", "--format", "json", CAND], n)
    c0 = wall([L, "compare", "--resamples", "0", BASE, CAND], n)
    c1000 = wall([L, "compare", "--resamples", "1000", BASE, CAND], n)
    print("%-44s %8.3f s" % ("reference: report --format json, both", ref2))
    print("%-44s %8.3f s  (%.2fx the reference)" % ("compare --resamples 0", c0, c0 / ref2))
    print("%-44s %8.3f s  (%.2fx the reference; %.2f ms a resample)" % (
        "compare --resamples 1000", c1000, c1000 / ref2, (c1000 - c0)))
    ref = wall([L, "report", "--format", "json", BASE], n)
    print("%-44s %8.3f s" % ("reference: report --format json, sample", ref))
    for name, args in (("--format html", ["--format", "html"]),
                       ("--format chrome-trace", ["--format", "chrome-trace"]),
                       ("--per-request csv", ["--per-request", "csv"]),
                       ("--slice 60", ["--slice", "60"]),
                       ("--warmup 30 --cooldown 30", ["--warmup", "30", "--cooldown", "30"])):
        t = wall([L, "report"] + args + [BASE], n)
        print("%-44s %8.3f s  (%.2fx the reference)" % ("report " + name, t, t / ref))


if __name__ == "__main__":
    main()
