"""Choice of the engine that runs a hybrid system: the compiled one (the C engine, ``native``) or the
Python reference (``hybrid``); ``run`` integrates a system on it (``simulation.simulate`` a ready
planar mechanism).

``engine``: "auto" (the compiled engine where the system and its inputs allow it, else Python),
"compiled" (an error where it cannot run) or "python". Where the C engine is not built, "auto" runs
the Python engine and warns once how much slower that is. The FMUs take their engine from the
environment variable FRICTION_JOINTS_ENGINE (default "auto").
"""

from __future__ import annotations

import os
import warnings

import numpy as np

from .hybrid.integrator import HybridIntegrator, Results

ENGINES = ("auto", "compiled", "python")
PYTHON_SLOWDOWN = "20-300x"  # measured in benchmarks/bench_compiled.py (docs/performance.md)


def compiled_available() -> bool:
    """Whether the C engine's library is built (pip install builds it) and loads."""
    from . import native

    try:
        native.library()
    except (RuntimeError, OSError):
        return False
    return True


def engine_from_environment() -> str:
    """The engine FRICTION_JOINTS_ENGINE names (default "auto"); ValueError for another value."""
    engine = os.environ.get("FRICTION_JOINTS_ENGINE", "auto")
    if engine not in ENGINES:
        raise ValueError(f"FRICTION_JOINTS_ENGINE={engine!r} must be one of {ENGINES}")
    return engine


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
            raise RuntimeError("engine='compiled' needs the C engine, which is not built (pip install builds it "
                               "with the system's C compiler)")
        warnings.warn(f"the C engine is not built: running on the Python engine ({PYTHON_SLOWDOWN} slower)",
                      RuntimeWarning, stacklevel=2)
        return HybridIntegrator(system, t0, y0, **options)
    from .native.instance import CompiledIntegrator

    if _compilable(system):
        return CompiledIntegrator(system, t0, y0, **options)
    if engine == "compiled":
        raise ValueError(f"{type(system).__name__} cannot run on the compiled engine in this configuration "
                         "(an unsupported part, or inputs that are callables of time)")
    return HybridIntegrator(system, t0, y0, **options)


def run(system, y0, t_end, *, dt_out=0.01, rtol=1e-10, atol=1e-12, engine="auto") -> Results:
    """Integrate a HybridSystem from y0 at t = 0 to t_end (s), recording every dt_out (s);
    engine: "auto", "compiled" or "python" (``make_integrator``)."""
    if not t_end > 0:
        raise ValueError(f"t_end={t_end!r} must be positive")
    if not dt_out > 0:
        raise ValueError(f"dt_out={dt_out!r} must be positive")
    # hold_step = dt_out: during stiction the state stands still, so the solver's steps would grow
    # without bound and could step over a breakaway driven by the inputs alone
    integ = make_integrator(system, 0.0, y0, engine=engine, rtol=rtol, atol=atol, hold_step=dt_out)
    n = int(np.floor(t_end / dt_out + 1e-9))
    return integ.advance(t_end, np.append(np.arange(1, n + 1) * dt_out, t_end))
