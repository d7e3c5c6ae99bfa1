"""Planar revolute joint with radial clearance: a journal (J) free inside a bearing (B), axes parallel.

Kinematics after Flores et al., Mech. Mach. Theory 41 (2006) 247-261 (the contact force is uniform along the
axis, seed 003's planar model). With r_J, r_B (2,; m) the centres, c = R_B - R_J the radial clearance:

    e = r_J - r_B,   n = e / |e|,   delta = |e| - c                   (eccentricity, normal, penetration)
    Q_J = r_J + R_J n,   Q_B = r_B + R_B n                             (contact points on J and on B)
    v_rel = v_J + omega_J x (R_J n) - v_B - omega_B x (R_B n)          (slip of J on B at the contact)
    deltad = v_rel . n = (v_J - v_B) . n,   v_t = v_rel . t,   t = (-n_y, n_x)

The normal force F_n (N, >= 0) comes from a contact law (``contact.laws``), the friction force
F_t = law.kinetic(v_t, F_n) (N, opposing v_t) from a friction law of ``friction.laws`` that is continuous at
zero slip (coefficient(0) = 0: Tanh, the regularised Coulomb law, or Exponential of seed 002 eq. 7). Exact
Coulomb friction needs a stick mode with a holding force bounded by mu F_n, which an impact (F_n changing
by orders of magnitude within microseconds) would switch on and off at every step; the regularised law keeps
the contact one smooth mode whose slip is resolved by the error control. The bristle laws would add one state
per contact and their own stiffness on top of the contact's; they are left to a later step.

The force on J, f_J = -F_n n + F_t t, acts at Q_J and -f_J acts on B at Q_B; the moments about the body
centres are M_J = R_J F_t and M_B = -R_B F_t (n x t = 1). Their power is -F_n deltad + F_t v_t exactly, so
the contact's elastic energy and dissipated work balance the bodies' kinetic energy (tests check it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require
from ..friction.laws import FrictionLaw
from .laws import ContactLaw


def check_joint(problems, law, friction, R_J, R_B):
    """Append the problems of the parameters a clearance joint shares (planar and spatial)."""
    require(problems, "R_J", R_J, 0.0, low_open=True)
    require(problems, "R_B", R_B, R_J if R_J > 0 else 0.0, low_open=True)
    if not isinstance(law, ContactLaw):
        problems.append(f"law must be a contact law (LankaraniNikravesh, Flores), got {law!r}")
    if friction is not None and not (isinstance(friction, FrictionLaw) and friction.coefficient(0.0) == 0.0):
        problems.append(f"friction must be None or a friction law continuous at zero slip (coefficient(0) = 0, "
                        f"e.g. Tanh or Exponential), got {friction!r}")


def friction_force(friction, v_t, F_n):
    """Friction force (N) opposing the slip v_t (m/s) under the normal force F_n (N); 0 without a law."""
    return 0.0 * v_t if friction is None else friction.kinetic(v_t, F_n)


@dataclass(frozen=True)
class PlanarContact:
    """The contact of a planar clearance joint at one instant: e (2,; m), n (2,), delta (m), deltad (m/s),
    v_t (m/s), F_n (N), F_t (N); forces F_J, F_B (2,; N) and moments M_J, M_B (N.m) about the body centres."""

    e: np.ndarray
    n: np.ndarray
    delta: float
    deltad: float
    v_t: float
    F_n: float
    F_t: float
    F_J: np.ndarray
    M_J: float
    F_B: np.ndarray
    M_B: float


@dataclass(frozen=True)
class PlanarClearance:
    """Revolute joint with clearance c = R_B - R_J > 0 (m), parallel axes; law: the ContactLaw; friction:
    None (frictionless) or a FrictionLaw continuous at zero slip."""

    R_J: float
    R_B: float
    law: ContactLaw
    friction: FrictionLaw | None = None

    def __post_init__(self):
        problems = []
        check_joint(problems, self.law, self.friction, self.R_J, self.R_B)
        check_parameters(problems)

    @property
    def c(self) -> float:
        """Radial clearance (m)."""
        return self.R_B - self.R_J

    def penetration(self, r_J, r_B=(0.0, 0.0)) -> float:
        """delta = |r_J - r_B| - c (m), positive in contact: the event function of contact detection."""
        return math.hypot(r_J[0] - r_B[0], r_J[1] - r_B[1]) - self.c

    def contact(self, r_J, v_J, omega_J, r_B, v_B, omega_B, deltad0) -> PlanarContact:
        """The contact at positions r_J, r_B (2,; m), velocities v_J, v_B (2,; m/s), angular velocities
        omega_J, omega_B (rad/s) and impact rate deltad0 > 0 (m/s) of the current contact."""
        e = np.asarray(r_J, float) - np.asarray(r_B, float)
        norm = math.hypot(e[0], e[1])
        n_x, n_y = (e[0] / norm, e[1] / norm) if norm > 0 else (1.0, 0.0)  # any normal at the centre (delta < 0)
        # v_rel = v_J + omega_J x (R_J n) - v_B - omega_B x (R_B n), omega x n = omega t with t = (-n_y, n_x)
        spin = omega_J * self.R_J - omega_B * self.R_B
        dv_x, dv_y = v_J[0] - v_B[0], v_J[1] - v_B[1]
        delta, deltad, v_t = norm - self.c, dv_x * n_x + dv_y * n_y, -dv_x * n_y + dv_y * n_x + spin
        F_n = float(self.law.force(delta, deltad, deltad0))
        F_t = float(friction_force(self.friction, v_t, F_n))
        f_J = np.array([-F_n * n_x - F_t * n_y, -F_n * n_y + F_t * n_x])  # -F_n n + F_t t
        return PlanarContact(e, np.array([n_x, n_y]), delta, deltad, v_t, F_n, F_t, f_J, self.R_J * F_t, -f_J,
                             -self.R_B * F_t)
