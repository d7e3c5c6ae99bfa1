"""``simulate``: a ready planar mechanism (``mechanisms``) run from its initial state on the chosen
engine (``engine.run``)."""

from __future__ import annotations

from .engine import run
from .hybrid.integrator import Results
from .mechanisms import regularised
from .planar.bristle import BristleSystem
from .planar.regularised import RegularisedSystem
from .planar.system import MechanismSystem


def simulate(mechanism, inputs, t_end, q0, u0, *, dt_out=0.01, rtol=1e-10, atol=1e-12, v_eps=None, bristle=None,
             engine="auto") -> Results:
    """Simulate a ready mechanism from (q0, u0) at t = 0 to t_end (s), recording every dt_out (s).

    inputs: one signal per drive (number, Sine, PiecewiseConstant, PiecewiseLinear, or a callable of t,
    which only the Python engine runs).
    v_eps: if given (m/s or rad/s), friction is regularised by tanh(sd / v_eps) instead of exact
    stick-slip (for comparison: the held joints then creep). bristle: if given, one bristle law per
    frictional contact (``planar.contact_laws``; a mechanism file's with its joints' own laws), run as
    ``planar.BristleSystem`` (bristle deflections start at 0). engine: as for ``engine.run``.
    """
    if bristle is not None:
        system = BristleSystem(mechanism, bristle, inputs)
    elif v_eps is None:
        system = MechanismSystem(mechanism, inputs)
    else:
        system = RegularisedSystem(regularised(mechanism, v_eps), inputs)
    return run(system, system.initial_state(q0, u0), t_end, dt_out=dt_out, rtol=rtol, atol=atol, engine=engine)
