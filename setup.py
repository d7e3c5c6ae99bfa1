"""Builds the C engine (friction_joints/native/src) as the package's shared library at pip install.

The library is loaded with ctypes (friction_joints.native), not imported: it uses no Python API.
The project's metadata is in pyproject.toml.
"""

from pathlib import Path

from setuptools import Extension, setup

SOURCES = sorted(str(p) for p in Path("friction_joints/native/src").glob("*.c"))

setup(ext_modules=[Extension("friction_joints.native._engine", sources=SOURCES,
                             include_dirs=["friction_joints/native/src"],
                             extra_compile_args=["-std=c99", "-O2", "-Wall", "-Wextra", "-ffp-contract=off"],
                             libraries=["m"])])
