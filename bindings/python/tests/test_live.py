"""LiveRecorder and Window (docs/threads.md), and every object shared
between threads: ctypes releases the GIL during C calls, so the binding's
per-object locks are what keeps two threads out of one C object."""

import ctypes
import os
import subprocess
import sys
import threading
import unittest

from ._support import MS, PACKAGE_ROOT, S, SOURCE_ROOT, llmlat
from llmlat import _native


def finished(start, n, gap=10 * MS, first=50 * MS, fail=False, tokens=1):
    r = llmlat.Request()
    r.start(start)
    times = [start + first + i * gap for i in range(n)]
    r.events(times, tokens)
    r.set_input_tokens(100 + n)
    (r.fail if fail else r.finish)(times[-1] if times else start + first)
    return r


def requests(seed, count):
    """count distinct finished requests, a function of (seed, i) only."""
    out = []
    for i in range(count):
        k = seed * 1000 + i
        out.append(finished(k * 7 * MS, 1 + k % 23, gap=(3 + k % 11) * MS,
                            first=(20 + k % 97) * MS, fail=k % 17 == 0, tokens=1 + k % 3))
    return out


def run_threads(target, n):
    errors = []

    def guarded(i):
        try:
            target(i)
        except BaseException as exc:  # reported by the test thread
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def address(h):
    return ctypes.cast(h, ctypes.c_void_p).value


class SharedObjectsTest(unittest.TestCase):
    def test_every_c_call_holds_the_objects_lock(self):
        """Each C function that takes a handle is wrapped to check that the
        lock of every object it is given is held during the call; then
        every method of Request and Aggregator runs once."""
        req, agg, other = llmlat.Request(), llmlat.Aggregator(), llmlat.Aggregator()
        locks = {address(o._h): o._lock for o in (req, agg, other)}
        calls = []
        saved = {}

        def wrap(name, fn):
            def checked(*args):
                for a in args:
                    lock = locks.get(address(a)) if isinstance(a, ctypes._Pointer) else None
                    if lock is not None:
                        calls.append((name, lock.locked()))
                return fn(*args)
            return checked

        for name in _native.PROTOTYPES:
            if name.startswith(("llmlat_request_", "llmlat_agg_")) and not name.endswith(
                    ("_new", "_free", "_deserialize")):
                saved[name] = getattr(_native.lib, name)
                setattr(_native.lib, name, wrap(name, saved[name]))
        def event_checked(addr, t, k):  # the hot path, a function of its own
            calls.append(("llmlat_request_event", req._lock.locked()))
            return _native.request_event_fast(addr, t, k)

        try:
            req.start(0)
            req.event(5 * MS, 1, _event=event_checked)
            req.events([10 * MS, 20 * MS])
            req.set_input_tokens(5)
            req.set_output_tokens(2)
            req.finish(30 * MS)
            req.value("ttft")
            agg.set_param("slo_ttft", 1)
            agg.get_param("slo_ttft")
            agg.set_quantiles([0.5])
            agg.set_buckets("ttft", [1, 2])
            agg.add(req)
            other.merge(agg)
            for q in (lambda a: a.stat("ttft"), lambda a: a.quantile("ttft", 0.5),
                      lambda a: a.quantiles("ttft", [0.5]), lambda a: a.rate("requests"),
                      lambda a: a.counter("completed"), lambda a: a.report("json"),
                      lambda a: a.to_bytes(), lambda a: (a.convention, a.mode)):
                q(agg)
            agg.reset()
            req.reset()
        finally:
            for name, fn in saved.items():
                setattr(_native.lib, name, fn)
        called = {name for name, _ in calls}
        self.assertGreaterEqual(len(called), 20)
        self.assertEqual([c for c in calls if not c[1]], [])

    def test_threads_adding_to_one_aggregator_lose_nothing(self):
        # long requests: each add spends microseconds in C without the GIL,
        # where unlocked threads would meet (and lose counts)
        pools = [[finished(i * S + j * MS, 2000 + j, gap=(1 + j) * MS) for j in range(4)]
                 for i in range(8)]
        shared = llmlat.Aggregator("vllm", "bounded")

        def add(i):
            for _ in range(30):
                for r in pools[i]:
                    shared.add(r)

        run_threads(add, 8)
        single = llmlat.Aggregator("vllm", "bounded")
        for _ in range(30):
            for pool in pools:
                for r in pool:
                    single.add(r)
        self.assertEqual(shared.to_bytes(), single.to_bytes())

    def test_merges_both_ways_at_once_do_not_deadlock(self):
        a, b = llmlat.Aggregator(), llmlat.Aggregator()
        src = requests(1, 3)
        for r in src:
            a.add(r)
            b.add(r)

        def merge(i):
            for _ in range(200):
                (a.merge(b) if i % 2 else b.merge(a))
                if a.counter("completed") > 10_000:
                    a.reset()
                if b.counter("completed") > 10_000:
                    b.reset()

        run_threads(merge, 4)
        with self.assertRaises(llmlat.InvalidArgumentError):
            a.merge(a)

    def test_one_request_recorded_and_read_from_two_threads(self):
        r = llmlat.Request()
        r.start(0)
        stop = threading.Event()

        def read(_):
            while not stop.is_set():
                r.value("ttft")

        reader = threading.Thread(target=read, args=(0,))
        reader.start()
        for i in range(20000):
            r.event((i + 1) * MS)
        stop.set()
        reader.join()
        r.finish(20000 * MS)
        self.assertAlmostEqual(r.value("itl"), MS / S)

    def test_close_waits_for_a_call_in_progress(self):
        agg = llmlat.Aggregator("default", "bounded")
        pool = requests(2, 50)
        errors = []

        def add(_):
            while True:
                for r in pool:
                    try:
                        agg.add(r)
                    except ValueError as exc:
                        errors.append(exc)
                        return

        t = threading.Thread(target=add, args=(0,))
        t.start()
        while agg.counter("completed") < 200:
            pass
        agg.close()
        t.join()
        self.assertIn("closed", str(errors[0]))


