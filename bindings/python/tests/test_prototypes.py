"""The binding against include/llmlat.h: every function declared with the
header's types, every id equal to the header's #define, the version check."""

import ctypes
import os
import re
import unittest
from ctypes import (c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint8, c_uint32, c_uint64,
                    c_void_p)

from ._support import HEADER, SOURCE_ROOT, llmlat
from llmlat import _core, _live, _native

# C type (as the header spells it, const dropped) -> ctypes type
SCALARS = {
    "int32_t": c_int32, "uint32_t": c_uint32, "int64_t": c_int64, "uint64_t": c_uint64,
    "uint8_t": c_uint8,
    "size_t": c_size_t, "double": c_double, "void": None,
}
POINTERS = {
    "char": c_char_p, "void": c_void_p,
    "llmlat_request": _native.RequestHandle, "llmlat_agg": _native.AggHandle,
    "llmlat_live": _native.LiveHandle, "llmlat_live_writer": _native.WriterHandle,
    "llmlat_window": _native.WindowHandle,
    "llmlat_compare": _native.CompareHandle,
    "llmlat_reader": _native.ReaderHandle,
    "llmlat_malloc_fn": _native.MALLOC_FN, "llmlat_realloc_fn": _native.REALLOC_FN,
    "llmlat_free_fn": _native.FREE_FN, "llmlat_write_fn": _native.WRITE_FN,
}


def read_header():
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    return re.sub(r"/\*.*?\*/", " ", text, flags=re.S)


def c_type(decl):
    """ctypes type of a parameter or return declaration ('const int64_t *t_ns')."""
    decl = re.sub(r"\bconst\b", " ", decl).strip()
    m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)([\s*]*?)([A-Za-z_][A-Za-z0-9_]*)?$", decl)
    if not m:
        raise AssertionError("cannot read C declaration %r" % decl)
    base, stars = m.group(1), m.group(2).count("*")
    if base in ("llmlat_malloc_fn", "llmlat_realloc_fn", "llmlat_free_fn", "llmlat_write_fn"):
        return POINTERS[base]
    if stars == 0:
        return SCALARS[base]
    if stars == 1 and base in POINTERS:
        return POINTERS[base]
    if stars == 1:
        return ctypes.POINTER(SCALARS[base])
    if stars == 2 and base in POINTERS:
        return ctypes.POINTER(POINTERS[base])
    if stars == 2:
        return ctypes.POINTER(ctypes.POINTER(SCALARS[base]))
    raise AssertionError("unexpected type %r" % decl)


def header_functions():
    text = read_header()
    out = {}
    for m in re.finditer(r"LLMLAT_API\s+([^;(]+?)\b(llmlat_\w+)\s*\(([^)]*)\)\s*;", text):
        ret, name, params = m.group(1), m.group(2), m.group(3).strip()
        args = [] if params in ("", "void") else [c_type(p) for p in params.split(",")]
        out[name] = (c_type(ret + " x"), args)
    return out


def header_defines():
    out = {}
    for m in re.finditer(r"#define\s+(LLMLAT_\w+)\s+\(?(-?\d+)\)?", read_header()):
        out[m.group(1)] = int(m.group(2))
    return out


