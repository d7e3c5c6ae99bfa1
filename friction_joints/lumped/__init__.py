"""Compact piecewise-linear (luz/tar) stick-slip models of one and two masses (seed 001)."""

import numpy as np

from ..hybrid import HybridIntegrator

from .projections import luz, sgh, tar, tar_interval, tar_inverse_series
from .single_mass import (SingleMassFriction, SingleMassParameters, massless_velocity,
                          substitutive_parameters)
from .two_mass import TwoMassFriction, TwoMassParameters, accelerations, gauss_static_friction, total_stiction_paper


def _run(system, y0, t_end, dt_out, rtol, atol):
    if not (t_end > 0 and dt_out > 0):
        raise ValueError(f"t_end={t_end!r} and dt_out={dt_out!r} must be positive")
    integ = HybridIntegrator(system, 0.0, y0, rtol=rtol, atol=atol, max_step=dt_out)  # see hybrid.simulate
    n = int(np.floor(t_end / dt_out + 1e-9))
    return integ.advance(t_end, np.append(np.arange(1, n + 1) * dt_out, t_end))


def simulate_two_mass(params, inputs, t_end, z0=(0.0, 0.0), zd0=(0.0, 0.0), *, dt_out=0.01, rtol=1e-10, atol=1e-12):
    """Run the two-mass model from (z0, zd0) at t = 0 to t_end (s), recording every dt_out (s);
    inputs: F1, F2 (callables of t, numbers or tables). Returns hybrid.Results."""
    system = TwoMassFriction(params, inputs)
    return _run(system, system.initial_state(z0, zd0), t_end, dt_out, rtol, atol)


def simulate_single_mass(params, force, t_end, z0=0.0, zd0=0.0, *, dt_out=0.01, rtol=1e-10, atol=1e-12):
    """Run the single-mass model (force F: callable of t, number or table). Returns hybrid.Results."""
    system = SingleMassFriction(params, [force])
    return _run(system, system.initial_state(z0, zd0), t_end, dt_out, rtol, atol)


__all__ = ["luz", "sgh", "tar", "tar_interval", "tar_inverse_series", "TwoMassFriction", "TwoMassParameters",
           "accelerations", "gauss_static_friction", "total_stiction_paper", "simulate_two_mass",
           "SingleMassFriction", "SingleMassParameters", "massless_velocity", "substitutive_parameters",
           "simulate_single_mass"]