class LiveRecorderTest(unittest.TestCase):
    def test_many_threads_add_while_one_scrapes(self):
        pools = [requests(i, 30) for i in range(8)]
        live = llmlat.LiveRecorder(convention="default", mode="bounded", slo={"ttft": 0.08})
        done = threading.Event()
        intervals = llmlat.Aggregator("default", "bounded", slo={"ttft": 0.08})
        snaps = []

        def scrape():
            snap = None
            while not done.is_set():
                snap = live.snapshot("interval", into=snap)
                intervals.merge(snap)
                snaps.append(live.snapshot("cumulative").counter("completed"))

        scraper = threading.Thread(target=scrape)
        scraper.start()

        def add(i):
            for _ in range(10):
                for r in pools[i]:
                    live.add(r)

        run_threads(add, 8)
        done.set()
        scraper.join()
        intervals.merge(live.snapshot("interval"))
        last = live.snapshot("cumulative")
        single = llmlat.Aggregator("default", "bounded", slo={"ttft": 0.08})
        for _ in range(10):
            for pool in pools:
                for r in pool:
                    single.add(r)
        self.assertEqual(last.to_bytes(), single.to_bytes())
        self.assertEqual(intervals.to_bytes(), single.to_bytes())
        self.assertEqual(snaps, sorted(snaps))  # cumulative snapshots only grow
        self.assertEqual(live.snapshot("interval").counter("completed"), 0)
        live.close()
        with self.assertRaises(ValueError):
            live.add(pools[0][0])
        with self.assertRaises(ValueError):
            live.snapshot()
        live.close()  # idempotent

    def test_settings_and_errors(self):
        like = llmlat.Aggregator("sglang", "exact")
        with llmlat.LiveRecorder(like) as live:
            self.assertEqual(live.snapshot().convention, "sglang")
            self.assertEqual(live.snapshot().mode, "exact")
            with self.assertRaises(llmlat.MismatchError):
                live.snapshot(into=llmlat.Aggregator("vllm"))
            with self.assertRaises(llmlat.InvalidArgumentError):
                live.snapshot("hourly")
            r = llmlat.Request()
            r.start(0)
            with self.assertRaises(llmlat.StateError):
                live.add(r)
            with self.assertRaises(TypeError):
                live.add(like)
        with self.assertRaises(TypeError):
            llmlat.LiveRecorder(like, mode="bounded")
        self.assertTrue(live.closed)
        self.assertIn("closed", repr(live))


