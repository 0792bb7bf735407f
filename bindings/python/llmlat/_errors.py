"""The exceptions: one class per llmlat status (internal module).

Every exception raised for a status of the C library is an instance of
:class:`Error` (so ``except llmlat.Error`` catches them all) and of the one
subclass for that status, which also derives from the closest built-in
exception (``except ValueError`` keeps working for bad arguments). Each
carries ``status`` (the C value, e.g. -3) and ``strerror`` (the C library's
own text for it, from ``llmlat_strerror``).
"""

from __future__ import annotations

from typing import Dict, Optional, Type

from ._native import lib

__all__ = [
    "Error",
    "InvalidArgumentError",
    "OutOfMemoryError",
    "OrderError",
    "StateError",
    "UndefinedError",
    "FormatError",
    "MismatchError",
    "NoSpaceError",
    "LimitError",
    "strerror",
]


def strerror(status: int) -> str:
    """The C library's description of a status (``llmlat_strerror``)."""
    return lib.llmlat_strerror(status).decode("utf-8", "replace")


class Error(Exception):
    """Base class of every llmlat error.

    Attributes:
        status: the C status (``LLMLAT_E*``, a negative int).
        strerror: ``llmlat_strerror(status)``.
        where: the C function (or binding call) that failed, or None.
        detail: what the binding adds (which argument), or None.
    """

    #: The status of this class (None for the base class).
    STATUS: Optional[int] = None
    #: The C macro of the status ("LLMLAT_EINVAL"...).
    NAME: str = "LLMLAT_E?"

    def __init__(self, status: Optional[int] = None, where: Optional[str] = None,
                 detail: Optional[str] = None) -> None:
        if status is None:
            status = self.STATUS if self.STATUS is not None else -1
        self.status: int = int(status)
        self.strerror: str = strerror(self.status)
        self.where = where
        self.detail = detail
        text = self.strerror
        if detail:
            text = "%s: %s" % (text, detail)
        if where:
            text = "%s: %s" % (where, text)
        super().__init__(text)

    @classmethod
    def for_status(cls, status: int, where: Optional[str] = None,
                   detail: Optional[str] = None) -> "Error":
        """An instance of the subclass for ``status`` (the base class for a
        status this binding does not know)."""
        klass = _BY_STATUS.get(status, Error)
        return klass(status, where, detail)


class InvalidArgumentError(Error, ValueError):
    """``LLMLAT_EINVAL``: unknown name or id, NaN/inf, out of range."""
    STATUS = -1
    NAME = "LLMLAT_EINVAL"


class OutOfMemoryError(Error, MemoryError):
    """``LLMLAT_ENOMEM``: an allocation failed; the object is unchanged."""
    STATUS = -2
    NAME = "LLMLAT_ENOMEM"


class OrderError(Error, ValueError):
    """``LLMLAT_EORDER``: a timestamp before the previous one of the request."""
    STATUS = -3
    NAME = "LLMLAT_EORDER"


class StateError(Error, RuntimeError):
    """``LLMLAT_ESTATE``: not valid in this state (event before start, after
    finish, adding a request that has not ended...)."""
    STATUS = -4
    NAME = "LLMLAT_ESTATE"


class UndefinedError(Error, ArithmeticError):
    """``LLMLAT_EUNDEFINED``: the value is undefined. The query methods return
    None instead of raising it; it exists for completeness."""
    STATUS = -5
    NAME = "LLMLAT_EUNDEFINED"


class FormatError(Error, ValueError):
    """``LLMLAT_EFORMAT``: malformed bytes (from_bytes) or trace."""
    STATUS = -6
    NAME = "LLMLAT_EFORMAT"


class MismatchError(Error, ValueError):
    """``LLMLAT_EMISMATCH``: merging incompatible aggregators."""
    STATUS = -7
    NAME = "LLMLAT_EMISMATCH"


class NoSpaceError(Error, BufferError):
    """``LLMLAT_ENOSPC``: output buffer too small. The binding sizes its
    buffers itself, so this is not raised in practice."""
    STATUS = -8
    NAME = "LLMLAT_ENOSPC"


class LimitError(Error, OverflowError, ValueError):
    """``LLMLAT_EOVERFLOW`` (library 1.1): a count, sum or time span would not
    fit (an event 2^63 ns or more after the start, a counter of an
    aggregator at 2^64 - 1, a request's tokens/s of 2^64 or more). Also a
    ValueError, as llmlat 1.0 raised InvalidArgumentError for these."""
    STATUS = -9
    NAME = "LLMLAT_EOVERFLOW"


_BY_STATUS: Dict[int, Type[Error]] = {
    k.STATUS: k  # type: ignore[misc]
    for k in (InvalidArgumentError, OutOfMemoryError, OrderError, StateError,
              UndefinedError, FormatError, MismatchError, NoSpaceError, LimitError)
}
