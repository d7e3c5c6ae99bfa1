"""One event-driven hybrid integrator for every model, with exact stick-slip modes."""

import numpy as np

from .integrator import Event, HybridIntegrator, HybridSystem, IntegratorState, Results
from ..mechanisms import regularised
from .mechanism import MechanismSystem, Mode
from .smooth import RegularisedSystem
from .bristle import BristleSystem, contact_laws
from .signals import Constant, FunctionSignal, Held, PiecewiseConstant, PiecewiseLinear, Signal, Sine, as_signal


def run(system, y0, t_end, *, dt_out=0.01, rtol=1e-10, atol=1e-12, engine="auto") -> Results:
    """Integrate a HybridSystem from y0 at t = 0 to t_end (s), recording every dt_out (s);
    engine: "auto", "compiled" or "python" (``friction_joints.engine``)."""
    from ..engine import make_integrator

    if not t_end > 0:
        raise ValueError(f"t_end={t_end!r} must be positive")
    if not dt_out > 0:
        raise ValueError(f"dt_out={dt_out!r} must be positive")
    # hold_step = dt_out: during stiction the state stands still, so the solver's steps would grow
    # without bound and could step over a breakaway driven by the inputs alone
    integ = make_integrator(system, 0.0, y0, engine=engine, rtol=rtol, atol=atol, hold_step=dt_out)
    n = int(np.floor(t_end / dt_out + 1e-9))
    return integ.advance(t_end, np.append(np.arange(1, n + 1) * dt_out, t_end))


def simulate(mechanism, inputs, t_end, q0, u0, *, dt_out=0.01, rtol=1e-10, atol=1e-12, v_eps=None,
             engine="auto") -> Results:
    """Simulate a ready mechanism from (q0, u0) at t = 0 to t_end (s), recording every dt_out (s).

    inputs: one signal per drive (number, Sine, PiecewiseConstant, PiecewiseLinear, or a callable of t,
    which only the Python engine runs).
    v_eps: if given (m/s or rad/s), friction is regularised by tanh(sd / v_eps) instead of exact
    stick-slip (for comparison: the held joints then creep). engine: as for ``run``.
    """
    if v_eps is None:
        system = MechanismSystem(mechanism, inputs)
    else:
        system = RegularisedSystem(regularised(mechanism, v_eps), inputs)
    return run(system, system.initial_state(q0, u0), t_end, dt_out=dt_out, rtol=rtol, atol=atol, engine=engine)


__all__ = ["Event", "HybridIntegrator", "HybridSystem", "IntegratorState", "Results", "MechanismSystem", "RegularisedSystem", "BristleSystem", "contact_laws",
           "Mode", "Constant", "FunctionSignal", "Held", "Sine", "PiecewiseConstant", "PiecewiseLinear", "Signal", "as_signal", "run", "simulate"]
