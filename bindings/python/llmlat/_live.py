"""LiveRecorder and Window: metrics of a running server (internal module;
import everything from ``llmlat``). docs/threads.md has the guarantees."""

from __future__ import annotations

import threading
import weakref
from ctypes import byref, c_int32
from typing import Any, List, NoReturn, Optional

from ._args import as_i64, as_id
from ._core import Aggregator, Name, Request, _all_locked, _raise
from ._errors import OutOfMemoryError
from ._native import AggHandle, lib

__all__ = ["LiveRecorder", "Window", "SNAPSHOTS"]

_SNAPSHOT_IDS = {"cumulative": 1, "interval": 2}
SNAPSHOTS = tuple(_SNAPSHOT_IDS)


def _adopt(h: Any, where: str) -> Aggregator:
    """An Aggregator owning the C aggregator h (NULL: out of memory)."""
    if not h:
        raise OutOfMemoryError(where=where)
    agg = Aggregator.__new__(Aggregator)
    agg._own(h, lib.llmlat_agg_free)
    return agg


def _like(like: Optional[Aggregator], kwargs: Any, mode: str) -> Aggregator:
    """The aggregator whose settings a live object takes: ``like``, or one
    made from ``kwargs`` (Aggregator's arguments, ``mode`` by default)."""
    if like is not None:
        if kwargs:
            raise TypeError("give either like or Aggregator arguments, not both")
        if not isinstance(like, Aggregator):
            raise TypeError("like must be an llmlat.Aggregator, not %s" % type(like).__name__)
        return like
    kwargs.setdefault("mode", mode)
    return Aggregator(**kwargs)


def _seconds_to_ns(seconds: float, where: str, arg: str) -> int:
    return as_i64(round(float(seconds) * 1e9), where, arg)


# ------------------------------------------------------------ LiveRecorder


