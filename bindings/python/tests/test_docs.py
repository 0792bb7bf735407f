"""The Python examples of docs/python.md and README.md run as written."""

import contextlib
import io
import os
import re
import unittest

from ._support import SOURCE_ROOT, numpy_or_skip

DOCS = [os.path.join(SOURCE_ROOT, "docs", "python.md"), os.path.join(SOURCE_ROOT, "README.md")]


def python_blocks(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


class DocExamplesTest(unittest.TestCase):
    def test_python_md_has_examples(self):
        self.assertGreaterEqual(len(python_blocks(DOCS[0])), 3)

    def test_examples_run(self):
        for path in DOCS:
            if not os.path.exists(path):
                continue
            for i, code in enumerate(python_blocks(path)):
                with self.subTest(doc=os.path.basename(path), block=i):
                    if "import numpy" in code:
                        numpy_or_skip(self)
                    out = io.StringIO()
                    with contextlib.redirect_stdout(out):
                        exec(compile(code, "%s[%d]" % (path, i), "exec"), {})
                    self.assertTrue(out.getvalue())

    def test_first_example_prints_what_it_says(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(python_blocks(DOCS[0])[0], {})
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[0], "0.1")
        self.assertEqual(lines[1], "0.0075")
