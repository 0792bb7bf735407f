"""Request and Aggregator: the Pythonic face of the C API (internal module;
import everything from ``llmlat``)."""

from __future__ import annotations

import ctypes
import json
import operator
import sys
import threading
import weakref
from array import array
from ctypes import byref, c_double, c_int32, c_int64, c_size_t, c_uint32, c_uint64
from typing import (Any, Dict, Iterable, List, Mapping, NamedTuple, NoReturn, Optional,
                    Sequence, Tuple, TypeVar, Union)

from ._args import (INT64_MAX, INT64_MIN, UINT32_MAX, as_bytes, as_float, as_floats, as_i64,
                    as_id, as_text, as_u32, as_u64, byref_buffer, c_array, type_error)
from ._errors import Error, InvalidArgumentError, MismatchError, OutOfMemoryError
from . import _analysis
from ._native import WRITE_FN, AggHandle, RequestHandle, lib, name_table, request_event_fast

__all__ = [
    "Request",
    "Aggregator",
    "NativeBuckets",
    "expose",
    "content_type",
    "now_ns",
    "param_bounds",
    "METRICS",
    "CONVENTIONS",
    "MODES",
    "STATS",
    "RATES",
    "COUNTERS",
    "PARAMS",
    "FORMATS",
    "NAMES",
    "LACKS",
    "COLUMN_CANCELLED",
    "NO_SCHEDULE",
]

# ------------------------------------------------------------------ names

#: Metric names, from the library itself (``llmlat_metric_name``): "ttft",
#: "tpot", "itl", "icl", "e2e", "tps_user", "itl_max", "output_tokens",
#: "input_tokens", "tool_itl", "ntpot", and from the intended start
#: (``Request.schedule``) "dispatch_delay", "scheduled_ttft", "scheduled_e2e".
_METRIC_IDS: Dict[str, int] = name_table(lib.llmlat_metric_name, 1)
#: Convention names (``llmlat_convention_name``): "default", "vllm",
#: "aiperf", "sglang", "llmperf", "guidellm", "inference-perf".
_CONVENTION_IDS: Dict[str, int] = name_table(lib.llmlat_convention_name, 0)
#: Naming schemes of an exposition (``llmlat_names_name``): "llmlat",
#: "vllm", "sglang", "otel".
_NAMES_IDS: Dict[str, int] = name_table(lib.llmlat_names_name, 0)
_MODE_IDS = {"exact": 0, "bounded": 1}
_STAT_IDS = {"count": 1, "mean": 2, "std": 3, "min": 4, "max": 5, "median": 6, "sum": 7}
_RATE_IDS = {
    "requests": 1,
    "output_tokens": 2,
    "total_tokens": 3,
    "goodput": 4,
    "peak_output_tokens": 5,
}
_COUNTER_IDS = {
    "completed": 1,
    "failed": 2,
    "tpot_undefined": 3,
    "good": 4,
    "input_tokens": 5,
    "output_tokens": 6,
    "peak_concurrency": 7,
    "memory_bytes": 8,
}
_PARAM_IDS = {
    "relative_error": 1,
    "duration": 2,
    "slo_ttft": 3,
    "slo_tpot": 4,
    "slo_e2e": 5,
    "max_dispatch_delay": 6,
    "server_output_tokens": 7,
}
_FORMAT_IDS = {"text": 1, "json": 2, "prometheus": 3, "openmetrics": 4, "prometheus_protobuf": 5,
               "html": 6, "chrome_trace": 7, "requests_csv": 8, "requests_jsonl": 9}
#: The keys of ``Aggregator(slo=...)``.
_SLO_IDS = {"ttft": _PARAM_IDS["slo_ttft"], "tpot": _PARAM_IDS["slo_tpot"],
            "e2e": _PARAM_IDS["slo_e2e"]}
#: What a request rebuilt from another tool's file lacks (``LLMLAT_LACKS_*``,
#: docs/importers.md): a mask of these bits.
LACKS = {
    "start_times": 1 << 0,
    "end": 1 << 1,
    "chunk_tokens": 1 << 2,
    "chunks": 1 << 3,
    "output_tokens": 1 << 4,
    "input_tokens": 1 << 5,
    "gaps": 1 << 6,
    "schedule": 1 << 7,
}
_KIND_IDS = {"metric": 1, "rate": 2, "counter": 3}
#: ``ok[i]`` of ``Aggregator.add_columns`` for a request the client
#: cancelled (``LLMLAT_COLUMN_CANCELLED``).
COLUMN_CANCELLED = 2
#: ``scheduled[i]`` of ``Aggregator.add_columns`` for a request without an
#: intended start (``LLMLAT_NO_SCHEDULE``; None does the same in a list).
NO_SCHEDULE = INT64_MIN

METRICS: Tuple[str, ...] = tuple(_METRIC_IDS)
CONVENTIONS: Tuple[str, ...] = tuple(_CONVENTION_IDS)
MODES: Tuple[str, ...] = tuple(_MODE_IDS)
STATS: Tuple[str, ...] = tuple(_STAT_IDS)
RATES: Tuple[str, ...] = tuple(_RATE_IDS)
COUNTERS: Tuple[str, ...] = tuple(_COUNTER_IDS)
PARAMS: Tuple[str, ...] = tuple(_PARAM_IDS)
FORMATS: Tuple[str, ...] = tuple(_FORMAT_IDS)
NAMES: Tuple[str, ...] = tuple(_NAMES_IDS)

Name = Union[str, int]
_Self = TypeVar("_Self", bound="_Owner")

_EINVAL = -1
_ENOMEM = -2
_EUNDEFINED = -5
_ENOSPC = -8


def _name(table: Mapping[str, int], value: int) -> str:
    for k, v in table.items():
        if v == value:
            return k
    return str(value)


def _raise(status: int, where: str, detail: Optional[str] = None) -> NoReturn:
    raise Error.for_status(status, where, detail)


def now_ns() -> int:
    """``llmlat_now_ns()``: CLOCK_MONOTONIC in nanoseconds, the clock to
    timestamp requests with (the same as ``time.monotonic_ns()`` on Linux)."""
    return lib.llmlat_now_ns()


def param_bounds(param: Name) -> Tuple[float, float]:
    """The accepted range ``(lo, hi)`` of an aggregator parameter
    ("relative_error", "duration", "slo_ttft", "slo_tpot", "slo_e2e",
    "max_dispatch_delay")."""
    lo, hi = c_double(), c_double()
    st = lib.llmlat_param_bounds(as_id(_PARAM_IDS, "param", param, "param_bounds", "param"),
                                 byref(lo), byref(hi))
    if st:
        _raise(st, "llmlat_param_bounds")
    return lo.value, hi.value


