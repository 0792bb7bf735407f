"""Request.events(): sequences, array('q'), numpy arrays; no copy where the
buffer allows one C call on it directly."""

import ctypes
import unittest
from array import array

from ._support import MS, llmlat, numpy_or_skip
from llmlat import _core


def address(ptr):
    """The address a pointer-like argument of a C array points at."""
    obj = getattr(ptr, "_obj", ptr)  # byref(x) keeps x in _obj
    return ctypes.addressof(obj)


def tokens_of(times, tokens):
    """N of a request made of these events (all 'events' call paths)."""
    with llmlat.Request() as r:
        r.start(0)
        r.events(times, tokens)
        r.finish(10**12)
        return r.value("output_tokens"), r.value("e2e"), r.value("ttft")


class SequenceInputsTest(unittest.TestCase):
    def test_lists_tuples_ranges_generators(self):
        for times in ([1, 2, 3], (1, 2, 3), range(1, 4), (t for t in (1, 2, 3))):
            with self.subTest(kind=type(times).__name__):
                self.assertEqual(tokens_of(times, 1), (3.0, 3e-9, 1e-9))
        self.assertEqual(tokens_of([1, 2, 3], [1, 0, 5]), (6.0, 3e-9, 1e-9))
        self.assertEqual(tokens_of([1, 2, 3], (2, 2, 2)), (6.0, 3e-9, 1e-9))

    def test_scalar_tokens(self):
        self.assertEqual(tokens_of([1, 2, 3], 0), (0.0, None, None))
        self.assertEqual(tokens_of([1, 2, 3], 7), (21.0, 3e-9, 1e-9))
        self.assertEqual(tokens_of([1, 2], (1 << 32) - 1), (float(2 * ((1 << 32) - 1)), 2e-9, 1e-9))

    def test_empty(self):
        self.assertEqual(tokens_of([], 1), (0.0, None, None))
        self.assertEqual(tokens_of([], []), (0.0, None, None))
        self.assertEqual(tokens_of(array("q"), array("I")), (0.0, None, None))

    def test_array_q_is_not_copied(self):
        times = array("q", [1, 2, 3])
        ptr, n = _core._times_array(times, "t")
        self.assertEqual(n, 3)
        self.assertEqual(address(ptr), times.buffer_info()[0])
        ks = array("I", [1, 2, 3])
        kptr, kn = _core._token_array(ks, 3, "t")
        self.assertEqual(address(kptr), ks.buffer_info()[0])
        self.assertEqual(tokens_of(times, ks), (6.0, 3e-9, 1e-9))

    def test_array_of_other_types_is_converted(self):
        self.assertEqual(tokens_of(array("i", [1, 2, 3]), array("q", [1, 1, 1])),
                         (3.0, 3e-9, 1e-9))
        self.assertEqual(tokens_of(array("Q", [1, 2, 3]), array("H", [1, 1, 1])),
                         (3.0, 3e-9, 1e-9))

    def test_read_only_buffer_is_copied_once(self):
        raw = array("q", [10, 20]).tobytes()
        mv = memoryview(raw).cast("q")
        self.assertTrue(mv.readonly)
        ptr, n = _core._times_array(mv, "t")
        self.assertEqual(n, 2)
        self.assertEqual(list(ptr), [10, 20])
        self.assertEqual(tokens_of(mv, 1), (2.0, 2e-8, 1e-8))

    def test_array_locked_during_call_and_released_after(self):
        times = array("q", [1, 2, 3])
        tokens_of(times, 1)
        times.append(4)  # no export left behind: the array can grow again
        self.assertEqual(len(times), 4)

    def test_bad_elements(self):
        with llmlat.Request() as r:
            r.start(0)
            self.assertRaises(TypeError, r.events, [1, "2"])
            self.assertRaises(TypeError, r.events, [1, 2], [1, None])
            self.assertRaises(llmlat.InvalidArgumentError, r.events, [1 << 64])
            self.assertRaises(llmlat.InvalidArgumentError, r.events, [1], -1)
            self.assertRaises(llmlat.InvalidArgumentError, r.events, [1], 1 << 32)
            self.assertRaises(llmlat.OrderError, r.events, array("q", [5, 4]))
            r.finish(0)
            self.assertEqual(r.value("output_tokens"), 0.0)


class NumpyInputsTest(unittest.TestCase):
    def setUp(self):
        self.np = numpy_or_skip(self)

    def test_int64_array_is_not_copied(self):
        np = self.np
        times = np.arange(1, 101, dtype=np.int64) * MS
        ptr, n = _core._times_array(times, "t")
        self.assertEqual(n, 100)
        self.assertEqual(address(ptr), times.ctypes.data)
        ks = np.ones(100, dtype=np.uint32)
        kptr, kn = _core._token_array(ks, 100, "t")
        self.assertEqual(address(kptr), ks.ctypes.data)
        self.assertEqual(tokens_of(times, ks), (100.0, 0.1, 0.001))

    def test_other_dtypes_and_layouts_are_converted(self):
        np = self.np
        base = np.arange(1, 11, dtype=np.int64) * MS
        cases = {
            "int32": base.astype(np.int32),
            "uint64": base.astype(np.uint64),
            "big-endian": base.astype(">i8"),
            "strided": np.repeat(base, 2)[::2],
            "read-only": np.frombuffer(base.tobytes(), dtype=np.int64),
        }
        for name, times in cases.items():
            with self.subTest(layout=name):
                self.assertEqual(tokens_of(times, np.full(10, 2, dtype=np.int64)),
                                 (20.0, 0.01, 0.001))

    def test_numpy_scalar_tokens(self):
        np = self.np
        self.assertEqual(tokens_of(np.arange(1, 4), np.uint32(3)), (9.0, 3e-9, 1e-9))
        self.assertEqual(tokens_of(np.arange(1, 4), np.int64(2)), (6.0, 3e-9, 1e-9))

    def test_float_times_are_refused(self):
        np = self.np
        with llmlat.Request() as r:
            r.start(0)
            self.assertRaises(TypeError, r.events, np.array([1.0, 2.0]))

    def test_two_dimensional_is_refused(self):
        np = self.np
        with llmlat.Request() as r:
            r.start(0)
            self.assertRaises(TypeError, r.events, np.zeros((2, 2), dtype=np.int64))

    def test_negative_tokens_in_int_array(self):
        np = self.np
        with llmlat.Request() as r:
            r.start(0)
            self.assertRaises(llmlat.InvalidArgumentError, r.events, np.arange(1, 4),
                              np.array([1, -1, 1]))

    def test_large_batch(self):
        np = self.np
        n = 1_000_000
        times = np.arange(1, n + 1, dtype=np.int64) * 1000
        with llmlat.Request() as r:
            r.start(0)
            r.events(times, np.ones(n, dtype=np.uint32))
            r.finish(int(times[-1]))
            self.assertEqual(r.value("output_tokens"), float(n))
            self.assertEqual(r.value("itl"), 1e-6)
