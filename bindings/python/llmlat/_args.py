"""Checking and converting the arguments of the binding's methods (internal).

ctypes converts arguments itself, but its errors name neither the method
nor the argument (``argument 2: TypeError: wrong type``), and it silently
wraps integers that C cannot hold. Every method therefore passes its
arguments through these functions first. Their errors say which method,
which argument, what was expected and what was given::

    TypeError: Request.start: t_ns must be an int (nanoseconds), not float 1.5
    InvalidArgumentError: Request.events: invalid argument: times_ns[3] = 9223372036854775808 is outside int64

A wrong type is a ``TypeError``; a value of the right type that C cannot
take (out of range, an unknown name) is an ``InvalidArgumentError``.
"""

from __future__ import annotations

import ctypes
import numbers
import operator
import sys
from array import array
from typing import Any, Iterable, List, Mapping, Tuple, Union

from ._errors import InvalidArgumentError

__all__ = [
    "describe",
    "type_error",
    "as_int",
    "as_i64",
    "as_u32",
    "as_u64",
    "as_float",
    "as_floats",
    "as_id",
    "as_bytes",
    "as_text",
    "c_array",
]

Name = Union[str, int]

INT64_MIN = -(1 << 63)
INT64_MAX = (1 << 63) - 1
UINT32_MAX = (1 << 32) - 1
UINT64_MAX = (1 << 64) - 1

_RANGES = {
    "uint8": (0, 255),
    "int64": (INT64_MIN, INT64_MAX),
    "uint32": (0, UINT32_MAX),
    "uint64": (0, UINT64_MAX),
}


def describe(value: Any) -> str:
    """How a message shows a wrong value: its type, then its repr when short
    ("float 1.5", "str '2'", "a 2-D array of shape (2, 2)")."""
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and len(shape) != 1:
        return "a %d-D %s of shape %s" % (len(shape), type(value).__name__, shape)
    text = repr(value)
    if len(text) > 40:
        return type(value).__name__
    return "%s %s" % (type(value).__name__, text)


def type_error(where: str, arg: str, expected: str, value: Any) -> TypeError:
    return TypeError("%s: %s must be %s, not %s" % (where, arg, expected, describe(value)))


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def as_int(value: Any, where: str, arg: str, expected: str = "an int") -> int:
    """An int, or an object that is one (numpy integers); never a bool or a
    float."""
    if _is_int(value):
        return value
    if not isinstance(value, bool) and hasattr(value, "__index__"):
        try:
            return operator.index(value)
        except TypeError:
            pass
    raise type_error(where, arg, expected, value)


def _in_range(value: int, kind: str, where: str, arg: str) -> int:
    lo, hi = _RANGES[kind]
    if not lo <= value <= hi:
        raise InvalidArgumentError(where=where, detail="%s = %d is outside %s" % (arg, value, kind))
    return value


def as_i64(value: Any, where: str, arg: str) -> int:
    """A timestamp: an int that fits int64_t."""
    return _in_range(as_int(value, where, arg, "an int (nanoseconds)"), "int64", where, arg)


def as_u32(value: Any, where: str, arg: str) -> int:
    return _in_range(as_int(value, where, arg), "uint32", where, arg)


def as_u64(value: Any, where: str, arg: str) -> int:
    return _in_range(as_int(value, where, arg), "uint64", where, arg)


def as_float(value: Any, where: str, arg: str, expected: str = "a number") -> float:
    """A real number (int, float, numpy scalars) as a float; the C library
    checks NaN, infinities and bounds itself."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, (str, bytes, bool)) and hasattr(value, "__float__"):
        try:
            return float(value)
        except (TypeError, ValueError):
            pass
    raise type_error(where, arg, expected, value)


def as_floats(values: Any, where: str, arg: str, expected: str) -> List[float]:
    """A list of floats from an iterable of real numbers; the message of a
    wrong element names its index."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise type_error(where, arg, expected, values)
    return [as_float(v, where, "%s[%d]" % (arg, i)) for i, v in enumerate(values)]


def as_id(table: Mapping[str, int], kind: str, name: Name, where: str, arg: str) -> int:
    """The C id of a name; an int is passed through (the C library checks
    it), so ids newer than this binding stay usable."""
    if isinstance(name, str):
        try:
            return table[name]
        except KeyError:
            raise InvalidArgumentError(
                where=where,
                detail="%s: unknown %s %r (one of: %s)" % (arg, kind, name, ", ".join(table)),
            ) from None
    if _is_int(name):
        return name
    raise type_error(where, arg, "a %s name (str: %s)" % (kind, ", ".join(table)), name)


