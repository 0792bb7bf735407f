"""Parts of a run and comparisons from Python: windows and slices,
Aggregator.compare and Comparison, the per-request tables (dicts and numpy),
the Chrome trace checked against the Trace Event Format, the HTML page."""

import json
import math
import re
import unittest

from ._support import MS, S, llmlat, make_request, numpy_or_skip


def run(n=60, shift=0, fail_every=0, seed=1, conv="default", mode="exact"):
    """n requests started 100 ms apart, each 4 to 11 one-token chunks; TTFT
    around 60 ms (+ shift ns), gaps 10 to 30 ms; every fail_every-th fails."""
    agg = llmlat.Aggregator(conv, mode, slo={"ttft": 0.08})
    x = seed
    for i in range(n):
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        u = (x >> 11) / float(1 << 53)
        start = i * 100 * MS
        t = start + int((30 + 60 * u * u) * MS) + shift
        times = []
        for k in range(4 + (x >> 20) % 8):
            times.append(t)
            t += (10 + (x >> (24 + k)) % 20) * MS
        ok = not (fail_every and i % fail_every == fail_every - 1)
        with make_request(start, times, end=times[-1] + MS, ok=ok, input_tokens=50 + i) as r:
            agg.add(r)
    return agg


class WindowTest(unittest.TestCase):
    def test_span_window_warmup_cooldown(self):
        agg = run(50)
        first, last = agg.span()
        self.assertEqual(first, 0)
        # warm-up drops by start, cool-down by end
        w = agg.window(warmup=1.0, cooldown=1.0)
        reqs = agg.requests()
        want = [r for r in reqs
                if r["start_s"] >= 1.0 and r["end_s"] <= last / S - 1.0]
        self.assertEqual(w.counter("completed"), len(want))
        self.assertGreater(len(want), 20)
        kept = w.requests()
        self.assertEqual([r["start_s"] for r in kept], [r["start_s"] for r in want])
        # --window FROM:TO: wholly inside [first + FROM, first + TO]
        w2 = agg.window(2.0, 3.0)
        self.assertTrue(all(2.0 <= r["start_s"] and r["end_s"] <= 3.0 for r in w2.requests()))
        self.assertEqual(w2.get_param("duration"), 0.0)
        # a window is set up like its source
        self.assertEqual(w2.convention, agg.convention)
        for a in (w, w2):
            a.close()

    def test_slices_partition_the_window(self):
        agg = run(57, fail_every=9)
        parts = agg.slices(1.3, warmup=0.5)
        whole = agg.window(warmup=0.5)
        self.assertEqual(sum(p.counter("completed") + p.counter("failed") for p in parts),
                         whole.counter("completed") + whole.counter("failed"))
        lo = whole.span()[0]
        first = agg.span()[0]
        for i, p in enumerate(parts):
            for r in p.requests():
                self.assertGreaterEqual(r["start_s"] * S, first + 0.5 * S + i * 1.3 * S - 1)
                self.assertLess(r["start_s"] * S, first + 0.5 * S + (i + 1) * 1.3 * S)
        self.assertGreaterEqual(lo, first + 0.5 * S)
        self.assertEqual(len(parts), int((whole.span()[1] - (first + 0.5 * S)) // (1.3 * S)) + 1)

    def test_add_window_and_errors(self):
        src = run(20)
        dst = llmlat.Aggregator("vllm")
        dst.add_window(src, 0, 10 * S, "start")
        self.assertEqual(dst.counter("completed"), 20)  # under dst's convention
        self.assertEqual(dst.convention, "vllm")
        with self.assertRaises(llmlat.InvalidArgumentError):
            dst.add_window(src, 0, 1, "sideways")
        with self.assertRaises(llmlat.InvalidArgumentError):
            dst.add_window(src, 5, 1)
        bounded = run(10, mode="bounded")
        self.assertIsNone(bounded.span())
        with self.assertRaises(llmlat.UndefinedError):
            dst.add_window(bounded, 0, 1)
        with self.assertRaises(llmlat.UndefinedError):
            bounded.window(warmup=1)
        with self.assertRaises(llmlat.UndefinedError):
            bounded.requests()


class CompareTest(unittest.TestCase):
    def test_known_shift(self):
        base, cand = run(150, seed=3), run(150, seed=3, shift=15 * MS)
        with base.compare(cand, resamples=300, seed=7) as c:
            f = c.get("mean_ttft")
            self.assertAlmostEqual(f["diff"], 0.015, delta=1e-9)
            self.assertTrue(f["significant"])
            self.assertLess(f["diff_low"], 0.015)
            self.assertGreater(f["diff_high"], 0.015)
            self.assertEqual(f["base"], base.stat("ttft", "mean"))
            self.assertFalse(c.get("mean_itl")["significant"])
            self.assertIn("p99_ttft", c.figures)
            self.assertIn("request_goodput", c.figures)
            # the rules: TTFT grew far more than 5%, throughput did not move
            broken = c.broken("mean_ttft:+5%,output_throughput:-3%")
            self.assertEqual(len(broken), 1)
            self.assertTrue(broken[0].startswith("mean_ttft:"))
            self.assertEqual(c.broken("mean_ttft:+90%"), [])
            self.assertEqual(c.broken([("mean_ttft", 0.05)]), broken)
            s = c.summary()
            self.assertEqual(s["resamples"], 300)
            self.assertIs(s["figures"]["mean_ttft"]["significant"], True)
            self.assertIn("mean_ttft", c.report())
            with self.assertRaises(KeyError):
                c.get("p50_ttft")
            with self.assertRaises(ValueError):
                c.broken("mean_ttft+5%")

    def test_no_difference_and_reproducibility(self):
        base, cand = run(120, seed=11), run(120, seed=12)
        one = base.compare(cand, resamples=200, seed=5).summary()
        two = base.compare(cand, resamples=200, seed=5).summary()
        self.assertEqual(one, two)
        for name in ("mean_ttft", "median_ttft", "mean_e2e", "mean_tpot"):
            self.assertFalse(one["figures"][name]["significant"], name)
        other = base.compare(cand, resamples=200, seed=6).summary()
        self.assertNotEqual(one["figures"]["mean_ttft"]["diff_low"],
                            other["figures"]["mean_ttft"]["diff_low"])

    def test_mismatch_and_bounded(self):
        with self.assertRaises(llmlat.MismatchError):
            run(5).compare(run(5, conv="vllm"))
        c = run(20).compare(run(20, mode="bounded"), resamples=50)
        f = c.get("mean_ttft")
        self.assertIsNotNone(f["diff"])
        self.assertIsNone(f["diff_low"])
        self.assertIsNone(f["significant"])
        c.close()
        c.close()
        with self.assertRaises(ValueError):
            c.get("mean_ttft")


class RequestTableTest(unittest.TestCase):
    def test_dicts_equal_request_values(self):
        agg = llmlat.Aggregator("sglang")
        specs = [(0, [50 * MS, 60 * MS, 90 * MS], [1, 2, 0], True),
                 (10 * MS, [70 * MS], [1], True),
                 (20 * MS, [], [], False)]
        made = []
        for start, times, tokens, ok in specs:
            r = make_request(start, times, tokens if times else 1, ok=ok, input_tokens=7)
            agg.add(r)
            made.append(r)
        rows = agg.requests()
        self.assertEqual([r["index"] for r in rows], [0, 1, 2])
        for row, r in zip(rows, made):
            for col, metric in (("ttft_s", "ttft"), ("tpot_s", "tpot"), ("e2e_s", "e2e"),
                                ("itl_max_s", "itl_max"), ("output_tokens", "output_tokens")):
                self.assertEqual(row[col], r.value(metric, "sglang"), (col, row))
            self.assertEqual(row["input_tokens"], 7)
            r.close()
        self.assertEqual([r["success"] for r in rows], [True, True, False])
        self.assertIsNone(rows[1]["tpot_s"])  # N = 1
        csv = agg.report("requests_csv").splitlines()
        self.assertEqual(csv[0], "index,start_s,end_s,ttft_s,tpot_s,e2e_s,itl_max_s,"
                                 "output_tokens,input_tokens,scheduled_s,dispatch_delay_s,"
                                 "scheduled_ttft_s,scheduled_e2e_s,success")
        self.assertEqual(len(csv), 4)
        self.assertEqual(csv[2].split(",")[4], "")  # undefined: empty

    def test_numpy_array(self):
        np = numpy_or_skip(self)
        agg = run(30)
        arr = agg.requests_array()
        self.assertEqual(arr.shape, (30,))
        self.assertEqual(arr.dtype.names[:3], ("index", "start_s", "end_s"))
        rows = agg.requests()
        self.assertTrue(np.array_equal(arr["ttft_s"], [r["ttft_s"] for r in rows]))
        self.assertEqual(float(np.mean(arr["ttft_s"])), np.mean([r["ttft_s"] for r in rows]))
        self.assertTrue(arr["success"].all())


def check_trace_events(doc, test):
    """The Trace Event Format's rules a viewer relies on: every event has
    name, ph, ts, pid, tid; timestamps never go back; on each track every
    "B" is closed by an "E" of the same name, nested."""
    events = doc["traceEvents"]
    last = -1.0
    stacks = {}
    for e in events:
        for key in ("name", "ph", "ts", "pid", "tid"):
            test.assertIn(key, e)
        if e["ph"] == "M":
            continue
        test.assertGreaterEqual(e["ts"], last)
        last = e["ts"]
        stack = stacks.setdefault(e["tid"], [])
        if e["ph"] == "B":
            stack.append(e["name"])
        elif e["ph"] == "E":
            test.assertTrue(stack, "E without B on track %s" % e["tid"])
            opened = stack.pop()
            test.assertTrue(opened == e["name"] or opened.startswith(e["name"] + " "),
                            (opened, e["name"]))
        else:
            test.assertEqual(e["ph"], "i")
            test.assertTrue(stack, "instant outside a span")
    for tid, stack in stacks.items():
        test.assertEqual(stack, [], "unclosed spans on track %s" % tid)
    return events


class ChromeTraceTest(unittest.TestCase):
    def test_trace_event_format(self):
        agg = run(80, fail_every=7)
        doc = json.loads(agg.chrome_trace())
        events = check_trace_events(doc, self)
        begins = [e for e in events if e["ph"] == "B" and e.get("cat") == "request"]
        self.assertEqual(len(begins), 80)
        failed = [e for e in begins if e["args"]["failed"]]
        self.assertEqual(len(failed), 80 // 7)
        self.assertTrue(all(e["name"].endswith("(failed)") for e in failed))
        self.assertEqual(len([e for e in events if e["name"] == "failed"]), 80 // 7)
        chunks = [e for e in events if e["name"] == "chunk"]
        self.assertEqual(len(chunks), sum(b["args"]["events"] for b in begins))
        phases = [e["name"] for e in events if e.get("cat") == "phase"]
        self.assertEqual(phases.count("waiting for first token"), 80)
        self.assertEqual(phases.count("decoding"), 80)
        # tracks reused: as many as the most requests in flight at once
        spans = [(r["start_s"], r["end_s"]) for r in agg.requests()]
        points = sorted([(s, 1) for s, _ in spans] + [(e, -1) for _, e in spans],
                        key=lambda p: (p[0], p[1]))
        cur = peak = 0
        for _, d in points:
            cur += d
            peak = max(peak, cur)
        self.assertEqual(doc["otherData"]["tracks"], peak)
        self.assertEqual(len({e["tid"] for e in begins}), peak)
        # times: microseconds from the first start, exactly
        self.assertEqual(begins[0]["ts"], 0)


class HtmlTest(unittest.TestCase):
    def test_self_contained_page(self):
        agg = run(40, fail_every=10)
        page = agg.to_html()
        self.assertTrue(page.startswith("<!DOCTYPE html>"))
        self.assertNotIn("<script", page)
        self.assertEqual(re.findall(r'(?:href|src)=', page), [])
        self.assertEqual(set(re.findall(r"https?://[^\"' ]+", page)),
                         {"http://www.w3.org/2000/svg"})
        for chart in ("cdf-ttft", "cdf-tpot", "cdf-itl", "cdf-e2e", "itl-histogram",
                      "input-lengths", "output-lengths", "tokens-over-time",
                      "concurrency-over-time"):
            self.assertIn('id="%s"' % chart, page)
        self.assertEqual(page.count('class="marker p99"'), 4)
        self.assertIn("Failed requests", page)
        bounded = run(40, mode="bounded").to_html()
        self.assertIn("Bounded mode keeps no timeline", bounded)
        self.assertNotIn('id="tokens-over-time"', bounded)
        self.assertIn('id="cdf-ttft"', bounded)


class EmptyLikeTest(unittest.TestCase):
    def test_settings_not_data(self):
        a = llmlat.Aggregator("aiperf", quantiles=[0.1, 0.3])
        a.set_param("slo_e2e", 0.5)
        b = run(5, conv="aiperf")
        c = a.empty_like()
        self.assertEqual(c.convention, "aiperf")
        self.assertEqual(c.get_param("slo_e2e"), 0.5)
        self.assertEqual(c.counter("completed"), 0)
        self.assertIn("p30", c.summary()["metrics"]["ttft"])
        b.close()
        a.close()
        with self.assertRaises(ValueError):
            a.empty_like()


if __name__ == "__main__":
    unittest.main()
