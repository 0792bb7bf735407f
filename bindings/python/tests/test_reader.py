"""``llmlat.read_trace`` on the C reader, and ``python -m llmlat`` running
the C command: the requests, rejections and messages the command gives
(the reading is the library's; tests/read covers it in C), through the
ways Python hands a file over."""

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

from ._support import MS, PACKAGE_ROOT, S, SOURCE_ROOT, llmlat, tool_path

TRACE = (b'{"requests": [\n'
         b' {"start": 0, "events": [[0.1, 1], [0.15, 2], [0.2, 0], [0.25, 1]],'
         b' "input_tokens": 10, "end": 0.3, "id": "a"},\n'
         b' {"start": 0.05, "events": [[0.5, 1]], "ok": false},\n'
         b' {"start": 1, "events": [[0.5, 1]], "id": 42},\n'
         b' {"start": 1.000000001, "events": [[1.2, 3], [1.3, 1]], "output_tokens": 5}\n'
         b'], "duration": 4}\n')


class ReadTraceTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="llmlat-reader-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_requests(self):
        path = self.write("t.json", TRACE)
        with llmlat.read_trace(path) as reader:
            got = list(reader)
            self.assertEqual(reader.format, "trace")
            self.assertEqual(reader.duration, 4.0)
            self.assertEqual((reader.requests_read, reader.rejected), (4, 1))
            self.assertEqual(reader.rejections, [
                '%s:4:2: request 3 (id "42") rejected: event 1 at 0.5 s is before its start at '
                '1 s' % path])
            self.assertIsNone(reader.run)
        self.assertEqual(len(got), 3)
        a, b, c = got
        self.assertEqual((a.index, a.line, a.column, a.id), (1, 2, 2, "a"))
        self.assertEqual((a.start, a.end, a.ok, a.input_tokens, a.output_tokens),
                         (0, 300 * MS, True, 10, None))
        self.assertEqual(list(a.times), [100 * MS, 150 * MS, 200 * MS, 250 * MS])
        self.assertEqual(list(a.tokens), [1, 2, 0, 1])
        self.assertEqual((b.ok, b.end, b.id), (False, 500 * MS, ""))
        self.assertEqual((c.start, c.output_tokens, c.index), (S + 1, 5, 4))
        self.assertEqual(a.request.value("ttft"), 0.1)
        self.assertRegex(repr(a), r"TraceRequest 1 id='a' start=0 events=4 ok")

    def test_add_to_equals_iterating(self):
        path = self.write("t.json", TRACE)
        fast = llmlat.Aggregator("vllm", duration=4)
        reader = llmlat.read_trace(path).add_to(fast)
        self.assertEqual(reader.rejected, 1)
        slow = llmlat.Aggregator("vllm", duration=4)
        for r in llmlat.read_trace(path):
            r.add_to(slow)
        self.assertEqual(fast.to_bytes(), slow.to_bytes())
        with self.assertRaises(TypeError):
            llmlat.read_trace(path).add_to("agg")

    def test_shared_between_threads(self):
        """Two threads iterating one reader get each request once; two
        readers folding into one aggregator at once lose none."""
        n = 3000
        lines = b"".join(b'{"start": %d, "events": [[%d.5, 1], [%d.75, 2]], "id": "r%d"}\n'
                         % (i, i, i, i) for i in range(n))
        reader = llmlat.read_trace(io.BytesIO(lines))
        seen = [[], []]

        def take(out):
            for r in reader:
                out.append(r.id)
                r.request.close()

        threads = [threading.Thread(target=take, args=(seen[i],)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        reader.close()
        ids = seen[0] + seen[1]
        self.assertEqual(len(ids), n)
        self.assertEqual(sorted(ids), sorted("r%d" % i for i in range(n)))
        agg = llmlat.Aggregator("default", "bounded")
        readers = [llmlat.read_trace(io.BytesIO(lines)) for _ in range(2)]
        threads = [threading.Thread(target=rd.add_to, args=(agg,)) for rd in readers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        one = llmlat.Aggregator("default", "bounded")
        llmlat.read_trace(io.BytesIO(lines)).add_to(one)
        one.merge(llmlat.Aggregator.from_bytes(one.to_bytes()))  # the same requests twice
        self.assertEqual(agg.counter("completed"), 2 * n)
        self.assertEqual(agg.to_bytes(), one.to_bytes())

    def test_file_objects(self):
        want = [(r.start, list(r.times)) for r in llmlat.read_trace(self.write("t", TRACE))]
        for source in (io.BytesIO(TRACE), io.StringIO(TRACE.decode()),
                       open(self.write("u", TRACE), "rb")):
            with self.subTest(source=type(source).__name__):
                got = [(r.start, list(r.times)) for r in llmlat.read_trace(source)]
                self.assertEqual(got, want)
        reader = llmlat.read_trace(io.BytesIO(b"[1]"), name="mine")
        with self.assertRaises(llmlat.TraceError) as ctx:
            list(reader)
        self.assertEqual(str(ctx.exception), "mine:1:2: expected '{' starting a request, found '1'")

    def test_malformed(self):
        """One message, as the command prints it; the requests before it
        were yielded."""
        path = self.write("bad.json", b'[{"start": 0}, {"start": 1}, {"start": x}]')
        got = []
        with self.assertRaises(llmlat.TraceError) as ctx:
            for r in llmlat.read_trace(path):
                got.append(r.start)
        self.assertEqual(got, [0, S])
        self.assertEqual(str(ctx.exception),
                         "%s:1:40: \"start\" must be a number (seconds)" % path)
        self.assertIsInstance(ctx.exception, llmlat.FormatError)
        self.assertIsInstance(ctx.exception, ValueError)

    def test_other_tools_and_runs(self):
        runs = [{"date": "d%d" % i, "duration": 1.0 + i, "ttfts": [0.1 * (i + 1)],
                 "itls": [[0.01, 0.02]], "start_times": [5.0], "input_lens": [3],
                 "output_lens": [3], "errors": [""]} for i in range(3)]
        path = self.write("vllm.json", "\n".join(json.dumps(r) for r in runs).encode())
        reader = llmlat.read_trace(path)
        (r,) = list(reader)
        self.assertEqual((reader.format, reader.run, reader.runs, reader.duration),
                         ("vllm", 3, 3, 3.0))
        self.assertEqual(list(r.times), [5300 * MS, 5310 * MS, 5330 * MS])
        self.assertEqual(r.lacks, llmlat.LACKS["chunk_tokens"] | llmlat.LACKS["end"] |
                         llmlat.LACKS["schedule"])  # no queue_times: no intended start
        reader = llmlat.read_trace(path, format="vllm", run=1)
        (r,) = list(reader)
        self.assertEqual((reader.run, reader.duration, r.times[0]), (1, 1.0, 5100 * MS))
        with self.assertRaises(llmlat.TraceError):
            list(llmlat.read_trace(path, run=4))
        with self.assertRaises(ValueError):
            llmlat.read_trace(path, run=0)
        with self.assertRaises(llmlat.InvalidArgumentError):
            llmlat.read_trace(path, format="csv")
        self.assertEqual(llmlat.INPUTS[:3], ("auto", "trace", "vllm"))

    def test_not_available(self):
        """LLMPerf's file has per-request values only: no ICL, no rates
        without a duration; under LLMPerf's own convention its figures."""
        rows = [{"error_code": None, "ttft_s": 0.2, "end_to_end_latency_s": 1.2,
                 "inter_token_latency_s": 0.01, "number_output_tokens": 101,
                 "number_input_tokens": 5}]
        path = self.write("llmperf.json", json.dumps(rows).encode())
        agg = llmlat.Aggregator("llmperf")
        llmlat.read_trace(path).add_to(agg)
        self.assertEqual(agg.stat("tool_itl"), 0.01)
        self.assertEqual(agg.stat("e2e"), 1.2)
        self.assertIsNone(agg.stat("icl"))
        self.assertEqual(agg.unavailable("metric", "icl"),
                         "the source has per-request values only, no chunk times")
        self.assertIsNone(agg.unavailable("metric", "ttft"))
        self.assertRegex(agg.unavailable("rate", "requests"), "no start times")
        self.assertIn("icl", agg.summary()["unavailable"])


class RequestLacksTest(unittest.TestCase):
    def test_set_lacks_and_known(self):
        with llmlat.Request() as r:
            r.start(0)
            r.set_known("llmperf", "ttft", 0.25)
            r.set_lacks(llmlat.LACKS["start_times"])
            with self.assertRaises(llmlat.StateError):
                r.event(1)
            r.finish(S)
            self.assertEqual(r.value("ttft", "llmperf"), 0.25)
            self.assertIsNone(r.value("ttft", "vllm"))
        with llmlat.Request() as r:
            with self.assertRaises(llmlat.InvalidArgumentError):
                r.set_lacks(llmlat.LACKS["chunks"])
            with self.assertRaises(llmlat.InvalidArgumentError):
                r.set_lacks(1 << 40)


class CommandTest(unittest.TestCase):
    """``python -m llmlat`` runs the C command (LLMLAT_CLI, set by meson)."""

    def setUp(self):
        if tool_path() is None:
            if os.environ.get("LLMLAT_REQUIRE_CLI") == "1":
                self.fail("the llmlat command is required (LLMLAT_REQUIRE_CLI=1)")
            self.skipTest("no llmlat command built")

    def run_module(self, *args, stdin=None, env=None):
        full_env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT, LLMLAT_CLI=tool_path())
        full_env.update(env or {})
        return subprocess.run([sys.executable, "-m", "llmlat", *args], input=stdin,
                              capture_output=True, env=full_env)

    def test_same_as_the_command(self):
        trace = os.path.join(SOURCE_ROOT, "examples", "tiny-trace.jsonl")
        for args in (["--version"], ["report", "--format", "json", trace], ["report", "-"],
                     ["report", "--frob"], ["frobnicate"]):
            with self.subTest(args=args):
                py = self.run_module(*args, stdin=b"[1]")
                c = subprocess.run([tool_path(), *args], input=b"[1]", capture_output=True)
                self.assertEqual((py.returncode, py.stdout, py.stderr),
                                 (c.returncode, c.stdout, c.stderr))

    def test_no_command(self):
        # a copy of the package (with its library, if it has one inside) that
        # has no command installed beside it, no LLMLAT_CLI and nothing on PATH
        tmp = tempfile.mkdtemp(prefix="llmlat-nocmd-")
        self.addCleanup(shutil.rmtree, tmp)
        shutil.copytree(os.path.dirname(os.path.abspath(llmlat.__file__)),
                        os.path.join(tmp, "llmlat"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        p = self.run_module("--version", env={"LLMLAT_CLI": "", "PATH": "/nonexistent",
                                              "PYTHONPATH": tmp})
        self.assertEqual(p.returncode, 1)
        self.assertIn(b"the llmlat command is not installed", p.stderr)


if __name__ == "__main__":
    unittest.main()
