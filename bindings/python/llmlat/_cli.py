"""``python3 -m llmlat``: the C command ``llmlat`` (tools/) in Python
(internal module). The same commands, flags, messages and exit statuses
(0 success, 1 runtime failure, 2 bad usage or malformed trace), and the same
output: both print the C library's report, with the same trace reading
(llmlat._trace ports tools/trace.c), so the outputs are identical.
"""

from __future__ import annotations

import math
import re
import sys
from typing import BinaryIO, List, Optional, Sequence

from ._core import Aggregator, Request, _FORMAT_IDS, param_bounds
from ._errors import Error, OutOfMemoryError
from ._native import lib
from ._trace import TraceRequest, TraceSyntaxError, ns_to_seconds_text, position, read_trace

EXIT_OK, EXIT_RUNTIME, EXIT_USAGE = 0, 1, 2
PREFIX = "llmlat report: "
MAX_PERCENTILES = 32
MESSAGES_MAX = 50  # INGEST_MESSAGES_MAX

# The C command's `llmlat --help` and `llmlat report --help`, byte for byte.
USAGE = """\
Usage: llmlat COMMAND [OPTIONS] [ARGUMENTS]
       llmlat COMMAND --help
       llmlat --help | --version

Latency metrics of streamed LLM responses (TTFT, TPOT, ITL, E2E latency,
throughput, goodput) under the conventions of vLLM, AIPerf, SGLang and
LLMPerf.

Commands:
  report               TTFT, TPOT, ITL, E2E, throughput and goodput of a trace
                       of streamed responses, as the chosen tool computes them

Options:
  -h, --help           this help
  --version            the version of the command and of its library

`llmlat COMMAND --help` (or `llmlat help COMMAND`) shows the options of a
command; `man llmlat` describes them all.
Exit status: 0 success, 1 runtime failure, 2 bad usage or malformed trace.
"""

REPORT_USAGE = """\
Usage: llmlat report [OPTIONS] TRACE|-

Reads the timestamps of streamed LLM responses (a trace file, or - for
standard input) and reports TTFT, TPOT, ITL, E2E latency, throughput and
goodput, computed as the chosen tool computes them.

Options:
  --convention NAME    default, vllm, aiperf, sglang or llmperf (default:
                       default)
  --mode MODE          exact or bounded (default: exact)
  --relative-error A   the bounded mode's relative error (default: 0.01)
  --percentiles LIST   percentiles to report, comma-separated (default:
                       50,90,95,99)
  --goodput SLOS       service levels in ms for goodput, comma-separated
                       NAME:MS with NAME ttft, tpot or e2el
  --duration S         benchmark wall time in seconds for the rates (default:
                       the trace's "duration", else from its timestamps)
  --format FORMAT      text, json or prometheus (default: text)
  -h, --help           this help

A trace is a JSON array of requests, an object {"requests": [...],
"duration": S}, or JSON Lines with one request per line. A request:
  {"start": S, "events": [[T, K], ...], "input_tokens": N,
   "output_tokens": N, "ok": true, "end": S}
with times in seconds and K the tokens of each streamed chunk. A request
whose times go backwards or that has events after its end is rejected
(named on stderr, counted in the report).

Exit status: 0 success, 1 runtime failure, 2 bad usage or malformed trace.
Details: man llmlat, docs/cli.md and docs/report-json.md.
"""

# strtod's syntax for finite numbers (hexadecimal included), whole string
_DEC = re.compile(r"[ \t\n\v\f\r]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_HEX = re.compile(r"[ \t\n\v\f\r]*[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)"
                  r"(?:[pP][+-]?[0-9]+)?\Z")


