"""Continuous contact force laws with hysteresis damping (Hunt-Crossley type), for impacts in joint clearances.

Every law is a frozen dataclass validated on construction, with one interface:

    F = K delta^n (1 + chi(c_e) deltad / deltad0)   for delta > 0, else 0,   clipped at F >= 0

delta (m) is the penetration, deltad (m/s) its rate, deltad0 (m/s, > 0) the rate at the start of the
contact (the impact velocity), c_e the coefficient of restitution the law is built to give, K (N/m^n) the
generalised stiffness and n the exponent (1.5 for Hertz contact). The laws differ only in chi:

- Lankarani & Nikravesh, J. Mech. Des. 112 (1990) 369-376: chi = 3 (1 - c_e^2) / 4. Derived by equating
  the hysteresis loss to (1 - c_e^2) of the impact energy with the loss evaluated along the elastic path,
  so it is meant for c_e near 1.
- Flores, Machado, Silva, Martins, Multibody Syst. Dyn. 25 (2011) 357-375: chi = 8 (1 - c_e) / (5 c_e),
  proposed for soft materials and low c_e as well (c_e > 0).

Neither is exact: tests/test_clearance_contact.py measures the restitution each gives (docs/validation.md lists it).

The factor 1 + chi deltad / deltad0 vanishes when the surfaces part at deltad0 / chi, and the force is clipped
at zero beyond (the surfaces do not pull; adhesion is not modelled). In a free impact the parting speed grows
only while the force is positive, so it never exceeds deltad0 / chi: a law cannot give a restitution above
1 / chi (derived here). For Flores et al. 1 / chi = 5 c_e / (8 (1 - c_e)), below c_e for c_e < 3/8: there the
law gives nearly 1 / chi instead of c_e (0.0694 for c_e = 0.1; a test checks it). For Lankarani-Nikravesh
1 / chi >= 4/3, no limit.

The stiffness of a journal in a bearing, ``cylinder_stiffness``, is the expression of Flores, Ambrosio,
Claro, Lankarani, Koshy, Mech. Mach. Theory 41 (2006) 247-261 (also their book, Kinematics and Dynamics of
Multibody Systems with Imperfect Joints, Springer 2008): Hertz's law with the radii of the two
conforming surfaces,

    K = 4 / (3 (sigma_J + sigma_B)) * sqrt(R_J R_B / (R_B - R_J)),   sigma_k = (1 - nu_k^2) / E_k,

strictly the law of two spheres (n = 1.5), which those papers use for the cylinders of a revolute joint
with clearance for want of a closed-form force-penetration law of internal cylinder contact. (Seed 003, an
extended abstract, names the clearance models but gives no contact equation.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require


def cylinder_stiffness(R_J, R_B, E_J, E_B, nu_J=0.3, nu_B=0.3) -> float:
    """K (N/m^1.5) of a journal of radius R_J (m) in a bearing of radius R_B > R_J (m), Young's moduli E_J, E_B
    (Pa) and Poisson's ratios nu_J, nu_B in [0, 0.5) (Flores et al. 2006, see the module docstring)."""
    problems = []
    require(problems, "R_J", R_J, 0.0, low_open=True)
    require(problems, "R_B", R_B, R_J if R_J > 0 else 0.0, low_open=True)
    require(problems, "E_J", E_J, 0.0, low_open=True)
    require(problems, "E_B", E_B, 0.0, low_open=True)
    require(problems, "nu_J", nu_J, 0.0, 0.5, high_open=True)
    require(problems, "nu_B", nu_B, 0.0, 0.5, high_open=True)
    check_parameters(problems)
    sigma_J, sigma_B = (1.0 - nu_J**2) / E_J, (1.0 - nu_B**2) / E_B
    return 4.0 / (3.0 * (sigma_J + sigma_B)) * np.sqrt(R_J * R_B / (R_B - R_J))


class ContactLaw:
    """Interface of the contact laws: ``c_e``, ``k_contact`` (K, N/m^n), ``n``, and the hysteresis factor chi."""

    c_e: float
    k_contact: float
    n: float

    @property
    def chi(self) -> float:
        raise NotImplementedError

    def _problems(self, c_e_low_open):
        problems = []
        require(problems, "c_e", self.c_e, 0.0, 1.0, low_open=c_e_low_open)
        require(problems, "k_contact", self.k_contact, 0.0, low_open=True)
        require(problems, "n", self.n, 1.0)
        return problems

    def elastic(self, delta):
        """K delta^n (N) for delta > 0, else 0: the conservative part of the force."""
        delta = np.asarray(delta, dtype=float)
        return self.k_contact * np.maximum(delta, 0.0) ** self.n

    def energy(self, delta):
        """K delta^(n+1) / (n+1) (J) for delta > 0, else 0: the elastic energy stored in the contact."""
        delta = np.asarray(delta, dtype=float)
        return self.k_contact * np.maximum(delta, 0.0) ** (self.n + 1.0) / (self.n + 1.0)

    def force(self, delta, deltad, deltad0):
        """Normal force F >= 0 (N) at penetration delta (m), its rate deltad (m/s) and the impact rate
        deltad0 > 0 (m/s); vectorised over delta and deltad."""
        damping = 1.0 + self.chi * np.asarray(deltad, dtype=float) / deltad0
        return np.maximum(self.elastic(delta) * damping, 0.0)


@dataclass(frozen=True)
class LankaraniNikravesh(ContactLaw):
    """Lankarani-Nikravesh (1990): chi = 3 (1 - c_e^2) / 4, c_e in [0, 1] (accurate near 1)."""

    c_e: float
    k_contact: float
    n: float = 1.5

    def __post_init__(self):
        check_parameters(self._problems(c_e_low_open=False))

    @property
    def chi(self):
        return 0.75 * (1.0 - self.c_e**2)  # Lankarani & Nikravesh 1990


@dataclass(frozen=True)
class Flores(ContactLaw):
    """Flores et al. (2011): chi = 8 (1 - c_e) / (5 c_e), c_e in (0, 1] (for low c_e as well)."""

    c_e: float
    k_contact: float
    n: float = 1.5

    def __post_init__(self):
        check_parameters(self._problems(c_e_low_open=True))

    @property
    def chi(self):
        return 8.0 * (1.0 - self.c_e) / (5.0 * self.c_e)  # Flores et al. 2011
