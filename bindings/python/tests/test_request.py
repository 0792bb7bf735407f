"""llmlat.Request: every method, every error, the life cycle."""

import gc
import unittest

from ._support import MS, S, llmlat, make_request

INT64_MAX = (1 << 63) - 1
INT64_MIN = -(1 << 63)


class RecordingTest(unittest.TestCase):
    def setUp(self):
        self.r = llmlat.Request()
        self.addCleanup(self.r.close)

    def test_values_of_one_request(self):
        r = self.r
        r.start(1 * S)
        r.event(1 * S + 100 * MS)          # TTFT 100 ms
        r.event(1 * S + 150 * MS, 2)       # 2 tokens after 50 ms
        r.event(1 * S + 160 * MS, tokens=0)  # empty chunk
        r.event(1 * S + 200 * MS)          # 1 token after 50 ms
        r.set_input_tokens(7)
        r.finish(1 * S + 250 * MS)
        self.assertEqual(r.value("ttft"), 0.1)
        self.assertEqual(r.value("e2e"), 0.2)
        self.assertEqual(r.value("output_tokens"), 4.0)
        self.assertEqual(r.value("input_tokens"), 7.0)
        self.assertAlmostEqual(r.value("tpot"), 0.1 / 3, delta=1e-15)
        self.assertAlmostEqual(r.value("itl"), 0.1 / 3, delta=1e-15)  # TPOT when N = sum k
        self.assertEqual(r.value("icl"), 0.05)        # the empty chunk makes no gap
        self.assertEqual(r.value("itl_max"), 0.05)
        self.assertEqual(r.value("tps_user"), 4 / 0.2)
        self.assertEqual(r.value("tool_itl"), r.value("itl"))
        # vLLM counts the empty chunk: its gaps are 50, 10, 40 ms
        self.assertAlmostEqual(r.value("icl", "vllm"), 0.1 / 3, delta=1e-15)
        # SGLang's E2E ends at the finish
        self.assertEqual(r.value("e2e", convention="sglang"), 0.25)
        # int ids work too (forward compatibility)
        self.assertEqual(r.value(1, 0), 0.1)

    def test_output_tokens_usage_count(self):
        r = self.r
        r.start(0)
        r.events([10 * MS, 20 * MS])
        r.set_output_tokens(11)
        r.finish(20 * MS)
        self.assertEqual(r.value("output_tokens"), 11.0)
        self.assertEqual(r.value("tpot"), 0.001)  # 10 ms / (11 - 1)

    def test_undefined_is_none(self):
        r = self.r
        r.start(0)
        self.assertIsNone(r.value("ttft"))           # in flight, nothing yet
        r.event(5 * MS)
        self.assertEqual(r.value("ttft"), 0.005)
        self.assertIsNone(r.value("e2e"))            # not ended
        r.finish(5 * MS)
        self.assertIsNone(r.value("tpot"))           # N = 1
        self.assertIsNone(r.value("icl"))
        self.assertIsNone(r.value("itl_max"))

    def test_failed_request_values(self):
        r = self.r
        r.start(0)
        r.event(10 * MS)
        r.fail(30 * MS)
        self.assertEqual(r.value("ttft"), 0.01)

    def test_cancelled_and_the_new_conventions(self):
        r = self.r
        r.start(0)
        r.event(10 * MS, 2)
        r.event(30 * MS, 2)
        r.cancel(40 * MS)
        with self.assertRaises(llmlat.StateError):
            r.finish(50 * MS)
        self.assertEqual(r.value("e2e", "guidellm"), 0.0)   # no request_end
        self.assertEqual(r.value("e2e", "inference-perf"), 0.04)
        self.assertEqual(r.value("ntpot", "inference-perf"), 0.04 / 4)
        self.assertEqual(r.value("ntpot", "guidellm"), 0.03 / 4)  # to the last token
        self.assertAlmostEqual(r.value("tool_itl", "guidellm"), 0.02 / 3, delta=1e-15)
        agg = llmlat.Aggregator("guidellm")
        self.addCleanup(agg.close)
        agg.add(r)
        self.assertEqual(agg.counter("failed"), 1)

    def test_intended_start(self):
        """Request.schedule: the dispatch delay, and TTFT and E2E measured
        from it under each convention's anchors; None without one."""
        with llmlat.Request() as r:
            self.assertIsNone(r.scheduled)
            r.schedule(900 * MS)
            with self.assertRaises(llmlat.OrderError):
                r.start(899 * MS)
            r.start(S)
            self.assertEqual(r.scheduled, 900 * MS)
            r.event(S + 5 * MS, 0)
            r.event(S + 10 * MS, 1)
            r.event(S + 50 * MS, 1)
            r.finish(S + 60 * MS)
            self.assertAlmostEqual(r.value("dispatch_delay"), 0.1, delta=1e-12)
            self.assertAlmostEqual(r.value("scheduled_ttft"), 0.11, delta=1e-12)
            self.assertAlmostEqual(r.value("scheduled_e2e"), 0.15, delta=1e-12)
            self.assertAlmostEqual(r.value("scheduled_ttft", "vllm"), 0.105, delta=1e-12)
            self.assertAlmostEqual(r.value("scheduled_e2e", "sglang"), 0.16, delta=1e-12)
            with self.assertRaises(llmlat.StateError):
                r.schedule(0)
            agg = llmlat.Aggregator("vllm")
            self.assertIsNone(agg.stat("dispatch_delay", "mean"))  # not vLLM's 0.0
            agg.add(r)
        with make_request(0, [10 * MS], [1]) as plain:
            self.assertIsNone(plain.value("dispatch_delay"))
            agg.add(plain)
        self.assertEqual(agg.stat("dispatch_delay", "count"), 1)
        self.assertEqual(agg.get_param("max_dispatch_delay"), 0.001)
        self.assertIn("Client Queue Time (ms)", agg.report())
        self.assertIn("WARNING: the client fell behind its schedule", agg.report())
        agg.set_param("max_dispatch_delay", 0.5)
        self.assertNotIn("WARNING", agg.report())
        self.assertEqual(agg.requests()[0]["scheduled_s"], 0.9)
        self.assertIsNone(agg.requests()[1]["scheduled_s"])

    def test_reset_reuses(self):
        r = self.r
        r.start(0)
        r.events(range(1, 1001))
        r.finish(2000)
        r.reset()
        self.assertRaises(llmlat.StateError, r.value, "ttft")
        r.start(100)
        r.event(300)
        r.finish(300)
        self.assertEqual(r.value("ttft"), 2e-7)
        self.assertEqual(r.value("output_tokens"), 1.0)

    def test_negative_and_extreme_timestamps(self):
        r = self.r
        r.start(-5 * S)
        r.event(-4 * S)
        r.finish(-4 * S)
        self.assertEqual(r.value("ttft"), 1.0)
        r.reset()
        r.start(INT64_MAX - 10)
        r.event(INT64_MAX)
        r.finish(INT64_MAX)
        self.assertEqual(r.value("ttft"), 1e-8)

    def test_numpy_style_integers_accepted(self):
        class Index:
            def __init__(self, v):
                self.v = v

            def __index__(self):
                return self.v

        r = self.r
        r.start(Index(0))
        r.events([1, 2], Index(3))
        r.finish(Index(2))
        self.assertEqual(r.value("output_tokens"), 6.0)

    def test_repr(self):
        self.assertIn("llmlat.Request", repr(self.r))
        self.r.close()
        self.assertIn("closed", repr(self.r))