def as_bytes(data: Any, where: str, arg: str, expected: str) -> bytes:
    """The bytes of a bytes-like object (bytes, bytearray, memoryview, a
    buffer); str and ints are refused, not encoded or zero-filled."""
    if isinstance(data, (str, int)):
        raise type_error(where, arg, expected, data)
    try:
        return memoryview(data).tobytes()
    except TypeError:
        raise type_error(where, arg, expected, data) from None


def as_text(value: Any, where: str, arg: str, expected: str = "a str") -> bytes:
    """A str as the UTF-8 bytes of a C string; one holding a NUL, which C
    would silently cut there, is refused."""
    if not isinstance(value, str):
        raise type_error(where, arg, expected, value)
    if "\0" in value:
        raise InvalidArgumentError(where=where, detail="%s holds a NUL character" % arg)
    return value.encode("utf-8")


# ------------------------------------------------------------- C arrays

_LITTLE = sys.byteorder == "little"
_NATIVE_PREFIXES = ("", "@", "=", "<" if _LITTLE else ">")
_FLOAT_CODES = "efd"


def _format_is(fmt: str, codes: str) -> bool:
    """True when a buffer's struct format is one of the native ``codes``."""
    prefix, code = fmt[:-1], fmt[-1:]
    return prefix in _NATIVE_PREFIXES and code in codes


def _element_error(items: Iterable[Any], kind: str, where: str, arg: str,
                   expected: str) -> Exception:
    """The error for the first element of ``items`` that is not an int of
    ``kind``."""
    lo, hi = _RANGES[kind]
    for i, x in enumerate(items):
        name = "%s[%d]" % (arg, i)
        try:
            value = as_int(x, where, name, expected)
        except TypeError as exc:
            return exc
        if not lo <= value <= hi:
            return InvalidArgumentError(where=where,
                                        detail="%s = %d is outside %s" % (name, value, kind))
    return type_error(where, arg, "a sequence of ints", items)


def c_array(obj: Any, ctype: Any, typecode: str, codes: str, kind: str, where: str, arg: str,
            unit: str = "") -> Tuple[Any, int]:
    """``obj`` as (pointer-like, length) for ctypes, with no copy when it is
    a writable, C-contiguous, one-dimensional buffer of exactly ``ctype``,
    one C-level copy when such a buffer is read-only, and a conversion into
    ``array(typecode)`` otherwise (any iterable of ints).

    ``kind`` ("int64", "uint32") is what each element must fit; ``unit``
    says what the ints are, for messages ("nanoseconds")."""
    expected = "ints (%s)" % unit if unit else "ints"
    element = "an int (%s)" % unit if unit else "an int"
    what = "a sequence or 1-D array of %s" % expected
    try:
        mv = memoryview(obj)
    except TypeError:
        mv = None
    if mv is not None:
        if mv.ndim != 1:
            raise type_error(where, arg, what, obj if hasattr(obj, "shape") else mv)
        if (mv.itemsize == ctypes.sizeof(ctype) and mv.c_contiguous
                and _format_is(mv.format, codes)):
            n = mv.shape[0]  # type: ignore[index]
            if n == 0:
                return None, 0
            if mv.readonly:
                return (ctype * n).from_buffer_copy(mv), n
            return byref_buffer(ctype, mv), n
        if mv.format[-1:] in _FLOAT_CODES:
            raise TypeError("%s: %s must hold %s, not floats (a buffer of format %r): "
                            "convert it to integers first" % (where, arg, expected, mv.format))
        try:
            obj = mv.tolist()  # other integer formats: converted below
        except (NotImplementedError, TypeError, ValueError):
            pass  # a format memoryview cannot read (big-endian): iterate obj itself
    if isinstance(obj, (str, bytes)) or not hasattr(obj, "__iter__"):
        raise type_error(where, arg, what, obj)
    items = obj if isinstance(obj, (list, tuple)) else list(obj)
    try:
        arr = array(typecode, items)
    except (TypeError, OverflowError):
        raise _element_error(items, kind, where, arg, element) from None
    n = len(arr)
    if n == 0:
        return None, 0
    return byref_buffer(ctype, arr), n


def byref_buffer(ctype: Any, buf: Any) -> Any:
    """A pointer to the first element of a writable buffer, for one call."""
    return ctypes.byref(ctype.from_buffer(buf))
