"""What the tests share: the package, numpy, the C command, requests.

The tests load the library as users do: ``LLMLAT_LIBRARY`` (meson sets it to
the library it built), else the copy inside an installed package, else an
installed ``libllmlat.so.1``. From a build tree:
``LLMLAT_LIBRARY=$PWD/../../build/lib/libllmlat.so.1 python3 -m unittest``
in bindings/python.
"""

from __future__ import annotations

import os
import sys
import unittest
from typing import Any, Iterable, List, Optional, Sequence

HERE = os.path.dirname(os.path.abspath(__file__))
#: The llmlat source tree, for the header and the docs the tests read:
#: LLMLAT_SOURCE_ROOT when the tests run from a copy (the wheel test),
#: else the tree this file is in.
SOURCE_ROOT = os.environ.get("LLMLAT_SOURCE_ROOT") or os.path.dirname(
    os.path.dirname(os.path.dirname(HERE)))
HEADER = os.path.join(SOURCE_ROOT, "include", "llmlat.h")

# The llmlat package is whichever is importable: bindings/python of the
# source tree (meson sets PYTHONPATH, or the current directory), or an
# installed one.
import llmlat  # noqa: E402

#: The directory holding the imported package (bindings/python, or an
#: environment's site-packages).
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(llmlat.__file__)))

MS = 1_000_000  # ns
S = 1_000_000_000  # ns


def numpy_or_skip(test: unittest.TestCase) -> Any:
    """numpy, or a skip, or (when ``LLMLAT_REQUIRE_NUMPY=1``, as meson sets
    it) a failure: the cross-checks must run in CI."""
    try:
        import numpy
    except ImportError:
        if os.environ.get("LLMLAT_REQUIRE_NUMPY") == "1":
            test.fail("numpy is required (LLMLAT_REQUIRE_NUMPY=1) but %s cannot import "
                      "it: install python3-numpy" % sys.executable)
        test.skipTest("numpy is not installed for %s" % sys.executable)
    return numpy


def make_request(start: int, times: Sequence[int], tokens: Any = 1, end: Optional[int] = None,
                 ok: bool = True, input_tokens: Optional[int] = None,
                 output_tokens: Optional[int] = None) -> "llmlat.Request":
    """A finished (or failed) request; the caller closes it."""
    r = llmlat.Request()
    r.start(start)
    r.events(times, tokens)
    if input_tokens is not None:
        r.set_input_tokens(input_tokens)
    if output_tokens is not None:
        r.set_output_tokens(output_tokens)
    if end is None:
        end = times[-1] if len(times) else start
    (r.finish if ok else r.fail)(end)
    return r


def add_requests(agg: "llmlat.Aggregator", specs: Iterable[dict]) -> None:
    for spec in specs:
        with make_request(**spec) as r:
            agg.add(r)


def seed_ab() -> List[dict]:
    """DESIGN.md's example: A = 100 tokens 10 ms apart, B = 2 tokens 50 ms
    apart: mean TPOT 30 ms, mean ITL 10.4 ms."""
    a = [100 * MS + i * 10 * MS for i in range(100)]
    b = [100 * MS, 150 * MS]
    return [dict(start=0, times=a), dict(start=0, times=b)]


def tool_path() -> Optional[str]:
    """The C ``llmlat`` command: LLMLAT_CLI (meson sets it), else the one
    installed with the package, else the one built beside the library
    loaded (BUILD/lib/libllmlat.so.1 -> BUILD/tools/llmlat), else None."""
    if os.environ.get("LLMLAT_CLI"):
        return os.environ["LLMLAT_CLI"]
    from llmlat import _native
    if _native.command_path():
        return _native.command_path()
    lib = llmlat.library_path
    if os.path.sep in lib:
        tool = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(lib))),
                            "tools", "llmlat")
        if os.access(tool, os.X_OK):
            return tool
    return None
