"""Choice of the engine that runs a hybrid system: the compiled one (the C engine, ``native``) or the
Python reference (``hybrid``); ``run`` integrates a system on it (``simulation.simulate`` a ready
planar mechanism).

``engine``: "auto" (the compiled engine where the system and its inputs allow it, else Python),
"compiled" (an error where it cannot run) or "python". Where "auto" runs the Python engine (the C engine
not built, a system without a compiled form, an input given as a Python function of time) it warns why
and how much slower that is (``EngineFallbackWarning``). The FMUs take their engine from the
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


class EngineFallbackWarning(RuntimeWarning):
    """engine="auto" runs a system on the Python engine: the message says why."""


def why_not_compiled(system) -> str | None:
    """Why ``system`` cannot run on the C engine (None if it can): it has no compiled form in this
    configuration, or one of its inputs is a Python function of time, which C cannot call."""
    compiled = getattr(system, "compiled", None)
    if compiled is None or compiled() is None:
        return (f"{type(system).__name__} has no compiled form in this configuration (a part, law or subclass "
                "the C engine does not implement)")
    for i, signal in enumerate(getattr(system, "inputs", ())):
        if signal.form(0.0, 0.0) is None:
            return (f"input {i} of {type(system).__name__} is a Python function of time, which the C engine "
                    "cannot call (give it as a number, Sine, PiecewiseConstant or PiecewiseLinear of "
                    "friction_joints.hybrid.signals)")
    return None


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
                      EngineFallbackWarning, stacklevel=2)
        return HybridIntegrator(system, t0, y0, **options)
    from .native.instance import CompiledIntegrator

    reason = why_not_compiled(system)
    if reason is None:
        return CompiledIntegrator(system, t0, y0, **options)
    if engine == "compiled":
        raise ValueError(f"engine='compiled' cannot run this system: {reason}")
    warnings.warn(f"running on the Python engine ({PYTHON_SLOWDOWN} slower): {reason}", EngineFallbackWarning,
                  stacklevel=2)
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
