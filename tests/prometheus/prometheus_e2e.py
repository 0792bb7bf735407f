"""A real Prometheus (Debian's 2.42, --enable-feature=native-histograms)
scrapes two examples/prometheus-exporter processes with different labels,
each serving two label sets, every second (and a third that sees no
request: its empty histograms must be native too); its HTTP API must then answer
what llmlat answers for the same data:

  * native histograms (job "native", protobuf negotiated by the Accept
    header): histogram_count and histogram_sum of sum(...) equal llmlat's
    merged count and exact sum (sum: within 1e-12, Prometheus adds four
    doubles); histogram_quantile(q, sum(...)) for q = 0.5, 0.9, 0.99 lies
    in the native bucket (base^(i-1), base^i], base = 2^(2^-6), of rank
    q N (Prometheus' rule), and llmlat's quantile of the merged
    aggregators in the bucket of rank floor(q (N-1)) or the next (numpy's
    rule): the same bucket, or the adjacent one when a bucket edge falls
    between those ranks -- so the two agree within a factor base = 1.0109
    (base^2 at such an edge); per label set, the counts and counters equal
    each exporter's own;
  * classic buckets (job "classic", /metrics?format=text): Prometheus 2.42
    keeps no classic buckets of a histogram that has native ones (checked),
    so a second job scrapes the text; histogram_quantile over sum by (le)
    of _bucket equals the classic interpolation of llmlat's merged classic
    buckets (within 1e-9), and llmlat's quantile lies in the same classic
    bucket;
  * OpenMetrics (job "openmetrics", ?format=openmetrics): the same
    counters and classic quantiles as the text job.

llmlat's side comes from the exporters' /state/N (the serialized
aggregators), merged with the Python binding. The differences seen are
printed. Every process is started here on 127.0.0.1, with free ports and a
temporary storage directory, and stopped at the end; the whole run is
bounded (DEADLINE). Environment: EXPORTER, PROMETHEUS, and the binding's
LLMLAT_LIBRARY / PYTHONPATH. A missing Prometheus fails (CI installs it).
"""

import math
import os
import time
import unittest

import llmlat
from prom_support import (Api, ProcessesTest, classic_buckets, classic_quantile, fetch,
                          native_index)

EXPORTER = os.environ["EXPORTER"]
PROMETHEUS = os.environ["PROMETHEUS"]
DEADLINE = 75.0  # seconds for the whole run
REQUESTS = 12000  # per exporter
MODELS = ("llama", "mistral")
ROUTES = ("/v1/chat", "/v1/completions")
SCHEMA = 6  # the default relative error's
QUANTILES = (0.5, 0.9, 0.99)
METRICS = ("ttft", "tpot", "itl")

started = time.monotonic()


def left():
    return DEADLINE - (time.monotonic() - started)


def rank_bucket(nb, rank):
    """The native bucket holding the sample of 0-based rank `rank`."""
    cum = nb.zero_count
    for j, c in enumerate(nb.counts):
        cum += c
        if rank < cum:
            return nb.offset + j
    raise AssertionError("rank %d of %d" % (rank, cum))


