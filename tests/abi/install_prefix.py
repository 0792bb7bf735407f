#!/usr/bin/env python3
"""The 'install' suite: install into a prefix of one's own, as a user without
root would, and use it from there (docs/install.md).

    install_prefix.py SOURCE_ROOT CC CXX

1. A fresh build of SOURCE_ROOT with the README's quick-start options
   (-Dtests=disabled: the library, the command, the examples), installed
   with `meson install` into TMP/prefix (no --destdir).
2. With no LD_LIBRARY_PATH, the installed bin/llmlat runs and reports on
   the sample trace: its $ORIGIN-relative rpath finds the installed
   library. Again after the prefix is moved elsewhere.
3. pkg-config, given only PKG_CONFIG_PATH=<moved prefix>/<libdir>/pkgconfig,
   resolves every path into the moved prefix (llmlat.pc is relocatable).
4. examples/consumer.c and examples/consumer.cpp (llmlat.hpp, installed
   beside llmlat.h) built with `pkg-config --cflags --libs llmlat` print
   tests/abi/consumer.expected. Run as they are, they cannot start: the
   dynamic loader does not search the prefix (that is what ldconfig, for a
   directory of ld.so.conf, or LD_LIBRARY_PATH, or an rpath are for); with
   LD_LIBRARY_PATH, and built with -Wl,-rpath, they run.
5. The man page is installed under share/man/man1.
"""

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile


def fail(message):
    sys.exit("install-prefix test: " + message)


def run(cmd, what, env=None, ok=True):
    print("$ " + " ".join(shlex.quote(c) for c in cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env, timeout=600)
    if ok and p.returncode != 0:
        print(p.stdout)
        fail("%s failed with status %d" % (what, p.returncode))
    return p if not ok else p.stdout


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_LIBRARY_PATH", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR",
                        "PKG_CONFIG_SYSROOT_DIR", "LD_RUN_PATH")}
    env.update(extra)
    return env


def find(root, name):
    hits = [os.path.join(d, name) for d, _, files in os.walk(root) if name in files]
    if len(hits) != 1:
        fail("expected one %s under %s, found %r" % (name, root, hits))
    return hits[0]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    source, cc, cxx = sys.argv[1], shlex.split(sys.argv[2]), shlex.split(sys.argv[3])
    meson = os.environ.get("MESON", "meson")
    tmp = tempfile.mkdtemp(prefix="llmlat-prefix-")
    try:
        build, prefix, moved = (os.path.join(tmp, d) for d in ("build", "prefix", "moved"))
        env = clean_env()
        run([meson, "setup", build, source, "--prefix", prefix, "-Dtests=disabled"],
            "meson setup", env)
        run([meson, "compile", "-C", build], "meson compile", env)
        run([meson, "install", "-C", build, "--quiet"], "meson install", env)

        trace = os.path.join(source, "examples", "sample-trace.json")
        command = os.path.join(prefix, "bin", "llmlat")
        dynamic = run(["readelf", "-d", command], "readelf")
        runpath = re.search(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", dynamic)
        if not runpath or not runpath.group(1).startswith("$ORIGIN/"):
            fail("bin/llmlat has no $ORIGIN-relative rpath:\n" + dynamic)
        report = run([command, "report", trace], "the installed llmlat")
        os.rename(prefix, moved)
        command = os.path.join(moved, "bin", "llmlat")
        if run([command, "report", trace], "the moved llmlat") != report:
            fail("the moved command reports differently")
        print("bin/llmlat (rpath %s) runs in its prefix and after a move" % runpath.group(1))

        pc = find(moved, "llmlat.pc")
        pc_env = clean_env(PKG_CONFIG_PATH=os.path.dirname(pc))
        cflags = shlex.split(run(["pkg-config", "--cflags", "llmlat"], "pkg-config", pc_env))
        libs = shlex.split(run(["pkg-config", "--libs", "llmlat"], "pkg-config", pc_env))
        libdir = run(["pkg-config", "--variable=libdir", "llmlat"], "pkg-config", pc_env).strip()
        for flag in cflags + libs + ["-L" + libdir]:
            if flag.startswith(("-I", "-L")) and \
                    not os.path.realpath(flag[2:]).startswith(os.path.realpath(moved) + os.sep):
                fail("pkg-config gives %s, outside the moved prefix %s" % (flag, moved))
        for name in ("llmlat.h", "llmlat.hpp", "libllmlat.so.1", "libllmlat.a"):
            find(moved, name)
        man = find(moved, "llmlat.1")
        if not man.endswith(os.path.join("share", "man", "man1", "llmlat.1")):
            fail("the man page is at %s, not share/man/man1" % man)

        with open(os.path.join(source, "tests", "abi", "consumer.expected"), encoding="utf-8") as f:
            version = run([command, "--version"], "llmlat --version").split()[-1]
            expected = f.read().replace("@VERSION@", version)
        strict = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
        programs = [(cc + ["-std=c11"], "consumer.c"), (cxx + ["-std=c++17"], "consumer.cpp")]
        for compiler, name in programs:
            src = os.path.join(source, "examples", name)
            exe = os.path.join(tmp, name.replace(".", "-"))
            run(compiler + strict + [src, "-o", exe] + cflags + libs, "building " + name)
            p = run([exe], name, clean_env(), ok=False)
            if p.returncode == 0 or "libllmlat.so.1" not in p.stdout:
                fail("%s ran without a way to its library; the test's premise is wrong:\n%s"
                     % (name, p.stdout))
            out = run([exe], name, clean_env(LD_LIBRARY_PATH=libdir))
            run(compiler + strict + [src, "-o", exe + "-rpath"] + cflags + libs +
                ["-Wl,-rpath," + libdir], "building " + name + " with an rpath")
            out_rpath = run([exe + "-rpath"], name + " with an rpath", clean_env())
            for label, text in (("LD_LIBRARY_PATH", out), ("rpath", out_rpath)):
                if text != expected:
                    fail("%s (%s) prints\n%s\nnot tests/abi/consumer.expected" % (name, label, text))
            print("%s: built with the moved prefix's pkg-config; runs with LD_LIBRARY_PATH "
                  "or an rpath, not without" % name)
        print("installed into a prefix of its own: the command, pkg-config, C and C++ "
              "consumers and the man page work there and after a move")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
