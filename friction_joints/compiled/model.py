"""The compiled form of a hybrid system: the C engine's family that runs it and its packed model."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .. import native


@dataclass(frozen=True)
class CompiledModel:
    """family_name: the C engine's family (``native/src/<family>.c``); fpar (float64), ipar (int64):
    the model as arrays (the family's packer); n_record: length of the record vector. ``rhs``,
    ``events``, ``record``: the family's kernels as Python callables
    ``(t, y, tau, fpar, ipar, fmode, imode, out) -> status``; ``message(status)`` names a failure."""

    family_name: str
    fpar: np.ndarray
    ipar: np.ndarray
    n_record: int

    @cached_property
    def family(self) -> native.Family:
        return native.Family(self.family_name)

    @cached_property
    def rhs(self) -> native.Kernel:
        return native.Kernel(self.family, "rhs")

    @cached_property
    def events(self) -> native.Kernel:
        return native.Kernel(self.family, "events")

    @cached_property
    def record(self) -> native.Kernel:
        return native.Kernel(self.family, "record")

    def message(self, status: int) -> str:
        return self.family.message(status)
