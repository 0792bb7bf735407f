"""`llmlat report --convention all` (docs/cli.md): one reading, every
convention's headline figures side by side, in text, JSON and HTML. Each
value must be what `llmlat report --convention NAME --format json` gives
for the same input (the JSON report's own figures), each row must say why
the tools differ, what an input cannot support is null with its reason,
and the options it does not take are refused.

    python3 tests/cli/test_report_all.py     (meson: suite cli)
"""
import html.parser
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.environ.get("SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
LLMLAT = os.environ.get("LLMLAT", os.path.join(ROOT, "build", "tools", "llmlat"))
SAMPLE = os.path.join(ROOT, "examples", "sample-trace.json")
CONVENTIONS = ["default", "vllm", "aiperf", "sglang", "llmperf", "guidellm", "inference-perf"]

# figure of --convention all -> (member of the JSON report, scale of its value)
SAME_AS_REPORT = {
    "completed": ("completed",), "failed": ("failed",), "duration_s": ("duration_s",),
    "request_throughput": ("request_throughput",), "output_throughput": ("output_throughput",),
    "total_token_throughput": ("total_token_throughput",),
    "output_tokens": ("total_output_tokens",),
    "request_goodput": ("request_goodput",),
    "ttft_mean": ("metrics", "ttft", "mean"), "ttft_p99": ("metrics", "ttft", "p99"),
    "ttft_std": ("metrics", "ttft", "std"), "tpot_mean": ("metrics", "tpot", "mean"),
    "icl_mean": ("metrics", "icl", "mean"), "e2e_mean": ("metrics", "e2e", "mean"),
    "e2e_p99": ("metrics", "e2e", "p99"), "ntpot_mean": ("metrics", "ntpot", "mean"),
    "tps_user_mean": ("metrics", "tps_user", "mean"),
    "max_concurrent_requests": ("max_concurrent_requests",),
    "max_output_tokens_per_s": ("max_output_tokens_per_s",),
}


def run(*args):
    return subprocess.run([LLMLAT, *args], capture_output=True, text=True)


def report_json(*args):
    p = run("report", "--format", "json", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def member(report, path):
    for key in path:
        if report is None:
            return None
        report = report.get(key)
    return report


class ReportAll(unittest.TestCase):
    def check_against_each(self, path, *args):
        got = report_json("--convention", "all", *args, path)
        self.assertEqual(got["schema"], "llmlat-report-all/1")
        self.assertEqual(got["conventions"], CONVENTIONS)
        rows = {r["figure"]: r for r in got["rows"]}
        for r in got["rows"]:
            self.assertGreater(len(r["why"]), 20, r["figure"])
        compared = 0
        for conv in CONVENTIONS:
            want = report_json("--convention", conv, *args, path)
            for figure, where in SAME_AS_REPORT.items():
                if figure not in rows:
                    continue
                value, expected = rows[figure]["values"][conv], member(want, where)
                if expected is None:
                    self.assertIsNone(value, (conv, figure))
                    continue
                compared += 1
                self.assertIsNotNone(value, (conv, figure))
                self.assertAlmostEqual(value, expected, delta=1e-9 * max(1.0, abs(expected)),
                                       msg=(conv, figure))
            # the tool's own "ITL": llmlat's ITL, ICL, TPOT or LLMPerf's figure
            itl = {"vllm": "icl", "sglang": "icl", "aiperf": "tpot", "guidellm": "tpot",
                   "llmperf": "tool_itl"}.get(conv, "itl")
            expected = want["metrics"][itl]["mean"] if itl in want["metrics"] else None
            if expected is not None:
                self.assertAlmostEqual(rows["tool_itl_mean"]["values"][conv], expected,
                                       delta=1e-12)
        self.assertEqual(got["requests_read"], want["requests_read"])
        return got, compared

    def test_sample_trace(self):
        got, compared = self.check_against_each(SAMPLE)
        self.assertGreater(compared, 100)
        rows = {r["figure"]: r for r in got["rows"]}
        self.assertNotIn("request_goodput", rows)  # no SLO given
        # where the definitions differ, the figures do
        self.assertNotEqual(rows["tool_itl_mean"]["values"]["vllm"],
                            rows["tool_itl_mean"]["values"]["aiperf"])
        self.assertNotEqual(rows["max_output_tokens_per_s"]["values"]["vllm"],
                            rows["max_output_tokens_per_s"]["values"]["default"])

    def test_slos_and_bounded(self):
        got, _ = self.check_against_each(SAMPLE, "--goodput", "ttft:500,tpot:30")
        self.assertIn("request_goodput", {r["figure"] for r in got["rows"]})
        got = report_json("--convention", "all", "--mode", "bounded", SAMPLE)
        self.assertEqual(got["mode"], "bounded")
        peak = {r["figure"]: r for r in got["rows"]}["max_output_tokens_per_s"]
        self.assertIsNone(peak["values"]["vllm"])
        self.assertIn("vllm", peak["unavailable"])

    def test_unavailable_has_reasons(self):
        """A file of per-request values (LLMPerf's): what it cannot support
        is null with its reason, per convention."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "m_individual_responses.json")
            with open(path, "w") as f:
                json.dump([{"error_code": None, "ttft_s": 0.2, "end_to_end_latency_s": 1.0,
                            "inter_token_latency_s": 0.01, "number_output_tokens": 90,
                            "number_input_tokens": 5,
                            "request_output_throughput_token_per_s": 90.0}] * 3, f)
            got, _ = self.check_against_each(path)
            text = run("report", "--convention", "all", path)
        rows = {r["figure"]: r for r in got["rows"]}
        self.assertIsNone(rows["icl_mean"]["values"]["llmperf"])
        self.assertRegex(rows["icl_mean"]["unavailable"]["llmperf"], "per-request values only")
        self.assertIsNone(rows["ttft_mean"]["values"]["vllm"])
        self.assertAlmostEqual(rows["ttft_mean"]["values"]["llmperf"], 0.2, delta=1e-12)
        self.assertEqual(text.returncode, 0, text.stderr)
        self.assertIn("Not available (n/a):", text.stdout)

    def test_text_and_html(self):
        text = run("report", "--convention", "all", SAMPLE)
        self.assertEqual(text.returncode, 0, text.stderr)
        lines = text.stdout.splitlines()
        self.assertTrue(lines[0].startswith("Trace: "))
        self.assertEqual(lines[3].split(), CONVENTIONS)
        self.assertEqual(sum(1 for l in lines if l.startswith("  why: ")), 20)
        page = run("report", "--convention", "all", "--format", "html", SAMPLE)
        self.assertEqual(page.returncode, 0, page.stderr)

        class Cells(html.parser.HTMLParser):
            def __init__(self):
                super().__init__()
                self.rows, self.row, self.cell = [], None, None

            def handle_starttag(self, tag, attrs):
                if tag == "tr":
                    self.row = []
                elif tag in ("td", "th") and self.row is not None:
                    self.cell = ""

            def handle_endtag(self, tag):
                if tag in ("td", "th") and self.row is not None:
                    self.row.append(self.cell)
                    self.cell = None
                elif tag == "tr":
                    self.rows.append(self.row)

            def handle_data(self, data):
                if self.cell is not None:
                    self.cell += data
        cells = Cells()
        cells.feed(page.stdout)
        self.assertEqual(cells.rows[0][1:8], CONVENTIONS)
        self.assertEqual(cells.rows[0][8], "why they differ")
        self.assertEqual(len(cells.rows), 21)

    def test_refused(self):
        for args in (["--format", "prometheus"], ["--slice", "10"], ["--window", "1:5"],
                     ["--per-request", "csv"]):
            with self.subTest(args=args):
                p = run("report", "--convention", "all", *args, SAMPLE)
                self.assertEqual(p.returncode, 2)
                self.assertEqual(p.stdout, "")
                self.assertIn("--convention all writes text, json or html", p.stderr)
        p = run("compare", "--convention", "all", SAMPLE, SAMPLE)
        self.assertEqual(p.returncode, 2)


if __name__ == "__main__":
    unittest.main(verbosity=1)
