#!/usr/bin/env python3
"""Self-test of scripts/amalgamate on a fixture library whose files clash
in every way the real sources might one day (tests/abi/amalgamate-fixture:
same static function, typedef, struct tag, enum constant, static object
and macro in two files; a macro calling a renamed static; an internal
global declared extern; an attribute macro on an internal function; a
feature-test macro).

    amalgamate_selftest.py SOURCE_DIR CC...

The fixture is built twice, as separate files and as the amalgamated
header (normal, LLMLAT_INTERNAL empty, LLMLAT_STATIC), with -std=c11
-Wall -Wextra -Wpedantic -Werror; every build must print what the separate
build prints, and only the API (or nothing, under LLMLAT_STATIC) may be
global.
"""

import os
import shutil
import subprocess
import sys
import tempfile

STRICT = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, **kw)
    if p.returncode != 0:
        print("$ " + " ".join(cmd))
        print(p.stdout)
        sys.exit("selftest: command failed (%d)" % p.returncode)
    return p.stdout


def globals_of(obj):
    out = run(["nm", "--defined-only", "--extern-only", obj])
    return sorted(l.split()[2] for l in out.splitlines() if len(l.split()) == 3)


def main():
    source, cc = sys.argv[1], sys.argv[2:]
    fx = os.path.join(source, "tests", "abi", "amalgamate-fixture")
    tmp = tempfile.mkdtemp(prefix="llmlat-amalg-")
    failures = []
    try:
        single = os.path.join(tmp, "single")
        os.mkdir(single)
        run([sys.executable, os.path.join(source, "scripts", "amalgamate"),
             "--root", fx, "-o", os.path.join(single, "llmlat.h")])
        with open(os.path.join(single, "llmlat.h"), encoding="utf-8") as f:
            text = f.read()
        for needle in ("a__clash", "b__clash", "a__state", "b__state", "a__counter",
                       "struct a__node", "b__MODE_X", "#undef LOCAL_K",
                       "LLMLAT_INTERNAL const int fx_table[4];",
                       "LLMLAT_INTERNAL FX_COLD int helper_cold(pair p);",
                       "#define _POSIX_C_SOURCE 200809L"):
            if needle not in text:
                failures.append("the amalgamation lacks %r" % needle)
        if "not_built" in text:
            failures.append("a source named in a meson.build comment was read")

        # Reference: the files compiled one by one.
        objs = []
        for name in ("a.c", "b.c"):
            obj = os.path.join(tmp, name + ".o")
            run(cc + STRICT + ["-I", os.path.join(fx, "include"), "-I", os.path.join(fx, "lib"),
                               "-c", os.path.join(fx, "lib", name), "-o", obj])
            objs.append(obj)
        ref_exe = os.path.join(tmp, "ref")
        run(cc + STRICT + ["-I", os.path.join(fx, "include"), os.path.join(fx, "main.c")]
            + objs + ["-o", ref_exe])
        want = run([ref_exe])
        print("separate build prints: " + want.strip())

        def variant(label, prelude, expect_globals, with_main):
            impl = os.path.join(tmp, label + ".c")
            with open(impl, "w", encoding="utf-8") as f:
                f.write(prelude + '#include "llmlat.h"\n')
                if with_main:
                    with open(os.path.join(fx, "main.c"), encoding="utf-8") as m:
                        f.write(m.read().replace('#include "llmlat.h"\n', ""))
            obj = os.path.join(tmp, label + ".o")
            run(cc + STRICT + ["-I", single, "-c", impl, "-o", obj])
            got = globals_of(obj)
            if got != sorted(expect_globals):
                failures.append("%s: global symbols %s, expected %s" % (label, got, sorted(expect_globals)))
            exe = os.path.join(tmp, label)
            extra = [] if with_main else [os.path.join(fx, "main.c")]
            run(cc + STRICT + ["-I", single] + extra + [obj, "-o", exe])
            out = run([exe])
            if out != want:
                failures.append("%s prints %r, the separate build %r" % (label, out, want))
            print("%s: prints the same, globals %s" % (label, " ".join(got)))

        api = ["llmlat_fx_a", "llmlat_fx_b"]
        variant("implementation", "#define LLMLAT_IMPLEMENTATION\n", api, False)
        variant("internals-extern", "#define LLMLAT_INTERNAL\n#define LLMLAT_IMPLEMENTATION\n",
                api + ["fx_table", "helper_cold", "helper_shared"], False)
        variant("static", "#define LLMLAT_STATIC\n", ["main"], True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("AMALGAMATE SELF-TEST FAILED:\n  " + "\n  ".join(failures))
        return 1
    print("amalgamate self-test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
