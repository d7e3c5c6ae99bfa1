"""The revolute-joint friction model of seed 002 (Fig. 6, eqs 4-7): a journal of link p-1 turning
in a bearing liner of link p, touching it on two cylindrical surfaces A and B (diameters d_A, d_B)
a distance a_bar apart, and on the annular face C (outer diameter d_C, inner d_A).

With the joint reaction f = f_O, n = n_O of link p-1 on link p in the joint frame (origin on the
axis, midway between A and B; ``reactions``), the radial loads of the surfaces balance f_x, f_y,
n_x, n_y. Derivation (the extracted eqs 6.1-6.2 re-derived and tested): radial forces F_A at
z = -a_bar/2 and F_B at z = +a_bar/2 with F_A + F_B = (f_x, f_y) and moments about O
(z e_z) x F = (-z F_y, z F_x) summing to (n_x, n_y) give

    F_A = (f_x/2 - n_y/a_bar, f_y/2 + n_x/a_bar),  F_B = (f_x/2 + n_y/a_bar, f_y/2 - n_x/a_bar),

whose magnitudes are eqs 6.1 and 6.2. The friction torque (eq. 4) is the sum of
t_A = mu_A |F_A| d_A/2 (5.1), t_B = mu_B |F_B| d_B/2 (5.2) and, on the face carrying the axial
thrust |f_z|, t_C = mu_C |f_z| (d_C^3 - d_A^3) / (3 (d_C^2 - d_A^2)) (5.3, uniform pressure on the
annulus). Eq. (5.3) as printed is 0/0 for a thin ring (d_C = d_A, joint (2,1) of Table 1); it is
evaluated as (d_C^2 + d_C d_A + d_A^2) / (3 (d_C + d_A)), the same function with its limit
mu_C |f_z| d_A / 2 at d_C = d_A.

Every mu_a follows the kinetic characteristic of eq. (7): mu_a = mu_a0 (1 - exp(-k |psid| / psid_k))
with the sign of psid, so the torque opposing the relative rotation psid is
t_f = sgn(psid) (1 - exp(-k |psid| / psid_k)) t_0, with t_0 the torque at the full levels mu_a0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require


@dataclass(frozen=True)
class JournalFriction:
    """Geometry and friction of one revolute joint (seed 002 Table 1): a_bar (m) the spacing of A and
    B; d_A, d_B, d_C (m) the diameters; mu_A, mu_B, mu_C the levels mu_a0 of eq. (7); k and psid_k
    (rad/s) the shape of eq. (7); mu_s_factor: static level / kinetic level (exact stiction only)."""

    a_bar: float = 0.03
    d_A: float = 0.01
    d_B: float = 0.01
    d_C: float = 0.015
    mu_A: float = 0.2
    mu_B: float = 0.2
    mu_C: float = 0.2
    k: float = 3.0
    psid_k: float = 0.01
    mu_s_factor: float = 1.0

    def __post_init__(self):
        problems = []
        require(problems, "a_bar", self.a_bar, 0.0, low_open=True)
        for name in ("d_A", "d_B"):
            require(problems, name, getattr(self, name), 0.0, low_open=True)
        require(problems, "d_C", self.d_C, self.d_A)
        for name in ("mu_A", "mu_B", "mu_C"):
            require(problems, name, getattr(self, name), 0.0)
        require(problems, "mu_s_factor", self.mu_s_factor, 1.0)
        require(problems, "k", self.k, 0.0, low_open=True)
        require(problems, "psid_k", self.psid_k, 0.0, low_open=True)
        check_parameters(problems)

    def surface_loads(self, f, n):
        """(|F_A|, |F_B|, |f_z|) in N from the reaction force f (3,) and torque n (3,) (eqs 6.1-6.2)."""
        return _surface_loads(self, np.asarray(f, float), np.asarray(n, float))

    def full_torque(self, f, n):
        """t_0 (N.m): the friction torque of eqs 4-5.3 at the full levels mu_a0."""
        return _full_torque(self, np.asarray(f, float), np.asarray(n, float))

    def torque(self, psid, f, n):
        """t_f (N.m) of eq. (4) with eq. (7): the friction torque opposing psid (rad/s), entering the
        equations of motion as -t_f (seed 002 eq. 2)."""
        return _characteristic(self, psid) * self.full_torque(f, n)

    def static_limit(self, f, n):
        """Largest holding torque (N.m) at zero relative velocity: mu_s_factor t_0."""
        return self.mu_s_factor * self.full_torque(f, n)


class JournalSet:
    """Several joints' JournalFriction evaluated together: the same methods on f, n of shape (j, 3)
    and psid (j,), returning (j,)."""

    def __init__(self, journals):
        self.journals = tuple(journals)
        for name in ("a_bar", "d_A", "d_B", "d_C", "mu_A", "mu_B", "mu_C", "k", "psid_k", "mu_s_factor"):
            setattr(self, name, np.array([getattr(j, name) for j in self.journals]))

    def surface_loads(self, f, n):
        """(3, j): |F_A|, |F_B|, |f_z| (N) of each joint (eqs 6.1-6.2) from f, n of shape (j, 3)."""
        return np.array(_surface_loads(self, np.asarray(f, float).T, np.asarray(n, float).T))

    def arms(self):
        """(3, j): the friction arms (m) of surfaces A, B, C of each joint (eqs 5.1-5.3)."""
        return np.array(_arms(self))

    def full_torque(self, f, n):
        return _full_torque(self, np.asarray(f, float).T, np.asarray(n, float).T)

    def torque(self, psid, f, n):
        return _characteristic(self, np.asarray(psid, float)) * self.full_torque(f, n)

    def static_limit(self, f, n):
        return self.mu_s_factor * self.full_torque(f, n)


def _surface_loads(j, f, n):
    """Eqs 6.1-6.2 for f, n with components first: f[0] = f_x, ..."""
    f_nx, f_ny = n[0] / j.a_bar, n[1] / j.a_bar
    F_A = np.hypot(0.5 * f[0] - f_ny, 0.5 * f[1] + f_nx)  # (6.1)
    F_B = np.hypot(0.5 * f[0] + f_ny, 0.5 * f[1] - f_nx)  # (6.2)
    return F_A, F_B, np.abs(f[2])


def _arms(j):
    """The friction arms (m) of A, B, C: t_a = mu_a arm_a load_a (eqs 5.1, 5.2; 5.3 in its 0/0-free form)."""
    return 0.5 * j.d_A, 0.5 * j.d_B, (j.d_C**2 + j.d_C * j.d_A + j.d_A**2) / (3.0 * (j.d_C + j.d_A))


def _full_torque(j, f, n):
    F_A, F_B, F_z = _surface_loads(j, f, n)
    arm_A, arm_B, arm_C = _arms(j)
    return j.mu_A * arm_A * F_A + j.mu_B * arm_B * F_B + j.mu_C * arm_C * F_z  # (4), (5.1)-(5.3)


def _characteristic(j, psid):
    """sgn(psid) (1 - exp(-k |psid| / psid_k)): eq. (7) divided by mu_a0."""
    return np.sign(psid) * -np.expm1(-j.k * np.abs(psid) / j.psid_k)
