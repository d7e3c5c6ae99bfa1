"""Compiled kernels of the lumped luz/tar models of seed 001: ``lumped.single_mass.SingleMassFriction``
(Sect. 2, Fig. 3) and ``lumped.two_mass.TwoMassFriction`` (Sect. 4, Fig. 5), with the protocol of
``signatures.KERNEL``. The Python models are the reference: the kernels re-implement their equations
in the same order. One set of kernels serves both models; ipar[I_KIND] says which.

Within a mode the structure is frozen (the hybrid integrator's convention, as in the Python rhs):
a stuck friction's luz term is not evaluated in the right-hand side, its leaving the dead zone is the
breakaway event. The mode decisions (``update``, the Gauss principle of the two-mass model) stay in
Python.

Inputs: tau = input_values(t): [F] (single mass), [F1, F2] (two masses) (N).

Model arrays (``pack``):
    ipar = [kind, dry_12, dry_20]   kind SINGLE_MASS or TWO_MASS; dry_c = 1 where the static level of
                                    friction c is > 0 (``TwoMassFriction.dry``; 0 for the single mass)
    fpar, single mass (F_* offsets): M, C, FT0 (kinetic), FT0S (static), K, v_belt
    fpar, two masses (F2_* offsets): M1, M2, C12, C20, FT012, FT020 (kinetic), FT012S, FT020S (static)

Mode arrays (``encode_mode``):
    single mass (DirectionMode): imode = [direction], fmode = [direction]   (+1 / -1 slip, 0 stuck)
    two masses (two_mass.Mode):  imode = [d12, d20, stuck12, stuck20], fmode = the same as floats

Record (``record_layout``), flat in this order:
    single mass: z, zd, zdd, f, F, stuck, E_kin, E_spring, W_drive, W_friction
    two masses:  z (2), zd (2), zdd (2), f (2), v (2), F (2), stuck (2), E_kin, W_drive, W_friction
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .dense import jit
from .model import CompiledModel
from .signatures import KERNEL

SINGLE_MASS, TWO_MASS = 0, 1

# --- ipar ---------------------------------------------------------------------------------------------
I_KIND, I_DRY12, I_DRY20 = range(3)
IPAR_SIZE = 3
# --- fpar of the single mass ------------------------------------------------------------------------
F_M, F_C, F_FT0, F_FT0S, F_K, F_VBELT = range(6)
# --- fpar of the two masses -------------------------------------------------------------------------
F2_M1, F2_M2, F2_C12, F2_C20, F2_FT012, F2_FT020, F2_FT012S, F2_FT020S = range(8)
# --- imode of the two masses ------------------------------------------------------------------------
IM_D12, IM_D20, IM_STUCK12, IM_STUCK20 = range(4)

ERRORS = {}  # the kernels cannot fail: every division is by a mass (> 0, checked by the parameters)

#: (key, size, kind) of the flat record; kind: 'array', 'bools', 'bool' (Python bool), 'float'
#: (Python float) or 'float64' (numpy scalar), as the Python record returns them
SINGLE_RECORD = [("z", 1, "float64"), ("zd", 1, "float64"), ("zdd", 1, "float64"), ("f", 1, "float64"),
                 ("F", 1, "float"), ("stuck", 1, "bool"), ("E_kin", 1, "float64"), ("E_spring", 1, "float64"),
                 ("W_drive", 1, "float64"), ("W_friction", 1, "float64")]
TWO_RECORD = [("z", 2, "array"), ("zd", 2, "array"), ("zdd", 2, "array"), ("f", 2, "array"), ("v", 2, "array"),
              ("F", 2, "array"), ("stuck", 2, "bools"), ("E_kin", 1, "float"), ("W_drive", 1, "float64"),
              ("W_friction", 1, "float64")]


# ======================================================================================================
# Packing (Python)
# ======================================================================================================

def pack_single(p):
    """(fpar, ipar) of SingleMassParameters (layout in the module docstring)."""
    fpar = np.array([p.M, p.C, p.FT0, p.FT0S, p.K, p.v_belt], dtype=np.float64)
    return fpar, np.array([SINGLE_MASS, 0, 0], dtype=np.int64)


def pack_two(p, dry):
    """(fpar, ipar) of TwoMassParameters and the dry flags of TwoMassFriction."""
    fpar = np.array([p.M1, p.M2, p.C12, p.C20, p.FT012, p.FT020, p.FT012S, p.FT020S], dtype=np.float64)
    return fpar, np.array([TWO_MASS, int(dry[0]), int(dry[1])], dtype=np.int64)


def record_layout(kind):
    return SINGLE_RECORD if kind == SINGLE_MASS else TWO_RECORD


def record_size(kind):
    return sum(size for _, size, _ in record_layout(kind))


def compile_single(system):
    """The CompiledModel of a SingleMassFriction."""
    fpar, ipar = pack_single(system.p)
    return CompiledModel(rhs, events, record, fpar, ipar, record_size(SINGLE_MASS), dict(ERRORS))


def compile_two(system):
    """The CompiledModel of a TwoMassFriction."""
    fpar, ipar = pack_two(system.p, system.dry)
    return CompiledModel(rhs, events, record, fpar, ipar, record_size(TWO_MASS), dict(ERRORS))


def encode_single(mode):
    """(fmode, imode) of a DirectionMode."""
    d = int(mode.direction)
    return np.array([float(d)]), np.array([d], dtype=np.int64)


def encode_two(mode):
    """(fmode, imode) of a two_mass.Mode."""
    imode = np.array([int(mode.direction[0]), int(mode.direction[1]), int(bool(mode.stuck[0])),
                      int(bool(mode.stuck[1]))], dtype=np.int64)
    return imode.astype(np.float64), imode


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


# ======================================================================================================
# Single mass (seed 001 Sect. 2):  M zdd + C tar(v, F_T0K / C) = F - K z,  v = zd - v_belt
# ======================================================================================================

@jit
def _single_forces(y, F, fpar, direction):
    """(F_W, friction, zdd): the acting force F_W = F - K z, the friction on the mass (-C v - F_T0K d in
    slip, -F_W while stuck) and zdd = (F_W + friction) / M (exactly 0 while stuck)."""
    acting = F - fpar[F_K] * y[0]
    if direction == 0:
        fr = -acting
    else:
        fr = -(fpar[F_C] * (y[1] - fpar[F_VBELT]) + fpar[F_FT0] * direction)
    return acting, fr, (acting + fr) / fpar[F_M]


@jit
def _single_rhs(y, tau, fpar, imode, dy):
    _, fr, zdd = _single_forces(y, tau[0], fpar, imode[0])
    dy[0] = y[1]
    dy[1] = zdd
    dy[2] = tau[0] * y[1]  # drive power
    dy[3] = fr * (y[1] - fpar[F_VBELT])  # friction power (stuck: zd = v_belt, none)


@jit
def _single_events(y, tau, fpar, imode, g):
    d = imode[0]
    if d == 0:  # breakaway: luz(F_W, F_T0S) leaves zero
        g[0] = abs(tau[0] - fpar[F_K] * y[0]) - fpar[F_FT0S]
    elif fpar[F_FT0S] != 0.0:  # slip_zero: the slip velocity reaches zero
        g[0] = d * (y[1] - fpar[F_VBELT])


@jit
def _single_record(y, tau, fpar, imode, out):
    _, fr, zdd = _single_forces(y, tau[0], fpar, imode[0])
    out[0] = y[0]
    out[1] = y[1]
    out[2] = zdd
    out[3] = fr
    out[4] = tau[0]
    out[5] = 1.0 if imode[0] == 0 else 0.0
    out[6] = 0.5 * fpar[F_M] * y[1] ** 2
    out[7] = 0.5 * fpar[F_K] * y[0] ** 2
    out[8] = y[2]
    out[9] = y[3]


# ======================================================================================================
# Two masses (seed 001 Sect. 4): relative velocities v = G^T zd = (zd1 - zd2, zd2), friction forces
# G [lambda_12, lambda_20] on the masses with G = [[1, 0], [-1, 1]]
# ======================================================================================================

@jit
def _two_state(y, fpar, imode):
    """(v12, v20, lambda_12, lambda_20): relative velocities and kinetic friction -(C v + F_T0K d)
    (``two_mass.friction_forces``; a stuck friction's value is replaced where it matters)."""
    v12 = y[2] - y[3]
    v20 = y[3]
    lam12 = -(fpar[F2_C12] * v12 + fpar[F2_FT012] * imode[IM_D12])
    lam20 = -(fpar[F2_C20] * v20 + fpar[F2_FT020] * imode[IM_D20])
    return v12, v20, lam12, lam20


@jit
def _two_accelerations(F1, F2, fpar, imode, lam12, lam20):
    """(zdd1, zdd2) of the mode with frozen structure (``two_mass.accelerations(frozen=True)``)."""
    M1, M2 = fpar[F2_M1], fpar[F2_M2]
    s12, s20 = imode[IM_STUCK12] != 0, imode[IM_STUCK20] != 0
    if s12 and s20:  # case 3: total stiction
        return 0.0, 0.0
    if s12:  # case 1: zd1 = zd2, F2' = F2 - C20 tar(zd2, FT020 / C20); the luz term frozen at 0
        F2p = F2 + lam20
        common = (F1 + F2p) / (M1 + M2)
        return common, common
    if s20:  # case 2: block 2 held by the base
        return (F1 + lam12) / M1, 0.0
    return (F1 + lam12) / M1, (F2 - lam12 + lam20) / M2


@jit
def _two_rhs(y, tau, fpar, imode, dy):
    F1, F2 = tau[0], tau[1]
    v12, v20, lam12, lam20 = _two_state(y, fpar, imode)
    a1, a2 = _two_accelerations(F1, F2, fpar, imode, lam12, lam20)
    power = 0.0  # friction power of the slipping frictions
    if imode[IM_STUCK12] == 0:
        power += lam12 * v12
    if imode[IM_STUCK20] == 0:
        power += lam20 * v20
    dy[0] = y[2]
    dy[1] = y[3]
    dy[2] = a1
    dy[3] = a2
    dy[4] = F1 * y[2] + F2 * y[3]
    dy[5] = power


@jit
def _two_events(y, tau, fpar, ipar, imode, g):
    """slip_zero d_c v_c of the slipping dry frictions (12, then 20), then the holding margins of the
    stuck ones (``two_mass.holding_margins``), as TwoMassFriction.events orders them."""
    F1, F2 = tau[0], tau[1]
    v12, v20, lam12, lam20 = _two_state(y, fpar, imode)
    s12, s20 = imode[IM_STUCK12] != 0, imode[IM_STUCK20] != 0
    k = 0
    if not s12 and imode[IM_D12] != 0 and ipar[I_DRY12] != 0:
        g[k] = imode[IM_D12] * v12
        k += 1
    if not s20 and imode[IM_D20] != 0 and ipar[I_DRY20] != 0:
        g[k] = imode[IM_D20] * v20
        k += 1
    M1, M2 = fpar[F2_M1], fpar[F2_M2]
    if s12 and s20:  # total stiction: lambda_12 = -F1, lambda_20 = -(F1 + F2)
        g[k] = abs(F1) - fpar[F2_FT012S]
        g[k + 1] = abs(F1 + F2) - fpar[F2_FT020S]
    elif s12:
        F2p = F2 + lam20
        g[k] = abs((M2 * F1 - M1 * F2p) / (M1 + M2)) - fpar[F2_FT012S]
    elif s20:
        g[k] = abs(F2 - lam12) - fpar[F2_FT020S]


@jit
def _two_record(y, tau, fpar, imode, out):
    F1, F2 = tau[0], tau[1]
    M1, M2 = fpar[F2_M1], fpar[F2_M2]
    v12, v20, lam12, lam20 = _two_state(y, fpar, imode)
    a1, a2 = _two_accelerations(F1, F2, fpar, imode, lam12, lam20)
    s12, s20 = imode[IM_STUCK12] != 0, imode[IM_STUCK20] != 0
    # the holding friction from the accelerations of the mode: M zdd = F + G lambda, solved for the
    # stuck lambdas (TwoMassFriction.record's least squares on the stuck columns of G, exact here)
    r1 = M1 * a1 - F1
    r2 = M2 * a2 - F2
    if s12 and s20:  # G^-1 = [[1, 0], [1, 1]]
        lam12, lam20 = r1, r1 + r2
    elif s12:  # column (1, -1) of G; the slipping lambda_20 acts on mass 2 through (0, 1)
        lam12 = 0.5 * (r1 - (r2 - lam20))
    elif s20:  # column (0, 1); lambda_12 acts through (1, -1)
        lam20 = r2 + lam12
    out[0] = y[0]
    out[1] = y[1]
    out[2] = y[2]
    out[3] = y[3]
    out[4] = a1
    out[5] = a2
    out[6] = lam12
    out[7] = lam20
    out[8] = v12
    out[9] = v20
    out[10] = F1
    out[11] = F2
    out[12] = 1.0 if s12 else 0.0
    out[13] = 1.0 if s20 else 0.0
    out[14] = 0.5 * (M1 * y[2] ** 2 + M2 * y[3] ** 2)
    out[15] = y[4]
    out[16] = y[5]


# ======================================================================================================
# Kernels
# ======================================================================================================

@njit(KERNEL, cache=True, error_model="numpy", _nrt=False)
def rhs(t, y, tau, fpar, ipar, fmode, imode, dy):
    """dy/dt in the mode: single mass [zd, zdd, F zd, friction power]; two masses [zd1, zd2, zdd1, zdd2,
    drive power, friction power] (the Python rhs of each)."""
    if ipar[I_KIND] == SINGLE_MASS:
        _single_rhs(y, tau, fpar, imode, dy)
    else:
        _two_rhs(y, tau, fpar, imode, dy)
    return 0


@njit(KERNEL, cache=True, error_model="numpy", _nrt=False)
def events(t, y, tau, fpar, ipar, fmode, imode, g):
    """The event functions of the Python ``events(mode)``, in its order."""
    if ipar[I_KIND] == SINGLE_MASS:
        _single_events(y, tau, fpar, imode, g)
    else:
        _two_events(y, tau, fpar, ipar, imode, g)
    return 0


@njit(KERNEL, cache=True, error_model="numpy", _nrt=False)
def record(t, y, tau, fpar, ipar, fmode, imode, out):
    """The recorded quantities of the Python ``record``, flat (``record_layout``)."""
    if ipar[I_KIND] == SINGLE_MASS:
        _single_record(y, tau, fpar, imode, out)
    else:
        _two_record(y, tau, fpar, imode, out)
    return 0
