"""The build backend of pyproject.toml: meson-python, leaving the source
tree as it found it.

meson-python 0.12 (Debian 12's python3-mesonpy) writes
``.mesonpy-native-file.ini`` into the source directory on every build and
never removes it; later versions write it into their build directory. This
module forwards every PEP 517 hook to ``mesonpy`` and removes that file
afterwards when the hook created it. Everything else meson-python does in
the source tree happens in a temporary ``.mesonpy-*`` directory that it
removes itself.
"""

import functools
import os

import mesonpy

_NATIVE_FILE = ".mesonpy-native-file.ini"


def _leave_no_native_file(hook):
    @functools.wraps(hook)
    def wrapper(*args, **kwargs):
        existed = os.path.exists(_NATIVE_FILE)
        try:
            return hook(*args, **kwargs)
        finally:
            if not existed and os.path.exists(_NATIVE_FILE):
                os.remove(_NATIVE_FILE)
    return wrapper


# The hooks this meson-python has (newer ones add editable installs).
for _name in ("build_wheel", "build_sdist", "build_editable", "get_requires_for_build_wheel",
              "get_requires_for_build_sdist", "get_requires_for_build_editable",
              "prepare_metadata_for_build_wheel", "prepare_metadata_for_build_editable"):
    if hasattr(mesonpy, _name):
        globals()[_name] = _leave_no_native_file(getattr(mesonpy, _name))
