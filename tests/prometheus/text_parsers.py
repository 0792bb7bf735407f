"""llmlat's text expositions read by real parsers: Python's prometheus_client
(Debian's python3-prometheus-client) reads fleet.txt with its text 0.0.4
parser and fleet.om with its OpenMetrics parser, to the same samples, the
label values' escapes undone; promtool check metrics accepts fleet.txt and
a report (its run gauges included). The same in each naming scheme
(fleet-vllm, fleet-sglang, fleet-otel): the system's families, types,
units and labels, read alike by both parsers; promtool's lint finds
nothing but what the system's own names bring (vLLM's and SGLang's ':',
SGLang's "_histogram").

Usage: /usr/bin/python3 text_parsers.py DIR, with PROMTOOL in the
environment. A missing parser or promtool fails the test: CI installs them
(scripts/setup-deps)."""

import math
import os
import subprocess
import sys
import unittest

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse_om
from prometheus_client.parser import text_string_to_metric_families as parse_text

DIR = sys.argv.pop(1) if __name__ == "__main__" else os.environ.get("SAMPLES", ".")
PROMTOOL = os.environ.get("PROMTOOL", "promtool")

MODEL_0 = 'llama "3" 70b'
MODEL_1 = "back\\slash\nnew line \u00e9t\u00e9"


def read(name):
    with open(os.path.join(DIR, name), encoding="utf-8") as f:
        return f.read()


def samples(families):
    """{(sample name, sorted labels): value} and the families by name."""
    out, by_name = {}, {}
    for fam in families:
        by_name[fam.name] = fam
        for s in fam.samples:
            key = (s.name, tuple(sorted(s.labels.items())))
            if key in out:
                raise AssertionError("sample %r twice" % (key,))
            out[key] = s.value
    return out, by_name


class TextParsers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.text, cls.text_families = samples(parse_text(read("fleet.txt")))
        cls.om, cls.om_families = samples(parse_om(read("fleet.om")))

    def test_same_samples(self):
        self.assertGreater(len(self.text), 500)
        self.assertEqual(set(self.text), set(self.om))
        for key, v in self.text.items():
            w = self.om[key]
            self.assertTrue(v == w or (math.isnan(v) and math.isnan(w)), key)

    def test_labels_unescaped(self):
        models = {dict(k[1]).get("model") for k in self.text}
        self.assertEqual(models, {MODEL_0, MODEL_1, None})
        info = [dict(k[1]) for k in self.text if k[0] == "llmlat_info"]
        self.assertEqual(len(info), 3)
        self.assertIn({"model": MODEL_1, "route": "/v1/chat", "version": info[1]["version"],
                       "convention": "vllm", "mode": "exact"}, info)

    def test_openmetrics_types_and_units(self):
        fam = self.om_families
        self.assertEqual(fam["llmlat_requests_completed"].type, "counter")
        self.assertIn("llmlat_requests_completed_total",
                      {s.name for s in fam["llmlat_requests_completed"].samples})
        self.assertEqual(fam["llmlat_output_tokens"].unit, "tokens")
        self.assertEqual(fam["llmlat_ttft_hist_seconds"].type, "histogram")
        self.assertEqual(fam["llmlat_ttft_hist_seconds"].unit, "seconds")
        self.assertEqual(fam["llmlat_ttft_seconds"].type, "summary")
        self.assertEqual(self.text_families["llmlat_requests_completed"].type, "counter")

    def test_histograms_hold_together(self):
        # per series: ascending buckets, +Inf = _count
        for (name, labels), v in self.text.items():
            if name != "llmlat_e2e_hist_seconds_count":
                continue
            rest = tuple(x for x in labels)
            inf = self.text[("llmlat_e2e_hist_seconds_bucket", tuple(sorted(rest + (("le", "+Inf"),))))]
            self.assertEqual(inf, v)
        counts = [v for (n, _), v in self.text.items() if n == "llmlat_requests_completed_total"]
        self.assertEqual(len(counts), 3)

    def test_promtool_accepts(self):
        for name in ("fleet.txt", "report.txt"):
            with self.subTest(file=name):
                p = subprocess.run([PROMTOOL, "check", "metrics"], input=read(name),
                                   capture_output=True, text=True, timeout=60)
                self.assertEqual(p.returncode, 0, p.stdout + p.stderr)


