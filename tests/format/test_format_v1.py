#!/usr/bin/env python3
"""Bytes of format version 1 (llmlat 1.0.0) still deserialize.

For every file of tests/data/format-v1: it deserializes; the copy answers
what 1.0.0 answered for it (the JSON beside it); exact-mode copies also
answer what a fresh aggregator given the same 40 requests answers, and
both modes keep the settings and go on accepting requests.

    test_format_v1.py DATA_DIR     (LLMLAT_LIBRARY and PYTHONPATH set by meson)
"""
import glob
import json
import math
import os
import sys
import unittest
from decimal import Decimal

import llmlat

DATA = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(__file__), "..", "data", "format-v1")
METRICS = ["ttft", "tpot", "itl", "icl", "e2e", "tps_user", "itl_max",
           "output_tokens", "input_tokens", "tool_itl"]
STATS = ["count", "mean", "std", "min", "max", "median"]
QUANTILES = [0.1, 0.5, 0.9, 0.99]


def schema_error(alpha):
    """The error e of the coarsest native-histogram schema within alpha
    (docs/bounded.md): (base - 1) / (base + 1), base = 2^(2^-schema)."""
    for schema in range(1, 13):
        base = 2.0 ** (2.0 ** -schema)
        e = (base - 1) / (base + 1)
        if e <= alpha * (1 - 2.0 ** -30):
            return e
    raise ValueError(alpha)


def rebucket_bound(alpha):
    """How far a quantile of a version-1 bounded copy may be from exact
    mode's (relative): the v1 bucket's value was within alpha of its
    samples, the native bucket it is counted in within e of that value."""
    e = schema_error(alpha)
    return alpha + e + alpha * e


def ns(x):
    return int((Decimal(repr(x)) * 10**9).to_integral_value())


def requests():
    with open(os.path.join(DATA, "trace.jsonl")) as f:
        for line in f:
            q = json.loads(line)
            r = llmlat.Request()
            r.start(ns(q["start"]))
            for t, k in q["events"]:
                r.event(ns(t), k)
            if "input_tokens" in q:
                r.set_input_tokens(q["input_tokens"])
            if "output_tokens" in q:
                r.set_output_tokens(q["output_tokens"])
            end = ns(q["end"]) if "end" in q else (
                ns(q["events"][-1][0]) if q["events"] else ns(q["start"]))
            (r.finish if q.get("ok", True) else r.fail)(end)
            yield r


def answers(a):
    out = {}
    for m in METRICS:
        out[m] = {s: a.stat(m, s) for s in STATS}
        out[m]["quantiles"] = a.quantiles(m, QUANTILES)
    out["counters"] = {c: a.counter(c) for c in
                       ["completed", "failed", "tpot_undefined", "input_tokens", "output_tokens"]}
    return out


class FormatV1(unittest.TestCase):
    def files(self):
        found = sorted(glob.glob(os.path.join(DATA, "*.bin")))
        self.assertEqual(len(found), 10, "the ten committed version-1 files")
        return found

    def test_version_is_1(self):
        for path in self.files():
            with open(path, "rb") as f:
                head = f.read(12)
            self.assertEqual(head[:8], b"LLMLATAG")
            self.assertEqual(int.from_bytes(head[8:12], "little"), 1, path)

    def test_answers_kept(self):
        """Counters, count, mean, std, min and max as 1.0.0 answered;
        exact-mode quantiles too; bounded quantiles, whose buckets were
        converted, within rebucket_bound of exact mode's, quantile by
        quantile."""
        for path in self.files():
            name = os.path.basename(path)[:-4]
            conv, mode = name.split("-")
            with open(path, "rb") as f:
                a = llmlat.Aggregator.from_bytes(f.read())
            self.assertEqual((a.convention, a.mode), (conv, mode))
            with open(path[:-4] + ".json") as f:
                want = json.load(f)
            got = answers(a)
            self.assertEqual(got["counters"], want["counters"], name)
            if mode == "bounded":
                exact = llmlat.Aggregator(conv, "exact")
                for r in requests():
                    exact.add(r)
                    r.close()
                truth = answers(exact)
                bound = rebucket_bound(a.get_param("relative_error"))
            for m in METRICS:
                for s in STATS:
                    w, g = want[m][s], got[m][s]
                    if s == "median" and mode == "bounded":
                        e = truth[m][s]
                        self.assertTrue(e is None and g is None or
                                        abs(g - e) <= bound * abs(e), (name, m, s, g, e))
                    else:
                        self.assertEqual(g, w, (name, m, s))
                if mode == "bounded":
                    pairs = zip(got[m]["quantiles"], truth[m]["quantiles"])
                    for q, (g, e) in zip(QUANTILES, pairs):
                        self.assertTrue(e is None and g is None or abs(g - e) <= bound * abs(e),
                                        (name, m, q, g, e, bound))
                else:
                    self.assertEqual(got[m]["quantiles"], want[m]["quantiles"], (name, m))

    def test_exact_copies_equal_a_fresh_aggregator(self):
        for path in self.files():
            if not path.endswith("-exact.bin"):
                continue
            conv = os.path.basename(path).split("-")[0]
            with open(path, "rb") as f:
                copy = llmlat.Aggregator.from_bytes(f.read())
            fresh = llmlat.Aggregator(conv, "exact")
            if conv == "vllm":
                fresh.set_param("slo_ttft", 0.5)
                fresh.set_param("slo_tpot", 0.05)
            for r in requests():
                fresh.add(r)
                r.close()
            self.assertEqual(answers(copy), answers(fresh), conv)

    def test_settings_kept_and_adds_go_on(self):
        with open(os.path.join(DATA, "vllm-bounded.bin"), "rb") as f:
            a = llmlat.Aggregator.from_bytes(f.read())
        self.assertEqual(a.get_param("slo_ttft"), 0.5)
        self.assertEqual(a.get_param("slo_tpot"), 0.05)
        with open(os.path.join(DATA, "default-bounded.bin"), "rb") as f:
            b = llmlat.Aggregator.from_bytes(f.read())
        self.assertEqual(b.get_param("relative_error"), 0.02)
        n = b.counter("completed")
        for r in requests():
            b.add(r)
            r.close()
        self.assertEqual(b.counter("completed"), 2 * n)
        self.assertTrue(math.isfinite(b.quantile("ttft", 0.5)))


if __name__ == "__main__":
    unittest.main()