# ----------------------------------------------------------- event arrays


def _times_array(times: Any, where: str) -> Tuple[Any, int]:
    return c_array(times, c_int64, "q", "ql", "int64", where, "times_ns", "nanoseconds")


def _token_array(tokens: Any, n: int, where: str) -> Tuple[Any, int]:
    """``tokens`` (one int for every event, or one per event) as a C array
    of n uint32 (or of its own length, which the caller compares)."""
    if not isinstance(tokens, bool) and not hasattr(tokens, "__len__") \
            and hasattr(tokens, "__index__"):
        k = as_u32(tokens, where, "tokens")  # an int, or a numpy integer scalar
        if n == 0:
            return None, 0
        return byref_buffer(c_uint32, array("I", (k,)) * n), n
    return c_array(tokens, c_uint32, "I", "IL", "uint32", where, "tokens")


def _no_schedule_for_none(column: Any) -> Any:
    """A list or tuple of intended starts with None for NO_SCHEDULE; any
    other column (a buffer, an array) as it is."""
    if isinstance(column, (list, tuple)):
        return [NO_SCHEDULE if x is None else x for x in column]
    return column


def _column(obj: Any, ctype: Any, typecode: str, codes: str, kind: str,
            arg: str) -> Tuple[Any, int]:
    """A column of ``add_columns``: ``c_array``'s (pointer, length), the
    caller's buffer itself when it already is the C type's (same size:
    signed and unsigned are read as the C type)."""
    return c_array(obj, ctype, typecode, codes, kind, "Aggregator.add_columns", arg)


# ------------------------------------------------------------- life cycle


class _Owner:
    """Owns one C object: freed by ``close()``, by ``with``, or by a
    ``weakref.finalize`` when the Python object goes away (not ``__del__``:
    a finalizer also runs at interpreter exit, and never twice).

    Every C call on the object is made holding its lock, ``_lock``: ctypes
    releases the GIL during a C call, so without it two threads could be
    inside the C library on one object at once (the C rule is one thread at
    a time). A call on two objects (``add``, ``merge``) holds both locks,
    taken in a fixed order."""

    __slots__ = ("_h", "_finalizer", "_lock", "__weakref__")
    _h: Any

    def _own(self, h: Any, free: Any) -> None:
        self._h = h
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, free, h)

    def close(self) -> None:
        """Frees the C object now (idempotent), after any call another
        thread has in progress on it. Using this object afterwards raises
        ValueError."""
        with self._lock:
            self._finalizer()
            self._h = None

    @property
    def closed(self) -> bool:
        """True after ``close()``."""
        return self._h is None

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _closed_error(self) -> ValueError:
        return ValueError("operation on a closed llmlat.%s" % type(self).__name__)

    def _fail(self, status: int, where: str, detail: Optional[str] = None) -> NoReturn:
        """Raises for a nonzero status (a closed object's NULL handle makes
        the C call fail: that is when it is noticed, at no cost to the
        calls that succeed)."""
        if self._h is None:
            raise self._closed_error()
        _raise(status, where, detail)


class _all_locked:
    """Holds the locks of several objects (each lock once: the same object
    twice, or a window and its view, share one), taken in the order of
    their ids so that two threads merging a into b and b into a cannot
    deadlock."""

    __slots__ = ("_locks",)

    def __init__(self, *objs: Any) -> None:
        distinct = {id(o._lock): o._lock for o in objs}
        self._locks: Tuple[Any, ...] = tuple(distinct[k] for k in sorted(distinct))

    def __enter__(self) -> None:
        taken = 0
        try:
            for lock in self._locks:
                lock.acquire()
                taken += 1
        except BaseException:
            for lock in reversed(self._locks[:taken]):
                lock.release()
            raise

    def __exit__(self, *exc: object) -> None:
        for lock in reversed(self._locks):
            lock.release()


# ----------------------------------------------------------------- Request


