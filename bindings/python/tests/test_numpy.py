"""Cross-checks against numpy on random traffic: exact-mode quantile(m, q) is
the same double as numpy.quantile(x, q), and quantile(m, p / 100) the same
as numpy.percentile(x, p) (numpy divides p by 100 itself: 99.9 / 100 is not
the double 0.999); statistics match numpy; bounded-mode
quantiles stay within the relative error. numpy is required when meson runs
these (LLMLAT_REQUIRE_NUMPY=1)."""

import random
import unittest

from ._support import MS, llmlat, numpy_or_skip

QS = [0.0, 0.001, 0.01, 0.1, 0.25, 0.333, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0]
PERCENTILES = [0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100]


def random_traffic(seed, n_requests=300):
    """Requests as (start, times, tokens, input_tokens); tokens include 0
    (empty chunks) and k > 1 (speculative decoding)."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n_requests):
        start = rnd.randrange(0, 60_000) * MS + rnd.randrange(1000)
        t = start + rnd.randrange(20 * MS, 900 * MS)
        times, tokens = [], []
        for _ in range(rnd.choice([1, 2, 3, rnd.randrange(4, 200)])):
            times.append(t)
            tokens.append(rnd.choice([1, 1, 1, 1, 2, 3, 0]))
            t += rnd.choice([0, rnd.randrange(1, 80 * MS), rnd.randrange(1, 5 * MS)])
        out.append((start, times, tokens, rnd.randrange(1, 4000)))
    return out


def default_samples(traffic):
    """The default convention's samples, computed here as DESIGN.md defines
    them (a gap runs from the previous token-bearing event)."""
    s = {m: [] for m in ("ttft", "e2e", "tpot", "itl", "icl", "itl_max", "tps_user",
                         "output_tokens", "input_tokens")}
    for start, times, tokens, input_tokens in traffic:
        ev = [(t, k) for t, k in zip(times, tokens) if k]
        n = sum(tokens)
        s["output_tokens"].append(float(n))
        s["input_tokens"].append(float(input_tokens))
        if not ev:
            continue
        ttft, e2e = ev[0][0] - start, ev[-1][0] - start
        s["ttft"].append(ttft / 1e9)
        s["e2e"].append(e2e / 1e9)
        if e2e > 0:
            s["tps_user"].append(n / (e2e / 1e9))
        if n > 1:
            s["tpot"].append((e2e - ttft) / 1e9 / (n - 1))
        s["itl"].extend([0.0] * (ev[0][1] - 1))
        gaps = []
        for (t0, _), (t1, k) in zip(ev, ev[1:]):
            g = (t1 - t0) / 1e9
            gaps.append(t1 - t0)
            s["icl"].append(g)
            s["itl"].extend([g if k == 1 else g / k] * k)
        if gaps:
            s["itl_max"].append(max(gaps) / 1e9)
    return s


def fill(agg, traffic):
    r = llmlat.Request()
    try:
        for start, times, tokens, input_tokens in traffic:
            r.reset()
            r.start(start)
            r.events(times, tokens)
            r.set_input_tokens(input_tokens)
            r.finish(times[-1])
            agg.add(r)
    finally:
        r.close()


class ExactQuantilesTest(unittest.TestCase):
    def setUp(self):
        self.np = numpy_or_skip(self)

    def test_quantiles_are_numpy_percentile(self):
        np = self.np
        for seed in (1, 2, 3):
            traffic = random_traffic(seed)
            expected = default_samples(traffic)
            with llmlat.Aggregator() as agg:
                fill(agg, traffic)
                for metric, xs in expected.items():
                    x = np.array(xs)
                    self.assertGreater(len(x), 50, metric)
                    self.assertEqual(agg.stat(metric, "count"), len(x), metric)
                    qs = QS + [random.Random(seed).random() for _ in range(20)]
                    for q in qs:
                        with self.subTest(seed=seed, metric=metric, q=q):
                            self.assertEqual(agg.quantile(metric, q),
                                             float(np.quantile(x, q)))
                    self.assertEqual(agg.quantiles(metric, QS),
                                     [float(np.quantile(x, q)) for q in QS], metric)
                    for p in PERCENTILES:
                        with self.subTest(seed=seed, metric=metric, p=p):
                            self.assertEqual(agg.quantile(metric, p / 100),
                                             float(np.percentile(x, p)))

    def test_statistics_match_numpy(self):
        np = self.np
        traffic = random_traffic(7)
        expected = default_samples(traffic)
        with llmlat.Aggregator() as agg:
            fill(agg, traffic)
            for metric, xs in expected.items():
                x = np.array(xs)
                with self.subTest(metric=metric):
                    self.assertEqual(agg.stat(metric, "median"), float(np.median(x)))
                    self.assertEqual(agg.stat(metric, "min"), float(np.min(x)))
                    self.assertEqual(agg.stat(metric, "max"), float(np.max(x)))
                    self.assertAlmostEqual(agg.stat(metric, "mean"), float(np.mean(x)),
                                           delta=1e-12 * abs(float(np.mean(x))))
                    self.assertAlmostEqual(agg.stat(metric, "std"), float(np.std(x)),
                                           delta=1e-9 * float(np.std(x)))

    def test_vllm_icl_and_llmperf_ddof(self):
        np = self.np
        traffic = random_traffic(11)
        icl, ttft = [], []
        for start, times, _, _ in traffic:  # vLLM: every event counts
            ttft.append((times[0] - start) / 1e9)
            icl.extend((b - a) / 1e9 for a, b in zip(times, times[1:]))
        with llmlat.Aggregator("vllm") as agg:
            fill(agg, traffic)
            for p in PERCENTILES:
                self.assertEqual(agg.quantile("icl", p / 100), float(np.percentile(icl, p)))
                self.assertEqual(agg.quantile("ttft", p / 100), float(np.percentile(ttft, p)))
        # LLMPerf: E2E ends at the finish (here the last event, empty or not)
        e2e = [(times[-1] - start) / 1e9 for start, times, _, _ in traffic]
        with llmlat.Aggregator("llmperf") as agg:
            fill(agg, traffic)
            self.assertAlmostEqual(agg.stat("e2e", "std"), float(np.std(e2e, ddof=1)),
                                   delta=1e-9 * float(np.std(e2e, ddof=1)))

    def test_numpy_arrays_through_events(self):
        np = self.np
        rng = np.random.default_rng(5)
        gaps = rng.integers(1, 50 * MS, size=10_000)
        times = np.cumsum(gaps).astype(np.int64)
        with llmlat.Aggregator() as agg, llmlat.Request() as r:
            r.start(0)
            r.events(times, np.ones(len(times), dtype=np.uint32))
            r.finish(int(times[-1]))
            agg.add(r)
            expected = gaps[1:] / 1e9
            for p in PERCENTILES:
                self.assertEqual(agg.quantile("itl", p / 100), float(np.percentile(expected, p)))


class BoundedQuantilesTest(unittest.TestCase):
    """Bounded mode: every quantile within the relative error of the exact
    answer's neighbouring order statistics; count/min/max exact."""

    def setUp(self):
        self.np = numpy_or_skip(self)

    def test_within_relative_error(self):
        np = self.np
        traffic = random_traffic(3, 500)
        expected = default_samples(traffic)
        for alpha in (0.01, 0.001):
            with llmlat.Aggregator("default", "bounded", relative_error=alpha) as agg:
                fill(agg, traffic)
                for metric, xs in expected.items():
                    x = np.sort(np.array(xs))
                    self.assertEqual(agg.stat(metric, "count"), len(x))
                    self.assertEqual(agg.stat(metric, "min"), float(x[0]))
                    self.assertEqual(agg.stat(metric, "max"), float(x[-1]))
                    for q in QS:
                        with self.subTest(alpha=alpha, metric=metric, q=q):
                            pos = q * (len(x) - 1)
                            lo, hi = x[int(np.floor(pos))], x[int(np.ceil(pos))]
                            got = agg.quantile(metric, q)
                            self.assertGreaterEqual(got, lo * (1 - alpha) - 1e-300)
                            self.assertLessEqual(got, hi * (1 + alpha) + 1e-300)
