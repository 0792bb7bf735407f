"""The importers on result files the tools really wrote (../shared/realfiles,
each folder's PROVENANCE.txt says where from): llmlat's `tool` object
under the tool's own convention against the tool's own summary of the same
run, counts exactly, times within 1 ns (the files keep more digits than
that), rates within 1e-9 relative. Every field that differs more is listed
here with the tool's quirk that explains it (docs/importers.md), and the
explanation is checked, not assumed. The summaries that hold no requests
are refused with the message that names them. Then every file that holds
requests, cut short at every eighth of its length, with a key renamed or a
number made a string, is refused in one line (exit status 2, nothing on
stdout).

The worst remaining difference of each file is printed at the end.

Run by meson (suite cli) with LLMLAT, SOURCE_ROOT and REALFILES (the
folder) in the environment, with Debian's /usr/bin/python3. The files must
be there: a missing folder fails, it does not skip.
"""

import glob
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

LLMLAT = os.environ["LLMLAT"]
REAL = os.environ.get("REALFILES") or os.path.join(os.environ["SOURCE_ROOT"], "..", "shared",
                                                    "realfiles")
ERROR_LINE = re.compile(r"^[^:]+:\d+:\d+: .+$")
WORST = {}  # file -> (relative difference, field)


def real(*parts):
    paths = glob.glob(os.path.join(REAL, *parts))
    assert len(paths) == 1, "%s: %d files (is ../shared/realfiles there?)" % (
        os.path.join(*parts), len(paths))
    return paths[0]


def text(*parts):
    with open(real(*parts)) as f:
        return f.read()


def load(*parts):
    return json.loads(text(*parts))


def run(*args):
    return subprocess.run([LLMLAT, *args], capture_output=True, text=True)


def report(path, *args):
    p = run("report", "--format", "json", *args, path)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def flat(value, path="", out=None):
    out = {} if out is None else out
    if isinstance(value, dict):
        for k, v in value.items():
            flat(v, path + "." + k if path else k, out)
    elif not isinstance(value, (list, str, bool)):
        out[path] = value
    return out


