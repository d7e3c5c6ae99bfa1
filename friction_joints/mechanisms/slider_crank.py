"""The slider-crank mechanisms of seed 000 Sect. 6.

``offset_slider_crank``: Example 1 (Fig. 5, eqs 6.1-6.8) exactly as the paper defines x, z, s, C,
C_mu, h and q. Link 1 (crank OA, length 2 a1) turns about O; link 2 (rod AB, length 2 a2); link 3
(length 2 a3) hangs from B, kept vertical (theta_3 = -pi/2) by a prismatic joint whose point at its
lower end slides on the x axis: the guide is offset 2 a3 below B. Gravity -y, tau on link 1.

``slider_crank``: Example 2 (Fig. 7). Crank OA (centre a1 from O, length 2 a1), rod AB (centre a2
from A), massless slider at B on the x axis. Gravity +x. Constraint order O, A, B, guide;
s = [th1, th2 - th1, th3 - th2, x3]; q = [th1, th2, x3].

In both, J_i = m_i a_i^2 / 3 by default, every revolute joint has Coulomb friction (mu_rs, mu_rk)
with friction arm r (the papers' bearing diameter d = 0.05 m), the guide (mu_ts, mu_tk), and
f_j is the force or moment the first-named (distal) body receives (r_0 = C^T f, eq. 2.3).
"""

from __future__ import annotations

import numpy as np

from ..errors import check_parameters, require
from ..friction import Coulomb
from ..planar import Body, BodyLoad, MinimalForm, PlanarModel, Prismatic, Revolute
from .base import Mechanism

G = 9.81  # m/s^2


def _links(m, a, J, problems):
    """Validated masses, half-lengths and inertias (default J_i = m_i a_i^2 / 3)."""
    m, a = np.asarray(m, float), np.asarray(a, float)
    J = m * a**2 / 3.0 if J is None else np.asarray(J, float)
    for i in range(len(m)):
        require(problems, f"m{i + 1}", m[i], 0.0)
        require(problems, f"a{i + 1}", a[i], 0.0, low_open=True)
        require(problems, f"J{i + 1}", J[i], 0.0)
    return m, a, J


def _laws(friction, mu_rs, mu_rk, mu_ts, mu_tk, r, problems):
    """(revolute law, guide law) or (None, None) without friction."""
    require(problems, "r", r, 0.0, low_open=True)
    for static, kinetic, mu_s, mu_k in (("mu_rs", "mu_rk", mu_rs, mu_rk), ("mu_ts", "mu_tk", mu_ts, mu_tk)):
        require(problems, static, mu_s, 0.0)
        require(problems, kinetic, mu_k, 0.0, mu_s)  # the kinetic coefficient up to the static one
    check_parameters(problems)
    if not friction:
        return None, None
    return Coulomb(mu_rs, mu_rk), Coulomb(mu_ts, mu_tk)


def offset_slider_crank(m=(3.0, 7.0, 2.0), a=(0.3, 0.7, 0.2), J=None, r=0.05, mu_rs=0.15, mu_rk=0.1,
                        mu_ts=0.3, mu_tk=0.2, g=G, *, friction=True) -> Mechanism:
    """Seed 000 Example 1 with the paper's data as defaults (kg, m, kg.m^2, m/s^2)."""
    problems = []
    (m1, m2, m3), (a1, a2, a3), (J1, J2, J3) = _links(m, a, J, problems)
    require(problems, "g", g)
    law_r, law_t = _laws(friction, mu_rs, mu_rk, mu_ts, mu_tk, r, problems)
    model = PlanarModel(
        bodies=[Body("link1", m1, J1), Body("link2", m2, J2), Body("link3", m3, J3)],
        joints=[Revolute(1, 0, (-a1, 0.0), (0.0, 0.0), law_r, r),      # O: z1, z2, s1
                Revolute(2, 1, (-a2, 0.0), (a1, 0.0), law_r, r),       # A: z3, z4, s2
                Revolute(3, 2, (-a3, 0.0), (a2, 0.0), law_r, r),       # B: z5, z6, s3
                Prismatic(3, 0, (a3, 0.0), (0.0, 0.0), (1.0, 0.0), -np.pi / 2, law_t)],  # z7, z8, s4
        drives=[BodyLoad(1, (0.0, 0.0, 1.0))],
        gravity=(0.0, -g),
    )
    minimal = MinimalForm(model, tree=(0, 1, 3), coordinates=("theta", "theta", "x"))

    def guess(q_u):  # closing constraints (6.6): 2 a1 sin q1 + 2 a2 sin q2 = 2 a3
        q1 = q_u[0]
        q2 = np.arcsin((a3 - a1 * np.sin(q1)) / a2)
        return np.array([q1, q2, 2 * a1 * np.cos(q1) + 2 * a2 * np.cos(q2)])

    return Mechanism("OffsetSliderCrank", model, minimal, (0,), ("th1", "th2", "x3"), guess)


def slider_crank(m=(2.5, 4.0), a=(0.25, 0.4), J=None, r=0.05, mu_rs=0.15, mu_rk=0.1, mu_ts=0.3,
                 mu_tk=0.2, g=G, *, m3=0.0, friction=True) -> Mechanism:
    """Seed 000 Example 2 with the paper's data as defaults; the slider at B is a point mass m3
    (massless in the paper)."""
    problems = []
    require(problems, "m3", m3, 0.0)
    (m1, m2), (a1, a2), (J1, J2) = _links(m, a, J, problems)
    require(problems, "g", g)
    law_r, law_t = _laws(friction, mu_rs, mu_rk, mu_ts, mu_tk, r, problems)
    model = PlanarModel(
        bodies=[Body("crank", m1, J1), Body("rod", m2, J2), Body("slider", m3, 0.0)],
        joints=[Revolute(1, 0, (-a1, 0.0), (0.0, 0.0), law_r, r),      # O
                Revolute(2, 1, (-a2, 0.0), (a1, 0.0), law_r, r),       # A
                Revolute(3, 2, (0.0, 0.0), (a2, 0.0), law_r, r),       # B
                Prismatic(3, 0, (0.0, 0.0), (0.0, 0.0), (1.0, 0.0), 0.0, law_t)],  # guide
        drives=[BodyLoad(1, (0.0, 0.0, 1.0))],
        gravity=(g, 0.0),
    )
    minimal = MinimalForm(model, tree=(0, 1, 3), coordinates=("theta", "theta", "x"))

    def guess(q_u):  # B on the x axis: 2 a1 sin q1 + 2 a2 sin q2 = 0
        q1 = q_u[0]
        q2 = np.arcsin(-a1 * np.sin(q1) / a2)
        return np.array([q1, q2, 2 * a1 * np.cos(q1) + 2 * a2 * np.cos(q2)])

    return Mechanism("SliderCrank", model, minimal, (0,), ("th1", "th2", "x3"), guess)
