"""Compact piecewise-linear (luz/tar) stick-slip models of one and two masses (seed 001)."""

from ..engine import run
from .bristle import (BristleOscillator, BristleOscillatorParameters, TwoMassBristle, TwoMassBristleParameters,
                      prescribed_slip, simulate_bristle, simulate_two_mass_bristle)
from .projections import luz, sgh, tar, tar_interval, tar_inverse_series
from .single_mass import (SingleMassFriction, SingleMassParameters, massless_velocity,
                          substitutive_parameters)
from .two_mass import TwoMassFriction, TwoMassParameters, accelerations, gauss_static_friction, total_stiction_paper


def simulate_two_mass(params, inputs, t_end, z0=(0.0, 0.0), zd0=(0.0, 0.0), *, dt_out=0.01, rtol=1e-10, atol=1e-12,
                      engine="auto"):
    """Run the two-mass model from (z0, zd0) at t = 0 to t_end (s), recording every dt_out (s);
    inputs: F1, F2 (callables of t, numbers or tables); engine: as for ``engine.run``. Returns hybrid.Results."""
    system = TwoMassFriction(params, inputs)
    return run(system, system.initial_state(z0, zd0), t_end, dt_out=dt_out, rtol=rtol, atol=atol, engine=engine)


def simulate_single_mass(params, force, t_end, z0=0.0, zd0=0.0, *, dt_out=0.01, rtol=1e-10, atol=1e-12,
                         engine="auto"):
    """Run the single-mass model (force F: callable of t, number or table; engine: as for
    ``engine.run``). Returns hybrid.Results."""
    system = SingleMassFriction(params, [force])
    return run(system, system.initial_state(z0, zd0), t_end, dt_out=dt_out, rtol=rtol, atol=atol, engine=engine)


__all__ = ["BristleOscillator", "BristleOscillatorParameters", "TwoMassBristle", "TwoMassBristleParameters",
           "prescribed_slip", "simulate_bristle", "simulate_two_mass_bristle", "luz", "sgh", "tar", "tar_interval", "tar_inverse_series", "TwoMassFriction", "TwoMassParameters",
           "accelerations", "gauss_static_friction", "total_stiction_paper", "simulate_two_mass",
           "SingleMassFriction", "SingleMassParameters", "massless_velocity", "substitutive_parameters",
           "simulate_single_mass"]
