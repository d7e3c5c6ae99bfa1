"""The packing of the C engine's family "bristle" (``native/src/bristle.c``): the oscillator with bristle
friction of ``lumped.bristle.BristleOscillator``, which the engine steps with its stiff integrator RODAS
(``engine="compiled"``: ``native.instance.CompiledIntegrator``).

Arrays (``pack``): fpar = [m, k, law (``pack_law``)], ipar = [0] (unused). Law row (fj_bristle_laws.h):
model (friction.bristle.LAWS), sigma0, sigma1, sigma2, mu_c, mu_s (Dahl: mu_c), v_s, delta, z_ba_ratio
(the fields a law lacks are 1, never read). Inputs x_d, v_belt, F_n; state [x, v, zeta, W_friction]
(BristleOscillator's). Mode arrays: the single mode, fmode = [0.0], imode = [0]. Record: ``RECORD``.
"""

from __future__ import annotations

import numpy as np

from ..friction.bristle import LAWS, BristleLaw, ElastoPlastic
from ..native.model import CompiledModel

RECORD = ("x", "v", "a", "z", "zdot", "F", "N", "v_r", "W_friction", "E_kin", "E_spring")


def pack_law(law: BristleLaw) -> list[float]:
    """The row of a bristle law (module docstring)."""
    model = next(number for number, kind in LAWS.items() if type(law) is kind)
    return [float(model), law.sigma0, law.sigma1, law.sigma2, law.mu_c, law.mu_s, getattr(law, "v_s", 1.0),
            getattr(law, "delta", 1.0), law.z_ba_ratio if isinstance(law, ElastoPlastic) else 1.0]


def pack(params) -> tuple[np.ndarray, np.ndarray]:
    """(fpar, ipar) of BristleOscillatorParameters."""
    return np.array([params.m, params.k, *pack_law(params.law)]), np.zeros(1, dtype=np.int64)


def compile_system(system):
    """The CompiledModel of a BristleOscillator: the family "bristle", which the engine integrates with RODAS
    (a stiff family, fj_kernel.h)."""
    fpar, ipar = pack(system.p)
    return CompiledModel("bristle", fpar, ipar, len(RECORD))


def encode_mode(mode):
    """(fmode, imode) of the single mode (fj_single_mode_layout: one zero each)."""
    return np.zeros(1), np.zeros(1, dtype=np.int64)


def decode_record(out):
    """The record dict (as BristleOscillator.record returns it) of the flat record."""
    return dict(zip(RECORD, out))
