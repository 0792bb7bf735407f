"""Round trips through every importer (docs/importers.md), as a user runs
them: result files written the way each tool writes them for known
streams (tools.py, citing the tools' code) are read by `llmlat report
--input TOOL`:

- under the tool's own convention, llmlat's `tool` object gives back the
  tool's own summary fields within 1 ns (times) / 1e-9 relative (rates),
  counts exactly; the fields the file cannot support are null, with
  their reason under "unavailable", and are the ones listed here;
- under every other convention, each value llmlat gives equals what it
  computes from the equivalent trace (what the file holds, as an llmlat
  trace), and the rest is null with a reason: nothing is invented;
- the format is detected without --input; a file's runs are chosen with
  --run;
- malformed and truncated files of each format: one error line, exit
  status 2, nothing on stdout.

Run by meson (suite cli) with LLMLAT (the command) and SOURCE_ROOT in the
environment, with Debian's /usr/bin/python3 (numpy: the tools' formulas).
"""

import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tools  # noqa: E402

LLMLAT = os.environ["LLMLAT"]
CONVENTIONS = ["default", "vllm", "aiperf", "sglang", "llmperf", "guidellm", "inference-perf"]
ERROR_LINE = re.compile(r"^[^:]+:\d+:\d+: .+$")


def run(*args, stdin=None):
    return subprocess.run([LLMLAT, *args], input=stdin, capture_output=True, text=True)


def report(path, *args):
    p = run("report", "--format", "json", *args, path)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def flat(value, path="", unit=None, out=None):
    """{"a.b.c": number or None}, each with the unit its object names."""
    out = {} if out is None else out
    if isinstance(value, dict):
        unit = value.get("unit", unit)
        for k, v in value.items():
            if k != "unit":
                flat(v, path + "." + k if path else k, unit, out)
    elif isinstance(value, (int, float)) or value is None:
        if not isinstance(value, bool):
            out[path] = (value, unit)
    return out


