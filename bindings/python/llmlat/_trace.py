"""Reading trace files exactly as the C command does (internal module).

A trace is JSON: an array of requests, an object ``{"requests": [...],
"duration": s}``, or JSON Lines with one request object per line (docs/cli.md).
This is a port of tools/json_reader.c, tools/trace.c and tools/decimal.c:
the same grammar, the same limits, the same error messages with the same
``name:line:column`` positions (columns count bytes from 1), so that
``python3 -m llmlat report`` and ``llmlat report`` agree byte for byte.
Times are decimal seconds converted to integer nanoseconds from the number's
text (never through a float), rounded to the nearest nanosecond, halves
away from zero.

The common shapes (plain strings, numbers, ``[t, k]`` events) are matched
with regular expressions; anything else goes through the literal port, which
is also what produces every error message.
"""

from __future__ import annotations

import re
from array import array
from typing import Callable, Optional, Tuple

__all__ = ["TraceSyntaxError", "TraceRequest", "TraceInfo", "read_trace",
           "seconds_text_to_ns", "ns_to_seconds_text"]

EOF_ = -1
NUMBER_MAX = 128  # JR_NUMBER_MAX: longest number text, NUL included
KEY_MAX = 32
ID_MAX = 64
MAX_DEPTH = 256
INT64_MAX = (1 << 63) - 1
UINT32_MAX = (1 << 32) - 1
UINT64_MAX = (1 << 64) - 1
DURATION_MAX = 1e12  # llmlat_param_bounds(LLMLAT_PARAM_DURATION) upper bound
EXPONENT_CLAMP = 100000

