"""numba's on-disk cache for the compiled engine, invalidated by any change to the engine's sources.

numba stamps a cached function with its own source file only: a helper changed in another module
would leave the kernels that call it stale. Every function of this package is therefore stamped
with a hash of the package's sources (``ENGINE_STAMP``), those without compiled code apart. The
cache lies in ``__pycache__`` beside the sources (shipped inside the FMUs), or in ``NUMBA_CACHE_DIR`` when that is set; it is
keyed on the source contents, not on paths or modification times, so it stays valid after an FMU is
extracted into another folder. It does not fit another CPU model or numba version: numba then
compiles again (``compile_seconds`` measures how long the import took).
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path

from numba.core import caching

PACKAGE_DIR = Path(__file__).resolve().parent


#: the modules of this package with no compiled code: a change to them leaves the cache valid
NOT_COMPILED = ("__init__.py", "__main__.py", "cache.py", "integrator.py", "model.py")


def _engine_stamp() -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in PACKAGE_DIR.glob("*.py") if p.name not in NOT_COMPILED):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


ENGINE_STAMP = _engine_stamp()


class _EngineLocator(caching.InTreeCacheLocator):
    """In-tree cache of the functions of this package, stamped with ENGINE_STAMP."""

    def get_source_stamp(self):
        return ENGINE_STAMP

    @classmethod
    def from_function(cls, py_func, py_file):
        if Path(py_file).resolve().parent != PACKAGE_DIR:
            return None
        return super().from_function(py_func, py_file)


class _EngineUserDirLocator(caching.UserProvidedCacheLocator):
    """The same stamp in the directory NUMBA_CACHE_DIR names."""

    def get_source_stamp(self):
        return ENGINE_STAMP

    @classmethod
    def from_function(cls, py_func, py_file):
        if Path(py_file).resolve().parent != PACKAGE_DIR:
            return None
        return super().from_function(py_func, py_file)


def install():
    """Put the engine's locators first (idempotent); call before any kernel is compiled."""
    classes = caching.CacheImpl._locator_classes
    for locator in (_EngineLocator, _EngineUserDirLocator):
        if locator not in classes:
            classes.insert(0, locator)


def cache_files() -> list:
    """The in-tree cache files of the engine as it is now (after its kernels were compiled or
    loaded): each index stamped with ENGINE_STAMP and the compiled code it lists, not the stale
    files of earlier sources. Empty when NUMBA_CACHE_DIR sends the cache elsewhere."""
    from numba import config

    if config.CACHE_DIR:
        return []
    files = []
    for index in sorted((PACKAGE_DIR / "__pycache__").glob("*.nbi")):
        with open(index, "rb") as f:
            pickle.load(f)  # numba's version
            stamp, overloads = pickle.loads(f.read())
        if stamp == ENGINE_STAMP:
            files += [index] + [index.with_name(name) for name in sorted(overloads.values())]
    return files
