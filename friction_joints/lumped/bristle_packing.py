"""The packing of the C engine's family "bristle" (``native/src/bristle.c``): the oscillator with bristle
friction of ``lumped.bristle.BristleOscillator``, which the engine steps with its stiff integrator RODAS
(``engine="compiled"``: ``native.instance.CompiledIntegrator``).

Arrays (``pack``, by the C assembly BristleOscillator of the FMU's parameters ``PARAMETERS``): fpar =
[m, k, law], ipar = [0] (unused). Law row (fj_bristle_laws.h): model (friction.bristle.LAWS), sigma0,
sigma1, sigma2, mu_c, mu_s (Dahl: mu_c), v_s, delta, z_ba_ratio (the fields a law lacks are 1, never
read). Inputs x_d, v_belt, F_n; state [x, v, zeta, W_friction]
(BristleOscillator's). Mode arrays: the single mode, fmode = [0.0], imode = [0]. Record: ``RECORD``.
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..friction.bristle import LAWS
from ..native.model import CompiledModel

PARAMETERS = ("model", "m", "k", "sigma0", "sigma1", "sigma2", "mu_c", "mu_s", "v_s", "delta", "z_ba_ratio")
RECORD = ("x", "v", "a", "z", "zdot", "F", "N", "v_r", "W_friction", "E_kin", "E_spring")
#: a law's parameters, in the order of its row (fj_bristle_laws.h)
LAW_PARAMETERS = ("model", "sigma0", "sigma1", "sigma2", "mu_c", "mu_s", "v_s", "delta", "z_ba_ratio")


def law_parameters(law) -> dict:
    """The parameters LAW_PARAMETERS of a bristle law (floats); the fields it lacks are 1 (never read)."""
    model = next(number for number, kind in LAWS.items() if type(law) is kind)
    values = dict(model=model, sigma0=law.sigma0, sigma1=law.sigma1, sigma2=law.sigma2, mu_c=law.mu_c,
                  mu_s=law.mu_s, v_s=getattr(law, "v_s", 1.0), delta=getattr(law, "delta", 1.0),
                  z_ba_ratio=getattr(law, "z_ba_ratio", 1.0))
    return {name: float(values[name]) for name in LAW_PARAMETERS}


def parameters(params) -> dict:
    """The parameters of the C assembly (those of the FMU BristleOscillator, ``PARAMETERS``) of
    BristleOscillatorParameters; the fields its law lacks are 1 (never read)."""
    values = dict(law_parameters(params.law), m=params.m, k=params.k)
    return {name: float(values[name]) for name in PARAMETERS}


def pack(params) -> tuple[np.ndarray, np.ndarray]:
    """(fpar, ipar) of BristleOscillatorParameters (module docstring), by the C assembly
    (native/src/assembly_bristle.c: the one packer of this model)."""
    fpar, ipar, _ = native.Assembly("BristleOscillator")(parameters(params))
    return fpar, ipar


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
