"""The packing (model and mode arrays, record layout) of the C engine's family "absolute"
(``native/src/absolute.c``, whose kernels follow this description) for the absolute-coordinate
formulation (seed 000 eq. 2.9): ``planar.absolute_system.AbsoluteSystem``, whose reference is
``planar.absolute.absolute_dynamics``.

    M xdd = h(x, xd, tau) + C^T f + C_mu^T f_mu(xd, f),    C xdd = xi(x, xd)

State y = [x (n), xd (n)], dy = [xd, xdd]; one mode: the friction directions are sgn(sd),
sd = C_mu xd (no stick-slip modes, no events). As in the Python code, the augmented matrix
K = [[M, -C^T], [C, 0]] is factorised (bodies with zero mass whose motion the constraints fix are
allowed) and solved for the columns [h; xi] and [C_mu^T; 0]:

    xdd = a0 + A f_mu,   f = f0 + B f_mu,

then the coupled reaction-friction equations f = f0 + B f_mu(f) (seed 000 eq. 3.3) are solved by
the same Newton iteration as the minimal form (``planar.c``; the Python engine's
``planar.coupling.solve_coupled``).

Model arrays: those of the planar kernels (``planar.packing.pack``: the joints, laws, M, h_ext, H and the
workspace tables, layout in ``planar.packing``); these kernels use the model blocks and the
workspace fields C, C_mu, xi, h, f0, B, sd, f, f_mu and the scratch of the Newton iteration and of
kappa, never the tree or the minimal-form fields. The scratch also holds the augmented system
``aug`` ((n + m) x (n + m + 1 + l): K, then the right-hand sides, solved in place) and its pivots.
Mode arrays: empty (one mode). Record (``record_layout``): x, xd, xdd, f, f_mu, flat.
"""

from __future__ import annotations

import numpy as np

from ..native.model import CompiledModel
from . import packing

# --- codes (after those of planar.packing, which the coupled solve returns) -----------------------------
ST_AUGMENTED_SINGULAR, ST_NOT_FINITE = 12, 13  # absolute.c's message() has their texts


# ======================================================================================================
# Packing (Python)
# ======================================================================================================

def record_layout(model):
    """[(key, size, kind)] of the flat record (kinds as ``planar.packing.record_decoder`` reads them)."""
    n, m, l = model.n, model.m, model.l
    return [("x", n, "array"), ("xd", n, "array"), ("xdd", n, "array"), ("f", m, "array"), ("f_mu", l, "array")]


def encode_mode(mode):
    """(fmode, imode) of the single mode: empty."""
    return np.zeros(0), np.zeros(0, dtype=np.int64)


def compile_system(system):
    """The CompiledModel of an AbsoluteSystem, or None if its model has a joint or friction law that
    the planar kernels do not implement."""
    packed = packing.pack(system.model, system.minimal)
    if packed is None:
        return None
    fpar, ipar = packed
    n_record = sum(size for _, size, _ in record_layout(system.model))
    return CompiledModel("absolute", fpar, ipar, n_record)
