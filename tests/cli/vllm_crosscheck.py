"""The vLLM convention against vLLM's published formulas: `llmlat report
--convention vllm --format json`'s "tool" object must equal what
scripts/vllm-reference.py (numpy, vLLM's calculate_metrics) computes on the
same trace: counts exactly, latencies within 1 ns, rates within 1e-9
relative. The references of the committed traces are in tests/cli/data/;
random traces (tools_crosscheck.py's, with intended starts: vLLM's client
queue time and queue-inclusive E2EL) are drawn here and their references
computed by Debian's /usr/bin/python3, which has numpy (scripts/setup-deps):
without it the test fails.

    python3 tests/cli/vllm_crosscheck.py              (meson: suite cli)
    python3 tests/cli/vllm_crosscheck.py --regenerate (rewrites the
        references with /usr/bin/python3 scripts/vllm-reference.py)
"""
import json
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tools_crosscheck import random_trace, write_trace  # noqa: E402

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


def reference(trace, options):
    """scripts/vllm-reference.py's output on a trace (numpy's interpreter)."""
    out = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "vllm-reference.py"),
                          trace, *options], check=True, capture_output=True, text=True).stdout
    return out


def check(llmlat, trace, options, ref, name):
    """The problems of llmlat's tool object against ref, printed; True
    when there are some."""
    p = subprocess.run([llmlat, "report", "--convention", "vllm", "--format", "json",
                        *options, trace], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"{name}: llmlat failed: {p.stderr}")
        return True
    problems = compare(ref, json.loads(p.stdout)["tool"])
    for line in problems:
        print(f"{name}: {line}")
    print(f"{name}: {len(ref)} fields compared, {len(problems)} differ")
    return bool(problems)


def main():
    if "--regenerate" in sys.argv:
        for trace, options, ref_name in CASES:
            with open(os.path.join(DATA, ref_name), "w") as f:
                f.write(reference(os.path.join(ROOT, trace), options))
        return 0
    llmlat = os.environ["LLMLAT"]
    failed = False
    for trace, options, ref_name in CASES:
        with open(os.path.join(DATA, ref_name)) as f:
            ref = json.load(f)
        failed |= check(llmlat, os.path.join(ROOT, trace), options, ref, trace)
    # random traces, most with intended starts: every client-queue figure
    queued = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(1, 9):
            path = os.path.join(tmp, f"trace-{seed}.jsonl")
            write_trace(random_trace(random.Random(seed)), path)
            options = ["--percentiles", "25,50,90,99"]
            ref = json.loads(reference(path, options))
            queued += "mean_client_queue_time_ms" in ref
            failed |= check(llmlat, path, options, ref, f"random trace {seed}")
    if queued < 4:
        print(f"only {queued} random traces had intended starts")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
