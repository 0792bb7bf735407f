"""Finding the library: LLMLAT_LIBRARY, a copy in the package, the SONAME,
ctypes.util.find_library; and what happens when none works."""

import ctypes.util
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

from ._support import PACKAGE_ROOT, llmlat
from llmlat import _native

LIBRARY = os.path.realpath(llmlat.library_path) if os.path.sep in llmlat.library_path else None


def run_python(code, env_updates, cwd, drop=("LLMLAT_LIBRARY", "LD_LIBRARY_PATH")):
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(env_updates)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)


@unittest.skipIf(LIBRARY is None, "the library was loaded by SONAME: no file to copy")
class LoaderOrderTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="llmlat-loader-")
        self.addCleanup(shutil.rmtree, self.tmp)
        # a copy of the package, without any library inside
        shutil.copytree(os.path.join(PACKAGE_ROOT, "llmlat"), os.path.join(self.tmp, "llmlat"),
                        ignore=shutil.ignore_patterns("__pycache__", "libllmlat*"))
        self.libdir = os.path.join(self.tmp, "lib")
        os.mkdir(self.libdir)
        shutil.copy(LIBRARY, os.path.join(self.libdir, "libllmlat.so.1"))

    def test_env_variable_first(self):
        # even with a copy in the package, the variable wins
        shutil.copy(LIBRARY, os.path.join(self.tmp, "llmlat", "libllmlat.so.1"))
        p = run_python("import llmlat; print(llmlat.library_path)",
                       {"LLMLAT_LIBRARY": os.path.join(self.libdir, "libllmlat.so.1")}, self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), os.path.join(self.libdir, "libllmlat.so.1"))

    def test_env_variable_wrong_path_is_an_error_not_a_fallback(self):
        shutil.copy(LIBRARY, os.path.join(self.tmp, "llmlat", "libllmlat.so.1"))
        p = run_python("import llmlat", {"LLMLAT_LIBRARY": "/nonexistent/libllmlat.so.1"},
                       self.tmp)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("ImportError", p.stderr)
        self.assertIn("/nonexistent/libllmlat.so.1", p.stderr)
        self.assertIn("check LLMLAT_LIBRARY", p.stderr)

    def test_env_variable_not_libllmlat(self):
        libc = ctypes.util.find_library("c")
        p = run_python("import llmlat", {"LLMLAT_LIBRARY": libc}, self.tmp)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("is not libllmlat", p.stderr)

    def test_copy_inside_the_package_second(self):
        copy = os.path.join(self.tmp, "llmlat", "libllmlat.so.1")
        shutil.copy(LIBRARY, copy)
        p = run_python("import llmlat; print(llmlat.library_path)",
                       {"LD_LIBRARY_PATH": self.libdir}, self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), copy)

    def test_soname_third(self):
        p = run_python("import llmlat; print(llmlat.library_path, llmlat.version())",
                       {"LD_LIBRARY_PATH": self.libdir}, self.tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.split()[0], "libllmlat.so.1")


class CommandPathTest(unittest.TestCase):
    """_native.command_path(): the command pip installed beside the package,
    in each layout the command's rpath names."""

    def layout(self, package_dir, command):
        """A copy of the package at package_dir and an executable at command;
        what command_path() says there."""
        tmp = tempfile.mkdtemp(prefix="llmlat-command-")
        self.addCleanup(shutil.rmtree, tmp)
        pkg = os.path.join(tmp, package_dir, "llmlat")
        shutil.copytree(os.path.dirname(_native.__file__), pkg,
                        ignore=shutil.ignore_patterns("__pycache__", "libllmlat*"))
        if command:
            exe = os.path.join(tmp, command)
            os.makedirs(os.path.dirname(exe), exist_ok=True)
            with open(exe, "w") as f:
                f.write("#!/bin/sh\n")
            os.chmod(exe, 0o755)
        p = run_python("from llmlat import _native; print(_native.command_path())",
                       {"PYTHONPATH": os.path.dirname(pkg),
                        "LLMLAT_LIBRARY": _native.library_path}, tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        return tmp, p.stdout.strip()

    def test_venv_prefix_user(self):
        tmp, found = self.layout("lib/python3.11/site-packages", "bin/llmlat")
        self.assertEqual(found, os.path.join(tmp, "bin", "llmlat"))

    def test_debian_dist_packages(self):
        tmp, found = self.layout("lib/python3.11/dist-packages", "bin/llmlat")
        self.assertEqual(found, os.path.join(tmp, "bin", "llmlat"))

    def test_pip_target(self):
        tmp, found = self.layout("target", "target/bin/llmlat")
        self.assertEqual(found, os.path.join(tmp, "target", "bin", "llmlat"))

    def test_none_without_the_command(self):
        self.assertEqual(self.layout("lib/python3.11/site-packages", None)[1], "None")


class CandidatesTest(unittest.TestCase):
    """The order of the candidates, with the file system and find_library
    mocked (find_library's own search is the platform's business)."""

    def test_order_without_variable(self):
        pkg = os.path.dirname(_native.__file__)
        copy = os.path.join(pkg, "libllmlat.so.1")
        with mock.patch.dict(os.environ, {"LLMLAT_LIBRARY": ""}), \
                mock.patch.object(_native.os.path, "exists", lambda p: p == copy), \
                mock.patch.object(_native.ctypes.util, "find_library",
                                  lambda name: "libllmlat.so.7" if name == "llmlat" else None):
            self.assertEqual(list(_native.candidates()),
                             [copy, "libllmlat.so.1", "libllmlat.so.7"])

    def test_find_library_same_as_soname_is_not_tried_twice(self):
        with mock.patch.dict(os.environ, {"LLMLAT_LIBRARY": ""}), \
                mock.patch.object(_native.os.path, "exists", lambda p: False), \
                mock.patch.object(_native.ctypes.util, "find_library",
                                  lambda name: "libllmlat.so.1"):
            self.assertEqual(list(_native.candidates()), ["libllmlat.so.1"])

    def test_find_library_nothing(self):
        with mock.patch.dict(os.environ, {"LLMLAT_LIBRARY": ""}), \
                mock.patch.object(_native.os.path, "exists", lambda p: False), \
                mock.patch.object(_native.ctypes.util, "find_library", lambda name: None):
            self.assertEqual(list(_native.candidates()), ["libllmlat.so.1"])

    def test_variable_only(self):
        with mock.patch.dict(os.environ, {"LLMLAT_LIBRARY": "/x/libllmlat.so"}):
            self.assertEqual(list(_native.candidates()), ["/x/libllmlat.so"])

    def test_nothing_loads(self):
        with mock.patch.dict(os.environ, {"LLMLAT_LIBRARY": ""}), \
                mock.patch.object(_native, "candidates",
                                  lambda: iter(["/nonexistent/a.so", "/nonexistent/b.so"])):
            with self.assertRaises(ImportError) as cm:
                _native._open()
        self.assertIn("/nonexistent/a.so", str(cm.exception))
        self.assertIn("/nonexistent/b.so", str(cm.exception))
        self.assertIn("set LLMLAT_LIBRARY", str(cm.exception))

    def test_missing_symbol(self):
        class Partial:
            """Exports nothing."""

        with self.assertRaisesRegex(ImportError, "does not export llmlat_"):
            _native._declare(Partial(), "/x/libllmlat.so")
