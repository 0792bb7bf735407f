#!/usr/bin/env python3
"""Symbol checks of the 'abi' and 'single' suites.

    check_symbols.py exports HEADER MAP LIB.so
        The functions the shared library exports (nm -D), the LLMLAT_API
        declarations of the header and the globals of the version script
        are the same set; every exported symbol carries the version node
        the map puts it in; the map's nodes form one chain.

    check_symbols.py object HEADER ARCHIVE.a [--api] [NAME ...]
        The global symbols an archive defines are exactly the NAMEs given,
        plus the header's API with --api: the single header's internals
        (and, under LLMLAT_STATIC, its API) must not be global.
"""

import re
import subprocess
import sys


def strip_comments(text):
    return re.sub(r"//[^\n]*|/\*.*?\*/", " ", text, flags=re.S)


def header_api(path):
    """Names declared with LLMLAT_API, and any llmlat_ prototype without it."""
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    # Drop preprocessor lines (with continuations): the LLMLAT_API
    # definition itself is not a declaration.
    text = re.sub(r"^[ \t]*#(?:[^\n\\]|\\.)*", " ", text, flags=re.M | re.S)
    api, bare = set(), []
    for stmt in re.split(r"[;{}]", text):
        m = re.search(r"\b(llmlat_\w+)\s*\(", stmt)
        if not m or re.search(r"\btypedef\b", stmt):
            continue
        if re.search(r"\bLLMLAT_API\b", stmt):
            api.add(m.group(1))
        else:
            bare.append(m.group(1))
    return api, bare


def version_map(path):
    """{symbol: node}, [(node, parent)] of a GNU ld version script."""
    with open(path, encoding="utf-8") as f:
        text = strip_comments(f.read())
    symbols, nodes = {}, []
    for m in re.finditer(r"([A-Za-z_][\w.]*)\s*\{(.*?)\}\s*([A-Za-z_][\w.]*)?\s*;", text, re.S):
        node, body, parent = m.group(1), m.group(2), m.group(3)
        nodes.append((node, parent))
        scope = None
        for tok in re.findall(r"[\w.*]+:|[^\s;]+", body):
            if tok.endswith(":"):
                scope = tok[:-1]
            elif scope == "global":
                if tok in symbols:
                    raise SystemExit("map: %s is in %s and %s" % (tok, symbols[tok], node))
                symbols[tok] = node
    return symbols, nodes


def nm(args):
    p = subprocess.run(["nm"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        raise SystemExit("nm %s failed: %s" % (" ".join(args), p.stderr))
    return p.stdout


def show_diff(label_a, a, label_b, b):
    ok = True
    for name in sorted(a - b):
        print("  %s but not %s: %s" % (label_a, label_b, name))
        ok = False
    for name in sorted(b - a):
        print("  %s but not %s: %s" % (label_b, label_a, name))
        ok = False
    return ok


def check_exports(header, mapfile, lib):
    ok = True
    api, bare = header_api(header)
    if bare:
        print("header: prototypes without LLMLAT_API: " + ", ".join(bare))
        ok = False
    symbols, nodes = version_map(mapfile)
    # Every node but the first inherits the one before it.
    for i, (node, parent) in enumerate(nodes):
        if not re.fullmatch(r"LLMLAT_\d+(\.\d+)*", node):
            print("map: node %s is not named LLMLAT_<version>" % node)
            ok = False
        want = nodes[i - 1][0] if i else None
        if parent != want:
            print("map: node %s inherits %s, expected %s" % (node, parent, want))
            ok = False
    exported = {}
    for line in nm(["-D", "--defined-only", lib]).splitlines():
        parts = line.split()
        if len(parts) != 3:
            continue
        name, _, version = parts[2].partition("@")
        version = version.lstrip("@")
        if parts[1] == "A" and name in {n for n, _ in nodes}:
            continue  # the version node's own definition symbol
        exported[name] = (parts[1], version)
    exp = set(exported)
    ok &= show_diff("exported", exp, "declared in the header", api)
    ok &= show_diff("exported", exp, "in the map", set(symbols))
    ok &= show_diff("declared in the header", api, "in the map", set(symbols))
    for name, (kind, version) in sorted(exported.items()):
        if kind not in "TW":
            print("  exported %s is not a function (nm type %s)" % (name, kind))
            ok = False
        if name in symbols and version != symbols[name]:
            print("  %s has version %r, the map says %s" % (name, version, symbols[name]))
            ok = False
    print("%d functions: exported = declared = mapped; %d version node(s): %s" % (
        len(exp), len(nodes), " <- ".join(n for n, _ in nodes)) if ok else "SYMBOL CHECK FAILED")
    return 0 if ok else 1


def check_object(header, archive, names):
    api, _ = header_api(header)
    want = set(n for n in names if n != "--api")
    if "--api" in names:
        want |= api
    defined = set()
    for line in nm(["--defined-only", "--extern-only", archive]).splitlines():
        parts = line.split()
        if len(parts) == 3:
            defined.add(parts[2])
    ok = show_diff("global in %s" % archive, defined, "expected", want)
    print("%s: %d global symbols, as expected" % (archive, len(defined)) if ok
          else "OBJECT SYMBOL CHECK FAILED")
    return 0 if ok else 1


def main(argv):
    if len(argv) == 5 and argv[1] == "exports":
        return check_exports(argv[2], argv[3], argv[4])
    if len(argv) >= 4 and argv[1] == "object":
        return check_object(argv[2], argv[3], argv[4:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
