"""``python3 -m llmlat``: flags, exit statuses and output; and, with the C
command (LLMLAT_CLI, set by meson), byte-for-byte the same stdout, stderr
and exit status as ``llmlat`` on valid, malformed and mutated traces."""

import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from ._support import MS, PACKAGE_ROOT, llmlat, tool_path
from llmlat import _cli

TRACE = (b'{"requests": [\n'
         b' {"start": 0, "events": [[0.1, 1], [0.15, 2], [0.2, 0], [0.25, 1]],'
         b' "input_tokens": 10, "end": 0.3, "id": "a"},\n'
         b' {"start": 0.05, "events": [[0.5, 1]], "ok": false},\n'
         b' {"start": 1, "events": [[0.5, 1]], "id": 42},\n'
         b' {"start": 1.000000001, "events": [[1.2, 3], [1.3, 1]], "output_tokens": 5}\n'
         b'], "duration": 4}\n')


def run_py(args, stdin=b""):
    """python3 -m llmlat ARGS, in process: (status, stdout, stderr) bytes."""
    out, err = io.BytesIO(), io.BytesIO()
    fake_out = io.TextIOWrapper(out, encoding="utf-8", newline="")
    fake_err = io.TextIOWrapper(err, encoding="utf-8", newline="")
    fake_in = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    with mock.patch.object(sys, "stdout", fake_out), mock.patch.object(sys, "stderr", fake_err), \
            mock.patch.object(sys, "stdin", fake_in):
        status = _cli.main(list(args))
        fake_out.flush()
        fake_err.flush()
    return status, out.getvalue(), err.getvalue()


class CliTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="llmlat-cli-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.trace = self.write("trace.json", TRACE)

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def expected_aggregator(self, convention="default", **kw):
        """The aggregator the trace should give (request 3 is rejected)."""
        a = llmlat.Aggregator(convention, duration=4, **kw)
        specs = [
            (0, [100, 150, 200, 250], [1, 2, 0, 1], 300, True, 10, None),
            (50, [500], [1], None, False, 0, None),
            (1000.000001, [1200, 1300], [3, 1], None, True, 0, 5),
        ]
        for start_ms, times, tokens, end, ok, inp, out in specs:
            with llmlat.Request() as r:
                r.start(round(start_ms * MS))
                r.events([t * MS for t in times], tokens)
                r.set_input_tokens(inp)
                if out is not None:
                    r.set_output_tokens(out)
                end_ns = end * MS if end is not None else times[-1] * MS
                (r.finish if ok else r.fail)(end_ns)
                a.add(r)
        return a

    def test_text_report(self):
        status, out, err = run_py(["report", self.trace])
        self.assertEqual(status, 0)
        with self.expected_aggregator() as a:
            self.assertEqual(out.decode(), "Trace: %s (4 requests read, 1 rejected)\n%s"
                             % (self.trace, a.report()))
        self.assertEqual(err.decode(), "%s:4:2: request 3 (id \"42\") rejected: event 1 at "
                                       "0.5 s is before its start at 1 s\n" % self.trace)

    def test_json_report(self):
        status, out, _ = run_py(["report", "--format=json", "--convention", "vllm",
                                 "--percentiles", "50,99.9", "--goodput", "ttft:120,e2el:400",
                                 self.trace])
        self.assertEqual(status, 0)
        doc = json.loads(out)
        self.assertEqual(doc["requests_read"], 4)
        self.assertEqual(doc["rejected_requests"], 1)
        with self.expected_aggregator("vllm", slo={"ttft": 0.12, "e2e": 0.4},
                                      quantiles=[0.5, 99.9 / 100]) as a:
            expected = a.summary()
        del doc["requests_read"], doc["rejected_requests"]
        self.assertEqual(doc, expected)
        self.assertIn("p99.9", doc["metrics"]["ttft"])

    def test_prometheus_report_and_stdin(self):
        status, out, _ = run_py(["report", "--format", "prometheus", "-"], stdin=TRACE)
        self.assertEqual(status, 0)
        with self.expected_aggregator() as a:
            self.assertTrue(out.decode().startswith(a.report("prometheus")))
        self.assertTrue(out.endswith(b"llmlat_trace_requests_rejected_total 1\n"))

    def test_duration_flag_wins_over_the_trace(self):
        _, out, _ = run_py(["report", "--format", "json", "--duration", "8", self.trace])
        self.assertEqual(json.loads(out)["duration_s"], 8)
        _, out, _ = run_py(["report", "--format", "json", self.trace])
        self.assertEqual(json.loads(out)["duration_s"], 4)

    def test_help_and_version(self):
        for args in (["--help"], ["-h"], ["help"]):
            status, out, err = run_py(args)
            self.assertEqual((status, err), (0, b""), args)
            self.assertTrue(out.startswith(b"Usage: llmlat COMMAND [OPTIONS] [ARGUMENTS]\n"))
        for args in (["report", "--help"], ["report", "-h", "x"], ["help", "report"]):
            status, out, err = run_py(args)
            self.assertEqual((status, err), (0, b""), args)
            self.assertTrue(out.startswith(b"Usage: llmlat report [OPTIONS] TRACE|-\n"))
        self.assertEqual(run_py(["--version"]),
                         (0, ("llmlat %s\n" % llmlat.version()).encode(), b""))

    def test_usage_errors_exit_2(self):
        cases = {
            (): None,
            ("frobnicate",): "llmlat: unknown command 'frobnicate' (see llmlat --help)\n",
            ("report",): "llmlat report: no trace given (a file, or - for standard input)\n",
            ("report", "a", "b"): "llmlat report: more than one trace given ('a' and 'b')\n",
            ("report", "--colour", "x"): "llmlat report: unknown option '--colour' (see "
                                         "llmlat --help)\n",
            ("report", "x", "--format"): "llmlat report: option --format needs a value\n",
            ("report", "--format", "xml", "x"): "llmlat report: --format: 'xml' is not a "
                                                "format (text, json, prometheus)\n",
            ("report", "--convention", "tgi", "x"): "llmlat report: --convention: 'tgi' is "
                                                    "not a convention (default, vllm, aiperf, "
                                                    "sglang, llmperf)\n",
            ("report", "--mode", "fast", "x"): "llmlat report: --mode: 'fast' is not a mode "
                                               "(exact, bounded)\n",
            ("report", "--relative-error", "0.5", "x"): "llmlat report: --relative-error: "
                                                        "'0.5' is out of range [0.0001, "
                                                        "0.25]\n",
            ("report", "--duration", "-1", "x"): "llmlat report: --duration: '-1' is out of "
                                                 "range (0, 1e+12]\n",
            ("report", "--duration", "soon", "x"): "llmlat report: --duration: 'soon' is not "
                                                   "a number\n",
            ("report", "--percentiles", "50,,99", "x"): "llmlat report: --percentiles: "
                                                        "'50,,99' is not a list of percentiles "
                                                        "from 0 to 100, such as 50,90,99.9\n",
            ("report", "--percentiles", ",".join(["50"] * 33), "x"):
                "llmlat report: --percentiles: '%s' has more than 32 percentiles\n"
                % ",".join(["50"] * 33),
            ("report", "--goodput", "p99:5", "x"): "llmlat report: --goodput: 'p99:5' names "
                                                   "an unknown SLO (ttft, tpot, e2el)\n",
            ("report", "--goodput", "ttft", "x"): "llmlat report: --goodput: 'ttft' is not a "
                                                  "list of NAME:MS (ttft, tpot, e2el), such as "
                                                  "ttft:200\n",
            ("report", "/nonexistent/t.json"): "llmlat report: cannot open "
                                               "'/nonexistent/t.json': No such file or "
                                               "directory\n",
        }
        for args, message in cases.items():
            with self.subTest(args=args):
                status, out, err = run_py(args)
                self.assertEqual(status, 2)
                self.assertEqual(out, b"")
                if message is None:
                    self.assertTrue(err.startswith(b"Usage: llmlat COMMAND"))
                else:
                    self.assertEqual(err.decode(), message)

    def test_malformed_trace_exit_2_nothing_on_stdout(self):
        path = self.write("bad.json", b'[{"start": 0},\n {"start": 1, "events": [[2, x]]}]')
        status, out, err = run_py(["report", path])
        self.assertEqual((status, out), (2, b""))
        self.assertEqual(err.decode(), "%s:2:30: an event's token count must be an integer "
                                       "from 0 to 4294967295\n" % path)
        status, out, err = run_py(["report", self.tmp])  # a directory
        self.assertEqual((status, out), (2, b""))
        self.assertEqual(err.decode(), "%s:1:1: read error: Is a directory\n" % self.tmp)

    def test_many_rejections_are_summed_up(self):
        reqs = b",".join(b'{"start": 1, "events": [[0.5, 1]]}' for _ in range(60))
        path = self.write("rej.json", b"[" + reqs + b"]")
        status, out, err = run_py(["report", path])
        self.assertEqual(status, 0)
        lines = err.decode().splitlines()
        self.assertEqual(len(lines), 51)
        self.assertEqual(lines[-1], "%s: further rejected requests are counted but not listed"
                         % path)
        self.assertIn(b"(60 requests read, 60 rejected)", out)

    def test_module_entry_point(self):
        env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT, PYTHONDONTWRITEBYTECODE="1")
        p = subprocess.run([sys.executable, "-m", "llmlat", "report", "--format", "json",
                            self.trace], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           env=env, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(json.loads(p.stdout)["completed"], 2)
        p = subprocess.run([sys.executable, "-m", "llmlat"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=env, timeout=60)
        self.assertEqual(p.returncode, 2)


# ------------------------------------------------- against the C command

SEEDS = [
    TRACE,
    b'[{"start": 0, "events": [[0.1, 1], [0.2, 2]], "end": 0.3, "input_tokens": 5, '
    b'"id": "a"}, {"start": 1.5, "events": [], "ok": false}]',
    b'{"start": 0, "events": [[0.1, 1]]}\n{"start": 1, "events": [[0.5, 1]], "id": 7}\n'
    b'{"start": 2, "events": [[2.5, 0], [2.6, 3]], "output_tokens": 9}\n',
    b'[{"start": -1.0000000005, "events": [[-0.5, 1], [0.25e1, 1]], "end": null, '
    b'"x": {"y": [1, true, null, "z\\u00e9\\ud83d\\ude00"]}}]',
]

EDGE_CASES = [
    b"", b"  \n ", b"\xef\xbb\xbf[]", b"[]", b"{}", b'{"requests": []}',
    b'{"requests": [], "duration": "5"}', b'{"requests": [], "duration": 1e13}',
    b'{"start": 0, "requests": []}', b'{"requests": [], "requests": []}',
    b'[{"start": 0, "events": [[1, 4294967296]]}]', b'[{"start": 0, "events": [[1, 1.0]]}]',
    b'[{"start": 0, "events": [[1, 01]]}]', b'[{"start": 0.' + b"1" * 126 + b"}]",
    b'[{"start": 1e-999999999}]', b'[{"start": -9223372036.8547758085}]',
    b'[{"start": 0.0000000005}]', b'[{"start": 0, "id": "' + "\u00e9".encode() * 40
    + b'", "events": [[-1, 1]]}]',
    b'[{"start": 0, "id": "a\\u00e9\\ud83d\\n\\"", "events": [[-1, 1]]}]',
    b'[{"start": 0, "id": "\xff\xfe", "end": -1}]',
    b'[{"start": 0, "x": ' + b"[" * 256 + b"]" * 256 + b"}]",
    b'[{"start": 0, "x": ' + b"[" * 257 + b"]" * 257 + b"}]",
    b'[{"start": 0, "x": "\\u12"}]', b'[{"start": 0, "ok": truex}]', b'[{"start": 0, "x": +1}]',
    b'[{"start": 0}, ]', b'{"start": 0}{"start": 1}', b'{"start": 0, "duration": 0}\n{"start": 1}',
    b'{"start": 0}\n{"start": 1, "duration": 0}', b'{"start": 0}\n{"requests": []}',
    b'{"start": 0, "duration": "x"}\n{"start": 1}', b'{"start": 0, "duration": [1, 2]}',
    b'{"requests": [{"start": 1, "events": [[0.5, 1]]}], "duration": "x", "note": 1}',
    b'{"duration": 5, "requests": [{"start": 0}], "duration": null}',
    b'{"duration": -1, "requests": [{"start": 0}]}',
    b'[{"start": 1, "end": 0.5}]', b'[{"start": 0, "events": [[0.5, 1], [0.4, 1]]}]',
    b'[{"start": -9223372036, "events": [[9223372036, 1]]}]',
    b'[{"start": 0, "input_tokens": 18446744073709551615}, {"start": 0, "input_tokens": 5}]',
    b'[{"start":0,"events":[[ 0.1 , 1 ] , [0.2,1 ]\t]}\r\n]', b'[{"start": 1.5E+2}]',
    b'[{"start": 1e+}]', b'[{"start": 0, "events": {}}]',
]

ALPHABET = b'[]{}",:0123456789.eE+-truefalsenul \n\t\\ux'


def mutate(data, rnd):
    b = bytearray(data)
    for _ in range(rnd.randint(1, 3)):
        op, i = rnd.randrange(4), rnd.randrange(len(b) + 1)
        if op == 0 and len(b) > 1:
            del b[min(i, len(b) - 1)]
        elif op == 1:
            b.insert(i, rnd.choice(ALPHABET))
        elif op == 2 and len(b) > 1:
            b[min(i, len(b) - 1)] = rnd.choice(ALPHABET)
        else:
            j = rnd.randrange(len(b) + 1)
            b[i:i] = b[j:j + rnd.randint(1, 10)]
    return bytes(b)


class SameAsTheCCommandTest(unittest.TestCase):
    def setUp(self):
        self.c = tool_path()
        if not self.c:
            if os.environ.get("LLMLAT_REQUIRE_CLI") == "1":
                self.fail("LLMLAT_REQUIRE_CLI=1 but LLMLAT_CLI is not set")
            self.skipTest("no C llmlat command beside %s (set LLMLAT_CLI)"
                          % llmlat.library_path)
        self.tmp = tempfile.mkdtemp(prefix="llmlat-cmp-")
        self.addCleanup(shutil.rmtree, self.tmp)
        self.path = os.path.join(self.tmp, "in.json")

    def compare(self, args, data=b""):
        with open(self.path, "wb") as f:
            f.write(data)
        args = [self.path if a == "TRACE" else a for a in args]
        c = subprocess.run([self.c] + args, input=data, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
        status, out, err = run_py(args, stdin=data)
        self.assertEqual((status, out, err), (c.returncode, c.stdout, c.stderr),
                         "llmlat %s on %r" % (" ".join(args), data[:200]))
        return c

    def test_flags(self):
        for args in ([], ["--help"], ["help"], ["--version"], ["report"], ["nope"],
                     ["help", "report"], ["help", "nope"], ["report", "--help"], ["report", "--format", "json", "TRACE"],
                     ["report", "--format=prometheus", "--convention=sglang", "TRACE"],
                     ["report", "--convention", "aiperf", "--percentiles", "1,5,99.99", "TRACE"],
                     ["report", "--goodput", "ttft:120,tpot:40,e2el:900", "--format", "json",
                      "--convention", "vllm", "TRACE"],
                     ["report", "--goodput", "e2e:0", "TRACE"],
                     ["report", "--duration", "0x1p3", "--format", "json", "TRACE"],
                     ["report", "--duration", " 7", "TRACE"], ["report", "--duration", "7 ", "TRACE"],
                     ["report", "--duration", "inf", "TRACE"], ["report", "--duration", "1e400", "TRACE"],
                     ["report", "--percentiles", "100,0,-0", "--format=json", "TRACE"],
                     ["report", "--percentiles", "5" * 70, "TRACE"],
                     ["report", "--relative-error", "0.02", "TRACE"],
                     ["report", "--mode", "bounded", "TRACE"],
                     ["report", "--", "-"], ["report", "TRACE", "TRACE"], ["report", "-x"],
                     ["report", "--format"], ["report", "/nonexistent"], ["report", "/"]):
            with self.subTest(args=args):
                self.compare(args, TRACE)

    def test_conventions_and_formats(self):
        for conv in llmlat.CONVENTIONS:
            for fmt in llmlat.FORMATS:
                with self.subTest(convention=conv, format=fmt):
                    self.compare(["report", "--convention", conv, "--format", fmt, "TRACE"],
                                 TRACE)
                    self.compare(["report", "--convention", conv, "--format", fmt, "-"],
                                 TRACE)

    def test_edge_cases(self):
        for data in EDGE_CASES + SEEDS:
            with self.subTest(data=data[:60]):
                self.compare(["report", "--format", "json", "TRACE"], data)

    def test_generated_trace(self):
        """Numbers in every shape: integers, up to 12 decimals (rounded to
        the ns), exponents, negative times; empty and multi-token chunks."""
        rnd = random.Random(7)

        shapes = [lambda x: "%d" % round(x), lambda x: "%.3f" % x, lambda x: "%.9f" % x,
                  lambda x: "%.12f" % x, lambda x: "%.6e" % x, lambda x: "%.4E" % x, repr]
        lines = []
        for i in range(300):
            num = rnd.choice(shapes)  # one shape per request: rounding keeps the order
            start = rnd.uniform(-5, 50)
            t = start + rnd.uniform(0, 0.5)
            events = []
            for _ in range(rnd.randrange(0, 60)):
                t += rnd.choice([0, rnd.uniform(0, 0.05)])
                events.append("[%s, %d]" % (num(t), rnd.choice([0, 1, 1, 1, 2, 7])))
            fields = ['"start": %s' % num(start), '"events": [%s]' % ", ".join(events)]
            if rnd.random() < 0.3:
                fields.append('"end": %s' % num(t + rnd.uniform(-0.01, 0.2)))
            if rnd.random() < 0.2:
                fields.append('"ok": false')
            if rnd.random() < 0.5:
                fields.append('"input_tokens": %d' % rnd.randrange(0, 5000))
            lines.append("{%s}" % ", ".join(fields))
        data = "\n".join(lines).encode()
        for conv in llmlat.CONVENTIONS:
            with self.subTest(convention=conv):
                c = self.compare(["report", "--convention", conv, "--format", "json", "TRACE"],
                                 data)
                self.assertEqual(c.returncode, 0, c.stderr)
                self.assertGreater(json.loads(c.stdout)["completed"], 100)

    def test_many_rejections(self):
        reqs = b",".join(b'{"start": 1, "events": [[0.5, 1]], "id": %d}' % i for i in range(60))
        self.compare(["report", "TRACE"], b"[" + reqs + b"]")

    def test_mutated_traces(self):
        rnd = random.Random(20240517)
        for i in range(150):
            data = mutate(rnd.choice(SEEDS), rnd)
            with self.subTest(i=i):
                self.compare(["report", "--format", rnd.choice(["text", "json"]), "TRACE"], data)
