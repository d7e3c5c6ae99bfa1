"""Rigid bodies of a planar mechanism and the inputs that load them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import check_parameters, require


@dataclass(frozen=True)
class Body:
    """A planar rigid body with absolute coordinates (x, y, theta) of its centre of mass.

    m: mass (kg, >= 0); J: moment of inertia about the centre of mass (kg.m^2, >= 0); force: constant
    applied force (N, global axes) at the centre; moment: constant applied moment (N.m). A body whose
    motion the constraints fully determine may have m = J = 0 (the slider of seed 000 Example 2).
    """

    name: str
    m: float
    J: float
    force: tuple = (0.0, 0.0)
    moment: float = 0.0

    def __post_init__(self):
        problems = []
        require(problems, f"{self.name}.m", self.m, 0.0)
        require(problems, f"{self.name}.J", self.J, 0.0)
        for c, v in zip("xy", np.broadcast_to(self.force, 2)):
            require(problems, f"{self.name}.force_{c}", v)
        require(problems, f"{self.name}.moment", self.moment)
        check_parameters(problems)


@dataclass(frozen=True)
class BodyLoad:
    """A drive input acting on a body: generalized force ``direction`` (Fx, Fy, M) per unit input.

    body: body index (1-based); direction: (N, N, N.m) per unit of the input, e.g. (0, 0, 1) for a
    drive torque tau on link 1 as in seed 000 eq. (6.1).
    """

    body: int
    direction: tuple

    def generalized_force(self, n: int) -> np.ndarray:
        """The n-vector of generalized force per unit input."""
        g = np.zeros(n)
        g[3 * (self.body - 1) : 3 * self.body] = self.direction
        return g
