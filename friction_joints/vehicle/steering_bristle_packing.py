"""The packing of the C engine's family "steering_bristle" (``native/src/steering_bristle.c``) for the steering
system with bristle friction ``vehicle.steering_bristle.SteeringBristle``, which the engine steps with its stiff
integrator RODAS (``engine="compiled"``). Its mechanics are the family "steering"'s (``steering_packing``).

Model arrays (``pack``, by the C assembly SteeringBristle, native/src/assembly_steering.c: the one packer):
    fpar: the steering family's (``steering_packing``: PARAMETERS, mu_k r_k, the five inertias), then one law
          row per element (ELEMENTS order) of fj_bristle_laws.h: model (friction.bristle.LAWS), sigma0,
          sigma1, sigma2, mu_c (1), mu_s (static_factor; Dahl: 1), v_s, delta, z_ba_ratio (the fields a law
          lacks are 1, never read)
    ipar: the steering family's (the active flags; unused by the kernels)

The assembly takes the FMU SteeringSystem's parameters (``PARAMETERS``: the steering's, the initial angle,
friction_model and one value of each bristle parameter for every element); a system whose elements' laws differ
is packed by one call per element, law row k from the k-th. State [the steering family's 14, zeta (4)] with
zeta_k = sigma0_k z_k; inputs: the steering family's. Mode arrays: the single mode, fmode = [0.0], imode = [0].
Record: ``RECORD`` (the steering family's, stuck always 0, then the loads N, deflections z and rates zdot).
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..friction.bristle import LAWS
from ..native.model import CompiledModel
from . import steering_packing

BRISTLE = ("sigma0", "sigma1", "sigma2", "v_s", "delta", "z_ba_ratio")
PARAMETERS = (*steering_packing.PARAMETERS, "delta_sw_start", "friction_model", *BRISTLE)
RECORD = [*steering_packing.RECORD, ("N", 4, "array"), ("z", 4, "array"), ("zdot", 4, "array")]
RECORD_SIZE = sum(size for _, size, _ in RECORD)
LAW_SIZE = 9  # fj_bristle_laws.h FJ_BRISTLE_LAW_SIZE
N_STEERING = len(steering_packing.PARAMETERS) + 6  # the steering family's fpar
_RECORD_AT = steering_packing.offsets(RECORD)


def parameters(system, k: int) -> dict:
    """The parameters of the C assembly (``PARAMETERS``) of a SteeringBristle with the law of element k (its
    mu_c and mu_s are the assembly's: 1 and static_factor); the initial angle 0 (y0 is not taken from it)."""
    law = system.laws[k]
    values = {name: getattr(system.p, name) for name in steering_packing.PARAMETERS}
    values.update(delta_sw_start=0.0, friction_model=next(n for n, kind in LAWS.items() if type(law) is kind),
                  sigma0=law.sigma0, sigma1=law.sigma1, sigma2=law.sigma2, v_s=getattr(law, "v_s", 1.0),
                  delta=getattr(law, "delta", 1.0), z_ba_ratio=getattr(law, "z_ba_ratio", 1.0))
    return {name: float(values[name]) for name in PARAMETERS}


def pack(system) -> tuple[np.ndarray, np.ndarray]:
    """(fpar, ipar) of a SteeringBristle (module docstring), by the C assembly: the steering part and law row 0
    of element 0's call, law row k of element k's."""
    assembly = native.Assembly("SteeringBristle")
    fpar, ipar, _ = assembly(parameters(system, 0))
    for k in range(1, len(system.laws)):
        row = slice(N_STEERING + k * LAW_SIZE, N_STEERING + (k + 1) * LAW_SIZE)
        fpar[row] = assembly(parameters(system, k))[0][row]
    if ipar.tolist() != [int(a) for a in system.active]:
        raise ValueError(f"the active flags {list(system.active)} are not the parameters' ({ipar.tolist()})")
    return fpar, ipar


def compile_system(system):
    """The CompiledModel of a SteeringBristle: the family "steering_bristle", which the engine integrates with
    RODAS (a stiff family, fj_kernel.h)."""
    fpar, ipar = pack(system)
    return CompiledModel("steering_bristle", fpar, ipar, RECORD_SIZE)


def encode_mode(mode):
    """(fmode, imode) of the single mode (fj_single_mode_layout: one zero each)."""
    return np.zeros(1), np.zeros(1, dtype=np.int64)


def decode_record(out):
    """The record dict (as SteeringBristle.record returns it, the same types) of the flat record ``out``."""
    return steering_packing.decode(out, _RECORD_AT)
