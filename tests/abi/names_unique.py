#!/usr/bin/env python3
"""names-unique: the whole library as one translation unit compiles.

    names_unique.py SINGLE_HEADER CC [CC_ARGS...]

The single header is the sources of lib/ concatenated: a file-scope name
(function, object, type, tag, enum constant or macro) defined in two lib/
files is a redefinition here. The compiler's message names both places
(as lines of the generated header, each file under a banner naming it).
"""
import os
import subprocess
import sys
import tempfile

header, cc = sys.argv[1], sys.argv[2:]
with tempfile.TemporaryDirectory() as tmp:
    unit = os.path.join(tmp, "unit.c")
    with open(unit, "w") as f:
        f.write('#define LLMLAT_IMPLEMENTATION\n#include "%s"\n' % os.path.abspath(header))
    cmd = cc + ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-fsyntax-only", unit]
    res = subprocess.run(cmd, capture_output=True, text=True)
if res.returncode != 0:
    sys.stderr.write(res.stdout + res.stderr)
    sys.stderr.write("names-unique: lib/ as one translation unit does not compile: two files "
                     "define the same file-scope name, or a macro leaks into the next file "
                     "(rename one; docs/architecture.md)\n")
    sys.exit(1)
print("names-unique: every file-scope name of lib/ is unique")