class RealFiles(unittest.TestCase):
    def agree(self, name, want, got, unit, skip=()):
        """Every number of want (flat) in got: counts exactly, a time (in
        `unit`: "s" or "ms", or per key a callable) within 1 ns, anything
        else within 1e-9 relative. Returns the fields compared."""
        worst, compared = WORST.get(name, (0.0, "", None)), 0
        for key, value in want.items():
            if key in skip or value is None:
                continue
            self.assertIn(key, got, "%s: llmlat has no %s" % (name, key))
            mine = got[key]
            self.assertIsNotNone(mine, "%s: %s is null" % (name, key))
            compared += 1
            if isinstance(value, int) and isinstance(mine, int):
                self.assertEqual(mine, value, "%s: %s" % (name, key))
                continue
            diff = abs(mine - value)
            rel = diff / abs(value) if value else diff
            u = unit(key) if callable(unit) else unit
            ns = diff * (1e9 if u == "s" else 1e6 if u == "ms" else 0.0)
            worst = max(worst, (rel, key, ns if u in ("s", "ms") else None))
            ok = rel <= 1e-9 or (u in ("s", "ms") and ns <= 1.0)
            self.assertTrue(ok, "%s: %s: the tool %r, llmlat %r (%.3g relative, %.3g ns)"
                            % (name, key, value, mine, rel, ns))
        WORST[name] = worst
        return compared

    # ------------------------------------------------------------- vLLM

    def test_vllm_0_8(self):
        """vLLM 0.8.3's benchmark_serving.py (--save-result; per-request
        arrays, no start_times, no latencies). Its TTFT came from a second
        perf_counter() after the chunk's timestamp
        (benchmarks/backend_request_func.py of that time), so its latency -
        the last chunk's timestamp - start - is ttft + the gaps - d, d > 0
        the time between the two calls, and its TPOT (latency - ttft) /
        (N - 1) is d / (N - 1) below llmlat's: llmlat's TPOT statistics are
        above vLLM's by less than 1 us / (N - 1) (about 3e-7 relative here);
        the rest agrees."""
        path = real("vllm", "*", "*.json")
        file = load("vllm", "*", "*.json")
        got = flat(report(path, "--convention", "vllm", "--percentiles", "99")["tool"])
        tpot = [k for k in file if k.endswith("_tpot_ms")]
        want = {k: v for k, v in file.items() if not isinstance(v, (list, str))}
        self.assertGreater(self.agree("vllm 0.8.3", want, got, "ms",
                                      skip=tpot + ["request_goodput:", "request_rate",
                                                   "burstiness", "max_concurrency",
                                                   "num_prompts"]), 14)
        self.assertEqual(got["completed"], file["num_prompts"])
        n_min = min(n for n in file["output_lens"] if n > 1)
        for key in tpot:
            diff = got[key] - file[key]
            if key.startswith("std"):
                self.assertLess(abs(diff), 1e-3 / (n_min - 1), key)  # ms: 1 us / (N - 1)
            else:
                self.assertGreaterEqual(diff, 0.0, key)
                self.assertLess(diff, 1e-3 / (n_min - 1), key)

    # ----------------------------------------------------------- AIPerf

    def test_aiperf_before_october_2025(self):
        """AIPerf's own example artifacts (7c31f579): records with
        timestamp_ns / credit_phase and the tag "ttft"; its summary under
        "records", tags as the records have them (ttft: our
        time_to_first_token). Not compared: ttst (time to second token),
        reasoning_token_count and output_token_count (the record's tokens
        by kind), min_request_timestamp and max_response_timestamp (their
        difference, benchmark_duration, is), error_request_count's
        statistics (AIPerf's avg is the count, compared)."""
        path = real("aiperf", "*", "profile_export.jsonl")
        summary = load("aiperf", "*", "profile_export_aiperf.json")["records"]
        got = report(path, "--convention", "aiperf")
        tool = got["tool"]
        rename = {"ttft": "time_to_first_token"}
        skip = {"ttst", "reasoning_token_count", "output_token_count", "min_request_timestamp",
                "max_response_timestamp", "total_reasoning_tokens", "total_output_tokens"}
        compared = 0
        for tag, m in summary.items():
            if tag in skip:
                continue
            mine = tool[rename.get(tag, tag)]
            want = {k: v for k, v in m.items() if k not in ("tag", "unit", "header", "count")}
            unit = "ms" if m["unit"] == "ms" else "s" if m["unit"] == "sec" else None
            compared += self.agree("aiperf 7c31f579", {tag + "." + k: v for k, v in want.items()},
                                   {tag + "." + k: v for k, v in mine.items()}, unit)
        self.assertGreater(compared, 80)
        self.assertEqual(got["failed"], summary["error_request_count"]["avg"])

    # ------------------------------------------------------- GenAI-Perf

    def test_genai_perf(self):
        """GenAI-Perf 2.48 (perf_analyzer's profile export and its
        summary): time_to_first_token, request_latency, request_throughput.
        The others count tokens with GenAI-Perf's tokenizer (the export has
        text, not counts): inter_token_latency, output_token_throughput(_per
        _request), output/input_sequence_length are null with their
        reason."""
        path = real("genai-perf", "*", "200_50.json")
        summary = load("genai-perf", "*", "profile_export_genai_perf.json")
        got = report(path, "--convention", "aiperf")
        compared = 0
        for tag in ("time_to_first_token", "request_latency", "request_throughput"):
            m = summary[tag]
            unit = "ms" if m["unit"] == "ms" else None
            compared += self.agree("genai-perf 2.48", {tag + "." + k: v for k, v in m.items()
                                                       if k != "unit"},
                                   {tag + "." + k: v for k, v in got["tool"][tag].items()}, unit)
        self.assertGreater(compared, 20)
        for tag in ("inter_token_latency", "output_sequence_length"):
            self.assertNotIn(tag, got["tool"])  # AIPerf omits a metric without a value
        self.assertRegex(got["unavailable"]["tpot"], "no output token counts")

    # --------------------------------------------------------- GuideLLM

    def test_guidellm(self):
        """GuideLLM 0.5 (benchmarks.json of a synchronous run, warm-up and
        cool-down 10%): its metrics of the requests of the measurement
        window (25 of the 30 kept), each within 1 ns / 1e-9, the epoch
        times read as the doubles GuideLLM had. Two fields are GuideLLM's
        own: benchmark.start_time and end_time are its window (its warm-up
        ended in the middle of a request), llmlat's benchmark starts at its
        first request; and requests_per_second counts only the requests
        that ended inside the window (rate_distribution_from_timings drops
        the later ends) over the window's length, where llmlat counts the
        window's requests: checked against the requests' end times."""
        path = real("guidellm", "*", "*benchmarks.json")
        bench = load("guidellm", "*", "*benchmarks.json")["benchmarks"][0]
        got = report(path, "--convention", "guidellm")
        self.assertEqual(got["input"], {"format": "guidellm", "run": 1, "runs": 1})
        mine = flat(got["tool"])
        want = {"metrics." + k: v for k, v in flat(bench["metrics"]).items()
                if "metrics." + k in mine}
        want["benchmark.duration"] = bench["duration"]
        rps = [k for k in want if k.startswith("metrics.requests_per_second")]

        def unit(key):
            return "ms" if "_ms." in key else "s"
        # a variance is a square: compare its root, the time
        for key in [k for k in want if k.endswith(".variance")]:
            want[key[:-8] + "root_variance"] = math.sqrt(want.pop(key))
            mine[key[:-8] + "root_variance"] = math.sqrt(mine[key])
        # total_sum is count values, each within 1 ns: compare it per value
        for key in [k for k in want if k.endswith(".total_sum") and want[k]]:
            count = want[key[:-9] + "count"]
            want[key[:-9] + "sum_per_value"] = want.pop(key) / count
            mine[key[:-9] + "sum_per_value"] = mine[key] / count
        self.assertGreater(self.agree("guidellm 0.5", want, mine, unit, skip=rps), 300)
        # the window: GuideLLM's requests per second, from its requests
        requests = bench["requests"]["successful"]
        ended = sum(1 for r in requests
                    if bench["start_time"] <= r["request_end_time"] <= bench["end_time"])
        counted = mine["metrics.request_totals.successful"]
        self.assertEqual(counted, 25)
        for key in rps:
            group = key.split(".")[2]
            if group in ("successful", "total"):
                self.assertAlmostEqual(want[key], ended / bench["duration"], delta=1e-12)
                self.assertAlmostEqual(mine[key], counted / bench["duration"], delta=1e-12)
        self.assertLess(ended, counted)
        self.assertRegex(got["unavailable"]["icl"], "first and last chunk times only")

    # ---------------------------------------------------------- LLMPerf

    def llmperf(self, folder, individual, summary):
        path = real("llmperf", folder, individual)
        file = load("llmperf", folder, summary)
        want = {k[len("results_"):]: v for k, v in file.items() if k.startswith("results_")}
        # the benchmark's length: num_completed_requests_per_min is
        # completed / (end - start) * 60 (metrics_summary), the individual
        # file has no time; with it the two rates come back
        duration = want["num_completed_requests"] * 60 / want["num_completed_requests_per_min"]
        got = report(path, "--convention", "llmperf", "--duration", repr(duration))
        tool = {}
        for k, v in flat(got["tool"]).items():
            tool[k.replace(".", "_")] = v
        errors = want.pop("error_code_frequency")  # a dict's str(): the codes and counts
        counts = [int(c) for c in re.findall(r":\s*(\d+)", errors)]
        self.assertEqual(sum(counts), want["number_errors"])

        def unit(key):
            return "s" if key.endswith("_s") or "_s_" in key else None
        # min and max of the token counts are strings in the file (LLMPerf's)
        want = {k: float(v) if isinstance(v, str) else v for k, v in want.items()}
        return self.agree("llmperf " + folder, want, tool, unit), got

    def test_llmperf_before_april_2024(self):
        """ray-project/llmperf-leaderboard (LLMPerf at 1eac866, December
        2023): request_output_throughput_token_per_s is the client's
        tokens_received (data chunks) / E2E, not N / E2E (afd137a changed
        it): llmlat reads it as written, under --convention llmperf. 130 of
        150 requests failed (429): LLMPerf's statistics are over the 20
        successes."""
        compared, got = self.llmperf("leaderboard-lepton-7b", "individual/lepton_7b.json",
                                     "summary/lepton_7b.json")
        self.assertGreater(compared, 60)
        self.assertEqual(got["failed"], 130)

    def test_llmperf_2024(self):
        """A copy of LLMPerf that wrote N / E2E (after afd137a)."""
        compared, _ = self.llmperf("hongxuanzhang-llama2-7b-550", "*_individual_responses.json",
                                   "*_summary.json")
        self.assertGreater(compared, 60)

    # ---------------------------------------------- summaries: refused

    def test_summaries_are_named(self):
        """A tool's summary holds no requests: llmlat says what it looks
        like, in one line, exit status 2."""
        cases = [
            (real("inference-perf", "*", "summary_lifecycle_metrics.json"),
             "looks like inference-perf summary_lifecycle_metrics.json, which holds no "
             "requests"),
            (real("inference-perf", "*", "stage_0_lifecycle_metrics.json"),
             "looks like inference-perf summary_lifecycle_metrics.json, which holds no "
             "requests"),
            (real("aiperf", "*", "profile_export_aiperf.json"),
             "looks like AIPerf's summary profile_export_aiperf.json"),
            (real("genai-perf", "*", "profile_export_genai_perf.json"),
             "looks like an AIPerf or GenAI-Perf summary"),
            (real("llmperf", "leaderboard-lepton-7b", "summary/lepton_7b.json"),
             "looks like LLMPerf's \\*_summary.json"),
            (real("sglang", "*", "*.jsonl"),
             "run 7 has no \"ttfts\": per-request data is saved with sglang.bench_serving "
             "--output-details"),
        ]
        for path, message in cases:
            with self.subTest(path=path):
                p = run("report", path)
                self.assertEqual(p.returncode, 2)
                self.assertEqual(p.stdout, "")
                self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
                self.assertRegex(p.stderr, "^" + re.escape(path) + r":\d+:\d+: " + message)
        # the SGLang file's seven runs, each one told apart
        p = run("report", "--run", "1", real("sglang", "*", "*.jsonl"))
        self.assertRegex(p.stderr, r":1:1: run 1 has no \"ttfts\"")


