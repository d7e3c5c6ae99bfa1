"""The spatial RSRRR linkage of seed 002 Sect. 3-5, cut at its spherical joint S.

Chain 1 is the driving link (1,1), turning about the global z axis through the origin; chain 2 is
links (2,1), (2,2), (2,3) with the paper's transforms (Sect. 3): joint (2,1) about the vertical y
axis through (0, -y0, z0), joint (2,2) at the top of link (2,1), about a horizontal axis, and joint
(2,3) parallel to it at the end of link (2,2). Gravity acts along -y (the paper's theta_2 = [0 1 0 0]
in g_k). Coordinates q = [psi(1,1), psi(2,1), psi(2,2), psi(2,3)] (rad).

Data of Table 1: lengths l, link diameter d = 0.028 m, journal geometry and friction levels per
joint. Our choices where the paper gives no number (documented in ``RSRRRParameters``): links are
solid steel rods of diameter d; the base of chain 2 is at y0 = 0.1 m, z0 = 0.22 m, which puts every
link in the vertical yz plane at psi(1,1) = pi/2, psi(2,1) = 0 and keeps chain 2 away from its
singular (stretched or folded) poses over a whole turn of the driving link; the elbow of chain 2
points towards +z at t = 0.

The friction torques depend on the joint reactions (Newton-Euler, ``reactions``), which depend on
the accelerations, which depend on the friction torques: ``RSRRR.dynamics`` iterates this coupling
to convergence and reports the number of iterations (seed 002 Sect. 6 reports that three suffice).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import ConvergenceError, check_parameters, require
from .chain import Chain, Link, fixed
from .dynamics import energy, lagrange_trace, recursive
from .journal import JournalFriction, JournalSet
from .loop import CutJointLoop
from .reactions import newton_euler

STEEL_DENSITY = 7850.0  # kg/m^3
JOINTS = ("(1,1)", "(2,1)", "(2,2)", "(2,3)")
CONTINUATION_STEP = 0.1  # rad: the largest step of psi11 between two closures of the initial pose
#: the failure of the coupling where it has no solution (``RSRRR._newton_coupling``; the C families' words too)
NO_SOLUTION = ("the reaction-friction coupling has no solution (Painleve-type): Newton crossed det(I - G) = 0, "
               "G = dt_f/dt_f the friction's gain on itself through the reactions (light links by a journal raise G)")


def table1_journals(mu_scale=1.0, mu_s_factor=1.0):
    """The journals of seed 002 Table 1, with every friction level multiplied by mu_scale."""
    small = dict(a_bar=0.03, d_A=0.01, d_B=0.01, d_C=0.015)
    mu = 0.2 * mu_scale
    common = dict(k=3.0, psid_k=0.01, mu_s_factor=mu_s_factor)
    return (JournalFriction(**small, mu_A=mu, mu_B=mu, mu_C=0.0, **common),
            JournalFriction(a_bar=0.03, d_A=0.028, d_B=0.028, d_C=0.028, mu_A=mu, mu_B=mu, mu_C=mu, **common),
            JournalFriction(**small, mu_A=mu, mu_B=mu, mu_C=mu, **common),
            JournalFriction(**small, mu_A=mu, mu_B=mu, mu_C=mu, **common))


@dataclass(frozen=True)
class RSRRRParameters:
    """l: lengths of links (1,1), (2,1), (2,2), (2,3) (m, Table 1); d: rod diameter (m, Table 1);
    density: of the rods (kg/m^3, steel: our choice); y0, z0: base of chain 2 at (0, -y0, z0) (m, our
    choice); g: gravity (m/s^2); journals: four JournalFriction (Table 1); friction: False for ideal
    joints; alpha, beta: Baumgarte constants of the closure (1/s); trace: use the paper's trace
    formulation of the open chains instead of the recursive one (for comparison)."""

    l: tuple = (0.2, 0.2, 0.1, 0.3)
    d: float = 0.028
    density: float = STEEL_DENSITY
    y0: float = 0.1
    z0: float = 0.22
    g: float = 9.81
    journals: tuple = field(default_factory=table1_journals)
    friction: bool = True
    alpha: float = 10.0
    beta: float = 10.0
    trace: bool = False

    def __post_init__(self):
        problems = []
        if len(self.l) != 4:
            problems.append(f"l must give 4 link lengths, got {self.l!r}")
        for i, li in enumerate(self.l):
            require(problems, f"l[{i + 1}]", li, 0.0, low_open=True)
        for name in ("d", "density", "z0"):
            require(problems, name, getattr(self, name), 0.0, low_open=True)
        require(problems, "y0", self.y0)
        require(problems, "g", self.g, 0.0)
        require(problems, "alpha", self.alpha, 0.0)
        require(problems, "beta", self.beta, 0.0)
        if len(self.journals) != 4 or not all(isinstance(j, JournalFriction) for j in self.journals):
            problems.append("journals must be four JournalFriction")
        check_parameters(problems)


def rod(length, d, density, axis, **transforms) -> Link:
    """A solid cylindrical rod from the link origin along axis (0, 1 or 2 = x, y, z) of its frame."""
    m = density * np.pi * d**2 / 4.0 * length
    c = np.zeros(3)
    c[axis] = length / 2.0
    I_c = np.full(3, m * length**2 / 12.0 + m * d**2 / 16.0)
    I_c[axis] = m * d**2 / 8.0
    return Link(m=m, c=tuple(c), I_c=np.diag(I_c), **transforms)


# fixed rotations of seed 002 Sect. 3: T~(2,1) = Trans(0, -y0, z0) P Rz, T~(2,2) = Trans(0, 0, l21) X Rz
P_21 = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
X_22 = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])


@dataclass
class DynamicState:
    """Everything at one instant: qdd (4,) rad/s^2, f_S (3,) N (on chain 1, global axes), f_O and n_O
    (4, 3) joint reactions in the joint frames (N, N.m), t_f (4,) friction torques (N.m, opposing
    qd), iterations of the reaction-friction coupling; alpha: at rest (stiction), the common fraction of
    the static limits that the holding torques t_f use."""

    qdd: np.ndarray
    f_S: np.ndarray
    f_O: np.ndarray
    n_O: np.ndarray
    t_f: np.ndarray
    iterations: int
    alpha: float | None = None


class RSRRR:
    """The mechanism: ``loop`` (the cut-joint system), the journals and the dynamics with friction."""

    COUPLING_TOL = 1e-12  # N.m, relative to 1 + max |t_f|
    MAX_ITERATIONS = 50
    NEWTON_FALLBACK = False  # the reference stays the paper's fixed point (the compiled engine solves by Newton)

    def __init__(self, params: RSRRRParameters = RSRRRParameters()):
        self.p = params
        l11, l21, l22, l23 = params.l
        link = dict(d=params.d, density=params.density)
        chain1 = Chain([rod(l11, axis=0, **link)], gravity=(0.0, -params.g, 0.0))
        chain2 = Chain([rod(l21, axis=2, B=fixed(P_21, (0.0, -params.y0, params.z0)), **link),
                        rod(l22, axis=0, B=fixed(X_22, (0.0, 0.0, l21)), **link),
                        rod(l23, axis=0, B=fixed(np.eye(3), (l22, 0.0, 0.0)), **link)],
                       gravity=(0.0, -params.g, 0.0))
        self.loop = CutJointLoop(chain1, chain2, (l11, 0.0, 0.0), (l23, 0.0, 0.0), params.alpha, params.beta,
                                 lagrange_trace if params.trace else recursive)
        self.built_loop = self.loop  # the loop of the parameters (spatial.packing packs no other from them)
        self.journals = JournalSet(params.journals)
        self.joints = np.arange(4)  # the loop coordinates of joints (1,1), (2,1), (2,2), (2,3)

    def initial_position(self, psi11=np.pi / 2) -> np.ndarray:
        """q (4,) assembled from the driving angle psi11 (rad) on the branch of the reference pose (psi11 =
        pi/2, every link in the yz plane): closed there from a guess, then followed to psi11 (modulo a turn)
        in steps of at most CONTINUATION_STEP, each closed by Newton from the last. So psi11 gives the pose
        the linkage reaches by turning its driving link; Newton from one guess lands on chain 2's other
        branch for most angles more than about 1 rad from pi/2."""
        if not math.isfinite(psi11):
            raise ValueError(f"psi11={float(psi11)!r} is outside the allowed range (-inf, inf)")
        q = self.loop.assemble([np.pi / 2, 0.0, -0.7, -2.3])
        turn = math.remainder(float(psi11) - np.pi / 2, 2.0 * np.pi)
        n = math.ceil(abs(turn) / CONTINUATION_STEP)
        for k in range(1, n + 1):
            q[0] = np.pi / 2 + turn * k / n
            q = self.loop.assemble(q)
        return (q + np.pi) % (2.0 * np.pi) - np.pi

    def reactions(self, q, qd, qdd, f_S):
        """(f_O (4, 3), n_O (4, 3)) in the joint frames, the cut force f_S on chain 1 and -f_S on chain 2;
        qdd (4, m) and f_S (3, m) give (4, 3, m) for m cases."""
        (q1, q2), (qd1, qd2), (qdd1, qdd2) = self.loop.split(q), self.loop.split(qd), self.loop.split(qdd)
        (c1, c2), (r1, r2) = self.loop.chains, self.loop.r_S
        f1, n1 = newton_euler(c1, q1, qd1, qdd1, f_S, r1)
        f2, n2 = newton_euler(c2, q2, qd2, qdd2, -f_S, r2)
        return np.concatenate((f1, f2)), np.concatenate((n1, n2))

    def friction_torques(self, qd, f_O, n_O) -> np.ndarray:
        """t_f (4,) of eqs 4-7 from the loop velocities qd (n,) and the four joints' reactions f_O, n_O (4, 3)
        (zero for ideal joints)."""
        return self.journals.torque(qd[self.joints], f_O, n_O) if self.p.friction else np.zeros(4)

    def dynamics(self, q, qd, tau_1, minimal=False, iterations=None, extra=None, friction=None,
                 newton=False) -> DynamicState:
        """The state of motion at (q, qd) with the net applied torque tau_1 (N.m) on the driving link.

        The friction torques t_f depend on the reactions, which are affine in t_f at a given (q, qd)
        (eq. 2 and eqs 3.1-3.8 are linear in the torques): one solve of eq. (2) with five right-hand
        sides gives that affine map, and the coupling t_f = t_f(reactions(t_f)) is then iterated on it
        to convergence (fixed point, a contraction for the small journals of Table 1).
        minimal: solve by the minimal form instead of eq. (2); iterations: a fixed number of passes of
        the coupling (the paper's scheme; the first pass is frictionless) instead of converging;
        extra: further generalised forces (n,) on the loop coordinates (a clearance contact), or None;
        friction: a function (f_O (4, 3), n_O (4, 3)) -> t_f (4,) in place of eqs 4-7 (default
        ``friction_torques`` at qd); newton: solve the coupling by Newton's method from t_f = 0
        (``_newton_coupling``) instead of the fixed point (which diverges once the friction coefficients
        reach about 0.5, far beyond Table 1's levels: the bristle coefficients of a fast slip).
        The returned qdd (n,) and the reactions and t_f of the four joints (``joints``) are those of the
        returned t_f.
        """
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        solve = self.loop.solve_minimal if minimal else self.loop.solve
        cases = np.zeros((self.loop.n, 5))  # joint forces: the applied ones, then minus a unit friction torque
        if extra is not None:
            cases[:, 0] = extra
        cases[self.joints[0], 0] += tau_1
        cases[:, 1:] = cases[:, :1]
        cases[self.joints, range(1, 5)] -= 1.0
        qdd, f_S = solve(q, qd, cases)  # seed 002 eq. (2)
        f_O, n_O = (x[self.joints] for x in self.reactions(q, qd, qdd, f_S))  # eqs 3.1-3.8
        base = (qdd[:, 0], f_S[:, 0], f_O[..., 0], n_O[..., 0])
        slope = tuple(x[..., 1:] - x[..., :1] for x in (qdd, f_S, f_O, n_O))

        def at(t_f, parts=slice(None)):
            return tuple(b + d @ t_f for b, d in zip(base[parts], slope[parts]))

        if friction is None:
            def friction(f_O, n_O):
                return self.friction_torques(qd, f_O, n_O)
        if newton:
            t_f, it = self._newton_coupling(lambda t: friction(*at(t, slice(2, 4))), np.zeros(4), 0)
            return DynamicState(*at(t_f), t_f, it)
        limit = iterations or self.MAX_ITERATIONS
        t_f = np.zeros(4)  # the first pass is frictionless
        for it in range(1, limit + 1):
            new = friction(*at(t_f, slice(2, 4)))  # eqs 4-7
            change = np.abs(new - t_f).max()
            if change <= self.COUPLING_TOL * (1.0 + np.abs(new).max()) or it == limit:
                break
            t_f = new
        if iterations is None and change > self.COUPLING_TOL * (1.0 + np.abs(new).max()):
            if not self.NEWTON_FALLBACK:
                raise ConvergenceError(f"the reaction-friction coupling did not converge in {limit} iterations "
                                       f"(last change {change:.3g} N.m)")
            t_f, it = self._newton_coupling(lambda t: friction(*at(t, slice(2, 4))), new, it)
        return DynamicState(*at(t_f), t_f, it)

    def _newton_coupling(self, friction, t_f, it):
        """(t_f, iterations): the coupling t_f = friction(t_f) solved by Newton's method (Jacobian by forward
        differences) from t_f, where the fixed-point iteration contracts too slowly (light links beside a joint,
        as the rigid finite elements of a flexible link).

        Where it fails, the message tells whether an iterate had det(I - G) <= 0, G = dt_f/dt_f the friction
        torques' gain on themselves through the reactions: the residual t_f - friction(t_f) has turned over
        (a fold), so the coupling has no solution near (a Painleve-type inconsistency of Coulomb friction on
        the reactions: the solution met its second branch and both ended)."""
        folded = False
        for k in range(1, self.MAX_ITERATIONS + 1):
            base = friction(t_f)
            residual = base - t_f
            if np.abs(residual).max() <= self.COUPLING_TOL * (1.0 + np.abs(t_f).max()):
                return t_f, it + k
            h = 1e-7 * (1.0 + np.abs(t_f).max())
            gain = np.array([(friction(t_f + h * e) - base) / h for e in np.eye(4)]).T
            folded |= np.linalg.det(np.eye(4) - gain) <= 0.0
            try:
                t_f = t_f - np.linalg.solve(gain - np.eye(4), residual)
            except np.linalg.LinAlgError:
                raise ConvergenceError(f"the Jacobian of the reaction-friction coupling is singular (Newton "
                                       f"iteration {k})") from None
        if folded:
            raise ConvergenceError(NO_SOLUTION + f" (residual {np.abs(residual).max():.3g} N.m after {it} "
                                   f"fixed-point and {self.MAX_ITERATIONS} Newton iterations)")
        raise ConvergenceError(f"the reaction-friction coupling did not converge in {it} fixed-point and "
                               f"{self.MAX_ITERATIONS} Newton iterations (residual {np.abs(residual).max():.3g} N.m)")

    def energy(self, q, qd):
        """(E_kin, E_pot) in J of the whole mechanism (potential zero at y = 0)."""
        (q1, q2), (qd1, qd2) = self.loop.split(q), self.loop.split(qd)
        (k1, v1), (k2, v2) = (energy(c, qc, qdc) for c, qc, qdc in zip(self.loop.chains, (q1, q2), (qd1, qd2)))
        return k1 + k2, v1 + v2
