"""Builds the C engine (friction_joints/native/src) as the package's shared library at pip install.

The library is loaded with ctypes (friction_joints.native), not imported: it uses no Python API.
The project's metadata is in pyproject.toml; the sources and compiler flags are native/build.py's.
"""

import importlib.util
from pathlib import Path

from setuptools import Extension, setup

_spec = importlib.util.spec_from_file_location("engine_build", Path("friction_joints/native/build.py"))
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)
SOURCES = [str(path.relative_to(Path.cwd())) for path in build.sources()]

setup(ext_modules=[Extension("friction_joints.native._engine", sources=SOURCES,
                             include_dirs=[str(build.SOURCE_DIR.relative_to(Path.cwd()))],
                             extra_compile_args=build.CFLAGS,
                             extra_link_args=["-s"],  # no symbol tables: the library ships inside every FMU
                             libraries=["m"])])
