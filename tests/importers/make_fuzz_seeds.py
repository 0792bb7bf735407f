#!/usr/bin/env python3
"""Writes the seeds of the importers' fuzz corpus (tests/fuzz/corpus/import):
each tool's files as tools.py writes them for a few requests, behind the
byte that makes fuzz_import.c read them as that format. Run it with a
python3 that has numpy; it rewrites corpus/import/seed-*."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tools  # noqa: E402

OUT = os.path.join(HERE, "..", "fuzz", "corpus", "import")
AUTO, TRACE, VLLM, AIPERF, GENAI_PERF, SGLANG, LLMPERF = range(7)


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
        seeds = {
            "vllm": (VLLM, "vllm.json"), "sglang": (SGLANG, "sglang.jsonl"),
            "aiperf": (AIPERF, "profile_export.jsonl"),
            "aiperf-raw": (AIPERF, "profile_export_raw.jsonl"),
            "genai-perf": (GENAI_PERF, "profile_export.json"),
            "llmperf": (LLMPERF, "m_550_150_individual_responses.json"),
            "auto-vllm": (AUTO, "vllm.json"),
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
