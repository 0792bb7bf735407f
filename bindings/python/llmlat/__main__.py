"""``python3 -m llmlat ARGS``: runs the ``llmlat`` command with ARGS.

The command is the C program (tools/llmlat.c) that the package's wheel
installs as its console script; the binding has no reader of its own (the
library reads the files: ``llmlat.read_trace``). It is looked for in this
order: the path in ``LLMLAT_CLI``; the ``bin/llmlat`` of the environment
this package is installed in (beside ``lib/pythonX.Y/site-packages``, or
in ``<target>/bin`` for ``pip install --target``); ``llmlat`` on PATH.
"""

import os
import shutil
import subprocess
import sys
from typing import List, Optional

_ENV = "LLMLAT_CLI"


def command() -> Optional[str]:
    """The ``llmlat`` command to run, or None when there is none."""
    env = os.environ.get(_ENV)
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    parent = os.path.dirname(here)  # site-packages, or a --target directory
    base = parent
    if os.path.basename(parent) in ("site-packages", "dist-packages") \
            and os.path.basename(os.path.dirname(parent)).startswith("python"):
        base = os.path.dirname(os.path.dirname(os.path.dirname(parent)))  # the prefix
    beside = os.path.join(base, "bin", "llmlat")
    if os.path.isfile(beside) and os.access(beside, os.X_OK):
        return beside
    return shutil.which("llmlat")


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the command with argv (default: sys.argv[1:]); its exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    path = command()
    if path is None:
        sys.stderr.write("python -m llmlat: the llmlat command is not installed (install the "
                         "package's wheel, put llmlat on PATH, or set %s to it)\n" % _ENV)
        return 1
    try:
        if argv is None and hasattr(os, "execv"):
            os.execv(path, [path, *args])  # the command's own exit status, signals included
        return subprocess.run([path, *args]).returncode
    except OSError as exc:
        sys.stderr.write("python -m llmlat: cannot run %s: %s\n" % (path, exc))
        return 1


if __name__ == "__main__":
    sys.exit(main())
