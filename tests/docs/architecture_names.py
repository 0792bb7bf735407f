#!/usr/bin/env python3
"""docs/architecture.md names only what exists: every file of lib/ it names is there, every function it writes
with parentheses is defined (or declared) as a function in lib/ or the
public header, and every other name in backticks with an underscore
(functions, types, fields, tables) is a word of lib/ or the header.

Usage: architecture_names.py SOURCE_ROOT"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
page = (root / "docs" / "architecture.md").read_text()
page = re.sub(r"^```.*?^```", "", page, flags=re.S | re.M)  # the drawn tree
code = "\n".join(p.read_text() for p in sorted((root / "lib").rglob("*.[ch]")))
code += (root / "include" / "llmlat.h").read_text()
code += (root / "lib" / "meson.build").read_text()
files = {str(p.relative_to(root / "lib")) for p in (root / "lib").rglob("*.[ch]")}
files |= {pathlib.Path(f).name for f in files}

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
called, named = set(), set()
for span in re.findall(r"`([^`]+)`", page):
    called.update(re.findall(rf"\b({IDENT})\s*\(", span))
    if re.fullmatch(rf"{IDENT}(\(\))?", span.strip()) and "_" in span:
        named.add(span.strip().rstrip("()"))

missing = []
for span in re.findall(r"`([^`]+)`", page):
    for path in re.findall(r"\b([\w/]+\.[ch])\b", span):
        if path not in files and not (root / path).is_file():
            missing.append(f"{path} is no file of lib/")
for name in sorted(called):
    if not re.search(rf"\b{name}\s*\(", code):
        missing.append(f"{name}() is no function of lib/ or include/llmlat.h")
for name in sorted(named - called):
    if not re.search(rf"\b{name}\b", code):
        missing.append(f"{name} is nowhere in lib/ or include/llmlat.h")
for m in missing:
    print(f"docs/architecture.md: {m}", file=sys.stderr)
print(f"{len(called)} functions called, {len(named - called)} other names: "
      f"{len(missing)} missing", file=sys.stderr)
sys.exit(1 if missing else 0)