class StreamingTest(unittest.TestCase):
    def test_the_same_bits_as_the_buffered_recorder(self):
        like = llmlat.Aggregator("aiperf", "bounded")
        buf, st = llmlat.Request(), llmlat.Request(streaming=like)
        a, b = llmlat.Aggregator("aiperf", "bounded"), llmlat.Aggregator("aiperf", "bounded")
        for i in range(50):
            n = 1 + i * 37 % 400
            times, t = [], i * S
            for j in range(n):
                t += (i * j) % 17 * MS  # 0 .. 16 ms: zero gaps too
                times.append(t)
            tokens = [(i + j) % 4 for j in range(n)]
            for r in (buf, st):
                r.reset()
                r.start(i * S)
                r.events(times[: n // 2], tokens[: n // 2])
                for t, k in zip(times[n // 2:], tokens[n // 2:]):
                    r.event(t, k)
                (r.fail if i % 11 == 0 else r.finish)(times[-1] + MS)
            self.assertEqual(buf.value("ttft", "aiperf"), st.value("ttft", "aiperf"))
            self.assertEqual(buf.value("itl", "aiperf"), st.value("itl", "aiperf"))
            a.add(buf)
            b.add(st)
        self.assertEqual(a.to_bytes(), b.to_bytes())
        with self.assertRaises(llmlat.MismatchError):
            llmlat.Aggregator("vllm", "bounded").add(st)
        with self.assertRaises(llmlat.MismatchError):
            st.value("icl", "vllm")
        with self.assertRaises(llmlat.InvalidArgumentError):
            llmlat.Request(streaming=llmlat.Aggregator("default", "exact"))
        with self.assertRaises(TypeError):
            llmlat.Request(streaming="bounded")


class WindowTest(unittest.TestCase):
    def test_requests_leave_with_their_step(self):
        w = llmlat.Window(60, 5, slo={"ttft": 0.055})
        w.advance(0)
        for end_s, first in ((2, 50), (7, 60), (58, 70)):
            w.add(finished(end_s * S - first * MS, 1, first=first * MS))
        v = w.view
        self.assertEqual(v.counter("completed"), 3)
        self.assertAlmostEqual(v.stat("ttft", "mean"), 0.06)
        self.assertAlmostEqual(v.rate("requests"), 3 / 58)
        self.assertAlmostEqual(v.rate("goodput"), 1 / 58)
        w.advance(61 * S)  # step 12: step 0 (the 2 s request) left
        self.assertEqual(v.counter("completed"), 2)
        self.assertEqual(v.stat("ttft", "min"), 0.06)
        with self.assertRaises(llmlat.OrderError):
            w.advance(60 * S)
        with self.assertRaises(llmlat.OrderError):  # before the oldest step (5 s)
            w.add(finished(4 * S - 50 * MS, 1, first=50 * MS))
        self.assertEqual(v.counter("completed"), 2)
        w.advance(200 * S)
        self.assertEqual(v.counter("completed"), 0)
        self.assertIsNone(v.stat("ttft", "mean"))
        w.reset()
        w.advance(-5 * S)  # a new clock
        w.close()
        with self.assertRaises(ValueError):
            v.stat("ttft")
        with self.assertRaises(ValueError):
            w.advance(0)

    def test_view_is_a_read_only_aggregator(self):
        like = llmlat.Aggregator("vllm", "bounded")
        w = llmlat.Window(10, 1, like)
        snap = llmlat.Aggregator("vllm", "bounded")
        snap.add(finished(0, 5))
        w.merge(snap, 3 * S)
        w.merge(snap, 3 * S + 1)
        v = w.view
        self.assertEqual(v.counter("completed"), 2)
        for call in (lambda: v.reset(), lambda: v.add(finished(0, 1)),
                     lambda: v.merge(snap), lambda: v.set_param("duration", 1),
                     lambda: v.set_quantiles([0.5]), lambda: v.set_buckets("ttft")):
            with self.assertRaises(TypeError):
                call()
        total = llmlat.Aggregator("vllm", "bounded")
        total.merge(v)
        self.assertEqual(total.counter("completed"), 2)
        self.assertIn("ttft", v.report("prometheus"))
        again = llmlat.Aggregator.from_bytes(v.to_bytes())
        self.assertEqual(again.counter("completed"), 2)
        with self.assertRaises(llmlat.InvalidArgumentError):
            w.merge(v, 4 * S)  # itself
        with self.assertRaises(llmlat.MismatchError):
            w.merge(llmlat.Aggregator("vllm", "exact"), 4 * S)
        w.close()

    def test_bad_arguments(self):
        with self.assertRaises(llmlat.InvalidArgumentError):
            llmlat.Window(60, 5, mode="exact")
        with self.assertRaises(llmlat.InvalidArgumentError):
            llmlat.Window(60, 7)
        with self.assertRaises(llmlat.InvalidArgumentError):
            llmlat.Window(1e12, 1)
        with self.assertRaises(llmlat.InvalidArgumentError):
            llmlat.Window(60, 5).advance(1 << 63)


class ExampleTest(unittest.TestCase):
    def test_the_threads_example_runs(self):
        # the example of the source tree, with the package under test
        env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT)
        example = os.path.join(SOURCE_ROOT, "bindings", "python", "examples", "live_scrape.py")
        out = subprocess.run(
            [sys.executable, example,
             "--threads", "6", "--seconds", "0.6", "--every", "0.1"],
            env=env, capture_output=True, text=True, timeout=60, check=True).stdout
        self.assertIn("window:", out)
        last = out.strip().splitlines()[-1]
        added, held = last.split("added ")[1].split(" requests")[0], last.split("holds ")[1]
        self.assertEqual(added, held)


if __name__ == "__main__":
    unittest.main()
