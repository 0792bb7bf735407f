"""The vLLM convention against vLLM's published formulas: `llmlat report
--convention vllm --format json`'s "tool" object must equal what
scripts/vllm-reference.py (numpy, vLLM's calculate_metrics) computed on the
same trace, committed in tests/cli/data/ so that this test needs no numpy:
counts exactly, latencies within 1 ns, rates within 1e-9 relative.

    python3 tests/cli/vllm_crosscheck.py              (meson: suite cli)
    python3 tests/cli/vllm_crosscheck.py --regenerate (rewrites the
        references with /usr/bin/python3 scripts/vllm-reference.py)
"""
import json
import os
import subprocess
import sys

ROOT = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(ROOT, "tests", "cli", "data")

# (trace, options shared by both programs, committed reference)
CASES = [
    ("examples/sample-trace.json",
     ["--percentiles", "50,90,95,99,99.9", "--goodput", "ttft:500,tpot:40,e2el:8000"],
     "vllm-reference-sample.json"),
    # JSON Lines without a duration: llmlat's derived duration
    ("examples/tiny-trace.jsonl", ["--percentiles", "25,50,75,99"],
     "vllm-reference-tiny.json"),
]
COUNTS = {"completed", "failed", "total_input_tokens", "total_output_tokens",
          "max_concurrent_requests"}
RATES = {"request_throughput", "request_goodput", "output_throughput",
         "total_token_throughput", "max_output_tokens_per_s"}


def compare(ref, got):
    """The differences, as text; empty when within the contract."""
    problems = []
    if set(ref) != set(got):
        problems.append(f"keys differ: {sorted(set(ref) ^ set(got))}")
    for key in sorted(set(ref) & set(got)):
        a, b = ref[key], got[key]
        if a is None or b is None:
            ok = a is None and b is None
        elif key in COUNTS:
            ok = a == b
        elif key in RATES:
            ok = abs(a - b) <= 1e-9 * abs(a)
        elif key == "duration":
            ok = abs(a - b) <= 1e-9  # seconds: 1 ns
        elif key.endswith("_ms"):
            ok = abs(a - b) <= 1e-6  # milliseconds: 1 ns
        else:
            ok = False
            problems.append(f"{key}: no rule to compare it")
        if not ok:
            problems.append(f"{key}: vLLM formulas {a!r}, llmlat {b!r}")
    return problems


def main():
    if "--regenerate" in sys.argv:
        for trace, options, reference in CASES:
            out = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "vllm-reference.py"),
                                  os.path.join(ROOT, trace), *options],
                                 check=True, capture_output=True, text=True).stdout
            with open(os.path.join(DATA, reference), "w") as f:
                f.write(out)
        return 0
    llmlat = os.environ["LLMLAT"]
    failed = False
    for trace, options, reference in CASES:
        p = subprocess.run([llmlat, "report", "--convention", "vllm", "--format", "json",
                            *options, os.path.join(ROOT, trace)], capture_output=True, text=True)
        if p.returncode != 0:
            print(f"{trace}: llmlat failed: {p.stderr}")
            failed = True
            continue
        with open(os.path.join(DATA, reference)) as f:
            ref = json.load(f)
        problems = compare(ref, json.loads(p.stdout)["tool"])
        for line in problems:
            print(f"{trace}: {line}")
        failed |= bool(problems)
        print(f"{trace}: {len(ref)} fields compared, {len(problems)} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
