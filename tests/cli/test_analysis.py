"""`llmlat report` windows, slices and per-request outputs, and `llmlat
compare`, as a user runs them (suite cli).

The traces are generated here with a seeded generator: a base run, a
candidate that is the base with every request's TTFT a known amount later
(the intervals must find it), and a second draw from the base's
distribution (they must not, beyond what a 95% interval allows).
Standard library only; run by meson with LLMLAT and SOURCE_ROOT set.
"""
import csv
import io
import json
import os
import random
import subprocess
import tempfile
import unittest

LLMLAT = os.environ["LLMLAT"]
ROOT = os.environ["SOURCE_ROOT"]
SAMPLE = os.path.join(ROOT, "examples", "sample-trace.json")


def run(*args, stdin=None):
    return subprocess.run([LLMLAT, *args], input=stdin, capture_output=True, text=True)


def make_run(seed, n=300, shift_ms=0.0, fail_every=0):
    """n requests started 40 ms apart (12 s), TTFT a skewed draw around
    70 ms (+ shift), 6 to 25 chunks of 1 or 2 tokens 15 to 35 ms apart."""
    rnd = random.Random(seed)
    reqs = []
    for i in range(n):
        start = i * 0.040
        t = start + 0.030 + 0.080 * rnd.random() ** 2 + shift_ms / 1000.0
        events = []
        for _ in range(rnd.randint(6, 25)):
            events.append([round(t, 9), rnd.choice((1, 1, 1, 2))])
            t += 0.015 + 0.020 * rnd.random()
        ok = not (fail_every and i % fail_every == fail_every - 1)
        reqs.append({"id": i, "start": round(start, 9), "events": events,
                     "input_tokens": rnd.randint(50, 400), "ok": ok,
                     "end": round(t, 9)})
    return {"requests": reqs}


class Traces:
    """The generated traces, written once to a temporary directory."""
    dir = None

    @classmethod
    def path(cls, name, **kw):
        if cls.dir is None:
            cls.dir = tempfile.mkdtemp(prefix="llmlat-cli-analysis-")
        p = os.path.join(cls.dir, name + ".json")
        if not os.path.exists(p):
            with open(p, "w") as f:
                json.dump(make_run(**kw), f)
        return p


def base():
    return Traces.path("base", seed=1)


def shifted():
    return Traces.path("shifted", seed=1, shift_ms=15.0)


def other_draw():
    return Traces.path("other", seed=2)


