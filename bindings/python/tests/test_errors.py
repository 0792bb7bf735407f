"""The exception classes: one per status, carrying status and strerror."""

import unittest

from ._support import llmlat
from llmlat import _native

STATUSES = {
    -1: (llmlat.InvalidArgumentError, ValueError, "LLMLAT_EINVAL"),
    -2: (llmlat.OutOfMemoryError, MemoryError, "LLMLAT_ENOMEM"),
    -3: (llmlat.OrderError, ValueError, "LLMLAT_EORDER"),
    -4: (llmlat.StateError, RuntimeError, "LLMLAT_ESTATE"),
    -5: (llmlat.UndefinedError, ArithmeticError, "LLMLAT_EUNDEFINED"),
    -6: (llmlat.FormatError, ValueError, "LLMLAT_EFORMAT"),
    -7: (llmlat.MismatchError, ValueError, "LLMLAT_EMISMATCH"),
    -8: (llmlat.NoSpaceError, BufferError, "LLMLAT_ENOSPC"),
    -9: (llmlat.LimitError, OverflowError, "LLMLAT_EOVERFLOW"),
}


class ErrorClassesTest(unittest.TestCase):
    def test_one_subclass_per_status(self):
        for status, (klass, builtin, name) in STATUSES.items():
            with self.subTest(status=status):
                e = llmlat.Error.for_status(status, "llmlat_x", "detail")
                self.assertIs(type(e), klass)
                self.assertIsInstance(e, llmlat.Error)
                self.assertIsInstance(e, builtin)
                self.assertEqual(e.status, status)
                self.assertEqual(klass.STATUS, status)
                self.assertEqual(klass.NAME, name)
                c_text = _native.lib.llmlat_strerror(status).decode()
                self.assertEqual(e.strerror, c_text)
                self.assertEqual(llmlat.strerror(status), c_text)
                self.assertEqual(str(e), "llmlat_x: %s: detail" % c_text)
                self.assertEqual(e.where, "llmlat_x")
                self.assertEqual(e.detail, "detail")

    def test_strerror_texts_are_the_c_library_s(self):
        self.assertEqual(llmlat.strerror(0), "success")
        self.assertEqual(llmlat.strerror(-3),
                         "timestamp before the previous one of the same request")
        self.assertEqual(llmlat.strerror(-99), "unknown status")

    def test_unknown_status_gives_the_base_class(self):
        e = llmlat.Error.for_status(-99)
        self.assertIs(type(e), llmlat.Error)
        self.assertEqual(e.status, -99)
        self.assertEqual(str(e), "unknown status")

    def test_subclass_constructed_without_status_uses_its_own(self):
        e = llmlat.OrderError()
        self.assertEqual(e.status, -3)
        self.assertEqual(str(e), llmlat.strerror(-3))

    def test_distinct_classes(self):
        classes = {v[0] for v in STATUSES.values()}
        self.assertEqual(len(classes), len(STATUSES))

    def test_exported(self):
        for klass, _, _ in STATUSES.values():
            self.assertIs(getattr(llmlat, klass.__name__), klass)
            self.assertIn(klass.__name__, llmlat.__all__)
