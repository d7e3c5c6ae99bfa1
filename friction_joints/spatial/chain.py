"""Open chains of one-coordinate joints in space: homogeneous transforms and rigid links (seed 002 Sect. 3).

Joint p moves link p relative to its parent link along the z axis of an intermediate frame:
T~(p) = B_p Z_p(q_p) A_p with fixed 4x4 transforms B_p (before the motion) and A_p (after it),
and T(p) = T(parent) T~(p), T(parent of a root link) = base (seed 002 eq. 1, where the parent is
p-1). The joint kind of each link (``Link.joint``) gives Z_p: "R" a revolute joint, Z = Rz(psi)
(seed 002's only kind), "P" a prismatic one, Z = Tz(s). Three of each, with fixed frames between
them, give any relative motion of two bodies (the spring-damper elements of ``rfem``). A joint may
carry a linear spring-damper on its coordinate, tau_s = -k q - d qd (``Chain.spring_forces``).
Denavit-Hartenberg is the case B = I, A = Tz(d) Tx(a) Rx(alpha); the paper's own matrices put the
fixed part in B (see ``fixed``). Serial chains are the default; a tree (seed 003's open
topologies) gives each link its parent, numbered before it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require

Q = np.zeros((4, 4))  # dRz/dpsi = Q Rz(psi): the derivative operator of a revolute joint
Q[0, 1], Q[1, 0] = -1.0, 1.0
Q_P = np.zeros((4, 4))  # dTz/ds = Q_P Tz(s): the derivative operator of a prismatic joint
Q_P[2, 3] = 1.0
JOINT_KINDS = {"R": Q, "P": Q_P}
# rotations (3x3) to a frame whose z axis is the parent frame's x axis, or its y axis (joints along x or y)
X_TO_Z = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
Y_TO_Z = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])


def cross3(a, b):
    """a x b for vectors (3,) or columns of vectors (3, m), broadcasting (np.cross costs ~10x more)."""
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


def rot_z(psi: float) -> np.ndarray:
    c, s = np.cos(psi), np.sin(psi)
    T = np.eye(4)
    T[:2, :2] = [[c, -s], [s, c]]
    return T


def trans_z(s: float) -> np.ndarray:
    """Tz(s) (4x4), the translation by s (m) along z."""
    T = np.eye(4)
    T[2, 3] = s
    return T


def joint_motion(kind: str, q: float) -> np.ndarray:
    """Z(q) (4x4) of a joint of kind "R" (Rz(q), q in rad) or "P" (Tz(q), q in m)."""
    return rot_z(q) if kind == "R" else trans_z(q)


def fixed(R=np.eye(3), p=(0.0, 0.0, 0.0)) -> np.ndarray:
    """The 4x4 homogeneous transform with rotation R (3x3) and translation p (m)."""
    T = np.eye(4)
    T[:3, :3], T[:3, 3] = R, p
    return T


def dh(d: float, a: float, alpha: float) -> np.ndarray:
    """The fixed part A = Tz(d) Tx(a) Rx(alpha) of a Denavit-Hartenberg joint (T~ = Rz(theta) A)."""
    c, s = np.cos(alpha), np.sin(alpha)
    return fixed([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]], (a, 0.0, d))


@dataclass(frozen=True)
class Link:
    """A rigid link: mass m (kg), centre of mass c (3,) and inertia I_c (3x3, kg.m2, about the centre
    of mass) in the link frame, joined to its parent by T~ = B Z(q) A with a joint of kind ``joint``
    ("R" revolute, "P" prismatic) that carries a spring of stiffness k (N.m/rad or N/m, zero force at
    q = 0) and a damper d (N.m.s/rad or N.s/m). A massless link (m = 0 and I_c = 0) only carries a
    joint frame, as the intermediate frames of a spring-damper element with several coordinates."""

    m: float
    c: tuple
    I_c: tuple
    B: np.ndarray = None
    A: np.ndarray = None
    joint: str = "R"
    k: float = 0.0
    d: float = 0.0

    def __post_init__(self):
        problems = []
        I_c = np.asarray(self.I_c, float)
        massless = I_c.shape == (3, 3) and not I_c.any()
        require(problems, "m", self.m, 0.0, low_open=not massless)
        if problems and not massless:
            problems[-1] += " (m = 0 only for a massless link, with I_c = 0)"
        if I_c.shape != (3, 3) or not np.allclose(I_c, I_c.T) or np.linalg.eigvalsh(I_c).min() < 0:
            problems.append(f"I_c must be a symmetric positive semidefinite 3x3 matrix, got {self.I_c!r}")
        if self.joint not in JOINT_KINDS:
            problems.append(f"joint must be one of {sorted(JOINT_KINDS)}, got {self.joint!r}")
        require(problems, "k", self.k, 0.0)
        require(problems, "d", self.d, 0.0)
        check_parameters(problems)
        object.__setattr__(self, "B", np.eye(4) if self.B is None else np.asarray(self.B, float))
        object.__setattr__(self, "A", np.eye(4) if self.A is None else np.asarray(self.A, float))

    @property
    def H(self) -> np.ndarray:
        """Pseudo-inertia matrix 4x4 about the link frame origin: [[J, m c], [m c^T, m]] with
        J = int r r^T dm = tr(I_c)/2 E - I_c + m c c^T (seed 002 eq. 2)."""
        c, I_c = np.asarray(self.c, float), np.asarray(self.I_c, float)
        H = np.zeros((4, 4))
        H[:3, :3] = 0.5 * np.trace(I_c) * np.eye(3) - I_c + self.m * np.outer(c, c)
        H[:3, 3] = H[3, :3] = self.m * c
        H[3, 3] = self.m
        return H


class Chain:
    """An open chain (serial or tree) of joints from a fixed base. links: Link list; base:
    4x4 transform of the base frame in the global frame; gravity: (3,) m/s^2 in the global frame;
    parents: index of each link's parent link (-1: the base), each smaller than the link's own
    index; None for a serial chain (parents p - 1)."""

    def __init__(self, links, base=np.eye(4), gravity=(0.0, 0.0, -9.81), parents=None):
        self.links = list(links)
        if not self.links:
            raise ValueError("a chain needs at least one link")
        self.base = np.asarray(base, float)
        self.gravity = np.asarray(gravity, float)
        self.n = len(self.links)
        self.parents = tuple(range(-1, self.n - 1)) if parents is None else tuple(int(i) for i in parents)
        if len(self.parents) != self.n or any(not -1 <= i < p for p, i in enumerate(self.parents)):
            raise ValueError(f"parents must give, for each of the {self.n} links, -1 (the base) or a smaller "
                             f"link index, got {parents!r}")
        # supports[i, p]: joint i lies on the path from the base to link p (i == p included)
        self.supports = np.zeros((self.n, self.n), bool)
        for p, i in enumerate(self.parents):
            if i >= 0:
                self.supports[:, p] = self.supports[:, i]
            self.supports[p, p] = True
        self.kinds = tuple(link.joint for link in self.links)
        self.k = np.array([link.k for link in self.links])
        self.d = np.array([link.d for link in self.links])

    def path(self, p) -> np.ndarray:
        """Indices of the joints from the base to link p, in order."""
        return np.flatnonzero(self.supports[:, p])

    def frames(self, q):
        """(T (n, 4, 4) link frames, M (n, 4, 4) joint-axis frames T(parent) B_p) at q (n,), rad or m."""
        q = np.asarray(q, float)
        if q.shape != (self.n,):
            raise ValueError(f"q must have shape ({self.n},), got {q.shape}")
        T, M = np.empty((self.n, 4, 4)), np.empty((self.n, 4, 4))
        for p, (link, qp, i) in enumerate(zip(self.links, q, self.parents)):
            M[p] = (self.base if i < 0 else T[i]) @ link.B
            T[p] = M[p] @ joint_motion(link.joint, qp) @ link.A
        return T, M

    def spring_forces(self, q, qd) -> np.ndarray:
        """tau_s = -k q - d qd (n,): the generalised forces of the joints' spring-dampers (N.m or N)."""
        return -self.k * np.asarray(q, float) - self.d * np.asarray(qd, float)

    def strain_energy(self, q) -> float:
        """sum k q^2 / 2 (J), the energy stored in the joints' springs."""
        q = np.asarray(q, float)
        return 0.5 * float(self.k @ (q * q))
