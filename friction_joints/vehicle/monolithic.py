"""The steering system and the single-track vehicle without friction integrated as one ODE: the
reference of their co-simulation (friction_joints.fmi.steering_vehicle).

The connection equations hold at every instant: the vehicle's steer inputs are the steering's
road-wheel angles (states, so no algebraic loop), and the steering's aligning-moment and wheel-load
inputs are the vehicle's outputs at those angles (direct feedthrough from the angles, evaluated in
the right-hand side). The state is [steering y (14), vehicle y (5)]. The driver torque is held over
each communication step as the masters hold it, so the reference differs from a co-simulation only
by the coupling. Without friction the right-hand side is continuous (the gear freeplay is piecewise
linear), so scipy's DOP853 at a tight tolerance is a valid integrator.
"""

from __future__ import annotations

import numpy as np
from scipy.integrate import solve_ivp

from .single_track import SingleTrackVehicle, VehicleParameters
from .steering import ELEMENTS, Mode, SteeringParameters, SteeringSystem

COLUMNS = ("tau_sw", "delta_sw", "delta_left", "T_column", "r", "a_y", "M_z_left")


def run_monolithic(tau_sw, t_end, h, steering=None, vehicle=None, rtol=1e-10, atol=1e-12):
    """Integrate from rest at t = 0 to t_end with tau_sw(t) (N.m) held at tau_sw(k h) over [k h,
    (k + 1) h]; steering, vehicle: {parameter: value} as in the FMUs (the steering's friction must be
    off: friction_scale=0). Returns a structured array with 'time' (the points k h) and COLUMNS."""
    u_steer, u_vehicle = np.zeros(5), np.zeros(2)  # the inputs, set from the connection equations
    car = SingleTrackVehicle(VehicleParameters(**(vehicle or {})), [lambda t, i=i: u_vehicle[i] for i in range(2)])
    wheel = SteeringSystem(SteeringParameters(**(steering or {})), [lambda t, i=i: u_steer[i] for i in range(5)])
    if any(wheel.active):
        raise ValueError(f"steering={steering!r}: the monolithic reference has no stick-slip, it needs "
                         "friction_scale=0 (or every friction level 0)")
    slipping = Mode((1,) * len(ELEMENTS))  # no friction: every element "slips" with a zero level

    def connect(t, y):
        """Set both models' inputs from the state; returns the vehicle's outputs."""
        u_vehicle[:] = y[3], y[4]
        out = car.record(t, y[14:], None)
        u_steer[1:] = out["M_z_left"], out["M_z_right"], out["F_z_left"], out["F_z_right"]
        return out

    def rhs(t, y):
        connect(t, y)
        return np.concatenate((wheel.rhs(t, y[:14], slipping), car.rhs(t, y[14:], None)))

    def sample(t, y):
        out = connect(t, y)
        _, _, internal = wheel.accelerations(t, y[:14], slipping)
        return (t, u_steer[0], y[0], y[3], internal["T_c"], out["r"], out["a_y"], out["M_z_left"])

    y = np.concatenate((wheel.initial_state(), car.initial_state()))
    n = int(round(t_end / h))
    u_steer[0] = tau_sw(0.0)
    rows = [sample(0.0, y)]
    for k in range(n):
        u_steer[0] = tau_sw(k * h)
        sol = solve_ivp(rhs, (k * h, (k + 1) * h), y, method="DOP853", rtol=rtol, atol=atol)
        if not sol.success:
            raise ArithmeticError(f"the monolithic integration failed at t={sol.t[-1]!r}: {sol.message}")
        y = sol.y[:, -1]
        rows.append(sample((k + 1) * h, y))
    return np.array(rows, dtype=[("time", float)] + [(c, float) for c in COLUMNS])
