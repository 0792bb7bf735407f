"""report(), summary(), set_buckets(), to_bytes()/from_bytes() and pickling,
bounded mode: what the C library writes, read back through the binding."""

import json
import math
import pickle
import unittest

from ._support import MS, S, add_requests, llmlat, seed_ab

SUMMARY_KEYS = [
    "convention", "duration_s", "completed", "failed", "total_input_tokens",
    "total_output_tokens", "request_throughput", "output_throughput",
    "total_token_throughput", "request_goodput", "good_requests",
    "max_concurrent_requests", "max_output_tokens_per_s", "tpot_undefined", "metrics",
]
METRIC_KEYS = ["count", "mean", "std", "min", "max", "median"]
SUMMARY_METRICS = ["ttft", "tpot", "itl", "icl", "e2e", "tps_user", "itl_max"]


def filled(convention="default", mode="exact", **kw):
    a = llmlat.Aggregator(convention, mode, **kw)
    add_requests(a, seed_ab() + [
        dict(start=2 * S, times=[2 * S + 30 * MS], ok=False),
        dict(start=S, times=[S + 3 * MS, S + 9 * MS, S + 40 * MS], tokens=[1, 0, 2],
             input_tokens=17, end=S + 50 * MS),
        dict(start=S, times=[S + 8 * MS]),
    ])
    return a


#: The formats of what an exact aggregator keeps of each request.
PER_REQUEST_FORMATS = ("chrome_trace", "requests_csv", "requests_jsonl")
#: Every format but the binary protobuf one.
TEXT_FORMATS = [f for f in llmlat.FORMATS if f != "prometheus_protobuf"]


class ReportTest(unittest.TestCase):
    def test_every_format_is_text(self):
        for conv in llmlat.CONVENTIONS:
            with filled(conv) as a:
                for fmt in TEXT_FORMATS:
                    with self.subTest(convention=conv, format=fmt):
                        text = a.report(fmt)
                        self.assertIsInstance(text, str)
                        self.assertGreater(len(text), 100)
                self.assertEqual(a.report(), a.report("text"))
                json.loads(a.report("json"))
                self.assertIn("# TYPE", a.report("prometheus"))

    def test_empty_aggregator_reports(self):
        with llmlat.Aggregator() as a:
            for fmt in TEXT_FORMATS:
                # no request: no line of JSON Lines
                self.assertEqual(bool(a.report(fmt)), fmt != "requests_jsonl", fmt)
            self.assertTrue(a.report_bytes("prometheus_protobuf"))
            s = a.summary()
            self.assertEqual(s["completed"], 0)
            self.assertIsNone(s["metrics"]["ttft"]["mean"])

    def test_large_report_streams_in_pieces(self):
        with filled() as a:
            a.set_quantiles([i / 31 for i in range(32)])
            for fmt in llmlat.FORMATS:
                with self.subTest(format=fmt):
                    # the same bytes as the buffer call, made in one call
                    streamed = a.report_bytes(fmt)
                    fmt_id = llmlat._core._FORMAT_IDS[fmt]
                    buffered = a._buffer_call(llmlat._core.lib.llmlat_agg_report,
                                              "llmlat_agg_report", fmt_id)
                    self.assertEqual(streamed, buffered)
            self.assertGreater(len(a.report("json")), 4096)
            self.assertIn("p100", a.summary()["metrics"]["ttft"])

    def test_an_error_while_streaming_is_raised(self):
        original = llmlat._core.ctypes.string_at

        def broken(*args):
            raise KeyboardInterrupt("stop")

        with filled() as a:
            llmlat._core.ctypes.string_at = broken
            try:
                with self.assertRaises(KeyboardInterrupt):
                    a.report("json")
            finally:
                llmlat._core.ctypes.string_at = original
            self.assertTrue(a.report("json"))

    def test_closed_aggregator_cannot_report(self):
        a = filled()
        a.close()
        with self.assertRaises(ValueError):
            a.report()


