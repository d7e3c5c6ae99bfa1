"""Choice of the engine that runs a hybrid system: the compiled one (numba) or the Python reference.

``engine``: "auto" (the compiled engine where the system and its inputs allow it, else Python),
"compiled" (an error where it cannot run) or "python". Without numba, "auto" runs the Python engine
and warns once how much slower that is. The FMUs take their engine from the environment variable
FRICTION_JOINTS_ENGINE (default "auto").
"""

from __future__ import annotations

import _imp
import contextlib
import importlib
import importlib.abc
import importlib.util
import os
import sys
import threading
import time
import warnings

from .hybrid.integrator import HybridIntegrator

ENGINES = ("auto", "compiled", "python")
PYTHON_SLOWDOWN = "20-300x"  # measured in benchmarks/bench_compiled.py (README)


def compiled_available() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


_load = {}  # what load_compiled cost so far: 'seconds', 'compiled' (empty until the integrator is loaded)
_load_lock = threading.Lock()
BUILD_PACKAGE = "friction_joints"  # the name the engine's cache is compiled under (build_fmu.py)


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of BUILD_PACKAGE and its modules give the modules of the package named ``own``."""

    def __init__(self, own):
        self.own = own

    def find_spec(self, name, path=None, target=None):
        if name == BUILD_PACKAGE or name.startswith(BUILD_PACKAGE + "."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module(self.own + spec.name[len(BUILD_PACKAGE):])

    def exec_module(self, module):
        pass


@contextlib.contextmanager
def _cache_names():
    """numba's cache refers to the modules it was compiled in by name (it imports them to rebuild a
    kernel's environment). An FMU carries this package under another name (build_fmu.py, isolation):
    while its cache loads, BUILD_PACKAGE stands for this copy; afterwards that name is as before.
    The swap holds the interpreter's import lock: another thread of the host (a Dask worker's event
    loop pickling a result of the installed package) that imports a module meanwhile waits for the
    installed package's modules to be back instead of getting this copy's."""
    own = __name__.split(".")[0]
    if own == BUILD_PACKAGE:
        yield
        return
    _imp.acquire_lock()
    saved = {n: m for n, m in sys.modules.items() if n == BUILD_PACKAGE or n.startswith(BUILD_PACKAGE + ".")}
    for name in saved:
        del sys.modules[name]
    alias = _Alias(own)
    sys.meta_path.insert(0, alias)
    try:
        yield
    finally:
        sys.meta_path.remove(alias)
        for name in [n for n in sys.modules if n == BUILD_PACKAGE or n.startswith(BUILD_PACKAGE + ".")]:
            del sys.modules[name]
        sys.modules.update(saved)
        _imp.release_lock()


def engine_from_environment() -> str:
    """The engine FRICTION_JOINTS_ENGINE names (default "auto"); ValueError for another value."""
    engine = os.environ.get("FRICTION_JOINTS_ENGINE", "auto")
    if engine not in ENGINES:
        raise ValueError(f"FRICTION_JOINTS_ENGINE={engine!r} must be one of {ENGINES}")
    return engine


def load_compiled(system=None) -> dict:
    """Import the compiled integrator (once) and, given a hybrid system, build its CompiledModel, whose
    kernel module (``compiled.planar``, ``compiled.spatial``, ...) is imported then, once per module:
    an FMU loads from the cache only its own model's kernels. Returns what the loads of this process
    cost so far: {'seconds': their time, 'compiled': True if numba had to compile a kernel (no cache
    for this CPU or numba version)}. Threads that instantiate FMUs at once wait for each other's loads
    (the name swap of _cache_names is global)."""
    with _load_lock:
        if _load and system is None:  # nothing to load: no name swap (it holds the import lock)
            return dict(_load)
        start = time.perf_counter()
        with _cache_names():
            from .compiled import dop853

            model = None if system is None else system.compiled()  # imports the system's kernel module
        kernels = [dop853.advance] + ([] if model is None else [model.rhs, model.events, model.record])
        _load["seconds"] = _load.get("seconds", 0.0) + time.perf_counter() - start
        _load["compiled"] = _load.get("compiled", False) or any(k.stats.cache_misses for k in kernels)
    return dict(_load)


def _compilable(system) -> bool:
    compiled = getattr(system, "compiled", None)
    if compiled is None or compiled() is None:
        return False
    signals = getattr(system, "inputs", ())
    return all(s.form(0.0, 0.0) is not None for s in signals)


def make_integrator(system, t0, y0, *, engine="auto", **options) -> HybridIntegrator:
    """The integrator of ``system`` from (t0, y0) on the chosen engine; options as for
    HybridIntegrator (rtol, atol, max_step, hold_step)."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} must be one of {ENGINES}")
    if engine == "python":
        return HybridIntegrator(system, t0, y0, **options)
    if not compiled_available():
        if engine == "compiled":
            raise RuntimeError("engine='compiled' needs numba, which is not installed")
        warnings.warn(f"numba is not installed: running on the Python engine ({PYTHON_SLOWDOWN} slower)",
                      RuntimeWarning, stacklevel=2)
        return HybridIntegrator(system, t0, y0, **options)
    load_compiled(system)
    from .compiled.integrator import CompiledIntegrator

    if _compilable(system):
        return CompiledIntegrator(system, t0, y0, **options)
    if engine == "compiled":
        raise ValueError(f"{type(system).__name__} cannot run on the compiled engine in this configuration "
                         "(an unsupported part, or inputs that are callables of time)")
    return HybridIntegrator(system, t0, y0, **options)
