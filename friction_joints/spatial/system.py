"""The RSRRR linkage as a HybridSystem of the project's integrator (seed 002 Sect. 4-5).

State y = [q (4), qd (4), W_drive, W_res, W_friction] (rad, rad/s, J): W_drive is the work of the
net torque applied to the driving link (tau less the resistance), W_res the resistance's share of it,
so that E_kin + E_pot changes by W_drive + W_friction. Inputs: the drive torque tau and the
resistance torque tau_res on the driving link (N.m); an optional ``SpeedLoad`` adds a
speed-dependent resistance (our reading of Fig. 10b, see ``paper_load``).

form "cut": seed 002 eq. (2) on all four coordinates with Baumgarte's stabilisation of the closure;
form "minimal": the minimal form, integrating psi(1,1) and its rate, with chain 2 re-assembled at
every evaluation (its coordinates in y are only the Newton guess, their rates the dependent ones).

Friction follows the paper (eq. 7: kinetic characteristic, no static friction, one smooth mode)
unless ``stiction`` is set: then the mechanism also sticks exactly. The mechanism has one degree of
freedom, so every joint stops when the driving link does (psid11 = 0, a located event). There the
holding torques t_p are shared like the planar engine's: every joint holds the same fraction alpha
of its static limit, t_p = alpha mu_s_factor t_0p sgn(V_p Q), with V the velocity ratios dq/dpsid11
and Q = V^T (e + tau) the generalised force to hold; alpha V^T-weighted sum of the limits = |Q| is
solved by fixed-point iteration (the limits depend on the reactions, which depend on the t_p). The
mechanism sticks while alpha <= 1 and breaks away when alpha reaches 1 (an input-driven event).
"""

from __future__ import annotations

import numpy as np

from ..errors import ConvergenceError
from ..hybrid.integrator import DrivenSystem, Event
from ..hybrid.signals import PiecewiseLinear
from ..hybrid.stiction import DirectionMode as Mode
from ..hybrid.stiction import direction_change
from .load import SpeedLoad
from .rsrrr import RSRRR, DynamicState

ZERO_VELOCITY = 1e-9  # rad/s


def paper_drive(t_dr0=10.0, t_st=2.0):
    """Drive torque of Fig. 10a as we read it: rising linearly from 0 to t_dr0 (N.m) over the
    starting time t_st (s), then constant."""
    return PiecewiseLinear([0.0, t_st], [0.0, t_dr0])


def paper_load(t_dr0=10.0, psid0=9.0):
    """The resistance of Fig. 10b as we read it: none during start-up, then rising with the speed so
    that it balances the drive t_dr0 (N.m) at psid0 (rad/s); the driving speed then oscillates about
    psid0, offset by the mean of the gravity and friction torques over c = 5 N.m.s/rad."""
    return SpeedLoad(t_dr0, psid0)