class RequestErrorsTest(unittest.TestCase):
    def setUp(self):
        self.r = llmlat.Request()
        self.addCleanup(self.r.close)

    def assertUnchanged(self, r, n_tokens):
        """r (started, not ended) still holds exactly n_tokens tokens."""
        r.finish(10**15)
        self.assertEqual(r.value("output_tokens"), float(n_tokens))

    def test_event_before_start(self):
        with self.assertRaises(llmlat.StateError) as cm:
            self.r.event(1)
        self.assertEqual(cm.exception.status, -4)
        self.assertEqual(cm.exception.where, "llmlat_request_event")
        self.assertRaises(llmlat.StateError, self.r.events, [1, 2])
        self.assertRaises(llmlat.StateError, self.r.finish, 1)
        self.assertRaises(llmlat.StateError, self.r.fail, 1)
        self.assertRaises(llmlat.StateError, self.r.value, "ttft")

    def test_start_twice(self):
        self.r.start(0)
        self.assertRaises(llmlat.StateError, self.r.start, 1)

    def test_after_end(self):
        self.r.start(0)
        self.r.event(1)
        self.r.finish(2)
        self.assertRaises(llmlat.StateError, self.r.event, 3)
        self.assertRaises(llmlat.StateError, self.r.events, [3])
        self.assertRaises(llmlat.StateError, self.r.finish, 3)
        self.assertRaises(llmlat.StateError, self.r.fail, 3)
        self.r.reset()
        self.r.start(0)
        self.r.fail(0)
        self.assertRaises(llmlat.StateError, self.r.event, 1)
        self.assertRaises(llmlat.StateError, self.r.finish, 1)

    def test_order(self):
        r = self.r
        r.start(100)
        with self.assertRaises(llmlat.OrderError) as cm:
            r.event(99)
        self.assertEqual(cm.exception.status, -3)
        self.assertIsInstance(cm.exception, ValueError)
        r.event(200)
        self.assertRaises(llmlat.OrderError, r.event, 199)
        self.assertRaises(llmlat.OrderError, r.finish, 150)
        self.assertRaises(llmlat.OrderError, r.fail, 150)
        r.event(200)  # equal times are fine
        self.assertUnchanged(r, 2)

    def test_events_all_or_nothing(self):
        r = self.r
        r.start(0)
        r.events([1, 2, 3])
        self.assertRaises(llmlat.OrderError, r.events, [4, 5, 1, 6])
        self.assertRaises(llmlat.InvalidArgumentError, r.events, [4, 5], [1, -1])
        self.assertRaises(llmlat.InvalidArgumentError, r.events, [4, 5], [1, 1 << 32])
        self.assertRaises(llmlat.InvalidArgumentError, r.events, [4, 1 << 63])
        self.assertUnchanged(r, 3)

    def test_events_length_mismatch(self):
        r = self.r
        r.start(0)
        with self.assertRaises(llmlat.InvalidArgumentError) as cm:
            r.events([1, 2, 3], [1, 1])
        self.assertIn("tokens has 2 counts but times_ns has 3 times", str(cm.exception))
        self.assertUnchanged(r, 0)

    def test_event_out_of_range(self):
        r = self.r
        r.start(0)
        for t, k in [(1, -1), (1, 1 << 32), (1 << 63, 1), (INT64_MIN - 1, 1)]:
            with self.subTest(t=t, k=k):
                with self.assertRaises(llmlat.InvalidArgumentError) as cm:
                    r.event(t, k)
                self.assertEqual(cm.exception.status, -1)
        r.event(1, (1 << 32) - 1)  # the largest k is fine
        self.assertUnchanged(r, (1 << 32) - 1)

    def test_event_distance_overflows_int64(self):
        r = self.r
        r.start(INT64_MIN)
        self.assertRaises(llmlat.LimitError, r.event, INT64_MAX)
        self.assertRaises(llmlat.LimitError, r.events, [INT64_MAX])
        with self.assertRaises(ValueError) as cm:  # as in 1.0, where it was EINVAL
            r.finish(INT64_MAX)
        self.assertEqual(cm.exception.status, -9)
        r.event(-1)  # -1 - INT64_MIN = INT64_MAX fits

    def test_wrong_types(self):
        r = self.r
        self.assertRaises(TypeError, r.start, 1.5)
        self.assertRaises(TypeError, r.start, "1")
        r.start(0)
        self.assertRaises(TypeError, r.event, 1.5)
        self.assertRaises(TypeError, r.event, 1, 1.0)
        self.assertRaises(TypeError, r.event, None)
        self.assertRaises(TypeError, r.events, [1.5])
        self.assertRaises(TypeError, r.events, 5)
        self.assertRaises(TypeError, r.finish, 2.0)
        self.assertRaises(TypeError, r.set_input_tokens, 1.0)
        self.assertRaises(TypeError, r.set_output_tokens, "3")
        self.assertRaises(TypeError, r.value, 1.5)
        self.assertUnchanged(r, 0)

    def test_token_counts_out_of_range(self):
        r = self.r
        for fn in (r.set_input_tokens, r.set_output_tokens):
            with self.subTest(fn=fn.__name__):
                self.assertRaises(llmlat.InvalidArgumentError, fn, -1)
                self.assertRaises(llmlat.InvalidArgumentError, fn, 1 << 64)
                fn((1 << 64) - 1)

    def test_value_bad_names(self):
        self.r.start(0)
        with self.assertRaises(llmlat.InvalidArgumentError) as cm:
            self.r.value("latency")
        self.assertIn("unknown metric 'latency'", str(cm.exception))
        self.assertIn("ttft", str(cm.exception))
        self.assertRaises(llmlat.InvalidArgumentError, self.r.value, "ttft", "tgi")
        self.assertRaises(llmlat.InvalidArgumentError, self.r.value, 99)       # C checks ids
        self.assertRaises(llmlat.InvalidArgumentError, self.r.value, "ttft", 99)
        self.assertRaises(TypeError, self.r.value, True)