class SummaryTest(unittest.TestCase):
    def test_schema(self):
        with filled() as a:
            s = a.summary()
            for key in SUMMARY_KEYS:
                self.assertIn(key, s)
            self.assertIsInstance(s.get("schema_version"), int)
            self.assertEqual(s["convention"], "default")
            for m in SUMMARY_METRICS:
                for key in METRIC_KEYS + ["p50", "p90", "p95", "p99"]:
                    self.assertIn(key, s["metrics"][m], (m, key))

    def test_values_equal_the_queries(self):
        for conv in llmlat.CONVENTIONS:
            with filled(conv, slo={"ttft": 0.05}) as a, self.subTest(convention=conv):
                s = a.summary()
                self.assertEqual(s["convention"], conv)
                self.assertEqual(s["completed"], a.counter("completed"))
                self.assertEqual(s["failed"], a.counter("failed"))
                self.assertEqual(s["total_input_tokens"], a.counter("input_tokens"))
                self.assertEqual(s["total_output_tokens"], a.counter("output_tokens"))
                self.assertEqual(s["tpot_undefined"], a.counter("tpot_undefined"))
                self.assertEqual(s["good_requests"], a.counter("good"))
                self.assertEqual(s["max_concurrent_requests"], a.counter("peak_concurrency"))
                self.assertEqual(s["request_throughput"], a.rate("requests"))
                self.assertEqual(s["output_throughput"], a.rate("output_tokens"))
                self.assertEqual(s["total_token_throughput"], a.rate("total_tokens"))
                self.assertEqual(s["request_goodput"], a.rate("goodput"))
                self.assertEqual(s["max_output_tokens_per_s"], a.rate("peak_output_tokens"))
                for m in SUMMARY_METRICS:
                    got = s["metrics"][m]
                    for stat in METRIC_KEYS:
                        self.assertEqual(got[stat], a.stat(m, stat), (m, stat))
                    for q in (0.5, 0.9, 0.95, 0.99):
                        self.assertEqual(got["p%g" % (100 * q)], a.quantile(m, q), (m, q))

    def test_undefined_is_null(self):
        with filled() as a:
            s = a.summary()
            self.assertIsNone(s["request_goodput"])  # no SLO
            self.assertIsNone(s["good_requests"])

    def test_percentile_keys(self):
        with filled() as a:
            a.set_quantiles([0.25, 0.999, 0.5])
            ttft = a.summary()["metrics"]["ttft"]
            self.assertEqual(ttft["p25"], a.quantile("ttft", 0.25))
            self.assertEqual(ttft["p99.9"], a.quantile("ttft", 0.999))
            self.assertNotIn("p99", ttft)

    def test_tool_section_under_a_named_convention(self):
        with filled("vllm", duration=2.0) as a:
            tool = a.summary()["tool"]
            self.assertEqual(tool["completed"], a.counter("completed"))
            self.assertAlmostEqual(tool["mean_ttft_ms"], a.stat("ttft", "mean") * 1e3,
                                   delta=1e-9)
            self.assertAlmostEqual(tool["p99_itl_ms"], a.quantile("icl", 0.99) * 1e3,
                                   delta=1e-9)


def _prometheus_of_filled():
    with filled() as a:
        return a.report("prometheus")


class BucketsTest(unittest.TestCase):
    def test_prometheus_histogram_bounds(self):
        with filled() as a:
            a.set_buckets("ttft", [0.001, 0.01, 0.5])
            prom = a.report("prometheus")
            self.assertIn('le="0.01"', prom)
            self.assertIn('le="0.5"', prom)
            self.assertNotEqual(prom, _prometheus_of_filled())
            a.set_buckets("ttft")  # the default again
            self.assertEqual(a.report("prometheus"), _prometheus_of_filled())
            a.reset()  # kept by reset
            a.set_buckets("ttft", [0.001, 0.01, 0.5])
            a.reset()
            self.assertIn('le="0.01"', a.report("prometheus"))

    def test_bad_buckets(self):
        with llmlat.Aggregator() as a:
            for bad in ([0.2, 0.1], [0.1, 0.1], [math.nan], [math.inf], [0.1] * 65,
                        [i / 100 for i in range(1, 66)]):
                with self.subTest(bad=bad[:3]):
                    self.assertRaises(llmlat.InvalidArgumentError, a.set_buckets, "ttft", bad)
            self.assertRaises(llmlat.InvalidArgumentError, a.set_buckets, "output_tokens",
                              [1.0])
            self.assertRaises(llmlat.InvalidArgumentError, a.set_buckets, "nope", [1.0])
            self.assertRaises(TypeError, a.set_buckets, "ttft", ["1"])
            a.set_buckets("e2e", [i / 10 for i in range(1, 65)])  # 64 is the limit