# Per scheme: {family as prometheus_client names it: (type, OpenMetrics unit)}
SCHEMES = {
    "vllm": {
        "vllm:prompt_tokens": ("counter", ""),
        "vllm:generation_tokens": ("counter", ""),
        "vllm:request_success": ("counter", ""),
        "vllm:request_prompt_tokens": ("histogram", "tokens"),
        "vllm:request_generation_tokens": ("histogram", "tokens"),
        "vllm:time_to_first_token_seconds": ("histogram", "seconds"),
        "vllm:inter_token_latency_seconds": ("histogram", "seconds"),
        "vllm:time_per_output_token_seconds": ("histogram", "seconds"),
        "vllm:request_time_per_output_token_seconds": ("histogram", "seconds"),
        "vllm:e2e_request_latency_seconds": ("histogram", "seconds"),
    },
    "sglang": {
        "sglang:prompt_tokens": ("counter", ""),
        "sglang:generation_tokens": ("counter", ""),
        "sglang:num_requests": ("counter", ""),
        "sglang:prompt_tokens_histogram": ("histogram", ""),
        "sglang:generation_tokens_histogram": ("histogram", ""),
        "sglang:time_to_first_token_seconds": ("histogram", "seconds"),
        "sglang:inter_token_latency_seconds": ("histogram", "seconds"),
        "sglang:e2e_request_latency_seconds": ("histogram", "seconds"),
    },
    "otel": {
        "gen_ai_client_token_usage": ("histogram", ""),
        "gen_ai_server_request_duration_seconds": ("histogram", "seconds"),
        "gen_ai_server_time_per_output_token_seconds": ("histogram", "seconds"),
        "gen_ai_server_time_to_first_token_seconds": ("histogram", "seconds"),
    },
}
MODEL_LABEL = {"vllm": "model_name", "sglang": "model_name", "otel": "gen_ai_request_model"}
# what promtool's lint says of the systems' own names, and nothing else
LINT_ALLOWED = ("metric names should not contain ':'",
                "metric name should not include type 'histogram'")


class NamingSchemes(unittest.TestCase):
    def test_both_parsers_read_each_scheme(self):
        for scheme, families in SCHEMES.items():
            with self.subTest(scheme=scheme):
                text, text_families = samples(parse_text(read("fleet-%s.txt" % scheme)))
                om, om_families = samples(parse_om(read("fleet-%s.om" % scheme)))
                self.assertEqual(set(text), set(om))
                for key, v in text.items():
                    self.assertTrue(v == om[key] or (math.isnan(v) and math.isnan(om[key])), key)
                self.assertEqual(set(om_families), set(families))
                for name, (type_, unit) in families.items():
                    self.assertEqual(om_families[name].type, type_, name)
                    self.assertEqual(om_families[name].unit, unit, name)
                    self.assertEqual(text_families[name].type, type_, name)
                # the labels renamed, the values' escapes undone
                models = {dict(k[1]).get(MODEL_LABEL[scheme]) for k in text}
                self.assertEqual(models, {MODEL_0, MODEL_1, None})
                self.assertFalse(any("model" in dict(k[1]) for k in text))
                # one histogram per aggregator (and token type): +Inf = _count
                for (name, labels), v in text.items():
                    if name.endswith("_count"):
                        inf = (name[:-len("_count")] + "_bucket",
                               tuple(sorted(labels + (("le", "+Inf"),))))
                        self.assertEqual(text[inf], v, name)

    def test_otel_attributes(self):
        text, _ = samples(parse_text(read("fleet-otel.txt")))
        first = [dict(k[1]) for k in text if dict(k[1]).get("gen_ai_request_model") == MODEL_0]
        self.assertTrue(first)
        for labels in first:
            self.assertEqual(labels["gen_ai_operation_name"], "chat")
            self.assertEqual(labels["gen_ai_provider_name"], "openai")
        types = {dict(k[1]).get("gen_ai_token_type") for k in text
                 if k[0].startswith("gen_ai_client_token_usage")}
        self.assertEqual(types, {"input", "output"})

    def test_promtool_lints_only_the_systems_names(self):
        for scheme in SCHEMES:
            with self.subTest(scheme=scheme):
                p = subprocess.run([PROMTOOL, "check", "metrics"],
                                   input=read("fleet-%s.txt" % scheme),
                                   capture_output=True, text=True, timeout=60)
                problems = [line for line in (p.stdout + p.stderr).splitlines() if line.strip()]
                if scheme == "otel":
                    self.assertEqual(p.returncode, 0, problems)
                    continue
                self.assertEqual(p.returncode, 3, problems)  # lint only, no parse error
                self.assertTrue(problems)
                for line in problems:
                    self.assertTrue(line.endswith(LINT_ALLOWED), line)


if __name__ == "__main__":
    unittest.main(verbosity=2)
