"""A single-track (bicycle) vehicle model with linear tyres, the partner of the steering system.

States: lateral velocity v_y (m/s) and yaw rate r (rad/s) at constant forward speed u:

    m (v_y' + u r) = F_yf + F_yr,        I_z r' = a F_yf - b F_yr,
    F_yf = C_f alpha_f, alpha_f = delta - (v_y + a r) / u,    F_yr = C_r alpha_r, alpha_r = -(v_y - b r) / u,

with delta the mean of the two road-wheel steer angles. With a relaxation length sigma > 0 the axle
forces follow their steady values with a lag, F_y' = (u / sigma) (C alpha - F_y) (time constant
sigma / u), and F_yf, F_yr become states. Outputs: yaw rate, lateral acceleration
a_y = v_y' + u r, the aligning moment of each front wheel about its king-pin
M_z = -(t_p + t_c) F_yf / 2 (pneumatic trail t_p plus caster trail t_c: it turns the wheel back), and
the front wheel loads with the lateral load transfer dF = m a_y h b / (L T) (the front axle's share of
the total transfer by its static load): F_z,left = F_z0 - dF, F_z,right = F_z0 + dF in a left turn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require
from ..hybrid.integrator import DrivenSystem

G = 9.81


@dataclass(frozen=True)
class VehicleParameters:
    """A mid-size passenger car: m 1500 kg, I_z 2500 kg.m2, a 1.2 m and b 1.5 m from the centre of
    mass to the front and rear axles, C_f 110 kN/rad and C_r 140 kN/rad cornering stiffness per axle
    (understeering), t_p 0.03 m pneumatic and t_c 0.02 m caster trail, h 0.55 m height of the centre
    of mass, T 1.55 m front track, u forward speed (m/s; 80 km/h), sigma tyre relaxation length (m; 0:
    none, about 0.5 m for a passenger-car tyre)."""

    m: float = 1500.0
    I_z: float = 2500.0
    a: float = 1.2
    b: float = 1.5
    C_f: float = 110e3
    C_r: float = 140e3
    t_p: float = 0.03
    t_c: float = 0.02
    h: float = 0.55
    T: float = 1.55
    u: float = 80 / 3.6
    sigma: float = 0.0

    def __post_init__(self):
        problems = []
        for name in ("m", "I_z", "a", "b", "C_f", "C_r", "T", "u"):
            require(problems, name, getattr(self, name), 0.0, low_open=True)
        for name in ("t_p", "t_c", "h", "sigma"):
            require(problems, name, getattr(self, name), 0.0)
        check_parameters(problems)

    @property
    def front_wheel_load(self) -> float:
        """Static load of one front wheel (N)."""
        return self.m * G * self.b / (2.0 * (self.a + self.b))


class SingleTrackVehicle(DrivenSystem):
    """The vehicle as a HybridSystem with one mode. inputs: signals (delta_left, delta_right) (rad).
    State y = [v_y, r, psi (yaw angle, rad), F_yf, F_yr] (the forces are states only with sigma > 0)."""

    def __init__(self, params: VehicleParameters, inputs):
        super().__init__(inputs, 2, "inputs (delta_left, delta_right)")
        self.p = params

    def initial_state(self):
        return np.zeros(5)

    def steady_forces(self, t, y):
        """(C_f alpha_f, C_r alpha_r) (N): the axle forces without relaxation."""
        p = self.p
        delta_left, delta_right = self.input_values(t)
        delta = 0.5 * (delta_left + delta_right)
        alpha_f = delta - (y[0] + p.a * y[1]) / p.u
        alpha_r = -(y[0] - p.b * y[1]) / p.u
        return p.C_f * alpha_f, p.C_r * alpha_r

    def tyre_forces(self, t, y):
        """(F_yf, F_yr) (N): the steady forces, or the relaxed states when sigma > 0."""
        return (y[3], y[4]) if self.p.sigma > 0 else self.steady_forces(t, y)

    def rhs(self, t, y, mode):
        p = self.p
        F_f, F_r = self.tyre_forces(t, y)
        if p.sigma > 0:
            S_f, S_r = self.steady_forces(t, y)
            lag = (p.u / p.sigma * (S_f - F_f), p.u / p.sigma * (S_r - F_r))
        else:
            lag = (0.0, 0.0)
        return np.array([(F_f + F_r) / p.m - p.u * y[1], (p.a * F_f - p.b * F_r) / p.I_z, y[1], *lag])

    def events(self, mode):
        return []

    def update(self, t, y, mode, event):
        return y, "smooth", None

    # --- compiled engine (friction_joints.vehicle.single_track_packing) -----------------------------
    def _build_compiled(self):
        """The CompiledModel of this system (kernels of the C family "vehicle", the parameters as arrays by
        ``vehicle.single_track_packing``), None for a subclass that changes the equations."""
        if not self._keeps_equations(SingleTrackVehicle, ("rhs", "events", "record", "steady_forces", "tyre_forces",
                                                          "input_values")):
            return None
        from . import single_track_packing

        return single_track_packing.compile_system(self)

    def encode_mode(self, mode):
        """(fmode float64, imode int64) of the single mode for the compiled kernels."""
        from . import single_track_packing

        return single_track_packing.encode_mode(mode)

    def decode_mode(self, fmode, imode):
        """The mode of the C engine's arrays: the single mode."""
        return "smooth"

    def change_kind(self, mode, new, event, change):
        """The kind of the C engine's mode decision: none (the single mode never changes)."""
        return None

    def decode_record(self, out):
        """The dict of ``record`` from the flat output of the compiled record kernel."""
        from . import single_track_packing

        return single_track_packing.decode_record(out)

    def record(self, t, y, mode):
        p = self.p
        F_f, F_r = self.tyre_forces(t, y)
        a_y = (F_f + F_r) / p.m
        M_z = -(p.t_p + p.t_c) * F_f / 2.0
        dF = p.m * a_y * p.h * p.b / ((p.a + p.b) * p.T)
        return dict(v_y=y[0], r=y[1], psi=y[2], a_y=a_y, F_yf=F_f, F_yr=F_r, M_z_left=M_z, M_z_right=M_z,
                    F_z_left=p.front_wheel_load - dF, F_z_right=p.front_wheel_load + dF)
