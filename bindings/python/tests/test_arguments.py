"""Wrong arguments: every error names the method and the argument, and says
what was expected and what was given (never ctypes' ``argument 2:
TypeError: wrong type``)."""

import re
import unittest
from array import array

from ._support import llmlat, numpy_or_skip

CTYPES_LEAK = re.compile(r"argument \d|wrong type|cannot be interpreted|object is not iterable")


class ArgumentErrorsTest(unittest.TestCase):
    def setUp(self):
        self.r = llmlat.Request()
        self.addCleanup(self.r.close)
        self.a = llmlat.Aggregator()
        self.addCleanup(self.a.close)

    def check(self, exc_type, message, fn, *args, **kwargs):
        """fn(*args) raises exc_type with exactly ``message`` in its text."""
        with self.assertRaises(exc_type) as cm:
            fn(*args, **kwargs)
        text = str(cm.exception)
        self.assertIn(message, text)
        self.assertIsNone(CTYPES_LEAK.search(text), text)

    def test_timestamps(self):
        r = self.r
        self.check(TypeError, "Request.start: t_ns must be an int (nanoseconds), not float 1.5",
                   r.start, 1.5)
        self.check(TypeError, "Request.start: t_ns must be an int (nanoseconds), not str '1'",
                   r.start, "1")
        self.check(llmlat.InvalidArgumentError,
                   "Request.start: invalid argument", r.start, 1 << 63)
        self.check(llmlat.InvalidArgumentError,
                   "t_ns = 9223372036854775808 is outside int64", r.start, 1 << 63)
        r.start(0)
        self.check(TypeError, "Request.event: t_ns must be an int (nanoseconds), not float 1.5",
                   r.event, 1.5)
        self.check(TypeError, "Request.event: t_ns must be an int (nanoseconds), not NoneType None",
                   r.event, None)
        self.check(TypeError, "Request.event: tokens must be an int, not float 1.0",
                   r.event, 1, 1.0)
        self.check(llmlat.InvalidArgumentError, "tokens = -1 is outside uint32", r.event, 1, -1)
        self.check(llmlat.InvalidArgumentError, "t_ns = -9223372036854775809 is outside int64",
                   r.event, -(1 << 63) - 1)
        self.check(TypeError, "Request.finish: t_ns must be an int (nanoseconds), not float 2.0",
                   r.finish, 2.0)
        self.check(TypeError, "Request.fail: t_ns must be an int (nanoseconds), not str 'x'",
                   r.fail, "x")
        self.assertEqual(r.value("e2e"), None)  # nothing was recorded

    def test_token_counts(self):
        r = self.r
        self.check(TypeError, "Request.set_input_tokens: n must be an int, not float 1.0",
                   r.set_input_tokens, 1.0)
        self.check(TypeError, "Request.set_output_tokens: n must be an int, not str '3'",
                   r.set_output_tokens, "3")
        self.check(llmlat.InvalidArgumentError, "n = -1 is outside uint64",
                   r.set_output_tokens, -1)

    def test_events_sequences(self):
        r = self.r
        r.start(0)
        expected = "Request.events: times_ns must be a sequence or 1-D array of ints (nanoseconds)"
        self.check(TypeError, expected + ", not int 5", r.events, 5)
        self.check(TypeError, expected + ", not str '123'", r.events, "123")
        self.check(TypeError, expected + ", not NoneType None", r.events, None)
        self.check(TypeError, "Request.events: times_ns[1] must be an int (nanoseconds), "
                   "not str '2'", r.events, [1, "2"])
        self.check(TypeError, "Request.events: times_ns[0] must be an int (nanoseconds), "
                   "not float 1.5", r.events, (t / 2 for t in (3, 4)))
        self.check(llmlat.InvalidArgumentError, "times_ns[1] = 9223372036854775808 is outside "
                   "int64", r.events, [1, 1 << 63])
        self.check(TypeError, "Request.events: tokens[1] must be an int, not NoneType None",
                   r.events, [1, 2], [1, None])
        self.check(llmlat.InvalidArgumentError, "tokens[2] = -1 is outside uint32",
                   r.events, [1, 2, 3], [1, 1, -1])
        self.check(TypeError, "Request.events: tokens must be a sequence or 1-D array of ints, "
                   "not bool True", r.events, [1, 2], True)
        self.check(llmlat.InvalidArgumentError, "tokens has 3 counts but times_ns has 2 times",
                   r.events, [1, 2], [1, 1, 1])
        self.check(llmlat.InvalidArgumentError, "tokens = 4294967296 is outside uint32",
                   r.events, [1, 2], 1 << 32)

    def test_events_buffers(self):
        r = self.r
        r.start(0)
        grid = memoryview(array("q", [1, 2, 3, 4])).cast("B").cast("q", (2, 2))
        self.check(TypeError, "Request.events: times_ns must be a sequence or 1-D array of ints "
                   "(nanoseconds), not a 2-D memoryview of shape (2, 2)", r.events, grid)
        self.check(TypeError, "Request.events: times_ns must hold ints (nanoseconds), not "
                   "floats (a buffer of format 'd')", r.events, array("d", [1.0, 2.0]))
        self.check(TypeError, "Request.events: tokens must hold ints, not floats",
                   r.events, [1, 2], array("f", [1.0, 1.0]))
        r.finish(0)
        self.assertEqual(r.value("output_tokens"), 0.0)  # nothing was recorded

    def test_events_numpy(self):
        np = numpy_or_skip(self)
        r = self.r
        r.start(0)
        self.check(TypeError, "Request.events: times_ns must be a sequence or 1-D array of ints "
                   "(nanoseconds), not a 2-D ndarray of shape (2, 3)",
                   r.events, np.zeros((2, 3), dtype=np.int64))
        self.check(TypeError, "Request.events: tokens must be a sequence or 1-D array of ints, "
                   "not a 2-D ndarray of shape (1, 2)",
                   r.events, np.arange(1, 3), np.ones((1, 2), dtype=np.uint32))
        self.check(TypeError, "Request.events: times_ns must hold ints (nanoseconds), not "
                   "floats (a buffer of format 'd')", r.events, np.array([1.0, 2.0]))
        self.check(llmlat.InvalidArgumentError, "tokens[0] = -1 is outside uint32",
                   r.events, np.arange(1, 3), np.array([-1, 1], dtype=np.int64))
        r.events(np.arange(1, 3), np.uint32(2))  # numpy scalars and arrays of ints are fine
        r.event(np.int64(5), np.uint32(1))
        r.finish(5)
        self.assertEqual(r.value("output_tokens"), 5.0)

    def test_names(self):
        r = self.r
        r.start(0)
        self.check(TypeError, "Request.value: metric must be a metric name (str: ttft, tpot",
                   r.value, 1.5)
        self.check(llmlat.InvalidArgumentError,
                   "Request.value: invalid argument", r.value, "latency")
        self.check(llmlat.InvalidArgumentError,
                   "metric: unknown metric 'latency' (one of: ttft, tpot,", r.value, "latency")
        self.check(llmlat.InvalidArgumentError,
                   "convention: unknown convention 'tgi' (one of: default, vllm,",
                   r.value, "ttft", "tgi")
        a = self.a
        self.check(TypeError, "Aggregator.stat: stat must be a stat name (str: count, mean,",
                   a.stat, "ttft", 2.5)
        self.check(TypeError, "Aggregator.rate: rate must be a rate name", a.rate, None)
        self.check(TypeError, "Aggregator.counter: counter must be a counter name",
                   a.counter, 1.5)
        self.check(TypeError, "Aggregator.report: format must be a format name", a.report, b"json")
        self.check(TypeError, "Aggregator.get_param: param must be a param name", a.get_param, 1.0)
        self.check(TypeError, "param_bounds: param must be a param name", llmlat.param_bounds, [])

    def test_aggregator_constructor(self):
        self.check(TypeError, "Aggregator: convention must be a convention name (str: default,",
                   llmlat.Aggregator, 1.5)
        self.check(llmlat.InvalidArgumentError, "mode: unknown mode 'approx' (one of: exact, "
                   "bounded)", llmlat.Aggregator, "vllm", "approx")
        self.check(TypeError, "Aggregator: relative_error must be a number, not str 'x'",
                   llmlat.Aggregator, relative_error="x")
        self.check(TypeError, "Aggregator: duration must be a number, not list [1]",
                   llmlat.Aggregator, duration=[1])
        self.check(TypeError, "Aggregator: slo must be a mapping of SLO name to seconds",
                   llmlat.Aggregator, slo=[("ttft", 1)])
        self.check(llmlat.InvalidArgumentError, "slo key: unknown SLO 'latency' (one of: ttft, "
                   "tpot, e2e)", llmlat.Aggregator, slo={"latency": 1})
        self.check(TypeError, "Aggregator: slo['ttft'] must be a number, not str '1'",
                   llmlat.Aggregator, slo={"ttft": "1"})
        self.check(TypeError, "Aggregator: quantiles must be an iterable of numbers in [0, 1], "
                   "not float 0.5", llmlat.Aggregator, quantiles=0.5)
        self.check(llmlat.InvalidArgumentError, "relative_error = 2", llmlat.Aggregator,
                   relative_error=2)

    def test_aggregator_methods(self):
        a = self.a
        self.check(TypeError, "Aggregator.set_param: value must be a number, not str 'soon'",
                   a.set_param, "duration", "soon")
        self.check(TypeError, "Aggregator.set_param: value must be a number, not NoneType None",
                   a.set_param, "duration", None)
        self.check(TypeError, "Aggregator.set_quantiles: quantiles[0] must be a number, "
                   "not str '0.5'", a.set_quantiles, ["0.5"])
        self.check(TypeError, "Aggregator.set_buckets: bounds[1] must be a number, not str '1'",
                   a.set_buckets, "ttft", [0.5, "1"])
        self.check(TypeError, "Aggregator.add: request must be an llmlat.Request, not object",
                   a.add, object())
        self.check(TypeError, "Aggregator.merge: other must be an llmlat.Aggregator, not "
                   "NoneType None", a.merge, None)
        self.check(TypeError, "Aggregator.quantile: q must be a number in [0, 1], not str 'p99'",
                   a.quantile, "ttft", "p99")
        self.check(TypeError, "Aggregator.quantiles: qs must be an iterable of numbers in "
                   "[0, 1], not float 0.5", a.quantiles, "ttft", 0.5)
        self.check(TypeError, "Aggregator.quantiles: qs[1] must be a number, not NoneType None",
                   a.quantiles, "ttft", [0.5, None])
        for bad in (5, "text", None):
            with self.subTest(data=bad):
                self.check(TypeError, "Aggregator.from_bytes: data must be a bytes-like object "
                           "(what to_bytes() returned), not %s" % type(bad).__name__,
                           llmlat.Aggregator.from_bytes, bad)


    def test_labels_and_lacks(self):
        a, r = self.a, self.r
        self.check(TypeError, "Aggregator.set_label: name must be a label name (str), not int 3",
                   a.set_label, 3, "x")
        self.check(TypeError, "Aggregator.set_label: value must be a str or None, not int 4",
                   a.set_label, "model", 4)
        self.check(llmlat.InvalidArgumentError, "Aggregator.set_label: invalid argument: value "
                   "holds a NUL character", a.set_label, "model", "a\0b")
        self.check(TypeError, "Aggregator: labels must be a mapping of label name to value",
                   llmlat.Aggregator, labels=["model"])
        self.check(TypeError, "Aggregator: labels['model'] must be a str or None, not int 1",
                   llmlat.Aggregator, labels={"model": 1})
        self.check(TypeError, "Request.set_lacks: lacks must be an int, not str 'end'",
                   r.set_lacks, "end")
        self.check(llmlat.InvalidArgumentError, "lacks = 1099511627776 is outside uint32",
                   r.set_lacks, 1 << 40)
        self.check(llmlat.InvalidArgumentError, "Request.set_known: invalid argument: metric: "
                   "unknown metric 'latency'", r.set_known, "llmperf", "latency", 0.1)
        self.check(TypeError, "Request.set_known: value must be a number (seconds), not str "
                   "'0.1'", r.set_known, "llmperf", "ttft", "0.1")
        self.check(TypeError, "Aggregator.unavailable: kind must be a str (metric, rate, "
                   "counter), not int 1", a.unavailable, 1, "ttft")
        self.check(llmlat.InvalidArgumentError, "Aggregator.unavailable: invalid argument: "
                   "kind: unknown kind 'stat'", a.unavailable, "stat", "ttft")
        self.check(llmlat.InvalidArgumentError, "Aggregator.buckets: invalid argument: metric: "
                   "unknown metric 'ttfb'", a.buckets, "ttfb")

    def test_add_columns(self):
        a = self.a
        self.check(TypeError, "Aggregator.add_columns: starts must be a sequence or 1-D array "
                   "of ints, not float 1.5", a.add_columns, 1.5)
        self.check(TypeError, "Aggregator.add_columns: starts[1] must be an int, not str '2'",
                   a.add_columns, [1, "2"])
        self.check(llmlat.InvalidArgumentError, "ends[0] = 9223372036854775808 is outside int64",
                   a.add_columns, [0], ends=[1 << 63])
        self.check(TypeError, "Aggregator.add_columns: times[0] must be an int, not float 0.5",
                   a.add_columns, [0], offsets=[0, 1], times=[0.5])
        self.check(llmlat.InvalidArgumentError, "Aggregator.add_columns: invalid argument: "
                   "tokens = -1 is outside uint32", a.add_columns, [0], offsets=[0, 1],
                   times=[1], tokens=-1)
        self.check(llmlat.InvalidArgumentError, "1 starts need 2 offsets, not 1",
                   a.add_columns, [0], offsets=[0], times=[1])
        self.assertEqual(a.counter("completed"), 0)

    def test_reader_and_exposition(self):
        a = self.a
        self.check(TypeError, "read_trace: source must be a path or a file object (binary, or "
                   "text in UTF-8), not int 3", llmlat.read_trace, 3)
        self.check(llmlat.InvalidArgumentError, "read_trace: invalid argument: format: unknown "
                   "input format 'csv' (one of: auto, trace,", llmlat.read_trace, "t.json",
                   format="csv")
        self.check(TypeError, "read_trace: run must be None or an int >= 1 (1 for the first "
                   "run), not str '2'", llmlat.read_trace, "t.json", run="2")
        self.check(llmlat.InvalidArgumentError, "read_trace: invalid argument: run = 0 is not a "
                   "run number", llmlat.read_trace, "t.json", run=0)
        self.check(TypeError, "read_trace: name must be None or a str, not bytes b'x'",
                   llmlat.read_trace, "t.json", name=b"x")
        import io
        reader = llmlat.read_trace(io.BytesIO(b"[]"))
        self.addCleanup(reader.close)
        self.check(TypeError, "TraceReader.add_to: agg must be an llmlat.Aggregator, not str "
                   "'agg'", reader.add_to, "agg")
        self.check(TypeError, "expose: aggregators must be a sequence of llmlat.Aggregator, not "
                   "Aggregator", llmlat.expose, a)
        self.check(TypeError, "expose: aggregators[1] must be an llmlat.Aggregator, not str 'b'",
                   llmlat.expose, [a, "b"])
        self.check(llmlat.InvalidArgumentError, "expose: invalid argument: format: unknown "
                   "format 'xml'", llmlat.expose, [a], "xml")
        self.check(llmlat.InvalidArgumentError, "content_type: invalid argument: format: "
                   "unknown format 'xml'", llmlat.content_type, "xml")
        self.check(llmlat.InvalidArgumentError, "Aggregator.report: invalid argument: format: "
                   "prometheus_protobuf is binary", a.report, "prometheus_protobuf")
        self.check(llmlat.InvalidArgumentError, "Aggregator.report_bytes: invalid argument: "
                   "format: unknown format 'xml'", a.report_bytes, "xml")


if __name__ == "__main__":
    unittest.main()
