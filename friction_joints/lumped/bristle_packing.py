"""The packing of the C engine's families of the lumped models with bristle friction, which the engine steps
with its stiff integrator RODAS (``engine="compiled"``: ``native.instance.CompiledIntegrator``): "bristle"
(``native/src/bristle.c``), the oscillator ``lumped.bristle.BristleOscillator``, and "two_mass_bristle"
(``native/src/two_mass_bristle.c``), the stacked blocks ``lumped.bristle.TwoMassBristle``.

Arrays (``pack``, by the C assembly BristleOscillator of the FMU's parameters ``PARAMETERS``): fpar =
[m, k, law], ipar = [0] (unused). Law row (fj_bristle_laws.h): model (friction.bristle.LAWS), sigma0,
sigma1, sigma2, mu_c, mu_s (Dahl: mu_c), v_s, delta, z_ba_ratio (the fields a law lacks are 1, never
read). Inputs x_d, v_belt, F_n; state [x, v, zeta, W_friction]
(BristleOscillator's). Mode arrays: the single mode, fmode = [0.0], imode = [0]. Record: the model's
``RECORD_KEYS``.

The two blocks (``pack_two_mass``): fpar = [M1, M2, N12, N20, law12 row, law20 row] (each row by
``native.pack_bristle_law``, the C packer of a law), ipar = [0]. Inputs F1, F2; state [z1, z2, zd1, zd2,
zeta12, zeta20, W_friction] (TwoMassBristle's); the same single mode and record.
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..friction.bristle import LAWS
from ..native.model import CompiledModel

PARAMETERS = ("model", "m", "k", "sigma0", "sigma1", "sigma2", "mu_c", "mu_s", "v_s", "delta", "z_ba_ratio")
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


def pack_two_mass(params) -> tuple[np.ndarray, np.ndarray]:
    """(fpar, ipar) of TwoMassBristleParameters (module docstring)."""
    rows = [native.pack_bristle_law([law_parameters(law)[name] for name in LAW_PARAMETERS])
            for law in (params.law12, params.law20)]
    head = np.array([params.M1, params.M2, params.N12, params.N20], dtype=float)
    return np.concatenate([head, *rows]), np.zeros(1, dtype=np.int64)


def compile_oscillator(system):
    """The CompiledModel of a BristleOscillator: the family "bristle", which the engine integrates with RODAS
    (a stiff family, fj_kernel.h)."""
    return CompiledModel("bristle", *pack(system.p), len(system.RECORD_KEYS))


def compile_two_mass(system):
    """The CompiledModel of a TwoMassBristle: the family "two_mass_bristle" (RODAS, as "bristle")."""
    return CompiledModel("two_mass_bristle", *pack_two_mass(system.p), len(system.RECORD_KEYS))


def encode_mode(mode):
    """(fmode, imode) of the single mode (fj_single_mode_layout: one zero each)."""
    return np.zeros(1), np.zeros(1, dtype=np.int64)