def close(path, unit, a, b):
    """Within the contract: counts exactly, a time within 1 ns (in its
    unit), anything else within 1e-9 relative."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, int) and isinstance(b, int):
        return a == b
    diff = abs(a - b)
    if diff <= 1e-9 * max(abs(a), abs(b)):
        return True
    ms = unit == "ms" or path.endswith("_ms")
    seconds = unit in ("s", "sec") or path.endswith("_s") or path.startswith("metrics.") \
        or path in ("duration", "duration_s")
    return diff <= (1e-6 if ms else 1e-9 if seconds else 0.0)


class RoundTrip(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="llmlat-importers-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def own_fields(self, got, want, unavailable_ok, what):
        """The tool's summary fields, from llmlat's `tool` object."""
        tool, reasons = flat(got["tool"]), got.get("unavailable", {})
        compared = 0
        for key, (value, unit) in flat(want).items():
            if key not in tool:
                continue
            mine = tool[key][0]
            if mine is None and value is not None:
                self.assertIn(key.split(".")[0], unavailable_ok,
                              "%s: %s is null, not a field the file cannot support" % (what, key))
                self.assertTrue(reasons, "%s: %s null without a reason" % (what, key))
                continue
            compared += 1
            self.assertTrue(close(key, unit, value, mine),
                            "%s: %s: the tool %r, llmlat %r" % (what, key, value, mine))
        self.assertGreater(compared, 5, what)
        return compared

    def other_conventions(self, path, trace, input_, args=(), chunk_tokens=False):
        """Under every convention: llmlat on the file equals llmlat on the
        equivalent trace wherever it gives a value; a null has a reason."""
        trace_path = self.path("equivalent.json")
        for conv in CONVENTIONS:
            equivalent = tools.client_tokens(trace) \
                if conv == "inference-perf" and not chunk_tokens else trace
            if equivalent is None:
                continue  # a file whose chunks outnumber its tokens: no trace says that
            with open(trace_path, "w") as f:
                f.write(tools.trace_text(equivalent))
            got = report(path, "--input", input_, "--convention", conv, *args)
            want = report(trace_path, "--convention", conv, *args)
            self.assertEqual(got["input"]["format"], input_)
            reasons = got.get("unavailable", {})
            values = 0
            wanted = flat(want)  # keys such as "p0.1" hold dots: flat, not split
            for key, (value, unit) in flat(got).items():
                if key.startswith("input.") or key in ("requests_read", "rejected_requests"):
                    continue
                if value is None:
                    if wanted.get(key, (None,))[0] is not None:
                        self.assertTrue(reasons, "%s under %s: %s is null without a reason"
                                        % (input_, conv, key))
                    continue
                values += 1
                self.assertTrue(close(key, unit, wanted.get(key, (None,))[0], value),
                                "%s under %s: %s from the file %r, from the trace %r"
                                % (input_, conv, key, value, wanted.get(key, (None,))[0]))
            self.assertGreater(values, 3, "%s under %s" % (input_, conv))

    def test_vllm(self):
        runs = [tools.make_streams(11, 20), tools.make_streams(1, 60)]
        path = self.path("vllm.json")
        slos = {"ttft": 120.5, "tpot": 15.25}
        results = tools.write_vllm(path, runs, goodput=slos)
        args = ["--percentiles", "50,90,99", "--goodput", "ttft:120.5,tpot:15.25"]
        got = report(path, "--input", "vllm", "--convention", "vllm", *args)
        self.assertEqual(got["input"], {"format": "vllm", "run": 2, "runs": 2})
        self.own_fields(got, results[-1][0], set(), "vllm")
        first = report(path, "--input", "vllm", "--run", "1", "--convention", "vllm", *args)
        self.own_fields(first, results[0][0], set(), "vllm run 1")
        self.assertEqual(report(path, "--convention", "vllm", *args), got)  # detected
        self.other_conventions(path, results[-1][1], "vllm", args)

    def test_vllm_without_start_times(self):
        path = self.path("old.json")
        ((summary, trace),) = tools.write_vllm(path, [tools.make_streams(2, 40)],
                                                start_times=False)
        got = report(path, "--convention", "vllm", "--percentiles", "50,90,99")
        self.own_fields(got, summary, set(), "vllm without start_times")
        self.assertIn("max_concurrent_requests", got["unavailable"])
        self.assertIsNone(got["tool"]["max_concurrent_requests"])
        self.other_conventions(path, trace, "vllm")

    def test_sglang(self):
        runs = [tools.make_streams(21, 15), tools.make_streams(3, 50)]
        path = self.path("sglang.jsonl")
        results = tools.write_sglang(path, runs)
        got = report(path, "--input", "sglang", "--convention", "sglang")
        self.assertEqual(got["input"], {"format": "sglang", "run": 2, "runs": 2})
        # the file has no per-request latency (the end of the stream)
        cannot = {"mean_e2e_latency_ms", "median_e2e_latency_ms", "std_e2e_latency_ms",
                  "p99_e2e_latency_ms", "mean_tpot_ms", "median_tpot_ms", "std_tpot_ms",
                  "p99_tpot_ms", "concurrency"}
        self.own_fields(got, results[-1][0], cannot, "sglang")
        self.assertRegex(got["unavailable"]["e2e"], "end-of-stream")
        first = report(path, "--run", "1", "--convention", "sglang")
        self.own_fields(first, results[0][0], cannot, "sglang run 1")
        self.other_conventions(path, results[-1][1], "sglang")

    def test_aiperf(self):
        streams = tools.make_streams(4, 60)
        summary, trace, raw_trace = tools.write_aiperf(self.tmp, streams)
        records = self.path("profile_export.jsonl")
        got = report(records, "--input", "aiperf", "--convention", "aiperf")
        self.own_fields(got, summary, set(), "aiperf records")
        self.assertEqual(report(records, "--convention", "aiperf"), got)  # detected
        self.other_conventions(records, trace, "aiperf")
        # the raw export: every response's time and text, no token counts
        raw = self.path("profile_export_raw.jsonl")
        cannot = {"inter_token_latency", "output_token_throughput_per_user",
                  "output_sequence_length", "input_sequence_length", "output_token_throughput",
                  "total_osl", "total_isl"}
        got = report(raw, "--convention", "aiperf")
        self.own_fields(got, summary, cannot, "aiperf raw")
        self.other_conventions(raw, raw_trace, "aiperf")

    def test_genai_perf(self):
        experiments = [tools.make_streams(31, 10, failures=False),
                       tools.make_streams(5, 40, failures=False)]
        summary, trace = tools.write_genai_perf(self.tmp, experiments)
        path = self.path("profile_export.json")
        got = report(path, "--input", "genai-perf", "--convention", "aiperf")
        self.assertEqual(got["input"], {"format": "genai-perf", "run": 2, "runs": 2})
        self.assertEqual(self.own_fields(got, summary, set(), "genai-perf"), 27)
        self.assertRegex(got["unavailable"]["tpot"], "no output token counts")
        self.assertEqual(report(path, "--convention", "aiperf"), got)  # detected
        self.other_conventions(path, trace, "genai-perf")
        first = report(path, "--run", "1", "--convention", "aiperf")
        self.assertEqual(first["completed"], 10)

    def test_llmperf(self):
        streams = tools.make_streams(6, 50)
        summary, trace = tools.write_llmperf(self.tmp, streams)
        path = self.path("m_550_150_individual_responses.json")
        got = report(path, "--input", "llmperf", "--convention", "llmperf")
        tool = {"results_" + k: v for k, v in tools.flatten(got["tool"]).items()}
        want = {k: v for k, v in summary.items() if k.startswith("results_")}
        compared = 0
        for key, value in want.items():
            self.assertIn(key, tool)
            compared += 1
            self.assertTrue(close(key, "s" if "latency" in key or "ttft" in key else None,
                                  value, tool[key]),
                            "llmperf: %s: %r against %r" % (key, value, tool[key]))
        self.assertEqual(compared, 64)
        # per-request values only: no chunk, no start time
        self.assertRegex(got["unavailable"]["icl"], "per-request values only")
        self.assertRegex(got["unavailable"]["request_throughput"], "no start times")
        self.other_conventions(path, trace, "llmperf")

    def test_guidellm(self):
        """benchmarks.json: the last benchmark by default, --run picks one;
        GuideLLM's metrics of each status group come back within 1 ns and
        1e-9; the benchmark's window start is its own (the warm-up ended
        before it), where llmlat starts at its first request."""
        path = self.path("benchmarks.json")
        results = tools.write_guidellm(path, [tools.make_streams(41, 12),
                                              tools.make_streams(8, 40)])
        got = report(path, "--input", "guidellm", "--convention", "guidellm")
        self.assertEqual(got["input"], {"format": "guidellm", "run": 2, "runs": 2})
        want, trace = results[-1]
        self.assertEqual(report(path, "--convention", "guidellm"), got)  # detected
        tool = flat(got["tool"])
        compared = 0
        for key, (value, unit) in flat(want).items():
            if key in ("benchmark.start_time", "benchmark.end_time"):
                continue  # GuideLLM's window, not a request's start: docs/importers.md
            self.assertIn(key, tool)
            mine = tool[key][0]
            compared += 1
            if key.startswith("metrics.output_tokens_per_second.") and value and mine:
                # tokens over the span of their token points, each a float
                # of epoch seconds read to the nearest ns: the span within
                # 1 ns (a rate over a short span moves by more than 1e-9)
                group = key.split(".")[2]
                tokens = want["metrics"]["output_token_count"][group]["total_sum"]
                self.assertLessEqual(abs(tokens / value - tokens / mine), 1e-9, key)
                continue
            unit = "ms" if "_ms." in key else "s"
            if key.endswith(".variance"):  # a square: its root is the time
                value, mine = math.sqrt(value), math.sqrt(mine)
            elif key.endswith(".total_sum"):  # count values, each within 1 ns
                count = flat(want)[key[:-len("total_sum")] + "count"][0]
                value, mine = (value / count, mine / count) if count else (value, mine)
            self.assertTrue(close(key, unit, value, mine),
                            "guidellm: %s: the tool %r, llmlat %r" % (key, value, mine))
        self.assertGreater(compared, 300)
        first = report(path, "--run", "1", "--convention", "guidellm")
        self.assertEqual(first["tool"]["metrics"]["request_totals"],
                         results[0][0]["metrics"]["request_totals"])
        self.assertRegex(got["unavailable"]["icl"], "first and last chunk times only")
        self.other_conventions(path, trace, "guidellm")


class InferencePerfRoundTrip(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="llmlat-inference-perf-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def compare(self, got, want, skip, what):
        tool, compared = flat(got["tool"]), 0
        for key, (value, _) in flat(want).items():
            if any(key.startswith(s) for s in skip):
                continue
            self.assertIn(key, tool, what)
            compared += 1
            self.assertTrue(close(key, "s", value, tool[key][0]),
                            "%s: %s: the tool %r, llmlat %r" % (what, key, value, tool[key][0]))
        return compared

    def test_inference_perf(self):
        """per_request_lifecycle_metrics.json: the summary comes back, with
        the client's N and with the server's (--output-tokens server).
        inference-perf reports the client's count in output_len and the
        server's in output_tokens; llmlat reports its N in both, so each
        run compares the one that is its N. The per-request file has no
        scheduled_time: load_summary's schedule_delay is not compared."""
        path = os.path.join(self.tmp, "per_request_lifecycle_metrics.json")
        client, server, trace = tools.write_inference_perf(path, tools.make_streams(12, 50))
        got = report(path, "--input", "inference-perf", "--convention", "inference-perf")
        self.assertEqual(got["input"]["format"], "inference-perf")
        self.assertEqual(report(path, "--convention", "inference-perf"), got)  # detected
        self.assertGreater(self.compare(got, client, ["successes.output_tokens"], "client"), 100)
        got = report(path, "--convention", "inference-perf", "--output-tokens", "server")
        self.assertGreater(self.compare(got, server, ["successes.output_len"], "server"), 100)
        RoundTrip.other_conventions(self, path, trace, "inference-perf", chunk_tokens=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_inference_perf_before_late_2025(self):
        """The older per-request file: a time per line of the response, read
        as chunks whose tokens are unknown. Request latency, NTPOT and the
        throughputs come back. That version took its lines for tokens: its
        TPOT divided their span by their number - 1, its ITL are the gaps
        between lines, and a request with more than one line had a TTFT;
        llmlat's TPOT divides by N - 1, its per-token ITL is not available,
        and a TTFT needs N >= 2 (docs/importers.md, the version table)."""
        path = os.path.join(self.tmp, "old.json")
        want = tools.write_inference_perf_old(path, tools.make_streams(13, 30))
        got = report(path, "--input", "inference-perf", "--convention", "inference-perf")
        skip = ["successes.latency.time_per_output_token", "successes.latency.inter_token_latency",
                "successes.latency.time_to_first_token"]
        self.assertGreater(self.compare(got, want, skip, "old layout"), 30)
        self.assertIsNone(got["tool"]["successes"]["latency"]["inter_token_latency"])
        self.assertRegex(got["unavailable"]["itl"], "no token counts per chunk")


class Malformed(unittest.TestCase):
    """Every format, cut short or damaged: one error line, exit status 2,
    nothing on stdout."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="llmlat-malformed-")
        self.addCleanup(shutil.rmtree, self.tmp)
        tools.write_vllm(os.path.join(self.tmp, "vllm.json"), [tools.make_streams(7, 8)])
        tools.write_sglang(os.path.join(self.tmp, "sglang.jsonl"), [tools.make_streams(7, 8)])
        tools.write_aiperf(self.tmp, tools.make_streams(7, 8))
        tools.write_genai_perf(self.tmp, [tools.make_streams(7, 8, failures=False)])
        tools.write_llmperf(self.tmp, tools.make_streams(7, 8))
        self.files = {
            "vllm": "vllm.json", "sglang": "sglang.jsonl", "aiperf": "profile_export.jsonl",
            "genai-perf": "profile_export.json",
            "llmperf": "m_550_150_individual_responses.json",
        }

    def assert_one_error(self, data, input_, pattern=None):
        path = os.path.join(self.tmp, "bad")
        with open(path, "w") as f:
            f.write(data)
        for args in (["--input", input_], []):
            p = run("report", *args, path)
            self.assertEqual(p.returncode, 2, (input_, args, data[-80:], p.stderr))
            self.assertEqual(p.stdout, "")
            lines = p.stderr.splitlines()
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertRegex(lines[0], ERROR_LINE)
            self.assertTrue(lines[0].startswith(path + ":"), lines[0])
            if pattern and args:
                self.assertRegex(lines[0], pattern)

    def test_truncated(self):
        for input_, name in self.files.items():
            with open(os.path.join(self.tmp, name)) as f:
                data = f.read()
            cuts = [len(data) * i // 13 for i in range(1, 13)] + [len(data) - 2]
            for cut in cuts:
                while data[cut - 1] in "\n" or data[cut - 1].isspace():
                    cut -= 1  # a cut at a line's end leaves a whole line
                with self.subTest(input=input_, cut=cut):
                    self.assert_one_error(data[:cut], input_)

    def test_damaged(self):
        def load(name):
            with open(os.path.join(self.tmp, name)) as f:
                return f.read()
        vllm = json.loads(load("vllm.json"))
        cases = [
            ("vllm", dict(vllm, itls=vllm["itls"][:-1]), r"the run has 8 TTFTs but 7 chunk lists"),
            ("vllm", {k: v for k, v in vllm.items() if k != "ttfts"}, r"has no \"ttfts\""),
            ("vllm", dict(vllm, ttfts=["0.1"] * 8), r"a TTFT must be a number"),
            ("vllm", dict(vllm, itls=[[-0.001]] * 8), r"an ITL must not be negative"),
            ("vllm", dict(vllm, errors=[1] * 8), r"an error must be a string or null"),
        ]
        for input_, obj, pattern in cases:
            with self.subTest(input=input_, pattern=pattern):
                self.assert_one_error(json.dumps(obj), input_, pattern)
        sglang = json.loads(load("sglang.jsonl"))
        self.assert_one_error(json.dumps(dict(sglang, output_lens=[1.5] * 8)), "sglang",
                              r"an output length must be an integer")
        record = json.loads(load("profile_export.jsonl").splitlines()[0])
        del record["metadata"]["request_start_ns"]
        self.assert_one_error(json.dumps(record), "aiperf", r"has no metadata.request_start_ns")
        record = json.loads(load("profile_export.jsonl").splitlines()[0])
        record["metrics"]["time_to_first_token"]["unit"] = "furlongs"
        self.assert_one_error(json.dumps(record), "aiperf", r"not a time unit")
        genai = json.loads(load("profile_export.json"))
        genai["experiments"][0]["requests"][0]["response_outputs"].pop()
        self.assert_one_error(json.dumps(genai), "genai-perf",
                              r"response_timestamps but \d+ response_outputs")
        rows = json.loads(load("m_550_150_individual_responses.json"))
        rows[3]["ttft_s"] = "fast"
        self.assert_one_error(json.dumps(rows), "llmperf", r"\"ttft_s\" must be a number")
        self.assert_one_error("{}", "llmperf", r"must be an array")
        self.assert_one_error("[]\n[]", "genai-perf", r"must be an object")


if __name__ == "__main__":
    unittest.main(verbosity=1)
