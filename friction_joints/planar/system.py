"""A planar mechanism in minimal form as a HybridSystem: exact stick-slip per frictional contact.

State y = [q (k1), u (k), W_drive, W_friction] (the works are integrated with the motion, so the
energy balance closes to the integrator tolerance). A frictional contact is a free coordinate s_c
of a joint with a friction law; its slip velocity is sd_c = Cpp_c u (seed 000 eq. 5.5).

Mode: each contact slips forward (+1), backward (-1) or is stuck. In slip the friction directions
are those of the mode, so the right-hand side is smooth within a mode, and the event
``direction_c * sd_c`` falling through zero is located on the dense output.

Decision at zero slip. The contacts with zero slip whose rows Cpp_c are not zero form the
candidate set Z (a contact with Cpp_c = 0 passes a kinematic zero of its slip while the mechanism
moves: its friction takes the sign of the slip past the zero, no stick test). If the rows of Z span
one direction g of u (every contact of a 1-DOF mechanism, or a single contact), the stick test of
seed 000 Sect. 5 decides: udot with the friction of Z off gives the tendency d = sgn(g . udot); udot
with the static friction of Z at its maximum opposing d gives a_s; motion continues (in direction d, a
reversal passing straight through) if d a_s > 0, else Z sticks. If they span several directions, the
Gauss principle decides (``hybrid.stiction.gauss_friction``, seed 001 Sect. 3-4): a bounded least-squares
problem for the static friction of Z, iterated with the reactions on which the static limits depend.

Stuck modes. A stuck contact is an added constraint Cpp_c udot = 0 whose reaction is the holding
friction (seed 000 Sect. 3, seed 004 Sect. 2); the locked rows are frozen at the stick instant
(exact for slips that are differences of tree-joint coordinates and for a frozen 1-DOF mechanism).
The locked velocities are set to exactly zero and stay so. If the stuck rows are independent the
holding forces are unique, eliminated from the reaction equations, and each contact breaks away at
the located event |lambda_c| = static limit (which depends on the current reactions). If several
contacts hold one direction (a stuck 1-DOF mechanism) the distribution of the holding friction,
hence the reactions, is indeterminate (seed 000 Sect. 5); the breakaway event is d a_s of the
Sect. 5 test rising through zero. The recorded reactions then use a proportional distribution:
every stuck contact at the same fraction of its static limit (``_shared_holding``, our choice).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ConvergenceError, FrictionJointsError
from ..hybrid.integrator import DrivenSystem, Event
from ..hybrid.stiction import gauss_friction
from .coupling import solve_coupled

ZERO_SLIP = 1e-8  # |sd| below which a contact counts as not slipping at an event (m/s or rad/s)
ZERO_ROW = 1e-9  # |Cpp_c| below which a contact is at a kinematic zero of its slip
MAX_BOUND_ITERATIONS = 50  # fixed-point iterations of the Gauss problem on its reaction-dependent bounds


@dataclass(frozen=True)
class Mode:
    """direction: (l,) friction direction of every free coordinate (+1, -1, 0); stuck: indices of the
    stuck contacts; lock: independent rows (r, k) of Cpp locked by them, frozen at the stick instant
    (empty when nothing sticks); partition: independent velocities (indices of q)."""

    direction: tuple
    stuck: tuple
    lock: tuple
    partition: tuple

    @property
    def shared(self) -> bool:
        """Several contacts hold the same direction (their shares are indeterminate)."""
        return len(self.stuck) > len(self.lock)


def _independent_rows(R, tol=1e-9):
    """Indices of a maximal set of independent rows of R (QR with column pivoting of R^T)."""
    import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
    if R.shape[0] == 0:
        return []
    _, r, piv = sla.qr(R.T, pivoting=True, mode="economic")
    diag = np.abs(np.diag(r))
    return sorted(int(i) for i in piv[: int(np.sum(diag > tol * max(diag[0], 1e-300)))])


def lock_velocity(v, lock):
    """v (k,) with the locked combinations lock @ v exactly zero: the pivot components of lock are
    solved from the others (exact for rows like e_j or e_i - e_j)."""
    import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
    R = np.array(lock, dtype=float)
    if R.size == 0:
        return v
    _, _, piv = sla.qr(R, pivoting=True)
    p, o = piv[: R.shape[0]], piv[R.shape[0] :]
    v = np.array(v, dtype=float)
    v[p] = -np.linalg.solve(R[:, p], R[:, o] @ v[o]) if len(o) else 0.0
    return v


class MechanismSystem(DrivenSystem):
    """mechanism: a ready Mechanism (``mechanisms``); inputs: one signal per drive (callable of t, number or
    table)."""

    def __init__(self, mechanism, inputs):
        super().__init__(inputs, mechanism.model.n_drives, "inputs (one per drive)")
        self.mech = mechanism
        self.model = mechanism.model
        self.minimal = mechanism.minimal
        self.k1, self.k = self.minimal.k1, self.minimal.k
        self.contacts = np.flatnonzero(self.model.frictional)
        self._cache = {}

    # --- helpers ----------------------------------------------------------------------------------
    def initial_state(self, q, u):
        """y0 from q (k1,) and u (k,): q projected onto the closing constraints."""
        q = self.minimal.project(np.asarray(q, float), self.mech.partition)
        return np.concatenate((q, np.atleast_1d(np.asarray(u, float)), [0.0, 0.0]))

    def tau(self, t):
        """Drive inputs at t; at the end of the current segment, their left limits."""
        return self.input_values(t)

    def _split(self, y):
        return y[: self.k1], y[self.k1 : self.k1 + self.k]

    def _memo(self, name, t, y, mode, compute):
        """One evaluation per (t, y, mode) shared by the right-hand side and all event functions."""
        key = (t, y.tobytes(), mode)
        hit = self._cache.get(name)
        if hit is None or hit[0] != key:
            hit = self._cache[name] = (key, compute())
        return hit[1]

    def _slip(self, t, y, partition, direction, static=False):
        """MinimalSolution with the given friction directions (l,) (None: sgn(sd)) and static flags."""
        q, u = self._split(y)
        direction = None if direction is None else np.asarray(direction, float)
        return self.minimal.evaluate(q, u, self.tau(t), partition, direction=direction, static=static)

    def _holding_trial(self, t, y, partition, direction, Z, g):
        """The two evaluations of seed 000 Sect. 5 for the contacts Z locking direction g: the tendency
        a0 = g . udot with the friction of Z off, and a function alpha -> MinimalSolution with the
        friction of Z at alpha times its static limit, opposing the tendency. Returns (a0, that function)."""
        base = np.array(direction, dtype=float)
        base[Z] = 0.0
        tendency = self._slip(t, y, partition, base)
        a0 = g @ tendency.udot
        d = 1.0 if a0 >= 0 else -1.0
        trial = base.copy()
        trial[Z] = np.sign(tendency.Cpp[Z] @ g * d)
        static = np.zeros(self.model.l, dtype=bool)
        static[Z] = True

        def holding(alpha):
            scaled = base.copy()
            scaled[Z] = alpha * trial[Z]
            return self._slip(t, y, partition, scaled, static)
        return a0, trial, holding

    def _sect5(self, t, y, partition, direction, Z, g):
        """Seed 000 Sect. 5 for the contacts Z locking direction g: (d * a_s, slip directions)."""
        a0, trial, holding = self._holding_trial(t, y, partition, direction, Z, g)
        a_s = g @ holding(1.0).udot
        margin = np.sign(a0) * a_s if a0 != 0 else -abs(a_s) - 1.0  # a0 = 0 sticks
        return margin, trial.astype(int)

    def _shared_holding(self, t, y, mode):
        """(f, f_mu) in a shared stiction: every stuck contact at the same fraction alpha in [0, 1] of its
        static limit, alpha making the locked acceleration g . udot vanish. Seed 000 Sect. 5 leaves the
        shares indeterminate; this proportional distribution is our modelling choice."""
        S, g = list(mode.stuck), np.array(mode.lock[0])
        a0, _, holding = self._holding_trial(t, y, mode.partition, mode.direction, S, g)
        if a0 == 0.0:
            sol = holding(0.0)
            return sol.f, sol.f_mu
        sol = holding(1.0)
        a1 = g @ sol.udot
        if np.sign(a1) == np.sign(a0):  # at breakaway: the whole static limit is needed
            return sol.f, sol.f_mu
        # g . udot(alpha) is nearly linear in alpha (the limits depend on it only through the
        # reactions): the secant method from the ends of [0, 1] converges in a few evaluations
        tol = 1e-12 * max(abs(a0), abs(a1))
        (x0, f0), (x1, f1) = (0.0, a0), (1.0, a1)
        for _ in range(MAX_BOUND_ITERATIONS):
            alpha = min(max(x1 - f1 * (x1 - x0) / (f1 - f0), 0.0), 1.0)
            sol = holding(alpha)
            a = g @ sol.udot
            if abs(a) <= tol or abs(alpha - x1) <= 1e-14:
                return sol.f, sol.f_mu
            (x0, f0), (x1, f1) = (x1, f1), (alpha, a)
        raise ConvergenceError(f"the shared holding friction does not settle at t={t:.9g}")

    def _static_limits(self, f, Z):
        """Static friction limits (|Z|,) of the contacts Z with the reactions f."""
        ones = np.ones(self.model.l)
        return np.abs(self.model.friction(f, np.zeros(self.model.l), ones, True)[0][Z])

    def _gauss(self, lin, direction, Z):
        """Gauss-principle static friction of the contacts Z (seed 001): (lambda, slip accelerations)."""
        import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
        model, Cpp, sd = self.model, lin["Cpp"], lin["sd"]
        base = np.array(direction, dtype=float)
        base[Z] = 0.0
        L = np.linalg.cholesky(lin["M2"])
        A = sla.solve_triangular(L, Cpp[Z].T, lower=True)
        lam = np.zeros(len(Z))
        for _ in range(MAX_BOUND_ITERATIONS):
            def friction(f, lam=lam):
                f_mu, J = model.friction(f, sd, base)
                f_mu[Z], J[Z] = lam, 0.0
                return f_mu, J
            coupled = solve_coupled(lin["f0"], lin["B"], friction, model.lipschitz, model.z_groups)
            bound = self._static_limits(coupled.f, Z)
            f_mu = coupled.f_mu.copy()
            f_mu[Z] = 0.0
            b = sla.solve_triangular(L, lin["h2"] + Cpp.T @ f_mu, lower=True)
            new, a = gauss_friction(A, b, bound)
            if np.allclose(new, lam, rtol=1e-13, atol=1e-13 * (1.0 + bound.max())):
                return new, a
            lam = new
        raise ConvergenceError(f"the static friction of contacts {Z} does not settle with its reactions")

    def _direction_off_zero(self, t, y, partition, c):
        """Sign the slip of contact c takes as the mechanism moves off a kinematic zero of its row
        Cpp_c: sd_c at q moved a little along the motion (u, or udot when at rest)."""
        q, u = self._split(y)
        if not np.any(u):
            u = self._slip(t, y, partition, np.zeros(self.model.l)).udot
        if not np.any(u):
            return 0
        qd = self.minimal.velocities(q, u, partition)
        eps = 1e-6 / max(1.0, np.abs(qd).max())
        return int(np.sign(self.minimal.kinematics(q + eps * qd, u, partition)["sd"][c]))

    def _stuck(self, t, y, mode):
        """(MinimalSolution, udot, f, f_mu) in a stuck mode: the locked accelerations are zero."""
        import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
        q, u = self._split(y)
        lin = self.minimal.linear_terms(q, u, self.tau(t), mode.partition)
        S = list(mode.stuck)
        direction = np.array(mode.direction, dtype=float)
        direction[S] = 0.0
        if mode.shared:  # several joints hold one direction: shares indeterminate (Sect. 5), not needed
            # for the motion (the mechanism is frozen); record() distributes them (_shared_holding)
            nan = np.full(self.model.m, np.nan)
            f_mu = np.zeros(self.model.l)
            f_mu[S] = np.nan
            sol = self.minimal.solution(lin, nan, np.zeros(self.model.l))
            return sol, lock_velocity(sol.udot, mode.lock), nan, f_mu
        # R udot = R M''^-1 (h'' + Cpp^T f_mu) = 0 with R the stuck rows gives the holding friction
        # lambda = -W^-1 (b0 + P f_mu_slip), W = P[:, S]; eliminated from f = f0 + B f_mu
        R = lin["Cpp"][S]
        P = R @ sla.cho_solve(lin["M2_cho"], lin["Cpp"].T)
        b0 = R @ sla.cho_solve(lin["M2_cho"], lin["h2"])
        lu = sla.lu_factor(P[:, S])
        Wb0, WP = sla.lu_solve(lu, b0), sla.lu_solve(lu, P)
        f0 = lin["f0"] - lin["B"][:, S] @ Wb0
        B = lin["B"] - lin["B"][:, S] @ WP
        sd = lin["sd"]
        coupled = solve_coupled(f0, B, lambda f: self.model.friction(f, sd, direction), self.model.lipschitz,
                                self.model.z_groups)
        f_mu = coupled.f_mu.copy()
        f_mu[S] = -(Wb0 + WP @ coupled.f_mu)
        sol = self.minimal.solution(lin, coupled.f, f_mu)
        return sol, lock_velocity(sol.udot, mode.lock), coupled.f, f_mu

    def _holding_margins(self, t, y, mode):
        """|lambda_c| - static limit_c (|S|,) of the stuck contacts (independent rows)."""
        def compute():
            _, _, f, f_mu = self._stuck(t, y, mode)
            return np.abs(f_mu[list(mode.stuck)]) - self._static_limits(f, list(mode.stuck))
        return self._memo("margins", t, y, mode, compute)

    def _sd(self, t, y, mode):
        q, u = self._split(y)
        return self._memo("sd", t, y, mode, lambda: self.minimal.kinematics(q, u, mode.partition)["sd"])

    # --- HybridSystem -----------------------------------------------------------------------------
    def rhs(self, t, y, mode):
        if len(mode.lock) == self.k:  # frozen by its stuck contacts: u = 0 and udot = 0, no power
            return np.zeros_like(y)
        if mode.stuck:
            sol, udot, _, f_mu = self._stuck(t, y, mode)
            slipping = np.ones(self.model.l, dtype=bool)
            slipping[list(mode.stuck)] = False
            friction_power = float(f_mu[slipping] @ sol.sd[slipping])
        else:
            sol = self._slip(t, y, mode.partition, mode.direction)
            udot, friction_power = sol.udot, sol.f_mu @ sol.sd
        drive_power = (self.model.H @ self.tau(t)) @ sol.xd
        return np.concatenate((sol.qd, udot, [drive_power, friction_power]))

    def events_watch_all(self, mode):
        """False while a contact has no direction and is not stuck in a mechanism that is not frozen
        (at a kinematic zero of its slip no event watches it)."""
        return len(mode.lock) == self.k or all(mode.direction[c] != 0 or c in mode.stuck for c in self.contacts)

    def events(self, mode):
        def slip_zero(c, sign):
            return Event(f"slip_zero:{c}", lambda t, y: sign * self._sd(t, y, mode)[c], -1)

        def breakaway(i, c):
            return Event(f"breakaway:{c}", lambda t, y: self._holding_margins(t, y, mode)[i], +1, True)

        evs = [slip_zero(c, mode.direction[c]) for c in self.contacts
               if c not in mode.stuck and mode.direction[c] != 0]
        if mode.shared:
            g = np.array(mode.lock[0])
            S = list(mode.stuck)
            evs.append(Event("breakaway", lambda t, y: self._sect5(t, y, mode.partition, mode.direction, S, g)[0], +1,
                             True))
        else:
            evs += [breakaway(i, c) for i, c in enumerate(mode.stuck)]
        return evs

    def update(self, t, y, mode, event):
        q, u = self._split(y)
        current = mode.partition if mode else self.mech.partition  # the partition u is given in
        partition = self.minimal.choose_partition(q, current)
        if partition != current:
            u = self.minimal.velocities(q, u, current)[list(partition)]
            y = np.concatenate((q, u, y[self.k1 + self.k :]))
        old = np.array(mode.direction) if mode else np.zeros(self.model.l, dtype=int)
        stuck = list(mode.stuck) if mode else []
        event = event or ""
        if event == "breakaway":  # shared stiction ends: the located event is itself the decision
            _, trial = self._sect5(t, y, partition, mode.direction, stuck, np.array(mode.lock[0]))
            return y, Mode(tuple(int(v) for v in trial), (), (), partition), "breakaway"

        lin = self.minimal.linear_terms(q, u, self.tau(t), partition)
        sd, Cpp = lin["sd"], lin["Cpp"]
        row_scale = np.linalg.norm(Cpp, axis=1)
        direction = np.where(self.model.frictional, np.sign(sd), 0).astype(int)
        zero = [c for c in self.contacts if abs(sd[c]) <= ZERO_SLIP * (1.0 + row_scale[c])]
        if event.startswith("breakaway:"):  # the contact slips against its holding force
            c = int(event.split(":")[1])
            _, _, _, f_mu = self._stuck(t, y, mode)
            direction[c] = -int(np.sign(f_mu[c]))
            stuck.remove(c)
            zero.remove(c)
        if mode is not None and not event.startswith("slip_zero"):
            # settling after a change or at a time event: a slipping contact that has just been
            # given a direction keeps it; the stuck and undecided contacts are decided again
            direction[zero] = old[zero]
            zero = [c for c in zero if c in stuck or old[c] == 0]
        kinematic = [c for c in zero if row_scale[c] <= ZERO_ROW]
        Z = [c for c in zero if row_scale[c] > ZERO_ROW]
        for c in kinematic:  # friction reverses as the joint passes a kinematic zero of its slip: the sign
            # its slip takes past the zero, not -old, since a contact reversed at an event just before
            # may still be within ZERO_SLIP of its zero at the next one (it would turn back against the motion)
            direction[c] = self._direction_off_zero(t, y, partition, c)
        new_stuck, direction = self._decide(t, y, lin, partition, direction, Z)
        lock = tuple(tuple(Cpp[c]) for c in np.array(new_stuck)[_independent_rows(Cpp[new_stuck])]) \
            if new_stuck else ()
        if len(lock) == self.k:  # the stuck contacts freeze the mechanism: nothing slips, nothing reverses
            direction[kinematic] = 0
        if new_stuck:
            y = np.concatenate((q, lock_velocity(u, lock), y[self.k1 + self.k :]))
        new = Mode(tuple(int(v) for v in direction), tuple(new_stuck), lock, partition)
        slipping = [c for c in self.contacts if direction[c] and row_scale[c] > ZERO_ROW]
        if len(new_stuck) > len(lock) and (len(lock) > 1 or slipping):
            raise FrictionJointsError(f"contacts {new_stuck} stick with dependent slip rows while others move: "
                                      "their holding forces are indeterminate (not supported)")
        return y, new, self._kind(mode, new, Z, kinematic, event)

    def _decide(self, t, y, lin, partition, direction, Z):
        """Stuck subset of Z and the friction directions after the decision at zero slip."""
        direction = direction.copy()
        direction[Z] = 0
        if not Z:
            return [], direction
        rows = _independent_rows(lin["Cpp"][Z])
        if len(rows) == 1:  # one locked direction: seed 000 Sect. 5
            g = lin["Cpp"][Z[rows[0]]]
            g = g / np.linalg.norm(g)
            margin, trial = self._sect5(t, y, partition, direction, Z, g)
            return ([], trial) if margin > 0 else (list(Z), direction)
        _, a = self._gauss(lin, direction, Z)  # several directions: the Gauss principle (seed 001)
        tol = 1e-9 * (1.0 + np.abs(a).max())
        for c, a_c in zip(Z, a):
            direction[c] = 0 if abs(a_c) <= tol else int(np.sign(a_c))
        return [c for c, a_c in zip(Z, a) if abs(a_c) <= tol], direction

    @staticmethod
    def _kind(mode, new, Z, kinematic, event):
        """Event kinds: stick, breakaway, reversal (pass-through at zero slip), reversal:c (the contacts
        whose direction a kinematic zero changed), slip (a contact at zero slip starts to move); None otherwise."""
        if mode is not None and new == mode:
            return None
        old_stuck = set(mode.stuck) if mode else set()
        old = mode.direction if mode else (0,) * len(new.direction)
        kinds = []
        if set(new.stuck) - old_stuck:
            kinds.append("stick")
        if old_stuck - set(new.stuck) or event.startswith("breakaway"):
            kinds.append("breakaway")
        if any(old[c] and new.direction[c] == -old[c] for c in Z):
            kinds.append("reversal")
        reversed_ = [c for c in kinematic if new.direction[c] != old[c]]
        if reversed_ and event:
            kinds.append("reversal:" + ",".join(map(str, reversed_)))
        if not kinds and any(new.direction[c] for c in Z):
            kinds.append("slip")
        return "+".join(kinds) or None

    # --- compiled engine (friction_joints.planar.packing) ------------------------------------------
    def _build_compiled(self):
        """The CompiledModel of this system (kernels of the C family "planar", the model as arrays by
        ``planar.packing``), None where the kernels do not apply: a joint or friction law they do
        not implement, or a subclass that changes rhs, record, events or update (RegularisedSystem,
        whose single mode has no events, is supported: its own ``_build_compiled``)."""
        return self._compiled_as(MechanismSystem, regularised=False)

    def _compiled_as(self, base, regularised):
        """The CompiledModel of this system if its rhs and record are MechanismSystem's and its events and
        update those of ``base`` (whose mode logic the kernels implement: ``regularised`` or not), else None."""
        cls = type(self)
        if (cls.rhs is not MechanismSystem.rhs or cls.record is not MechanismSystem.record
                or (cls.events, cls.update) != (base.events, base.update)):
            return None
        from . import packing

        return packing.compile_system(self, regularised)

    def encode_mode(self, mode):
        """(fmode float64, imode int64) of a Mode for the compiled kernels."""
        from . import packing

        return packing.encode_mode(self.model, self.minimal, mode)

    def decode_mode(self, fmode, imode):
        """The Mode of the C engine's arrays (the inverse of ``encode_mode``)."""
        from . import packing

        return Mode(*packing.decode_mode(self.model, self.minimal, fmode, imode))

    def change_kind(self, mode, new, event, change):
        """The kind ``update`` names for the C engine's decision from ``mode`` to ``new`` after ``event``:
        change (l,) flags the contacts of the candidate set Z and those at a kinematic zero
        (``planar.packing.CHANGE_*``)."""
        from . import packing

        if event == "breakaway":
            return "breakaway"
        flags = np.asarray(change).tolist()
        Z = [c for c, flag in enumerate(flags) if flag == packing.CHANGE_Z]
        kinematic = [c for c, flag in enumerate(flags) if flag == packing.CHANGE_KINEMATIC]
        return self._kind(mode, new, Z, kinematic, event or "")

    def decode_record(self, out):
        """The dict of ``record`` from the flat output (n_record,) of the compiled record kernel, its
        arrays views of ``out`` (``planar.packing.record_decoder`` of this system's layout)."""
        return self._record_decoder()(out)

    def record_columns(self, block, key) -> np.ndarray:
        """The series of ``key`` over the compiled records ``block`` (n, n_record), as ``Results`` stacks it."""
        return self._record_decoder().column(block, key)

    def _record_layout(self):
        from . import packing

        return packing.record_layout(self.model, self.minimal)

    def _record_decoder(self):
        decode = self.__dict__.get("_decoder")
        if decode is None:
            from . import packing

            decode = self._decoder = packing.record_decoder(self._record_layout())
        return decode

    def record(self, t, y, mode):
        q, u = self._split(y)
        if mode.stuck:
            sol, udot, f, f_mu = self._stuck(t, y, mode)
            qdd = sol.D2 @ udot + sol.nu2
            if mode.shared:
                f, f_mu = self._shared_holding(t, y, mode)
        else:
            sol = self._slip(t, y, mode.partition, mode.direction)
            udot, f, f_mu, qdd = sol.udot, sol.f, sol.f_mu, sol.qdd
        return dict(q=q.copy(), u=u.copy(), qd=sol.qd, qdd=qdd, udot=udot, f=f, f_mu=f_mu, sd=sol.sd,
                    tau=self.tau(t), stuck=bool(mode.stuck), stuck_contacts=np.isin(np.arange(self.model.l), mode.stuck),
                    E_kin=self.model.kinetic_energy(sol.xd), E_pot=self.model.potential_energy(sol.x),
                    W_drive=y[-2], W_friction=y[-1])
