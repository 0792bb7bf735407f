"""Loading libllmlat and declaring its C prototypes (internal).

The shared library is looked for, in this order:

1. the path in the ``LLMLAT_LIBRARY`` environment variable (when it is set,
   nothing else is tried: a wrong path is an error, not a fallback);
2. the copy inside this package (``llmlat/libllmlat.so.1``, or the
   platform's equivalent), which the wheel installs;
3. the SONAME ``libllmlat.so.1``, found by the dynamic loader the way a
   linked program would find it (ldconfig cache, ``LD_LIBRARY_PATH``);
4. whatever ``ctypes.util.find_library("llmlat")`` returns.

The library's major version must equal :data:`ABI_MAJOR`; otherwise the
import fails with :class:`ImportError`. Every function gets its ``argtypes``
and ``restype`` here: ctypes' defaults (C ``int`` everywhere) would silently
truncate pointers, ``int64_t`` timestamps and ``size_t`` lengths.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
from ctypes import (
    CFUNCTYPE,
    POINTER,
    c_char_p,
    c_double,
    c_int32,
    c_int64,
    c_size_t,
    c_uint32,
    c_uint64,
    c_uint8,
    c_void_p,
)
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

__all__ = ["ABI_MAJOR", "lib", "library_path", "command_path", "RequestHandle", "AggHandle",
           "LiveHandle", "WriterHandle", "WindowHandle", "CompareHandle", "ReaderHandle",
           "WRITE_FN"]

#: The library major version (``llmlat_version_number() // 10000``) that this
#: binding is written for.
ABI_MAJOR = 1

_ENV = "LLMLAT_LIBRARY"


class _Request(ctypes.Structure):
    """Opaque ``llmlat_request``."""


class _Agg(ctypes.Structure):
    """Opaque ``llmlat_agg``."""


class _Live(ctypes.Structure):
    """Opaque ``llmlat_live``."""


class _Writer(ctypes.Structure):
    """Opaque ``llmlat_live_writer``."""


class _Window(ctypes.Structure):
    """Opaque ``llmlat_window``."""
class _Compare(ctypes.Structure):
    """Opaque ``llmlat_compare``."""


class _Reader(ctypes.Structure):
    """Opaque ``llmlat_reader``."""


#: Typed handles: a request handle cannot be passed where an aggregator is
#: expected (ctypes checks the pointer type).
RequestHandle = POINTER(_Request)
AggHandle = POINTER(_Agg)
LiveHandle = POINTER(_Live)
WriterHandle = POINTER(_Writer)
WindowHandle = POINTER(_Window)
CompareHandle = POINTER(_Compare)
ReaderHandle = POINTER(_Reader)

#: The allocator hook's function types (``llmlat_malloc_fn`` ...).
MALLOC_FN = CFUNCTYPE(c_void_p, c_void_p, c_size_t)
REALLOC_FN = CFUNCTYPE(c_void_p, c_void_p, c_void_p, c_size_t)
FREE_FN = CFUNCTYPE(None, c_void_p, c_void_p)
#: ``llmlat_write_fn``: receives a streamed report's pieces.
WRITE_FN = CFUNCTYPE(c_int32, c_void_p, c_void_p, c_size_t)

_P_SIZE = POINTER(c_size_t)
_P_DOUBLE = POINTER(c_double)
_P_INT32 = POINTER(c_int32)
_P_INT64 = POINTER(c_int64)
_P_UINT32 = POINTER(c_uint32)
_P_UINT64 = POINTER(c_uint64)

#: name -> (restype, argtypes), one entry per function of include/llmlat.h.
PROTOTYPES: Dict[str, Tuple[object, List[object]]] = {
    "llmlat_version_number": (c_uint32, []),
    "llmlat_version_string": (c_char_p, []),
    "llmlat_strerror": (c_char_p, [c_int32]),
    "llmlat_metric_name": (c_char_p, [c_int32]),
    "llmlat_convention_name": (c_char_p, [c_int32]),
    "llmlat_set_allocator": (c_int32, [MALLOC_FN, REALLOC_FN, FREE_FN, c_void_p]),
    "llmlat_now_ns": (c_int64, []),
    # recorder
    "llmlat_request_new": (RequestHandle, []),
    "llmlat_request_free": (None, [RequestHandle]),
    "llmlat_request_reset": (c_int32, [RequestHandle]),
    "llmlat_request_start": (c_int32, [RequestHandle, c_int64]),
    "llmlat_request_event": (c_int32, [RequestHandle, c_int64, c_uint32]),
    "llmlat_request_events": (
        c_int32,
        [RequestHandle, POINTER(c_int64), POINTER(c_uint32), c_size_t],
    ),
    "llmlat_request_set_input_tokens": (c_int32, [RequestHandle, c_uint64]),
    "llmlat_request_set_output_tokens": (c_int32, [RequestHandle, c_uint64]),
    "llmlat_request_finish": (c_int32, [RequestHandle, c_int64]),
    "llmlat_request_fail": (c_int32, [RequestHandle, c_int64]),
    "llmlat_request_cancel": (c_int32, [RequestHandle, c_int64]),
    "llmlat_request_value": (c_int32, [RequestHandle, c_int32, c_int32, _P_DOUBLE]),
    "llmlat_request_set_lacks": (c_int32, [RequestHandle, c_uint32]),
    "llmlat_request_set_known": (c_int32, [RequestHandle, c_int32, c_int32, c_double]),
    "llmlat_request_get_state": (c_int32, [RequestHandle, _P_INT32]),
    "llmlat_request_get_start": (c_int32, [RequestHandle, _P_INT64]),
    "llmlat_request_get_end": (c_int32, [RequestHandle, _P_INT64]),
    "llmlat_request_get_events": (
        c_int32,
        [RequestHandle, POINTER(_P_INT64), POINTER(_P_UINT32), _P_SIZE],
    ),
    "llmlat_request_get_input_tokens": (c_int32, [RequestHandle, _P_UINT64]),
    "llmlat_request_get_output_tokens": (c_int32, [RequestHandle, _P_UINT64]),
    "llmlat_request_get_lacks": (c_int32, [RequestHandle, _P_UINT32]),
    "llmlat_request_schedule": (c_int32, [RequestHandle, c_int64]),
    "llmlat_request_get_schedule": (c_int32, [RequestHandle, _P_INT64]),
    # aggregator
    "llmlat_agg_new": (AggHandle, [c_int32, c_int32]),
    "llmlat_agg_create": (c_int32, [c_int32, c_int32, POINTER(AggHandle)]),
    "llmlat_agg_free": (None, [AggHandle]),
    "llmlat_agg_reset": (c_int32, [AggHandle]),
    "llmlat_agg_get_convention": (c_int32, [AggHandle, _P_INT32]),
    "llmlat_agg_get_mode": (c_int32, [AggHandle, _P_INT32]),
    "llmlat_agg_set_param": (c_int32, [AggHandle, c_int32, c_double]),
    "llmlat_agg_get_param": (c_int32, [AggHandle, c_int32, _P_DOUBLE]),
    "llmlat_param_bounds": (c_int32, [c_int32, _P_DOUBLE, _P_DOUBLE]),
    "llmlat_agg_set_quantiles": (c_int32, [AggHandle, _P_DOUBLE, c_size_t]),
    "llmlat_agg_set_buckets": (c_int32, [AggHandle, c_int32, _P_DOUBLE, c_size_t]),
    "llmlat_agg_add": (c_int32, [AggHandle, RequestHandle]),
    "llmlat_agg_add_columns": (
        c_int32,
        [AggHandle, c_size_t, _P_INT64, _P_INT64, POINTER(c_uint8), _P_UINT64, _P_INT64,
         _P_UINT32, _P_INT64, _P_INT64, _P_SIZE],
    ),
    "llmlat_agg_add_columns_scheduled": (
        c_int32,
        [AggHandle, c_size_t, _P_INT64, _P_INT64, POINTER(c_uint8), _P_UINT64, _P_INT64,
         _P_UINT32, _P_INT64, _P_INT64, _P_INT64, _P_SIZE],
    ),
    "llmlat_agg_unavailable": (c_int32, [AggHandle, c_int32, c_int32, POINTER(c_char_p)]),
    "llmlat_agg_merge": (c_int32, [AggHandle, AggHandle]),
    "llmlat_agg_stat": (c_int32, [AggHandle, c_int32, c_int32, _P_DOUBLE]),
    "llmlat_agg_quantile": (c_int32, [AggHandle, c_int32, c_double, _P_DOUBLE]),
    "llmlat_agg_quantiles": (c_int32, [AggHandle, c_int32, _P_DOUBLE, c_size_t, _P_DOUBLE]),
    "llmlat_agg_buckets": (
        c_int32,
        [AggHandle, c_int32, _P_INT32, _P_DOUBLE, POINTER(c_uint64), _P_INT32,
         POINTER(c_uint64), c_size_t, _P_SIZE],
    ),
    "llmlat_agg_rate": (c_int32, [AggHandle, c_int32, _P_DOUBLE]),
    "llmlat_agg_counter": (c_int32, [AggHandle, c_int32, POINTER(c_uint64)]),
    "llmlat_agg_serialize": (c_int32, [AggHandle, c_void_p, c_size_t, _P_SIZE]),
    "llmlat_agg_deserialize": (AggHandle, [c_void_p, c_size_t, _P_INT32]),
    "llmlat_agg_report": (c_int32, [AggHandle, c_int32, c_void_p, c_size_t, _P_SIZE]),
    "llmlat_agg_report_write": (c_int32, [AggHandle, c_int32, WRITE_FN, c_void_p]),
    # reader
    "llmlat_input_name": (c_char_p, [c_int32]),
    "llmlat_reader_new": (ReaderHandle, [c_int32, c_char_p]),
    "llmlat_reader_free": (None, [ReaderHandle]),
    "llmlat_reader_set_run": (c_int32, [ReaderHandle, c_uint64]),
    "llmlat_reader_feed": (c_int32, [ReaderHandle, c_void_p, c_size_t]),
    "llmlat_reader_space": (c_int32, [ReaderHandle, c_size_t, POINTER(c_void_p), _P_SIZE]),
    "llmlat_reader_commit": (c_int32, [ReaderHandle, c_size_t]),
    "llmlat_reader_end": (c_int32, [ReaderHandle]),
    "llmlat_reader_next": (c_int32, [ReaderHandle, RequestHandle, _P_INT32]),
    "llmlat_reader_add_to": (c_int32, [ReaderHandle, AggHandle, _P_INT32]),
    "llmlat_reader_message": (c_char_p, [ReaderHandle]),
    "llmlat_reader_request_id": (c_char_p, [ReaderHandle]),
    "llmlat_reader_request_position": (
        c_int32,
        [ReaderHandle, _P_UINT64, _P_UINT64, _P_UINT64],
    ),
    "llmlat_reader_counter": (c_int32, [ReaderHandle, c_int32, _P_UINT64]),
    "llmlat_reader_format": (c_int32, [ReaderHandle, _P_INT32]),
    "llmlat_reader_duration": (c_int32, [ReaderHandle, _P_DOUBLE]),
    "llmlat_agg_set_label": (c_int32, [AggHandle, c_char_p, c_char_p]),
    "llmlat_agg_label_count": (c_int32, [AggHandle, _P_SIZE]),
    "llmlat_agg_get_label": (c_int32, [AggHandle, c_size_t, POINTER(c_char_p), POINTER(c_char_p)]),
    "llmlat_agg_new_like": (AggHandle, [AggHandle]),
    "llmlat_request_new_streaming": (RequestHandle, [AggHandle]),
    # live recording
    "llmlat_live_new": (LiveHandle, [AggHandle]),
    "llmlat_live_free": (None, [LiveHandle]),
    "llmlat_live_writer_new": (WriterHandle, [LiveHandle]),
    "llmlat_live_writer_free": (None, [WriterHandle]),
    "llmlat_live_add": (c_int32, [WriterHandle, RequestHandle]),
    "llmlat_live_snapshot": (c_int32, [LiveHandle, c_int32, AggHandle]),
    # sliding windows
    "llmlat_window_new": (WindowHandle, [AggHandle, c_int64, c_int64, _P_INT32]),
    "llmlat_window_free": (None, [WindowHandle]),
    "llmlat_window_reset": (c_int32, [WindowHandle]),
    "llmlat_window_add": (c_int32, [WindowHandle, RequestHandle]),
    "llmlat_window_merge": (c_int32, [WindowHandle, AggHandle, c_int64]),
    "llmlat_window_advance": (c_int32, [WindowHandle, c_int64]),
    "llmlat_window_view": (c_int32, [WindowHandle, POINTER(AggHandle)]),
    # windows
    "llmlat_agg_add_window": (c_int32, [AggHandle, AggHandle, c_int64, c_int64, c_int32]),
    "llmlat_agg_span": (c_int32, [AggHandle, POINTER(c_int64), POINTER(c_int64)]),
    # comparison
    "llmlat_compare_new": (CompareHandle, [AggHandle, AggHandle, c_uint32, c_uint64, _P_INT32]),
    "llmlat_compare_free": (None, [CompareHandle]),
    "llmlat_compare_figure": (c_char_p, [CompareHandle, c_size_t]),
    "llmlat_compare_get": (c_int32, [CompareHandle, c_char_p, c_int32, _P_DOUBLE]),
    "llmlat_compare_report": (c_int32, [CompareHandle, c_int32, c_void_p, c_size_t, _P_SIZE]),
    # exposition
    "llmlat_expose": (c_int32, [POINTER(AggHandle), c_size_t, c_int32, c_void_p, c_size_t, _P_SIZE]),
    "llmlat_expose_write": (c_int32, [POINTER(AggHandle), c_size_t, c_int32, WRITE_FN, c_void_p]),
    "llmlat_expose_names": (c_int32, [POINTER(AggHandle), c_size_t, c_int32, c_int32, c_void_p,
                                      c_size_t, _P_SIZE]),
    "llmlat_expose_write_names": (c_int32, [POINTER(AggHandle), c_size_t, c_int32, c_int32,
                                            WRITE_FN, c_void_p]),
    "llmlat_names_name": (c_char_p, [c_int32]),
    "llmlat_format_content_type": (c_char_p, [c_int32]),
}


def _file_names() -> Sequence[str]:
    """File names of the library on this platform, SONAME first."""
    if sys.platform == "darwin":
        return ("libllmlat.%d.dylib" % ABI_MAJOR, "libllmlat.dylib")
    if sys.platform == "win32":
        return ("llmlat-%d.dll" % ABI_MAJOR, "llmlat.dll", "libllmlat.dll")
    return ("libllmlat.so.%d" % ABI_MAJOR, "libllmlat.so")


def candidates() -> Iterator[str]:
    """The places tried, in order (see the module docstring)."""
    env = os.environ.get(_ENV)
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    for name in _file_names():
        path = os.path.join(here, name)
        if os.path.exists(path):
            yield path
    yield _file_names()[0]
    found = ctypes.util.find_library("llmlat")
    if found and found != _file_names()[0]:
        yield found


def command_path() -> Optional[str]:
    """The ``llmlat`` command that the wheel installed with this package, or
    None (the package of a source tree, or installed without the command).

    pip puts the wheel's script in the environment's ``bin/``: beside
    ``lib/pythonX.Y/site-packages`` (a venv, ``--prefix``, ``--user``;
    ``dist-packages`` for Debian's ``/usr/local``), or in ``<target>/bin``
    for ``--target``, the places the command's own rpath names (meson.build).
    """
    here = os.path.dirname(os.path.abspath(__file__))
    parent = os.path.dirname(here)
    if os.path.basename(parent) in ("site-packages", "dist-packages") \
            and os.path.basename(os.path.dirname(parent)).startswith("python"):
        base = os.path.dirname(os.path.dirname(os.path.dirname(parent)))
    else:
        base = parent
    path = os.path.join(base, "bin", "llmlat")
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


def _open() -> Tuple[ctypes.CDLL, str]:
    errors = []
    for cand in candidates():
        try:
            return ctypes.CDLL(cand), cand
        except OSError as exc:
            errors.append("%s: %s" % (cand, exc))
    if os.environ.get(_ENV):
        hint = "check %s" % _ENV
    else:
        hint = ("install the llmlat package with its library (pip install . in "
                "an llmlat checkout), or libllmlat (meson install, then ldconfig), "
                "or set %s to its path" % _ENV)
    raise ImportError("llmlat: cannot load the shared library (%s); tried: %s"
                      % (hint, "; ".join(errors)))


def _declare(handle: ctypes.CDLL, path: str) -> None:
    for name, (restype, argtypes) in PROTOTYPES.items():
        try:
            fn = getattr(handle, name)
        except AttributeError:
            raise ImportError("llmlat: %s does not export %s" % (path, name)) from None
        fn.restype = restype
        fn.argtypes = argtypes


def _check_version(handle: ctypes.CDLL, path: str) -> None:
    number = handle.llmlat_version_number()
    if number // 10000 != ABI_MAJOR:
        raise ImportError(
            "llmlat: %s is version %d.%d.%d; this binding needs major version %d"
            % (path, number // 10000, number // 100 % 100, number % 100, ABI_MAJOR))


def load() -> Tuple[ctypes.CDLL, str]:
    """Opens the library, checks its major version, declares every function."""
    handle, path = _open()
    version = getattr(handle, "llmlat_version_number", None)
    if version is None:
        raise ImportError("llmlat: %s is not libllmlat (no llmlat_version_number)" % path)
    version.restype = c_uint32
    version.argtypes = []
    _check_version(handle, path)
    _declare(handle, path)
    return handle, path


def _hot_path(handle: ctypes.CDLL) -> "ctypes._CFuncPtr":
    """``llmlat_request_event`` for ``Request.event()``: the handle passed as
    an int address (cheaper to convert than a typed pointer) and the GIL
    kept (the call takes nanoseconds; releasing and retaking the GIL costs
    more). About a quarter of the per-call cost goes (docs/python.md)."""
    proto = ctypes.PYFUNCTYPE(c_int32, c_void_p, c_int64, c_uint32)
    return proto(("llmlat_request_event", handle))


def name_table(fn: "ctypes._CFuncPtr", first: int, limit: int = 64) -> Dict[str, int]:
    """``{name: id}`` for every id in [first, limit) that ``fn`` names."""
    table = {}
    for i in range(first, limit):
        name: Optional[bytes] = fn(i)
        if name is not None:
            table[name.decode("ascii")] = i
    return table


lib, library_path = load()
#: ``llmlat_request_event(void *r, int64_t t_ns, uint32_t k)``, GIL kept.
request_event_fast = _hot_path(lib)