class LiveRecorder:
    """Many threads add finished requests while another takes snapshots
    (``llmlat_live``, the pattern of HdrHistogram's interval recorder).

    ``LiveRecorder(like)`` takes the settings of the Aggregator ``like``
    (convention, mode, relative error, SLOs, ...); ``LiveRecorder(**kw)``
    makes them from Aggregator's arguments (bounded mode by default).

    ``add(request)`` may be called from any number of threads at once: each
    call borrows one of the recorder's C writer handles (a new one only
    when all are in use), so writers never wait for each other nor for a
    snapshot. ``snapshot("cumulative")`` returns an Aggregator of
    everything added so far, ``snapshot("interval")`` of what was added
    since the previous interval snapshot: every accepted request is in
    exactly one interval. Snapshots take turns (a lock); ``close()`` waits
    for the adds and the snapshot in progress.
    """

    __slots__ = ("_h", "_finalizer", "_template", "_pool", "_made", "_busy", "_state",
                 "_snap_lock", "__weakref__")

    def __init__(self, like: Optional[Aggregator] = None, **kwargs: Any) -> None:
        src = _like(like, kwargs, "bounded")
        try:
            with src._lock:
                h = lib.llmlat_live_new(src._h)
                t = lib.llmlat_agg_new_like(src._h)
            if not src._h:
                raise src._closed_error()
        finally:
            if like is None:
                src.close()
        if not h or not t:
            lib.llmlat_live_free(h)
            lib.llmlat_agg_free(t)
            raise OutOfMemoryError(where="llmlat_live_new")
        self._h = h
        self._finalizer = weakref.finalize(self, lib.llmlat_live_free, h)  # writers too
        self._template = _adopt(t, "llmlat_agg_new_like")  # settings of snapshots
        self._pool: List[Any] = []   # writer handles not in use
        self._made = 0               # writer handles made
        self._busy = 0               # adds in progress
        self._state = threading.Condition(threading.Lock())
        self._snap_lock = threading.Lock()

    def add(self, request: Request) -> None:
        """Folds a finished or failed request in, from any thread (the
        request is unchanged). StateError if it has not ended."""
        if not isinstance(request, Request):
            raise TypeError("add needs an llmlat.Request, not %s" % type(request).__name__)
        with self._state:
            if self._h is None:
                raise ValueError("operation on a closed llmlat.LiveRecorder")
            if self._pool:
                w = self._pool.pop()
            else:
                w = lib.llmlat_live_writer_new(self._h)
                if not w:
                    raise OutOfMemoryError(where="llmlat_live_writer_new")
                self._made += 1
            self._busy += 1
        try:
            with request._lock:
                st = lib.llmlat_live_add(w, request._h)
        finally:
            with self._state:
                self._pool.append(w)
                self._busy -= 1
                if self._busy == 0:
                    self._state.notify_all()
        if st:
            if request._h is None:
                raise request._closed_error()
            _raise(st, "llmlat_live_add")

    def snapshot(self, kind: Name = "cumulative", into: Optional[Aggregator] = None) -> Aggregator:
        """An Aggregator holding everything added so far ("cumulative") or
        what was added since the last interval snapshot ("interval"). With
        ``into`` (an aggregator of the same settings, e.g. a previous
        snapshot), its data is replaced and it is returned, so nothing is
        allocated. MismatchError when ``into`` does not merge with the
        recorder's aggregators."""
        kind_id = as_id(_SNAPSHOT_IDS, "snapshot kind", kind, "LiveRecorder.snapshot", "kind")
        if self._h is None:
            raise ValueError("operation on a closed llmlat.LiveRecorder")
        out = into
        if out is None:
            with self._template._lock:
                out = _adopt(lib.llmlat_agg_new_like(self._template._h), "llmlat_agg_new_like")
        elif not isinstance(out, Aggregator):
            raise TypeError("into must be an llmlat.Aggregator, not %s" % type(out).__name__)
        with self._snap_lock, out._lock:
            if self._h is None:
                raise ValueError("operation on a closed llmlat.LiveRecorder")
            st = lib.llmlat_live_snapshot(self._h, kind_id, out._h)
        if st:
            if out._h is None:
                raise out._closed_error()
            _raise(st, "llmlat_live_snapshot")
        return out

    def close(self) -> None:
        """Frees the C recorder (idempotent) once the adds and the snapshot
        in progress are done; later calls raise ValueError."""
        with self._state:
            while self._busy:
                self._state.wait()
            with self._snap_lock:
                self._finalizer()  # llmlat_live_free: its writer handles too
                self._h = None
                self._pool.clear()
        self._template.close()

    @property
    def closed(self) -> bool:
        return self._h is None

    def __enter__(self) -> "LiveRecorder":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<llmlat.LiveRecorder%s, %d writer handles>" % (
            " (closed)" if self._h is None else "", self._made)


# ------------------------------------------------------------------ Window


