"""A ready mechanism: its planar model, minimal form, default partition and assembly."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Callable

import numpy as np

from ..errors import SingularConfigurationError, check_parameters, require
from ..friction import FrictionLaw, Tanh
from ..planar import MinimalForm, PlanarModel


@dataclass(frozen=True)
class Mechanism:
    """model: PlanarModel; minimal: its MinimalForm; partition: default independent velocities
    (indices of q, the driving link as in seed 000); q_names: names of q; guess: callable giving an
    approximate q from the independent coordinates q[partition] (refined by projection)."""

    name: str
    model: PlanarModel
    minimal: MinimalForm
    partition: tuple
    q_names: tuple
    guess: Callable

    def assemble(self, q_u) -> np.ndarray:
        """q (k1,) on the closing constraints with q[partition] = q_u."""
        q_u = np.atleast_1d(np.asarray(q_u, dtype=float))
        if q_u.shape != (len(self.partition),) or not np.all(np.isfinite(q_u)):
            raise ValueError(f"q_u must be {len(self.partition)} finite values, got {q_u!r}")
        with np.errstate(invalid="ignore"):
            q = np.asarray(self.guess(q_u), dtype=float)
        if not np.all(np.isfinite(q)):
            raise SingularConfigurationError(
                f"{self.name} cannot be assembled at {self.q_names[self.partition[0]]} = {q_u}: "
                "check the link lengths")
        return self.minimal.project(q, self.partition)


def regularised(mechanism: Mechanism, v_eps: float) -> Mechanism:
    """The same mechanism with every friction law replaced by Tanh(mu, v_eps), mu its kinetic
    coefficient at high speed: the smoothed friction of ADAMS-like solvers, for comparison with the
    exact stick-slip (a held joint creeps at a speed of order v_eps). v_eps: m/s or rad/s."""
    problems = []
    require(problems, "v_eps", v_eps, 0.0, low_open=True)
    check_parameters(problems)

    def smooth(joint):
        laws = {f.name: getattr(joint, f.name) for f in fields(joint)}
        return replace(joint, **{name: Tanh(float(law.coefficient(np.inf)), v_eps)
                                 for name, law in laws.items() if isinstance(law, FrictionLaw)})

    old = mechanism.model
    model = PlanarModel(old.bodies, [smooth(j) for j in old.joints], old.drives, old.gravity)
    coords = mechanism.minimal.coords
    minimal = MinimalForm(model, coords.tree, [("x", "y", "theta")[a] for a in coords.axes])
    return Mechanism(f"{mechanism.name}(regularised)", model, minimal, mechanism.partition, mechanism.q_names,
                     mechanism.guess)