class PrometheusE2E(ProcessesTest):
    @classmethod
    def start(cls):
        # the exporters: a model each, two routes (label sets) each
        cls.exporters = []
        for seed, model in enumerate(MODELS, start=1):
            port, p = cls.processes.exporter(EXPORTER, "--seconds", str(int(DEADLINE)),
                                       "--model", model, "--seed", str(seed),
                                       "--requests", str(REQUESTS), "--ramp", "1")
            cls.exporters.append((model, port, p))
        # and one that never sees a request: empty native histograms
        cls.idle_port, _ = cls.processes.exporter(EXPORTER, "--seconds", str(int(DEADLINE)),
                                            "--model", "idle", "--requests", "0")
        for model, _, p in cls.exporters:
            line = p.stdout.readline()
            if not line.startswith("workload done"):
                raise AssertionError("exporter %s: %r" % (model, line))
        # llmlat's answers: the exporters' state, merged here
        cls.aggs = {}
        for model, port, _ in cls.exporters:
            for i, route in enumerate(ROUTES):
                data = fetch("http://127.0.0.1:%d/state/%d" % (port, i))
                cls.aggs[(model, route)] = llmlat.Aggregator.from_bytes(data)
        cls.merged = llmlat.Aggregator("default", "bounded")
        cls.merged.set_param("slo_ttft", 0.5)
        for a in cls.aggs.values():
            cls.merged.merge(a)
        cls.classic_text = cls.merged.report("prometheus")

        # Prometheus, scraping them every second in three ways
        targets = ", ".join("'127.0.0.1:%d'" % port for port in
                            [port for _, port, _ in cls.exporters] + [cls.idle_port])
        cls.api = Api(cls.processes.prometheus(PROMETHEUS, (
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
            "scrape_configs:\n"
            "  - job_name: native\n    static_configs: [{targets: [%s]}]\n"
            "  - job_name: classic\n    params: {format: [text]}\n"
            "    static_configs: [{targets: [%s]}]\n"
            "  - job_name: openmetrics\n    params: {format: [openmetrics]}\n"
            "    static_configs: [{targets: [%s]}]\n" % (targets, targets, targets))))
        # ready when every job has scraped the final counts
        want = cls.merged.stat("ttft", "count")
        queries = ['histogram_count(sum(llmlat_ttft_hist_seconds{job="native"}))',
                   'sum(llmlat_ttft_hist_seconds_count{job="classic"})',
                   'sum(llmlat_ttft_hist_seconds_count{job="openmetrics"})']
        # and has scraped the idle exporter too: each target has its own
        # offset in the scrape interval, so the busy ones can be done first
        idle = 'histogram_count(llmlat_ttft_hist_seconds{job="native",model="idle"})'
        while True:
            try:
                if all(cls.value(q) == want for q in queries) and len(cls.query(idle)) == 2:
                    break
            except (OSError, ValueError, KeyError, IndexError):
                pass
            if left() < 20:
                raise AssertionError("Prometheus did not scrape the final counts in time; "
                                     "its log:\n" + cls.processes.log_text())
            time.sleep(0.5)

    @classmethod
    def query(cls, promql):
        return cls.api.query(promql)

    @classmethod
    def value(cls, promql):
        return cls.api.value(promql)

    # ------------------------------------------------------------ native

    def test_native_count_and_sum(self):
        for m in METRICS:
            with self.subTest(metric=m):
                sel = 'sum(llmlat_%s_hist_seconds{job="native"})' % m
                self.assertEqual(self.value("histogram_count(%s)" % sel),
                                 self.merged.stat(m, "count"))
                got, want = self.value("histogram_sum(%s)" % sel), self.merged.stat(m, "sum")
                self.assertLessEqual(abs(got - want), 1e-12 * want, (got, want))

    def test_native_quantiles_in_llmlat_bucket(self):
        print("\nnative histogram_quantile vs llmlat (merged, bounded):")
        for m in METRICS:
            for q in QUANTILES:
                with self.subTest(metric=m, q=q):
                    p = self.value('histogram_quantile(%g, sum(llmlat_%s_hist_seconds{job="native"}))'
                                   % (q, m))
                    l = self.merged.quantile(m, q)
                    nb = self.merged.buckets(m)
                    n = self.merged.stat(m, "count")
                    prom_bucket = rank_bucket(nb, math.ceil(q * n) - 1)  # cumulative >= q N
                    r = math.floor(q * (n - 1))
                    ours = {rank_bucket(nb, r), rank_bucket(nb, min(r + 1, n - 1))}
                    print("  %-4s q=%-4g prometheus %.6g  llmlat %.6g  ratio %.5f  bucket %d / %d%s"
                          % (m, q, p, l, p / l, native_index(p, SCHEMA), native_index(l, SCHEMA),
                             "" if native_index(p, SCHEMA) == native_index(l, SCHEMA) else
                             "  (ranks q(N-1) and qN on either side of a bucket edge)"))
                    self.assertEqual(native_index(p, SCHEMA), prom_bucket, (p, prom_bucket))
                    self.assertIn(native_index(l, SCHEMA), ours, (l, ours))
                    self.assertLessEqual(abs(native_index(p, SCHEMA) - native_index(l, SCHEMA)), 1)
                    self.assertLessEqual(abs(math.log(p / l)), 2 * math.log(2) / 2 ** SCHEMA)

    def test_native_per_label_set(self):
        for (model, route), a in self.aggs.items():
            with self.subTest(model=model, route=route):
                sel = '{job="native",model="%s",route="%s"}' % (model, route)
                self.assertEqual(self.value("histogram_count(llmlat_ttft_hist_seconds%s)" % sel),
                                 a.stat("ttft", "count"))
                self.assertEqual(self.value("llmlat_requests_completed_total%s" % sel),
                                 a.counter("completed"))
                self.assertEqual(self.value("llmlat_requests_good_total%s" % sel),
                                 a.counter("good"))
                got = self.value("histogram_sum(llmlat_itl_hist_seconds%s)" % sel)
                self.assertEqual(got, a.stat("itl", "sum"))
        # fleet-wide goodput fraction, from the counters
        good = self.value('sum(llmlat_requests_good_total{job="native"}) / '
                          'sum(llmlat_requests_completed_total{job="native"})')
        self.assertAlmostEqual(good, self.merged.counter("good") / self.merged.counter("completed"),
                               places=12)

    def test_empty_histograms_are_native(self):
        # no bucket, no zero count: the zero threshold keeps them native
        idle = self.query('histogram_count(llmlat_ttft_hist_seconds{job="native",model="idle"})')
        self.assertEqual(sorted(float(r["value"][1]) for r in idle), [0.0, 0.0])
        self.assertEqual(self.query('llmlat_ttft_hist_seconds_count{job="native",model="idle"}'), [])

    def test_no_classic_buckets_beside_native_ones(self):
        # Prometheus 2.42 drops a histogram's classic buckets when it has
        # native ones (scrape_classic_histograms came in 2.45): hence the
        # "classic" job, which scrapes the text.
        self.assertEqual(self.query('llmlat_ttft_hist_seconds_bucket{job="native"}'), [])
        self.assertEqual(len(self.query('llmlat_ttft_hist_seconds{job="native"}')), 6)

    # ----------------------------------------------------------- classic

    def merged_classic(self, metric):
        """[(le, cumulative count)] of the merged aggregator's histogram."""
        return classic_buckets(self.classic_text, "llmlat_%s_hist_seconds" % metric)

    def test_classic_quantiles(self):
        print("\nclassic histogram_quantile vs llmlat:")
        for job in ("classic", "openmetrics"):
            for m in METRICS:
                buckets = self.merged_classic(m)
                self.assertEqual(buckets[-1][1], self.merged.stat(m, "count"))
                for q in QUANTILES:
                    with self.subTest(job=job, metric=m, q=q):
                        p = self.value('histogram_quantile(%g, sum by (le) '
                                       '(llmlat_%s_hist_seconds_bucket{job="%s"}))' % (q, m, job))
                        want = classic_quantile(q, buckets)
                        self.assertLessEqual(abs(p - want), 1e-9 * want, (p, want))
                        l = self.merged.quantile(m, q)
                        les = [le for le, _ in buckets]
                        holding = next(i for i, le in enumerate(les) if le >= p)
                        if job == "classic":
                            print("  %-4s q=%-4g prometheus %.6g  llmlat %.6g  (bucket le=%g)"
                                  % (m, q, p, l, les[holding]))
                        lo = les[holding - 1] if holding else 0.0
                        # llmlat's quantile is in that classic bucket, up to
                        # its relative error at the bucket's edges
                        self.assertTrue(lo * (1 - 0.0109) <= l <= les[holding] * (1 + 0.0109),
                                        (l, lo, les[holding]))

    def test_openmetrics_counters(self):
        for name in ("llmlat_requests_completed_total", "llmlat_output_tokens_total",
                     "llmlat_ttft_seconds_count"):
            with self.subTest(series=name):
                om = self.value('sum(%s{job="openmetrics"})' % name)
                text = self.value('sum(%s{job="classic"})' % name)
                native = self.value('sum(%s{job="native"})' % name)
                self.assertEqual(om, text)
                self.assertEqual(om, native)


if __name__ == "__main__":
    unittest.main(verbosity=2)
