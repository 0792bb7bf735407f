"""The naming schemes read by their real consumers (issue 26): the example
exporter run in each scheme (--names vllm for two models, sglang, otel),
scraped by a real Prometheus (Debian's 2.42, native histograms on) in two
jobs, "classic" (?format=text: _bucket, _sum, _count and the counters)
and "native" (protobuf: the native histograms; its counters dropped, so
that a query without a job sees each counter once, as on a server scraped
by one job). The exporters hold their workload until both jobs have
scraped their empty series, so that every series starts from 0 in the
window the queries use; llmlat's own answers come from the exporters'
/state/N, merged with the Python binding.

  * vLLM: every latency and token query of vLLM's Grafana dashboard
    (examples/online_serving/prometheus_grafana/grafana.json in the vLLM
    repository; its PromQL is written out below, Grafana's $model_name
    and $__rate_interval substituted, the window covering the whole run):
    the quantile panels equal Prometheus' classic interpolation of
    llmlat's own classic buckets of the same model (within 1e-9), with
    llmlat's quantile in the same classic bucket; the mean panels equal
    llmlat's sum / count; the throughput, heatmap and finish-reason panels
    equal llmlat's counts times the window's one extrapolation factor
    (rate() and increase() scale every series of a scrape alike). The
    queries for what vLLM measures on the server and llmlat cannot (queue,
    prefill and decode time, scheduler state, cache usage, the max_tokens
    parameter) find no series, as docs/prometheus.md says. The same
    panels under vLLM 0.11's names (inter_token_latency,
    request_time_per_output_token), and the native histograms under
    vLLM's names, against llmlat's quantile within one native bucket.
  * SGLang: counts, sums and classic quantiles of its three latency
    histograms and its token counters against llmlat's.
  * OpenTelemetry: the names, instruments, units and attributes of the
    GenAI semantic conventions (written out below from
    model/gen-ai/metrics.yaml of semantic-conventions v1.41.0) in
    Prometheus form; the recommended bucket boundaries; a panel's PromQL.
  * every exporter's text and OpenMetrics scrape read alike by
    prometheus_client's parsers; promtool check metrics linting nothing
    but what the systems' own names bring.

Every process is started here on 127.0.0.1, on free ports, with a
temporary storage directory, and stopped at the end; the whole run is
bounded (DEADLINE). Environment: EXPORTER, PROMETHEUS, PROMTOOL and the
binding's LLMLAT_LIBRARY / PYTHONPATH. A missing Prometheus fails.
"""

import math
import os
import re
import subprocess
import time
import unittest

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om
from prometheus_client.parser import text_string_to_metric_families as parse_text

import llmlat
from prom_support import (Api, ProcessesTest, classic_buckets, classic_quantile, fetch,
                          native_index, wait_until)

EXPORTER = os.environ["EXPORTER"]
PROMETHEUS = os.environ["PROMETHEUS"]
PROMTOOL = os.environ["PROMTOOL"]
DEADLINE = 100.0  # seconds for the whole run
REQUESTS = 3000  # per exporter
SCHEMA = 6
ALPHA = 0.0109  # base - 1 at schema 6: llmlat's quantile is that close to its bucket
PROVIDER = "example"  # gen_ai.provider.name: a custom value, as the conventions allow
# (scheme, model, seed): two vLLM servers for the dashboard's $model_name
SERVERS = (("vllm", "llama", 1), ("vllm", "mistral", 2), ("sglang", "qwen", 3),
           ("otel", "gemma", 4))
QUANTILES = (0.99, 0.95, 0.9, 0.5)  # the dashboard's P99, P95, P90, P50

started = time.monotonic()

# ------------------------------------------------------------------- vLLM

# vLLM's Grafana dashboard, panel by panel: (panel, [PromQL]), as the
# dashboard has them. $model_name and $__rate_interval are Grafana's.
DASHBOARD_QUANTILE = ('histogram_quantile(%s, sum by(le) (rate(%s_bucket{model_name="$model_name"}'
                      '[$__rate_interval])))')
