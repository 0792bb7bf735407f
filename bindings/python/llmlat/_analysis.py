"""Parts of a run and comparisons of runs (internal module; import from
``llmlat``): the windows and slices of ``Aggregator.window`` and
``Aggregator.slices``, ``Aggregator.compare`` and its :class:`Comparison`,
and the per-request tables. The C library does the work; this is the
arithmetic of the command's options (docs/cli.md), written once for Python.
"""

from __future__ import annotations

import ctypes
import json
import math
import re
import weakref
from ctypes import byref, c_double, c_int32, c_int64, c_size_t
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from ._errors import Error, InvalidArgumentError
from ._native import lib

if TYPE_CHECKING:  # pragma: no cover
    from ._core import Aggregator

__all__ = ["Comparison", "WINDOW_RULES", "window_bounds", "slice_count", "parse_rules",
           "REQUEST_COLUMNS"]

_EUNDEFINED = -5
_ENOSPC = -8
NS_PER_S = 1_000_000_000

#: llmlat_agg_add_window's rules (LLMLAT_WINDOW_*).
WINDOW_RULES = {"start": 1, "end": 2, "inside": 3}

#: llmlat_compare_get's fields (LLMLAT_COMPARE_*), by the names summary() uses.
COMPARE_FIELDS = {
    "base": 1, "candidate": 2, "diff": 3, "rel_diff": 4,
    "diff_low": 5, "diff_high": 6, "rel_diff_low": 7, "rel_diff_high": 8,
}

#: The per-request table's columns and their numpy types.
REQUEST_COLUMNS: Tuple[Tuple[str, str], ...] = (
    ("index", "i8"), ("start_s", "f8"), ("end_s", "f8"), ("ttft_s", "f8"), ("tpot_s", "f8"),
    ("e2e_s", "f8"), ("itl_max_s", "f8"), ("output_tokens", "f8"), ("input_tokens", "f8"),
    ("scheduled_s", "f8"), ("dispatch_delay_s", "f8"), ("scheduled_ttft_s", "f8"),
    ("scheduled_e2e_s", "f8"), ("success", "?"),
)


def _seconds_ns(s: float, what: str) -> int:
    if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s):
        raise InvalidArgumentError(where=what, detail="%r is not a finite number of seconds" % (s,))
    return int(round(s * NS_PER_S))


def window_bounds(first_ns: int, last_ns: int, start: Optional[float] = None,
                  end: Optional[float] = None, warmup: float = 0.0,
                  cooldown: float = 0.0) -> Tuple[int, int]:
    """The window [lo, hi] (ns) that --window START:END, --warmup and
    --cooldown keep, for a run from first_ns (its earliest start) to
    last_ns (its latest end): lo = first + max(START, warmup) and hi =
    min(first + END, last - cooldown). A request is kept when it starts at
    or after lo and ends at or before hi (the INSIDE rule)."""
    if warmup < 0 or cooldown < 0:
        raise InvalidArgumentError(where="window", detail="warm-up and cool-down are >= 0")
    lo = first_ns + max(_seconds_ns(start if start is not None else 0.0, "window start"),
                        _seconds_ns(warmup, "warmup"))
    hi = last_ns - _seconds_ns(cooldown, "cooldown")
    if end is not None:
        hi = min(hi, first_ns + _seconds_ns(end, "window end"))
    return lo, hi


def slice_count(lo_ns: int, hi_ns: int, width_ns: int) -> int:
    """How many consecutive slices of width_ns from lo_ns cover up to hi_ns,
    as AIPerf counts them: floor((hi - lo) / width) + 1."""
    return max(hi_ns - lo_ns, 0) // width_ns + 1


_RULE = re.compile(r"^\s*([A-Za-z0-9_.]+)\s*:\s*([+-])\s*([0-9]*\.?[0-9]+)\s*%\s*$")


def parse_rules(text: str) -> List[Tuple[str, float]]:
    """--fail-if rules "p99_ttft:+5%,output_throughput:-3%" as (figure,
    limit) pairs, the limit a signed fraction (+0.05: may grow by at most
    5%; -0.03: may fall by at most 3%). ValueError on a malformed rule."""
    rules = []
    for item in text.split(","):
        m = _RULE.match(item)
        if not m:
            raise ValueError("%r is not a rule NAME:+P%% or NAME:-P%%" % item)
        value = float(m.group(3)) / 100.0
        rules.append((m.group(1), value if m.group(2) == "+" else -value))
    return rules


