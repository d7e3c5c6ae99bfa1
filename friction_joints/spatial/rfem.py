"""Flexible links by the rigid finite element method (RFEM; seed 003 and its ref. [1], after Wittbrodt,
Adamiec-Wojcik and Wojciech, "Dynamics of Flexible Multibody Systems. Rigid Finite Element Method",
Springer 2006).

A straight beam of length L (along the x axis of its start frame) is divided into n segments of length
l = L / n (the primary division). A spring-damper element (sde) replaces the flexibility of each
segment and sits at its middle, x_i = (i - 1/2) l, i = 1..n; the rigid finite elements (rfe) lie
between them (the secondary division): rfe 0 = [0, l/2], rfe i = [x_i, x_i + l], rfe n = [L - l/2, L].
So n sdes join n + 1 rfes, and n = 0 is the rigid link.

The sde of a segment of length l has the stiffnesses of that segment of beam under uniform stress
resultants (the strain energy of a segment, M^2 l / (2 E I) and so on, equals k phi^2 / 2 with
phi = M / k):
    bending about y, z:  k = E I_y / l, E I_z / l   (N.m/rad)
    torsion about x:     k = G J / l                (N.m/rad, J the torsion constant)
    stretching along x:  k = E A / l                (N/m)
    shear along y, z:    k = kappa G A / l          (N/m, kappa the shear coefficient)
and dampers proportional to them, d = beta k. The modified approach gives each sde the three
rotations (two bending, one torsion); the classical one all six (stretching, shear, bending,
torsion). Each rfe is a rigid prism of the beam's section: mass rho A a for its length a, inertia
rho a (I_y + I_z) about the beam axis and rho a I_y + m a^2 / 12, rho a I_z + m a^2 / 12 about y, z.

In the chain every sde coordinate is one joint (``Link.joint`` "R" or "P") with its spring-damper; the
frames between the coordinates of one sde belong to massless links. The order within an sde is the
translations along x, y, z, then the rotations about x, y, z of the turned frames (Cardan angles):
exact for small deflections, where the sde is linear; for large ones the springs act on these angles.

For a cantilever with a tip load F the sdes give the tip deflection sum F (L - x_i)^2 l / (E I), the
midpoint rule of the exact integral F L^3 / (3 E I): F L^3 / (3 E I) (1 - 1 / (4 n^2)) (derived here and
tested, as are the own-weight sag and the bending and torsion frequencies, all converging at order 2).
The literature's text was not at hand: the division and the stiffness formulas above are the method as
we know it, re-derived from the beam's strain energy and checked by those tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require
from .chain import X_TO_Z, Y_TO_Z, Link, fixed

APPROACHES = ("modified", "classical")
# R_e: the joint frame's axes (columns) in the beam's axes, its z column the beam's x, y or z axis
_AXIS_TO_Z = (X_TO_Z, Y_TO_Z, np.eye(3))


@dataclass(frozen=True)
class Beam:
    """A straight prismatic beam: length L (m), section area A (m^2), second moments I_y, I_z (m^4)
    about the section's principal axes y, z, torsion constant J (m^4), density rho (kg/m^3), Young's
    modulus E and shear modulus G (Pa), Timoshenko's shear coefficient kappa (1: the plain G A / l;
    5/6 for a rectangle, about 0.9 for a solid circle)."""

    L: float
    A: float
    I_y: float
    I_z: float
    J: float
    rho: float
    E: float
    G: float
    kappa: float = 1.0

    def __post_init__(self):
        problems = []
        for name in ("L", "A", "I_y", "I_z", "J", "rho", "E", "G"):
            require(problems, name, getattr(self, name), 0.0, low_open=True)
        require(problems, "kappa", self.kappa, 0.0, 1.0, low_open=True)
        check_parameters(problems)

    @classmethod
    def circular(cls, L, d, rho, E, G, kappa=1.0):
        """A solid round bar of diameter d (m)."""
        I = np.pi * d**4 / 64.0
        return cls(L=L, A=np.pi * d**2 / 4.0, I_y=I, I_z=I, J=2.0 * I, rho=rho, E=E, G=G, kappa=kappa)

    def sde(self, l, approach):
        """[(kind, axis, k)] of the sde of a segment of length l (m): joint kind "P" or "R", beam axis
        0, 1, 2 (x, y, z) and stiffness (N/m or N.m/rad), translations first."""
        E, G = self.E, self.G
        rotations = [("R", 0, G * self.J / l), ("R", 1, E * self.I_y / l), ("R", 2, E * self.I_z / l)]
        if approach == "modified":
            return rotations
        shear = self.kappa * G * self.A / l
        return [("P", 0, E * self.A / l), ("P", 1, shear), ("P", 2, shear)] + rotations

    def segment(self, a):
        """(m (kg), c (3,), I_c (3, 3)) of the rfe of length a (m) in its frame at its start."""
        m = self.rho * self.A * a
        I_c = np.diag([self.rho * a * (self.I_y + self.I_z), self.rho * a * self.I_y + m * a**2 / 12.0,
                       self.rho * a * self.I_z + m * a**2 / 12.0])
        return m, np.array([a / 2.0, 0.0, 0.0]), I_c


def _tx(x):
    return fixed(np.eye(3), (x, 0.0, 0.0))


def rfem_links(beam: Beam, n: int, approach="modified", beta=0.0, B=np.eye(4), A=np.eye(4), joint="R",
               frame=np.eye(4)) -> list:
    """The links of a flexible link for a serial run of a Chain (list of Link, 1 + n (3 or 6) long).

    beam: the Beam; n: number of sdes (0: one rigid link); approach: "modified" or "classical"; beta:
    stiffness-proportional damping d = beta k (s); B, A, joint: the link's joint to its parent, as for a
    rigid Link; frame (4, 4): the beam's start frame (beam along its x axis) in the rigid link's frame.
    At q = 0 the last link's frame is the rigid link's frame, so the next joint's B, a loop's cut point
    and loads are given as for the rigid link (the beam tip is at frame @ (L, 0, 0, 1)). In a tree, the
    links that hang from the flexible link take the last of these links as their parent.
    """
    problems = []
    if not isinstance(n, (int, np.integer)) or n < 0:
        problems.append(f"n must be an integer >= 0, got {n!r}")
    if approach not in APPROACHES:
        problems.append(f"approach must be one of {APPROACHES}, got {approach!r}")
    require(problems, "beta", beta, 0.0)
    check_parameters(problems)
    l = beam.L / max(n, 1)
    starts = [0.0] + [(i - 0.5) * l for i in range(1, n + 1)]  # rfe i begins at sde i (rfe 0 at the root)
    ends = starts[1:] + [beam.L]
    # each entry: (B, joint, k, A, rfe index or None for a massless frame), frames beam-aligned
    joints = [(B, joint, 0.0, A @ frame, 0)]  # the link's own joint, then into the beam's start frame
    for i in range(1, n + 1):
        parts = beam.sde(l, approach)
        for j, (kind, axis, k) in enumerate(parts):
            R_e = fixed(_AXIS_TO_Z[axis])
            offset = _tx(starts[i] - starts[i - 1]) if j == 0 else np.eye(4)
            joints.append((offset @ R_e, kind, k, R_e.T, i if j == len(parts) - 1 else None))
    links = []
    for p, (B_p, kind, k, A_p, rfe) in enumerate(joints):
        last = p == len(joints) - 1
        # the last link's frame returns to the rigid link's frame: beam start (x = -x_n), then frame^-1
        back = _tx(-starts[-1]) @ np.linalg.inv(frame) if last else np.eye(4)
        if rfe is None:
            m, c, I_c = 0.0, np.zeros(3), np.zeros((3, 3))
        else:
            m, c, I_c = beam.segment(ends[rfe] - starts[rfe])
            to_link = np.linalg.inv(back)
            R = to_link[:3, :3]
            c, I_c = R @ c + to_link[:3, 3], R @ I_c @ R.T
        links.append(Link(m=m, c=tuple(c), I_c=I_c, B=B_p, A=A_p @ back, joint=kind, k=k, d=beta * k))
    return links
