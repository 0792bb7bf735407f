"""llmlat.Aggregator: every method, every error, the life cycle."""

import gc
import math
import unittest

from ._support import MS, S, add_requests, llmlat, make_request, seed_ab


class SeedTest(unittest.TestCase):
    """DESIGN.md's example: mean TPOT 30 ms, mean ITL 10.4 ms."""

    def setUp(self):
        self.agg = llmlat.Aggregator()
        self.addCleanup(self.agg.close)
        add_requests(self.agg, seed_ab())

    def test_means(self):
        a = self.agg
        self.assertAlmostEqual(a.stat("tpot", "mean"), 0.030, delta=1e-15)
        self.assertAlmostEqual(a.stat("itl", "mean"), 0.0104, delta=1e-15)
        self.assertEqual(a.stat("ttft"), 0.1)  # "mean" is the default stat

    def test_every_stat(self):
        a = self.agg
        self.assertEqual(a.stat("itl", "count"), 100)  # 99 + 1 token gaps
        self.assertIsInstance(a.stat("itl", "count"), int)
        self.assertEqual(a.stat("icl", "count"), 100)
        self.assertEqual(a.stat("e2e", "min"), 0.15)
        self.assertEqual(a.stat("e2e", "max"), 1.09)
        self.assertEqual(a.stat("e2e", "median"), (0.15 + 1.09) / 2)
        self.assertAlmostEqual(a.stat("tpot", "std"), 0.02, delta=1e-15)  # ddof 0
        self.assertEqual(a.stat("output_tokens", "mean"), 51.0)
        self.assertEqual(a.stat("itl_max", "max"), 0.05)
        self.assertEqual(a.stat(3, 6), a.stat("itl", "median"))  # ids work

    def test_quantiles(self):
        a = self.agg
        self.assertEqual(a.quantile("ttft", 0.5), 0.1)
        self.assertEqual(a.quantile("tpot", 0.0), 0.01)
        self.assertEqual(a.quantile("tpot", 1.0), 0.05)
        self.assertAlmostEqual(a.quantile("tpot", 0.5), 0.03, delta=1e-15)
        # 99 gaps of 10 ms and one of 50 ms: numpy's linear p99
        self.assertAlmostEqual(a.quantile("itl", 0.99), 0.0104, delta=1e-15)
        self.assertEqual(a.quantile("itl", 1), 0.05)

    def test_quantiles_in_one_call(self):
        a = self.agg
        qs = [0, 0.1, 0.5, 0.9, 0.99, 0.999, 1]
        for metric in ("ttft", "tpot", "itl", "e2e"):
            self.assertEqual(a.quantiles(metric, qs), [a.quantile(metric, q) for q in qs])
        self.assertEqual(a.quantiles("itl", (q / 32 for q in range(32))),
                         [a.quantile("itl", q / 32) for q in range(32)])

    def test_rates_and_counters(self):
        a = self.agg
        d = 1.09  # first start -> last response
        self.assertAlmostEqual(a.rate("requests"), 2 / d, delta=1e-12)
        self.assertAlmostEqual(a.rate("output_tokens"), 102 / d, delta=1e-12)
        self.assertAlmostEqual(a.rate("total_tokens"), 102 / d, delta=1e-12)
        # the [0, 1 s) bucket: A's tokens at 0.10 ... 0.99 s and B's two
        self.assertEqual(a.rate("peak_output_tokens"), 92.0)
        self.assertIsNone(a.rate("goodput"))  # no SLO
        self.assertEqual(a.counter("completed"), 2)
        self.assertEqual(a.counter("failed"), 0)
        self.assertEqual(a.counter("tpot_undefined"), 0)
        self.assertIsNone(a.counter("good"))
        self.assertEqual(a.counter("input_tokens"), 0)
        self.assertEqual(a.counter("output_tokens"), 102)
        self.assertEqual(a.counter("peak_concurrency"), 2)
        self.assertGreater(a.counter("memory_bytes"), 0)

    def test_goodput_with_slo(self):
        a = self.agg
        a.set_param("slo_tpot", 0.02)
        self.assertEqual(a.counter("good"), 1)
        self.assertAlmostEqual(a.rate("goodput"), 1 / 1.09, delta=1e-12)

    def test_duration(self):
        a = self.agg
        a.set_param("duration", 2.0)
        self.assertEqual(a.rate("requests"), 1.0)
        self.assertEqual(a.get_param("duration"), 2.0)

    def test_reset_keeps_settings(self):
        a = self.agg
        a.set_param("duration", 2.0)
        a.reset()
        self.assertEqual(a.counter("completed"), 0)
        self.assertIsNone(a.stat("ttft"))
        self.assertEqual(a.stat("ttft", "count"), 0)
        self.assertEqual(a.get_param("duration"), 2.0)

    def test_repr(self):
        self.assertEqual(repr(self.agg), "<llmlat.Aggregator convention='default' "
                                         "mode='exact' completed=2 failed=0>")


