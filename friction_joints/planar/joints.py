"""Planar joints as non-ideal constraints (seed 000 Sect. 2, Fig. 2; seed 004 eqs 1-2).

Each joint connects body i (the first-named, distal body, which receives the reaction f) with
body j (0 is the ground). It defines its constrained local coordinates z = Phi(x) and free
coordinates s = Psi(x), their Jacobians with respect to the poses of i and j, the acceleration
term xi = -Cdot xdot, and the friction f_mu it produces from its ideal reactions f and its slip
velocities sdot. The multiplier convention is r_0 = C^T f (seed 000 eq. 2.3).

Notation: the pose of a body is (r, theta), r its centre of mass; p_i, p_j are points fixed in the
bodies (local coordinates, m); R(theta) is the rotation matrix; d = r_i + R_i p_i - r_j - R_j p_j.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require
from ..friction import FrictionLaw


def rotation(theta: float) -> np.ndarray:
    """2x2 rotation matrix R(theta)."""
    c, s = np.cos(theta), np.sin(theta)
    return np.array([[c, -s], [s, c]])


def perp(v: np.ndarray) -> np.ndarray:
    """The vector v turned by +90 degrees: dR/dtheta p = perp(R p)."""
    return np.array([-v[1], v[0]])


def pose(x: np.ndarray, body: int):
    """(r, theta) of ``body`` in x (the ground, body 0, is at the origin)."""
    if body == 0:
        return np.zeros(2), 0.0
    k = 3 * (body - 1)
    return x[k : k + 2], x[k + 2]


@dataclass(frozen=True)
class JointTerms:
    """Local coordinates and derivatives of one joint at a state.

    z: (n_z,), s: (n_s,); C_i, C_j: (n_z, 3) Jacobians of z over the poses of i and j;
    Cmu_i, Cmu_j: (n_s, 3) Jacobians of s; xi: (n_z,) = -Cdot xdot (zero if no velocity given).
    """

    z: np.ndarray
    s: np.ndarray
    C_i: np.ndarray
    C_j: np.ndarray
    Cmu_i: np.ndarray
    Cmu_j: np.ndarray
    xi: np.ndarray


def _law_coefficients(laws, sd, direction, static):
    """Signed coefficients -dir mu for each free coordinate; ``laws`` may contain None (frictionless);
    ``static`` is a bool or one bool per free coordinate."""
    signs = np.sign(sd) if direction is None else np.asarray(direction, dtype=float)
    if np.ndim(static) == 0:
        static = (bool(static),) * len(laws)
    out = np.zeros(len(laws))
    for k, law in enumerate(laws):
        if law is not None and signs[k] != 0.0:
            mu = law.mu_s if static[k] else float(law.coefficient(sd[k]))
            out[k] = -signs[k] * mu
    return out


class Joint:
    """Interface of the planar joints. Subclasses set ``n_z``, ``n_s`` and implement the methods."""

    body_i: int
    body_j: int
    n_z: int
    n_s: int

    def terms(self, x: np.ndarray, xd: np.ndarray | None = None) -> JointTerms:
        raise NotImplementedError

    def xi(self, x, xd) -> np.ndarray:
        """xi = -Cdot xdot (n_z,) at x and xd (n,), without the Jacobians (``terms`` includes it)."""
        raise NotImplementedError

    def friction(self, f, sd, direction=None, static=False):
        """Friction of the joint from its ideal reactions.

        f: (n_z,) ideal reaction components; sd: (n_s,) slip velocities; direction: (n_s,) signs to
        use instead of sgn(sd) (the intended sliding direction at sd = 0); static: use mu_s instead of
        the kinetic mu(sd) (a bool or one per free coordinate). Returns f_mu (n_s,) and its Jacobian df_mu/df (n_s, n_z).
        """
        raise NotImplementedError

    def lipschitz(self) -> float:
        """Bound L with ||f_mu(f) - f_mu(f')|| <= L ||f - f'|| for every admissible mu (2-norms)."""
        raise NotImplementedError

    def friction_laws(self) -> tuple:
        """The friction law of each free coordinate (None where frictionless)."""
        raise NotImplementedError

    def _validate_bodies(self, problems):
        require(problems, "body_i", self.body_i, 1)
        require(problems, "body_j", self.body_j, 0)
        if self.body_i == self.body_j:
            problems.append(f"body_i and body_j must differ, both are {self.body_i}")


def _relative_point_terms(x, body_i, body_j, p_i, p_j):
    """d = r_i + R_i p_i - r_j - R_j p_j, its Jacobians (2x3 each), R_i p_i, R_j p_j and theta_j."""
    r_i, th_i = pose(x, body_i)
    r_j, th_j = pose(x, body_j)
    a_i = rotation(th_i) @ p_i
    a_j = rotation(th_j) @ p_j
    d = r_i + a_i - r_j - a_j
    D_i = np.column_stack((np.eye(2), perp(a_i)))
    D_j = -np.column_stack((np.eye(2), perp(a_j)))
    return d, D_i, D_j, a_i, a_j, th_j


def _moving_point(x, xd, body, p):
    """(R p, r + R p, omega, velocity of the point) of point p of ``body`` (ground: fixed)."""
    if body == 0:
        p = np.asarray(p, float)
        return p, p, 0.0, np.zeros(2)
    k = 3 * (body - 1)
    c, s = np.cos(x[k + 2]), np.sin(x[k + 2])
    a = np.array([c * p[0] - s * p[1], s * p[0] + c * p[1]])
    w = xd[k + 2]
    return a, x[k : k + 2] + a, w, xd[k : k + 2] + w * np.array([-a[1], a[0]])


@dataclass(frozen=True)
class Revolute(Joint):
    """Revolute joint: point p_i of body i coincides with point p_j of body j.

    z = d (2 rows, forces on body i along x and y), s = theta_i - theta_j.
    Friction (seed 000 eq. 2.5 row 1): f_mu = -sgn(sdot) mu_r(sdot) r sqrt(f_1^2 + f_2^2), where r is
    the friction arm (the papers call it the bearing diameter d and use 0.05 m in their examples).
    """

    body_i: int
    body_j: int
    p_i: tuple
    p_j: tuple
    law: FrictionLaw | None = None
    r: float = 0.0
    n_z = 2
    n_s = 1

    def __post_init__(self):
        problems = []
        self._validate_bodies(problems)
        require(problems, "r", self.r, 0.0, low_open=self.law is not None)
        check_parameters(problems)

    def terms(self, x, xd=None):
        d, D_i, D_j, *_ = _relative_point_terms(
            x, self.body_i, self.body_j, np.asarray(self.p_i, float), np.asarray(self.p_j, float)
        )
        s = np.array([pose(x, self.body_i)[1] - pose(x, self.body_j)[1]])
        xi = np.zeros(2) if xd is None else self.xi(x, xd)
        return JointTerms(d, s, D_i, D_j, np.array([[0.0, 0.0, 1.0]]), np.array([[0.0, 0.0, -1.0]]), xi)

    def xi(self, x, xd):
        a_i, _, w_i, _ = _moving_point(x, xd, self.body_i, self.p_i)
        a_j, _, w_j, _ = _moving_point(x, xd, self.body_j, self.p_j)
        return a_i * w_i**2 - a_j * w_j**2  # -Cdot xdot of d

    def friction(self, f, sd, direction=None, static=False):
        coef = _law_coefficients((self.law,), sd, direction, static)[0]
        norm = np.hypot(f[0], f[1])
        f_mu = np.array([coef * self.r * norm])
        grad = np.zeros((1, 2)) if norm == 0.0 else coef * self.r * np.asarray(f[:2])[None, :] / norm
        return f_mu, grad

    def lipschitz(self):
        return 0.0 if self.law is None else self.law.bound * self.r

    def friction_laws(self):
        return (self.law,)

    def place(self, parent_pose, q):
        """Pose of body i from the pose of body j and q = theta_i (absolute angle, as in seed 000 (6.4))."""
        r_j, th_j = parent_pose
        r_i = r_j + rotation(th_j) @ np.asarray(self.p_j, float) - rotation(q) @ np.asarray(self.p_i, float)
        return r_i, q


@dataclass(frozen=True)
class Prismatic(Joint):
    """Prismatic joint with rotation lock: point p_i of body i slides on the line of body j through p_j
    with local direction e_j; theta_i - theta_j = theta_0.

    z = [n . d, theta_i - theta_j - theta_0] (normal force f_n on body i at p_i, lock moment f_theta),
    s = e . d, with e = R_j e_j and n = perp(e).
    Friction (seed 000 eq. 2.5 row 2): f_mu = -sgn(sdot) mu_t(sdot) N. By default N = |f_n| as in the
    paper's examples. With ``edge_length`` L > 0 the lock moment is carried by two edges at -+L/2
    along the guide: N = |f_n/2 + f_theta/L| + |f_n/2 - f_theta/L| (a model beyond the paper).
    """

    body_i: int
    body_j: int
    p_i: tuple
    p_j: tuple
    e_j: tuple = (1.0, 0.0)
    theta_0: float = 0.0
    law: FrictionLaw | None = None
    edge_length: float | None = None
    n_z = 2
    n_s = 1

    def __post_init__(self):
        problems = []
        self._validate_bodies(problems)
        norm = float(np.hypot(*self.e_j))
        if not np.isfinite(norm) or norm == 0.0:
            problems.append(f"e_j={self.e_j!r} must be a finite non-zero direction")
        else:
            object.__setattr__(self, "e_j", (self.e_j[0] / norm, self.e_j[1] / norm))
        if self.edge_length is not None:
            require(problems, "edge_length", self.edge_length, 0.0, low_open=True)
        check_parameters(problems)

    def _slide_terms(self, x, xd):
        """Normal and tangential rows: (z_n, s, C_n_i, C_n_j, Cs_i, Cs_j, xi_n)."""
        d, D_i, D_j, _, _, th_j = _relative_point_terms(
            x, self.body_i, self.body_j, np.asarray(self.p_i, float), np.asarray(self.p_j, float)
        )
        e = rotation(th_j) @ np.asarray(self.e_j, float)
        n = perp(e)
        # de/dtheta_j = n, dn/dtheta_j = -e: extra terms in the theta_j column
        Cn_i, Cs_i = n @ D_i, e @ D_i
        Cn_j, Cs_j = n @ D_j, e @ D_j
        Cn_j[2] -= e @ d
        Cs_j[2] += n @ d
        xi_n = 0.0 if xd is None else self._slide_xi(x, xd)
        return n @ d, e @ d, Cn_i, Cn_j, Cs_i, Cs_j, xi_n

    def _slide_xi(self, x, xd):
        """xi_n = -d/dt(C_n) xdot, derived from z_n'' = n''.d + 2 n'.d' + n.d''."""
        a_i, P_i, w_i, v_i = _moving_point(x, xd, self.body_i, self.p_i)
        a_j, P_j, w_j, v_j = _moving_point(x, xd, self.body_j, self.p_j)
        e = rotation(pose(x, self.body_j)[1]) @ np.asarray(self.e_j, float)
        n = perp(e)
        return n @ (P_i - P_j) * w_j**2 + 2.0 * w_j * (e @ (v_i - v_j)) + n @ (a_i * w_i**2 - a_j * w_j**2)

    def xi(self, x, xd):
        return np.array([self._slide_xi(x, xd), 0.0])

    def terms(self, x, xd=None):
        zn, s, Cn_i, Cn_j, Cs_i, Cs_j, xi_n = self._slide_terms(x, xd)
        th = pose(x, self.body_i)[1] - pose(x, self.body_j)[1] - self.theta_0
        lock_i, lock_j = np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, -1.0])
        return JointTerms(
            np.array([zn, th]), np.array([s]), np.vstack((Cn_i, lock_i)), np.vstack((Cn_j, lock_j)),
            Cs_i[None, :], Cs_j[None, :], np.array([xi_n, 0.0]),
        )

    def friction(self, f, sd, direction=None, static=False):
        coef = _law_coefficients((self.law,), sd, direction, static)[0]
        if self.edge_length is None:
            load, dload = abs(f[0]), np.array([np.sign(f[0]), 0.0])
        else:
            a, b = f[0] / 2 + f[1] / self.edge_length, f[0] / 2 - f[1] / self.edge_length
            load = abs(a) + abs(b)
            dload = np.sign(a) * np.array([0.5, 1 / self.edge_length]) + np.sign(b) * np.array(
                [0.5, -1 / self.edge_length]
            )
        return np.array([coef * load]), (coef * dload)[None, :]

    def lipschitz(self):
        if self.law is None:
            return 0.0
        factor = 1.0 if self.edge_length is None else np.sqrt(1.0 + 4.0 / self.edge_length**2)
        return self.law.bound * factor

    def friction_laws(self):
        return (self.law,)

    def place(self, parent_pose, q, axis):
        """Pose of body i from body j's pose and q = component ``axis`` (0: x, 1: y) of r_i."""
        r_j, th_j = parent_pose
        th_i = th_j + self.theta_0
        e = rotation(th_j) @ np.asarray(self.e_j, float)
        if abs(e[axis]) < 1e-12:
            raise ValueError(f"prismatic joint cannot use coordinate {'xy'[axis]} of body {self.body_i}: "
                             "the guide is perpendicular to it")
        base = r_j + rotation(th_j) @ np.asarray(self.p_j, float) - rotation(th_i) @ np.asarray(self.p_i, float)
        return base + (q - base[axis]) / e[axis] * e, th_i


@dataclass(frozen=True)
class PinInSlot(Joint):
    """Pin p_i of body i in a slot of body j through p_j along e_j: sliding and rotation in one joint.

    z = [n . d] (normal force f on body i), s = [e . d, theta_i - theta_j].
    Friction (seed 000 eq. 2.5 rows 3-4): f_mu1 = -sgn(sdot_1) mu_t |f|,
    f_mu2 = -sgn(sdot_2) mu_r r sqrt(f^2 + f_mu1^2), the pin load being the resultant of the normal
    force and the sliding friction; during slip this is the paper's mu_r d sqrt(1 + mu_t^2) |f|.
    """

    body_i: int
    body_j: int
    p_i: tuple
    p_j: tuple
    e_j: tuple = (1.0, 0.0)
    law_t: FrictionLaw | None = None
    law_r: FrictionLaw | None = None
    r: float = 0.0
    n_z = 1
    n_s = 2

    def __post_init__(self):
        problems = []
        self._validate_bodies(problems)
        require(problems, "r", self.r, 0.0, low_open=self.law_r is not None)
        check_parameters(problems)
        slot = Prismatic(self.body_i, self.body_j, self.p_i, self.p_j, self.e_j)  # shared slot geometry
        object.__setattr__(self, "_slot", slot)
        object.__setattr__(self, "e_j", slot.e_j)

    def xi(self, x, xd):
        return np.array([self._slot._slide_xi(x, xd)])

    def terms(self, x, xd=None):
        zn, s, Cn_i, Cn_j, Cs_i, Cs_j, xi_n = self._slot._slide_terms(x, xd)
        th = pose(x, self.body_i)[1] - pose(x, self.body_j)[1]
        rot_i, rot_j = np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0, -1.0])
        return JointTerms(
            np.array([zn]), np.array([s, th]), Cn_i[None, :], Cn_j[None, :],
            np.vstack((Cs_i, rot_i)), np.vstack((Cs_j, rot_j)), np.array([xi_n]),
        )

    def friction(self, f, sd, direction=None, static=False):
        c_t, c_r = _law_coefficients((self.law_t, self.law_r), sd, direction, static)
        fn = f[0]
        f_mu1 = c_t * abs(fn)
        factor = self.r * np.sqrt(1.0 + c_t**2)  # sqrt(f^2 + f_mu1^2) = |f| sqrt(1 + c_t^2)
        f_mu2 = c_r * factor * abs(fn)
        grad = np.array([[c_t * np.sign(fn)], [c_r * factor * np.sign(fn)]])
        return np.array([f_mu1, f_mu2]), grad

    def lipschitz(self):
        mt = 0.0 if self.law_t is None else self.law_t.bound
        mr = 0.0 if self.law_r is None else self.law_r.bound
        return float(np.sqrt(mt**2 + (mr * self.r) ** 2 * (1.0 + mt**2)))

    def friction_laws(self):
        return (self.law_t, self.law_r)
