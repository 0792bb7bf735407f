#!/usr/bin/env python3
"""The C++ programs of docs/cpp.md compile (-std=c++17, strict warnings as
errors), run, and print what the page says they print: each ```cpp block is
a whole program, followed by a sentence "It prints `LINE`[ and `LINE`...]"
(fragments are fenced ```c++ instead).

    doc_examples.py DOC INCLUDE_DIR LIBRARY CXX...
"""

import os
import re
import subprocess
import sys
import tempfile


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    doc, include, library, cxx = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    blocks = re.findall(r"```cpp\n(.*?)```\n+(.*?)\n\n", text, re.S)
    if not blocks:
        sys.exit("doc_examples: %s has no ```cpp block followed by 'It prints'" % doc)
    libdir = os.path.dirname(os.path.abspath(library))
    failed = 0
    with tempfile.TemporaryDirectory(prefix="llmlat-cppdoc-") as tmp:
        for i, (code, after) in enumerate(blocks):
            said = re.match(r"It prints (.*?)\.(?:\s|$)", after.replace("\n", " "), re.S)
            if not said:
                print("block %d of %s is not followed by 'It prints `...`'" % (i, doc))
                failed += 1
                continue
            expected = "".join(line + "\n" for line in re.findall(r"`([^`]*)`", said.group(1)))
            src, exe = os.path.join(tmp, "ex%d.cpp" % i), os.path.join(tmp, "ex%d" % i)
            with open(src, "w", encoding="utf-8") as f:
                f.write(code)
            cmd = cxx + ["-std=c++17", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I", include,
                         src, "-o", exe, library, "-Wl,-rpath," + libdir]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True)
            if p.returncode != 0:
                print("block %d does not compile:\n%s" % (i, p.stdout))
                failed += 1
                continue
            p = subprocess.run([exe], stdout=subprocess.PIPE, universal_newlines=True, timeout=60)
            if (p.returncode, p.stdout) != (0, expected):
                print("block %d exits %d and prints %r; the page says %r"
                      % (i, p.returncode, p.stdout, expected))
                failed += 1
            else:
                print("block %d prints what the page says: %r" % (i, expected))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
