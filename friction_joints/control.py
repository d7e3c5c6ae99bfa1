"""A discrete PI speed controller for co-simulation (the SpeedController FMU).

The inputs are held over each communication step of length h, so the integral of the error is
exact for the step: I <- I + e h with e = w_ref - w. The drive torque at the end of the step is
tau = sat(k_p (e + I / T_i)), |tau| <= tau_max. Anti-windup by conditional integration: while the
output is saturated, the integral does not grow in the saturating direction.
"""

from __future__ import annotations

import numpy as np

from .errors import check_parameters, require


class PIController:
    """k_p: gain (N.m.s/rad); T_i: integral time (s); tau_max: torque limit (N.m)."""

    def __init__(self, k_p: float, T_i: float, tau_max: float):
        problems = []
        require(problems, "k_p", k_p, 0.0, low_open=True)
        require(problems, "T_i", T_i, 0.0, low_open=True)
        require(problems, "tau_max", tau_max, 0.0, low_open=True)
        check_parameters(problems)
        self.k_p, self.T_i, self.tau_max = float(k_p), float(T_i), float(tau_max)
        self.integral = 0.0  # rad
        self.tau = 0.0  # N.m

    def _output(self, e, integral):
        return float(np.clip(self.k_p * (e + integral / self.T_i), -self.tau_max, self.tau_max))

    def step(self, w_ref: float, w: float, h: float) -> float:
        """Advance by h (s) with w_ref and w (rad/s) held; returns the drive torque tau (N.m)."""
        if not (np.isfinite(w_ref) and np.isfinite(w)):
            raise ValueError(f"inputs must be finite, got w_ref={w_ref!r}, w={w!r}")
        if not (h > 0 and np.isfinite(h)):
            raise ValueError(f"step size h = {h!r} must be positive and finite")
        e = w_ref - w
        integral = self.integral + e * h
        unsaturated = self.k_p * (e + integral / self.T_i)
        if abs(unsaturated) <= self.tau_max or np.sign(e) != np.sign(unsaturated):
            self.integral = integral  # integrate unless that pushes further into the limit
        self.tau = self._output(e, self.integral)
        return self.tau
