"""Labels, llmlat.expose() of several aggregators, content_type(),
Aggregator.buckets() and the "sum" statistic: the fleet exposition
(docs/prometheus.md) through the binding."""

import math
import struct
import unittest

from ._support import MS, S, add_requests, llmlat


def filled(convention="default", mode="bounded", labels=None, n=50):
    a = llmlat.Aggregator(convention, mode, labels=labels)
    add_requests(a, [dict(start=i * S, times=[i * S + (40 + i) * MS, i * S + (60 + 2 * i) * MS],
                          tokens=[1, 2], input_tokens=10 + i) for i in range(n)])
    return a


def varint(data, at):
    """A protobuf varint at data[at:]: (value, next offset)."""
    v, shift = 0, 0
    while True:
        b = data[at]
        at += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, at


def family_names(data):
    """The names of the delimited MetricFamily messages (field 1)."""
    names, at = [], 0
    while at < len(data):
        n, at = varint(data, at)
        msg = data[at:at + n]
        at += n
        tag, p = varint(msg, 0)
        assert tag == (1 << 3 | 2), tag
        length, p = varint(msg, p)
        names.append(msg[p:p + length].decode())
    return names


class LabelsTest(unittest.TestCase):
    def test_set_get_remove(self):
        with llmlat.Aggregator(labels={"route": "/v1/chat", "model": "llama"}) as a:
            self.assertEqual(a.labels, {"model": "llama", "route": "/v1/chat"})
            self.assertEqual(list(a.labels), ["model", "route"])  # name order
            a.set_label("model", "mistral \u00e9\"\n")
            self.assertEqual(a.labels["model"], "mistral \u00e9\"\n")
            a.set_label("route", None)
            a.set_label("model", "")
            self.assertEqual(a.labels, {})

    def test_invalid_names_refused(self):
        with llmlat.Aggregator() as a:
            for name in ("", "9a", "a-b", "__x", "le", "quantile", "version", "convention",
                         "mode"):
                with self.subTest(name=name), self.assertRaises(llmlat.InvalidArgumentError):
                    a.set_label(name, "v")
            with self.assertRaises(TypeError):
                a.set_label("a", 3)
            self.assertEqual(a.labels, {})

    def test_kept_by_reset_bytes_and_merge(self):
        with filled(labels={"model": "a"}) as a, filled(labels={"model": "b"}) as b:
            a.reset()
            self.assertEqual(a.labels, {"model": "a"})
            with llmlat.Aggregator.from_bytes(b.to_bytes()) as c:
                self.assertEqual(c.labels, {"model": "b"})
            a.merge(b)  # dst keeps its own
            self.assertEqual(a.labels, {"model": "a"})

    def test_in_reports(self):
        with filled(labels={"model": "x\"y"}) as a:
            self.assertEqual(a.summary()["labels"], {"model": "x\"y"})
            self.assertIn('labels: model="x\\"y"', a.report())
            self.assertIn('llmlat_info{model="x\\"y",version=', a.report("prometheus"))


class ExposeTest(unittest.TestCase):
    def test_many_aggregators_one_exposition(self):
        with filled(labels={"model": "a"}) as a, \
                filled("vllm", "exact", labels={"model": "b"}) as b:
            text = llmlat.expose([a, b]).decode()
            self.assertEqual(text.count("# TYPE llmlat_ttft_seconds summary\n"), 1)
            self.assertIn('llmlat_requests_completed_total{model="a"} 50\n', text)
            self.assertIn('llmlat_requests_completed_total{model="b"} 50\n', text)
            self.assertNotIn("llmlat_duration_seconds", text)  # no run gauge
            om = llmlat.expose([a, b], "openmetrics").decode()
            self.assertTrue(om.endswith("# EOF\n"))
            self.assertIn("# TYPE llmlat_requests_completed counter\n", om)
            pb = llmlat.expose([a, b], "prometheus_protobuf")
            names = family_names(pb)
            self.assertIn("llmlat_ttft_hist_seconds", names)
            self.assertEqual(len(names), text.count("# TYPE "))
            self.assertEqual(llmlat.expose([]), b"")

    def test_same_labels_refused(self):
        with filled(labels={"model": "a"}) as a, filled(labels={"model": "a"}) as b:
            with self.assertRaises(llmlat.InvalidArgumentError):
                llmlat.expose([a, b])
            with self.assertRaises(llmlat.InvalidArgumentError):
                llmlat.expose([a, a], "prometheus_protobuf")
        with self.assertRaises(TypeError):
            llmlat.expose(["x"])
        with llmlat.Aggregator() as a, self.assertRaises(llmlat.InvalidArgumentError):
            llmlat.expose([a], "json")
        closed = llmlat.Aggregator()
        closed.close()
        with self.assertRaises(ValueError):
            llmlat.expose([closed])

    def test_report_formats(self):
        with filled(labels={"model": "a"}) as a:
            self.assertTrue(a.report("openmetrics").endswith("# EOF\n"))
            self.assertIn("llmlat_duration_seconds", a.report("prometheus"))
            pb = a.report_bytes("prometheus_protobuf")
            self.assertIn("llmlat_duration_seconds", family_names(pb))
            with self.assertRaises(llmlat.InvalidArgumentError):
                a.report("prometheus_protobuf")  # binary: report_bytes

    def test_content_type(self):
        self.assertEqual(llmlat.content_type("prometheus"),
                         "text/plain; version=0.0.4; charset=utf-8")
        self.assertTrue(llmlat.content_type("openmetrics").startswith(
            "application/openmetrics-text; version=1.0.0"))
        self.assertIn("proto=io.prometheus.client.MetricFamily; encoding=delimited",
                      llmlat.content_type("prometheus_protobuf"))
        with self.assertRaises(llmlat.InvalidArgumentError):
            llmlat.content_type(99)


