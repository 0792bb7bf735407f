"""llmlat: TTFT, TPOT, ITL, E2E and throughput of streamed LLM responses,
under the exact conventions of vLLM, AIPerf, SGLang and LLMPerf.

A ctypes binding of the C library libllmlat (standard library only)::

    import llmlat

    agg = llmlat.Aggregator("vllm")
    with llmlat.Request() as r:
        r.start(0)
        r.events([50_000_000, 60_000_000, 70_000_000])   # ns, 1 token each
        r.finish(70_000_000)
        agg.add(r)
    print(agg.stat("ttft", "mean"), agg.quantile("itl", 0.99))
    print(agg.report())

Traces and other tools' result files (vLLM, AIPerf, GenAI-Perf, SGLang,
LLMPerf) are read by the library: ``llmlat.read_trace(path)`` iterates the
requests, ``.add_to(agg)`` folds them in C; ``python -m llmlat`` runs the
``llmlat`` command.

Timestamps are int nanoseconds on one monotonic clock (``llmlat.now_ns()``
or ``time.monotonic_ns()``); results are float seconds. The library is
found through ``LLMLAT_LIBRARY``, a copy inside this package, the SONAME
``libllmlat.so.1``, then ``ctypes.util.find_library`` (docs/python.md).
"""

from ._native import ABI_MAJOR, lib as _lib, library_path
from ._errors import (
    Error,
    FormatError,
    InvalidArgumentError,
    LimitError,
    MismatchError,
    NoSpaceError,
    OrderError,
    OutOfMemoryError,
    StateError,
    UndefinedError,
    strerror,
)
from ._analysis import Comparison
from ._core import (
    COLUMN_CANCELLED,
    CONVENTIONS,
    COUNTERS,
    FORMATS,
    LACKS,
    NO_SCHEDULE,
    METRICS,
    MODES,
    NAMES,
    PARAMS,
    RATES,
    STATS,
    Aggregator,
    NativeBuckets,
    Request,
    content_type,
    expose,
    now_ns,
    param_bounds,
)
from ._live import SNAPSHOTS, LiveRecorder, Window, WindowView
from ._reader import INPUTS, TraceError, TraceReader, TraceRequest, read_trace

#: Version of this Python package.
__version__ = "1.2.0"


def version() -> str:
    """The version of the loaded C library, "MAJOR.MINOR.PATCH"."""
    return _lib.llmlat_version_string().decode("ascii")


def version_number() -> int:
    """The loaded C library's ``llmlat_version_number()`` (MAJOR*10000 +
    MINOR*100 + PATCH)."""
    return int(_lib.llmlat_version_number())


__all__ = [
    "ABI_MAJOR",
    "Aggregator",
    "COLUMN_CANCELLED",
    "CONVENTIONS",
    "Comparison",
    "COUNTERS",
    "Error",
    "FORMATS",
    "FormatError",
    "INPUTS",
    "InvalidArgumentError",
    "LACKS",
    "NO_SCHEDULE",
    "LimitError",
    "LiveRecorder",
    "METRICS",
    "MODES",
    "MismatchError",
    "NAMES",
    "NativeBuckets",
    "NoSpaceError",
    "OrderError",
    "OutOfMemoryError",
    "PARAMS",
    "RATES",
    "Request",
    "SNAPSHOTS",
    "STATS",
    "StateError",
    "TraceError",
    "TraceReader",
    "TraceRequest",
    "UndefinedError",
    "Window",
    "WindowView",
    "content_type",
    "expose",
    "library_path",
    "now_ns",
    "param_bounds",
    "read_trace",
    "strerror",
    "version",
    "version_number",
]