_WS = re.compile(rb"[ \t\r\n]*")
_SIMPLE_STRING = re.compile(rb'"([^"\\\x00-\x1f]*)"')
_NUMBER = re.compile(rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_PLAIN_SECONDS = re.compile(rb"(-?)([0-9]+)(?:\.([0-9]{1,9}))?\Z")
_NUMBER_FOLLOW = frozenset(b"0123456789.+-abcdefghijklmnopqrstuvwxyz"
                           b"ABCDEFGHIJKLMNOPQRSTUVWXYZ")
# One well-formed event and what follows it, its time split up so that the
# common shape (at most 9 decimals, no exponent) converts without the
# general routine: sign, integer digits, decimals, token count, ',' or ']'.
_EVENT = re.compile(
    rb"[ \t\r\n]*\[[ \t\r\n]*(-?)(0|[1-9][0-9]{0,10})(?:\.([0-9]{1,9}))?"
    rb"[ \t\r\n]*,[ \t\r\n]*(0|[1-9][0-9]{0,9})[ \t\r\n]*\][ \t\r\n]*([,\]])")


class TraceSyntaxError(Exception):
    """A malformed trace; str() is the C command's message
    ("name:line:column: what is wrong")."""


class TraceRequest:
    """One request as written in the trace (times in ns, order unchecked)."""

    __slots__ = ("index", "offset", "id", "start", "times", "tokens", "end", "ok",
                 "cancelled", "input_tokens", "output_tokens")

    def __init__(self, index: int, offset: int) -> None:
        self.index = index          # 1-based position in the trace
        self.offset = offset        # byte offset of its '{'
        self.id = b""               # its "id" (string or number text), cut as C cuts
        self.start = 0
        self.times = array("q")
        self.tokens = array("I")
        self.end: Optional[int] = None
        self.ok = True
        self.cancelled = False      # "cancelled": true: ended by the client
        self.input_tokens = 0
        self.output_tokens: Optional[int] = None


class TraceInfo:
    """What the reading found besides the requests."""

    def __init__(self) -> None:
        self.requests = 0
        self.duration: Optional[float] = None


def _describe(c: int) -> str:
    if c == EOF_:
        return "end of input"
    if 0x20 < c < 0x7F:
        return "'%c'" % c
    return "byte 0x%02x" % c


# ---------------------------------------------------------------- decimal


def _split(text: bytes) -> Tuple[bool, bytes, int]:
    """(negative, significant digits, power of ten of the last digit)."""
    negative = text.startswith(b"-")
    s = text[1:] if negative else text
    mantissa, _, exponent = s.replace(b"E", b"e").partition(b"e")
    whole, _, frac = mantissa.partition(b".")
    e = 0
    if exponent:
        neg = exponent[:1] == b"-"
        for ch in exponent.lstrip(b"+-"):
            if e < EXPONENT_CLAMP:
                e = e * 10 + (ch - 48)
        if neg:
            e = -e
    return negative, whole + frac, e - len(frac)


def seconds_text_to_ns(text: bytes) -> Optional[int]:
    """JSON number text (seconds) to int ns, rounded half away from zero;
    None when it does not fit int64 (decimal_seconds_to_ns)."""
    m = _PLAIN_SECONDS.match(text)
    if m:  # the common case: at most 9 decimals, no exponent
        frac = m.group(3) or b""
        ns = int(m.group(2) + frac) * 10 ** (9 - len(frac))
        if m.group(1):
            return -ns if ns <= INT64_MAX + 1 else None
        return ns if ns <= INT64_MAX else None
    negative, digits, exp10 = _split(text)
    limit = INT64_MAX + 1 if negative else INT64_MAX
    n = len(digits)
    keep = n + exp10 + 9  # digits at or above 1 ns
    mag = int(digits[:keep]) if keep > 0 else 0
    if mag > limit:
        return None
    if mag != 0 and keep > n:
        if keep - n > 20:
            return None
        mag *= 10 ** (keep - n)
        if mag > limit:
            return None
    if 0 <= keep < n and digits[keep] >= 0x35:  # '5'
        if mag == limit:
            return None
        mag += 1
    return -mag if negative else mag


def _u64_text(text: bytes, limit: int) -> Optional[int]:
    """decimal_to_u64: digits only, at most limit."""
    if not text or not text.isdigit():
        return None
    v = int(text)
    return v if v <= limit else None


def ns_to_seconds_text(ns: int) -> str:
    """ns as seconds without trailing zeros (1500000000 -> "1.5")."""
    m = -ns if ns < 0 else ns
    out = "%s%d.%09d" % ("-" if ns < 0 else "", m // 1000000000, m % 1000000000)
    out = out.rstrip("0")
    return out[:-1] if out.endswith(".") else out


# ----------------------------------------------------------------- reader


class _Reader:
    """json_reader.c over bytes in memory: the same tokens, messages and
    positions."""

    def __init__(self, data: bytes, name: str) -> None:
        self.b = data
        self.n = len(data)
        self.pos = 0
        self.tok = 0
        self.name = name

    # -- positions and errors

    def where(self, off: int) -> Tuple[int, int]:
        line = self.b.count(b"\n", 0, off) + 1
        col = off - (self.b.rfind(b"\n", 0, off) + 1) + 1
        return line, col

    def fail_at(self, off: int, message: str) -> TraceSyntaxError:
        line, col = self.where(off)
        return TraceSyntaxError("%s:%d:%d: %s" % (self.name, line, col, message))

    def fail(self, message: str) -> TraceSyntaxError:
        return self.fail_at(self.tok, message)

    # -- bytes

    def peek(self) -> int:
        pos = _WS.match(self.b, self.pos).end()
        self.pos = self.tok = pos
        return self.b[pos] if pos < self.n else EOF_

    def raw_peek(self) -> int:
        return self.b[self.pos] if self.pos < self.n else EOF_

    def advance(self) -> None:
        if self.pos < self.n:
            self.pos += 1

    def expect(self, c: int, what: str) -> None:
        got = self.peek()
        if got != c:
            raise self.fail("expected %s, found %s" % (what, _describe(got)))
        self.pos += 1

    # -- strings

    def string(self, cap: int) -> bytes:
        """jr_string: the unescaped bytes, at most cap - 1 of them kept."""
        self.expect(0x22, "a string")
        m = _SIMPLE_STRING.match(self.b, self.pos - 1)
        if m:
            self.pos = m.end()
            return m.group(1)[:cap - 1]
        out = bytearray()

        def put(bs: bytes) -> None:
            for x in bs:
                if len(out) + 1 < cap:
                    out.append(x)

        while True:
            c = self.raw_peek()
            if c == EOF_:
                raise self.fail("unterminated string")
            self.pos += 1
            if c == 0x22:
                return bytes(out)
            if c < 0x20:
                raise self.fail("control character (byte 0x%02x) in a string" % c)
            if c != 0x5C:
                put(bytes((c,)))
                continue
            e = self.raw_peek()
            if e != EOF_:
                self.pos += 1
            simple = {0x22: b'"', 0x5C: b"\\", 0x2F: b"/", 0x62: b"\b", 0x66: b"\f",
                      0x6E: b"\n", 0x72: b"\r", 0x74: b"\t"}
            if e in simple:
                put(simple[e])
            elif e == 0x75:  # u
                put(self._unicode_escape())
            else:
                raise self.fail("invalid escape in a string")

    def _hex4(self) -> int:
        v = 0
        for _ in range(4):
            c = self.raw_peek()
            d = int(chr(c), 16) if c != EOF_ and chr(c) in "0123456789abcdefABCDEF" else -1
            if d < 0:
                raise self.fail("malformed \\u escape in a string")
            self.pos += 1
            v = v * 16 + d
        return v

    def _unicode_escape(self) -> bytes:
        cp = self._hex4()
        if 0xD800 <= cp < 0xDC00 and self.raw_peek() == 0x5C:
            self.pos += 1
            if self.raw_peek() != 0x75:
                raise self.fail("malformed \\u escape in a string")
            self.pos += 1
            lo = self._hex4()
            cp = (0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)
                  if 0xDC00 <= lo < 0xE000 else 0xFFFD)
        elif 0xD800 <= cp < 0xE000:
            cp = 0xFFFD
        return chr(cp).encode("utf-8")

    # -- numbers

    def number(self) -> bytes:
        """jr_number: the number's text."""
        c = self.peek()
        if c != 0x2D and not 0x30 <= c <= 0x39:
            raise self.fail("expected a number, found %s" % _describe(c))
        m = _NUMBER.match(self.b, self.pos)
        if m and m.end() - m.start() < NUMBER_MAX:
            end = m.end()
            follow = self.b[end] if end < self.n else EOF_
            if follow not in _NUMBER_FOLLOW:
                self.pos = end
                return m.group(0)
        return self._number_slow()

    def _number_slow(self) -> bytes:
        out = bytearray()

        def take() -> None:
            if len(out) + 1 >= NUMBER_MAX:
                raise self.fail("number longer than %d characters" % (NUMBER_MAX - 1))
            out.append(self.b[self.pos])
            self.pos += 1

        def digits(what: str) -> None:
            if not 0x30 <= self.raw_peek() <= 0x39:
                raise self.fail("malformed number: %s" % what)
            while 0x30 <= self.raw_peek() <= 0x39:
                take()

        if self.raw_peek() == 0x2D:
            take()
        if self.raw_peek() == 0x30:
            take()
            if 0x30 <= self.raw_peek() <= 0x39:
                raise self.fail("malformed number: leading zero")
        else:
            digits("digits expected")
        if self.raw_peek() == 0x2E:
            take()
            digits("digits expected after '.'")
        if self.raw_peek() in (0x65, 0x45):
            take()
            if self.raw_peek() in (0x2B, 0x2D):
                take()
            digits("digits expected in the exponent")
        if self.raw_peek() in _NUMBER_FOLLOW:
            raise self.fail("malformed number")
        return bytes(out)

    # -- literals and skipping

    def literal(self) -> str:
        """jr_literal: 't', 'f' or 'n'."""
        c = self.peek()
        for word in (b"true", b"false", b"null"):
            if c != word[0]:
                continue
            for ch in word:
                if self.raw_peek() != ch:
                    raise self.fail("invalid literal (expected %s)" % word.decode())
                self.pos += 1
            nxt = self.raw_peek()
            if nxt != EOF_ and (chr(nxt).isascii() and chr(nxt).isalnum()):
                raise self.fail("invalid literal (expected %s)" % word.decode())
            return chr(word[0])
        raise self.fail("expected a value, found %s" % _describe(c))

    def skip_value(self, depth: int = 0) -> None:
        if depth > MAX_DEPTH:
            raise self.fail("values nested deeper than %d" % MAX_DEPTH)
        c = self.peek()
        if c in (0x7B, 0x5B):
            self.pos += 1
            self._skip_members(depth, c == 0x7B)
        elif c == 0x22:
            self.string(1)
        elif c == 0x2D or 0x30 <= c <= 0x39:
            self.number()
        else:
            self.literal()

    def _skip_members(self, depth: int, obj: bool) -> None:
        close = 0x7D if obj else 0x5D
        if self.peek() == close:
            self.pos += 1
            return
        while True:
            if obj:
                self.string(8)
                self.expect(0x3A, "':' after a key")
            self.skip_value(depth + 1)
            if self.peek() == close:
                self.pos += 1
                return
            self.expect(0x2C, "',' or '}'" if obj else "',' or ']'")


# ------------------------------------------------------------------ trace

_KEYS = {b"start": 1, b"events": 2, b"end": 4, b"ok": 8, b"input_tokens": 16,
         b"output_tokens": 32, b"id": 64, b"cancelled": 128}


def _starts_number(c: int) -> bool:
    return c == 0x2D or 0x30 <= c <= 0x39


class _Trace:
    """trace.c: requests handed to a callback as they are read."""

    def __init__(self, r: _Reader, fn: Callable[[TraceRequest], None]) -> None:
        self.r = r
        self.fn = fn
        self.info = TraceInfo()

    def _take_null(self) -> bool:
        if self.r.peek() != 0x6E:
            return False
        self.r.literal()
        return True

    def _seconds(self, what: str) -> int:
        r = self.r
        if not _starts_number(r.peek()):
            raise r.fail("%s must be a number (seconds)" % what)
        text = r.number()
        ns = seconds_text_to_ns(text)
        if ns is None:
            raise r.fail("%s is out of range: %s s does not fit in 64-bit nanoseconds"
                         % (what, text.decode()))
        return ns

    def _count(self, what: str, limit: int) -> int:
        r = self.r
        number = _starts_number(r.peek())
        text = r.number() if number else b""
        v = _u64_text(text, limit) if number else None
        if v is None:
            raise r.fail("%s must be an integer from 0 to %d" % (what, limit))
        return v

    def _events(self, q: TraceRequest) -> None:
        r = self.r
        r.expect(0x5B, "'[' starting \"events\"")
        if r.peek() == 0x5D:
            r.pos += 1
            return
        times, tokens, b = q.times, q.tokens, r.b
        match = _EVENT.match
        while True:
            m = match(b, r.pos)
            if m:
                neg, whole, frac, k, follow = m.groups()
                frac = frac or b""
                t = int(whole + frac + b"000000000"[len(frac):])  # exact ns
                k = int(k)
                if t <= INT64_MAX and k <= UINT32_MAX:
                    times.append(-t if neg else t)
                    tokens.append(k)
                    r.pos = m.end()
                    if follow == b"]":
                        return
                    continue
            # the literal port, for anything the pattern does not cover
            r.expect(0x5B, "an event [t, k]")
            t = self._seconds("an event's time")
            r.expect(0x2C, "',' between an event's time and its token count")
            k = self._count("an event's token count", UINT32_MAX)
            r.expect(0x5D, "']' closing an event [t, k]")
            times.append(t)
            tokens.append(k)
            if r.peek() == 0x5D:
                r.pos += 1
                return
            r.expect(0x2C, "',' or ']' after an event")

    def _id(self, q: TraceRequest) -> None:
        r = self.r
        if self._take_null():
            return
        c = r.peek()
        if c == 0x22:
            q.id = r.string(ID_MAX)
        elif _starts_number(c):
            q.id = r.number()[:ID_MAX - 1]
        else:
            raise r.fail("\"id\" must be a string or a number")

    def _member(self, q: TraceRequest, key: int) -> None:
        r = self.r
        if key == 1:
            q.start = self._seconds('"start"')
        elif key == 2:
            self._events(q)
        elif key == 4:
            if not self._take_null():
                q.end = self._seconds('"end"')
        elif key in (8, 128):
            name = "ok" if key == 8 else "cancelled"
            if r.peek() not in (0x74, 0x66):
                raise r.fail('"%s" must be true or false' % name)
            setattr(q, name, r.literal() == "t")
        elif key == 16:
            if not self._take_null():
                q.input_tokens = self._count('"input_tokens"', UINT64_MAX)
        elif key == 32:
            if not self._take_null():
                q.output_tokens = self._count('"output_tokens"', UINT64_MAX)
        elif key == 64:
            self._id(q)
        else:
            r.skip_value()

    def _duration(self) -> Tuple[int, Optional[bytes]]:
        """A "duration" member of the first object, as read: (offset, its
        number text, b"" for null, None for any other value). It is judged
        only once the object is known to be the trace object: in a request
        it is just another ignored member."""
        r = self.r
        c = r.peek()
        offset = r.tok
        if _starts_number(c):
            return offset, r.number()
        if self._take_null():
            return offset, b""
        r.skip_value()
        return offset, None

    def _judge_duration(self, duration: Optional[Tuple[int, Optional[bytes]]]) -> None:
        if duration is None or duration[1] == b"":
            return
        offset, text = duration
        d = float(text) if text is not None else float("nan")
        if not (0.0 < d <= DURATION_MAX):
            raise self.r.fail_at(offset, '"duration" must be null or a number of seconds in '
                                 '(0, %g]' % DURATION_MAX)
        self.info.duration = d

    def _object(self, may_be_trace: bool) -> bool:
        """A request, or (first in the input, with "requests") the trace
        object: True for the latter."""
        r = self.r
        r.peek()
        offset = r.tok
        r.expect(0x7B, "'{' starting a request")
        q = TraceRequest(self.info.requests + 1, offset)
        seen = 0
        trace_object = False
        duration: Optional[Tuple[int, Optional[bytes]]] = None
        if r.peek() == 0x7D:
            r.pos += 1
        else:
            while True:
                key = r.string(KEY_MAX)
                bit = _KEYS.get(key, 0)
                requests = may_be_trace and key == b"requests"
                is_duration = may_be_trace and key == b"duration"
                name = key.decode("utf-8", "replace")
                if seen & bit:
                    raise r.fail('duplicate key "%s"' % name)
                if trace_object and bit:
                    raise r.fail('"%s" belongs in a request, not in the trace object' % name)
                if requests and (trace_object or seen):
                    raise r.fail('duplicate key "requests"' if trace_object else
                                 'an object with "requests" cannot also have request keys')
                r.expect(0x3A, "':' after a key")
                if requests:
                    trace_object = True
                    self._request_array()
                elif is_duration:
                    duration = self._duration()
                elif trace_object:
                    r.skip_value()
                else:
                    seen |= bit
                    self._member(q, bit)
                if r.peek() == 0x7D:
                    r.pos += 1
                    break
                r.expect(0x2C, "',' or '}' after a member")
        if trace_object:
            self._judge_duration(duration)
            return True
        if not seen & 1:
            raise r.fail_at(offset, 'request %d has no "start"' % q.index)
        self.info.requests += 1
        self.fn(q)
        return False

    def _request_array(self) -> None:
        r = self.r
        r.expect(0x5B, "'[' starting the requests")
        if r.peek() == 0x5D:
            r.pos += 1
            return
        while True:
            c = r.peek()
            if c != 0x7B:
                raise r.fail("expected '{' starting a request, found %s" % _describe(c))
            self._object(False)
            if r.peek() == 0x5D:
                r.pos += 1
                return
            r.expect(0x2C, "',' or ']' after a request")

    def _json_lines(self) -> None:
        r = self.r
        while True:
            c = r.peek()
            if c == EOF_:
                return
            if c != 0x7B:
                raise r.fail("expected '{' starting the next request (JSON Lines), found %s"
                             % _describe(c))
            self._object(False)

    def read(self) -> TraceInfo:
        r = self.r
        c = r.peek()
        if c == 0x5B:
            self._request_array()
        elif c == 0x7B:
            if not self._object(True):
                self._json_lines()
        elif c == EOF_:
            raise r.fail("empty input: expected a trace (a JSON array of requests, an "
                         "object with \"requests\", or JSON Lines)")
        else:
            raise r.fail("expected '[' or '{' starting a trace, found %s" % _describe(c))
        c = r.peek()
        if c != EOF_:
            raise r.fail("unexpected %s after the end of the trace" % _describe(c))
        return self.info


def read_trace(data: bytes, name: str, fn: Callable[[TraceRequest], None]) -> TraceInfo:
    """Reads a whole trace, calling fn(request) for each request in order.
    TraceSyntaxError (the C command's message) on a malformed trace."""
    return _Trace(_Reader(data, name), fn).read()


def position(data: bytes, offset: int) -> Tuple[int, int]:
    """(line, column) of a byte offset, as the C reader counts them."""
    return _Reader(data, "").where(offset)
