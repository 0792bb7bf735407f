"""`llmlat` as a user runs it: options, trace shapes, exact times, rejected
requests, every kind of malformed input (one line, exit status 2, nothing
on stdout), promtool on the Prometheus output, and docs/report-json.md
against the JSON the command writes.

Run by meson (suite cli) with LLMLAT (the binary), PROMTOOL and SOURCE_ROOT
in the environment. Standard library only.
"""
import json
import os
import random
import re
import subprocess
import tempfile
import unittest

LLMLAT = os.environ["LLMLAT"]
PROMTOOL = os.environ["PROMTOOL"]
ROOT = os.environ["SOURCE_ROOT"]
SAMPLE = os.path.join(ROOT, "examples", "sample-trace.json")
TINY = os.path.join(ROOT, "examples", "tiny-trace.jsonl")
CONVENTIONS = ["default", "vllm", "aiperf", "sglang", "llmperf", "guidellm", "inference-perf"]
ERROR_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<what>.+)$")


def run(*args, stdin=None):
    return subprocess.run([LLMLAT, *args], input=stdin, capture_output=True, text=True)


def run_trace(text, *args):
    """llmlat report ARGS on a trace given as text (through a file)."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        return run("report", *args, path), path
    finally:
        os.unlink(path)


def report_json(text, *args):
    p, _ = run_trace(text, "--format", "json", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


class Usage(unittest.TestCase):
    def test_help_and_version(self):
        for args in (["--help"], ["-h"], ["help"]):
            p = run(*args)
            self.assertEqual(p.returncode, 0)
            self.assertTrue(p.stdout.startswith("Usage: llmlat report"), p.stdout)
            self.assertRegex(p.stdout, r"\n  report +TTFT")
        for args in (["report", "--help"], ["help", "report"], ["report", "-h", TINY]):
            p = run(*args)
            self.assertEqual(p.returncode, 0)
            self.assertTrue(p.stdout.startswith("Usage: llmlat report [OPTIONS] TRACE|-\n"))
            self.assertIn("\n  --convention NAME ", p.stdout)
        self.assertEqual(run("help", "nope").stderr,
                         "llmlat: unknown command 'nope' (see llmlat --help)\n")
        p = run("--version")
        self.assertEqual(p.returncode, 0)
        self.assertRegex(p.stdout, r"^llmlat \d+\.\d+\.\d+\n$")

    def assert_usage_error(self, p, pattern):
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stdout, "")
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertRegex(lines[0], pattern)

    def test_no_command(self):
        p = run()
        self.assertEqual(p.returncode, 2)
        self.assertIn("Usage:", p.stderr)

    def test_bad_options(self):
        cases = [
            (["frobnicate"], r"unknown command 'frobnicate'"),
            (["report", "--frob", TINY], r"unknown option '--frob'"),
            (["report", "-x", TINY], r"unknown option '-x'"),
            (["report", TINY, "--format"], r"--format needs a value"),
            (["report"], r"no trace given"),
            (["report", TINY, TINY], r"more than one trace"),
            (["report", "--convention", "tgi", TINY], r"--convention: 'tgi' is not a convention"),
            (["report", "--mode", "fast", TINY], r"--mode: 'fast' is not a mode"),
            (["report", "--format", "xml", TINY], r"--format: 'xml' is not a format"),
            (["report", "--format=", TINY], r"--format: '' is not a format"),
            (["report", "--relative-error", "0", TINY], r"--relative-error: '0' is out of range"),
            (["report", "--relative-error", "0.5", TINY], r"out of range \[0.0001, 0.25\]"),
            (["report", "--relative-error", "x", TINY], r"is not a number"),
            (["report", "--percentiles", "101", TINY], r"--percentiles: '101' is not a list"),
            (["report", "--percentiles", "50,", TINY], r"--percentiles: '50,' is not a list"),
            (["report", "--percentiles", "", TINY], r"is not a list"),
            (["report", "--percentiles", "nan", TINY], r"is not a list"),
            (["report", "--percentiles", ",".join(["50"] * 33), TINY], r"more than 32"),
            (["report", "--goodput", "ttft", TINY], r"is not a list of NAME:MS"),
            (["report", "--goodput", "itl:5", TINY], r"unknown SLO"),
            (["report", "--goodput", "ttft:-1", TINY], r"--goodput: '-1' is out of range"),
            (["report", "--goodput", "ttft:0", TINY], r"out of range"),
            (["report", "--goodput", "ttft:x", TINY], r"'x' is not a number"),
            (["report", "--duration", "0", TINY], r"--duration: '0' is out of range"),
            (["report", "--duration", "inf", TINY], r"is not a number"),
            (["report", "--duration", "1e13", TINY], r"out of range"),
            (["report", "/nonexistent/trace.json"], r"cannot open '/nonexistent/trace.json'"),
        ]
        for args, pattern in cases:
            with self.subTest(args=args):
                self.assert_usage_error(run(*args), pattern)

    def test_option_forms(self):
        a = run("report", "--format=json", "--convention=vllm", TINY)
        b = run("report", "--format", "json", "--convention", "vllm", "--", TINY)
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        c = run("report", "--format", "text", "--format", "json", TINY)  # last wins
        self.assertEqual(json.loads(c.stdout)["convention"], "default")


class Shapes(unittest.TestCase):
    REQUESTS = [
        {"start": 0, "events": [[0.1, 1], [0.2, 1]], "end": 0.25, "input_tokens": 5},
        {"start": 0.05, "events": [[0.3, 2]], "ok": False},
    ]

    def test_array_object_lines_stdin(self):
        array = json.dumps(self.REQUESTS)
        obj = json.dumps({"model": "m", "requests": self.REQUESTS})
        lines = "".join(json.dumps(r) + "\n" for r in self.REQUESTS)
        results = [report_json(t) for t in (array, obj, lines)]
        p = run("report", "--format", "json", "-", stdin=lines)
        self.assertEqual(p.returncode, 0, p.stderr)
        results.append(json.loads(p.stdout))
        for r in results:
            self.assertEqual((r["completed"], r["failed"], r["requests_read"]), (1, 1, 2))
            self.assertEqual(r["metrics"]["ttft"]["mean"], 0.1)
            self.assertEqual(r, results[0])

    def test_empty_trace(self):
        r = report_json("[]")
        self.assertEqual((r["completed"], r["requests_read"]), (0, 0))
        self.assertIsNone(r["metrics"]["ttft"]["mean"])
        self.assertIsNone(r["duration_s"])

    def test_duration(self):
        obj = {"duration": 2.5, "requests": self.REQUESTS}
        self.assertEqual(report_json(json.dumps(obj))["duration_s"], 2.5)
        obj = {"requests": self.REQUESTS, "duration": 2.5}  # after the requests
        self.assertEqual(report_json(json.dumps(obj))["duration_s"], 2.5)
        self.assertEqual(report_json(json.dumps(obj), "--duration", "4")["duration_s"], 4)
        obj["duration"] = None  # derived: earliest start to latest event
        self.assertEqual(report_json(json.dumps(obj))["duration_s"], 0.3)

    def test_unknown_members_ignored(self):
        r = [{"start": 0, "events": [[1, 1]], "model": {"x": [1, {"y": None}]}, "id": "a"}]
        self.assertEqual(report_json(json.dumps(r))["completed"], 1)
        # "duration" means the trace's only in the object with "requests"
        lines = [{"start": 0, "events": [[1, 1]], "duration": "1 s"}] * 2
        r = report_json("".join(json.dumps(x) + "\n" for x in lines))
        self.assertEqual((r["completed"], r["duration_s"]), (2, 1))

    def test_exact_times(self):
        # decimal text to ns with no double: 0.1000000005 s is 100000001 ns
        trace = '[{"start": 0, "events": [[0.1000000005, 1], [2e-1, 1], [3E-1, 1]]}]'
        r = report_json(trace)
        self.assertEqual(r["metrics"]["ttft"]["mean"], 0.100000001)
        self.assertEqual(r["metrics"]["e2e"]["mean"], 0.3)
        # far from zero, a double would lose the nanoseconds
        trace = '[{"start": 1700000000.000000001, "events": [[1700000000.000000004, 1]]}]'
        self.assertEqual(report_json(trace)["metrics"]["ttft"]["mean"], 3e-9)

    def test_event_spellings(self):
        """However an event is spelled (the common "[t,k]" has a fast path),
        the same numbers."""
        spellings = ["[0.5,2]", "[0.5, 2]", "[ 0.5 , 2 ]", "[\n0.5,\n2\n]", "[5e-1,2]",
                     "[0.500000000,2]", "[0.5000000004,2]", "[500000000e-9, 2]"]
        results = {s: report_json('[{"start": 0, "events": [[0.25,1],%s]}]' % s)
                   for s in spellings}
        for s, r in results.items():
            self.assertEqual(r, results["[0.5,2]"], s)
            self.assertEqual(r["metrics"]["e2e"]["mean"], 0.5)
            self.assertEqual(r["total_output_tokens"], 3)

    def test_percentiles_and_goodput(self):
        r = report_json(open(TINY).read(), "--percentiles", "50,99.9", "--goodput",
                        "ttft:120,e2el:1000", "--convention", "vllm")
        self.assertIn("p99.9", r["metrics"]["ttft"])
        self.assertNotIn("p90", r["metrics"]["ttft"])
        self.assertIn("p99.9_ttft_ms", r["tool"])
        self.assertEqual(r["slo"], {"ttft_s": 0.12, "tpot_s": None, "e2e_s": 1.0})
        self.assertEqual(r["good_requests"], 2)  # vLLM's TTFTs: 150, 149, 80, 70 ms
        self.assertEqual(r["request_goodput"], 2 / r["duration_s"])
        self.assertIsNone(report_json(open(TINY).read())["request_goodput"])

    def test_streamed_reports_end_as_before(self):
        # 32 percentiles make reports of many KiB, streamed in pieces: the
        # JSON still ends with the command's two members, Prometheus with
        # its counter, and a full stdout is an error
        pcts = ",".join(str(i * 3 + 1) for i in range(32))
        p = run("report", "--format", "json", "--percentiles", pcts, SAMPLE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertGreater(len(p.stdout), 2 * 4096)
        self.assertTrue(p.stdout.endswith('\n  "rejected_requests": 0\n}\n'))
        r = json.loads(p.stdout)
        self.assertEqual(r["requests_read"], 3000)
        self.assertIn("p94", r["metrics"]["itl"])
        p = run("report", "--format", "prometheus", "--percentiles", pcts, SAMPLE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertTrue(p.stdout.endswith("llmlat_trace_requests_rejected_total 0\n"))
        with open("/dev/full", "w") as full:
            p = subprocess.run([LLMLAT, "report", "--format", "json", SAMPLE], stdout=full,
                               stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("cannot write the report", p.stderr)

    def test_text_default(self):
        # the README's main command
        p = run("report", SAMPLE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        self.assertIn("(3000 requests read, 0 rejected)", p.stdout)
        self.assertIn("Successful requests:", p.stdout)
        self.assertRegex(p.stdout, r"\nTTFT \(ms\) +\d+ ")


class Rejected(unittest.TestCase):
    def test_rule(self):
        trace = "\n".join(json.dumps(r) for r in [
            {"start": 0, "events": [[0.1, 1], [0.2, 1]]},
            {"id": "back", "start": 0, "events": [[0.3, 1], [0.2, 1]]},
            {"start": 1, "events": [[0.5, 1]]},
            {"id": 7, "start": 0, "events": [[0.1, 1]], "end": 0.05},
            {"start": 2, "end": 1},
            {"start": 0, "events": [[0.1, 1], [0.1, 1]], "end": 0.1},  # equal: fine
        ]) + "\n"
        p, path = run_trace(trace, "--format", "json")
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stderr.splitlines()
        self.assertEqual(len(lines), 4, p.stderr)
        name = re.escape(path)
        self.assertRegex(lines[0], rf"^{name}:2:1: request 2 \(id \"back\"\) rejected: "
                                   r"event 2 at 0.2 s is before event 1 at 0.3 s$")
        self.assertRegex(lines[1], rf"^{name}:3:1: request 3 rejected: "
                                   r"event 1 at 0.5 s is before its start at 1 s$")
        self.assertRegex(lines[2], r"request 4 \(id \"7\"\) rejected: its end at 0.05 s is "
                                   r"before its last event \(1\) at 0.1 s$")
        self.assertRegex(lines[3], r"request 5 rejected: its end at 1 s is before its start")
        r = json.loads(p.stdout)
        self.assertEqual((r["requests_read"], r["rejected_requests"]), (6, 4))
        self.assertEqual((r["completed"], r["failed"]), (2, 0))
        p, _ = run_trace(trace)
        self.assertIn("(6 requests read, 4 rejected)", p.stdout)
        p, _ = run_trace(trace, "--format", "prometheus")
        self.assertIn("\nllmlat_trace_requests_rejected_total 4\n", p.stdout)

    def test_many_rejections_are_counted(self):
        bad = json.dumps({"start": 1, "events": [[0, 1]]})
        p, _ = run_trace("\n".join([bad] * 80), "--format", "json")
        self.assertEqual(len(p.stderr.splitlines()), 51)  # 50 named, one summary line
        self.assertEqual(json.loads(p.stdout)["rejected_requests"], 80)


class Malformed(unittest.TestCase):
    """Each kind of malformation: one line file:line:column, status 2,
    nothing on stdout."""

    CASES = [
        ("", 1, 1, r"empty input"),
        ("  \n\n ", 3, 2, r"empty input"),
        ("hello", 1, 1, r"expected '\[' or '\{' starting a trace, found 'h'"),
        ("[1]", 1, 2, r"expected '\{' starting a request, found '1'"),
        ('[{"start": 1', 1, 13, r"expected ',' or '\}' after a member, found end of input"),
        ('[{"start": 1}', 1, 14, r"expected ',' or '\]' after a request, found end of input"),
        ('[{"start": 1}] x', 1, 16, r"unexpected 'x' after the end of the trace"),
        ('[{"start": 1}]\n[]', 2, 1, r"unexpected '\[' after the end"),
        ('[{"events": []}]', 1, 2, r"request 1 has no \"start\""),
        ('[{"start": "1"}]', 1, 12, r"\"start\" must be a number \(seconds\)"),
        ('[{"start": null}]', 1, 12, r"\"start\" must be a number"),
        ('[{"start": 0, "events": [[1]]}]', 1, 28, r"expected ',' between an event's time"),
        ('[{"start": 0, "events": [1]}]', 1, 26, r"expected an event \[t, k\], found '1'"),
        ('[{"start": 0, "events": {}}]', 1, 25, r"expected '\[' starting \"events\""),
        ('[{"start": 0, "events": [[1, -1]]}]', 1, 30, r"token count must be an integer from 0 to 4294967295"),
        ('[{"start": 0, "events": [[1, 1.5]]}]', 1, 30, r"token count must be an integer"),
        ('[{"start": 0, "events": [[1, 4294967296]]}]', 1, 30, r"token count must be"),
        ('[{"start": 0, "events": [[1, 1, 1]]}]', 1, 31, r"expected '\]' closing an event"),
        ('[{"start": 01}]', 1, 12, r"malformed number: leading zero"),
        ('[{"start": 0, "events": [[01,1]]}]', 1, 27, r"malformed number: leading zero"),
        ('[{"start": 0, "events": [[1,01]]}]', 1, 29, r"malformed number: leading zero"),
        ('[{"start": 0, "events": [[1.,1]]}]', 1, 27, r"malformed number"),
        ('[{"start": 0, "events": [[1,1.0]]}]', 1, 29, r"token count must be an integer"),
        ('[{"start": 0, "events": [[12345678901.5,1]]}]', 1, 27, r"an event's time is out of range"),
        ('[{"start": 1.}]', 1, 12, r"malformed number"),
        ('[{"start": .5}]', 1, 12, r"must be a number"),
        ('[{"start": 1e}]', 1, 12, r"malformed number"),
        ('[{"start": -}]', 1, 12, r"malformed number"),
        ('[{"start": 1x}]', 1, 12, r"malformed number"),
        ('[{"start": NaN}]', 1, 12, r"must be a number"),
        ('[{"start": 1e30}]', 1, 12, r"\"start\" is out of range: 1e30 s does not fit"),
        ('[{"start": 9223372036.854775808}]', 1, 12, r"out of range"),
        ('[{"start": 1, "start": 2}]', 1, 15, r"duplicate key \"start\""),
        ('[{"start": 1, "ok": "yes"}]', 1, 21, r"\"ok\" must be true or false"),
        ('[{"start": 1, "ok": tru}]', 1, 21, r"invalid literal \(expected true\)"),
        ('[{"start": 1, "input_tokens": -5}]', 1, 31, r"\"input_tokens\" must be an integer"),
        ('[{"start": 1, "output_tokens": 2.0}]', 1, 32, r"\"output_tokens\" must be an integer"),
        ('[{"start": 1, "id": [1]}]', 1, 21, r"\"id\" must be a string or a number"),
        ('[{"start": 1, "x": "\\q"}]', 1, 20, r"invalid escape in a string"),
        ('[{"start": 1, "x": "\\u12G4"}]', 1, 20, r"malformed \\u escape"),
        ('[{"start": 1, "x": "a\tb"}]', 1, 20, r"control character \(byte 0x09\) in a string"),
        ('[{"start": 1, "x": "abc', 1, 20, r"unterminated string"),
        ('[{start: 1}]', 1, 3, r"expected a string, found 's'"),
        ('[{"start" 1}]', 1, 11, r"expected ':' after a key, found '1'"),
        ('{"start": 0}\nxyz', 2, 1, r"expected '\{' starting the next request \(JSON Lines\)"),
        ('{"start": 0}\n{"start": 1,}', 2, 13, r"expected a string, found '\}'"),
        ('{"requests": [], "start": 1}', 1, 18, r"\"start\" belongs in a request"),
        ('{"start": 1, "requests": []}', 1, 14, r"cannot also have request keys"),
        ('{"requests": [], "duration": -1}', 1, 30, r"\"duration\" must be null or a number of seconds"),
        ('{"requests": [], "duration": "1"}', 1, 30, r"\"duration\" must be null or a number"),
        ('[{"start": 1, "x": ' + "[" * 300 + "]" * 300 + "}]", 1, 277, r"nested deeper than 256"),
        ('\xff', 1, 1, r"found byte 0xc3"),
    ]

    def test_cases(self):
        for text, line, col, pattern in self.CASES:
            with self.subTest(trace=text[:60]):
                p, path = run_trace(text)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stdout, "")
                lines = p.stderr.splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                m = ERROR_LINE.match(lines[0])
                self.assertIsNotNone(m, lines[0])
                self.assertEqual(m["file"], path)
                self.assertEqual((int(m["line"]), int(m["col"])), (line, col), lines[0])
                self.assertRegex(m["what"], pattern)

    def test_stdin_name(self):
        p = run("report", "-", stdin="[1]")
        self.assertEqual(p.returncode, 2)
        self.assertTrue(p.stderr.startswith("<stdin>:1:2: "), p.stderr)

    def test_directory(self):
        p = run("report", ROOT)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.splitlines()), 1)
        self.assertRegex(p.stderr, r": read error: ")

    def test_mutations_never_crash(self):
        """Random byte damage to a real trace: a report (0) or one error
        line (2), never a signal or anything else."""
        base = open(TINY, "rb").read()
        rng = random.Random(7)
        for _ in range(300):
            data = bytearray(base)
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(data))
                op = rng.randrange(3)
                if op == 0:
                    data[i] = rng.randrange(256)
                elif op == 1:
                    del data[i]
                else:
                    data.insert(i, rng.choice(b'[]{},:"0123456789.eE-tfn \n'))
            p = subprocess.run([LLMLAT, "report", "-"], input=bytes(data), capture_output=True)
            self.assertIn(p.returncode, (0, 2), data)
            lines = p.stderr.decode().splitlines()
            # rejected requests may be named before a later malformation
            if p.returncode == 2:
                self.assertEqual(p.stdout, b"")
                self.assertRegex(lines[-1], ERROR_LINE)
                lines = lines[:-1]
            for line in lines:
                self.assertRegex(line, r"^<stdin>:\d+:\d+: request \d+ .*rejected: ")


class EveryConvention(unittest.TestCase):
    """Every convention reports in every format and mode, in its tool's
    words (the text report's header), with its tool object (JSON)."""

    TOOLS = {"default": "llmlat default", "vllm": "vLLM bench serve", "aiperf": "AIPerf",
             "sglang": "SGLang bench_serving", "llmperf": "LLMPerf", "guidellm": "GuideLLM",
             "inference-perf": "inference-perf"}

    def test_formats_and_modes(self):
        for convention in CONVENTIONS:
            for mode in ("exact", "bounded"):
                with self.subTest(convention=convention, mode=mode):
                    text = run("report", "--convention", convention, "--mode", mode, SAMPLE)
                    self.assertEqual(text.returncode, 0, text.stderr)
                    self.assertIn("convention: %s (%s), mode: %s" % (
                        convention, self.TOOLS[convention], mode), text.stdout)
                    j = run("report", "--convention", convention, "--mode", mode, "--format",
                            "json", TINY)
                    self.assertEqual(j.returncode, 0, j.stderr)
                    r = json.loads(j.stdout)
                    self.assertEqual((r["convention"], r["mode"]), (convention, mode))
                    self.assertEqual("tool" in r, convention != "default")
                    self.assertIn("ntpot", r["metrics"])
        # a cancelled request is a failure, GuideLLM's "incomplete"
        trace = '{"start": 0, "events": [[0.1, 2]], "end": 0.2, "cancelled": true}\n'
        for convention in CONVENTIONS:
            r = report_json(trace, "--convention", convention)
            self.assertEqual((r["completed"], r["failed"]), (0, 1))
        tool = report_json(trace, "--convention", "guidellm")["tool"]["metrics"]
        self.assertEqual(tool["request_totals"],
                         {"successful": 0, "incomplete": 1, "errored": 0, "total": 1})


class Prometheus(unittest.TestCase):
    def test_promtool_accepts(self):
        for convention in CONVENTIONS:
            for extra in ([], ["--goodput", "ttft:200,tpot:30"],
                          ["--mode", "bounded", "--relative-error", "0.02"]):
                with self.subTest(convention=convention, extra=extra):
                    p = run("report", "--format", "prometheus", "--convention", convention,
                            *extra, SAMPLE)
                    self.assertEqual(p.returncode, 0, p.stderr)
                    check = subprocess.run([PROMTOOL, "check", "metrics"], input=p.stdout,
                                           capture_output=True, text=True)
                    self.assertEqual(check.returncode, 0, check.stdout + check.stderr)
                    self.assertIn("# TYPE llmlat_ttft_hist_seconds histogram", p.stdout)
                    self.assertIn("# TYPE llmlat_ttft_seconds summary", p.stdout)

    def test_openmetrics(self):
        # the library's exposition, then the command's counter, then # EOF
        p = run("report", "--format", "openmetrics", SAMPLE)
        self.assertEqual(p.returncode, 0, p.stderr)
        prom = run("report", "--format", "prometheus", SAMPLE).stdout
        self.assertTrue(p.stdout.endswith("# TYPE llmlat_trace_requests_rejected counter\n"
                                          "llmlat_trace_requests_rejected_total 0\n# EOF\n"))
        self.assertEqual(p.stdout.count("# EOF"), 1)
        self.assertIn("# TYPE llmlat_requests_completed counter\n", p.stdout)
        self.assertIn("# UNIT llmlat_ttft_hist_seconds seconds\n", p.stdout)
        samples = [line for line in p.stdout.splitlines() if not line.startswith("#")]
        self.assertEqual(samples, [line for line in prom.splitlines() if not line.startswith("#")])

    def test_counts_agree_with_json(self):
        prom = run("report", "--format", "prometheus", SAMPLE).stdout
        r = json.loads(run("report", "--format", "json", SAMPLE).stdout)
        values = dict(line.rsplit(" ", 1) for line in prom.splitlines()
                      if line and not line.startswith("#"))
        self.assertEqual(int(values["llmlat_requests_completed_total"]), r["completed"])
        for m in ("ttft", "itl", "icl", "e2e"):
            count = r["metrics"][m]["count"]
            self.assertEqual(int(values[f"llmlat_{m}_seconds_count"]), count)
            self.assertEqual(int(values[f'llmlat_{m}_hist_seconds_bucket{{le="+Inf"}}']), count)
            self.assertEqual(float(values[f'llmlat_{m}_seconds{{quantile="0.99"}}']),
                             r["metrics"][m]["p99"])


class SchemaDoc(unittest.TestCase):
    """docs/report-json.md names every member the command writes."""

    FLAT = re.compile(r"^(mean|median|std|max|p[0-9.]+)_([a-z_0-9]+)_ms$")

    def test_documented(self):
        doc = open(os.path.join(ROOT, "docs", "report-json.md")).read()
        named = set(re.findall(r"`([a-z_0-9.]+)`", doc)) | set(re.findall(r'"([a-z_0-9]+)"', doc))
        for convention in CONVENTIONS:
            r = json.loads(run("report", "--format", "json", "--convention", convention,
                               "--goodput", "ttft:100", SAMPLE).stdout)
            self.assertEqual(r["schema_version"], 1)
            keys = set(r) | set(r["slo"]) | set(r["metrics"])
            for m in r["metrics"].values():
                keys |= {k for k in m if not re.fullmatch(r"p[0-9.]+", k)}
            for k, v in r.get("tool", {}).items():
                keys.add(k)
                if isinstance(v, dict):
                    keys |= set(v) | set(v.get("quantiles", {}))
            for k in sorted(keys):
                flat = self.FLAT.match(k)
                with self.subTest(convention=convention, key=k):
                    self.assertTrue(k in named or (flat and flat[2] in named),
                                    f"{k} is not in docs/report-json.md")


if __name__ == "__main__":
    unittest.main(verbosity=1)