DASHBOARD_MEAN = ('rate(%s_sum{model_name="$model_name"}[$__rate_interval])\n/\n'
                  'rate(%s_count{model_name="$model_name"}[$__rate_interval])')
# latency panels: (panel title, family, llmlat metric)
LATENCY_PANELS = (
    ("E2E Request Latency", "vllm:e2e_request_latency_seconds", "e2e"),
    ("Time Per Output Token Latency", "vllm:time_per_output_token_seconds", "icl"),
    ("Time To First Token Latency", "vllm:time_to_first_token_seconds", "ttft"),
)
# the same panels under the names vLLM 0.11 gave them
LATENCY_PANELS_0_11 = (
    ("Inter Token Latency (0.11)", "vllm:inter_token_latency_seconds", "icl"),
    ("Time Per Output Token (0.11, per request)", "vllm:request_time_per_output_token_seconds",
     "tpot"),
)
THROUGHPUT = (  # "Token Throughput": (PromQL, llmlat counter)
    ('rate(vllm:prompt_tokens_total{model_name="$model_name"}[$__rate_interval])',
     "input_tokens"),
    ('rate(vllm:generation_tokens_total{model_name="$model_name"}[$__rate_interval])',
     "output_tokens"),
)
HEATMAPS = (  # "Request Prompt Length", "Request Generation Length"
    ('sum by(le) (increase(vllm:request_prompt_tokens_bucket{model_name="$model_name"}'
     '[$__rate_interval]))', "vllm:request_prompt_tokens"),
    ('sum by(le) (increase(vllm:request_generation_tokens_bucket{model_name="$model_name"}'
     '[$__rate_interval]))', "vllm:request_generation_tokens"),
)
FINISH_REASON = ('sum by(finished_reason) (increase(vllm:request_success_total'
                 '{model_name="$model_name"}[$__rate_interval]))')
# what vLLM measures inside the server, which llmlat has no metric for
LEFT_OUT = (
    'vllm:num_requests_running{model_name="$model_name"}',
    'vllm:num_requests_waiting{model_name="$model_name"}',
    'vllm:gpu_cache_usage_perc{model_name="$model_name"}',
    'rate(vllm:request_queue_time_seconds_sum{model_name="$model_name"}[$__rate_interval])',
    'rate(vllm:request_prefill_time_seconds_sum{model_name="$model_name"}[$__rate_interval])',
    'rate(vllm:request_decode_time_seconds_sum{model_name="$model_name"}[$__rate_interval])',
    'rate(vllm:request_max_num_generation_tokens_sum{model_name="$model_name"}'
    '[$__rate_interval])',
)
MODEL_VARIABLE = '{__name__=~"vllm:.*"}'  # label_values({__name__=~"vllm:.*"},model_name)

# ----------------------------------------------------------- OpenTelemetry

# model/gen-ai/metrics.yaml (semantic-conventions v1.41.0): the metrics the
# otel scheme writes, their instrument and unit, the attributes required
# (and required when available) of each, and the recommended
# ExplicitBucketBoundaries (docs/gen-ai/gen-ai-metrics.md).
GENAI_ATTRIBUTES = ("gen_ai.operation.name", "gen_ai.provider.name", "gen_ai.request.model")
SEMCONV = {
    "gen_ai.client.token.usage": (
        "histogram", "{token}", GENAI_ATTRIBUTES + ("gen_ai.token.type",),
        [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216,
         67108864]),
    "gen_ai.server.request.duration": (
        "histogram", "s", GENAI_ATTRIBUTES,
        [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96,
         81.92]),
    "gen_ai.server.time_per_output_token": (
        "histogram", "s", GENAI_ATTRIBUTES,
        [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5]),
    "gen_ai.server.time_to_first_token": (
        "histogram", "s", GENAI_ATTRIBUTES,
        [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
         10.0]),
}
# well-known values (the conventions' enums)
OPERATION_NAMES = {"chat", "create_agent", "embeddings", "execute_tool", "generate_content",
                   "invoke_agent", "retrieval", "text_completion"}
TOKEN_TYPES = {"input", "output"}
OTEL_METRIC = {"gen_ai.server.request.duration": "e2e",
               "gen_ai.server.time_per_output_token": "tpot",
               "gen_ai.server.time_to_first_token": "ttft"}
