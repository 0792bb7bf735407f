"""OutOfMemoryError: allocation failures injected through the C library's
allocator hook (llmlat_set_allocator), and objects left unchanged."""

import ctypes
import unittest
from ctypes import c_size_t, c_void_p

from ._support import MS, llmlat, make_request
from llmlat import _native

_libc = ctypes.CDLL(None)
_libc.malloc.restype = c_void_p
_libc.malloc.argtypes = [c_size_t]
_libc.realloc.restype = c_void_p
_libc.realloc.argtypes = [c_void_p, c_size_t]
_libc.free.restype = None
_libc.free.argtypes = [c_void_p]

# Allocations still allowed; None = unlimited. Module-level, with the
# callbacks: objects made under the hook call them until they are freed.
budget = [None]


def _take():
    if budget[0] is None:
        return True
    if budget[0] <= 0:
        return False
    budget[0] -= 1
    return True


@_native.MALLOC_FN
def _malloc(user, size):
    return _libc.malloc(size) if _take() else None


@_native.REALLOC_FN
def _realloc(user, ptr, size):
    return _libc.realloc(ptr, size) if _take() else None


@_native.FREE_FN
def _free(user, ptr):
    _libc.free(ptr)


def _restore_default():
    """All three NULL: back to malloc/realloc/free."""
    st = _native.lib.llmlat_set_allocator(_native.MALLOC_FN(), _native.REALLOC_FN(),
                                          _native.FREE_FN(), None)
    assert st == 0, st


class OutOfMemoryTest(unittest.TestCase):
    def setUp(self):
        budget[0] = None
        self.assertEqual(_native.lib.llmlat_set_allocator(_malloc, _realloc, _free, None), 0)
        self.addCleanup(_restore_default)

    def test_request_new(self):
        budget[0] = 0
        with self.assertRaises(llmlat.OutOfMemoryError) as cm:
            llmlat.Request()
        self.assertEqual(cm.exception.status, -2)
        self.assertIsInstance(cm.exception, MemoryError)

    def test_aggregator_new(self):
        budget[0] = 0
        self.assertRaises(llmlat.OutOfMemoryError, llmlat.Aggregator)

    def test_events_growth_leaves_request_unchanged(self):
        with llmlat.Request() as r:
            r.start(0)
            r.events(range(1, 11))
            budget[0] = 0
            with self.assertRaises(llmlat.OutOfMemoryError) as cm:
                r.events(range(11, 100_011))
            self.assertEqual(cm.exception.where, "llmlat_request_events")
            with self.assertRaises(llmlat.OutOfMemoryError):
                for t in range(11, 100_011):
                    r.event(t)
            budget[0] = None
            r.finish(100_000)
            # the 10 first events, and whatever single events fit the buffer
            # before the first failed growth, all accepted ones kept
            n = r.value("output_tokens")
            self.assertGreaterEqual(n, 10.0)
            self.assertLess(n, 100_000.0)

    def test_add_leaves_aggregator_unchanged(self):
        with llmlat.Aggregator() as a:
            with make_request(0, [MS, 2 * MS]) as r:
                a.add(r)
            with make_request(0, [10 * MS * i for i in range(1, 5000)]) as big:
                budget[0] = 0
                self.assertRaises(llmlat.OutOfMemoryError, a.add, big)
                budget[0] = None
            self.assertEqual(a.counter("completed"), 1)
            self.assertEqual(a.stat("itl", "count"), 1)
            self.assertEqual(a.stat("ttft"), 0.001)

    def test_merge_leaves_destination_unchanged(self):
        with llmlat.Aggregator() as a, llmlat.Aggregator() as b:
            with make_request(0, [MS, 2 * MS]) as r:
                a.add(r)
            with make_request(0, [10 * MS * i for i in range(1, 5000)]) as big:
                b.add(big)
            budget[0] = 0
            self.assertRaises(llmlat.OutOfMemoryError, a.merge, b)
            budget[0] = None
            self.assertEqual(a.counter("completed"), 1)
            self.assertEqual(a.stat("itl", "count"), 1)

    def test_allocator_hook_needs_all_three(self):
        self.assertEqual(
            _native.lib.llmlat_set_allocator(_malloc, _native.REALLOC_FN(), _free, None), -1)