class ConstructionTest(unittest.TestCase):
    def test_defaults(self):
        with llmlat.Aggregator() as a:
            self.assertEqual(a.convention, "default")
            self.assertEqual(a.mode, "exact")
            self.assertEqual(a.get_param("relative_error"), 0.01)
            self.assertEqual(a.get_param("duration"), 0.0)

    def test_every_convention(self):
        for conv in llmlat.CONVENTIONS:
            with llmlat.Aggregator(conv) as a:
                self.assertEqual(a.convention, conv)
        with llmlat.Aggregator(convention=1) as a:
            self.assertEqual(a.convention, "vllm")

    def test_keywords(self):
        with llmlat.Aggregator("vllm", "exact", 0.02, duration=10,
                               slo={"ttft": 0.5, "tpot": 0.05, "e2e": 2},
                               quantiles=[0.25, 0.75]) as a:
            self.assertEqual(a.get_param("relative_error"), 0.02)
            self.assertEqual(a.get_param("duration"), 10.0)
            self.assertEqual(a.get_param("slo_ttft"), 0.5)
            self.assertEqual(a.get_param("slo_tpot"), 0.05)
            self.assertEqual(a.get_param("slo_e2e"), 2.0)

    def test_bad_arguments(self):
        self.assertRaisesRegex(llmlat.InvalidArgumentError, "unknown convention 'tgi'",
                               llmlat.Aggregator, "tgi")
        self.assertRaisesRegex(llmlat.InvalidArgumentError, "unknown mode 'approx'",
                               llmlat.Aggregator, mode="approx")
        self.assertRaises(llmlat.InvalidArgumentError, llmlat.Aggregator, 99)
        self.assertRaises(llmlat.InvalidArgumentError, llmlat.Aggregator, "default", 7)
        self.assertRaises(llmlat.InvalidArgumentError, llmlat.Aggregator, relative_error=0.5)
        self.assertRaises(llmlat.InvalidArgumentError, llmlat.Aggregator, duration=-1)
        self.assertRaises(llmlat.InvalidArgumentError, llmlat.Aggregator, slo={"p99": 1})
        self.assertRaises(llmlat.InvalidArgumentError, llmlat.Aggregator, quantiles=[2])
        self.assertRaises(TypeError, llmlat.Aggregator, 1.5)

    def test_params(self):
        with llmlat.Aggregator() as a:
            for name in llmlat.PARAMS:
                with self.subTest(param=name):
                    lo, hi = llmlat.param_bounds(name)
                    self.assertLessEqual(lo, hi)
                    a.set_param(name, hi)
                    self.assertEqual(a.get_param(name), hi)
                    a.set_param(name, lo)
                    self.assertEqual(a.get_param(name), lo)
                    for bad in (math.nan, math.inf, -math.inf, hi * 2 + 1, lo - 1):
                        with self.assertRaises(llmlat.InvalidArgumentError) as cm:
                            a.set_param(name, bad)
                        self.assertEqual(cm.exception.status, -1)
                    self.assertEqual(a.get_param(name), lo)
            self.assertEqual(llmlat.param_bounds("relative_error"), (1e-4, 0.25))
            self.assertRaises(llmlat.InvalidArgumentError, a.set_param, "alpha", 0.1)
            self.assertRaises(llmlat.InvalidArgumentError, a.get_param, "alpha")
            self.assertRaises(llmlat.InvalidArgumentError, a.get_param, 99)
            self.assertRaises(llmlat.InvalidArgumentError, llmlat.param_bounds, "alpha")
            self.assertRaises(llmlat.InvalidArgumentError, llmlat.param_bounds, 0)
            self.assertRaises(TypeError, a.set_param, "duration", "soon")
            self.assertRaises(TypeError, a.set_param, "duration", None)

    def test_set_quantiles(self):
        with llmlat.Aggregator() as a:
            a.set_quantiles([0.5])
            a.set_quantiles((q / 32 for q in range(32)))
            for bad in ([], [0.5] * 33, [1.5], [-0.1], [math.nan]):
                with self.subTest(bad=bad):
                    self.assertRaises(llmlat.InvalidArgumentError, a.set_quantiles, bad)