class PrototypesTest(unittest.TestCase):
    def test_every_header_function_is_declared_with_its_types(self):
        funcs = header_functions()
        self.assertGreater(len(funcs), 30)
        self.assertEqual(set(funcs), set(_native.PROTOTYPES))
        for name, (restype, argtypes) in funcs.items():
            with self.subTest(function=name):
                fn = getattr(_native.lib, name)
                self.assertEqual(fn.restype, restype)
                self.assertEqual(list(fn.argtypes), argtypes)

    def test_hot_path_event_matches_the_header(self):
        restype, argtypes = header_functions()["llmlat_request_event"]
        fast = _native.request_event_fast
        self.assertEqual(fast.restype, restype)
        # the handle as void * (an int address), the rest as declared
        self.assertEqual(list(fast.argtypes), [c_void_p] + argtypes[1:])

    def test_every_test_module_is_registered_with_meson(self):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(SOURCE_ROOT, "bindings", "python", "meson.build")) as f:
            meson = f.read()
        modules = sorted(f[len("test_"):-3] for f in os.listdir(here)
                         if f.startswith("test_") and f.endswith(".py"))
        for m in modules:
            self.assertIn("'%s'" % m, meson, "tests/test_%s.py is not in meson.build" % m)

    def test_ids_equal_the_header(self):
        d = header_defines()
        tables = [
            ("LLMLAT_CONV_", _core._CONVENTION_IDS),
            ("LLMLAT_MODE_", _core._MODE_IDS),
            ("LLMLAT_STAT_", _core._STAT_IDS),
            ("LLMLAT_RATE_", _core._RATE_IDS),
            ("LLMLAT_COUNT_", _core._COUNTER_IDS),
            ("LLMLAT_PARAM_", _core._PARAM_IDS),
            ("LLMLAT_FORMAT_", _core._FORMAT_IDS),
            ("LLMLAT_SNAPSHOT_", _live._SNAPSHOT_IDS),
        ]
        for prefix, table in tables:
            with self.subTest(prefix=prefix):
                # convention names spell a space as "-" (inference-perf)
                sep = "-" if prefix == "LLMLAT_CONV_" else "_"
                from_header = {k[len(prefix):].lower().replace("_", sep): v
                               for k, v in d.items() if k.startswith(prefix)}
                self.assertEqual(from_header, dict(table))
        metric_ids = {k[len("LLMLAT_"):].lower(): v for k, v in d.items()
                      if k in ("LLMLAT_TTFT", "LLMLAT_TPOT", "LLMLAT_ITL", "LLMLAT_ICL",
                               "LLMLAT_E2E", "LLMLAT_TPS_USER", "LLMLAT_ITL_MAX",
                               "LLMLAT_OUTPUT_TOKENS", "LLMLAT_INPUT_TOKENS",
                               "LLMLAT_TOOL_ITL", "LLMLAT_NTPOT", "LLMLAT_DISPATCH_DELAY",
                               "LLMLAT_SCHEDULED_TTFT", "LLMLAT_SCHEDULED_E2E")}
        self.assertEqual(metric_ids, dict(_core._METRIC_IDS))
        statuses = {v: k for k, v in d.items() if k.startswith("LLMLAT_E")}
        for status, klass in llmlat._errors._BY_STATUS.items():
            self.assertEqual(statuses[status], klass.NAME)

    def test_public_name_tuples(self):
        self.assertEqual(llmlat.METRICS[:7],
                         ("ttft", "tpot", "itl", "icl", "e2e", "tps_user", "itl_max"))
        self.assertEqual(llmlat.CONVENTIONS, ("default", "vllm", "aiperf", "sglang", "llmperf",
                                              "guidellm", "inference-perf"))
        self.assertEqual(llmlat.MODES, ("exact", "bounded"))
        self.assertEqual(llmlat.STATS, ("count", "mean", "std", "min", "max", "median", "sum"))
        self.assertEqual(llmlat.FORMATS, ("text", "json", "prometheus", "openmetrics",
                                          "prometheus_protobuf", "html", "chrome_trace",
                                          "requests_csv", "requests_jsonl"))

    def test_version(self):
        d = header_defines()
        self.assertEqual(llmlat.version_number() // 10000, d["LLMLAT_VERSION_MAJOR"])
        self.assertEqual(llmlat.ABI_MAJOR, d["LLMLAT_VERSION_MAJOR"])
        self.assertRegex(llmlat.version(), r"^\d+\.\d+\.\d+$")
        major, minor, patch = map(int, llmlat.version().split("."))
        self.assertEqual(major * 10000 + minor * 100 + patch, llmlat.version_number())

    def test_package_version_is_the_project_s(self):
        # one version for the library, the package and the wheel: meson.build's
        with open(os.path.join(SOURCE_ROOT, "meson.build"), encoding="utf-8") as f:
            project = re.search(r"version:\s*'([^']+)'", f.read()).group(1)
        self.assertEqual(llmlat.__version__, project,
                         "llmlat.__version__ in bindings/python/llmlat/__init__.py")
        try:
            from importlib.metadata import PackageNotFoundError, version
        except ImportError:  # Python 3.7
            return
        try:
            installed = version("llmlat")
        except PackageNotFoundError:  # the source tree's package, not installed
            return
        if not os.path.dirname(llmlat.__file__).startswith(os.path.join(SOURCE_ROOT, "")):
            self.assertEqual(installed, project)


class FakeLibrary:
    def __init__(self, number):
        self.llmlat_version_number = lambda: number


class VersionCheckTest(unittest.TestCase):
    def test_other_major_is_refused(self):
        for number in (0, 9999, 20000, 20101):
            with self.subTest(number=number):
                with self.assertRaisesRegex(ImportError, "needs major version 1"):
                    _native._check_version(FakeLibrary(number), "/x/libllmlat.so")

    def test_same_major_any_minor_is_accepted(self):
        for number in (10000, 10001, 10100, 19999):
            _native._check_version(FakeLibrary(number), "/x/libllmlat.so")