def report_json(*args):
    p = run("report", "--format", "json", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def per_request(path, *args):
    p = run("report", "--per-request", "jsonl", *args, path)
    assert p.returncode == 0, p.stderr
    return [json.loads(line) for line in p.stdout.splitlines()]


class Windows(unittest.TestCase):
    def test_warmup_by_start_cooldown_by_end(self):
        rows = per_request(SAMPLE)
        first = min(r["start_s"] for r in rows)
        last = max(r["end_s"] for r in rows)
        want = [r for r in rows if r["start_s"] >= first + 30 and r["end_s"] <= last - 20]
        kept = per_request(SAMPLE, "--warmup", "30", "--cooldown", "20")
        self.assertEqual([r["start_s"] for r in kept], [r["start_s"] for r in want])
        j = report_json("--warmup", "30", "--cooldown", "20", SAMPLE)
        self.assertEqual(j["window"]["kept"], len(want))
        self.assertEqual(j["window"]["dropped"], len(rows) - len(want))
        self.assertEqual(j["completed"] + j["failed"], len(want))
        self.assertEqual(j["window"]["rule"], "inside")
        self.assertAlmostEqual(j["window"]["from_s"], 30, places=6)
        self.assertEqual(j["requests_read"], 3000)  # of the whole input
        # the text report says which requests it dropped, and how
        p = run("report", "--warmup", "30", "--cooldown", "20", SAMPLE)
        self.assertEqual(p.returncode, 0)
        window = p.stdout.splitlines()[1]
        self.assertTrue(window.startswith("Window: requests wholly inside 30.000 s"), window)
        self.assertIn("warm-up 30 s drops by start", window)
        self.assertIn("cool-down 20 s drops by end", window)
        self.assertIn(": %d of 3000" % len(want), window)

    def test_window_from_to(self):
        rows = per_request(SAMPLE)
        first = min(r["start_s"] for r in rows)
        kept = per_request(SAMPLE, "--window", "60:120")
        want = [r for r in rows if r["start_s"] >= first + 60 and r["end_s"] <= first + 120]
        self.assertEqual(len(kept), len(want))
        self.assertGreater(len(kept), 100)
        # open ends, and a window's rates over its own requests' span
        j = report_json("--window", "200:", SAMPLE)
        self.assertTrue(all(r["start_s"] >= first + 200
                            for r in per_request(SAMPLE, "--window", "200:")))
        self.assertLess(j["duration_s"], 100)
        # the other formats carry the window too
        p = run("report", "--window", "60:120", "--format", "prometheus", SAMPLE)
        self.assertIn("# llmlat window: requests wholly inside 60.000 s", p.stdout)
        # OpenMetrics has no free comments: the window's figures, then its EOF
        p = run("report", "--window", "60:120", "--format", "openmetrics", SAMPLE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("# llmlat", p.stdout)
        self.assertTrue(p.stdout.endswith("llmlat_trace_requests_rejected_total 0\n# EOF\n"))
        values = dict(line.rsplit(" ", 1) for line in p.stdout.splitlines()
                      if not line.startswith("#"))
        self.assertEqual(int(values["llmlat_requests_completed_total"]) +
                         int(values["llmlat_requests_failed_total"]), len(want))
        p = run("report", "--window", "60:120", "--format", "html", SAMPLE)
        self.assertIn("window = <b>requests wholly inside 60.000 s", p.stdout)

    def test_bounded_window(self):
        j = report_json("--mode", "bounded", "--warmup", "30", SAMPLE)
        e = report_json("--warmup", "30", SAMPLE)
        self.assertEqual(j["mode"], "bounded")
        self.assertEqual(j["completed"], e["completed"])
        self.assertAlmostEqual(j["metrics"]["ttft"]["p50"], e["metrics"]["ttft"]["p50"],
                               delta=0.01 * e["metrics"]["ttft"]["p50"])

    def test_bad_usage(self):
        for args, what in (
                (["--window", "5"], "is not FROM:TO"),
                (["--window", "9:3"], "ends before it starts"),
                (["--warmup", "-1"], "seconds >= 0"),
                (["--slice", "0"], "seconds > 0"),
                (["--format", "csv"], "it needs --slice"),
                (["--slice", "10", "--format", "html"], "--slice writes text, json or csv"),
                (["--slice", "10", "--format", "openmetrics"], "--slice writes text, json or csv"),
                (["--per-request", "xml"], "is not a table format"),
                (["--per-request", "csv", "--format", "json"], "choose one"),
                (["--mode", "bounded", "--per-request", "csv"], "use --mode exact"),
                (["--mode", "bounded", "--format", "chrome-trace"], "use --mode exact"),
                (["--duration", "10", "--warmup", "1"], "derives its own")):
            with self.subTest(args=args):
                p = run("report", *args, SAMPLE)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stdout, "")
                self.assertIn(what, p.stderr)
                self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)


