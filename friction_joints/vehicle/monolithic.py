"""The steering system and the single-track vehicle integrated as one hybrid system: the reference of
their co-simulation (friction_joints.fmi.steering_vehicle), with or without friction.

The connection equations hold at every instant: the vehicle's steer inputs are the steering's
road-wheel angles (states, so no algebraic loop), and the steering's aligning-moment and wheel-load
inputs are the vehicle's outputs at those angles (direct feedthrough from the angles, evaluated in
the right-hand side, the event functions and the updates). The state is [steering y (14), vehicle y
(5)], the mode the steering's stick-slip mode: the event-driven integrator of ``hybrid`` runs it
with the steering's exact stick-slip (seed 001). The driver torque is held over each communication
step as the masters hold it (time events at the step boundaries), so the reference differs from a
co-simulation only by the coupling.
"""

from __future__ import annotations

import numpy as np

from ..engine import run
from ..hybrid import Event, HybridSystem, PiecewiseConstant
from .single_track import SingleTrackVehicle, VehicleParameters
from .steering import SteeringParameters, SteeringSystem

COLUMNS = ("tau_sw", "delta_sw", "delta_left", "T_column", "W_friction", "r", "a_y", "M_z_left")
N_STEERING = 14  # states of SteeringSystem


class SteeringVehicle(HybridSystem):
    """SteeringSystem + SingleTrackVehicle connected as in ``fmi.steering_vehicle.LINKS``; tau_sw: the
    driver-torque signal (N.m). State [steering (14), vehicle (5)]; mode: the steering's Mode."""

    def __init__(self, steering: SteeringParameters, vehicle: VehicleParameters, tau_sw):
        self.u_steer, self.u_vehicle = np.zeros(4), np.zeros(2)  # inputs set by the connection equations
        self.car = SingleTrackVehicle(vehicle, [lambda t, i=i: self.u_vehicle[i] for i in range(2)])
        self.wheel = SteeringSystem(steering, [tau_sw] + [lambda t, i=i: self.u_steer[i] for i in range(4)])

    def connect(self, t, y) -> dict:
        """Set both models' connected inputs from the state y (19,); returns the vehicle's outputs."""
        self.u_vehicle[:] = y[3], y[4]  # road-wheel angles delta_L, delta_R
        out = self.car.record(t, y[N_STEERING:], None)
        self.u_steer[:] = out["M_z_left"], out["M_z_right"], out["F_z_left"], out["F_z_right"]
        return out

    def initial_state(self):
        return np.concatenate((self.wheel.initial_state(), self.car.initial_state()))

    def rhs(self, t, y, mode):
        self.connect(t, y)
        return np.concatenate((self.wheel.rhs(t, y[:N_STEERING], mode), self.car.rhs(t, y[N_STEERING:], None)))

    def events(self, mode):
        def connected(fn):
            def g(t, y):
                self.connect(t, y)
                return fn(t, y[:N_STEERING])
            return g
        return [Event(e.name, connected(e.fn), e.direction, e.input_driven) for e in self.wheel.events(mode)]

    def update(self, t, y, mode, event):
        self.connect(t, y)
        y_steer, mode, kind = self.wheel.update(t, y[:N_STEERING], mode, event)
        return np.concatenate((y_steer, y[N_STEERING:])), mode, kind

    def record(self, t, y, mode):
        out = self.connect(t, y)
        steer = self.wheel.record(t, y[:N_STEERING], mode)
        return dict(t=t, tau_sw=self.wheel.input_values(t)[0], delta_sw=y[0], delta_left=y[3],
                    T_column=steer["T_c"], W_friction=steer["W_friction"], r=out["r"], a_y=out["a_y"],
                    M_z_left=out["M_z_left"])

    def breakpoints(self):
        return self.wheel.breakpoints()

    def begin_segment(self, t_start, t_end):
        self.wheel.begin_segment(t_start, t_end)


def run_monolithic(tau_sw, t_end, h, steering=None, vehicle=None, rtol=1e-10, atol=1e-12):
    """Integrate from rest at t = 0 to t_end with tau_sw(t) (N.m) held at tau_sw(k h) over [k h,
    (k + 1) h]; steering, vehicle: {parameter: value} as in the FMUs. Returns a structured array with
    'time' (the points k h, each the state just before the torque changes there) and COLUMNS."""
    n = int(round(t_end / h))
    times = np.arange(n + 1) * h
    torques = [tau_sw(t) for t in times]
    system = SteeringVehicle(SteeringParameters(**(steering or {})), VehicleParameters(**(vehicle or {})),
                             PiecewiseConstant(times, torques))
    results = run(system, system.initial_state(), n * h, dt_out=h, rtol=rtol, atol=atol, engine="python")
    rows = [results.rows[i] for i in results.rows_at(times)]
    # the torque held over the step that ends at each point (the one a master sets at its start)
    held = torques[:1] + torques[:-1]
    return np.array([(r["t"], tau, *(r[c] for c in COLUMNS[1:])) for r, tau in zip(rows, held)],
                    dtype=[("time", float)] + [(c, float) for c in COLUMNS])
