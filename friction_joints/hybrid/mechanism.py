"""A planar mechanism in minimal form as a HybridSystem: exact stick-slip per frictional contact.

State y = [q (k1), u (k), W_drive, W_friction] (the works are integrated with the motion, so the
energy balance closes to the integrator tolerance). A frictional contact is a free coordinate s_c
of a joint with a friction law; its slip velocity is sd_c = Cpp_c u (seed 000 eq. 5.5).

Mode: each contact slips forward (+1), backward (-1) or is stuck. In slip the friction directions
are those of the mode, so the right-hand side is smooth within a mode, and the event
``direction_c * sd_c`` falling through zero is located on the dense output.

At such an event the contacts with zero slip whose rows Cpp_c are not zero form the candidate stuck
set Z (a contact with Cpp_c = 0 passes a kinematic zero of its slip while the mechanism moves: its
friction just reverses). Z constrains u along the direction g spanning the rows of Cpp_Z. The
stick test of seed 000 Sect. 5 decides: udot with the friction of Z off gives the tendency
d = sgn(g . udot); udot with the static friction of Z at its maximum opposing d gives a_s; motion
continues (in direction d, a reversal passing straight through) if d a_s > 0, else Z sticks. While
stuck, the holding friction keeps g . udot = 0 exactly, and the breakaway event is d a_s rising
through zero, a_s recomputed with the current reactions: the instant the friction needed to hold
exceeds the static limit. In a 1-DOF mechanism a stuck state freezes the whole mechanism (u = 0)
and the distribution of the holding friction over the joints, hence the reactions, is
indeterminate (seed 000 Sect. 5): they are reported as NaN. A single stuck contact in a multi-DOF
system (Dupont's mass) has a unique holding force, computed from the reaction equations.

Several independent stuck directions (the general multi-contact LCP of the Gauss principle) are
not supported yet and raise FrictionJointsError.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla

from ..errors import FrictionJointsError
from ..mechanisms import Mechanism
from ..planar.coupling import solve_coupled
from .integrator import Event, HybridSystem
from .signals import as_signal

ZERO_SLIP = 1e-8  # |sd| below which a contact counts as not slipping at an event (m/s or rad/s)


@dataclass(frozen=True)
class Mode:
    """direction: (l,) friction direction of every free coordinate (+1, -1, 0); stuck: indices of the
    stuck contacts; g: (k,) unit direction of u locked by them (None when nothing sticks);
    partition: independent velocities (indices of q)."""

    direction: tuple
    stuck: tuple
    g: tuple | None
    partition: tuple


class MechanismSystem(HybridSystem):
    """mechanism: a ready Mechanism; inputs: one signal per drive (callable of t, number or table)."""

    def __init__(self, mechanism: Mechanism, inputs):
        self.mech = mechanism
        self.model = mechanism.model
        self.minimal = mechanism.minimal
        self.inputs = [as_signal(i) for i in inputs]
        if len(self.inputs) != self.model.n_drives:
            raise ValueError(f"inputs must give {self.model.n_drives} signals (one per drive), got {len(self.inputs)}")
        self.k1, self.k = self.minimal.k1, self.minimal.k
        self.contacts = np.flatnonzero(self.model.frictional)
        self.segment_end = np.inf
        self._sd_cache = (None, None)

    # --- helpers ----------------------------------------------------------------------------------
    def initial_state(self, q, u):
        """y0 from q (k1,) and u (k,): q projected onto the closing constraints."""
        q = self.minimal.project(np.asarray(q, float), self.mech.partition)
        return np.concatenate((q, np.atleast_1d(np.asarray(u, float)), [0.0, 0.0]))

    def tau(self, t):
        """Drive inputs at t; at the end of the current segment, their left limits."""
        left = t >= self.segment_end
        return np.array([s(t, left) for s in self.inputs])

    def begin_segment(self, t_start, t_end):
        self.segment_end = t_end

    def breakpoints(self):
        bps = [s.breakpoints for s in self.inputs]
        return np.unique(np.concatenate(bps)) if bps else np.zeros(0)

    def _split(self, y):
        return y[: self.k1], y[self.k1 : self.k1 + self.k]

    def _slip(self, t, y, mode, direction=None, static=False):
        """MinimalSolution with the given friction directions (default: the mode's)."""
        q, u = self._split(y)
        d = np.array(mode.direction if direction is None else direction, dtype=float)
        return self.minimal.evaluate(q, u, self.tau(t), mode.partition, direction=d, static=static)

    def _stick_test(self, t, y, mode, Z, g):
        """Seed 000 Sect. 5 for the contacts Z locking direction g: (d, d * a_s, slip directions of Z)."""
        base = np.array(mode.direction, dtype=float)
        base[list(Z)] = 0.0
        tendency = self._slip(t, y, mode, base)
        a0 = g @ tendency.udot
        d = 1.0 if a0 >= 0 else -1.0  # a0 = 0 sticks: then d a_s < 0 below
        trial = base.copy()
        trial[list(Z)] = np.sign(tendency.Cpp[list(Z)] @ g * d)
        static = np.zeros(self.model.l, dtype=bool)
        static[list(Z)] = True
        a_s = g @ self._slip(t, y, mode, trial, static).udot
        return d, (d * a_s if a0 != 0 else -abs(a_s) - 1.0), trial

    def _direction_off_zero(self, t, y, partition, c):
        """Sign the slip of contact c takes as the mechanism moves off a kinematic zero of its row
        Cpp_c: sd_c at q moved a little along the motion (u, or udot when at rest)."""
        q, u = self._split(y)
        if not np.any(u):
            probe = Mode(tuple([0] * self.model.l), (), None, partition)
            u = self._slip(t, y, probe).udot
        if not np.any(u):
            return 0
        qd = self.minimal.velocities(q, u, partition)
        eps = 1e-6 / max(1.0, np.abs(qd).max())
        return int(np.sign(self.minimal.kinematics(q + eps * qd, u, partition)["sd"][c]))

    def _stuck(self, t, y, mode):
        """MinimalSolution in a stuck mode: udot with g . udot = 0, f and the holding friction."""
        q, u = self._split(y)
        lin = self.minimal.linear_terms(q, u, self.tau(t), mode.partition)
        g = np.array(mode.g)
        S = list(mode.stuck)
        direction = np.array(mode.direction, dtype=float)
        direction[S] = 0.0
        nan = np.full(self.model.m, np.nan)
        if len(S) > 1:  # several joints hold one direction: their shares are indeterminate (Sect. 5)
            if np.any(direction != 0):
                raise FrictionJointsError("stiction of several contacts while others slip is not supported yet")
            f_mu = np.zeros(self.model.l)
            f_mu[S] = np.nan
            sol = self.minimal.solution(lin, nan, np.zeros(self.model.l))
            udot = sol.udot - g * (g @ sol.udot)
            return sol, udot, nan, f_mu
        b = g @ sla.cho_solve(lin["M2_cho"], lin["Cpp"].T)  # (l,) effect of each friction on g . udot
        b0 = g @ sla.cho_solve(lin["M2_cho"], lin["h2"])
        a = b[S[0]]
        # holding force lambda = -(b0 + b f_mu_slide) / a, eliminated from f = f0 + B f_mu
        f0 = lin["f0"] - lin["B"][:, S[0]] * b0 / a
        B = lin["B"] - np.outer(lin["B"][:, S[0]], b) / a
        sd = lin["sd"]
        coupled = solve_coupled(f0, B, lambda f: self.model.friction(f, sd, direction), self.model.lipschitz,
                                self.model.z_groups)
        f_mu = coupled.f_mu.copy()
        f_mu[S[0]] = -(b0 + b @ coupled.f_mu) / a
        sol = self.minimal.solution(lin, coupled.f, f_mu)
        udot = sol.udot - g * (g @ sol.udot)  # exact zero along an axis-aligned g
        return sol, udot, coupled.f, f_mu

    # --- HybridSystem -----------------------------------------------------------------------------
    def rhs(self, t, y, mode):
        if mode.stuck:
            sol, udot, _, f_mu = self._stuck(t, y, mode)
            friction_power = np.nansum(np.where(np.isin(np.arange(self.model.l), mode.stuck), 0.0, f_mu * sol.sd))
        else:
            sol = self._slip(t, y, mode)
            udot, friction_power = sol.udot, sol.f_mu @ sol.sd
        drive_power = (self.model.H @ self.tau(t)) @ sol.xd
        return np.concatenate((sol.qd, udot, [drive_power, friction_power]))

    def _sd(self, y, mode):
        """Slip velocities at y; the event functions of all contacts share one evaluation per state."""
        key = (y.tobytes(), mode.partition)
        if self._sd_cache[0] != key:
            q, u = self._split(y)
            self._sd_cache = (key, self.minimal.kinematics(q, u, mode.partition)["sd"])
        return self._sd_cache[1]

    def events(self, mode):
        evs = []
        for c in self.contacts:
            if c not in mode.stuck and mode.direction[c] != 0:
                sign = mode.direction[c]
                evs.append(Event(f"slip_zero:{c}", (lambda c, sign: lambda t, y: sign * self._sd(y, mode)[c])(c, sign), -1))
        if mode.stuck:
            g = np.array(mode.g)
            evs.append(Event("breakaway", lambda t, y: self._stick_test(t, y, mode, mode.stuck, g)[1], +1))
        return evs

    def update(self, t, y, mode, event):
        q, u = self._split(y)
        current = mode.partition if mode else self.mech.partition  # the partition u is given in
        partition = self.minimal.choose_partition(q, current)
        if partition != current:
            u = self.minimal.velocities(q, u, current)[list(partition)]
            y = np.concatenate((q, u, y[self.k1 + self.k :]))
        if mode is not None and mode.stuck:
            _, margin, trial = self._stick_test(t, y, mode, mode.stuck, np.array(mode.g))
            # the located breakaway event is itself the decision (its margin is zero to rounding);
            # at a time event (an input jump) the margin decides
            if event == "breakaway" or margin > 0:
                return y, Mode(tuple(int(v) for v in trial), (), None, partition), "breakaway"
            return y, Mode(mode.direction, mode.stuck, mode.g, partition), None
        lin = self.minimal.linear_terms(q, u, self.tau(t), partition)
        sd, Cpp = lin["sd"], lin["Cpp"]
        old = np.array(mode.direction) if mode else np.zeros(self.model.l, dtype=int)
        row_scale = np.linalg.norm(Cpp, axis=1)
        zero = [c for c in self.contacts if abs(sd[c]) <= ZERO_SLIP * (1.0 + row_scale[c])]
        direction = np.where(self.model.frictional, np.sign(sd), 0).astype(int)
        if mode is not None and not (event or "").startswith("slip_zero"):
            # settling after a breakaway or at a time event: a contact that has just been given a
            # direction keeps it; only undecided contacts are tested
            direction[zero] = old[zero]
            zero = [c for c in zero if old[c] == 0]
        kinematic = [c for c in zero if row_scale[c] <= 1e-9]
        Z = [c for c in zero if row_scale[c] > 1e-9]
        for c in kinematic:  # friction reverses as the joint passes a kinematic zero of its slip
            direction[c] = -old[c] if old[c] else self._direction_off_zero(t, y, partition, c)
        kind = "reversal:" + ",".join(map(str, kinematic)) if kinematic and event else None
        if not Z:
            new = Mode(tuple(int(v) for v in direction), (), None, partition)
            return y, new, kind if (mode is None or new != mode) else None
        _, sv, Vt = np.linalg.svd(Cpp[Z])
        if np.sum(sv > 1e-9 * sv[0]) > 1:
            raise FrictionJointsError(f"contacts {Z} lock {np.sum(sv > 1e-9 * sv[0])} independent directions "
                                      "at once: the multi-contact stick problem is not supported yet")
        g = Vt[0]
        g = np.where(np.abs(g) < 1e-15, 0.0, g)
        u = u - g * (g @ u)  # the locked velocity is exactly zero from here
        y = np.concatenate((q, u, y[self.k1 + self.k :]))
        probe = Mode(tuple(int(v) for v in direction), (), None, partition)
        d, margin, trial = self._stick_test(t, y, probe, tuple(Z), g)
        if margin > 0:
            new = Mode(tuple(int(v) for v in trial), (), None, partition)
            passed = mode is not None and all(new.direction[c] == -old[c] for c in Z)
            return y, new, ("reversal" if passed else "slip") if (mode is None or new != mode) else None
        direction[Z] = 0
        return y, Mode(tuple(int(v) for v in direction), tuple(Z), tuple(g), partition), "stick"

    def record(self, t, y, mode):
        q, u = self._split(y)
        if mode.stuck:
            sol, udot, f, f_mu = self._stuck(t, y, mode)
            qdd = sol.D2 @ udot + sol.nu2
        else:
            sol = self._slip(t, y, mode)
            udot, f, f_mu, qdd = sol.udot, sol.f, sol.f_mu, sol.qdd
        return dict(q=q.copy(), u=u.copy(), qd=sol.qd, qdd=qdd, udot=udot, f=f, f_mu=f_mu, sd=sol.sd,
                    tau=self.tau(t), stuck=bool(mode.stuck), direction=np.array(mode.direction),
                    E_kin=self.model.kinetic_energy(sol.xd), E_pot=self.model.potential_energy(sol.x),
                    W_drive=y[-2], W_friction=y[-1])
