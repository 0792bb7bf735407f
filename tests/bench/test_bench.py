#!/usr/bin/env python3
"""`llmlat bench` against the scripted test server (stream_server): the
timestamps against the server's own write times, the schedule (open loop,
closed loop, --max-concurrency, replay), every error path, the signals,
the options, TLS, the metrics port, and the report equal to `llmlat report`
on the trace bench wrote.

Environment: LLMLAT (the command), STREAM_SERVER (the test server),
SOURCE_ROOT, LLMLAT_TLS ("1" when the command was built with TLS),
PROMTOOL. Every server runs on 127.0.0.1 on a free port for a bounded time
and is stopped by the test that started it.

Bounds: a client event time must be at or after the server's write of it,
and within EVENT_BOUND_S of it. That bound is loose on purpose (the tests
run on loaded CI machines and under sanitizers): bench/ measures the real
figures (docs/bench.md).
"""

import json
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.request

LLMLAT = os.environ["LLMLAT"]
SERVER = os.environ["STREAM_SERVER"]
ROOT = os.environ["SOURCE_ROOT"]
TLS = os.environ.get("LLMLAT_TLS") == "1"
PROMTOOL = os.environ.get("PROMTOOL")
EVENT_BOUND_S = 0.25


class Server:
    """stream_server with the given scripts, started and stopped."""

    def __init__(self, *scripts, seconds=60):
        self.dir = tempfile.mkdtemp(prefix="llmlat-bench-")
        self.log = os.path.join(self.dir, "events.log")
        self.stats = os.path.join(self.dir, "stats.json")
        self.requests = os.path.join(self.dir, "requests.log")
        args = [SERVER, "--seconds", str(seconds), "--log", self.log, "--stats", self.stats,
                "--requests-log", self.requests]
        for s in scripts:
            args += ["--script", s]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, universal_newlines=True)
        line = self.proc.stdout.readline()
        m = re.match(r"listening on 127\.0\.0\.1:(\d+)", line)
        if not m:
            self.proc.kill()
            raise RuntimeError("stream_server did not start: %r" % line)
        self.port = int(m.group(1))
        self.url = "http://127.0.0.1:%d" % self.port

    def stop(self):
        """Stops the server; its event log {(id, index): write_ns} and stats."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=30)
        self.proc.stdout.close()
        events = {}
        with open(self.log) as f:
            for line in f:
                i, e, w, _ = map(int, line.split())
                events[(i, e)] = w
        with open(self.stats) as f:
            stats = json.load(f)
        with open(self.requests, errors="replace", newline="") as f:
            requests = [r for r in f.read().split("\n----\n") if r.strip()]
        shutil.rmtree(self.dir, ignore_errors=True)
        return events, stats, requests

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            self.proc.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def bench(*args, timeout=120, **kw):
    return subprocess.run([LLMLAT, "bench", *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout, **kw)


def read_trace(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def number(req):
    """The request's number: its id ends in it."""
    return int(req["id"].rsplit("-", 1)[1])


def ns(seconds):
    """A trace time (9 decimals) as integer ns, exactly."""
    return int(round(seconds * 1e9))


