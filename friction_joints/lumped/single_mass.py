"""A single mass with extended Coulomb friction (seed 001 Sect. 2, Fig. 3), in luz/tar form.

    M zdd + C tar(v, F_T0K / C) = F - K z,   v = zd - v_belt (the friction surface moves at v_belt)

In slip (v != 0) the friction is C v + F_T0K sgn v; at v = 0 the static friction is
F_W - luz(F_W, F_T0S) with the acting force F_W = F - K z: the mass sticks (moves with the
surface, zdd = 0) while |F_W| <= F_T0S and breaks away when luz(F_W, F_T0S) leaves zero (a located
event). K = 0 and v_belt = 0 give the paper's Fig. 3 system; K > 0 and v_belt > 0 the classic
stick-slip oscillator (a mass on a belt held by a spring). Separate static and kinetic levels
F_T0S >= F_T0K follow the paper's final remarks. State y = [z, zd, W_drive, W_friction].
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require
from ..hybrid.integrator import DrivenSystem, Event
from ..hybrid.stiction import DirectionMode as Mode
from ..hybrid.stiction import direction_change
from .projections import luz

ZERO_VELOCITY = 1e-9  # m/s


@dataclass(frozen=True)
class SingleMassParameters:
    """M (kg), C (N.s/m), FT0 kinetic and FT0S static level (N; None: = FT0), K spring (N/m),
    v_belt velocity of the friction surface (m/s)."""

    M: float = 1.0
    C: float = 0.0
    FT0: float = 2.0
    FT0S: float | None = None
    K: float = 0.0
    v_belt: float = 0.0

    def __post_init__(self):
        problems = []
        require(problems, "M", self.M, 0.0, low_open=True)
        for name in ("C", "FT0", "K"):
            require(problems, name, getattr(self, name), 0.0)
        if self.FT0S is None:
            object.__setattr__(self, "FT0S", self.FT0)
        require(problems, "FT0S", self.FT0S, self.FT0)
        require(problems, "v_belt", self.v_belt)
        check_parameters(problems)


def substitutive_parameters(C, FT0):
    """(C, F_T0) of one friction equivalent to several on the same mass: sums of the C_i and F_T0i
    (seed 001 Sect. 2, from k1 tar(x, a1) + k2 tar(x, a2) = (k1 + k2) tar(x, (k1 a1 + k2 a2)/(k1 + k2)))."""
    return float(np.sum(C)), float(np.sum(FT0))


def massless_velocity(F, C, FT0):
    """zd of the massless limit M -> 0: C zd = luz(F, F_T0) (seed 001 Sect. 2); C > 0 (N.s/m)."""
    return luz(F, FT0) / C


class SingleMassFriction(DrivenSystem):
    """The single mass as a HybridSystem. inputs: one signal F (N)."""

    def __init__(self, params: SingleMassParameters, inputs):
        super().__init__(inputs, 1, "inputs (the force F)")
        self.p = params

    def initial_state(self, z, zd):
        return np.array([float(z), float(zd), 0.0, 0.0])

    def force(self, t):
        return float(self.input_values(t)[0])

    def acting(self, t, y):
        """F_W = F - K z (N): the force the friction must hold."""
        return self.force(t) - self.p.K * y[0]

    def friction(self, t, y, mode):
        """Friction force on the mass (N): -C tar(v, F_T0K / C) in slip, -F_W while stuck."""
        v = y[1] - self.p.v_belt
        if mode.direction == 0:
            return -self.acting(t, y)
        return -(self.p.C * v + self.p.FT0 * mode.direction)

    def acceleration(self, t, y, mode):
        """(zdd (m/s^2), friction (N)): M zdd = F_W + friction, exactly 0 while stuck (friction = -F_W)."""
        fr = self.friction(t, y, mode)
        return (self.acting(t, y) + fr) / self.p.M, fr

    def rhs(self, t, y, mode):
        zdd, fr = self.acceleration(t, y, mode)  # stuck: zd = v_belt exactly, so no friction power
        return np.array([y[1], zdd, self.force(t) * y[1], fr * (y[1] - self.p.v_belt)])

    def events(self, mode):
        if mode.direction == 0:
            return [Event("breakaway", lambda t, y: abs(self.acting(t, y)) - self.p.FT0S, +1, True)]
        if self.p.FT0S == 0:
            return []
        return [Event("slip_zero", lambda t, y: mode.direction * (y[1] - self.p.v_belt), -1)]

    def update(self, t, y, mode, event):
        v = y[1] - self.p.v_belt
        F_W = self.acting(t, y)
        if event == "breakaway":  # the located instant where luz(F_W, F_T0S) leaves zero
            new = Mode(int(np.sign(F_W)))
        elif event != "slip_zero" and abs(v) > ZERO_VELOCITY:
            new = Mode(int(np.sign(v)))
        elif mode is not None and mode.direction != 0 and event != "slip_zero":
            new = mode  # settling right after a breakaway: the new slip keeps its direction
        else:  # at v = 0: zdd = luz(F_W, F_T0S) / M decides (seed 001 Sect. 2)
            new = Mode(int(np.sign(luz(F_W, self.p.FT0S))))
        if new.direction == 0:
            y = y.copy()
            y[1] = self.p.v_belt  # stuck: exactly at the surface velocity, no creep
        return y, new, direction_change(mode, new)

    # --- compiled engine (friction_joints.lumped.packing) -------------------------------------------
    def _build_compiled(self):
        """The CompiledModel of this system (kernels of the C family "lumped", the parameters as arrays by
        ``lumped.packing``), None for a subclass that changes the equations."""
        if not self._keeps_equations(SingleMassFriction, ("rhs", "events", "record", "force", "acting", "friction",
                                                          "acceleration", "input_values", "update",
                                                          "events_watch_all")):
            return None
        from . import packing

        return packing.compile_single(self)

    def encode_mode(self, mode):
        """(fmode float64, imode int64) of a DirectionMode for the compiled kernels."""
        from . import packing

        return packing.encode_single(mode)

    def decode_mode(self, fmode, imode):
        """The DirectionMode of the compiled arrays (the inverse of ``encode_mode``)."""
        from . import packing

        return packing.decode_single(fmode, imode)

    def change_kind(self, mode, new, event, change):
        """The kind ``update`` returns when ``mode`` became ``new`` (the C engine's decision; its change
        report is empty): ``direction_change``."""
        return direction_change(mode, new)

    def decode_record(self, out):
        """The dict of ``record`` from the flat output of the compiled record kernel."""
        from . import packing

        return packing.decode_record(packing.SINGLE_MASS, out)

    def record(self, t, y, mode):
        zdd, fr = self.acceleration(t, y, mode)
        return dict(z=y[0], zd=y[1], zdd=zdd, f=fr, F=self.force(t), stuck=mode.direction == 0,
                    E_kin=0.5 * self.p.M * y[1] ** 2, E_spring=0.5 * self.p.K * y[0] ** 2, W_drive=y[2],
                    W_friction=y[3])
