#!/usr/bin/env python3
"""Bounded mode's buckets against Prometheus' client_golang and exact
arithmetic (docs/bounded.md).

For schemas 1..8 the expected bucket of a float64 is what client_golang
1.14 computes (prometheus/histogram.go, read from the Debian package
golang-github-prometheus-client-golang-dev): math.Frexp, then the
smallest bound >= the fraction in its nativeHistogramBounds table. For
schemas 9..12 the bounds are schema 8's refined by correctly rounded
steps 2^(m/4096) (one rounding). Independently of the code under test,
exact rational arithmetic (decimal, 60 digits) checks that every bound is
within 6 ulps of 2^(j/2^s - 1), and that each schema is the coarsest
whose error (base - 1)/(base + 1) is within the alpha that selects it.

    test_schema_bounds.py BUCKET_INDEX_EXE
"""
import bisect
import math
import os
import random
import re
import subprocess
import sys
import unittest
from decimal import Decimal, getcontext

getcontext().prec = 60
HISTOGRAM_GO = ("/usr/share/gocode/src/github.com/prometheus/client_golang/"
                "prometheus/histogram.go")
EXE = sys.argv.pop(1) if len(sys.argv) > 1 else None
# alpha -> the schema it selects (the coarsest within it)
ALPHAS = {0.25: 1, 0.1: 2, 0.05: 3, 0.03: 4, 0.02: 5, 0.01: 6, 0.005: 7,
          0.002: 8, 0.001: 9, 0.0005: 10, 0.0002: 11, 0.0001: 12}


def client_golang_tables():
    """nativeHistogramBounds as parsed from client_golang's source."""
    with open(HISTOGRAM_GO) as f:
        src = f.read()
    start = src.index("var nativeHistogramBounds")
    end = src.index("// The nativeHistogramBounds above", start)
    parts = re.split(r"// Schema", src[start:end])[1:]
    return [[float(x) for x in re.findall(r"\d\.\d+(?:e-?\d+)?", p)] for p in parts]


def fine_steps():
    """2^(m/4096) for m < 16, correctly rounded (Decimal -> float is)."""
    return [float(Decimal(2) ** (Decimal(m) / 4096)) for m in range(16)]


def bounds(schema, tables):
    if schema <= 8:
        return tables[schema]
    t8, fine = tables[8], fine_steps()
    shift = schema - 8
    return [t8[j >> shift] * fine[(j & ((1 << shift) - 1)) << (12 - schema)]
            for j in range(1 << schema)]


def expected_index(x, table):
    """client_golang's key for x > 0: Frexp, then SearchFloat64s."""
    frac, exp = math.frexp(x)
    return bisect.bisect_left(table, frac) + (exp - 1) * len(table)


def schema_error(schema):
    base = Decimal(2) ** (Decimal(2) ** -schema)
    return (base - 1) / (base + 1)


class SchemaBounds(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tables = client_golang_tables()
        assert len(cls.tables) == 9 and len(cls.tables[8]) == 256

    def test_tables_nest_and_are_near_exact(self):
        for s in range(1, 13):
            b = bounds(s, self.tables)
            self.assertEqual(len(b), 1 << s)
            self.assertEqual(b, sorted(set(b)))
            if s <= 8:  # Prometheus' schemas nest: every other bound
                self.assertEqual(b, self.tables[8][::1 << (8 - s)])
            for j, v in enumerate(b):
                exact = Decimal(2) ** (Decimal(j) / (1 << s)) / 2
                ulps = abs(Decimal(v) - exact) / Decimal(math.ulp(v))
                self.assertLessEqual(ulps, 6, (s, j))

    def test_schema_per_alpha(self):
        for alpha, schema in ALPHAS.items():
            self.assertLessEqual(schema_error(schema), Decimal(alpha))
            if schema > 1:
                self.assertGreater(schema_error(schema - 1), Decimal(alpha))

    def values(self, table):
        """Every bound (scaled to several octaves) and its neighbours, and
        random doubles from 1e-10 to 1e10."""
        rnd = random.Random(12)
        xs = []
        for e in (-30, -11, -1, 0, 1, 6, 23):
            for v in table:
                x = math.ldexp(v, e)
                xs += [x, math.nextafter(x, 0), math.nextafter(x, math.inf)]
        xs += [10 ** rnd.uniform(-10, 10) for _ in range(3000)]
        xs += [n / 1e9 for n in (1, 7, 999, 10 ** 6, 5 * 10 ** 8, 2 * 10 ** 9)]
        return xs

    def test_buckets_match_client_golang(self):
        for alpha, schema in ALPHAS.items():
            table = bounds(schema, self.tables)
            xs = self.values(table)
            lines = "".join("%r %s\n" % (alpha, x.hex()) for x in xs)
            out = subprocess.run([EXE], input=lines, capture_output=True, text=True,
                                 check=True).stdout.split("\n")
            for x, line in zip(xs, out):
                got_schema, by_cells, by_search, upper = line.split()
                want = expected_index(x, table)
                self.assertEqual(int(got_schema), schema)
                self.assertEqual(int(by_cells), want, (schema, x.hex()))
                self.assertEqual(int(by_search), want, (schema, x.hex()))
                # the upper bound as client_golang's getLe computes it
                j = want & ((1 << schema) - 1)
                le = math.ldexp(table[j], (want >> schema) + 1)
                self.assertEqual(float.fromhex(upper), le, (schema, x.hex()))
                self.assertLessEqual(x, le)


if __name__ == "__main__":
    if not EXE or not os.path.exists(HISTOGRAM_GO):
        sys.exit("usage: test_schema_bounds.py BUCKET_INDEX_EXE (needs " + HISTOGRAM_GO + ")")
    unittest.main()