class Timestamps(unittest.TestCase):
    """Every event time after the server's write of it and within the bound;
    tokens per event as the server sent them, logprobs counted."""

    def test_events_after_the_write(self):
        scripts = ["ttft=0.02,gap=0.01,tokens=10",
                   "ttft=0.01,gap=0.005,tokens=6,chunk=3",
                   "ttft=0.01,gap=0.01,tokens=5,split=0.004,comment=1,crlf=1,nospace=1",
                   "ttft=0.03,gap=0.002,tokens=8,head_with_first=1",
                   "ttft=0.01,gap=0.01,tokens=5,framing=close",
                   "ttft=0.01,gap=0.01,tokens=5,keepalive=0",
                   "ttft=0.06,gap=0.01,tokens=5,slow_headers=0.04",
                   "ttft=0.01,gap=0.01,tokens=6,stall_at=3,stall=0.1"]
        for endpoint in ("/v1/chat/completions", "/v1/completions"):
            with tempfile.TemporaryDirectory() as d, Server(*scripts) as srv:
                trace = os.path.join(d, "t.jsonl")
                r = bench("--base-url", srv.url, "--endpoint", endpoint, "--rate", "40",
                          "--requests", "64", "--input-len", "16", "--output-len", "8",
                          "--count-tokens", "logprobs", "--output", trace, "--quiet")
                self.assertEqual(r.returncode, 0, r.stderr)
                reqs = read_trace(trace)
                self.assertEqual(len(reqs), 64)
                events, stats, _ = srv.stop()
                self.check(reqs, events, scripts)

    def check(self, reqs, events, scripts):
        checked = 0
        for req in reqs:
            self.assertTrue(req["ok"], req)
            i = number(req)
            script = scripts[i % len(scripts)]
            chunk = 3 if "chunk=3" in script else 1
            content = [(t, k) for t, k in req["events"] if k > 0]
            tokens = int(re.search(r"tokens=(\d+)", script).group(1))
            self.assertEqual(len(content), tokens, req)
            self.assertTrue(all(k == chunk for _, k in content), req)
            self.assertEqual(req["output_tokens"], tokens * chunk)
            self.assertEqual(req["input_tokens"], 7)  # the server's usage count
            self.assertEqual(req["status"], 200)
            for e, (t, _) in enumerate(content):
                write = events[(i, e)]
                delay = ns(t) - write
                self.assertGreaterEqual(delay, 0, "event %d of %s read before it was written"
                                        % (e, req["id"]))
                self.assertLess(delay, EVENT_BOUND_S * 1e9, (req["id"], e, delay))
                checked += 1
            self.assertGreaterEqual(ns(req["start"]), ns(req["scheduled"]))
        per_cycle = sum(int(re.search(r"tokens=(\d+)", s).group(1)) for s in scripts)
        self.assertEqual(checked, per_cycle * 64 // len(scripts))


class Schedule(unittest.TestCase):

    def test_open_loop_constant_schedule_holds(self):
        with tempfile.TemporaryDirectory() as d, Server("ttft=0.002,gap=0.002,tokens=3") as srv:
            trace = os.path.join(d, "t.jsonl")
            r = bench("--base-url", srv.url, "--rate", "50", "--arrival", "constant",
                      "--requests", "60", "--input-len", "8", "--output-len", "3",
                      "--output", trace, "--quiet")
            srv.stop()
            self.assertEqual(r.returncode, 0, r.stderr)
            reqs = sorted(read_trace(trace), key=number)
        t0 = ns(reqs[0]["scheduled"])
        # intended starts: exact multiples of 20 ms from the origin
        self.assertEqual([ns(q["scheduled"]) - t0 for q in reqs],
                         [i * 20000000 for i in range(60)])
        delays = sorted(ns(q["start"]) - ns(q["scheduled"]) for q in reqs)
        self.assertTrue(all(x >= 0 for x in delays))
        # near 0 at moderate load (10 ms: CI machines are loaded; bench/ has the figures)
        self.assertLess(delays[len(delays) // 2], 10e6, delays)

    def test_max_concurrency_delay_grows_and_is_kept(self):
        with tempfile.TemporaryDirectory() as d, Server("ttft=0.01,gap=0.01,tokens=4") as srv:
            trace = os.path.join(d, "t.jsonl")
            r = bench("--base-url", srv.url, "--rate", "200", "--arrival", "constant",
                      "--max-concurrency", "2", "--requests", "30", "--input-len", "4",
                      "--output-len", "4", "--output", trace, "--quiet")
            srv.stop()
            self.assertEqual(r.returncode, 0, r.stderr)
            reqs = sorted(read_trace(trace), key=number)
        delays = [ns(q["start"]) - ns(q["scheduled"]) for q in reqs]
        # ~45 ms a request, 2 at a time, one due every 5 ms: the wait grows
        self.assertGreater(delays[-1], 0.3e9, delays)
        self.assertGreater(sum(delays[15:]), sum(delays[:15]) * 2)
        self.assertTrue(all(x >= 0 for x in delays))
        # never more than 2 in flight
        edges = sorted([(ns(q["start"]), 1) for q in reqs] + [(ns(q["end"]), -1) for q in reqs],
                       key=lambda e: (e[0], e[1]))
        level = peak = 0
        for _, step in edges:
            level += step
            peak = max(peak, level)
        self.assertLessEqual(peak, 2)

    def test_duration_sends_nothing_after_it(self):
        with tempfile.TemporaryDirectory() as d, Server("ttft=0.05,gap=0.01,tokens=5") as srv:
            trace = os.path.join(d, "t.jsonl")
            r = bench("--base-url", srv.url, "--rate", "200", "--arrival", "constant",
                      "--max-concurrency", "2", "--duration", "0.5", "--input-len", "4",
                      "--output-len", "5", "--output", trace, "--quiet", "--format", "json")
            srv.stop()
            self.assertEqual(r.returncode, 0, r.stderr)
            reqs = read_trace(trace)
        b = json.loads(r.stdout)["bench"]
        origin = min(ns(q["scheduled"]) for q in reqs)
        self.assertTrue(all(ns(q["start"]) - origin < 0.5e9 for q in reqs))
        self.assertEqual(b["sent"], len(reqs))
        self.assertEqual(b["sent"] + b["not_sent"], 100)  # the arrivals of 0.5 s at 200/s
        self.assertGreater(b["not_sent"], 50)
        self.assertFalse(b["interrupted"])

    def test_closed_loop_starts_at_the_last_end(self):
        with tempfile.TemporaryDirectory() as d, Server("ttft=0.005,gap=0.005,tokens=4") as srv:
            trace = os.path.join(d, "t.jsonl")
            r = bench("--base-url", srv.url, "--concurrency", "3", "--requests", "15",
                      "--input-len", "4", "--output-len", "4", "--output", trace, "--quiet",
                      "--format", "json")
            srv.stop()
            self.assertEqual(r.returncode, 0, r.stderr)
            reqs = read_trace(trace)
        self.assertEqual(len(reqs), 15)
        ends = {ns(q["end"]) for q in reqs}
        origin = min(ns(q["scheduled"]) for q in reqs)
        for q in reqs:  # the origin, or the end of the user's previous request
            self.assertIn(ns(q["scheduled"]), ends | {origin})
        self.assertEqual(sum(ns(q["scheduled"]) == origin for q in reqs), 3)
        self.assertEqual(json.loads(r.stdout)["bench"]["concurrency"], 3)

    def test_all_at_once_capped_as_vllm(self):
        # vLLM's default: --request-rate inf with --max-concurrency
        with tempfile.TemporaryDirectory() as d, Server("ttft=0.01,gap=0.005,tokens=3") as srv:
            trace = os.path.join(d, "t.jsonl")
            r = bench("--base-url", srv.url.replace("127.0.0.1", "localhost"), "--rate", "inf",
                      "--max-concurrency", "3", "--requests", "12", "--input-len", "4",
                      "--output-len", "3", "--output", trace, "--quiet")
            srv.stop()
            self.assertEqual(r.returncode, 0, r.stderr)
            reqs = sorted(read_trace(trace), key=number)
        self.assertEqual({q["scheduled"] for q in reqs}, {reqs[0]["scheduled"]})  # all at once
        self.assertTrue(all(q["ok"] for q in reqs))
        delays = [ns(q["start"]) - ns(q["scheduled"]) for q in reqs]
        self.assertGreater(delays[-1], delays[0] + 20e6)  # the last waited for 3 slots

    def test_closed_loop_with_more_threads_than_users(self):
        with Server("ttft=0.005,gap=0.005,tokens=2") as srv:  # a thread without a user ends
            r = bench("--base-url", srv.url, "--concurrency", "2", "--threads", "5",
                      "--requests", "8", "--input-len", "4", "--output-len", "2", "--quiet",
                      "--format", "json", timeout=30)
            srv.stop()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(json.loads(r.stdout)["bench"]["sent"], 8)

    def test_connections_the_server_closed_are_not_reused(self):
        # the FIN comes with the response's last bytes, under "keep-alive"
        # (llama-server does it): a connection reused then would hang
        with tempfile.TemporaryDirectory() as d, Server("ttft=0.002,gap=0.002,tokens=4,"
                                                        "fin_after_done=1") as srv:
            trace = os.path.join(d, "t.jsonl")
            r = bench("--base-url", srv.url, "--rate", "50", "--requests", "60",
                      "--input-len", "4", "--output-len", "4", "--timeout", "5",
                      "--output", trace, "--quiet", "--format", "json")
            srv.stop()
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(json.loads(r.stdout)["bench"]["failures"], {})
            self.assertTrue(all(q["ok"] for q in read_trace(trace)))

    def test_sweep_one_run_and_trace_per_rate(self):
        with tempfile.TemporaryDirectory() as d, Server("ttft=0.002,gap=0.002,tokens=2") as srv:
            trace = os.path.join(d, "sweep.jsonl")
            r = bench("--base-url", srv.url, "--rate", "40,80", "--requests", "8",
                      "--input-len", "4", "--output-len", "2", "--output", trace, "--quiet")
            srv.stop()
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(len(read_trace(os.path.join(d, "sweep.rate-40.jsonl"))), 8)
            self.assertEqual(len(read_trace(os.path.join(d, "sweep.rate-80.jsonl"))), 8)
        self.assertEqual(r.stdout.count("Bench: POST"), 2)
        self.assertIn("40 requests/s", r.stdout)
        self.assertIn("80 requests/s", r.stdout)

    def test_replay_keeps_offsets_and_lengths(self):
        with tempfile.TemporaryDirectory() as d, Server("ttft=0.002,gap=0.002,tokens=max") as srv:
            src = os.path.join(d, "src.jsonl")
            with open(src, "w") as f:  # offsets 0, 30, 31, 90 ms; out of order in the file
                for start, n_in, n_out in ((100.09, 5, 3), (100.0, 12, 2), (100.03, 7, 4),
                                           (100.031, 9, 1)):
                    f.write(json.dumps({"start": start, "events": [[start + 0.001, n_out]],
                                        "input_tokens": n_in, "output_tokens": n_out}) + "\n")
            trace = os.path.join(d, "t.jsonl")
            r = bench("--base-url", srv.url, "--replay", src, "--output", trace, "--quiet")
            _, _, requests = srv.stop()
            self.assertEqual(r.returncode, 0, r.stderr)
            reqs = sorted(read_trace(trace), key=number)
        t0 = ns(reqs[0]["scheduled"])
        self.assertEqual([ns(q["scheduled"]) - t0 for q in reqs], [0, 30000000, 31000000,
                                                                    90000000])
        self.assertEqual([q["output_tokens"] for q in reqs], [2, 4, 1, 3])
        bodies = sorted((json.loads(q.split("\r\n\r\n", 1)[1].strip().split("\n")[-1]) for q in
                         requests), key=lambda b: len(b["prompt"]))
        self.assertEqual([len(b["prompt"]) for b in bodies], [5, 7, 9, 12])


class Errors(unittest.TestCase):
    """Each error path: a failed request with its reason, counted by kind;
    the run goes on."""

    def test_every_error_path(self):
        scripts = ["tokens=3",
                   "status=429",
                   "error_after=2",
                   "close_after=2",
                   "malformed_after=1",
                   "ttft=5,tokens=2",
                   "reset_after=1",
                   "status=503,slow_headers=0.01",
                   "done=0,usage=0"]
        with tempfile.TemporaryDirectory() as d, Server(*scripts, seconds=60) as srv:
            trace = os.path.join(d, "t.jsonl")
            r = bench("--base-url", srv.url, "--rate", "100", "--requests", "18",
                      "--input-len", "4", "--output-len", "3", "--timeout", "0.5",
                      "--output", trace, "--format", "json", "--quiet")
            srv.stop()
            self.assertEqual(r.returncode, 0, r.stderr)
            reqs = {number(q): q for q in read_trace(trace)}
        self.assertEqual(len(reqs), 18)
        want = {
            0: None,
            1: "HTTP 429: {\"error\":{\"message\":\"scripted status 429\"",
            2: "error in the stream: scripted error",
            3: "connection closed mid-stream",
            4: "malformed JSON in a chunk",
            5: "timeout (0.5 s from the start)",
            6: "connection reset by the server",
            7: "HTTP 503: ",
            8: None,  # a finish_reason, then the body's end: a success without [DONE]
        }
        for i, q in reqs.items():
            reason = want[i % len(scripts)]
            if reason is None:
                self.assertTrue(q["ok"], q)
                self.assertIsNone(q["error"])
            else:
                self.assertFalse(q["ok"], q)
                self.assertFalse(q["cancelled"])
                self.assertTrue(q["error"].startswith(reason), (reason, q["error"]))
        self.assertEqual(reqs[1]["status"], 429)
        self.assertEqual(reqs[6]["status"], 200)  # the reset came mid-stream
        report = json.loads(r.stdout)
        self.assertEqual(report["bench"]["failures"], {
            "HTTP 429": 2, "error in the stream": 2, "connection closed mid-stream": 2,
            "malformed JSON in a chunk": 2, "timeout": 2, "connection reset by the server": 2,
            "HTTP 503": 2})

    def test_unreachable_server_one_line_exit_1(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()  # nothing listens there now
        t = time.monotonic()
        r = bench("--base-url", "http://127.0.0.1:%d" % port, "--rate", "1",
                  "--connect-timeout", "2")
        self.assertEqual(r.returncode, 1)
        self.assertLess(time.monotonic() - t, 5)
        self.assertEqual(r.stdout, "")
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn("cannot reach", r.stderr)

    def test_no_answer_within_connect_timeout(self):
        # TEST-NET-1 (RFC 5737) is never routed: the connect hangs until the
        # timeout, or fails at once where there is no route at all
        t = time.monotonic()
        r = bench("--base-url", "http://192.0.2.1:9", "--rate", "1", "--connect-timeout", "1")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertLess(time.monotonic() - t, 4)
        self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
        self.assertIn("cannot reach http://192.0.2.1:9", r.stderr)


class Signals(unittest.TestCase):

    def run_interrupted(self, script, drain, signals):
        with tempfile.TemporaryDirectory() as d, Server(script) as srv:
            trace = os.path.join(d, "t.jsonl")
            p = subprocess.Popen([LLMLAT, "bench", "--base-url", srv.url, "--rate", "40",
                                  "--requests", "200", "--input-len", "4", "--output-len", "4",
                                  "--drain", str(drain), "--output", trace, "--format", "json",
                                  "--quiet"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 universal_newlines=True)
            time.sleep(1.5)
            t = time.monotonic()
            for _ in range(signals):
                p.send_signal(signal.SIGINT)
                time.sleep(0.05)
            out, err = p.communicate(timeout=60)
            took = time.monotonic() - t
            reqs = read_trace(trace)
            srv.stop()
        return p.returncode, out, err, reqs, took

    def test_sigint_keeps_finished_requests_and_cancels_the_rest(self):
        code, out, err, reqs, took = self.run_interrupted("ttft=0.01,gap=0.01,tokens=1000",
                                                          drain=0.3, signals=1)
        self.assertEqual(code, 130, err)
        report = json.loads(out)
        self.assertTrue(report["bench"]["interrupted"])
        self.assertEqual(len(reqs), report["bench"]["sent"])
        self.assertGreater(len(reqs), 40)
        self.assertTrue(all(q["cancelled"] and not q["ok"] for q in reqs), reqs[0])
        self.assertLess(took, 10)
        self.assertIn("interrupted", err)

    def test_sigint_lets_short_streams_finish(self):
        code, out, err, reqs, _ = self.run_interrupted("ttft=0.01,gap=0.01,tokens=20",
                                                       drain=5, signals=1)
        self.assertEqual(code, 130, err)
        self.assertTrue(reqs)
        self.assertTrue(all(q["ok"] for q in reqs))
        report = json.loads(out)
        self.assertEqual(report["bench"]["sent"], len(reqs))
        self.assertGreater(report["bench"]["not_sent"] + len(reqs), 0)

    def test_second_sigint_stops_at_once(self):
        code, out, err, reqs, took = self.run_interrupted("ttft=0.01,gap=0.01,tokens=1000",
                                                          drain=30, signals=2)
        self.assertEqual(code, 130, err)
        self.assertLess(took, 10)
        self.assertTrue(all(q["cancelled"] for q in reqs))


class SameNumbers(unittest.TestCase):
    """The report bench prints is the one `llmlat report` gives on its trace."""

    def test_report_equals_report_of_the_trace(self):
        scripts = ["ttft=0.01,gap=0.004,tokens=12", "ttft=0.02,gap=0.002,tokens=5,chunk=2",
                   "status=500", "ttft=0.005,gap=0.01,tokens=3,role=1"]
        with tempfile.TemporaryDirectory() as d, Server(*scripts) as srv:
            for endpoint, conv in (("/v1/completions", "vllm"),
                                   ("/v1/chat/completions", "guidellm"),
                                   ("/v1/completions", "default"),
                                   ("/v1/chat/completions", "inference-perf")):
                trace = os.path.join(d, "t.jsonl")
                opts = ["--convention", conv, "--percentiles", "50,90,99.9",
                        "--goodput", "ttft:15,tpot:5", "--format", "json"]
                r = bench("--base-url", srv.url, "--endpoint", endpoint, "--rate", "80",
                          "--requests", "40", "--input-len", "6", "--output-len", "12",
                          "--threads", "2", "--count-tokens", "logprobs", "--output", trace,
                          "--quiet", *opts)
                self.assertEqual(r.returncode, 0, r.stderr)
                mine = json.loads(r.stdout)
                rep = subprocess.run([LLMLAT, "report", trace, *opts], stdout=subprocess.PIPE,
                                     universal_newlines=True, check=True)
                theirs = json.loads(rep.stdout)
                for k in ("bench",):
                    del mine[k]
                for k in ("input", "requests_read", "rejected_requests"):
                    del theirs[k]
                self.assertEqual(mine, theirs, (endpoint, conv))
            srv.stop()

    def test_text_report_has_the_failures_by_kind(self):
        with Server("tokens=2", "status=429") as srv:
            r = bench("--base-url", srv.url, "--rate", "100", "--requests", "6",
                      "--input-len", "4", "--output-len", "2", "--quiet")
            srv.stop()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("Failures: HTTP 429: 3", r.stdout)
        self.assertIn("Successful requests:", r.stdout)


class Requests(unittest.TestCase):
    """What goes on the wire."""

    def bodies(self, requests):
        return [json.loads(q.split("\r\n\r\n", 1)[1].strip().splitlines()[-1]) for q in requests]

    def test_bodies_headers_and_the_key(self):
        with tempfile.TemporaryDirectory() as d, Server("tokens=2") as srv:
            trace = os.path.join(d, "t.jsonl")
            env = dict(os.environ, LLMLAT_API_KEY="sk-secret-from-env")
            r = bench("--base-url", srv.url + "/v1", "--endpoint", "/v1/completions",
                      "--rate", "50", "--requests", "4", "--input-len", "3:9",
                      "--output-len", "2", "--ignore-eos", "--model", "m\"odel",
                      "--header", "X-Team: latency", "--extra-body",
                      '{"temperature": 0, "max_tokens": 2, "cache_prompt": false}',
                      "--token-ids", "5:6", "--seed", "7", "--output", trace, env=env)
            _, stats, requests = srv.stop()
            with open(trace) as f:
                trace_text = f.read()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(stats["requests"], 4)
        for q, b in zip(requests, self.bodies(requests)):
            self.assertTrue(q.startswith("POST /v1/completions HTTP/1.1\r\n"), q)
            self.assertIn("\r\nAuthorization: Bearer sk-secret-from-env\r\n", q)
            self.assertIn("\r\nX-Team: latency\r\n", q)
            self.assertIn("\r\nX-Request-Id: ", q)
            self.assertEqual(b["model"], "m\"odel")
            self.assertTrue(3 <= len(b["prompt"]) <= 9 and set(b["prompt"]) <= {5, 6}, b)
            self.assertEqual(b["max_tokens"], 2)
            self.assertEqual(b["temperature"], 0)
            self.assertIs(b["cache_prompt"], False)
            self.assertIs(b["ignore_eos"], True)
            self.assertIs(b["stream"], True)
            self.assertEqual(b["stream_options"], {"include_usage": True})
            self.assertNotIn("logprobs", b)
        for text in (r.stdout, r.stderr, trace_text):
            self.assertNotIn("sk-secret", text)

    def test_model_from_the_server_and_chat_messages(self):
        with Server("tokens=2") as srv:
            r = bench("--base-url", srv.url, "--endpoint", "/v1/chat/completions", "--rate",
                      "50", "--requests", "2", "--input-len", "5", "--output-len", "2",
                      "--count-tokens", "logprobs", "--api-key", "sk-secret-option", "--quiet")
            _, _, requests = srv.stop()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertNotIn("sk-secret", r.stdout + r.stderr)
        for b in self.bodies(requests):
            self.assertEqual(b["model"], "test-model")  # GET /v1/models's first
            self.assertEqual(len(b["messages"]), 1)
            self.assertEqual(len(b["messages"][0]["content"].split()), 5)
            self.assertIs(b["logprobs"], True)
        self.assertIn("model test-model", r.stdout)

    def test_dataset(self):
        with tempfile.TemporaryDirectory() as d, Server("tokens=max") as srv:
            data = os.path.join(d, "data.jsonl")
            with open(data, "w") as f:
                f.write('{"prompt": "hello there", "max_tokens": 3}\n\n')
                f.write('{"prompt": [1, 2, 3, 4]}\n')
            trace = os.path.join(d, "t.jsonl")
            r = bench("--base-url", srv.url, "--dataset", data, "--rate", "50",
                      "--output-len", "2", "--output", trace, "--quiet")
            _, _, requests = srv.stop()
            self.assertEqual(r.returncode, 0, r.stderr)
            reqs = sorted(read_trace(trace), key=number)
        bodies = self.bodies(requests)
        self.assertEqual(len(bodies), 2)  # the dataset's lines, once
        got = {json.dumps(b["prompt"]): b["max_tokens"] for b in bodies}
        self.assertEqual(got, {'"hello there"': 3, "[1, 2, 3, 4]": 2})
        self.assertEqual([q["output_tokens"] for q in reqs], [3, 2])


class Options(unittest.TestCase):
    """Bad options: one line, exit 2, nothing sent."""

    BAD = [
        [],
        ["--rate", "1"],
        ["--base-url", "ftp://x", "--rate", "1"],
        ["--base-url", "URL", "--rate", "0"],
        ["--base-url", "URL", "--rate", "-1"],
        ["--base-url", "URL", "--rate", "1,x"],
        ["--base-url", "URL"],
        ["--base-url", "URL", "--rate", "1", "--concurrency", "2"],
        ["--base-url", "URL", "--concurrency", "2", "--max-concurrency", "1"],
        ["--base-url", "URL", "--rate", "1", "--arrival", "gamma:0"],
        ["--base-url", "URL", "--rate", "1", "--arrival", "weibull"],
        ["--base-url", "URL", "--rate", "1", "--input-len", "9:3"],
        ["--base-url", "URL", "--rate", "1", "--output-len", "0"],
        ["--base-url", "URL", "--rate", "1", "--requests", "0"],
        ["--base-url", "URL", "--rate", "1", "--duration", "-1"],
        ["--base-url", "URL", "--rate", "1", "--extra-body", "[1]"],
        ["--base-url", "URL", "--rate", "1", "--extra-body", "{\"a\":}"],
        ["--base-url", "URL", "--rate", "1", "--header", "Bad Name: x"],
        ["--base-url", "URL", "--rate", "1", "--header", "Content-Length: 3"],
        ["--base-url", "URL", "--rate", "1", "--endpoint", "/v1/embeddings"],
        ["--base-url", "URL", "--rate", "1", "--count-tokens", "words"],
        ["--base-url", "URL", "--rate", "1", "--threads", "0"],
        ["--base-url", "URL", "--rate", "1", "--convention", "tgi"],
        ["--base-url", "URL", "--rate", "1", "--format", "csv"],
        ["--base-url", "URL", "--rate", "1,2", "--format", "html"],
        ["--base-url", "URL", "--rate", "1", "--dataset", "/nonexistent/data.jsonl"],
        ["--base-url", "URL", "--rate", "1", "--replay", "/nonexistent/trace.jsonl"],
        ["--base-url", "URL", "--rate", "1", "--unknown"],
        ["--base-url", "URL", "--rate", "1", "--quiet=1"],
        ["--base-url", "URL", "--rate", "1", "--metrics-port", "70000"],
        ["--base-url", "URL", "--rate", "1", "--ca-file", "x.pem"],
        ["--base-url", "URL", "--concurrency", "999999"],
        ["--base-url", "URL", "--rate", "1", "positional"],
    ]

    def test_bad_options(self):
        with tempfile.TemporaryDirectory() as d, Server("tokens=1") as srv:
            bad_dataset = os.path.join(d, "bad.jsonl")
            with open(bad_dataset, "w") as f:
                f.write('{"prompt": "a"}\n{"messages": [{"role": "user"}]}\n')
            cases = self.BAD + [["--base-url", "URL", "--rate", "1", "--dataset", bad_dataset]]
            for args in cases:
                args = [srv.url if a == "URL" else a for a in args]
                r = bench(*args)
                self.assertEqual(r.returncode, 2, (args, r.stderr))
                self.assertEqual(len(r.stderr.splitlines()), 1, (args, r.stderr))
                self.assertTrue(r.stderr.startswith("llmlat bench: "), r.stderr)
                self.assertEqual(r.stdout, "")
            r = bench("--base-url", "http://127.0.0.1:1", "--rate", "1", "--dataset",
                      bad_dataset)
            self.assertIn("bad.jsonl:2:", r.stderr)
            _, stats, _ = srv.stop()
        self.assertEqual(stats["requests"], 0)

    def test_header_values_never_printed(self):
        r = bench("--base-url", "http://127.0.0.1:1", "--rate", "1", "--header",
                  "Authorization: Bearer sk-very-secret\r\nX: y")
        self.assertEqual(r.returncode, 2)
        self.assertNotIn("sk-very-secret", r.stderr)

    def test_help(self):
        r = bench("--help")
        self.assertEqual(r.returncode, 0)
        for opt in ("--base-url", "--rate", "--concurrency", "--max-concurrency", "--arrival",
                    "--replay", "--dataset", "--count-tokens", "--metrics-port", "--drain",
                    "--convention", "--goodput", "--percentiles", "--format"):
            self.assertIn(opt, r.stdout)


class Tls(unittest.TestCase):
    """https:// through a TLS proxy in front of the test server (a
    self-signed certificate of tests/bench/data/tls), or, in a build
    without TLS, the one-line refusal that names the option."""

    def proxy(self, target_port):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls_dir = os.path.join(ROOT, "tests", "bench", "data", "tls")
        ctx.load_cert_chain(os.path.join(tls_dir, "cert.pem"), os.path.join(tls_dir, "key.pem"))
        lsock = socket.socket()
        lsock.bind(("127.0.0.1", 0))
        lsock.listen(16)
        lsock.settimeout(0.2)
        stop = threading.Event()

        def pump(a, b):
            try:
                while True:
                    data = a.recv(65536)
                    if not data:
                        break
                    b.sendall(data)
            except OSError:
                pass
            finally:
                for s in (a, b):
                    try:
                        s.close()
                    except OSError:
                        pass

        def serve():
            while not stop.is_set():
                try:
                    raw, _ = lsock.accept()
                except socket.timeout:
                    continue
                except OSError:
                    break
                try:
                    raw.settimeout(10)
                    tls = ctx.wrap_socket(raw, server_side=True)
                    tls.settimeout(None)
                except (ssl.SSLError, OSError):
                    raw.close()
                    continue
                up = socket.create_connection(("127.0.0.1", target_port))
                threading.Thread(target=pump, args=(tls, up), daemon=True).start()
                threading.Thread(target=pump, args=(up, tls), daemon=True).start()

        t = threading.Thread(target=serve, daemon=True)
        t.start()
        return lsock, stop, t

    def test_https(self):
        with Server("tokens=3") as srv:
            if not TLS:
                r = bench("--base-url", "https://127.0.0.1:%d" % srv.port, "--rate", "1")
                self.assertEqual(r.returncode, 2)
                self.assertIn("-Dtls=enabled", r.stderr)
                self.assertEqual(len(r.stderr.splitlines()), 1)
                srv.stop()
                return
            lsock, stop, t = self.proxy(srv.port)
            try:
                url = "https://127.0.0.1:%d" % lsock.getsockname()[1]
                ca = os.path.join(ROOT, "tests", "bench", "data", "tls", "cert.pem")
                r = bench("--base-url", url, "--rate", "20", "--requests", "6",
                          "--input-len", "4", "--output-len", "3", "--ca-file", ca,
                          "--format", "json", "--quiet")
                self.assertEqual(r.returncode, 0, r.stderr)
                report = json.loads(r.stdout)
                self.assertEqual(report["bench"]["failures"], {})
                self.assertEqual(report["bench"]["sent"], 6)
                # the system's trust store does not know the test certificate
                r = bench("--base-url", url, "--rate", "20", "--requests", "1", "--quiet")
                self.assertEqual(r.returncode, 1)
                self.assertIn("certificate", r.stderr)
                r = bench("--base-url", url, "--rate", "20", "--requests", "2",
                          "--input-len", "4", "--output-len", "3", "--insecure", "--quiet")
                self.assertEqual(r.returncode, 0, r.stderr)
            finally:
                stop.set()
                lsock.close()
                t.join()
            srv.stop()


class Metrics(unittest.TestCase):

    def test_metrics_port_serves_the_live_measurements(self):
        with Server("ttft=0.005,gap=0.01,tokens=20") as srv:
            p = subprocess.Popen([LLMLAT, "bench", "--base-url", srv.url, "--rate", "20",
                                  "--duration", "3", "--input-len", "4", "--output-len", "4",
                                  "--metrics-port", "0", "--quiet"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 universal_newlines=True)
            line = p.stderr.readline()
            m = re.search(r"metrics on (http://127\.0\.0\.1:\d+/metrics)", line)
            self.assertTrue(m, line)
            time.sleep(1.5)
            with urllib.request.urlopen(m.group(1) + "?format=text", timeout=10) as resp:
                text = resp.read().decode()
            with urllib.request.urlopen(m.group(1), timeout=10) as resp:
                default = resp.read().decode()
            out, err = p.communicate(timeout=60)
            srv.stop()
        self.assertEqual(p.returncode, 0, err)
        self.assertEqual(default, text)  # no Accept header: text 0.0.4
        self.assertIn('llmlat_ttft_seconds_count{endpoint="/v1/completions",'
                      'model="test-model"}', text)
        count = re.search(r'llmlat_requests_completed_total\{[^}]*\} (\d+)', text)
        self.assertTrue(count and int(count.group(1)) > 0, text[:2000])
        if PROMTOOL:
            r = subprocess.run([PROMTOOL, "check", "metrics"], input=text,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            self.assertEqual(r.returncode, 0, r.stdout)


if __name__ == "__main__":
    unittest.main(verbosity=2)