class FeedingTest(unittest.TestCase):
    def test_add_unended_request(self):
        with llmlat.Aggregator() as a, llmlat.Request() as r:
            self.assertRaises(llmlat.StateError, a.add, r)  # new
            r.start(0)
            r.event(1)
            with self.assertRaises(llmlat.StateError) as cm:
                a.add(r)  # in flight
            self.assertEqual(cm.exception.where, "llmlat_agg_add")
            self.assertEqual(a.counter("completed"), 0)
            self.assertEqual(a.counter("failed"), 0)

    def test_add_wrong_type_or_closed(self):
        with llmlat.Aggregator() as a:
            self.assertRaises(TypeError, a.add, object())
            self.assertRaises(TypeError, a.add, None)
            r = make_request(0, [1])
            r.close()
            self.assertRaisesRegex(ValueError, "closed llmlat.Request", a.add, r)

    def test_failed_requests_are_counted_only(self):
        with llmlat.Aggregator() as a:
            add_requests(a, [dict(start=0, times=[10 * MS], ok=False),
                             dict(start=0, times=[20 * MS, 30 * MS])])
            self.assertEqual(a.counter("failed"), 1)
            self.assertEqual(a.counter("completed"), 1)
            self.assertEqual(a.stat("ttft", "count"), 1)
            self.assertEqual(a.stat("ttft"), 0.02)

    def test_request_reusable_after_add(self):
        with llmlat.Aggregator() as a, llmlat.Request() as r:
            for i in range(10):
                r.reset()
                r.start(i * S)
                r.events([i * S + 10 * MS, i * S + 20 * MS])
                r.finish(i * S + 20 * MS)
                a.add(r)
            self.assertEqual(a.counter("completed"), 10)
            self.assertEqual(a.quantile("ttft", 0.9), 0.01)

    def test_merge_equals_union(self):
        specs = seed_ab() + [dict(start=5 * S, times=[5 * S + 7 * MS], ok=False),
                             dict(start=S, times=[S + 3 * MS, S + 90 * MS], input_tokens=9)]
        with llmlat.Aggregator() as whole, llmlat.Aggregator() as a, \
                llmlat.Aggregator() as b:
            add_requests(whole, specs)
            add_requests(a, specs[:2])
            add_requests(b, specs[2:])
            a.merge(b)
            self.assertEqual(b.counter("completed"), 1)  # src unchanged
            for metric in ("ttft", "tpot", "itl", "icl", "e2e", "itl_max"):
                for stat in llmlat.STATS:
                    self.assertEqual(a.stat(metric, stat), whole.stat(metric, stat))
                self.assertEqual(a.quantile(metric, 0.37), whole.quantile(metric, 0.37))
            for counter in ("completed", "failed", "input_tokens", "output_tokens",
                            "peak_concurrency"):
                self.assertEqual(a.counter(counter), whole.counter(counter))
            self.assertEqual(a.rate("requests"), whole.rate("requests"))

    def test_merge_errors(self):
        with llmlat.Aggregator() as a, llmlat.Aggregator("vllm") as v:
            with self.assertRaises(llmlat.MismatchError) as cm:
                a.merge(v)
            self.assertEqual(cm.exception.status, -7)
            with self.assertRaises(llmlat.InvalidArgumentError) as cm:
                a.merge(a)
            self.assertIn("itself", str(cm.exception))
            self.assertRaises(TypeError, a.merge, None)
            c = llmlat.Aggregator()
            c.close()
            self.assertRaisesRegex(ValueError, "closed llmlat.Aggregator", a.merge, c)


