#!/usr/bin/env python3
"""The 'install' suite: install, then build a consumer as a user would.

    install_consume.py BUILD_DIR SOURCE_DIR CC...

1. `meson install --destdir` the build into a temporary directory.
2. Find llmlat.pc there; pkg-config must resolve every path into that
   directory (PKG_CONFIG_SYSROOT_DIR), never into the system.
3. Build examples/consumer.c with `pkg-config --cflags --libs llmlat`
   (-std=c11 -Wall -Wextra -Wpedantic -Werror): the executable must need
   the SONAME libllmlat.so.<major>; run it against the installed library.
4. Again with `pkg-config --static --cflags --libs llmlat` and -static: no
   dynamic dependency may be left; run it.
5. Both outputs must equal tests/abi/consumer.expected (@VERSION@ stands
   for the installed header's version).
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


def run(cmd, env=None, what=None):
    print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env)
    if p.returncode != 0:
        print(p.stdout)
        sys.exit("install test: %s failed with status %d" % (what or cmd[0], p.returncode))
    return p.stdout


def find(root, name):
    hits = []
    for dirpath, _, files in os.walk(root):
        if name in files:
            hits.append(os.path.join(dirpath, name))
    if len(hits) != 1:
        sys.exit("install test: expected one %s under the destdir, found %r" % (name, hits))
    return hits[0]


def needed(exe):
    out = run(["readelf", "-d", exe], what="readelf")
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    build, source, cc = sys.argv[1], sys.argv[2], sys.argv[3:]
    meson = os.environ.get("MESON", "meson")
    tmp = tempfile.mkdtemp(prefix="llmlat-install-")
    try:
        dest = os.path.join(tmp, "dest")
        # Not --no-rebuild: `meson test --suite install` builds only what the
        # test itself depends on, and install needs every installed target
        # (the test is not parallel, so nothing else builds meanwhile).
        run([meson, "install", "-C", build, "--destdir", dest, "--quiet"],
            what="meson install")
        pc = find(dest, "llmlat.pc")
        header = find(dest, "llmlat.h")
        with open(header, encoding="utf-8") as f:
            h = f.read()
        version = ".".join(re.search(r"#define LLMLAT_VERSION_%s (\d+)" % k, h).group(1)
                           for k in ("MAJOR", "MINOR", "PATCH"))
        major = version.split(".")[0]

        env = dict(os.environ)
        env.pop("PKG_CONFIG_PATH", None)
        env["PKG_CONFIG_LIBDIR"] = os.path.dirname(pc)
        env["PKG_CONFIG_SYSROOT_DIR"] = dest
        cflags = shlex.split(run(["pkg-config", "--cflags", "llmlat"], env))
        libs = shlex.split(run(["pkg-config", "--libs", "llmlat"], env))
        slibs = shlex.split(run(["pkg-config", "--static", "--libs", "llmlat"], env))
        print("cflags %s\nlibs %s\nstatic libs %s" % (cflags, libs, slibs))
        for flag in cflags + libs:
            if flag.startswith(("-I", "-L")) and not flag[2:].startswith(dest):
                sys.exit("install test: %s points outside the install (%s)" % (flag, dest))
        libdir = next(f[2:] for f in libs if f.startswith("-L"))
        if not os.path.isfile(os.path.join(libdir, "libllmlat.a")):
            sys.exit("install test: no libllmlat.a in " + libdir)

        consumer = os.path.join(source, "examples", "consumer.c")
        warn = ["-std=c11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
        with open(os.path.join(source, "tests", "abi", "consumer.expected"), encoding="utf-8") as f:
            expected = f.read().replace("@VERSION@", version)

        shared_exe = os.path.join(tmp, "consumer")
        run(cc + warn + [consumer, "-o", shared_exe] + cflags + libs, what="shared build")
        deps = needed(shared_exe)
        if "libllmlat.so." + major not in deps:
            sys.exit("install test: consumer needs %r, not libllmlat.so.%s" % (deps, major))
        renv = dict(os.environ, LD_LIBRARY_PATH=libdir)
        out_shared = run([shared_exe], renv, what="shared consumer")

        static_exe = os.path.join(tmp, "consumer-static")
        run(cc + warn + ["-static", consumer, "-o", static_exe] + cflags + slibs,
            what="static build")
        deps = needed(static_exe)
        if deps:
            sys.exit("install test: the static consumer still needs %r" % deps)
        out_static = run([static_exe], what="static consumer")

        ok = True
        for label, out in (("shared", out_shared), ("static", out_static)):
            if out != expected:
                ok = False
                print("%s consumer output differs from consumer.expected:\n%s" % (label, out))
        if not ok:
            return 1
        print(out_shared, end="")
        print("installed llmlat %s: shared (needs libllmlat.so.%s) and static consumers "
              "built with pkg-config and ran" % (version, major))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
