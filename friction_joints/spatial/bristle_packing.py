"""The packing of the C engine's family "spatial_bristle" (``native/src/spatial_bristle.c``): the RSRRR linkage
with bristle friction on its journal surfaces, ``spatial.bristle.BristleRSRRRSystem``, which the engine steps
with its stiff integrator RODAS (``engine="compiled"``).

Arrays: fpar = [the spatial family's fpar (``spatial.packing.pack``: the C assembly "RSRRRSystem", no stiction),
one law row per frictional surface in ``bristle.frictional_surfaces`` order (fj_bristle_laws.h, packed in C:
``native.pack_bristle_law``)], ipar = the spatial family's. State, inputs, mode and workspace: BristleRSRRRSystem's
state [q (4), qd (4), W_drive, W_res, W_friction, zeta (n_s)], the spatial family's inputs, single mode and
workspace. Record: ``spatial.packing.record_layout``, then z, zdot, N, psid_s, t_s (n_s each).
The kernels' statuses beyond the spatial family's: ST_LAYOUT, ST_NO_SOLUTION (spatial_bristle.c's message() has their
texts).
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..lumped.bristle_packing import law_parameters
from ..native.model import CompiledModel
from . import packing

ST_LAYOUT, ST_NO_SOLUTION = 9, 10
SURFACE_KEYS = ("z", "zdot", "N", "psid_s", "t_s")  # the record's entries per surface, in its order


def decode_record(out, n_s):
    """The record dict (as BristleRSRRRSystem.record returns it) of the flat record ``out`` with n_s surfaces."""
    base = packing.record_size()
    rec = packing.decode_record(out[:base])
    for k, key in enumerate(SURFACE_KEYS):
        rec[key] = np.array(out[base + k * n_s : base + (k + 1) * n_s])
    return rec


def compile_system(system):
    """The CompiledModel of a BristleRSRRRSystem, or None where the spatial family does not pack its linkage."""
    packed = packing.pack(system)
    if packed is None:
        return None
    fpar, ipar = packed
    rows = [native.pack_bristle_law(list(law_parameters(law).values())) for law in system.laws]
    n_record = packing.record_size() + len(SURFACE_KEYS) * len(system.laws)
    return CompiledModel("spatial_bristle", np.concatenate((fpar, np.ravel(rows))), ipar, n_record)