class QueryTest(unittest.TestCase):
    def test_empty_is_none_or_placeholder(self):
        with llmlat.Aggregator() as a:
            for metric in llmlat.METRICS:
                self.assertIsNone(a.stat(metric, "mean"))
                self.assertEqual(a.stat(metric, "count"), 0)
                self.assertIsNone(a.quantile(metric, 0.5))
                self.assertEqual(a.quantiles(metric, [0.5, 0.9]), [None, None])
            self.assertIsNone(a.rate("requests"))  # no duration
            self.assertIsNone(a.rate("peak_output_tokens"))
        with llmlat.Aggregator("vllm") as v:  # vLLM reports 0.0
            self.assertEqual(v.stat("ttft", "mean"), 0.0)
            self.assertEqual(v.quantile("itl", 0.99), 0.0)
            self.assertEqual(v.quantiles("itl", [0.5, 0.99]), [0.0, 0.0])
        with llmlat.Aggregator("llmperf") as p:  # ddof 1 over one sample
            add_requests(p, [dict(start=0, times=[5 * MS])])
            self.assertIsNone(p.stat("ttft", "std"))
            self.assertEqual(p.stat("ttft", "mean"), 0.005)

    def test_tpot_undefined_counter(self):
        with llmlat.Aggregator() as a:
            add_requests(a, [dict(start=0, times=[5 * MS])])
            self.assertEqual(a.counter("tpot_undefined"), 1)
            self.assertIsNone(a.stat("tpot"))

    def test_bad_queries(self):
        with llmlat.Aggregator() as a:
            add_requests(a, seed_ab())
            for q in (-0.01, 1.01, math.nan, math.inf):
                with self.subTest(q=q):
                    with self.assertRaises(llmlat.InvalidArgumentError) as cm:
                        a.quantile("ttft", q)
                    self.assertEqual(cm.exception.where, "llmlat_agg_quantile")
            self.assertRaises(TypeError, a.quantile, "ttft", "p99")
            self.assertRaises(TypeError, a.quantile, "ttft", None)
            for qs in ([], [0.5] * 33, [0.5, 1.5], [math.nan]):
                with self.subTest(qs=qs[:3]):
                    self.assertRaises(llmlat.InvalidArgumentError, a.quantiles, "ttft", qs)
            self.assertRaises(llmlat.InvalidArgumentError, a.quantiles, "nope", [0.5])
            self.assertRaises(TypeError, a.quantiles, "ttft", ["0.5"])
            self.assertRaises(llmlat.InvalidArgumentError, a.stat, "ttft", "p99")
            self.assertRaises(llmlat.InvalidArgumentError, a.stat, "latency")
            self.assertRaises(llmlat.InvalidArgumentError, a.stat, "ttft", 99)
            self.assertRaises(llmlat.InvalidArgumentError, a.rate, "tokens")
            self.assertRaises(llmlat.InvalidArgumentError, a.rate, 99)
            self.assertRaises(llmlat.InvalidArgumentError, a.counter, "requests")
            self.assertRaises(llmlat.InvalidArgumentError, a.counter, 99)
            self.assertRaises(llmlat.InvalidArgumentError, a.report, "pdf")
            self.assertRaises(llmlat.InvalidArgumentError, a.report, 99)


class AggregatorLifeCycleTest(unittest.TestCase):
    METHODS = [
        ("reset", ()), ("set_param", ("duration", 1)), ("get_param", ("duration",)),
        ("set_quantiles", ([0.5],)), ("stat", ("ttft",)), ("quantile", ("ttft", 0.5)),
        ("quantiles", ("ttft", [0.5])),
        ("rate", ("requests",)), ("counter", ("completed",)), ("report", ()),
        ("summary", ()), ("to_bytes", ()),
    ]

    def test_closed_aggregator_raises_value_error(self):
        a = llmlat.Aggregator()
        a.close()
        self.assertTrue(a.closed)
        for name, args in self.METHODS:
            with self.subTest(method=name):
                with self.assertRaisesRegex(ValueError, "closed llmlat.Aggregator"):
                    getattr(a, name)(*args)
        for prop in ("convention", "mode"):
            with self.assertRaisesRegex(ValueError, "closed llmlat.Aggregator"):
                getattr(a, prop)
        with llmlat.Request() as r:
            r.start(0)
            r.finish(0)
            self.assertRaisesRegex(ValueError, "closed llmlat.Aggregator", a.add, r)
        with llmlat.Aggregator() as b:
            self.assertRaisesRegex(ValueError, "closed llmlat.Aggregator", a.merge, b)
        self.assertEqual(repr(a), "<llmlat.Aggregator (closed)>")
        a.close()

    def test_context_manager_and_finalizer(self):
        with llmlat.Aggregator() as a:
            self.assertFalse(a.closed)
        self.assertTrue(a.closed)
        b = llmlat.Aggregator()
        finalizer = b._finalizer
        del b
        gc.collect()
        self.assertFalse(finalizer.alive)
