#!/usr/bin/env python3
"""The 'wheel' suite: build the Python wheel as a user would, install it into
a fresh virtual environment, and run the Python test suite against it.

    wheel_install.py SOURCE_ROOT BUILT_LLMLAT

1. A fresh venv of Debian's /usr/bin/python3 with --system-site-packages
   (the build backend, python3-mesonpy, and numpy come from Debian).
2. `pip wheel --no-build-isolation --no-index SOURCE_ROOT`: the wheel must be
   platform-tagged and hold exactly the package's files, libllmlat.so.1
   inside the package and the `llmlat` command as its script.
3. The source tree must be as it was: no build leftovers.
4. `pip install` the wheel; with no LLMLAT_LIBRARY, LD_LIBRARY_PATH or
   PYTHONPATH, `import llmlat` loads the library inside the installed
   package, and the installed `llmlat` command runs (its rpath finds the same
   library) and prints what BUILT_LLMLAT prints, and so does `python -m
   llmlat`, which finds that command beside the package.
5. The Python test suite, copied to another directory, runs against the
   installed package (numpy and the C command required).

LLMLAT_WHEEL_PYTHONS (interpreters separated by ':', e.g. a pyenv python3)
repeats steps 4 and 5 with each in a fresh venv of its own, without numpy
unless it has it.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

DEBIAN_PYTHON = "/usr/bin/python3"
CLEAN = ("LLMLAT_LIBRARY", "LD_LIBRARY_PATH", "PYTHONPATH", "PYTHONHOME", "LLMLAT_CLI",
         "LLMLAT_SOURCE_ROOT", "VIRTUAL_ENV")


def fail(message):
    sys.exit("wheel test: " + message)


def run(cmd, what, env=None, cwd=None):
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, env=env, cwd=cwd, timeout=900)
    if p.returncode != 0:
        print(p.stdout)
        fail("%s failed with status %d" % (what, p.returncode))
    return p.stdout


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in CLEAN}
    env.update(extra)
    return env


def tree(root):
    """Every path under root but .git and the build directories (build*/
    at the top: where developers and scripts/test build)."""
    paths = set()
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        if rel == ".":
            dirnames[:] = [d for d in dirnames if d != ".git" and not d.startswith("build")]
            filenames = [f for f in filenames if f != ".git"]
        for name in dirnames + filenames:
            paths.add(os.path.normpath(os.path.join(rel, name)))
    return paths


def project_version(source):
    with open(os.path.join(source, "meson.build"), encoding="utf-8") as f:
        return re.search(r"version:\s*'([^']+)'", f.read()).group(1)


def check_wheel(path, source, version):
    name = os.path.basename(path)
    if not re.fullmatch(r"llmlat-%s-cp3\d+-cp3\d+-linux_\w+\.whl" % re.escape(version), name):
        fail("%s is not a platform wheel of llmlat %s" % (name, version))
    package = os.path.join(source, "bindings", "python", "llmlat")
    expected = {"llmlat/" + f for f in os.listdir(package) if f != "__pycache__"}
    expected |= {"llmlat/libllmlat.so.1", "llmlat-%s.data/scripts/llmlat" % version}
    expected |= {"llmlat-%s.dist-info/%s" % (version, f) for f in ("METADATA", "WHEEL", "RECORD")}
    with zipfile.ZipFile(path) as z:
        names = set(z.namelist())
        wheel_info = z.read("llmlat-%s.dist-info/WHEEL" % version).decode()
    if names != expected:
        fail("the wheel holds %s; expected %s (missing %s, extra %s; a new module of "
             "bindings/python/llmlat goes into llmlat_py_sources of its meson.build)"
             % (sorted(names), sorted(expected), sorted(expected - names),
                sorted(names - expected)))
    if "Root-Is-Purelib: false" not in wheel_info:
        fail("the wheel says it is pure:\n" + wheel_info)
    print("%s: %d files, platform-tagged" % (name, len(names)))


def make_venv(python, where, system_site):
    cmd = [python, "-m", "venv"] + (["--system-site-packages"] if system_site else []) + [where]
    run(cmd, "venv", env=clean_env())
    return os.path.join(where, "bin", "python")


def check_installed(venv_python, run_dir, built_llmlat, source):
    """The installed package loads its own library; the installed command
    runs with no help from the environment and is the built command."""
    out = run([venv_python, "-c", "import os, llmlat; from llmlat import _native; "
               "print(os.path.dirname(llmlat.__file__)); print(llmlat.library_path); "
               "print(_native.command_path())"], "import llmlat", env=clean_env(), cwd=run_dir)
    package, library, found = out.split()
    prefix = os.path.dirname(os.path.dirname(venv_python))
    if not package.startswith(prefix + os.sep):
        fail("import llmlat found %s, not the package installed in %s" % (package, prefix))
    if library != os.path.join(package, "libllmlat.so.1"):
        fail("llmlat loaded %s, not the library inside the package (%s)" % (library, package))
    command = os.path.join(prefix, "bin", "llmlat")
    if found != command:
        fail("llmlat._native.command_path() is %s, not the installed %s" % (found, command))
    ldd = run(["ldd", command], "ldd", env=clean_env())
    found = re.search(r"libllmlat\.so\.1 => (\S+)", ldd)
    if not found or os.path.realpath(found.group(1)) != os.path.realpath(library):
        fail("the installed command does not find the package's library:\n" + ldd)
    trace = os.path.join(source, "examples", "sample-trace.json")
    for args in (["--version"], ["report", "--convention", "vllm", trace]):
        mine = run([command] + args, "installed llmlat", env=clean_env(), cwd=run_dir)
        built = run([built_llmlat] + args, "built llmlat", env=clean_env())
        if mine != built:
            fail("installed `llmlat %s` prints\n%s\nbut the built command prints\n%s"
                 % (" ".join(args), mine, built))
    # `python -m llmlat` runs the command installed with the package, found
    # beside it (not through LLMLAT_CLI or PATH).
    bare = clean_env(PATH="/usr/bin:/bin")
    for args in (["--version"], ["report", "--format", "json", trace]):
        mine = run([venv_python, "-m", "llmlat"] + args, "python -m llmlat", env=bare,
                   cwd=run_dir)
        built = run([built_llmlat] + args, "built llmlat", env=clean_env())
        if mine != built:
            fail("`python -m llmlat %s` prints\n%s\nbut the built command prints\n%s"
                 % (" ".join(args), mine, built))
    print("installed package %s loads %s; %s runs, and python -m llmlat runs it"
          % (package, library, command))
    return command


def run_suite(venv_python, command, source, tmp, require_numpy):
    """The binding's tests, from a copy outside the source tree, against the
    installed package."""
    run_dir = os.path.join(tmp, "run-" + os.path.basename(os.path.dirname(
        os.path.dirname(venv_python))))
    shutil.copytree(os.path.join(source, "bindings", "python", "tests"),
                    os.path.join(run_dir, "tests"))
    env = clean_env(LLMLAT_SOURCE_ROOT=source, LLMLAT_CLI=command, LLMLAT_REQUIRE_CLI="1",
                    PYTHONDONTWRITEBYTECODE="1")
    if require_numpy:
        env["LLMLAT_REQUIRE_NUMPY"] = "1"
    out = run([venv_python, "-m", "unittest", "discover", "-s", "tests", "-t", "."],
              "the Python test suite", env=env, cwd=run_dir)
    print("\n".join(line for line in out.splitlines()
                    if re.match(r"(Ran \d+ tests|OK|FAILED)", line)))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, built_llmlat = (os.path.abspath(a) for a in sys.argv[1:])
    version = project_version(source)
    tmp = tempfile.mkdtemp(prefix="llmlat-wheel-")
    try:
        before = tree(source)
        venv_python = make_venv(DEBIAN_PYTHON, os.path.join(tmp, "venv"), system_site=True)
        dist = os.path.join(tmp, "dist")
        run([venv_python, "-m", "pip", "wheel", "--no-build-isolation", "--no-index",
             "--no-deps", "-w", dist, source], "pip wheel", env=clean_env(), cwd=tmp)
        wheels = os.listdir(dist)
        if len(wheels) != 1:
            fail("pip wheel wrote %r" % wheels)
        wheel = os.path.join(dist, wheels[0])
        check_wheel(wheel, source, version)
        left = sorted(tree(source) - before)
        if left:
            fail("building the wheel left files in the source tree: %s" % left)

        interpreters = [(venv_python, True)]
        for i, python in enumerate(p for p in os.environ.get("LLMLAT_WHEEL_PYTHONS", "")
                                   .split(":") if p):
            interpreters.append((make_venv(python, os.path.join(tmp, "venv%d" % i),
                                           system_site=False), False))
        for python, require_numpy in interpreters:
            run([python, "-m", "pip", "install", "--no-index", "--no-deps", wheel],
                "pip install", env=clean_env(), cwd=tmp)
            command = check_installed(python, tmp, built_llmlat, source)
            run_suite(python, command, source, tmp, require_numpy)
        print("wheel %s: built without leftovers, installed and tested with %s"
              % (os.path.basename(wheel), ", ".join(p for p, _ in interpreters)))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
