#!/usr/bin/python3
"""The benchmark suite of docs/performance.md: llmlat-bench (the C figures)
and bench/reference.py (numpy, vLLM's formulas), one table, the targets.

    scripts/bench [--json | --markdown] [--repeats N] [--quick]
                  [--plot docs/perf-fold.svg] [--no-python] [--from SAVED.json]

scripts/bench builds build-bench (release, -Dbench=true) and runs this with
Debian's /usr/bin/python3 (numpy). Every figure is printed beside a
reference measured in the same run, with their ratio (figure / reference);
see docs/performance.md for what each one means.
"""
import argparse
import datetime
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The targets of issue 8, and the rows that decide them.
TARGETS = [
    ("token event <= 2 ns", ["event"]),
    ("bounded fold <= 1.5 ns/token + 30 ns/request",
     ["fold_bounded_token", "fold_bounded_request", "fold_bounded_4096"]),
    ("exact P50/P90/P95/P99 over 10M >= 8x numpy, bit-identical", ["numpy_10M"]),
    ("bounded query <= 200 ns", ["query_bounded_itl", "query_bounded_ttft"]),
    ("merge <= 200 ns per metric", ["merge_bounded"]),
    ("bounded memory <= 16 KiB per metric (alpha 1%, 1 us..1 h)", ["memory_bounded_metric"]),
    # issue 18
    ("finish <= 0.5 ns per token", ["finish"]),
]


def load_average():
    try:
        with open("/proc/loadavg") as f:
            return [float(x) for x in f.read().split()[:3]]
    except OSError:
        return [math.nan] * 3


def machine():
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    cc = subprocess.run(["cc", "--version"], stdout=subprocess.PIPE, text=True,
                        check=False).stdout.splitlines()
    return {"cpu": cpu, "cpus": os.cpu_count(), "kernel": platform.release(),
            "compiler": cc[0] if cc else "unknown", "python": platform.python_version()}


