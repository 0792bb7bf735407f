"""``Aggregator.add_columns``: a whole benchmark from numpy in one C call
gives the aggregator the per-request calls give; faults add nothing and
name the request. (Its speed is measured in bench/bench_python.py.)"""

import unittest
from array import array

from ._support import MS, llmlat, numpy_or_skip


def benchmark(np, n=300, seed=3):
    """Requests of 0-9 events, some failed, some with usage counts."""
    rng = np.random.default_rng(seed)
    starts = np.arange(n, dtype=np.int64) * 2 * MS
    counts = rng.integers(0, 10, n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    gaps = rng.integers(1, 30 * MS, int(offsets[-1]))
    times = np.empty(int(offsets[-1]), dtype=np.int64)
    for i in range(n):
        lo, hi = offsets[i], offsets[i + 1]
        times[lo:hi] = starts[i] + 40 * MS + np.cumsum(gaps[lo:hi])
    tokens = rng.integers(0, 4, len(times)).astype(np.uint32)
    last = np.where(counts > 0, times[np.maximum(offsets[1:] - 1, 0)], starts)
    ends = last + rng.integers(0, MS, n)
    ok = rng.random(n) > 0.1
    inputs = rng.integers(0, 2000, n)
    outputs = np.where(rng.random(n) > 0.5, rng.integers(0, 50, n), -1)
    return starts, ends, ok, offsets, times, tokens, inputs, outputs


def one_by_one(agg, starts, ends, ok, offsets, times, tokens, inputs, outputs):
    for i in range(len(starts)):
        with llmlat.Request() as r:
            r.start(int(starts[i]))
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            r.events(times[lo:hi].tolist(), tokens[lo:hi].tolist())
            r.set_input_tokens(int(inputs[i]))
            if outputs[i] >= 0:
                r.set_output_tokens(int(outputs[i]))
            (r.finish if ok[i] else r.fail)(int(ends[i]))
            agg.add(r)


class AddColumnsTest(unittest.TestCase):
    def test_equals_one_by_one(self):
        np = numpy_or_skip(self)
        cols = benchmark(np)
        for convention in llmlat.CONVENTIONS:
            for mode in llmlat.MODES:
                with self.subTest(convention=convention, mode=mode):
                    a = llmlat.Aggregator(convention, mode)
                    b = llmlat.Aggregator(convention, mode)
                    one_by_one(a, *cols)
                    starts, ends, ok, offsets, times, tokens, inputs, outputs = cols
                    b.add_columns(starts, ends, ok, offsets, times, tokens, inputs, outputs)
                    self.assertEqual(a.to_bytes(), b.to_bytes())

    def test_cancelled(self):
        """ok 2 is a cancelled request: what Request.cancel records (GuideLLM
        reports it as incomplete, not errored)."""
        a, b = llmlat.Aggregator("guidellm"), llmlat.Aggregator("guidellm")
        for i, how in enumerate(("finish", "fail", "cancel")):
            r = llmlat.Request()
            r.start(i * MS)
            r.event(i * MS + 5 * MS, 2)
            getattr(r, how)(i * MS + 9 * MS)
            a.add(r)
        b.add_columns([i * MS for i in range(3)], ends=[i * MS + 9 * MS for i in range(3)],
                      ok=array("B", [1, 0, llmlat.COLUMN_CANCELLED]), offsets=[0, 1, 2, 3],
                      times=[i * MS + 5 * MS for i in range(3)], tokens=2)
        self.assertEqual(a.to_bytes(), b.to_bytes())
        self.assertEqual((b.counter("completed"), b.counter("failed")), (1, 2))

    def test_dtypes_and_defaults(self):
        """Other dtypes are converted, lists work, tokens default to 1,
        read-only arrays are copied once."""
        np = numpy_or_skip(self)
        starts = np.array([0, 100 * MS], dtype=np.int32)
        offsets = np.array([0, 2, 3], dtype=np.uint64)
        times = np.array([10 * MS, 20 * MS, 150 * MS], dtype=np.int64)
        times.flags.writeable = False
        a = llmlat.Aggregator()
        a.add_columns(starts, offsets=offsets, times=times)
        self.assertEqual(a.counter("completed"), 2)
        self.assertEqual(a.counter("output_tokens"), 3)
        b = llmlat.Aggregator()
        b.add_columns([0, 100 * MS], offsets=[0, 2, 3], times=list(times), tokens=1)
        self.assertEqual(a.to_bytes(), b.to_bytes())
        c = llmlat.Aggregator()
        c.add_columns(array("q", [0]), ok=[False])
        self.assertEqual(c.counter("failed"), 1)
        c.add_columns([])  # nothing to add

    def test_faults_add_nothing(self):
        np = numpy_or_skip(self)
        starts, ends, ok, offsets, times, tokens, inputs, outputs = benchmark(np, 50)
        a = llmlat.Aggregator()
        empty = a.to_bytes()
        i = int(np.argmax(np.diff(offsets) >= 2))
        bad_times = times.copy()
        bad_times[offsets[i] + 1] = bad_times[offsets[i]] - 1
        with self.assertRaises(llmlat.OrderError) as ctx:
            a.add_columns(starts, ends, ok, offsets, bad_times, tokens, inputs, outputs)
        self.assertEqual(ctx.exception.detail, "request %d" % i)
        with self.assertRaises(llmlat.InvalidArgumentError):
            a.add_columns(starts, ends[:-1])
        with self.assertRaises(llmlat.InvalidArgumentError):
            a.add_columns(starts, offsets=offsets)
        with self.assertRaises(llmlat.InvalidArgumentError):
            a.add_columns(starts, offsets=offsets[:-1], times=times)
        with self.assertRaises(llmlat.InvalidArgumentError):
            a.add_columns(starts, offsets=offsets, times=times, tokens=tokens[:-1])
        neg = inputs.copy()
        neg[7] = -1
        with self.assertRaises(llmlat.InvalidArgumentError) as ctx:
            a.add_columns(starts, input_tokens=neg)
        self.assertEqual(ctx.exception.detail, "request 7")
        self.assertEqual(a.to_bytes(), empty)



class ScheduledColumns(unittest.TestCase):
    """``scheduled``: each request's intended start, NO_SCHEDULE (None in a
    list) for one without; as Request.schedule one by one."""

    def test_lists_and_arrays(self):
        def by_one():
            agg = llmlat.Aggregator("guidellm", "bounded")
            for start, sched in ((0, -5 * MS), (MS, None), (2 * MS, 2 * MS)):
                with llmlat.Request() as r:
                    if sched is not None:
                        r.schedule(sched)
                    r.start(start)
                    r.event(start + 10 * MS, 2)
                    r.finish(start + 12 * MS)
                    agg.add(r)
            return agg
        want = by_one().to_bytes()
        for scheduled in ([-5 * MS, None, 2 * MS],
                          array("q", [-5 * MS, llmlat.NO_SCHEDULE, 2 * MS])):
            agg = llmlat.Aggregator("guidellm", "bounded")
            agg.add_columns([0, MS, 2 * MS], ends=[12 * MS, 13 * MS, 14 * MS],
                            offsets=[0, 1, 2, 3], times=[10 * MS, 11 * MS, 12 * MS], tokens=2,
                            scheduled=scheduled)
            self.assertEqual(agg.to_bytes(), want)
            self.assertEqual(agg.stat("dispatch_delay", "count"), 2)
        agg = llmlat.Aggregator("guidellm", "bounded")
        with self.assertRaises(llmlat.OrderError) as e:
            agg.add_columns([0, MS], scheduled=[None, 2 * MS])
        self.assertIn("request 1", str(e.exception))
        with self.assertRaises(llmlat.InvalidArgumentError):
            agg.add_columns([0, MS], scheduled=[0])
        self.assertEqual(agg.counter("completed"), 0)

    def test_numpy(self):
        np = numpy_or_skip(self)
        starts = np.arange(4, dtype=np.int64) * MS
        sched = starts - np.array([0, 3, 0, 9], dtype=np.int64) * MS
        sched[2] = llmlat.NO_SCHEDULE
        agg = llmlat.Aggregator()
        agg.add_columns(starts, scheduled=sched)
        self.assertEqual(agg.stat("dispatch_delay", "count"), 3)
        self.assertAlmostEqual(agg.stat("dispatch_delay", "max"), 0.009, delta=1e-12)

if __name__ == "__main__":
    unittest.main()
