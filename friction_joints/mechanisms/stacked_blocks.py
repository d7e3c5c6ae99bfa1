"""Block on block on a fixed base (seed 001 Sect. 4, modelled with the planar engine).

Block 1 (mass M1) slides on block 2 (mass M2), which slides on the ground, both along x, under
gravity -g along y; Coulomb friction in both sliding joints with the normal forces coming out of
the reaction equations (M1 g and (M1 + M2) g at rest). F1 acts on block 1, F2 on block 2, along x.

Joints (constraint order): 0 block 1 on block 2 (f[0] normal force on block 1), 1 block 2 on the
ground (f[2] normal force on block 2). s = [x1 - x2, x2]; q = [x2, x1]. Two contacts with
independent slips: the test case of the Gauss-principle stiction of the hybrid integrator.
"""

from __future__ import annotations

from ..errors import check_parameters, require
from ..friction import Coulomb
from ..planar import Body, BodyLoad, MinimalForm, PlanarModel, Prismatic
from .base import Mechanism


def stacked_blocks(M1=1.0, M2=2.0, mu12_s=0.3, mu12_k=0.2, mu20_s=0.5, mu20_k=0.4, g=9.81) -> Mechanism:
    """Two stacked blocks with friction between them (12) and under block 2 (20); kg, m/s^2."""
    problems = []
    require(problems, "M1", M1, 0.0, low_open=True)
    require(problems, "M2", M2, 0.0, low_open=True)
    require(problems, "g", g, 0.0)
    check_parameters(problems)
    model = PlanarModel(
        bodies=[Body("block1", M1, 0.0), Body("block2", M2, 0.0)],
        joints=[Prismatic(1, 2, (0.0, 0.0), (0.0, 0.0), e_j=(1.0, 0.0), law=Coulomb(mu12_s, mu12_k)),
                Prismatic(2, 0, (0.0, 0.0), (0.0, 0.0), e_j=(1.0, 0.0), law=Coulomb(mu20_s, mu20_k))],
        drives=[BodyLoad(1, (1.0, 0.0, 0.0)), BodyLoad(2, (1.0, 0.0, 0.0))],
        gravity=(0.0, -g),
    )
    minimal = MinimalForm(model, tree=(1, 0), coordinates=("x", "x"))
    return Mechanism("StackedBlocks", model, minimal, (0, 1), ("x2", "x1"), lambda q_u: q_u)