class NamingSchemesTest(unittest.TestCase):
    """expose(..., names=...): the series vLLM's, SGLang's and the
    OpenTelemetry GenAI conventions' dashboards read."""

    def test_names(self):
        self.assertEqual(llmlat.NAMES, ("llmlat", "vllm", "sglang", "otel"))

    def test_each_scheme(self):
        with filled(labels={"model": "a", "operation": "chat"}) as a, \
                filled("vllm", "exact", labels={"model": "b"}) as b:
            self.assertEqual(llmlat.expose([a, b], names="llmlat"), llmlat.expose([a, b]))
            vllm = llmlat.expose([a, b], names="vllm").decode()
            self.assertIn('vllm:request_success_total{model_name="a",operation="chat"} 50\n',
                          vllm)
            self.assertIn("# TYPE vllm:inter_token_latency_seconds histogram\n", vllm)
            self.assertIn('vllm:time_to_first_token_seconds_bucket{model_name="b",le="2560"} 50\n',
                          vllm)
            self.assertNotIn("llmlat_", vllm)
            sglang = llmlat.expose([a, b], "openmetrics", names="sglang").decode()
            self.assertIn("# TYPE sglang:num_requests counter\n", sglang)
            self.assertIn('sglang:inter_token_latency_seconds_count{model_name="a",'
                          'operation="chat"} %d\n' % a.stat("itl", "count"), sglang)
            otel = llmlat.expose([a, b], names=3).decode()  # an id works too
            self.assertIn('gen_ai_client_token_usage_count{gen_ai_request_model="a",'
                          'gen_ai_operation_name="chat",gen_ai_token_type="output"} 50\n', otel)
            pb = llmlat.expose([a, b], "prometheus_protobuf", names="otel")
            self.assertEqual(family_names(pb), [
                "gen_ai_client_token_usage", "gen_ai_server_request_duration_seconds",
                "gen_ai_server_time_per_output_token_seconds",
                "gen_ai_server_time_to_first_token_seconds"])

    def test_refused(self):
        with filled(labels={"model": "a", "model_name": "b"}) as a:
            llmlat.expose([a], names="otel")
            with self.assertRaises(llmlat.InvalidArgumentError):
                llmlat.expose([a], names="vllm")
            with self.assertRaises(llmlat.InvalidArgumentError) as e:
                llmlat.expose([a], names="grafana")
            self.assertIn("one of: llmlat, vllm, sglang, otel", str(e.exception))
            with self.assertRaises(llmlat.InvalidArgumentError):
                llmlat.expose([a], names=9)
            with self.assertRaises(TypeError):
                llmlat.expose([a], names=1.5)


class BucketsAndSumTest(unittest.TestCase):
    def test_lacking_metric_has_no_buckets(self):
        with llmlat.Aggregator("default", "bounded") as a:
            with llmlat.Request() as r:
                r.start(0)
                r.set_lacks(llmlat.LACKS["input_tokens"])
                r.events([100 * MS, 150 * MS], [1, 1])
                r.finish(150 * MS)
                a.add(r)
            self.assertIsNone(a.buckets("input_tokens"))
            self.assertEqual(a.buckets("ttft").zero_count + sum(a.buckets("ttft").counts), 1)
            text = llmlat.expose([a], names="otel").decode()
            self.assertNotIn('gen_ai_token_type="input"', text)
            self.assertIn('gen_ai_token_type="output"', text)

    def test_both_modes_agree(self):
        with filled("default", "bounded") as b, filled("default", "exact") as e:
            for m in ("ttft", "itl", "e2e", "tps_user", "output_tokens"):
                with self.subTest(metric=m):
                    nb, ne = b.buckets(m), e.buckets(m)
                    self.assertEqual(nb, ne)
                    self.assertEqual(nb.schema, 6)
                    self.assertEqual(nb.zero_count + sum(nb.counts), b.stat(m, "count"))
                    self.assertGreater(nb.zero_threshold, 0)
                    # every bucket holds its samples: (base^(i-1), base^i]
                    base = 2 ** (2 ** -nb.schema)
                    self.assertLess(base ** (nb.offset - 1), b.stat(m, "min") * (1 + 1e-12))
                    top = nb.offset + len(nb.counts) - 1
                    self.assertGreaterEqual(base ** top * (1 + 1e-12), b.stat(m, "max"))

    def test_sum_is_exact_and_grows(self):
        with llmlat.Aggregator("default", "bounded") as a:
            self.assertEqual(a.stat("ttft", "sum"), 0.0)
            self.assertEqual(a.buckets("ttft").counts, [])
            total = 0
            prev = 0.0
            for i in range(1, 200):
                add_requests(a, [dict(start=0, times=[100 * MS + i])])
                total += 100 * MS + i
                s = a.stat("ttft", "sum")
                self.assertGreaterEqual(s, prev)
                prev = s
            self.assertEqual(prev, total / 1e9)

    def test_finer_schemas(self):
        with llmlat.Aggregator("default", "bounded", relative_error=0.0004) as a:
            add_requests(a, [dict(start=0, times=[t * MS]) for t in (1, 2, 3, 50)])
            nb = a.buckets("ttft")
            self.assertEqual(nb.schema, 10)
            self.assertEqual(sum(nb.counts), 4)
            self.assertTrue(math.isclose(nb.zero_threshold, 0.05 * 2 ** -31, rel_tol=0.01))


if __name__ == "__main__":
    unittest.main()