class Slices(unittest.TestCase):
    def test_slices_by_start_as_aiperf(self):
        rows = per_request(SAMPLE)
        first = min(r["start_s"] for r in rows)
        last = max(r["end_s"] for r in rows)
        slices = json.loads(run("report", "--slice", "60", "--format", "json", SAMPLE).stdout)
        self.assertEqual(len(slices), int((last - first) // 60) + 1)
        for i, s in enumerate(slices):
            self.assertEqual(s["slice"]["index"], i)
            self.assertAlmostEqual(s["slice"]["from_s"], 60 * i, places=6)
            mine = [r for r in rows if 60 * i <= r["start_s"] - first < 60 * (i + 1)]
            self.assertEqual(s["completed"] + s["failed"], len(mine))
            self.assertEqual(s["completed"], sum(r["success"] for r in mine))
        self.assertEqual(sum(s["completed"] + s["failed"] for s in slices), len(rows))
        self.assertFalse(slices[-1]["slice"]["complete"])
        self.assertTrue(slices[0]["slice"]["complete"])
        # text: one row per slice; csv: the same figures
        text = run("report", "--slice", "60", SAMPLE).stdout.splitlines()
        table = [line for line in text if line[:5].strip().isdigit()]
        self.assertEqual(len(table), len(slices))
        rows_csv = list(csv.DictReader(io.StringIO(
            run("report", "--slice", "60", "--format", "csv", SAMPLE).stdout)))
        self.assertEqual(len(rows_csv), len(slices))
        for r, s in zip(rows_csv, slices):
            self.assertEqual(int(r["completed"]), s["completed"])
            self.assertEqual(float(r["mean_ttft_s"]), s["metrics"]["ttft"]["mean"])
            self.assertEqual(float(r["p99_e2e_s"]), s["metrics"]["e2e"]["p99"])
            self.assertEqual(float(r["request_throughput"]), s["request_throughput"])
            self.assertEqual(table[int(r["slice"])].split()[3], r["completed"])

    def test_slices_of_a_window(self):
        slices = json.loads(run("report", "--warmup", "100", "--slice", "50", "--format",
                                "json", SAMPLE).stdout)
        self.assertAlmostEqual(slices[0]["slice"]["from_s"], 100, places=6)
        whole = report_json("--warmup", "100", SAMPLE)
        self.assertEqual(sum(s["completed"] for s in slices), whole["completed"])
        self.assertEqual(slices[0]["window"], whole["window"])


class PerRequest(unittest.TestCase):
    def test_csv_and_jsonl(self):
        rows = per_request(SAMPLE, "--convention", "vllm")
        self.assertEqual(len(rows), 3000)
        p = run("report", "--per-request", "csv", "--convention", "vllm", SAMPLE)
        table = list(csv.DictReader(io.StringIO(p.stdout)))
        self.assertEqual(list(table[0]), ["index", "start_s", "end_s", "ttft_s", "tpot_s",
                                          "e2e_s", "itl_max_s", "output_tokens",
                                          "input_tokens", "scheduled_s", "dispatch_delay_s",
                                          "scheduled_ttft_s", "scheduled_e2e_s", "success"])
        for c, j in zip(table, rows):
            self.assertEqual(float(c["ttft_s"]) if c["ttft_s"] else None, j["ttft_s"])
            # from the intended start: the request's own spans, plus its delay
            delay = float(c["dispatch_delay_s"])
            self.assertAlmostEqual(float(c["start_s"]) - float(c["scheduled_s"]), delay,
                                   delta=1e-9)
            if c["ttft_s"]:
                self.assertAlmostEqual(float(c["scheduled_ttft_s"]), float(c["ttft_s"]) + delay,
                                       delta=1e-9)
            self.assertEqual(c["scheduled_e2e_s"] == "", c["e2e_s"] == "")
            self.assertEqual(c["success"] == "true", j["success"])
            self.assertEqual(c["tpot_s"] == "", j["tpot_s"] is None)
        # the means of the table are the report's (successes only)
        j = report_json("--convention", "vllm", SAMPLE)
        ok = [r for r in rows if r["success"]]
        self.assertEqual(len(ok), j["completed"])
        self.assertAlmostEqual(sum(r["ttft_s"] for r in ok) / len(ok),
                               j["metrics"]["ttft"]["mean"], delta=1e-12)
        self.assertEqual(sum(r["output_tokens"] for r in ok), j["total_output_tokens"])


class ChromeTrace(unittest.TestCase):
    def test_trace_event_format(self):
        p = run("report", "--format", "chrome-trace", Traces.path("failing", seed=5,
                                                                  fail_every=9))
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        events = doc["traceEvents"]
        last, stacks, begins = -1.0, {}, 0
        for e in events:
            for key in ("name", "ph", "ts", "pid", "tid"):
                self.assertIn(key, e)
            if e["ph"] == "M":
                continue
            self.assertGreaterEqual(e["ts"], last, e)  # monotonic
            last = e["ts"]
            stack = stacks.setdefault(e["tid"], [])
            if e["ph"] == "B":
                stack.append(e["name"])
                begins += e.get("cat") == "request"
            elif e["ph"] == "E":
                self.assertTrue(stack)
                self.assertTrue(stack.pop().startswith(e["name"]))
            else:
                self.assertEqual(e["ph"], "i")
                self.assertTrue(stack)
        self.assertTrue(all(not s for s in stacks.values()))  # balanced
        self.assertEqual(begins, 300)
        failed = [e for e in events if e["name"] == "failed"]
        self.assertEqual(len(failed), 300 // 9)
        self.assertLess(doc["otherData"]["tracks"], 300)  # reused


def compare_json(*args):
    p = run("compare", "--format", "json", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


class Compare(unittest.TestCase):
    def test_known_shift_is_found(self):
        c = compare_json("--resamples", "400", "--seed", "3", base(), shifted())
        f = c["figures"]
        self.assertAlmostEqual(f["mean_e2e"]["diff"], 0.015, delta=1e-6)
        for name in ("mean_ttft", "median_ttft", "p90_ttft"):
            with self.subTest(figure=name):
                self.assertAlmostEqual(f[name]["diff"], 0.015, delta=1e-6)
                self.assertTrue(f[name]["significant"])
                self.assertLess(f[name]["diff_low"], 0.015)
                self.assertGreater(f[name]["diff_high"], 0.015)
        for name in ("mean_itl", "mean_tpot", "output_throughput"):
            with self.subTest(figure=name):
                self.assertFalse(f[name]["significant"])
        self.assertEqual(c["base_name"], base())
        self.assertEqual(c["candidate_requests_read"], 300)
        # the figures are each run's own report's
        rb = report_json(base())
        self.assertEqual(f["mean_ttft"]["base"], rb["metrics"]["ttft"]["mean"])
        self.assertEqual(f["p99_ttft"]["base"], rb["metrics"]["ttft"]["p99"])
        self.assertEqual(f["output_throughput"]["base"], rb["output_throughput"])

    def test_no_difference(self):
        c = compare_json("--resamples", "400", base(), other_draw())
        main = ["%s_%s" % (s, m) for s in ("mean", "median", "p90")
                for m in ("ttft", "tpot", "itl", "e2e")]
        flagged = [n for n in main if c["figures"][n]["significant"]]
        self.assertLessEqual(len(flagged), 1, flagged)

    def test_reproducible_and_text(self):
        a = run("compare", "--resamples", "200", "--seed", "9", base(), shifted())
        b = run("compare", "--resamples", "200", "--seed", "9", base(), shifted())
        self.assertEqual(a.returncode, 0, a.stderr)
        self.assertEqual(a.stdout, b.stdout)
        lines = a.stdout.splitlines()
        self.assertTrue(lines[0].startswith("Base: "))
        self.assertTrue(lines[1].startswith("Candidate: "))
        row = [line for line in lines if line.startswith("  mean_ttft ")][0]
        self.assertTrue(row.endswith("*"), row)
        row = [line for line in lines if line.startswith("  mean_itl ")][0]
        self.assertFalse(row.endswith("*"), row)

    def test_fail_if(self):
        p = run("compare", "--resamples", "300", "--fail-if",
                "p90_ttft:+5%,output_throughput:-3%", base(), shifted())
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("rule p90_ttft:+5% broken", p.stderr)
        self.assertNotIn("output_throughput", p.stderr)
        self.assertIn("mean_ttft", p.stdout)  # the comparison is written first
        # kept: a generous limit, or a difference the resampling explains
        p = run("compare", "--resamples", "300", "--fail-if", "p90_ttft:+80%", base(),
                shifted())
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run("compare", "--resamples", "300", "--fail-if", "mean_ttft:+0.1%", base(),
                other_draw())
        self.assertEqual(p.returncode, 0, p.stderr)
        # a drop: the base is the slower one
        p = run("compare", "--resamples", "300", "--fail-if", "mean_ttft:-5%", shifted(),
                base())
        self.assertEqual(p.returncode, 1, p.stderr)
        for args, what in ((["--fail-if", "p99_ttft+5%"], "is not a list of FIGURE"),
                           (["--fail-if", "p77_ttft:+5%"], "unknown figure"),
                           (["--fail-if", "mean_ttft:+5%", "--resamples", "0"],
                            "--resamples 0 gives none"),
                           (["--resamples", "100001"], "from 0 to 100000"),
                           (["--mode", "exact"], "unknown option")):
            with self.subTest(args=args):
                p = run("compare", *args, base(), shifted())
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(what, p.stderr)

    def test_any_input_format_and_windows(self):
        # the same run as a trace and through standard input, windowed alike
        with open(base()) as f:
            text = f.read()
        p = subprocess.run([LLMLAT, "compare", "--format", "json", "--warmup", "2",
                            "--resamples", "50", base(), "-"], input=text,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        c = json.loads(p.stdout)
        self.assertEqual(c["figures"]["mean_ttft"]["diff"], 0.0)
        self.assertEqual(c["candidate_name"], "<stdin>")
        self.assertLess(c["base"]["completed"], 300)
        p = run("compare", base())
        self.assertEqual(p.returncode, 2)
        self.assertIn("needs two runs", p.stderr)


class Help(unittest.TestCase):
    def test_help_lists_the_options(self):
        p = run("compare", "--help")
        self.assertEqual(p.returncode, 0)
        for opt in ("--resamples", "--seed", "--fail-if", "--window", "--warmup",
                    "--cooldown", "--convention", "--input"):
            self.assertIn(opt, p.stdout)
        p = run("report", "--help")
        for opt in ("--window", "--warmup", "--cooldown", "--slice", "--per-request"):
            self.assertIn(opt, p.stdout)
        self.assertIn("llmlat compare", run("--help").stdout)


if __name__ == "__main__":
    unittest.main()
