"""A ready mechanism: its planar model, minimal form, default partition and assembly."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..errors import SingularConfigurationError
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