class LifeCycleTest(unittest.TestCase):
    METHODS = [
        ("reset", ()), ("start", (0,)), ("event", (1,)), ("events", ([1, 2],)),
        ("set_input_tokens", (1,)), ("set_output_tokens", (1,)), ("finish", (1,)),
        ("fail", (1,)), ("value", ("ttft",)),
    ]

    def test_closed_request_raises_value_error(self):
        r = llmlat.Request()
        r.close()
        self.assertTrue(r.closed)
        for name, args in self.METHODS:
            with self.subTest(method=name):
                with self.assertRaisesRegex(ValueError, "closed llmlat.Request"):
                    getattr(r, name)(*args)
        r.close()  # idempotent

    def test_context_manager(self):
        with llmlat.Request() as r:
            self.assertFalse(r.closed)
            r.start(0)
        self.assertTrue(r.closed)

    def test_finalizer_frees_without_close(self):
        r = llmlat.Request()
        finalizer = r._finalizer
        self.assertTrue(finalizer.alive)
        del r
        gc.collect()
        self.assertFalse(finalizer.alive)

    def test_close_detaches_finalizer(self):
        r = llmlat.Request()
        finalizer = r._finalizer
        r.close()
        self.assertFalse(finalizer.alive)

    def test_many_requests(self):
        for i in range(2000):
            with make_request(i, [i + 1, i + 2]) as r:
                self.assertEqual(r.value("ttft"), 1e-9)

    def test_now_ns_is_monotonic(self):
        import time
        a = llmlat.now_ns()
        b = time.monotonic_ns()
        c = llmlat.now_ns()
        self.assertIsInstance(a, int)
        self.assertLessEqual(a, c)
        self.assertLess(abs(b - a), S)  # CLOCK_MONOTONIC, as time.monotonic_ns