class Damaged(unittest.TestCase):
    """Every real file that holds requests, damaged: cut short at every
    eighth of its length, a key renamed, a number made a string. Each is
    refused in one line naming the file, exit status 2, nothing on stdout;
    given the format or not."""

    FILES = [
        # file, its format, a key it needs, the key of a number it reads
        (("vllm", "*", "*.json"), "vllm", '"ttfts"', "ttfts"),
        (("aiperf", "*", "profile_export.jsonl"), "aiperf", '"timestamp_ns"', "timestamp_ns"),
        (("genai-perf", "*", "200_50.json"), "genai-perf", '"timestamp"', "timestamp"),
        (("guidellm", "*", "*benchmarks.json"), "guidellm", '"timings"', "request_start"),
        (("llmperf", "leaderboard-lepton-7b", "individual", "lepton_7b.json"), "llmperf",
         '"ttft_s"', "ttft_s"),
        (("llmperf", "hongxuanzhang-llama2-7b-550", "*_individual_responses.json"), "llmperf",
         '"end_to_end_latency_s"', "end_to_end_latency_s"),
    ]

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="llmlat-realfiles-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def refused(self, data, input_, what):
        path = os.path.join(self.tmp, "damaged")
        with open(path, "w") as f:
            f.write(data)
        for args in (["--input", input_], []):
            p = run("report", *args, path)
            self.assertEqual(p.returncode, 2, (what, input_, args, p.stderr))
            self.assertEqual(p.stdout, "", what)
            lines = p.stderr.splitlines()
            self.assertEqual(len(lines), 1, (what, p.stderr))
            self.assertRegex(lines[0], ERROR_LINE)
            self.assertTrue(lines[0].startswith(path + ":"), lines[0])

    def test_cut_short(self):
        for parts, input_, _, _ in self.FILES:
            data = text(*parts)
            for eighth in range(1, 8):
                cut = len(data) * eighth // 8
                while data[cut - 1].isspace():
                    cut -= 1  # a cut at a line's end leaves a whole line
                with self.subTest(file=parts, eighth=eighth):
                    self.refused(data[:cut], input_, "cut at %d/8" % eighth)

    def test_key_renamed(self):
        for parts, input_, key, _ in self.FILES:
            data = text(*parts)
            self.assertIn(key, data)
            with self.subTest(file=parts, key=key):
                self.refused(data.replace(key, key[:-1] + "_renamed\"", 1), input_, key)

    def test_number_made_string(self):
        for parts, input_, _, key in self.FILES:
            data = text(*parts)
            m = re.search(r'"%s"\s*:\s*\[?\s*(-?[0-9][0-9.eE+-]*)' % key, data)
            self.assertIsNotNone(m, key)
            at, end = m.span(1)
            damaged = data[:at] + '"' + data[at:end] + '"' + data[end:]
            with self.subTest(file=parts, number=data[at:end]):
                self.refused(damaged, input_, "a number made a string")


def tearDownModule():
    sys.stderr.write("\nworst difference against each tool's summary (relative):\n")
    for name, (rel, field, ns) in sorted(WORST.items()):
        sys.stderr.write("  %-36s %.2e  %s%s\n" % (name, rel, field,
                                                   "" if ns is None else " (%.3f ns)" % ns))


if __name__ == "__main__":
    if not os.path.isdir(REAL):
        sys.exit("%s: the real files are not there (../shared/realfiles)" % REAL)
    unittest.main(verbosity=1)