class Request(_Owner):
    """The recorder of one streamed request (``llmlat_request``).

    Life cycle: ``start`` -> ``event``/``events`` ... -> ``finish`` or
    ``fail`` -> ``Aggregator.add`` -> ``reset`` (reuse) or ``close``.
    Timestamps are int nanoseconds on one monotonic clock (``now_ns()`` or
    ``time.monotonic_ns()``). Safe to share between threads (a lock per
    request), though a request is naturally one thread's.

    ``Request(streaming=like)`` is a streaming recorder
    (``llmlat_request_new_streaming``): it keeps only a block of its
    latest 64 events, folding each full block by the bounded Aggregator
    ``like``'s bucket layout and gap rule, so its memory does not grow with
    the stream; it adds, bit for bit as a
    buffered one, to bounded aggregators of like's relative error and gap
    rule (MismatchError otherwise).

    Errors raise :class:`llmlat.Error` subclasses: ``StateError`` (event
    before start or after the end), ``OrderError`` (a time before the
    previous one), ``InvalidArgumentError`` (out-of-range values). A call
    that raises leaves the request as it was.
    """

    __slots__ = ("_addr",)

    def __init__(self, streaming: Optional["Aggregator"] = None) -> None:
        if streaming is None:
            h = lib.llmlat_request_new()
        elif not isinstance(streaming, Aggregator):
            raise TypeError("streaming must be an llmlat.Aggregator, not %s"
                            % type(streaming).__name__)
        else:
            with streaming._lock:
                if streaming._h is None:
                    raise streaming._closed_error()
                h = RequestHandle()
                st = lib.llmlat_request_create_streaming(streaming._h, byref(h))
            if st == MismatchError.STATUS:
                raise InvalidArgumentError(where="llmlat_request_create_streaming",
                                           detail="a streaming recorder needs a bounded "
                                                  "aggregator, not %s" % streaming.mode)
            if st != 0:
                _raise(st, "llmlat_request_create_streaming")
        if not h:
            raise OutOfMemoryError(where="llmlat_request_new")
        self._own(h, lib.llmlat_request_free)
        self._addr = ctypes.cast(h, ctypes.c_void_p).value  # for event()

    def close(self) -> None:
        """Frees the C recorder now (idempotent). Using the request after
        ``close`` raises ValueError."""
        super().close()
        self._addr = None

    def reset(self) -> None:
        """Back to the state of a new request, keeping the event buffer (so a
        reused request stops allocating)."""
        with self._lock:
            st = lib.llmlat_request_reset(self._h)
        if st:
            self._fail(st, "llmlat_request_reset")

    # -- recording

    def start(self, t_ns: int) -> None:
        """Marks the request sent/arrived at ``t_ns``.
        StateError if already started (``reset()`` first)."""
        with self._lock:
            st = lib.llmlat_request_start(self._h, as_i64(t_ns, "Request.start", "t_ns"))
        if st:
            self._fail(st, "llmlat_request_start")

    def schedule(self, t_ns: int) -> None:
        """When the request was meant to start (its intended start, e.g. the
        arrival time a benchmark's schedule gave it), at or before its
        start: from it come "dispatch_delay", "scheduled_ttft" and
        "scheduled_e2e" (docs/metrics.md, "The intended start"). Before or
        after ``start``; set again, it replaces the last.
        Errors: StateError (ended), OrderError (after the start),
        LimitError (a time of the request would be too far from it)."""
        with self._lock:
            st = lib.llmlat_request_schedule(self._h, as_i64(t_ns, "Request.schedule", "t_ns"))
        if st:
            self._fail(st, "llmlat_request_schedule")

    @property
    def scheduled(self) -> Optional[int]:
        """The intended start in ns (``schedule``), None when it has none."""
        out = c_int64()
        with self._lock:
            st = lib.llmlat_request_get_schedule(self._h, byref(out))
        if st == _EUNDEFINED:
            return None
        if st:
            self._fail(st, "llmlat_request_get_schedule")
        return out.value

    def event(self, t_ns: int, tokens: int = 1, _event: Any = request_event_fast) -> None:
        """One streamed event (chunk) at ``t_ns`` carrying ``tokens >= 0``
        output tokens (0: role chunk, keep-alive, empty delta).

        Costs one ctypes call (about a microsecond; see docs/python.md):
        use ``events()`` for many events at once.
        Errors: StateError (not started, or already ended), OrderError
        (before the start or the previous event), InvalidArgumentError
        (``tokens`` outside [0, 2**32), ``t_ns`` outside int64 or too far
        from the start, the token sum would overflow).
        """
        lock = self._lock  # acquire/release: cheaper than `with` here
        lock.acquire()
        try:
            if INT64_MIN <= t_ns <= INT64_MAX and 0 <= tokens <= UINT32_MAX:
                st = _event(self._addr, t_ns, tokens)
            else:
                st = None
        except (TypeError, ctypes.ArgumentError):
            st = None
        finally:
            lock.release()
        if st is None:
            # Off the hot path: convert what converts (numpy integers), or
            # raise the error that says which argument is wrong.
            t, k = as_i64(t_ns, "Request.event", "t_ns"), as_u32(tokens, "Request.event", "tokens")
            with lock:
                st = _event(self._addr, t, k)
        if st:
            self._fail(st, "llmlat_request_event")

    def events(self, times_ns: Any, tokens: Any = 1) -> None:
        """Many events in one C call, all accepted or none.

        ``times_ns``: int nanoseconds, any iterable of ints, or a buffer
        (``array('q')``, a numpy int64 array). A writable C-contiguous int64
        buffer is handed to C without a copy (a read-only one is copied
        once, in C); anything else is converted first.
        ``tokens``: one int for every event (default 1), or a sequence of the
        same length; a uint32 buffer (``array('I')``, numpy uint32) is
        handed over without a copy.

        Errors: as ``event()`` for any element, checked for all before any
        is stored; InvalidArgumentError when the lengths differ.
        """
        t_ptr, n = _times_array(times_ns, "Request.events")
        k_ptr, nk = _token_array(tokens, n, "Request.events")
        if nk != n:
            self._fail(_EINVAL, "Request.events",
                       "tokens has %d counts but times_ns has %d times" % (nk, n))
        with self._lock:
            st = lib.llmlat_request_events(self._h, t_ptr, k_ptr, n)
        if st:
            self._fail(st, "llmlat_request_events")

    def set_input_tokens(self, n: int) -> None:
        """The prompt length (default 0); any time before the request is added."""
        with self._lock:
            st = lib.llmlat_request_set_input_tokens(self._h, as_u64(n, "Request.set_input_tokens", "n"))
        if st:
            self._fail(st, "llmlat_request_set_input_tokens")

    def set_output_tokens(self, n: int) -> None:
        """The server's usage count of output tokens; when set it is N, otherwise
        N is the sum of the events' tokens."""
        with self._lock:
            st = lib.llmlat_request_set_output_tokens(self._h, as_u64(n, "Request.set_output_tokens", "n"))
        if st:
            self._fail(st, "llmlat_request_set_output_tokens")

    def set_lacks(self, lacks: int) -> None:
        """What this request's data lacks, as a mask of ``llmlat.LACKS``
        values (for requests rebuilt from another tool's file,
        docs/importers.md); what needs it is then reported as not available.
        "chunks" is set by ``set_known`` only."""
        with self._lock:
            st = lib.llmlat_request_set_lacks(self._h, as_u32(lacks, "Request.set_lacks", "lacks"))
        if st:
            self._fail(st, "llmlat_request_set_lacks")

    def set_known(self, convention: Name, metric: Name, value: float) -> None:
        """A per-request value of a request without chunk times: "ttft",
        "e2e" (seconds), "tool_itl" or "tps_user" (the tool's own
        per-request throughput, used under its own convention), as the tool
        of ``convention`` measured it (LLMPerf's files have only these).
        The request then takes no event."""
        where = "Request.set_known"
        with self._lock:
            st = lib.llmlat_request_set_known(
                self._h, as_id(_CONVENTION_IDS, "convention", convention, where, "convention"),
                as_id(_METRIC_IDS, "metric", metric, where, "metric"),
                as_float(value, where, "value", "a number (seconds)"))
        if st:
            self._fail(st, "llmlat_request_set_known")

    def finish(self, t_ns: int) -> None:
        """The stream closed normally at ``t_ns``.
        Errors: StateError (not started, already ended), OrderError."""
        with self._lock:
            st = lib.llmlat_request_finish(self._h, as_i64(t_ns, "Request.finish", "t_ns"))
        if st:
            self._fail(st, "llmlat_request_finish")

    def fail(self, t_ns: int) -> None:
        """The request failed (error, timeout, cancelled) at ``t_ns``.
        Same errors as ``finish``."""
        with self._lock:
            st = lib.llmlat_request_fail(self._h, as_i64(t_ns, "Request.fail", "t_ns"))
        if st:
            self._fail(st, "llmlat_request_fail")

    def cancel(self, t_ns: int) -> None:
        """The client cancelled the request at ``t_ns``: a failure under
        every convention, which GuideLLM reports as "incomplete" rather
        than "errored". Same errors as ``finish``."""
        st = lib.llmlat_request_cancel(self._h, as_i64(t_ns, "Request.cancel", "t_ns"))
        if st:
            self._fail(st, "llmlat_request_cancel")

    # -- reading

    def value(self, metric: Name, convention: Name = "default") -> Optional[float]:
        """The request's own value of ``metric`` under ``convention``, in
        seconds (tokens or tokens/s for the count and speed metrics), or
        None when it is undefined (e.g. "tpot" with one output token).
        StateError before ``start``."""
        out = c_double()
        where = "Request.value"
        with self._lock:
            st = lib.llmlat_request_value(
                self._h, as_id(_CONVENTION_IDS, "convention", convention, where, "convention"),
                as_id(_METRIC_IDS, "metric", metric, where, "metric"), byref(out))
        if st:
            if st == _EUNDEFINED:
                return None
            self._fail(st, "llmlat_request_value")
        return out.value

    def __repr__(self) -> str:
        return "<llmlat.Request%s at %#x>" % (" (closed)" if self._h is None else "", id(self))