class SerializationTest(unittest.TestCase):
    def assertSameAggregates(self, a, b):
        self.assertEqual(a.convention, b.convention)
        self.assertEqual(a.mode, b.mode)
        for counter in ("completed", "failed", "tpot_undefined", "input_tokens",
                        "output_tokens", "peak_concurrency"):
            self.assertEqual(a.counter(counter), b.counter(counter), counter)
        for metric in llmlat.METRICS:
            for stat in llmlat.STATS:
                self.assertEqual(a.stat(metric, stat), b.stat(metric, stat), (metric, stat))
            for q in (0, 0.1, 0.5, 0.99, 1):
                self.assertEqual(a.quantile(metric, q), b.quantile(metric, q), (metric, q))
        for rate in ("requests", "output_tokens", "total_tokens", "peak_output_tokens"):
            self.assertEqual(a.rate(rate), b.rate(rate), rate)

    def test_round_trip(self):
        for conv in llmlat.CONVENTIONS:
            for mode in llmlat.MODES:
                with filled(conv, mode) as a, self.subTest(convention=conv, mode=mode):
                    data = a.to_bytes()
                    self.assertIsInstance(data, bytes)
                    with llmlat.Aggregator.from_bytes(data) as b:
                        self.assertSameAggregates(a, b)
                        self.assertEqual(b.to_bytes(), data)
                    for like in (bytearray(data), memoryview(data)):
                        with llmlat.Aggregator.from_bytes(like) as c:
                            self.assertEqual(c.counter("completed"), a.counter("completed"))

    def test_settings_travel(self):
        for mode in llmlat.MODES:
            with filled("sglang", mode, relative_error=0.02, duration=3.5,
                        slo={"ttft": 0.05, "e2e": 1.0}, quantiles=[0.25, 0.999]) as a, \
                    self.subTest(mode=mode):
                a.set_buckets("ttft", [0.001, 0.01, 0.1])
                with llmlat.Aggregator.from_bytes(a.to_bytes()) as b:
                    for param in llmlat.PARAMS:
                        self.assertEqual(b.get_param(param), a.get_param(param), param)
                    for fmt in llmlat.FORMATS:
                        if mode == "bounded" and fmt in PER_REQUEST_FORMATS:
                            self.assertRaises(llmlat.UndefinedError, b.report_bytes, fmt)
                            continue
                        self.assertEqual(b.report_bytes(fmt), a.report_bytes(fmt), fmt)
                    self.assertIn("p99.9", b.summary()["metrics"]["ttft"])

    def test_empty_round_trip(self):
        with llmlat.Aggregator("sglang") as a, llmlat.Aggregator.from_bytes(a.to_bytes()) as b:
            self.assertEqual(b.convention, "sglang")
            self.assertEqual(b.counter("completed"), 0)

    def test_deserialized_merges(self):
        with filled() as a, filled() as b, llmlat.Aggregator.from_bytes(b.to_bytes()) as c:
            a.merge(c)
            self.assertEqual(a.counter("completed"), 2 * b.counter("completed"))

    def test_malformed_bytes(self):
        with filled() as a:
            data = a.to_bytes()
        cases = {
            "empty": b"",
            "garbage": b"not an aggregator at all",
            "truncated": data[:-1],
            "half": data[: len(data) // 2],
            "trailing": data + b"\0",
            "corrupted magic": bytes([data[0] ^ 0xFF]) + data[1:],
        }
        for name, bad in cases.items():
            with self.subTest(case=name):
                with self.assertRaises(llmlat.FormatError) as cm:
                    llmlat.Aggregator.from_bytes(bad)
                self.assertEqual(cm.exception.status, -6)
                self.assertEqual(cm.exception.where, "llmlat_agg_deserialize")
        self.assertRaises(TypeError, llmlat.Aggregator.from_bytes, 5)
        self.assertRaises(TypeError, llmlat.Aggregator.from_bytes, "text")
        self.assertRaises(TypeError, llmlat.Aggregator.from_bytes, None)

    def test_pickle(self):
        with filled("aiperf") as a:
            b = pickle.loads(pickle.dumps(a))
            try:
                self.assertSameAggregates(a, b)
                self.assertEqual(b.report("json"), a.report("json"))
            finally:
                b.close()


class BoundedModeTest(unittest.TestCase):
    def test_bounded_aggregator(self):
        with filled("default", "bounded", relative_error=0.02) as a:
            self.assertEqual(a.mode, "bounded")
            self.assertEqual(a.get_param("relative_error"), 0.02)
            self.assertEqual(a.counter("completed"), 4)
            self.assertEqual(a.stat("ttft", "count"), 4)
            self.assertEqual(a.stat("ttft", "min"), 0.003)
            self.assertEqual(a.stat("ttft", "max"), 0.1)
            med = a.quantile("ttft", 0.5)
            self.assertLessEqual(abs(med - 0.054) / 0.054, 0.02 + 1e-12)

    def test_relative_error_fixed_once_data_arrived(self):
        with filled("default", "bounded") as a:
            with self.assertRaises(llmlat.StateError):
                a.set_param("relative_error", 0.05)
            self.assertRaises(llmlat.StateError, a.set_param, "slo_ttft", 0.5)

    def test_merge_mismatch(self):
        with filled("default", "bounded", relative_error=0.01) as a, \
                filled("default", "bounded", relative_error=0.02) as b, \
                filled("default", "exact") as c:
            self.assertRaises(llmlat.MismatchError, a.merge, b)
            self.assertRaises(llmlat.MismatchError, a.merge, c)

    def test_memory_stays_bounded(self):
        with llmlat.Aggregator("default", "bounded") as a, llmlat.Request() as r:
            sizes = []
            for batch in range(3):
                for i in range(2000):
                    r.reset()
                    r.start(0)
                    r.events([(i % 997 + 1) * MS + j * MS for j in range(10)])
                    r.finish((i % 997 + 1) * MS + 9 * MS)
                    a.add(r)
                sizes.append(a.counter("memory_bytes"))
            self.assertEqual(sizes[1], sizes[2])
