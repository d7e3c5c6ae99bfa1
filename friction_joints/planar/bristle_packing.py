"""The packing of the C engine's family "planar_bristle" (``native/src/planar_bristle.c``): the planar
mechanism with bristle friction of ``planar.bristle.BristleSystem``, which the engine steps with its
stiff integrator RODAS (``engine="compiled"``).

Arrays: fpar = [the planar family's fpar (``planar.packing.pack`` as for a RegularisedSystem: the single
mode of the mechanism's partition), one law row per frictional contact in their order (fj_bristle_laws.h,
packed in C: ``native.pack_bristle_law``)], ipar = the planar family's. State, mode and workspace:
BristleSystem's state [q, u, zeta, W_drive, W_friction], the planar family's mode and workspace. Record:
``record_layout``.
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..lumped.bristle_packing import law_parameters
from ..native.model import CompiledModel
from . import packing


def record_layout(system):
    """``planar.packing.record_layout`` of the mechanism, then z and zdot (n_c each), as
    BristleSystem.record returns them."""
    return [*packing.record_layout(system.model, system.minimal), ("z", system.n_c, "array"),
            ("zdot", system.n_c, "array")]


def compile_system(system):
    """The CompiledModel of a BristleSystem, or None if its mechanism has a joint or friction law the
    planar kernels do not implement."""
    packed = packing.pack(system.model, system.minimal, system.mech.partition, regularised=True)
    if packed is None:
        return None
    fpar, ipar = packed
    rows = [native.pack_bristle_law(list(law_parameters(law).values())) for law in system.laws]
    n_record = sum(size for _, size, _ in record_layout(system))
    return CompiledModel("planar_bristle", np.concatenate((fpar, np.ravel(rows))), ipar, n_record)
