"""The packing (model and mode arrays, record layout) of the C engine's family "lumped"
(``native/src/lumped.c``, whose kernels follow this description) for the lumped luz/tar models of seed
001: ``lumped.single_mass.SingleMassFriction`` (Sect. 2, Fig. 3) and ``lumped.two_mass.TwoMassFriction``
(Sect. 4, Fig. 5). The Python models are the reference: the kernels re-implement their equations in the
same order. One set of kernels serves both models; ipar[0] (kind) says which.

Within a mode the structure is frozen (the hybrid integrator's convention, as in the Python rhs):
a stuck friction's luz term is not evaluated in the right-hand side, its leaving the dead zone is the
breakaway event. The family also decides the modes in C (the models' ``update``, the Gauss principle
of the two-mass model by the C box QP; its change report is empty: the kind of a decision follows from
the old and new modes, ``change_kind`` of each model) and gives the events of a mode (``mode_events``).

Inputs: tau = input_values(t): [F] (single mass), [F1, F2] (two masses) (N).

Model arrays (``pack``):
    ipar = [kind, dry_12, dry_20]   kind SINGLE_MASS or TWO_MASS; dry_c = 1 where the static level of
                                    friction c is > 0 (``TwoMassFriction.dry``; 0 for the single mass)
    fpar, single mass: M, C, FT0 (kinetic), FT0S (static), K, v_belt
    fpar, two masses: M1, M2, C12, C20, FT012, FT020 (kinetic), FT012S, FT020S (static)

Mode arrays (``encode_mode``):
    single mass (DirectionMode): imode = [direction], fmode = [direction]   (+1 / -1 slip, 0 stuck)
    two masses (two_mass.Mode):  imode = [d12, d20, stuck12, stuck20], fmode = the same as floats

Record (``record_layout``), flat in this order:
    single mass: z, zd, zdd, f, F, stuck, E_kin, E_spring, W_drive, W_friction
    two masses:  z (2), zd (2), zdd (2), f (2), v (2), F (2), stuck (2), E_kin, W_drive, W_friction
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..hybrid.stiction import DirectionMode
from ..native.model import CompiledModel

SINGLE_MASS, TWO_MASS = 0, 1  # ipar[0]

#: (key, size, kind) of the flat record; kind: 'array', 'bools', 'bool' (Python bool), 'float'
#: (Python float) or 'float64' (numpy scalar), as the Python record returns them
SINGLE_RECORD = [("z", 1, "float64"), ("zd", 1, "float64"), ("zdd", 1, "float64"), ("f", 1, "float64"),
                 ("F", 1, "float"), ("stuck", 1, "bool"), ("E_kin", 1, "float64"), ("E_spring", 1, "float64"),
                 ("W_drive", 1, "float64"), ("W_friction", 1, "float64")]
TWO_RECORD = [("z", 2, "array"), ("zd", 2, "array"), ("zdd", 2, "array"), ("f", 2, "array"), ("v", 2, "array"),
              ("F", 2, "array"), ("stuck", 2, "bools"), ("E_kin", 1, "float"), ("W_drive", 1, "float64"),
              ("W_friction", 1, "float64")]


# ======================================================================================================
# Packing (the C assembly, native/src/assembly_lumped.c: the one packer of these models)
# ======================================================================================================

def pack_single(p):
    """(fpar, ipar) of SingleMassParameters (layout in the module docstring), by the C assembly."""
    fpar, ipar, _ = native.Assembly("SingleMassFriction")(
        [p.M, p.C, p.FT0, p.FT0S, p.K, p.v_belt, 0.0, 0.0])  # and the initial state, unused here
    return fpar, ipar


def pack_two(p, dry=None):
    """(fpar, ipar) of TwoMassParameters (layout in the module docstring), by the C assembly; it sets the dry
    flags as TwoMassFriction.dry (static level > 0), which ``dry``, if given, must equal."""
    fpar, ipar, _ = native.Assembly("TwoMassFriction")(
        [p.M1, p.M2, p.C12, p.C20, p.FT012, p.FT020, p.FT012S, p.FT020S, 0.0, 0.0, 0.0, 0.0])
    if dry is not None and list(ipar[1:]) != [int(d) for d in dry]:
        raise ValueError(f"dry = {list(dry)} is not the static levels' ({list(ipar[1:])})")
    return fpar, ipar


def record_layout(kind):
    return SINGLE_RECORD if kind == SINGLE_MASS else TWO_RECORD


def record_size(kind):
    return sum(size for _, size, _ in record_layout(kind))


def compile_single(system):
    """The CompiledModel of a SingleMassFriction."""
    fpar, ipar = pack_single(system.p)
    return CompiledModel("lumped", fpar, ipar, record_size(SINGLE_MASS))


def compile_two(system):
    """The CompiledModel of a TwoMassFriction."""
    fpar, ipar = pack_two(system.p, system.dry)
    return CompiledModel("lumped", fpar, ipar, record_size(TWO_MASS))


def encode_single(mode):
    """(fmode, imode) of a DirectionMode."""
    d = int(mode.direction)
    return np.array([float(d)]), np.array([d], dtype=np.int64)


def encode_two(mode):
    """(fmode, imode) of a two_mass.Mode."""
    imode = np.array([int(mode.direction[0]), int(mode.direction[1]), int(bool(mode.stuck[0])),
                      int(bool(mode.stuck[1]))], dtype=np.int64)
    return imode.astype(np.float64), imode


def decode_single(fmode, imode):
    """The DirectionMode of the arrays of ``encode_single`` (its inverse)."""
    return DirectionMode(int(imode[0]))


def decode_two(fmode, imode):
    """The fields (direction, stuck) of the two_mass.Mode of the arrays of ``encode_two`` (its inverse)."""
    return (int(imode[0]), int(imode[1])), (bool(imode[2]), bool(imode[3]))


def decode_record(kind, out):
    """The record dict (as the Python model's record returns it) of the flat record ``out``."""
    rec, o = {}, 0
    for key, size, form in record_layout(kind):
        v = out[o : o + size]
        if form == "array":
            rec[key] = v.copy()
        elif form == "bools":
            rec[key] = v != 0.0
        elif form == "bool":
            rec[key] = bool(v[0] != 0.0)
        elif form == "float":
            rec[key] = float(v[0])
        else:
            rec[key] = np.float64(v[0])
        o += size
    return rec