# -------------------------------------------------------------- Aggregator


class Aggregator(_Owner):
    """Statistics of many requests under one convention (``llmlat_agg``).

    ``convention``: "default", "vllm", "aiperf", "sglang", "llmperf",
    "guidellm" or "inference-perf".
    ``mode``: "exact" (every sample kept, numpy-identical percentiles) or
    "bounded" (fixed memory, quantiles within ``relative_error``).
    ``duration``: host wall time in seconds for the rates (default: derived).
    ``slo``: ``{"ttft": s, "tpot": s, "e2e": s}``, thresholds for goodput.
    ``quantiles``: the quantiles ``report()``/``summary()`` print (default
    0.5, 0.9, 0.95, 0.99).
    ``labels``: constant labels for the expositions and reports, e.g.
    ``{"model": "llama-3-70b", "route": "/v1/chat"}`` (``set_label``).

    Queries return None for an undefined value (empty set, no SLO...).
    Changed by one thread at a time; queries only read, so several threads
    may query while none changes it. Merge per-thread (or per-process)
    aggregators with ``merge``; it pickles through ``to_bytes()``.
    """

    __slots__ = ()

    def __init__(self, convention: Name = "default", mode: Name = "exact",
                 relative_error: float = 0.01, *, duration: Optional[float] = None,
                 slo: Optional[Mapping[str, float]] = None,
                 quantiles: Optional[Iterable[float]] = None,
                 labels: Optional[Mapping[str, str]] = None) -> None:
        where = "Aggregator"
        conv = as_id(_CONVENTION_IDS, "convention", convention, where, "convention")
        mode_id = as_id(_MODE_IDS, "mode", mode, where, "mode")
        if slo is not None and not isinstance(slo, Mapping):
            raise type_error(where, "slo", "a mapping of SLO name to seconds, such as "
                             "{'ttft': 0.5, 'tpot': 0.05}", slo)
        if labels is not None and not isinstance(labels, Mapping):
            raise type_error(where, "labels", "a mapping of label name to value (str), such "
                             "as {'model': 'llama-3-70b'}", labels)
        h = AggHandle()
        st = lib.llmlat_agg_create(conv, mode_id, byref(h))
        if st:
            detail = "convention %r, mode %r" % (convention, mode) if st == _EINVAL else None
            _raise(st, "llmlat_agg_create", detail)
        self._own(h, lib.llmlat_agg_free)
        try:
            self._set_param(_PARAM_IDS["relative_error"], relative_error, where, "relative_error")
            if duration is not None:
                self._set_param(_PARAM_IDS["duration"], duration, where, "duration")
            for key, seconds in (slo or {}).items():
                param = as_id(_SLO_IDS, "SLO", key, where, "slo key")
                self._set_param(param, seconds, where, "slo[%r]" % (key,))
            if quantiles is not None:
                self._set_quantiles(quantiles, where, "quantiles")
            for name, value in (labels or {}).items():
                self._set_label(name, value, where, "labels[%r]" % (name,))
        except BaseException:
            self.close()
            raise

    @classmethod
    def from_bytes(cls, data: Any) -> "Aggregator":
        """An aggregator from bytes written by ``to_bytes()`` (any process or
        host: the format is little-endian and versioned, docs/format.md).
        FormatError on malformed, truncated or trailing bytes."""
        buf = as_bytes(data, "Aggregator.from_bytes", "data",
                       "a bytes-like object (what to_bytes() returned)")
        status = c_int32(0)
        h = lib.llmlat_agg_deserialize(buf, len(buf), byref(status))
        if not h:
            _raise(status.value or _EINVAL, "llmlat_agg_deserialize")
        self = cls.__new__(cls)
        self._own(h, lib.llmlat_agg_free)
        return self

    def __reduce__(self) -> Tuple[Any, Tuple[bytes]]:
        return (Aggregator.from_bytes, (self.to_bytes(),))

    def empty_like(self) -> "Aggregator":
        """A new, empty aggregator set up as this one is (convention, mode,
        params, report quantiles, histogram bounds, labels)."""
        h = lib.llmlat_agg_new_like(self._h)
        if not h:
            if self._h is None:
                raise self._closed_error()
            raise OutOfMemoryError(where="llmlat_agg_new_like")
        other = Aggregator.__new__(Aggregator)
        other._own(h, lib.llmlat_agg_free)
        return other

    def reset(self) -> None:
        """Drops every sample and counter; keeps convention, mode, params and
        report quantiles."""
        with self._lock:
            st = lib.llmlat_agg_reset(self._h)
        if st:
            self._fail(st, "llmlat_agg_reset")

    # -- configuration

    @property
    def convention(self) -> str:
        """The convention's name."""
        out = c_int32()
        with self._lock:
            st = lib.llmlat_agg_get_convention(self._h, byref(out))
        if st:
            self._fail(st, "llmlat_agg_get_convention")
        return _name(_CONVENTION_IDS, out.value)

    @property
    def mode(self) -> str:
        """"exact" or "bounded"."""
        out = c_int32()
        with self._lock:
            st = lib.llmlat_agg_get_mode(self._h, byref(out))
        if st:
            self._fail(st, "llmlat_agg_get_mode")
        return _name(_MODE_IDS, out.value)

    def set_param(self, param: Name, value: float) -> None:
        """Sets "relative_error", "duration" (s, 0 = derive), "slo_ttft",
        "slo_tpot" or "slo_e2e" (s, 0 = none), "max_dispatch_delay" (s, the
        behind-schedule warning's threshold), or "server_output_tokens"
        (N under inference-perf: 0 the client's count, 1 the server's usage
        count). InvalidArgumentError outside ``param_bounds(param)``;
        StateError for a bounded aggregator's relative error or SLOs once
        it holds data, and for server_output_tokens once it holds any."""
        where = "Aggregator.set_param"
        self._set_param(as_id(_PARAM_IDS, "param", param, where, "param"), value, where, "value")

    def _set_param(self, param: int, value: Any, where: str, arg: str) -> None:
        with self._lock:
            st = lib.llmlat_agg_set_param(self._h, param, as_float(value, where, arg, "a number"))
        if st:
            self._fail(st, "llmlat_agg_set_param",
                       "%s = %r (%s)" % (_name(_PARAM_IDS, param), value, arg))

    def get_param(self, param: Name) -> float:
        """A parameter's current value."""
        out = c_double()
        with self._lock:
            st = lib.llmlat_agg_get_param(
                self._h, as_id(_PARAM_IDS, "param", param, "Aggregator.get_param", "param"),
                byref(out))
        if st:
            self._fail(st, "llmlat_agg_get_param")
        return out.value

    def set_quantiles(self, quantiles: Iterable[float]) -> None:
        """The quantiles (each in [0, 1], 1 to 32 of them) that ``report()``
        and ``summary()`` print."""
        self._set_quantiles(quantiles, "Aggregator.set_quantiles", "quantiles")

    def _set_quantiles(self, quantiles: Any, where: str, arg: str) -> None:
        qs = as_floats(quantiles, where, arg, "an iterable of numbers in [0, 1]")
        arr = (c_double * len(qs))(*qs)
        with self._lock:
            st = lib.llmlat_agg_set_quantiles(self._h, arr, len(qs))
        if st:
            self._fail(st, "llmlat_agg_set_quantiles", "quantiles %r" % (qs,))

    def set_buckets(self, metric: Name, bounds: Optional[Iterable[float]] = None) -> None:
        """The upper bounds (seconds, finite, strictly increasing, at most
        64; +Inf is implicit) of the histogram a "prometheus" report writes
        for a time metric ("ttft", "tpot", "itl", "icl", "e2e", "itl_max").
        None restores the default (the buckets vLLM's server uses)."""
        where = "Aggregator.set_buckets"
        metric_id = as_id(_METRIC_IDS, "metric", metric, where, "metric")
        if bounds is None:
            with self._lock:
                st = lib.llmlat_agg_set_buckets(self._h, metric_id, None, 0)
        else:
            bs = as_floats(bounds, where, "bounds", "None or an iterable of seconds")
            with self._lock:
                st = lib.llmlat_agg_set_buckets(self._h, metric_id, (c_double * len(bs))(*bs),
                                                len(bs))
        if st:
            self._fail(st, "llmlat_agg_set_buckets")

    # -- feeding

    def set_label(self, name: str, value: Optional[str]) -> None:
        """Sets a constant label (every exposition and report writes it):
        a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*, not "__..." and
        none of "le", "quantile", "version", "convention", "mode"), any
        str value; None or "" removes it. InvalidArgumentError otherwise.
        Kept by ``reset`` and serialized; ``merge`` keeps this aggregator's."""
        self._set_label(name, value, "Aggregator.set_label", "value")

    def _set_label(self, name: Any, value: Any, where: str, arg: str) -> None:
        name_b = as_text(name, where, "name", "a label name (str)")
        value_b = None if value is None else as_text(value, where, arg, "a str or None")
        with self._lock:
            st = lib.llmlat_agg_set_label(self._h, name_b, value_b or None)
        if st:
            self._fail(st, "llmlat_agg_set_label", "label %r=%r" % (name, value))

    @property
    def labels(self) -> Dict[str, str]:
        """The constant labels, name -> value, in name order."""
        n = c_size_t()
        out = {}
        with self._lock:  # the strings are the aggregator's: copied under the lock
            st = lib.llmlat_agg_label_count(self._h, byref(n))
            if st:
                self._fail(st, "llmlat_agg_label_count")
            for i in range(n.value):
                name, value = ctypes.c_char_p(), ctypes.c_char_p()
                st = lib.llmlat_agg_get_label(self._h, i, byref(name), byref(value))
                if st:
                    self._fail(st, "llmlat_agg_get_label")
                out[(name.value or b"").decode("utf-8")] = (value.value or b"").decode("utf-8")
        return out

    def add(self, request: Request) -> None:
        """Folds a finished or failed request in (the request is unchanged and
        may be reset right after). StateError if it has not ended."""
        if not isinstance(request, Request):
            raise type_error("Aggregator.add", "request", "an llmlat.Request", request)
        with self._lock, request._lock:
            st = lib.llmlat_agg_add(self._h, request._h)
        if st:
            if request._h is None:
                raise request._closed_error()
            self._fail(st, "llmlat_agg_add")

    def merge(self, other: "Aggregator") -> None:
        """Adds everything ``other`` holds (``other`` is unchanged).
        MismatchError for a different convention or mode, or bounded
        aggregators with different relative errors or SLOs."""
        if not isinstance(other, Aggregator):
            raise type_error("Aggregator.merge", "other", "an llmlat.Aggregator", other)
        with _all_locked(self, other):
            st = lib.llmlat_agg_merge(self._h, other._h)
        if st:
            if other._h is None:
                raise other._closed_error()
            self._fail(st, "llmlat_agg_merge", "cannot merge an aggregator into itself"
                       if other is self else None)

    def add_columns(self, starts: Any, ends: Any = None, ok: Any = None, offsets: Any = None,
                    times: Any = None, tokens: Any = None, input_tokens: Any = None,
                    output_tokens: Any = None, scheduled: Any = None) -> None:
        """Adds many requests given as columns in one C call, all or none
        (``llmlat_agg_add_columns``): request i starts at ``starts[i]``,
        has events ``offsets[i]`` .. ``offsets[i + 1] - 1`` of ``times``
        and ``tokens``, ends at ``ends[i]`` (default: its last event) and
        failed when ``ok[i]`` is false (default: all finished); a uint8
        ``ok[i]`` of 2 (``llmlat.COLUMN_CANCELLED``) is a request the client
        cancelled (``Request.cancel``).
        ``input_tokens``, ``output_tokens``: per request; an output count
        below 0 means none (N is then the sum of its tokens).
        ``tokens``: one per event, or an int for every event (default 1).
        ``scheduled``: each request's intended start (``Request.schedule``),
        at or before its start; ``llmlat.NO_SCHEDULE`` (None in a list) for
        one without (``llmlat_agg_add_columns_scheduled``).

        numpy arrays are handed to C without a copy when their dtypes are
        the C ones: int64 ``starts``, ``ends``, ``times``, counts and
        ``offsets`` (uint64 too), bool or uint8 ``ok``, uint32 ``tokens``.
        Errors: the C library's (OrderError, InvalidArgumentError, LimitError...), whose
        ``detail`` names the first request at fault; nothing is added then.
        """
        where = "Aggregator.add_columns"
        start_p, n = _column(starts, c_int64, "q", "ql", "int64", "starts")
        if n == 0:
            return
        cols = [start_p]
        for name, col, ctype, typecode, codes, kind in (
                ("ends", ends, c_int64, "q", "ql", "int64"),
                ("ok", ok, ctypes.c_uint8, "B", "?Bb", "uint8"),
                ("input_tokens", input_tokens, c_int64, "q", "ql", "int64"),
                ("output_tokens", output_tokens, c_int64, "q", "ql", "int64"),
                ("scheduled", _no_schedule_for_none(scheduled), c_int64, "q", "ql", "int64")):
            if col is None:
                cols.append(None)
                continue
            p, m = _column(col, ctype, typecode, codes, kind, name)
            if m != n:
                self._fail(_EINVAL, where, "%d starts but %d %s" % (n, m, name))
            cols.append(p)
        end_p, ok_p, in_p, out_p, sched_p = cols[1:]
        off_p = t_p = k_p = None
        if offsets is not None or times is not None:
            if offsets is None or times is None:
                self._fail(_EINVAL, where, "offsets and times go together")
            off_p, m = _column(offsets, c_uint64, "Q", "qlQL", "uint64", "offsets")
            if m != n + 1:
                self._fail(_EINVAL, where, "%d starts need %d offsets, not %d" % (n, n + 1, m))
            t_p, nt = _column(times, c_int64, "q", "ql", "int64", "times")
            k_p, nk = _token_array(1 if tokens is None else tokens, nt, where)
            if nk != nt:
                self._fail(_EINVAL, where, "%d times but %d token counts" % (nt, nk))
        bad = c_size_t(0)
        with self._lock:
            st = lib.llmlat_agg_add_columns_scheduled(self._h, n, start_p, end_p, ok_p, off_p,
                                                      t_p, k_p, in_p, out_p, sched_p, byref(bad))
        if st:
            at = bad.value
            self._fail(st, "llmlat_agg_add_columns_scheduled",
                       "request %d" % at if at != ctypes.c_size_t(-1).value else None)

    def unavailable(self, kind: str, name: Name) -> Optional[str]:
        """Why this aggregator's data cannot support a "metric", "rate" or
        "counter" (requests rebuilt from a tool's file may lack what it
        needs, docs/importers.md), or None when it can."""
        where = "Aggregator.unavailable"
        if not isinstance(kind, str):
            raise type_error(where, "kind", "a str (%s)" % ", ".join(_KIND_IDS), kind)
        kind_id = as_id(_KIND_IDS, "kind", kind, where, "kind")
        table = {"metric": _METRIC_IDS, "rate": _RATE_IDS, "counter": _COUNTER_IDS}[kind]
        reason = ctypes.c_char_p()
        with self._lock:
            st = lib.llmlat_agg_unavailable(self._h, kind_id, as_id(table, kind, name, where, "name"),
                                            byref(reason))
        if st and st != _EUNDEFINED:
            self._fail(st, "llmlat_agg_unavailable")
        return reason.value.decode("utf-8") if reason.value else None

    # -- queries

    def stat(self, metric: Name, stat: Name = "mean") -> Optional[float]:
        """A statistic ("count", "mean", "std", "min", "max", "median",
        "sum") of a metric's samples, or None when undefined (empty set,
        unless the convention reports 0.0 as vLLM and SGLang do). "count" is
        an int; "sum" is exact, never decreasing, 0.0 for an empty set."""
        out = c_double()
        where = "Aggregator.stat"
        stat_id = as_id(_STAT_IDS, "stat", stat, where, "stat")
        with self._lock:
            st = lib.llmlat_agg_stat(self._h, as_id(_METRIC_IDS, "metric", metric, where, "metric"),
                                     stat_id,
                                     byref(out))
        if st:
            if st == _EUNDEFINED:
                return None
            self._fail(st, "llmlat_agg_stat")
        if stat_id == _STAT_IDS["count"]:
            return int(out.value)
        return out.value

    def quantile(self, metric: Name, q: float) -> Optional[float]:
        """The q-quantile (q in [0, 1]) of a metric's samples: in exact mode
        the same float as ``numpy.quantile(samples, q)``, so
        ``quantile(m, p / 100)`` is ``numpy.percentile(samples, p)`` (numpy
        divides p by 100 itself). None when the set is empty (unless the
        convention's placeholder applies). Bounded mode: within the relative
        error."""
        out = c_double()
        where = "Aggregator.quantile"
        with self._lock:
            st = lib.llmlat_agg_quantile(self._h, as_id(_METRIC_IDS, "metric", metric, where, "metric"),
                                         as_float(q, where, "q", "a number in [0, 1]"),
                                         byref(out))
        if st:
            if st == _EUNDEFINED:
                return None
            self._fail(st, "llmlat_agg_quantile", "q = %r" % (q,))
        return out.value

    def quantiles(self, metric: Name, qs: Iterable[float]) -> List[Optional[float]]:
        """Several quantiles of one metric in one C call (at most 32; about
        the cost of one in exact mode): the same values as ``quantile`` for
        each q. Every value is None when the set is empty."""
        where = "Aggregator.quantiles"
        metric_id = as_id(_METRIC_IDS, "metric", metric, where, "metric")
        qv = as_floats(qs, where, "qs", "an iterable of numbers in [0, 1]")
        n = len(qv)
        out = (c_double * max(n, 1))()
        with self._lock:
            st = lib.llmlat_agg_quantiles(self._h, metric_id,
                                          (c_double * max(n, 1))(*qv), n, out)
        if st:
            if st == _EUNDEFINED:
                return [None] * n
            self._fail(st, "llmlat_agg_quantiles", "qs = %r" % (qv,))
        return list(out[:n])

    def rate(self, rate: Name) -> Optional[float]:
        """A system rate per second: "requests", "output_tokens",
        "total_tokens", "goodput" (needs an SLO), "peak_output_tokens".
        None when undefined (no duration, no SLO for goodput...)."""
        out = c_double()
        with self._lock:
            st = lib.llmlat_agg_rate(self._h, as_id(_RATE_IDS, "rate", rate, "Aggregator.rate", "rate"), byref(out))
        if st:
            if st == _EUNDEFINED:
                return None
            self._fail(st, "llmlat_agg_rate")
        return out.value

    def counter(self, counter: Name) -> Optional[int]:
        """A counter: "completed", "failed", "tpot_undefined", "good" (None
        without an SLO), "input_tokens", "output_tokens",
        "peak_concurrency", "memory_bytes"."""
        out = c_uint64()
        with self._lock:
            st = lib.llmlat_agg_counter(
                self._h, as_id(_COUNTER_IDS, "counter", counter, "Aggregator.counter", "counter"),
                byref(out))
        if st:
            if st == _EUNDEFINED:
                return None
            self._fail(st, "llmlat_agg_counter")
        return out.value

    def buckets(self, metric: Name) -> Optional["NativeBuckets"]:
        """A metric's native-histogram buckets (``llmlat_agg_buckets``): for
        exporters (OpenTelemetry exponential histograms, a database), in
        either mode. Bucket i covers (base**(i-1), base**i], base =
        2**(2**-schema), in the metric's unit; counts[j] is bucket offset + j.
        None for a metric the data lack (``unavailable``)."""
        metric_id = as_id(_METRIC_IDS, "metric", metric, "Aggregator.buckets", "metric")
        schema, offset = c_int32(), c_int32()
        zt, zc, n = c_double(), c_uint64(), c_size_t()
        counts = None
        cap = 0
        with self._lock:  # sizing and copying see the same buckets
            while True:
                st = lib.llmlat_agg_buckets(self._h, metric_id, byref(schema), byref(zt),
                                            byref(zc), byref(offset), counts, cap, byref(n))
                if st != _ENOSPC:
                    break
                cap = n.value
                counts = (c_uint64 * cap)()
        if st == _EUNDEFINED:
            return None
        if st:
            self._fail(st, "llmlat_agg_buckets")
        return NativeBuckets(schema.value, zt.value, zc.value, offset.value,
                             list(counts[:n.value]) if counts else [])

    # -- output

    def _buffer_call(self, fn: Any, where: str, *args: Any) -> bytes:
        size = c_size_t(0)
        with self._lock:
            st = fn(self._h, *args, None, 0, byref(size))
            while st == _ENOSPC:
                buf = ctypes.create_string_buffer(size.value)
                st = fn(self._h, *args, buf, size.value, byref(size))
                if st == 0:
                    return buf.raw[:size.value]
        if st:
            self._fail(st, where)
        return b""

    def report_bytes(self, format: Name = "text") -> bytes:
        """The report in any format, as bytes: the text formats' UTF-8, or
        "prometheus_protobuf"'s delimited MetricFamily messages."""
        return self._report_bytes(format, "Aggregator.report_bytes")

    def _report_bytes(self, format: Name, where: str) -> bytes:
        """The report, made once: streamed by ``llmlat_agg_report_write``
        into a list of pieces (asking for the size first would make it
        twice)."""
        fmt = as_id(_FORMAT_IDS, "format", format, where, "format")
        with self._lock:
            st, out = _stream(lib.llmlat_agg_report_write, self._h, fmt)
        if st:
            self._fail(st, "llmlat_agg_report_write")
        return out

    def report(self, format: Name = "text") -> str:
        """The report as text: "text" (a readable table), "json"
        (docs/report-json.md), "prometheus" (exposition format 0.0.4),
        "openmetrics" (docs/prometheus.md), "html", "chrome_trace",
        "requests_csv" or "requests_jsonl" (docs/report-formats.md). The
        binary "prometheus_protobuf" is ``report_bytes``'s."""
        if format in (_FORMAT_IDS["prometheus_protobuf"], "prometheus_protobuf"):
            raise InvalidArgumentError(where="Aggregator.report",
                                       detail="format: prometheus_protobuf is binary: use "
                                       "report_bytes()")
        return self._report_bytes(format, "Aggregator.report").decode("utf-8")

    def summary(self) -> Dict[str, Any]:
        """The JSON report as a dict (schema: docs/report-json.md): times in
        seconds, undefined values None."""
        result: Dict[str, Any] = json.loads(self.report("json"))
        return result

    def to_html(self) -> str:
        """The HTML report: one self-contained page (inline SVG charts, no
        script, nothing fetched), as ``llmlat report --format html``."""
        return self.report("html")

    def chrome_trace(self) -> str:
        """The requests as Chrome / Perfetto trace-event JSON (exact mode),
        as ``llmlat report --format chrome-trace``."""
        return self.report("chrome_trace")

    def requests(self) -> List[Dict[str, Any]]:
        """One dict per request kept (exact mode), in the order added: index,
        start_s, end_s, ttft_s, tpot_s, e2e_s, itl_max_s, output_tokens,
        input_tokens, scheduled_s (its intended start), dispatch_delay_s,
        scheduled_ttft_s, scheduled_e2e_s (None when the request has no
        such value), success, under the aggregator's convention.
        UndefinedError in bounded mode."""
        return _analysis.requests_table(self)

    def requests_array(self) -> Any:
        """The same table as a numpy structured array (NaN for None)."""
        return _analysis.requests_array(self)

    # -- parts of the run and comparisons

    def span(self) -> Optional[Tuple[int, int]]:
        """(earliest start, latest end) in ns of the requests kept, or None
        (no request, or bounded mode, which keeps none)."""
        return _analysis.span(self)

    def add_window(self, src: "Aggregator", from_ns: int, to_ns: int,
                   rule: str = "start") -> None:
        """Adds src's requests that the rule keeps in the window from_ns ..
        to_ns ("start": from <= start < to; "end": from <= end < to;
        "inside": from <= start and end <= to), computed under this
        aggregator's convention and settings. All or nothing.
        UndefinedError when src keeps no requests (bounded mode)."""
        _analysis.add_window(self, src, as_i64(from_ns, "Aggregator.add_window", "from_ns"),
                             as_i64(to_ns, "Aggregator.add_window", "to_ns"), rule)

    def window(self, start: Optional[float] = None, end: Optional[float] = None, *,
               warmup: float = 0.0, cooldown: float = 0.0) -> "Aggregator":
        """A new aggregator (set up as this one, its duration derived) of
        the requests wholly inside the window, as --window START:END,
        --warmup and --cooldown select them: seconds from the first start;
        warm-up drops the requests that start in its first seconds,
        cool-down those that end in the last seconds before the latest end
        (docs/cli.md)."""
        out = self.empty_like()
        out.set_param("duration", 0)
        bounds = self.span()
        if bounds is not None:
            lo, hi = _analysis.window_bounds(bounds[0], bounds[1], start, end, warmup, cooldown)
            if lo <= hi:
                out.add_window(self, lo, hi, "inside")
        elif self.counter("completed") or self.counter("failed"):
            out.close()
            self._fail(_EUNDEFINED, "window", "the requests' times are not kept (bounded mode, "
                       "per-request values only, or relative start times)")
        return out

    def slices(self, seconds: float, start: Optional[float] = None, end: Optional[float] = None,
               *, warmup: float = 0.0, cooldown: float = 0.0) -> List["Aggregator"]:
        """Consecutive slices of the window (see ``window``), each a new
        aggregator of the requests that start in it, from the window's
        start on, as AIPerf's time slices: --slice SECONDS."""
        width = _analysis._seconds_ns(seconds, "slice")
        if width <= 0:
            raise InvalidArgumentError(where="slices", detail="the width must be > 0")
        kept = self.window(start, end, warmup=warmup, cooldown=cooldown)
        bounds = self.span()
        if bounds is None:
            return []
        lo, hi = _analysis.window_bounds(bounds[0], bounds[1], start, end, warmup, cooldown)
        inner = kept.span()
        out = []
        for i in range(_analysis.slice_count(lo, inner[1] if inner else lo, width)):
            part = kept.empty_like()
            part.add_window(kept, lo + i * width, lo + (i + 1) * width, "start")
            out.append(part)
        kept.close()
        return out

    def compare(self, candidate: "Aggregator", resamples: int = 1000,
                seed: int = 0) -> "_analysis.Comparison":
        """This run (the base) and candidate side by side, with bootstrap
        intervals of the differences (``llmlat_compare_new``): same
        convention required; intervals need both to keep their requests
        (exact mode). The same seed gives the same result."""
        return _analysis.Comparison(self, candidate, resamples, seed)

    def to_bytes(self) -> bytes:
        """The aggregator's state in the documented byte format
        (docs/format.md); ``Aggregator.from_bytes`` reads it back."""
        return self._buffer_call(lib.llmlat_agg_serialize, "llmlat_agg_serialize")

    def __repr__(self) -> str:
        if self._h is None:
            return "<llmlat.Aggregator (closed)>"
        return "<llmlat.Aggregator convention=%r mode=%r completed=%d failed=%d>" % (
            self.convention, self.mode, self.counter("completed"), self.counter("failed"))