PROMETHEUS_UNITS = {"s": "seconds"}  # the ones these metrics use


def prometheus_name(name, unit):
    """OpenTelemetry's metric name in Prometheus form: dots to underscores,
    the unit's full word appended, a {annotation} unit adding nothing."""
    out = name.replace(".", "_")
    if unit.startswith("{"):
        return out
    return out + "_" + PROMETHEUS_UNITS[unit]


def left():
    return started + DEADLINE - time.monotonic()


class NamingSchemesE2E(ProcessesTest):
    @classmethod
    def start(cls):
        cls.servers = []  # (scheme, model, port, process)
        for scheme, model, seed in SERVERS:
            args = ["--seconds", str(int(DEADLINE)), "--names", scheme, "--model", model,
                    "--seed", str(seed), "--requests", str(REQUESTS), "--ramp", "2", "--hold"]
            if scheme == "otel":
                args += ["--provider", PROVIDER]
            port, p = cls.processes.exporter(EXPORTER, *args)
            cls.servers.append((scheme, model, port, p))
        targets = ", ".join("'127.0.0.1:%d'" % s[2] for s in cls.servers)
        cls.prom_started = time.time()
        cls.api = Api(cls.processes.prometheus(PROMETHEUS, (
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\n"
            "scrape_configs:\n"
            "  - job_name: classic\n    params: {format: [text]}\n"
            "    static_configs: [{targets: [%s]}]\n"
            "  - job_name: native\n    static_configs: [{targets: [%s]}]\n"
            "    metric_relabel_configs:\n"
            "      - {source_labels: [__name__], regex: '.*_total', action: drop}\n"
            % (targets, targets))))
        deadline = time.monotonic() + left() - 40
        log = cls.processes.log_text
        # both jobs have scraped every exporter's empty series
        empty = {"vllm": "vllm:e2e_request_latency_seconds",
                 "sglang": "sglang:e2e_request_latency_seconds",
                 "otel": "gen_ai_server_request_duration_seconds"}
        routes = {s: 2 * sum(1 for x in SERVERS if x[0] == s) for s in empty}
        wait_until(lambda: all(
            cls.api.value('count(%s_count{job="classic"})' % f) == routes[s] and
            cls.api.value('count(%s{job="native"})' % f) == routes[s]
            for s, f in empty.items()), deadline, "the empty series scraped", log)
        for _, _, port, _ in cls.servers:
            fetch("http://127.0.0.1:%d/start" % port)
        for scheme, model, _, p in cls.servers:
            line = p.stdout.readline()
            if not line.startswith("workload done"):
                raise AssertionError("exporter %s: %r" % (model, line))
        # llmlat's answers: each label set's aggregator, and each server's merged
        cls.aggs, cls.merged = {}, {}
        for scheme, model, port, _ in cls.servers:
            merged = llmlat.Aggregator("default", "bounded", slo={"ttft": 0.5})
            for route in (0, 1):
                a = llmlat.Aggregator.from_bytes(
                    fetch("http://127.0.0.1:%d/state/%d" % (port, route)))
                cls.aggs[(model, route)] = a
                merged.merge(a)
            cls.merged[model] = merged
        # what a scrape gives now, in the text formats
        cls.scrapes = {}
        for scheme, model, port, _ in cls.servers:
            for fmt in ("text", "openmetrics"):
                cls.scrapes[(model, fmt)] = fetch(
                    "http://127.0.0.1:%d/metrics?format=%s" % (port, fmt)).decode()
        # the final counts scraped by both jobs
        ttft = {"vllm": ("vllm:time_to_first_token_seconds", "model_name"),
                "sglang": ("sglang:time_to_first_token_seconds", "model_name"),
                "otel": ("gen_ai_server_time_to_first_token_seconds", "gen_ai_request_model")}

        def scraped():
            for scheme, model, _, _ in cls.servers:
                family, label = ttft[scheme]
                want = cls.merged[model].stat("ttft", "count")
                if cls.api.value('sum(%s_count{job="classic",%s="%s"})'
                                 % (family, label, model)) != want or \
                        cls.api.value('histogram_count(sum(%s{job="native",%s="%s"}))'
                                      % (family, label, model)) != want:
                    return False
            return True

        wait_until(scraped, time.monotonic() + left() - 15, "the final counts scraped", log)
        # the queries' instant, and a window from before the first sample
        cls.at = time.time()
        cls.window = "%ds" % (math.ceil(cls.at - cls.prom_started) + 10)

    # -------------------------------------------------------------- helpers

    def grafana(self, promql, model):
        """The PromQL as Grafana sends it for this $model_name, the window
        covering the whole run."""
        return promql.replace("$model_name", model).replace("$__rate_interval", self.window)

    def query(self, promql):
        return self.api.query(promql, self.at)

    def value(self, promql):
        return self.api.value(promql, self.at)

    def llmlat_classic(self, model, family, names="vllm"):
        """llmlat's own classic buckets of the server's merged aggregator."""
        text = llmlat.expose([self.merged[model]], names=names).decode()
        return classic_buckets(text, family)

    def assert_in_classic_bucket(self, ours, prom, buckets):
        les = [le for le, _ in buckets]
        holding = next(i for i, le in enumerate(les) if le >= prom)
        lo = les[holding - 1] if holding else 0.0
        self.assertTrue(lo * (1 - ALPHA) <= ours <= les[holding] * (1 + ALPHA),
                        (ours, lo, les[holding]))

    # ----------------------------------------------------- vLLM's dashboard

    def test_model_variable(self):
        got = self.api.get("label/model_name/values", **{"match[]": MODEL_VARIABLE})
        self.assertEqual(sorted(got), ["llama", "mistral"])

    def test_dashboard_latency_quantiles(self):
        print("\nvLLM dashboard quantile panels vs llmlat (merged, bounded):")
        for title, family, metric in LATENCY_PANELS + LATENCY_PANELS_0_11:
            for model in ("llama", "mistral"):
                buckets = self.llmlat_classic(model, family)
                self.assertEqual(buckets[-1][1], self.merged[model].stat(metric, "count"))
                for q in QUANTILES:
                    with self.subTest(panel=title, model=model, q=q):
                        got = self.value(self.grafana(DASHBOARD_QUANTILE % (q, family), model))
                        want = classic_quantile(q, buckets)
                        self.assertLessEqual(abs(got - want), 1e-9 * want, (got, want))
                        ours = self.merged[model].quantile(metric, q)
                        self.assert_in_classic_bucket(ours, got, buckets)
                        if model == "llama":
                            print("  %-42s P%-3g prometheus %.6g  llmlat %.6g"
                                  % (title, q * 100, got, ours))

    def test_dashboard_means(self):
        for title, family, metric in LATENCY_PANELS + LATENCY_PANELS_0_11:
            for model in ("llama", "mistral"):
                with self.subTest(panel=title, model=model):
                    result = self.query(self.grafana(DASHBOARD_MEAN % (family, family), model))
                    self.assertEqual(len(result), 2)  # a series per route
                    for r in result:
                        route = 0 if r["metric"]["route"] == "/v1/chat" else 1
                        a = self.aggs[(model, route)]
                        want = a.stat(metric, "sum") / a.stat(metric, "count")
                        got = float(r["value"][1])
                        self.assertLessEqual(abs(got - want), 1e-9 * want, (got, want))

    def window_factor(self, model):
        """increase() over the window is the final count times one factor
        per scrape target: rate()'s extrapolation to the window's end (its
        start is the series' 0). Read from the finish-reason panel."""
        result = self.query(self.grafana(FINISH_REASON, model))
        # llmlat does not know why a request ended: no finished_reason
        self.assertEqual(len(result), 1)
        self.assertNotIn("finished_reason", result[0]["metric"])
        factor = float(result[0]["value"][1]) / self.merged[model].counter("completed")
        self.assertTrue(1.0 <= factor < 1.5, factor)
        return factor

    def test_dashboard_throughput_and_finish_reason(self):
        seconds = float(self.window[:-1])
        for model in ("llama", "mistral"):
            factor = self.window_factor(model)
            for promql, counter in THROUGHPUT:
                with self.subTest(model=model, query=promql):
                    result = self.query(self.grafana(promql, model))
                    self.assertEqual(len(result), 2)  # a series per route
                    for r in result:
                        route = 0 if r["metric"]["route"] == "/v1/chat" else 1
                        want = self.aggs[(model, route)].counter(counter) * factor / seconds
                        got = float(r["value"][1])
                        self.assertLessEqual(abs(got - want), 1e-9 * want, (got, want))

    def test_dashboard_heatmaps(self):
        for model in ("llama", "mistral"):
            factor = self.window_factor(model)
            for promql, family in HEATMAPS:
                with self.subTest(model=model, heatmap=family):
                    ours = dict(self.llmlat_classic(model, family))
                    result = self.query(self.grafana(promql, model))
                    got = {float(r["metric"]["le"]): float(r["value"][1]) for r in result}
                    self.assertEqual(set(got), set(ours))
                    for le, count in ours.items():
                        self.assertLessEqual(abs(got[le] - count * factor), 1e-9 * count * factor,
                                             (le, got[le], count))

    def test_dashboard_left_out(self):
        for promql in LEFT_OUT:
            with self.subTest(query=promql):
                self.assertEqual(self.query(self.grafana(promql, "llama")), [])

    def test_vllm_native_histograms(self):
        print("\nnative histogram_quantile under vLLM's names vs llmlat:")
        for _, family, metric in LATENCY_PANELS + LATENCY_PANELS_0_11:
            for q in (0.5, 0.99):
                with self.subTest(family=family, q=q):
                    sel = '%s{job="native",model_name="llama"}' % family
                    self.assertEqual(self.value("histogram_count(sum(%s))" % sel),
                                     self.merged["llama"].stat(metric, "count"))
                    got = self.value("histogram_quantile(%g, sum(rate(%s[%s])))"
                                     % (q, sel, self.window))
                    ours = self.merged["llama"].quantile(metric, q)
                    print("  %-44s q=%-4g prometheus %.6g  llmlat %.6g  ratio %.5f"
                          % (family, q, got, ours, got / ours))
                    self.assertLessEqual(abs(native_index(got, SCHEMA) -
                                             native_index(ours, SCHEMA)), 1)

    # ------------------------------------------------------------- SGLang

    def test_sglang(self):
        for family, metric in (("sglang:time_to_first_token_seconds", "ttft"),
                               ("sglang:inter_token_latency_seconds", "itl"),
                               ("sglang:e2e_request_latency_seconds", "e2e")):
            buckets = self.llmlat_classic("qwen", family, "sglang")
            for q in (0.5, 0.9, 0.99):
                with self.subTest(family=family, q=q):
                    got = self.value('histogram_quantile(%g, sum by (le) (rate(%s_bucket'
                                     '{model_name="qwen"}[%s])))' % (q, family, self.window))
                    want = classic_quantile(q, buckets)
                    self.assertLessEqual(abs(got - want), 1e-9 * want, (got, want))
                    self.assert_in_classic_bucket(self.merged["qwen"].quantile(metric, q), got,
                                                  buckets)
            self.assertEqual(self.value('sum(%s_count{model_name="qwen"})' % family),
                             self.merged["qwen"].stat(metric, "count"))
            self.assertEqual(self.value('histogram_count(sum(%s{job="native"}))' % family),
                             self.merged["qwen"].stat(metric, "count"))
        for family, counter in (("sglang:prompt_tokens_total", "input_tokens"),
                                ("sglang:generation_tokens_total", "output_tokens"),
                                ("sglang:num_requests_total", "completed")):
            self.assertEqual(self.value("sum(%s)" % family), self.merged["qwen"].counter(counter))

    # ------------------------------------------------------ OpenTelemetry

    def test_otel_names_units_attributes(self):
        families = {f.name: f for f in parse_om(self.scrapes[("gemma", "openmetrics")])}
        want = {prometheus_name(name, spec[1]): (name, spec) for name, spec in SEMCONV.items()}
        self.assertEqual(set(families), set(want))
        for prom, (name, (instrument, unit, attributes, bounds)) in want.items():
            with self.subTest(metric=name):
                f = families[prom]
                self.assertEqual(f.type, instrument)
                self.assertEqual(f.unit, "" if unit.startswith("{") else PROMETHEUS_UNITS[unit])
                les = set()
                for s in f.samples:
                    for attr in attributes:
                        self.assertIn(attr.replace(".", "_"), s.labels, (s.name, attr))
                    self.assertIn(s.labels["gen_ai_operation_name"], OPERATION_NAMES)
                    self.assertEqual(s.labels["gen_ai_provider_name"], PROVIDER)
                    self.assertEqual(s.labels["gen_ai_request_model"], "gemma")
                    if "gen_ai_token_type" in s.labels:
                        self.assertIn(s.labels["gen_ai_token_type"], TOKEN_TYPES)
                    if s.name == prom + "_bucket":
                        les.add(float(s.labels["le"]))
                self.assertEqual(sorted(les), bounds + [math.inf])
        types = {s.labels["gen_ai_token_type"]
                 for s in families["gen_ai_client_token_usage"].samples}
        self.assertEqual(types, TOKEN_TYPES)

    def test_otel_panels(self):
        for name, metric in OTEL_METRIC.items():
            family = prometheus_name(name, "s")
            buckets = self.llmlat_classic("gemma", family, "otel")
            with self.subTest(metric=name):
                got = self.value('histogram_quantile(0.95, sum by (le) (rate(%s_bucket'
                                 '{gen_ai_request_model="gemma"}[%s])))' % (family, self.window))
                self.assertLessEqual(abs(got - classic_quantile(0.95, buckets)), 1e-9 * got)
                self.assertEqual(self.value('histogram_count(sum(%s{job="native"}))' % family),
                                 self.merged["gemma"].stat(metric, "count"))
        # tokens per operation and type: one histogram, told apart by gen_ai_token_type
        result = self.query('sum by (gen_ai_token_type) (gen_ai_client_token_usage_sum'
                            '{job="classic"})')
        got = {r["metric"]["gen_ai_token_type"]: float(r["value"][1]) for r in result}
        self.assertEqual(got, {"input": self.merged["gemma"].counter("input_tokens"),
                               "output": self.merged["gemma"].counter("output_tokens")})
        result = self.query('histogram_count(sum by (gen_ai_token_type, gen_ai_operation_name) '
                            '(gen_ai_client_token_usage{job="native"}))')
        self.assertEqual(len(result), 4)
        for r in result:
            route = 0 if r["metric"]["gen_ai_operation_name"] == "chat" else 1
            metric = r["metric"]["gen_ai_token_type"] + "_tokens"
            self.assertEqual(float(r["value"][1]), self.aggs[("gemma", route)].stat(metric, "count"))

    # -------------------------------------------- the text formats' parsers

    def test_scrapes_parse_alike(self):
        lint = re.compile(r".* (metric names should not contain ':'|"
                          r"metric name should not include type 'histogram')$")
        for scheme, model, _, _ in self.servers:
            with self.subTest(scheme=scheme, model=model):
                text = {(s.name, tuple(sorted(s.labels.items()))): s.value
                        for f in parse_text(self.scrapes[(model, "text")]) for s in f.samples}
                om = {(s.name, tuple(sorted(s.labels.items()))): s.value
                      for f in parse_om(self.scrapes[(model, "openmetrics")]) for s in f.samples}
                self.assertEqual(text, om)
                self.assertFalse(any(name.startswith("llmlat_") for name, _ in text))
                p = subprocess.run([PROMTOOL, "check", "metrics"],
                                   input=self.scrapes[(model, "text")],
                                   capture_output=True, text=True, timeout=60)
                problems = [x for x in (p.stdout + p.stderr).splitlines() if x.strip()]
                self.assertEqual(p.returncode, 0 if scheme == "otel" else 3, problems)
                for line in problems:
                    self.assertRegex(line, lint)


if __name__ == "__main__":
    unittest.main(verbosity=2)