class _Stop(Exception):
    """An error already reported on stderr; carries the exit status."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _err(text: str) -> None:
    sys.stderr.write(text)
    sys.stderr.flush()


def _parse_double(s: str) -> Optional[float]:
    """The whole of s as a finite double (strtod), or None."""
    if _DEC.match(s):
        v = float(s.strip(" \t\n\v\f\r"))
    elif _HEX.match(s):
        v = float.fromhex(s.strip(" \t\n\v\f\r"))
    else:
        return None
    return v if math.isfinite(v) else None


class Options:
    """report_options.c: the options of ``report``, parsed and checked."""

    def __init__(self) -> None:
        self.convention = "default"
        self.mode = "exact"
        self.format = "text"
        self.relative_error: Optional[float] = None
        self.quantiles: List[float] = []
        self.slo = {"ttft": 0.0, "tpot": 0.0, "e2e": 0.0}
        self.duration: Optional[float] = None
        self.help = False
        self.trace: Optional[str] = None

    @staticmethod
    def _bad(flag: str, value: str, why: str) -> _Stop:
        _err(PREFIX + "%s: '%s' %s\n" % (flag, value, why))
        return _Stop(EXIT_USAGE)

    def _param(self, flag: str, value: str, param: str, unit: float) -> float:
        lo, hi = param_bounds(param)
        v = _parse_double(value)
        if v is None:
            raise self._bad(flag, value, "is not a number")
        v /= unit
        if not (v > 0.0 and v >= lo and v <= hi):
            if lo > 0.0:
                why = "is out of range [%g, %g]" % (lo * unit, hi * unit)
            else:
                why = "is out of range (0, %g]" % (hi * unit)
            raise self._bad(flag, value, why)
        return v

    def _convention(self, flag: str, v: str) -> None:
        i = 0
        while lib.llmlat_convention_name(i) is not None:
            if v == lib.llmlat_convention_name(i).decode():
                self.convention = v
                return
            i += 1
        raise self._bad(flag, v, "is not a convention (default, vllm, aiperf, sglang, llmperf)")

    def _mode(self, flag: str, v: str) -> None:
        if v not in ("exact", "bounded"):
            raise self._bad(flag, v, "is not a mode (exact, bounded)")
        self.mode = v

    def _format(self, flag: str, v: str) -> None:
        if v not in _FORMAT_IDS:
            raise self._bad(flag, v, "is not a format (text, json, prometheus)")
        self.format = v

    def _relative_error(self, flag: str, v: str) -> None:
        self.relative_error = self._param(flag, v, "relative_error", 1.0)

    def _duration(self, flag: str, v: str) -> None:
        self.duration = self._param(flag, v, "duration", 1.0)

    @staticmethod
    def _items(v: str) -> List[str]:
        # next_item(): an item of 64 bytes or more reads as ""
        return [x if len(x.encode()) < 64 else "" for x in v.split(",")]

    def _percentiles(self, flag: str, v: str) -> None:
        qs = []
        for item in self._items(v):
            p = _parse_double(item)
            if p is None or p < 0.0 or p > 100.0:
                raise self._bad(flag, v, "is not a list of percentiles from 0 to 100, such "
                                "as 50,90,99.9")
            if len(qs) == MAX_PERCENTILES:
                raise self._bad(flag, v, "has more than 32 percentiles")
            qs.append(p / 100.0)  # numpy.percentile divides the same way
        self.quantiles = qs

    def _goodput(self, flag: str, v: str) -> None:
        self.slo = {"ttft": 0.0, "tpot": 0.0, "e2e": 0.0}
        for item in self._items(v):
            name, colon, ms = item.partition(":")
            if not colon:
                raise self._bad(flag, v, "is not a list of NAME:MS (ttft, tpot, e2el), such "
                                "as ttft:200")
            key = {"ttft": "ttft", "tpot": "tpot", "e2el": "e2e", "e2e": "e2e"}.get(name)
            if key is None:
                raise self._bad(flag, v, "names an unknown SLO (ttft, tpot, e2el)")
            # milliseconds, divided as vLLM does: value / 1000
            self.slo[key] = self._param(flag, ms, "slo_ttft", 1000.0)

    _SETTERS = {
        "--convention": _convention, "--mode": _mode, "--relative-error": _relative_error,
        "--percentiles": _percentiles, "--goodput": _goodput, "--duration": _duration,
        "--format": _format,
    }

    def parse(self, argv: Sequence[str]) -> "Options":
        options_done = False
        i = 0
        while i < len(argv):
            arg = argv[i]
            i += 1
            if options_done or not arg.startswith("-") or arg == "-":
                if self.trace is not None:
                    _err(PREFIX + "more than one trace given ('%s' and '%s')\n"
                         % (self.trace, arg))
                    raise _Stop(EXIT_USAGE)
                self.trace = arg
                continue
            if arg == "--":
                options_done = True
                continue
            if arg in ("-h", "--help"):
                self.help = True
                return self
            name, eq, value = arg.partition("=")
            setter = self._SETTERS.get(name)
            if setter is None:
                _err(PREFIX + "unknown option '%s' (see llmlat --help)\n" % name)
                raise _Stop(EXIT_USAGE)
            if not eq:
                if i == len(argv):
                    _err(PREFIX + "option %s needs a value\n" % name[:31])
                    raise _Stop(EXIT_USAGE)
                value = argv[i]
                i += 1
            setter(self, name[:31], value)
        if self.trace is None:
            _err(PREFIX + "no trace given (a file, or - for standard input)\n")
            raise _Stop(EXIT_USAGE)
        return self


def _aggregator(o: Options) -> Aggregator:
    try:
        agg = Aggregator(o.convention, o.mode)
    except Error:
        _err(PREFIX + "cannot create a %s aggregator (not in this build, or out of memory)\n"
             % o.mode)
        raise _Stop(EXIT_RUNTIME) from None
    try:
        # SLOs and the relative error before any data: bounded mode fixes
        # them once it holds samples
        if o.quantiles:
            agg.set_quantiles(o.quantiles)
        if o.relative_error is not None:
            agg.set_param("relative_error", o.relative_error)
        for key in ("ttft", "tpot", "e2e"):
            if o.slo[key] > 0:
                agg.set_param("slo_" + key, o.slo[key])
        if o.duration is not None:
            agg.set_param("duration", o.duration)
    except Error as exc:
        agg.close()
        _err(PREFIX + "cannot configure the aggregator: %s\n" % exc.strerror)
        raise _Stop(EXIT_RUNTIME) from None
    return agg


class _Ingest:
    """ingest.c: requests into the aggregator, with the rejection rule."""

    def __init__(self, agg: Aggregator, name: str, data: bytes) -> None:
        self.agg = agg
        self.rec = Request()
        self.name = name
        self.data = data
        self.rejected = 0

    @staticmethod
    def _breaks_rule(q: TraceRequest) -> Optional[str]:
        prev = q.start
        for i, t in enumerate(q.times):
            if t < prev:
                a, b = ns_to_seconds_text(t), ns_to_seconds_text(prev)
                if i == 0:
                    return "event 1 at %s s is before its start at %s s" % (a, b)
                return "event %d at %s s is before event %d at %s s" % (i + 1, a, i, b)
            prev = t
        if q.end is not None and q.end < prev:
            a, b = ns_to_seconds_text(q.end), ns_to_seconds_text(prev)
            if q.times:
                return "its end at %s s is before its last event (%d) at %s s" % (
                    a, len(q.times), b)
            return "its end at %s s is before its start at %s s" % (a, b)
        return None

    def _reject(self, q: TraceRequest, why: str) -> None:
        self.rejected += 1
        if self.rejected > MESSAGES_MAX:
            return
        line, col = position(self.data, q.offset)
        ident = b' (id "' + q.id + b'")' if q.id else b""
        msg = (("%s:%d:%d: request %d" % (self.name, line, col, q.index)).encode()
               + ident + (" rejected: %s\n" % why).encode())
        sys.stderr.flush()
        sys.stderr.buffer.write(msg)
        if self.rejected == MESSAGES_MAX:
            sys.stderr.buffer.write(("%s: further rejected requests are counted but not "
                                     "listed\n" % self.name).encode())
        sys.stderr.buffer.flush()

    def _record(self, q: TraceRequest) -> None:
        r = self.rec
        r.reset()
        r.start(q.start)
        r.events(q.times, q.tokens)
        r.set_input_tokens(q.input_tokens)
        if q.output_tokens is not None:
            r.set_output_tokens(q.output_tokens)
        end = q.end if q.end is not None else (q.times[-1] if q.times else q.start)
        (r.finish if q.ok else r.fail)(end)
        self.agg.add(r)

    def __call__(self, q: TraceRequest) -> None:
        # The library checks the same order rule as _breaks_rule: try it
        # first (no per-event Python work), explain only what it refused.
        try:
            self._record(q)
        except OutOfMemoryError:
            raise
        except Error as exc:
            why = self._breaks_rule(q)
            self._reject(q, why or "the library refused it: %s" % exc.strerror)


def _write_report(agg: Aggregator, fmt: str, name: str, read: int, rejected: int) -> int:
    try:
        body = agg._report_bytes(fmt)
    except Error as exc:
        _err(PREFIX + "cannot make the report: %s\n" % exc.strerror)
        return EXIT_RUNTIME
    out: BinaryIO = sys.stdout.buffer
    if fmt == "text":
        out.write(("Trace: %s (%d requests read, %d rejected)\n" % (name, read, rejected))
                  .encode())
        out.write(body)
    elif fmt == "json":
        end = len(body)  # two more members before the object's closing brace
        while end > 0 and body[end - 1:end] != b"}":
            end -= 1
        if end > 0:
            end -= 1
        while end > 0 and body[end - 1:end] in (b" ", b"\t", b"\n", b"\r", b"\v", b"\f"):
            end -= 1
        out.write(body[:end])
        out.write((',\n  "requests_read": %d,\n  "rejected_requests": %d\n}\n'
                   % (read, rejected)).encode())
    else:
        out.write(body)
        out.write(("# HELP llmlat_trace_requests_rejected_total Requests of the trace that "
                   "llmlat report rejected.\n"
                   "# TYPE llmlat_trace_requests_rejected_total counter\n"
                   "llmlat_trace_requests_rejected_total %d\n" % rejected).encode())
    try:
        out.flush()
    except OSError as exc:
        _err(PREFIX + "cannot write the report: %s\n" % exc.strerror)
        return EXIT_RUNTIME
    return EXIT_OK


def report(argv: Sequence[str]) -> int:
    """``llmlat report ARGS``: the exit status."""
    o = Options().parse(argv)
    if o.help:
        sys.stdout.write(REPORT_USAGE)
        return EXIT_OK
    assert o.trace is not None
    from_stdin = o.trace == "-"
    name = "<stdin>" if from_stdin else o.trace
    read_error = None
    data = b""
    try:
        if from_stdin:
            data = sys.stdin.buffer.read()
        else:
            with open(o.trace, "rb") as f:
                data = f.read()
    except IsADirectoryError as exc:  # fopen succeeds, the first read fails
        read_error = exc.strerror
    except OSError as exc:
        if from_stdin:
            read_error = exc.strerror
        else:
            _err(PREFIX + "cannot open '%s': %s\n" % (o.trace, exc.strerror))
            return EXIT_USAGE
    with _aggregator(o) as agg:
        if read_error is not None:
            _err("%s:1:1: read error: %s\n" % (name, read_error))
            return EXIT_USAGE
        ingest = _Ingest(agg, name, data)
        try:
            info = read_trace(data, name, ingest)
        except TraceSyntaxError as exc:
            _err("%s\n" % exc)
            return EXIT_USAGE
        except OutOfMemoryError:
            _err(PREFIX + "out of memory\n")
            return EXIT_RUNTIME
        finally:
            ingest.rec.close()
        if o.duration is None and info.duration is not None:
            agg.set_param("duration", info.duration)
        return _write_report(agg, o.format, name, info.requests, ingest.rejected)


def main(argv: Optional[List[str]] = None) -> int:
    """The ``llmlat`` command; returns its exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
        _err(USAGE)
        return EXIT_USAGE
    cmd = args[0]
    if cmd == "help" and len(args) > 1:
        if args[1] != "report":
            _err("llmlat: unknown command '%s' (see llmlat --help)\n" % args[1])
            return EXIT_USAGE
        sys.stdout.write(REPORT_USAGE)
        return EXIT_OK
    if cmd in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return EXIT_OK
    if cmd == "--version":
        sys.stdout.write("llmlat %s\n" % lib.llmlat_version_string().decode())
        return EXIT_OK
    if cmd == "report":
        try:
            return report(args[1:])
        except _Stop as stop:
            return stop.status
        finally:
            sys.stdout.flush()
    _err("llmlat: unknown command '%s' (see llmlat --help)\n" % cmd)
    return EXIT_USAGE