def fmt(v, unit):
    """As llmlat-bench prints values."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    if unit == "ns":
        if v >= 1e6:
            return "%.2f ms" % (v / 1e6)
        if v >= 1e4:
            return "%.1f us" % (v / 1e3)
        return "%.2f ns" % v if v < 10 else "%.1f ns" % v
    if unit == "B":
        if v >= 1 << 20:
            return "%.1f MiB" % (v / (1 << 20))
        if v >= 1024:
            return "%.1f KiB" % (v / 1024)
        return "%.0f B" % v
    return "%.2f %s" % (v, unit)


def fmt_ratio(r):
    if r is None or math.isnan(r):
        return ""
    return "%.2gx" % r if r < 0.01 else "%.2fx" % r


def note(r):
    if r.get("target"):
        return ("met: " if r["target"] == "met" else "MISSED: ") + r["target_text"]
    if r.get("target_text"):
        return r["target_text"]
    if "agree" in r:
        return "same numbers" if r["agree"] else "NUMBERS DIFFER (%.3g)" % r["max_rel_diff"]
    return ""


def fold_points(result):
    """(tokens, exact ns/request, per token, bounded ns/request, per token,
    floor ns/request) for each length of the sweep."""
    for p in result["fold"]:
        n = p["tokens"]
        yield (n, p["exact_ns_per_request"], p["exact_ns_per_request"] / n,
               p["bounded_ns_per_request"], p["bounded_ns_per_request"] / n,
               p["floor_ns_per_request"])


def print_table(result):
    m = result["machine"]
    print("llmlat %s benchmark (%s, %d cpus): medians of %d batches in each of %d runs, "
          "CPU time; load %.2f -> %.2f"
          % (result["llmlat"], m["cpu"], m["cpus"], result["repeats"], result.get("runs", 1),
             result["load_before"][0], result["load_after"][0]))
    section = None
    for r in result["rows"]:
        if r["section"] != section:
            section = r["section"]
            print("\n%-46s %11s  %-38s %11s %9s  %s" % (section, "value", "reference", "ref",
                                                       "ratio", "target / check"))
        print("  %-44s %11s  %-38s %11s %9s  %s" % (
            r["label"][:44], fmt(r["value"], r["unit"]), (r["reference"] or "-")[:38],
            fmt(r["ref"], r["unit"]), fmt_ratio(r["ratio"]), note(r)))
    if result["fold"]:
        print("\nfold sweep: ns per request (per token); floor = one read pass over the events")
        print("  %7s %20s %20s %12s" % ("tokens", "exact", "bounded", "floor"))
        for p in fold_points(result):
            print("  %7d %11.1f (%6.2f) %11.1f (%6.2f) %12.1f" % p)
    print("\ntargets")
    for t in result["targets"]:
        print("  %-62s %s" % (t["target"], t["status"].upper() if t["status"] != "met"
                              else "met"))
        for line in t["figures"]:
            print("      " + line)


def print_markdown(result):
    print("| figure | value | reference (same run) | ref | ratio | target / check |")
    print("|---|---:|---|---:|---:|---|")
    for r in result["rows"]:
        print("| %s | %s | %s | %s | %s | %s |" % (
            r["label"], fmt(r["value"], r["unit"]), r["reference"] or "-",
            fmt(r["ref"], r["unit"]), fmt_ratio(r["ratio"]), note(r)))
    if result["fold"]:
        print("\n| tokens | exact ns/request | exact ns/token | bounded ns/request "
              "| bounded ns/token | floor ns/request |")
        print("|---:|---:|---:|---:|---:|---:|")
        for p in fold_points(result):
            print("| %d | %.1f | %.2f | %.1f | %.2f | %.1f |" % p)


def targets(rows):
    by_id = {r["id"]: r for r in rows}
    out = []
    for name, ids in TARGETS:
        present = [by_id[i] for i in ids if i in by_id]
        if not present:
            status = "not measured"
        elif all(r.get("target") == "met" for r in present):
            status = "met"
        else:
            status = "missed"
        figures = ["%s: %s (%s)" % (r["label"], fmt(r["value"], r["unit"]), r["target_text"])
                   for r in present]
        out.append({"target": name, "status": status, "figures": figures})
    return out


def combine_rows(runs):
    """The rows of several runs (each a list, in the same order) as one
    list: per figure, the median over the runs of the value, the reference
    and the ratio (a process sometimes lands on a slower share of this
    machine for its whole life: the ratios move little, the nanoseconds
    do)."""
    med = statistics.median
    rows = [dict(r) for r in runs[0]]
    for i, r in enumerate(rows):
        same = [run[i] for run in runs]
        for key in ("value", "ref", "ratio"):
            vals = [x[key] for x in same if x[key] is not None]
            r[key] = med(vals) if vals else None
        r["min"] = min(x["min"] for x in same)
        r["max"] = max(x["max"] for x in same)
        r["runs"] = [x["value"] for x in same]
        if r["target"] is not None:
            met = [x["target"] == "met" for x in same]
            r["target"] = "met" if sum(met) * 2 > len(met) else "missed"
            if len(same) > 1:
                r["target_text"] += " (met in %d of %d runs)" % (sum(met), len(met))
    return rows


def combine(runs):
    """Several llmlat-bench runs as one (combine_rows, and the fold sweep's
    medians)."""
    med = statistics.median
    first = runs[0]
    first["rows"] = combine_rows([run["rows"] for run in runs])
    for i, p in enumerate(first["fold"]):
        for key in p:
            if key != "tokens":
                p[key] = med([run["fold"][i][key] for run in runs])
    first["runs"] = len(runs)
    return first


def plot(fold, path):
    """ns per token against request length, exact and bounded (gnuplot)."""
    with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as f:
        for p in fold:
            n = p["tokens"]
            f.write("%d %.6g %.6g %.6g\n" % (n, p["exact_ns_per_request"] / n,
                                             p["bounded_ns_per_request"] / n,
                                             p["floor_ns_per_request"] / n))
        data = f.name
    try:
        subprocess.run(["gnuplot", "-e", "data='%s'; out='%s'" % (data, path),
                        os.path.join(HERE, "perf-fold.gp")], check=True)
    finally:
        os.unlink(data)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    out = ap.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="everything as one JSON object")
    out.add_argument("--markdown", action="store_true", help="the table for docs/performance.md")
    ap.add_argument("--repeats", type=int, default=11,
                    help="batches per figure in one run of llmlat-bench (median)")
    ap.add_argument("--runs", type=int, default=3,
                    help="runs of llmlat-bench and of the numpy comparison, each a new "
                    "process (median of their medians; made odd, so that a target met "
                    "in most runs is met by the median)")
    ap.add_argument("--quick", action="store_true", help="smaller sizes: a smoke run")
    ap.add_argument("--build", default=os.path.join(ROOT, "build-bench"))
    ap.add_argument("--plot", metavar="SVG", help="write the fold plot (gnuplot)")
    ap.add_argument("--no-python", action="store_true", help="the C figures only")
    ap.add_argument("--from", dest="saved", metavar="JSON",
                    help="print a saved --json result instead of measuring")
    args = ap.parse_args()
    args.runs = max(1, args.runs) | 1

    if args.saved:
        with open(args.saved) as f:
            result = json.load(f)
        if args.plot and result["fold"]:
            plot(result["fold"], args.plot)
        print_markdown(result) if args.markdown else print_table(result)
        return 0

    load_before = load_average()
    bench = [os.path.join(args.build, "bench", "llmlat-bench"), "--json",
             "--repeats", str(args.repeats)] + (["--quick"] if args.quick else [])
    runs = [json.loads(subprocess.run(bench, check=True, stdout=subprocess.PIPE).stdout)
            for _ in range(args.runs)]
    c = combine(runs)
    rows = c["rows"]
    extra = {}
    if not args.no_python:
        os.environ["LLMLAT_LIBRARY"] = os.path.join(args.build, "lib", "libllmlat.so.1")
        try:
            sys.path.insert(0, HERE)
            import reference  # noqa: E402 (needs numpy and the library above)
        except ImportError as exc:
            print("bench: no Python references (%s); run with Debian's /usr/bin/python3"
                  % exc, file=sys.stderr)
        else:
            # numpy: a process per run, as llmlat-bench; vLLM's formulas: once
            numpy = [sys.executable, os.path.join(HERE, "reference.py"), "--json", "--only",
                     "numpy", "--repeats", str(args.repeats)] + (
                         ["--quick"] if args.quick else [])
            runs = [json.loads(subprocess.run(numpy, check=True, stdout=subprocess.PIPE)
                               .stdout)["rows"] for _ in range(args.runs)]
            identical = [all(run[i]["bit_identical"] for run in runs)
                         for i in range(len(runs[0]))]
            for i, r in enumerate(combine_rows(runs)):
                r["bit_identical"] = identical[i]
                rows.append(reference.numpy_verdict(r))
            with tempfile.TemporaryDirectory() as tmp:
                rows += reference.bench_vllm(args.repeats, args.quick,
                                             os.path.join(args.build, "tools", "llmlat"), tmp)
            extra = {"numpy": reference.np.__version__}
    result = {
        "schema": 1,
        "llmlat": c["llmlat"],
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load_before": load_before,
        "load_after": load_average(),
        "repeats": args.repeats,
        "runs": c["runs"],
        "quick": args.quick,
        "clock": c["clock"],
        "command": "scripts/bench " + " ".join(sys.argv[1:]),
        "rows": rows,
        "fold": c["fold"],
        "targets": targets(rows),
        **extra,
    }
    if args.plot and result["fold"]:
        plot(result["fold"], args.plot)
    if args.json:
        json.dump(result, sys.stdout, indent=1)
        print()
    elif args.markdown:
        print_markdown(result)
    else:
        print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
