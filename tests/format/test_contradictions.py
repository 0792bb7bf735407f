#!/usr/bin/env python3
"""Serialized bounded aggregators whose parts contradict each other are
refused (LLMLAT_EFORMAT), each contradiction on its own.

The bytes are read and rewritten from docs/format.md alone (this file is
a reader of the format written from the page): a real aggregator is
serialized, one field of one sketch section is changed so that it breaks
one rule of "What deserialize refuses", the CRC is recomputed, and
from_bytes must raise FormatError. The untouched bytes must still read.

    test_contradictions.py [--write CORPUS_DIR]

--write also stores each crafted file in the deserialize fuzz corpus as
crafted-<what it breaks> (with fuzz_deserialize's leading mode byte 0).
"""
import math
import os
import struct
import sys
import unittest
import zlib

import llmlat

MS = 1_000_000
METRICS = ["ttft", "tpot", "itl", "icl", "e2e", "tps_user", "itl_max",
           "output_tokens", "input_tokens", "tool_itl", "ntpot",
           "dispatch_delay", "scheduled_ttft", "scheduled_e2e"]
METRIC_COUNT = len(METRICS)


def varint(data, at):
    v, shift = 0, 0
    while True:
        b = data[at]
        at += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, at


def put_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


class Sketch:
    """One bounded metric section, parsed."""
    FIXED = struct.Struct("<IQQQdd3Q4QQ")

    def __init__(self, data, at):
        self.start = at
        (self.schema, self.count, self.zero, self.below, self.min, self.max,
         *limbs, self.n) = self.FIXED.unpack_from(data, at)
        self.s1, self.s2 = limbs[:3], limbs[3:]
        at += self.FIXED.size
        self.low, self.counts = None, []
        if self.n:
            (self.low,) = struct.unpack_from("<q", data, at)
            at += 8
            for _ in range(self.n):
                c, at = varint(data, at)
                self.counts.append(c)
        self.end = at

    def pack(self):
        out = self.FIXED.pack(self.schema, self.count, self.zero, self.below, self.min,
                              self.max, *self.s1, *self.s2, self.n)
        if self.n:
            out += struct.pack("<q", self.low) + b"".join(put_varint(c) for c in self.counts)
        return out

    def sum(self):
        """sum(w x) in the internal unit (ns for times)."""
        return sum(l << (64 * i) for i, l in enumerate(self.s1)) / 2.0 ** 64

    def set_sum(self, v):
        x = int(v * 2 ** 64)
        self.s1 = [(x >> (64 * i)) & (2 ** 64 - 1) for i in range(3)]

    def set_squares(self, v):
        x = int(v * 2 ** 64)
        self.s2 = [(x >> (64 * i)) & (2 ** 64 - 1) for i in range(4)]


def sections(data):
    """The sketch sections of a version-3 bounded aggregator."""
    at = 24 + 8 + 6 * 8  # header, convention and mode, params
    (nq,) = struct.unpack_from("<I", data, at)
    at += 4 + 8 * nq
    for _ in range(METRIC_COUNT):
        (nb,) = struct.unpack_from("<I", data, at)
        at += 4 + 8 * nb
    (nl,) = struct.unpack_from("<I", data, at)
    at += 4
    for _ in range(2 * nl):
        (ln,) = struct.unpack_from("<I", data, at)
        at += 4 + ln
    at += 6 * 8 + 4 * 8  # counters
    at += 2 * 4  # lacks and sources
    out = []
    for _ in range(METRIC_COUNT):
        s = Sketch(data, at)
        out.append(s)
        at = s.end
    assert at == len(data) - 4, "the sections end at the trailer"
    return out


def rebuild(data, sketches):
    """The bytes with the sections replaced, size and CRC fixed."""
    body = bytes(data[:sketches[0].start]) + b"".join(s.pack() for s in sketches)
    size = len(body) + 4
    body = body[:16] + struct.pack("<Q", size) + body[24:]
    return body + struct.pack("<I", zlib.crc32(body))


