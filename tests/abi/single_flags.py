#!/usr/bin/env python3
"""The single header as users vendor it: its implementation compiles
warning-free with -std=c11 -Wall -Wextra -Wpedantic -Werror at -O0, -O1,
-O2, -O3, -Os and -Og under each compiler given (gcc and clang), since
warnings that only some optimization levels see (gcc's maybe-uninitialized
at -O1) break the builds of users who pass their own flags.

    single_flags.py HEADER COMPILER...

A compiler that is not there is a failure, never a skip.
"""
import os
import shutil
import subprocess
import sys
import tempfile

FLAGS = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
LEVELS = ["-O0", "-O1", "-O2", "-O3", "-Os", "-Og"]
# The implementation and a use of it, as single_impl.c has them.
SOURCE = """#define LLMLAT_IMPLEMENTATION
#include "llmlat.h"

int main(void)
{
    llmlat_agg *a = llmlat_agg_new(LLMLAT_CONV_DEFAULT, LLMLAT_MODE_EXACT);
    llmlat_agg_free(a);
    return 0;
}
"""


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    header, compilers = os.path.abspath(sys.argv[1]), sys.argv[2:]
    tmp = tempfile.mkdtemp(prefix="llmlat-flags-")
    try:
        shutil.copy(header, os.path.join(tmp, "llmlat.h"))
        src = os.path.join(tmp, "use.c")
        with open(src, "w", encoding="utf-8") as f:
            f.write(SOURCE)
        failed = []
        for cc in compilers:
            if not shutil.which(cc):
                failed.append("%s: not found" % cc)
                continue
            for level in LEVELS:
                cmd = [cc] + FLAGS + [level, "-c", "-o", os.path.join(tmp, "use.o"), src]
                p = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp)
                status = "ok" if p.returncode == 0 else "FAILED"
                print("%s %s: %s" % (os.path.basename(cc), level, status), flush=True)
                if p.returncode:
                    sys.stderr.write(p.stderr[-4000:])
                    failed.append("%s %s" % (cc, level))
        if failed:
            sys.exit("single_flags.py: %s" % "; ".join(failed))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