class Comparison:
    """Two runs side by side (``llmlat_compare``), made by
    ``Aggregator.compare``: every figure of both, the difference candidate
    - base, the relative difference, and 95% percentile-bootstrap intervals
    of both (docs/compare.md). Figures are named as --fail-if names them:
    "mean_ttft", "median_e2e", "p99_itl", "output_throughput", ...
    Values are in seconds (tokens, 1/s for rates); None when undefined."""

    __slots__ = ("_h", "_figures", "_finalizer", "__weakref__")

    def __init__(self, base: "Aggregator", candidate: "Aggregator", resamples: int = 1000,
                 seed: int = 0) -> None:
        from ._core import Aggregator, _all_locked, _raise
        if not isinstance(base, Aggregator) or not isinstance(candidate, Aggregator):
            raise TypeError("compare needs two llmlat.Aggregator")
        if not isinstance(resamples, int) or not 0 <= resamples < 1 << 32:
            raise InvalidArgumentError(where="compare", detail="resamples %r" % (resamples,))
        if not isinstance(seed, int) or not 0 <= seed < 1 << 64:
            raise InvalidArgumentError(where="compare", detail="seed %r" % (seed,))
        status = c_int32(0)
        with _all_locked(base, candidate):  # neither changes meanwhile
            h = lib.llmlat_compare_new(base._h, candidate._h, resamples, seed, byref(status))
        if not h:
            if base._h is None or candidate._h is None:
                raise ValueError("operation on a closed llmlat.Aggregator")
            _raise(status.value, "llmlat_compare_new")
        self._h = h
        # freed by close(), by with, or when collected (never twice)
        self._finalizer = weakref.finalize(self, lib.llmlat_compare_free, h)
        figures = []
        while True:
            name = lib.llmlat_compare_figure(h, len(figures))
            if name is None:
                break
            figures.append(name.decode("ascii"))
        self._figures = tuple(figures)

    def close(self) -> None:
        """Frees the C object now (idempotent)."""
        self._finalizer()
        self._h = None

    def __enter__(self) -> "Comparison":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def figures(self) -> Tuple[str, ...]:
        """The figures' names, metrics by id then rates."""
        return self._figures

    def get(self, figure: str) -> Dict[str, Any]:
        """Every field of a figure: base, candidate, diff, rel_diff,
        diff_low, diff_high, rel_diff_low, rel_diff_high (None when
        undefined), and significant (the interval of diff excludes 0; None
        without an interval). KeyError for an unknown figure."""
        if self._h is None:
            raise ValueError("operation on a closed llmlat.Comparison")
        if figure not in self._figures:
            raise KeyError(figure)
        out: Dict[str, Any] = {}
        v = c_double()
        for key, field in COMPARE_FIELDS.items():
            st = lib.llmlat_compare_get(self._h, figure.encode("ascii"), field, byref(v))
            if st not in (0, _EUNDEFINED):
                raise Error.for_status(st, "llmlat_compare_get")
            out[key] = v.value if st == 0 else None
        lo, hi = out["diff_low"], out["diff_high"]
        out["significant"] = None if lo is None else (lo > 0 or hi < 0)
        return out

    def report(self, format: str = "text") -> str:
        """The comparison as "text" (a table) or "json" (docs/compare.md)."""
        if self._h is None:
            raise ValueError("operation on a closed llmlat.Comparison")
        fmt = {"text": 1, "json": 2}.get(format)
        if fmt is None:
            raise InvalidArgumentError(where="report", detail="format %r (text, json)" % format)
        size = c_size_t(0)
        st = lib.llmlat_compare_report(self._h, fmt, None, 0, byref(size))
        while st == _ENOSPC:
            buf = ctypes.create_string_buffer(size.value)
            st = lib.llmlat_compare_report(self._h, fmt, buf, size.value, byref(size))
            if st == 0:
                return buf.raw[:size.value].decode("utf-8")
        raise Error.for_status(st, "llmlat_compare_report")

    def summary(self) -> Dict[str, Any]:
        """The JSON report as a dict."""
        result: Dict[str, Any] = json.loads(self.report("json"))
        return result

    def broken(self, rules: Any) -> List[str]:
        """The rules a candidate breaks, each as a line saying why. rules:
        the --fail-if text or (figure, limit) pairs. A rule NAME:+P% is
        broken when the candidate's figure is more than P% above the
        base's and the difference is significant (its interval excludes
        0), NAME:-P% when it is more than P% below: noise alone does not
        break a rule (docs/compare.md)."""
        pairs = parse_rules(rules) if isinstance(rules, str) else list(rules)
        out = []
        for name, limit in pairs:
            f = self.get(name)
            rel = f["rel_diff"]
            if rel is None:
                continue
            over = rel > limit if limit >= 0 else rel < limit
            if over and f["significant"]:
                out.append("%s: %+.2f%% (limit %+.2f%%), interval [%s, %s]" % (
                    name, rel * 100, limit * 100, f["diff_low"], f["diff_high"]))
        return out


def span(agg: "Aggregator") -> Optional[Tuple[int, int]]:
    first, last = c_int64(), c_int64()
    with agg._lock:
        st = lib.llmlat_agg_span(agg._h, byref(first), byref(last))
    if st == _EUNDEFINED:
        return None
    if st:
        agg._fail(st, "llmlat_agg_span")
    return first.value, last.value


def add_window(dst: "Aggregator", src: "Aggregator", from_ns: int, to_ns: int,
               rule: str) -> None:
    r = WINDOW_RULES.get(rule)
    if r is None:
        raise InvalidArgumentError(where="add_window",
                                   detail="rule %r (one of: %s)" % (rule, ", ".join(WINDOW_RULES)))
    from ._core import _all_locked
    with _all_locked(dst, src):
        st = lib.llmlat_agg_add_window(dst._h, src._h, from_ns, to_ns, r)
    if st:
        if src._h is None:
            raise src._closed_error()
        dst._fail(st, "llmlat_agg_add_window")


def requests_table(agg: "Aggregator") -> List[Dict[str, Any]]:
    lines = agg.report_bytes("requests_jsonl").decode("utf-8").splitlines()
    return [json.loads(line) for line in lines]


def requests_array(agg: "Aggregator") -> Any:
    import numpy  # only this needs it
    rows = requests_table(agg)
    dtype = numpy.dtype(list(REQUEST_COLUMNS))
    out = numpy.empty(len(rows), dtype=dtype)
    for name, _ in REQUEST_COLUMNS:
        values = [row[name] for row in rows]
        if name not in ("index", "success"):
            values = [math.nan if v is None else v for v in values]
        out[name] = values
    return out
