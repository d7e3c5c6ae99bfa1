"""Two masses with two frictions (seed 001 Sect. 4, Fig. 5), in variable-structure luz/tar form.

Block 1 (M1, force F1) lies on block 2 (M2, force F2), which lies on a fixed base. Friction 12
acts between the blocks on the relative velocity v12 = zd1 - zd2, friction 20 between block 2 and
the base on v20 = zd2; each is the extended Coulomb characteristic C tar(v, F_T0K / C) in slip
(seed 001 Sect. 2: C v + F_T0K sgn v) with a static level F_T0S >= F_T0K (Sect. 5 remarks).
A friction level of zero removes that friction (FT020 = 0: the two-mass system of Sect. 3;
M2 very large: the single mass of Sect. 2).

Modes: each friction slips (+1 / -1) or sticks. The accelerations of each mode are the paper's
closed forms (see ``accelerations``); the decision at zero relative velocity selects the stuck set
by the Gauss principle (seed 001 Sect. 3-4, ``hybrid.stiction.gauss_friction``); stiction ends at
the located event where a luz term leaves its dead zone. State y = [z1, z2, zd1, zd2, W_drive,
W_friction] (m, m/s, J).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require
from ..hybrid.integrator import DrivenSystem, Event
from ..hybrid.stiction import gauss_friction
from .projections import luz

ZERO_VELOCITY = 1e-9  # m/s: |v| below which a friction counts as not slipping at an event
G = np.array([[1.0, 0.0], [-1.0, 1.0]])  # friction forces on the masses: G @ [lambda_12, lambda_20]


@dataclass(frozen=True)
class TwoMassParameters:
    """M1, M2 (kg); C12, C20 (N.s/m); FT012, FT020 kinetic and FT012S, FT020S static levels (N,
    static >= kinetic; None: equal to the kinetic level)."""

    M1: float = 1.0
    M2: float = 2.0
    C12: float = 0.0
    C20: float = 0.0
    FT012: float = 2.0
    FT020: float = 8.0
    FT012S: float | None = None
    FT020S: float | None = None

    def __post_init__(self):
        problems = []
        for name in ("M1", "M2"):
            require(problems, name, getattr(self, name), 0.0, low_open=True)
        for name in ("C12", "C20", "FT012", "FT020"):
            require(problems, name, getattr(self, name), 0.0)
        for s, k in (("FT012S", "FT012"), ("FT020S", "FT020")):
            if getattr(self, s) is None:
                object.__setattr__(self, s, getattr(self, k))
            require(problems, s, getattr(self, s), getattr(self, k))
        check_parameters(problems)

    @property
    def masses(self):
        return np.array([self.M1, self.M2])

    @property
    def kinetic(self):
        return np.array([self.FT012, self.FT020])

    @property
    def static(self):
        return np.array([self.FT012S, self.FT020S])

    @property
    def viscous(self):
        return np.array([self.C12, self.C20])


def friction_forces(p: TwoMassParameters, v, direction):
    """Kinetic friction [lambda_12, lambda_20] (N) on the upper body of each contact at the relative
    velocities v (2,) with the slip directions of the mode: -(C v + F_T0K dir), i.e. -C tar(v, F_T0K/C)."""
    return -(p.viscous * v + p.kinetic * np.asarray(direction, float))


def accelerations(p: TwoMassParameters, F1, F2, v, direction, stuck, frozen=False):
    """[zdd1, zdd2] (m/s^2) of the mode (seed 001 Sect. 4, the three velocity cases, and both slipping).

    v: (v12, v20); direction: slip signs of the slipping frictions; stuck: (stuck12, stuck20).
    Each stuck case is the paper's luz form; its luz term is exactly zero while the stiction holds.
    frozen: drop the luz terms (the structure is fixed within a mode of the hybrid integrator; the
    luz term leaving zero is the breakaway event, not a change of the right-hand side).
    """
    M1, M2 = p.M1, p.M2
    lam = friction_forces(p, v, direction)
    if stuck[0] and stuck[1]:  # case 3: zd1 = zd2 = 0, held by static friction (see total_stiction)
        return np.zeros(2)
    if stuck[0]:  # case 1: zd1 = zd2 != 0; F2' = F2 - C20 tar(zd2, FT020/C20)
        F2p = F2 + lam[1]
        F12 = (M2 * F1 - M1 * F2p) / (M1 + M2)
        common = (F1 + F2p) / (M1 + M2)
        slip = 0.0 if frozen else luz(F12, p.FT012S)
        return np.array([common + slip / M1, common - slip / M2])
    if stuck[1]:  # case 2: zd1 != 0, zd2 = 0: block 2 held unless the force on it leaves [-FT020S, FT020S]
        return np.array([(F1 + lam[0]) / M1, 0.0 if frozen else luz(F2 - lam[0], p.FT020S) / M2])
    return np.array([(F1 + lam[0]) / M1, (F2 - lam[0] + lam[1]) / M2])


def holding_margins(p: TwoMassParameters, F1, F2, v, direction, stuck):
    """Static friction needed by each stuck friction minus its static level (N), in the order
    (12, 20) of the stuck ones: a stiction breaks when its margin rises through zero."""
    M1, M2 = p.M1, p.M2
    lam = friction_forces(p, v, direction)
    if stuck[0] and stuck[1]:  # total stiction: lambda_12 = -F1, lambda_20 = -(F1 + F2)
        return np.array([abs(F1) - p.FT012S, abs(F1 + F2) - p.FT020S])
    if stuck[0]:
        F2p = F2 + lam[1]
        return np.array([abs((M2 * F1 - M1 * F2p) / (M1 + M2)) - p.FT012S])
    if stuck[1]:
        return np.array([abs(F2 - lam[0]) - p.FT020S])
    return np.zeros(0)


def gauss_static_friction(p: TwoMassParameters, F1, F2, v, direction, zero):
    """Static friction of the frictions ``zero`` (indices) at zero relative velocity by the Gauss
    principle (seed 001 Sect. 3-4): (lambda (2,), relative accelerations (2,)). The others slip
    with their kinetic friction."""
    lam = friction_forces(p, v, direction)
    lam[list(zero)] = 0.0
    Minv_sqrt = 1.0 / np.sqrt(p.masses)
    A = Minv_sqrt[:, None] * G[:, list(zero)]
    b = Minv_sqrt * (np.array([F1, F2]) + G @ lam)
    held, _ = gauss_friction(A, b, p.static[list(zero)])
    lam[list(zero)] = held
    zdd = (np.array([F1, F2]) + G @ lam) / p.masses
    return lam, G.T @ zdd


def total_stiction_paper(p: TwoMassParameters, F1, F2):
    """Seed 001 Sect. 4 (decomposition-aggregation) for the total stiction state as printed:
    M1 zdd1 = luz(F1, FT012), M2 zdd2 = -luz(F1, FT012) + luz(F1 + F2, FT020). Kept to show where
    it is wrong: when block 1 slips but the base still holds block 2 (see the tests)."""
    return np.array([luz(F1, p.FT012S) / p.M1, (-luz(F1, p.FT012S) + luz(F1 + F2, p.FT020S)) / p.M2])


def mode_change(mode, new):
    """What happened when ``mode`` (None at the start) became ``new``: None if nothing changed, else
    'stick', 'breakaway' and 'reversal' (of a slip direction) joined by '+' as they occur, or 'slip'."""
    if mode == new:
        return None
    kinds = []
    was = (False, False) if mode is None else mode.stuck
    old = (0, 0) if mode is None else mode.direction
    if any(n and not w for n, w in zip(new.stuck, was)):
        kinds.append("stick")
    if any(w and not n for n, w in zip(new.stuck, was)):
        kinds.append("breakaway")
    if any(o and d == -o for o, d in zip(old, new.direction)):
        kinds.append("reversal")
    return "+".join(kinds) or "slip"


@dataclass(frozen=True)
class Mode:
    """direction: slip signs (d12, d20) (0 for a stuck or frictionless contact); stuck: (bool, bool)."""

    direction: tuple
    stuck: tuple


class TwoMassFriction(DrivenSystem):
    """The two-mass system as a HybridSystem. inputs: signals F1, F2 (N)."""

    def __init__(self, params: TwoMassParameters, inputs):
        super().__init__(inputs, 2, "inputs (F1 and F2)")
        self.p = params
        self.dry = params.static > 0  # the frictions with a dry part: only they can stick or jump

    def initial_state(self, z, zd):
        return np.concatenate((np.asarray(z, float), np.asarray(zd, float), [0.0, 0.0]))

    def forces(self, t):
        return list(self.input_values(t))

    @staticmethod
    def relative(y):
        return G.T @ y[2:4]

    def rhs(self, t, y, mode):
        F1, F2 = self.forces(t)
        v = self.relative(y)
        zdd = accelerations(self.p, F1, F2, v, mode.direction, mode.stuck, frozen=True)
        slipping = ~np.array(mode.stuck)
        lam = friction_forces(self.p, v, mode.direction)
        return np.concatenate((y[2:4], zdd, [F1 * y[2] + F2 * y[3], float(lam[slipping] @ v[slipping])]))

    def events(self, mode):
        def slip_zero(c):
            return Event(f"slip_zero:{c}", lambda t, y: mode.direction[c] * self.relative(y)[c], -1)

        def breakaway(i, c):
            return Event(f"breakaway:{c}", lambda t, y: holding_margins(
                self.p, *self.forces(t), self.relative(y), mode.direction, mode.stuck)[i], +1, True)

        stuck = [c for c in range(2) if mode.stuck[c]]
        return ([slip_zero(c) for c in range(2) if not mode.stuck[c] and mode.direction[c] != 0 and self.dry[c]]
                + [breakaway(i, c) for i, c in enumerate(stuck)])

    def update(self, t, y, mode, event):
        F1, F2 = self.forces(t)
        v = self.relative(y)
        old = np.zeros(2, int) if mode is None else np.array(mode.direction)
        direction = np.where(np.abs(v) > ZERO_VELOCITY, np.sign(v), 0).astype(int)
        if event and event.startswith("slip_zero:"):  # located zero: its residual velocity is noise
            direction[int(event.split(":")[1])] = 0
        zero = [c for c in range(2) if direction[c] == 0 and self.dry[c]]
        if mode is not None and event and event.startswith("breakaway:"):
            c = int(event.split(":")[1])
            stuck_here = [k for k in range(2) if mode.stuck[k]]
            lam, _ = gauss_static_friction(self.p, F1, F2, v, direction, stuck_here)
            direction[c] = -int(np.sign(lam[c]))  # it slips against the friction that held it
            zero.remove(c)
        if mode is not None and not (event and event.startswith("slip_zero:")):
            # settling after a breakaway or at a time event: a friction just set slipping keeps its direction
            keep = [c for c in zero if old[c] != 0 and not mode.stuck[c]]
            direction[keep] = old[keep]
            zero = [c for c in zero if c not in keep]
        _, a = gauss_static_friction(self.p, F1, F2, v, direction, zero)
        tol = 1e-12 * (1.0 + abs(F1) + abs(F2)) / min(self.p.M1, self.p.M2)
        stuck = [False, False]
        for c in zero:
            if abs(a[c]) <= tol:
                stuck[c] = True
            else:
                direction[c] = int(np.sign(a[c]))
        y = y.copy()
        if stuck[1]:  # stuck relative velocities set exactly to zero: no creep
            y[3] = 0.0
        if stuck[0]:
            y[2] = y[3]
        new = Mode(tuple(int(d) for d in direction), tuple(stuck))
        return y, new, mode_change(mode, new)

    # --- compiled engine (friction_joints.lumped.packing) -------------------------------------------
    def _build_compiled(self):
        """The CompiledModel of this system (kernels of the C family "lumped", the parameters as arrays by
        ``lumped.packing``), None for a subclass that changes the equations."""
        if not self._keeps_equations(TwoMassFriction, ("rhs", "events", "record", "forces", "relative", "input_values",
                                                       "update", "events_watch_all")):
            return None
        from . import packing

        return packing.compile_two(self)

    def encode_mode(self, mode):
        """(fmode float64, imode int64) of a Mode for the compiled kernels."""
        from . import packing

        return packing.encode_two(mode)

    def decode_mode(self, fmode, imode):
        """The Mode of the compiled arrays (the inverse of ``encode_mode``)."""
        from . import packing

        return Mode(*packing.decode_two(fmode, imode))

    def change_kind(self, mode, new, event, change):
        """The kind ``update`` returns when ``mode`` became ``new`` (the C engine's decision; its change
        report is empty): ``mode_change``."""
        return mode_change(mode, new)

    def decode_record(self, out):
        """The dict of ``record`` from the flat output of the compiled record kernel."""
        from . import packing

        return packing.decode_record(packing.TWO_MASS, out)

    def record(self, t, y, mode):
        F1, F2 = self.forces(t)
        v = self.relative(y)
        zdd = accelerations(self.p, F1, F2, v, mode.direction, mode.stuck, frozen=True)
        lam = friction_forces(self.p, v, mode.direction)
        stuck = np.array(mode.stuck)
        if stuck.any():  # the holding friction from the accelerations of the mode: M zdd = F + G lambda
            rest = self.p.masses * zdd - np.array([F1, F2]) - G[:, ~stuck] @ lam[~stuck]
            lam[stuck] = np.linalg.lstsq(G[:, stuck], rest, rcond=None)[0]
        return dict(z=y[0:2].copy(), zd=y[2:4].copy(), zdd=zdd, f=lam, v=v, F=np.array([F1, F2]),
                    stuck=stuck, E_kin=0.5 * float(self.p.masses @ y[2:4] ** 2),
                    W_drive=y[4], W_friction=y[5])