class NativeBuckets(NamedTuple):
    """One metric's native-histogram buckets (``Aggregator.buckets``)."""

    schema: int           # base = 2 ** (2 ** -schema)
    zero_threshold: float  # samples at or below it are in zero_count
    zero_count: int
    offset: int           # counts[j] is bucket offset + j
    counts: List[int]


def _stream(call: Any, *args: Any) -> Tuple[int, bytes]:
    """The status and the bytes of a streaming call (``..._write(..., fn,
    user)``); an exception of the sink is raised."""
    pieces: List[bytes] = []
    raised: List[BaseException] = []

    def write(user: Any, data: int, size: int) -> int:
        try:
            pieces.append(ctypes.string_at(data, size))
            return 0
        except BaseException as exc:  # an exception must not cross into C
            raised.append(exc)
            return _ENOMEM

    st = call(*args, WRITE_FN(write), None)
    if raised:
        raise raised[0]
    return st, b"".join(pieces)


def expose(aggregators: Sequence[Aggregator], format: Name = "prometheus",
           names: Name = "llmlat") -> bytes:
    """One Prometheus exposition of several aggregators (``llmlat_expose``):
    each family's metadata once, one series per aggregator, labelled with its
    constant labels. ``format``: "prometheus" (text 0.0.4), "openmetrics" or
    "prometheus_protobuf" (native histograms); serve it with
    ``content_type(format)``. ``names``: the naming scheme
    (``llmlat_expose_names``, docs/prometheus.md): "llmlat" (llmlat's own
    series), or the series the dashboards of "vllm", "sglang" or "otel"
    (the OpenTelemetry GenAI conventions) read. InvalidArgumentError for
    two aggregators with the same labels (merge them first), or labels the
    scheme's names make clash ("model" and "model_name" under "vllm")."""
    where = "expose"
    if isinstance(aggregators, (str, bytes, Aggregator)) or not hasattr(aggregators, "__iter__"):
        raise type_error(where, "aggregators", "a sequence of llmlat.Aggregator", aggregators)
    aggs = list(aggregators)
    for i, a in enumerate(aggs):
        if not isinstance(a, Aggregator):
            raise type_error(where, "aggregators[%d]" % i, "an llmlat.Aggregator", a)
    fmt = as_id(_FORMAT_IDS, "format", format, where, "format")
    scheme = as_id(_NAMES_IDS, "naming scheme", names, where, "names")
    # aggs holds the aggregators (and so their handles) until the call returns
    with _all_locked(*aggs):  # none can be closed or changed meanwhile
        for a in aggs:
            if a._h is None:
                raise a._closed_error()
        handles = (AggHandle * max(len(aggs), 1))(*[a._h for a in aggs])
        st, out = _stream(lib.llmlat_expose_write_names, handles, len(aggs), fmt, scheme)
    if st:
        _raise(st, "llmlat_expose_write_names")
    return out


def content_type(format: Name) -> str:
    """The HTTP Content-Type of a format's bytes."""
    ct = lib.llmlat_format_content_type(
        as_id(_FORMAT_IDS, "format", format, "content_type", "format"))
    if ct is None:
        raise InvalidArgumentError(where="content_type", detail="format: unknown format %r"
                                   % (format,))
    return ct.decode("ascii")
