"""``python3 -m llmlat report [options] TRACE|-`` (see llmlat._cli)."""

import signal
import sys

from ._cli import main

if __name__ == "__main__":
    # Like the C command: a closed pipe (`... | head`) ends the program
    # quietly instead of raising BrokenPipeError.
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())