class WindowView(Aggregator):
    """A window's aggregator (``llmlat_window_view``): every query of
    Aggregator, over the window, read-only. It is valid while its window is
    open, and each query holds the window's lock."""

    __slots__ = ("_window",)

    def __init__(self, window: "Window") -> None:  # the window owns the C object
        self._window = window

    @property  # type: ignore[override]
    def _h(self) -> Any:
        return self._window._view_h

    @property  # type: ignore[override]
    def _lock(self) -> Any:
        return self._window._lock

    def _read_only(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("the view of an llmlat.Window is read-only")

    add = merge = reset = set_param = set_quantiles = set_buckets = _read_only  # type: ignore

    def close(self) -> None:
        """Does nothing: the view is the window's (close the window)."""

    def _closed_error(self) -> ValueError:
        return ValueError("operation on the view of a closed llmlat.Window")


class Window:
    """A sliding window (``llmlat_window``): the requests that ended in the
    last ``width`` seconds, in steps of ``step`` seconds, in fixed memory.

    ``Window(60, 5, like)`` takes the settings of the bounded Aggregator
    ``like``; ``Window(60, 5, **kw)`` makes them from Aggregator's
    arguments (bounded mode). Time is what the caller passes, int ns on the
    clock of the requests: each request's end time, ``merge``'s and
    ``advance``'s times; the window's clock is the latest of them. ``view``
    is an Aggregator of the window as of that clock: ``advance(now)``
    before reading it at time ``now``. Safe to share between threads (a
    lock per window, which the view's queries take too).
    """

    __slots__ = ("_h", "_finalizer", "_view_h", "_lock", "_view", "__weakref__")

    def __init__(self, width: float, step: float, like: Optional[Aggregator] = None,
                 **kwargs: Any) -> None:
        width_ns = _seconds_to_ns(width, "Window", "width")
        step_ns = _seconds_to_ns(step, "Window", "step")
        src = _like(like, kwargs, "bounded")
        status = c_int32(0)
        try:
            with src._lock:
                h = lib.llmlat_window_new(src._h, width_ns, step_ns, byref(status))
        finally:
            if like is None:
                src.close()
        if not h:
            _raise(status.value or -1, "llmlat_window_new",
                   "width %r s, step %r s, mode %r" % (width, step, src.mode
                                                       if src._h else "closed"))
        view = AggHandle()
        lib.llmlat_window_view(h, byref(view))
        self._h = h
        self._finalizer = weakref.finalize(self, lib.llmlat_window_free, h)
        self._view_h = view
        self._lock = threading.Lock()
        self._view = WindowView(self)

    def _check(self, st: int, where: str) -> None:
        if st:
            if self._h is None:
                raise ValueError("operation on a closed llmlat.Window")
            _raise(st, where)

    def add(self, request: Request) -> None:
        """Counts a finished or failed request in the step of its end time
        (moving the clock there if later). OrderError if it ended before
        the window's oldest step; StateError if it has not ended."""
        if not isinstance(request, Request):
            raise TypeError("add needs an llmlat.Request, not %s" % type(request).__name__)
        with self._lock, request._lock:
            st = lib.llmlat_window_add(self._h, request._h)
        if st and request._h is None:
            raise request._closed_error()
        self._check(st, "llmlat_window_add")

    def merge(self, agg: Aggregator, t_ns: int) -> None:
        """Counts everything ``agg`` holds as ended at ``t_ns`` (e.g. an
        interval snapshot of a LiveRecorder taken then)."""
        if not isinstance(agg, Aggregator):
            raise TypeError("merge needs an llmlat.Aggregator, not %s" % type(agg).__name__)
        t = as_i64(t_ns, "Window.merge", "t_ns")
        with _all_locked(self, agg):  # type: ignore[arg-type]
            st = lib.llmlat_window_merge(self._h, agg._h, t)
        self._check(st, "llmlat_window_merge")

    def advance(self, now_ns: int) -> None:
        """Moves the clock to ``now_ns``, dropping the steps that leave the
        window. OrderError before the clock (the past is not kept)."""
        t = as_i64(now_ns, "Window.advance", "now_ns")
        with self._lock:
            st = lib.llmlat_window_advance(self._h, t)
        self._check(st, "llmlat_window_advance")

    def reset(self) -> None:
        """Empties the window and forgets its clock."""
        with self._lock:
            st = lib.llmlat_window_reset(self._h)
        self._check(st, "llmlat_window_reset")

    @property
    def view(self) -> WindowView:
        """The window as a read-only Aggregator (stat, quantile, rate,
        counter, report, to_bytes, merging into another aggregator)."""
        return self._view

    def close(self) -> None:
        """Frees the window and its view (idempotent), after any call in
        progress on it."""
        with self._lock:
            self._finalizer()
            self._h = None
            self._view_h = None

    @property
    def closed(self) -> bool:
        return self._h is None

    def __enter__(self) -> "Window":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<llmlat.Window%s>" % (" (closed)" if self._h is None else "")
