"""Dupont's two-mass system (seed 000 Sect. 3, Fig. 4).

Mass m1 slides in a slot of mass m2 along x with Coulomb friction mu |f_n|; m2 moves along y on a
frictionless guide; F1 acts on m1 along x, F2 on m2 along y; no gravity. The normal force
f_n = m1 F2 / (m1 + m2) is not typed in: it comes out of the reaction equations.

Joints (constraint order): 0 slot (m1 in m2: f[0] = f_n on m1 along y, f[1] = lock moment),
1 guide (m2 on ground along y). s = [x1 - x2 (slip of m1 in the slot), y2]. q = [y2, x1].
"""

from __future__ import annotations

from ..errors import check_parameters, require
from ..friction import Coulomb
from ..planar import Body, BodyLoad, MinimalForm, PlanarModel, Prismatic
from .base import Mechanism


def dupont_two_mass(m1=10.0, m2=30.0, mu_s=0.5, mu_k=0.3, *, friction=True) -> Mechanism:
    """The Dupont two-mass mechanism with the seed data as defaults (kg, dimensionless)."""
    problems = []
    require(problems, "m1", m1, 0.0, low_open=True)
    require(problems, "m2", m2, 0.0, low_open=True)
    check_parameters(problems)
    law = Coulomb(mu_s, mu_k) if friction else None
    model = PlanarModel(
        bodies=[Body("m1", m1, 0.0), Body("m2", m2, 0.0)],
        joints=[Prismatic(1, 2, (0.0, 0.0), (0.0, 0.0), e_j=(1.0, 0.0), law=law),
                Prismatic(2, 0, (0.0, 0.0), (0.0, 0.0), e_j=(0.0, 1.0))],
        drives=[BodyLoad(1, (1.0, 0.0, 0.0)), BodyLoad(2, (0.0, 1.0, 0.0))],
    )
    minimal = MinimalForm(model, tree=(1, 0), coordinates=("y", "x"))
    return Mechanism("DupontTwoMass", model, minimal, (0, 1), ("y2", "x1"), lambda q_u: q_u)