def source():
    """A bounded aggregator with varied requests: zeros, chunks, a spread
    of gaps."""
    a = llmlat.Aggregator("default", "bounded")
    for i in range(40):
        r = llmlat.Request()
        start = i * 100 * MS
        r.start(start)
        t = start + (30 + 7 * i) * MS
        for e in range(2 + i % 5):
            r.event(t, 1 if e % 4 else 2)
            t += (3 + (e * 5 + i) % 40) * MS
        r.set_input_tokens(50 + i)
        r.finish(t)
        a.add(r)
        r.close()
    return a.to_bytes()


def crafted():
    """name -> bytes breaking one rule each."""
    data = source()
    out = {}

    def craft(name, metric, change):
        sk = sections(data)
        s = sk[METRICS.index(metric)]
        change(s)
        out[name] = rebuild(data, sk)

    def mean_above_max(s):
        s.set_sum(s.max * 1e9 * s.count * 1.001)

    def mean_below_min(s):
        s.set_sum(s.min * 1e9 * s.count * 0.999)

    def sum_beyond_buckets(s):
        # every sample at most max, but the buckets say most are far lower
        s.set_sum(s.max * 1e9 * (s.count - 1) * 0.98)

    def squares_below_mean_square(s):
        m = s.sum() / s.count
        s.set_squares(m * m * s.count * 0.99)

    def squares_beyond_buckets(s):
        s.set_squares((s.max * 1e9) ** 2 * s.count * 1.01)

    def zeros_with_positive_min(s):
        s.zero += 1
        s.count += 1

    def window_out_of_place(s):
        s.low += 1  # top is no longer the maximum's bucket

    def below_without_room(s):
        s.below += 1  # above 0 and below a threshold the minimum is above
        s.count += 1

    def counts_not_adding_up(s):
        s.counts[0] += 1

    def empty_end_bucket(s):
        s.counts.append(0)
        s.n += 1

    def schema_not_alphas(s):
        s.schema += 1

    def min_not_in_lowest_bucket(s):
        s.min = s.min * 0.9

    craft("crafted-mean-above-max", "ttft", mean_above_max)
    craft("crafted-mean-below-min", "e2e", mean_below_min)
    craft("crafted-sum-beyond-buckets", "icl", sum_beyond_buckets)
    craft("crafted-squares-below-mean-square", "icl", squares_below_mean_square)
    craft("crafted-squares-beyond-buckets", "ttft", squares_beyond_buckets)
    craft("crafted-zero-count-with-positive-min", "icl", zeros_with_positive_min)
    craft("crafted-window-out-of-place", "e2e", window_out_of_place)
    craft("crafted-below-window-above-min", "icl", below_without_room)
    craft("crafted-counts-not-adding-up", "ttft", counts_not_adding_up)
    craft("crafted-empty-end-bucket", "itl_max", empty_end_bucket)
    craft("crafted-schema-not-alphas", "ttft", schema_not_alphas)
    craft("crafted-min-below-lowest-bucket", "e2e", min_not_in_lowest_bucket)
    return data, out


class Contradictions(unittest.TestCase):
    def test_untouched_bytes_read(self):
        data, _ = crafted()
        a = llmlat.Aggregator.from_bytes(data)
        self.assertEqual(a.to_bytes(), data)
        # the parse above round-trips: rebuilding changes nothing
        self.assertEqual(rebuild(data, sections(data)), data)

    def test_each_contradiction_refused(self):
        _, out = crafted()
        self.assertEqual(len(out), 12)
        for name, data in out.items():
            with self.assertRaises(llmlat.FormatError, msg=name):
                llmlat.Aggregator.from_bytes(data)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--write":
        for name, data in crafted()[1].items():
            with open(os.path.join(sys.argv[2], name), "wb") as f:
                f.write(b"\0" + data)
        sys.exit(0)
    unittest.main()
