"""Reading traces and other tools' result files (internal module; import
``read_trace`` from ``llmlat``).

The reading is the C library's (``llmlat_reader_*``, docs/importers.md):
the same grammar, exact decimal-to-ns conversion, rejection rule and
``name:line:column: what is wrong`` messages as the ``llmlat`` command.
Python only reads the file, in 1 MiB blocks straight into the reader's
buffer, and wraps what comes out.
"""

from __future__ import annotations

import ctypes
import os
import threading
import weakref
from array import array
from ctypes import (POINTER, byref, c_double, c_int32, c_int64, c_size_t, c_uint32, c_uint64,
                    c_void_p)
from typing import IO, Any, Iterator, List, Optional, Union

from ._args import as_id, as_int, as_text, type_error
from ._core import Aggregator, Request
from ._errors import Error, FormatError, InvalidArgumentError, OutOfMemoryError
from ._native import lib, name_table

__all__ = ["read_trace", "TraceReader", "TraceRequest", "TraceError", "INPUTS"]

#: Input format names, from the library (``llmlat_input_name``): "auto",
#: "trace", "vllm", "aiperf", "genai-perf", "sglang", "llmperf", "guidellm",
#: "inference-perf".
_INPUT_IDS = name_table(lib.llmlat_input_name, 0)
INPUTS = tuple(_INPUT_IDS)

_READ_REQUEST, _READ_REJECTED, _READ_MORE, _READ_END = 1, 2, 3, 4
_COUNT_REQUESTS, _COUNT_REJECTED, _COUNT_RUN, _COUNT_RUNS = 1, 2, 3, 4
_EFORMAT = -6
_BLOCK = 1 << 20
_STATE_FAILED = 3

Source = Union[str, "os.PathLike[str]", IO[bytes], IO[str]]


