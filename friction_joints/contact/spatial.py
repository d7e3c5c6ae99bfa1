"""Spatial revolute joint with radial clearance: journal and bearing cylinders of length L whose axes may skew.

Seed 003's spatial model: the contact force is distributed along the journal, so a skewed journal meets a
restoring tilting moment; axial clearance is neglected, as in seed 003. Seed 003 refers to Marques, Isaac,
Dourado, Flores, Mech. Mach. Theory 116 (2017) 123-144 for it; that paper's text was not available here, and the
discretisation below is this module's own. The bearing length is cut by planes normal to the bearing axis u_B at
stations s in [-L/2, L/2]; in each plane the planar model of ``contact.planar`` applies at the point where the
journal axis crosses it (the journal section is taken as a circle of radius R_J: exact for aligned axes, an
error of order the skew angle squared otherwise):

    p_B(s) = r_B + s u_B,   tau(s) = (p_B(s) - r_J) . u_B / (u_J . u_B),   p_J(s) = r_J + tau(s) u_J
    e(s) = p_J(s) - p_B(s)  (normal to u_B),   n = e / |e|,   delta(s) = |e(s)| - c

The contact stiffness is spread uniformly over the length: a station of length w has the potential
(w / L) U(delta(s)) of the joint's contact law (U = K delta^(n+1) / (n+1)), so with aligned axes the total is
the planar joint's. The normal force is derived from that potential (derived here; not in the references):
varying the journal pose (r_J, u_J) and the bearing pose (r_B, u_B) gives

    d delta = m . (d r_J + d phi_J x (p_J - r_J)) - m . (d r_B + d phi_B x (p_J - r_B)),
    m = n - u_B (n . u_J) / (u_J . u_B)   (normal to u_J; m = n for aligned axes),

so the station's normal force F_n = (w / L) F(delta, deltad, deltad0) acts along -m on the journal and along +m
on the bearing, both through p_J(s), with deltad = m . (the journal's velocity at p_J - the bearing's velocity at
p_J) = d delta(s) / dt. The elastic part is then exactly conservative and the damping part only dissipates,
for any skew. Friction: the slip of the contact points Q_J = p_J + R_J n, Q_B = p_B + R_B n,
v_rel = v_J + omega_J x (Q_J - r_J) - v_B - omega_B x (Q_B - r_B), has the tangential part
v_t = v_rel - (v_rel . n) n (circumferential and axial); the friction force law.kinetic(|v_t|, F_n) opposes it,
acting on the journal at Q_J and on the bearing at Q_B, so its power is -|F_t| |v_t| <= 0.

Quadrature: ``SpatialClearance.contact`` uses n_slices equal slices evaluated at their midpoints; since |e(s)|
is convex in s (the norm of a function affine in s), penetration is largest at the ends of the bearing.
``contact_at`` takes any stations and weights (e.g. a Gauss rule split where delta(s) changes sign).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require
from ..friction.laws import FrictionLaw
from .laws import ContactLaw
from .planar import check_joint, friction_force


MIN_AXIS_COSINE = 0.5  # u_J . u_B at or below this (a skew of 60 deg or more) is not a clearance joint's


@dataclass(frozen=True)
class SpatialContact:
    """The contact of a spatial clearance joint at one instant. Per station (m,): s (m), delta (m), deltad
    (m/s), F_n (N, the station's share of the normal force), F_el (N, its elastic part); resultants F_J, F_B
    (3,; N) and moments M_J, M_B (3,; N.m) about the journal and bearing centres."""

    s: np.ndarray
    delta: np.ndarray
    deltad: np.ndarray
    F_n: np.ndarray
    F_el: np.ndarray
    F_J: np.ndarray
    M_J: np.ndarray
    F_B: np.ndarray
    M_B: np.ndarray


def _cross(a, b):
    """a x b over the last axis, a or b (m, 3) (np.cross is several times slower on small arrays)."""
    return np.stack((a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1], a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]), axis=-1)


def _unit(name, u):
    u = np.asarray(u, dtype=float)
    if u.shape != (3,) or not abs(np.linalg.norm(u) - 1.0) < 1e-9:
        raise ValueError(f"{name} must be a unit vector of shape (3,), got {u!r}")
    return u


@dataclass(frozen=True)
class SpatialClearance:
    """Revolute joint with clearance c = R_B - R_J > 0 (m), bearing length L > 0 (m), axes that may skew;
    law: the ContactLaw of the whole length; friction: None or a FrictionLaw continuous at zero slip;
    n_slices >= 1: the slices of ``contact``."""

    R_J: float
    R_B: float
    L: float
    law: ContactLaw
    friction: FrictionLaw | None = None
    n_slices: int = 10

    def __post_init__(self):
        problems = []
        check_joint(problems, self.law, self.friction, self.R_J, self.R_B)
        require(problems, "L", self.L, 0.0, low_open=True)
        if not (isinstance(self.n_slices, (int, np.integer)) and self.n_slices >= 1):
            problems.append(f"n_slices={self.n_slices!r} must be an integer >= 1")
        check_parameters(problems)

    @property
    def c(self) -> float:
        """Radial clearance (m)."""
        return self.R_B - self.R_J

    def slices(self):
        """(s, w): the midpoints (n_slices,; m) and lengths (n_slices,; m) of the equal slices."""
        w = self.L / self.n_slices
        return -0.5 * self.L + w * (np.arange(self.n_slices) + 0.5), np.full(self.n_slices, w)

    def eccentricity(self, s, r_J, u_J, r_B, u_B):
        """(e (m, 3), p_J (m, 3), p_B (m, 3)) at the stations s (m,; m) along the bearing axis."""
        s = np.atleast_1d(np.asarray(s, dtype=float))
        r_J, r_B = np.asarray(r_J, float), np.asarray(r_B, float)
        u_J, u_B = _unit("u_J", u_J), _unit("u_B", u_B)
        cos = u_J @ u_B
        if not cos > MIN_AXIS_COSINE:
            raise ValueError(f"the journal and bearing axes must be within 60 deg of each other, u_J . u_B = {cos!r}")
        p_B = r_B + s[:, None] * u_B
        tau = (p_B - r_J) @ u_B / cos
        p_J = r_J + tau[:, None] * u_J
        return p_J - p_B, p_J, p_B

    def penetration(self, r_J, u_J, r_B, u_B) -> float:
        """Largest penetration (m) over the slice midpoints, at an end slice (|e(s)| is convex in s): the event
        function of contact detection."""
        s, _ = self.slices()
        e, _, _ = self.eccentricity(s[[0, -1]], r_J, u_J, r_B, u_B)
        return float(np.linalg.norm(e, axis=1).max()) - self.c

    def contact(self, r_J, u_J, v_J, omega_J, r_B, u_B, v_B, omega_B, deltad0) -> SpatialContact:
        """The contact with n_slices slices at centres r_J, r_B (3,; m), unit axes u_J, u_B (3,), velocities
        v_J, v_B (3,; m/s), angular velocities omega_J, omega_B (3,; rad/s) and impact rate deltad0 > 0 (m/s)."""
        s, w = self.slices()
        return self.contact_at(s, w, r_J, u_J, v_J, omega_J, r_B, u_B, v_B, omega_B, deltad0)

    def contact_at(self, s, w, r_J, u_J, v_J, omega_J, r_B, u_B, v_B, omega_B, deltad0) -> SpatialContact:
        """As ``contact``, with the stations s (m,; m) and their weights w (m,; m, summing to L)."""
        e, p_J, p_B = self.eccentricity(s, r_J, u_J, r_B, u_B)
        r_J, r_B, u_J, u_B = (np.asarray(x, dtype=float) for x in (r_J, r_B, u_J, u_B))
        norm = np.linalg.norm(e, axis=1)
        n = np.where(norm[:, None] > 0, e / np.where(norm > 0, norm, 1.0)[:, None], 0.0)
        m = n - np.outer(n @ u_J / (u_J @ u_B), u_B)  # the gradient direction of delta (module docstring)
        v_J_at_p = np.asarray(v_J, float) + _cross(omega_J, p_J - r_J)
        v_B_at_p = np.asarray(v_B, float) + _cross(omega_B, p_J - r_B)
        delta, deltad = norm - self.c, (m * (v_J_at_p - v_B_at_p)).sum(axis=1)
        share = np.asarray(w, float) / self.L
        F_n, F_el = share * self.law.force(delta, deltad, deltad0), share * self.law.elastic(delta)
        arm_J = p_J + self.R_J * n - r_J  # Q_J - r_J
        arm_B = p_B + self.R_B * n - r_B  # Q_B - r_B
        v_rel = np.asarray(v_J, float) + _cross(omega_J, arm_J) - np.asarray(v_B, float) - _cross(omega_B, arm_B)
        v_t = v_rel - (v_rel * n).sum(axis=1)[:, None] * n
        speed = np.linalg.norm(v_t, axis=1)
        F_t = friction_force(self.friction, speed, F_n)  # <= 0: along -v_t
        f_t = F_t[:, None] * v_t / np.where(speed > 0, speed, 1.0)[:, None]  # on J at Q_J, -f_t on B at Q_B
        f_n = -F_n[:, None] * m  # on J at p_J, -f_n on B at p_J
        F_J = (f_n + f_t).sum(axis=0)
        M_J = (_cross(p_J - r_J, f_n) + _cross(arm_J, f_t)).sum(axis=0)
        M_B = -(_cross(p_J - r_B, f_n) + _cross(arm_B, f_t)).sum(axis=0)
        return SpatialContact(np.atleast_1d(np.asarray(s, dtype=float)), delta, deltad, F_n, F_el, F_J, M_J, -F_J,
                              M_B)
