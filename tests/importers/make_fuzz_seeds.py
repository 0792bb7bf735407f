#!/usr/bin/env python3
"""Writes the seeds of the importers' fuzz corpus (tests/fuzz/corpus/import):
each tool's files as tools.py writes them for a few requests, behind the
byte that makes fuzz_import.c read them as that format. Run it with a
python3 that has numpy; it rewrites corpus/import/seed-*."""
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tools  # noqa: E402

OUT = os.path.join(HERE, "..", "fuzz", "corpus", "import")
AUTO, TRACE, VLLM, AIPERF, GENAI_PERF, SGLANG, LLMPERF, GUIDELLM, INFERENCE_PERF = range(9)


def aiperf_before_october_2025(text):
    """The records as AIPerf wrote them before 9 October 2025: timestamp_ns
    and credit_phase, the tag "ttft", no request_end_ns."""
    out = []
    for line in text.splitlines():
        r = json.loads(line)
        m = r["metadata"]
        r["metadata"] = {"x_request_id": m["x_request_id"], "timestamp_ns": m["request_start_ns"],
                         "worker_id": m["worker_id"], "record_processor_id": "rp",
                         "credit_phase": m["benchmark_phase"]}
        if "time_to_first_token" in r["metrics"]:
            r["metrics"]["ttft"] = r["metrics"].pop("time_to_first_token")
        out.append(json.dumps(r))
    return "\n".join(out) + "\n"


def main():
    streams = tools.make_streams(9, 4)
    with tempfile.TemporaryDirectory() as tmp:
        def path(name):
            return os.path.join(tmp, name)
        tools.write_vllm(path("vllm.json"), [streams[:2], streams])
        tools.write_sglang(path("sglang.jsonl"), [streams])
        tools.write_aiperf(tmp, streams)
        tools.write_genai_perf(tmp, [tools.make_streams(9, 3, failures=False)])
        tools.write_llmperf(tmp, streams)
        tools.write_guidellm(path("benchmarks.json"), [streams[:2], streams])
        with open(path("benchmarks.json")) as f:
            report = json.load(f)
        for bench in report["benchmarks"]:  # under libFuzzer's 8 KiB: the counts only
            bench["metrics"] = {"request_totals": bench["metrics"]["request_totals"]}
        with open(path("benchmarks.json"), "w") as f:
            json.dump(report, f, separators=(",", ":"))
        tools.write_inference_perf(path("per_request.json"), streams)
        tools.write_inference_perf_old(path("per_request_old.json"), streams)
        with open(path("profile_export.jsonl")) as f:
            old = aiperf_before_october_2025(f.read())
        with open(path("profile_export_old.jsonl"), "w") as f:
            f.write(old)
        seeds = {
            "vllm": (VLLM, "vllm.json"), "sglang": (SGLANG, "sglang.jsonl"),
            "aiperf": (AIPERF, "profile_export.jsonl"),
            "aiperf-raw": (AIPERF, "profile_export_raw.jsonl"),
            "genai-perf": (GENAI_PERF, "profile_export.json"),
            "llmperf": (LLMPERF, "m_550_150_individual_responses.json"),
            "auto-vllm": (AUTO, "vllm.json"),
            "guidellm": (GUIDELLM, "benchmarks.json"),
            "auto-guidellm": (AUTO, "benchmarks.json"),
            "inference-perf": (INFERENCE_PERF, "per_request.json"),
            "inference-perf-old": (INFERENCE_PERF, "per_request_old.json"),
            "aiperf-old": (AIPERF, "profile_export_old.jsonl"),
        }
        os.makedirs(OUT, exist_ok=True)
        for name, (selector, source) in seeds.items():
            with open(path(source), "rb") as f:
                data = f.read()
            with open(os.path.join(OUT, "seed-" + name), "wb") as f:
                f.write(bytes([selector]) + data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