class RSRRRSystem(DrivenSystem):
    """mechanism: an RSRRR; inputs: (tau, tau_res) signals; load: a SpeedLoad or None; form: 'cut' or
    'minimal'; stiction: exact static friction at rest (beyond the paper)."""

    HOLD_TOL = 1e-12
    MAX_HOLD_ITERATIONS = 100

    def __init__(self, mechanism: RSRRR, inputs, load=None, form="cut", stiction=False):
        super().__init__(inputs, 2, "inputs (tau, tau_res)")
        if form not in ("cut", "minimal"):
            raise ValueError(f"form must be 'cut' or 'minimal', got {form!r}")
        self.mech, self.load, self.form, self.stiction = mechanism, load, form, bool(stiction)

    def initial_state(self, psi11=np.pi / 2, psid11=0.0):
        q = self.mech.initial_position(psi11)
        qd = self.mech.loop.dependent_velocities(q, np.array([float(psid11)]))
        return np.concatenate((q, qd, np.zeros(3)))

    # --- the smooth dynamics ----------------------------------------------------------------------
    def _coordinates(self, y):
        q, qd = y[:4], y[4:8]
        if self.form == "minimal":
            q = self.mech.loop.assemble(q)
            qd = self.mech.loop.dependent_velocities(q, qd[:1])
        return q, qd

    def resistance(self, t, y):
        """Resistance torque on the driving link (N.m): tau_res plus the load's."""
        return self.input_values(t)[1] + (self.load(y[4]) if self.load else 0.0)

    def applied(self, t, y):
        """Net torque on the driving link (N.m): tau less the resistance."""
        return self.input_values(t)[0] - self.resistance(t, y)

    def state_of_motion(self, t, y, mode) -> tuple:
        """(q, qd, DynamicState) at (t, y) in ``mode``."""
        q, qd = self._coordinates(y)
        if mode.direction == 0:
            return q, np.zeros(4), self.holding(t, q)
        return q, qd, self.mech.dynamics(q, qd, self.applied(t, y), minimal=self.form == "minimal")

    def rhs(self, t, y, mode):
        if mode.direction == 0:  # stuck: nothing moves, no work is done
            return np.zeros(11)
        q, qd, s = self.state_of_motion(t, y, mode)
        return np.concatenate((qd, s.qdd, [self.applied(t, y) * qd[0], -self.resistance(t, y) * qd[0], -s.t_f @ qd]))

    # --- stiction (beyond the paper) --------------------------------------------------------------
    def holding(self, t, q) -> DynamicState:
        """The held state at rest at q: t_f are the holding torques, ``alpha`` their common fraction of
        the static limits (> 1: the joints cannot hold), qdd = 0 when they can."""
        loop, journals = self.mech.loop, self.mech.journals
        zero = np.zeros(4)
        applied, V, Q = self._rest_terms(t, q)
        t_hold, alpha = np.zeros(4), 0.0
        for it in range(self.MAX_HOLD_ITERATIONS):
            qdd, f_S = loop.solve(q, zero, applied - t_hold)
            f_O, n_O = self.mech.reactions(q, zero, qdd, f_S)
            limits = journals.static_limit(f_O, n_O)
            capacity = np.abs(V) @ limits
            new_alpha = abs(Q) / capacity if capacity > 0 else (0.0 if Q == 0 else np.inf)
            t_hold = min(new_alpha, 1.0) * limits * np.sign(V * Q)
            if abs(new_alpha - alpha) <= self.HOLD_TOL * max(1.0, new_alpha) or not np.isfinite(new_alpha):
                break
            alpha = new_alpha
        else:
            raise ConvergenceError(f"the holding torques did not converge at t={t:.9g}")
        return DynamicState(qdd, f_S, f_O, n_O, t_hold, it + 1, new_alpha)

    def events(self, mode):
        if not self.stiction:
            return []
        if mode.direction == 0:
            return [Event("breakaway", lambda t, y: self.holding(t, self._coordinates(y)[0]).alpha - 1.0, +1, True)]
        return [Event("stop", lambda t, y: mode.direction * y[4], -1)]

    def update(self, t, y, mode, event):
        if not self.stiction:
            new = Mode(1)
            return y, new, self._kind(mode, new)
        psid = y[4]
        if event == "breakaway":
            q = self._coordinates(y)[0]
            new = Mode(int(np.sign(self._rest_terms(t, q)[2])))
        elif event != "stop" and abs(psid) > ZERO_VELOCITY:
            new = Mode(int(np.sign(psid)))
        elif mode is not None and mode.direction != 0 and event != "stop":
            new = mode  # right after a breakaway the new motion keeps its direction
        else:  # at rest: stick while the joints can hold
            q = self._coordinates(y)[0]
            held = self.holding(t, q)
            new = Mode(0) if held.alpha <= 1.0 else Mode(int(np.sign(self._rest_terms(t, q)[2])))
        if new.direction == 0:
            y = y.copy()
            y[4:8] = 0.0  # stuck: exactly at rest, no creep
        return y, new, self._kind(mode, new)

    def _kind(self, mode, new):
        """What ``update`` names the decision from ``mode`` (None at the start) to ``new``: the change
        of direction with stiction, nothing without (its one mode)."""
        return direction_change(mode, new) if self.stiction else None

    def _rest_terms(self, t, q):
        """(applied (4,) joint torques, V (4,) = dq/dpsi11, Q = V^T (e + applied)) at rest at q: Q (N.m)
        is the generalised force on psi11 the friction must hold; its sign the breakaway direction."""
        zero = np.zeros(4)
        _, e = self.mech.loop.mass_and_bias(q, zero)
        applied = np.array([self.applied(t, np.concatenate((q, zero))), 0.0, 0.0, 0.0])
        V = self.mech.loop.dependent_velocities(q, np.ones(1))
        return applied, V, V @ (e + applied)

    # --- compiled engine (friction_joints.spatial.packing) ------------------------------------------
    def _build_compiled(self):
        """The CompiledModel of this system (kernels of the C family "spatial", the model as arrays by ``spatial.packing``),
        None where the kernels do not apply: a load other than SpeedLoad,
        a subclass that changes the equations (of this class, RSRRR, Chain or CutJointLoop), or chains
        other than 1 + 3 joints."""
        if not self._keeps_equations(RSRRRSystem, ("rhs", "events", "update", "events_watch_all", "record", "holding",
                                                   "state_of_motion", "resistance", "applied", "_coordinates",
                                                   "_rest_terms")):
            return None
        from . import packing

        return packing.compile_system(self)

    def encode_mode(self, mode):
        """(fmode float64, imode int64) of a DirectionMode for the compiled kernels."""
        from . import packing

        return packing.encode_mode(mode)

    def decode_mode(self, fmode, imode):
        """The DirectionMode of the compiled engine's arrays (the inverse of ``encode_mode``)."""
        from . import packing

        return packing.decode_mode(fmode, imode)

    def change_kind(self, mode, new, event, change):
        """The kind ``update`` names for the compiled engine's decision from ``mode`` to ``new`` after
        ``event`` (its change report is empty: the kind is the modes' alone)."""
        return self._kind(mode, new)

    def decode_record(self, out):
        """The dict of ``record`` from the flat output of the compiled record kernel."""
        from . import packing

        return packing.decode_record(out)

    def record(self, t, y, mode):
        q, qd, s = self.state_of_motion(t, y, mode)
        E_kin, E_pot = self.mech.energy(q, qd)
        return dict(q=q, qd=qd, qdd=s.qdd, f_S=s.f_S, f_O=s.f_O, n_O=s.n_O, t_f=s.t_f, iterations=s.iterations,
                    stuck=mode.direction == 0, tau=self.input_values(t)[0], tau_res=self.resistance(t, y), E_kin=E_kin,
                    E_pot=E_pot, W_drive=y[8], W_res=y[9], W_friction=y[10],
                    closure=float(np.abs(self.mech.loop.closure(q)).max()))
