"""``python3 -m llmlat report [options] TRACE|-`` (see llmlat._cli)."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