class TraceError(FormatError):
    """A malformed input. ``str()`` is the reader's message, one line as the
    ``llmlat`` command prints it: ``"name:line:column: what is wrong"``."""

    def __init__(self, message: str) -> None:
        super().__init__(where="llmlat_reader_next", detail=message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class TraceRequest:
    """One request as the input has it, with its recorder.

    ``start``, ``end``: int ns; ``scheduled``: its intended start (int ns)
    or None; ``ok``: False for a failure; ``times`` and
    ``tokens``: the events, as ``array('q')`` and ``array('I')`` (numpy
    reads them without a copy: ``numpy.frombuffer(r.times, numpy.int64)``);
    ``input_tokens``; ``output_tokens``: the usage count or None; ``id``
    (str, "" when none), ``index`` (1-based), ``line``, ``column``;
    ``lacks``: what a request rebuilt from a tool's file lacks
    (``LLMLAT_LACKS_*`` bits, docs/importers.md). ``request`` is the
    ``llmlat.Request``; ``add_to(agg)`` adds it.
    """

    __slots__ = ("request", "id", "index", "line", "column", "start", "end", "scheduled", "ok",
                 "input_tokens", "output_tokens", "lacks", "_times", "_tokens")

    def __init__(self, request: Request, reader: Any) -> None:
        h = request._h
        self.request = request
        self.id: str = (lib.llmlat_reader_request_id(reader) or b"").decode("utf-8", "replace")
        index, line, column = c_uint64(), c_uint64(), c_uint64()
        lib.llmlat_reader_request_position(reader, byref(index), byref(line), byref(column))
        self.index, self.line, self.column = index.value, line.value, column.value
        start, end, state = c_int64(), c_int64(), c_int32()
        lib.llmlat_request_get_start(h, byref(start))
        lib.llmlat_request_get_end(h, byref(end))
        lib.llmlat_request_get_state(h, byref(state))
        self.start: int = start.value
        self.end: int = end.value
        self.ok: bool = state.value != _STATE_FAILED
        self.scheduled: Optional[int] = request.scheduled
        n = c_uint64()
        lib.llmlat_request_get_input_tokens(h, byref(n))
        self.input_tokens: int = n.value
        out = c_uint64()
        has_out = lib.llmlat_request_get_output_tokens(h, byref(out)) == 0
        self.output_tokens: Optional[int] = out.value if has_out else None
        lacks = c_uint32()
        lib.llmlat_request_get_lacks(h, byref(lacks))
        self.lacks: int = lacks.value
        t, k, count = POINTER(c_int64)(), POINTER(c_uint32)(), c_size_t()
        lib.llmlat_request_get_events(h, byref(t), byref(k), byref(count))
        self._times = array("q")
        self._tokens = array("I")
        if count.value:
            self._times.frombytes(ctypes.string_at(t, count.value * 8))
            self._tokens.frombytes(ctypes.string_at(k, count.value * 4))

    @property
    def times(self) -> "array[int]":
        """The events' times, int ns."""
        return self._times

    @property
    def tokens(self) -> "array[int]":
        """The events' token counts."""
        return self._tokens

    def add_to(self, agg: Aggregator) -> None:
        """Adds this request to ``agg`` (``Aggregator.add``)."""
        agg.add(self.request)

    def __repr__(self) -> str:
        return ("<llmlat.TraceRequest %d%s start=%d events=%d %s>"
                % (self.index, " id=%r" % self.id if self.id else "", self.start,
                   len(self._times), "ok" if self.ok else "failed"))


class TraceReader:
    """The requests of an input, read by the C reader (``read_trace``).

    Iterating yields a :class:`TraceRequest` per request, in order; a
    request whose times go backwards (or with events after its end) is not
    yielded but rejected: ``rejected`` counts them and ``rejections`` holds
    their messages. A malformed input raises :class:`TraceError` (the
    requests before it were yielded). ``add_to(agg)`` folds the rest of the
    input into an aggregator in C, which is much faster than iterating.

    Once read: ``format`` (the format read, detected unless given),
    ``duration`` (the benchmark duration the input gives, or None),
    ``requests_read``, ``rejected``, ``run`` and ``runs`` (of a file with
    several runs, else None).

    Safe to share between threads as every object of the binding is: each
    step of the reading holds the reader's lock (and ``add_to`` the
    aggregator's too), so two threads iterating one reader each get
    different requests.
    """

    def __init__(self, source: Source, format: str = "auto", run: Optional[int] = None,
                 name: Optional[str] = None) -> None:
        where = "read_trace"
        input_id = as_id(_INPUT_IDS, "input format", format, where, "format")
        if name is not None:
            as_text(name, where, "name", "None or a str")
        if run is not None:
            run = _run_number(run, where)
        if isinstance(source, (str, bytes)) or hasattr(source, "__fspath__"):
            path = os.fsdecode(source)  # type: ignore[arg-type]
            self._file: Any = open(path, "rb")
            self._owns_file = True
            default_name = path
        elif callable(getattr(source, "readinto", None)) or callable(getattr(source, "read", None)):
            self._file = source
            self._owns_file = False
            default_name = getattr(source, "name", "<input>")
            if not isinstance(default_name, str):
                default_name = "<input>"
        else:
            raise type_error(where, "source", "a path or a file object (binary, or text in "
                             "UTF-8)", source)
        self.name: str = name if name is not None else default_name
        self._lock = threading.RLock()  # _feed and _fail run inside a step
        h = lib.llmlat_reader_new(input_id, self.name.encode("utf-8", "replace"))
        if not h:
            if self._owns_file:
                self._file.close()
            if lib.llmlat_input_name(input_id) is None:
                raise Error.for_status(-1, "llmlat_reader_new", "input format %r" % (format,))
            raise OutOfMemoryError(where="llmlat_reader_new")
        self._h = h
        self._finalizer = weakref.finalize(self, _release, h,
                                           self._file if self._owns_file else None)
        if run is not None:
            st = lib.llmlat_reader_set_run(h, run)
            if st:
                self.close()
                raise Error.for_status(st, "llmlat_reader_set_run")
        self.rejections: List[str] = []
        self._ended = False

    # -- life cycle

    def close(self) -> None:
        """Frees the C reader and closes the file it opened (idempotent)."""
        with self._lock:
            self._finalizer()
            self._h = None

    def __enter__(self) -> "TraceReader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _handle(self) -> Any:
        if self._h is None:
            raise ValueError("operation on a closed llmlat.TraceReader")
        return self._h

    # -- reading

    def _feed(self) -> None:
        """The next block of the file into the reader, or its end."""
        h = self._handle()
        if self._ended:
            return
        readinto = getattr(self._file, "readinto", None)
        if readinto is not None:
            buf, cap = c_void_p(), c_size_t()
            st = lib.llmlat_reader_space(h, _BLOCK, byref(buf), byref(cap))
            if st:
                self._fail(st, "llmlat_reader_space")
            room = (ctypes.c_char * _BLOCK).from_address(buf.value)  # type: ignore[arg-type]
            n = readinto(memoryview(room).cast("B"))
            if n:
                st = lib.llmlat_reader_commit(h, n)
                if st:
                    self._fail(st, "llmlat_reader_commit")
                return
        else:
            data = self._file.read(_BLOCK)
            if isinstance(data, str):
                data = data.encode("utf-8")
            if data:
                st = lib.llmlat_reader_feed(h, data, len(data))
                if st:
                    self._fail(st, "llmlat_reader_feed")
                return
        self._ended = True
        if self._owns_file:
            self._file.close()  # every byte is in the reader
        st = lib.llmlat_reader_end(h)
        if st:
            self._fail(st, "llmlat_reader_end")

    def _fail(self, status: int, where: str) -> None:
        if self._owns_file:
            self._file.close()  # the reading is over
        if status == _EFORMAT:
            raise TraceError(lib.llmlat_reader_message(self._h).decode("utf-8", "replace"))
        message = lib.llmlat_reader_message(self._h).decode("utf-8", "replace")
        raise Error.for_status(status, where, message or None)

    def _rejected(self) -> None:
        self.rejections.append(lib.llmlat_reader_message(self._h).decode("utf-8", "replace"))

    def __iter__(self) -> Iterator[TraceRequest]:
        what = c_int32()
        while True:
            with self._lock:
                h = self._handle()
                request = Request()
                st = lib.llmlat_reader_next(h, request._h, byref(what))
                if st:
                    request.close()
                    self._fail(st, "llmlat_reader_next")
                got = TraceRequest(request, h) if what.value == _READ_REQUEST else None
                if got is None:
                    request.close()
                    if what.value == _READ_REJECTED:
                        self._rejected()
                    elif what.value == _READ_MORE:
                        self._feed()
                    else:
                        return
            if got is not None:
                yield got  # not holding the lock

    def add_to(self, agg: Aggregator) -> "TraceReader":
        """Folds every request left into ``agg`` in C (a rejected one is
        counted and its message kept, as when iterating). Returns self."""
        if not isinstance(agg, Aggregator):
            raise type_error("TraceReader.add_to", "agg", "an llmlat.Aggregator", agg)
        what = c_int32()
        while True:
            with self._lock:
                with agg._lock:
                    st = lib.llmlat_reader_add_to(self._handle(), agg._h, byref(what))
                if st:
                    if agg._h is None:
                        raise agg._closed_error()
                    self._fail(st, "llmlat_reader_add_to")
                if what.value == _READ_REJECTED:
                    self._rejected()
                elif what.value == _READ_MORE:
                    self._feed()
                else:
                    return self

    # -- what was read

    def _counter(self, which: int) -> Optional[int]:
        out = c_uint64()
        with self._lock:
            st = lib.llmlat_reader_counter(self._handle(), which, byref(out))
        return out.value if st == 0 else None

    @property
    def requests_read(self) -> int:
        """Requests read so far, rejected ones included."""
        return self._counter(_COUNT_REQUESTS) or 0

    @property
    def rejected(self) -> int:
        """Requests rejected so far."""
        return self._counter(_COUNT_REJECTED) or 0

    @property
    def run(self) -> Optional[int]:
        """The run read (1-based) of a file with runs, once known."""
        return self._counter(_COUNT_RUN)

    @property
    def runs(self) -> Optional[int]:
        """The runs of a file with runs, once it was read to its end."""
        return self._counter(_COUNT_RUNS)

    @property
    def format(self) -> str:
        """The format read ("auto" until the first bytes tell)."""
        out = c_int32()
        with self._lock:
            lib.llmlat_reader_format(self._handle(), byref(out))
        name: Optional[bytes] = lib.llmlat_input_name(out.value)
        return name.decode("ascii") if name else str(out.value)

    @property
    def duration(self) -> Optional[float]:
        """The benchmark duration the input gives, in seconds, or None."""
        out = c_double()
        with self._lock:
            st = lib.llmlat_reader_duration(self._handle(), byref(out))
        return out.value if st == 0 else None

    def __repr__(self) -> str:
        if self._h is None:
            return "<llmlat.TraceReader (closed)>"
        return "<llmlat.TraceReader %r format=%s read=%d rejected=%d>" % (
            self.name, self.format, self.requests_read, self.rejected)


def _release(h: Any, file: Any) -> None:
    lib.llmlat_reader_free(h)
    if file is not None:
        file.close()


def _run_number(run: Any, where: str) -> int:
    n = as_int(run, where, "run", "None or an int >= 1 (1 for the first run)")
    if not 1 <= n < 1 << 64:
        raise InvalidArgumentError(where=where, detail="run = %d is not a run number (1 for "
                                   "the first)" % n)
    return n


def read_trace(source: Source, format: str = "auto", run: Optional[int] = None,
               name: Optional[str] = None) -> TraceReader:
    """Reads a trace, or another tool's result file, with the C reader.

    ``source``: a path, or a file object (binary, or text in UTF-8).
    ``format``: "auto" (told from the content), "trace", "vllm", "aiperf",
    "genai-perf", "sglang" or "llmperf" (docs/importers.md). ``run``: which
    run of a file with several (1 for the first; default the last).
    ``name``: used in messages (default: the path, or the file's name).

    Iterate the result for the requests, or fold them into an aggregator
    in C with ``add_to``::

        agg = llmlat.Aggregator("aiperf")
        reader = llmlat.read_trace("result.json").add_to(agg)
        if reader.duration:
            agg.set_param("duration", reader.duration)
    """
    return TraceReader(source, format, run, name)

