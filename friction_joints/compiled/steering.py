"""Compiled kernels of the rack-and-pinion steering system ``vehicle.steering.SteeringSystem`` (a lumped
luz/tar model in the spirit of seed 001) with the protocol of ``signatures.KERNEL``. The Python model
is the reference: the kernels re-implement its equations in the same order (see its module docstring):

    T_c = k_c (th_sw - th_p) + c_c (thd_sw - thd_p),     F_g = k_g luz(r_p th_p - x, b)   (freeplay 2 b)
    F_ti = k_t (x - l_a delta_i) + c_t (xd - l_a deltad_i)
    Q = (tau_sw - T_c, T_c - r_p F_g, F_g - F_tL - F_tR, l_a F_tL + M_z,L - c_w deltad_L, l_a F_tR + ...)

and each friction element k (pinion, rack, left and right king-pin) on coordinate k + 1: -d level_k in
slip, the holding force -Q_{k+1} while stuck (acceleration exactly 0); kinetic levels (s T_p, s F_r,
s mu_k r_k (|F_z,i| + |F_ti|)), static = static_factor x kinetic. The mode decisions (``update``) stay
in Python.

Inputs: tau = input_values(t) = [tau_sw, M_z_left, M_z_right, F_z_left, F_z_right] (N.m, N).

Model arrays (``pack``):
    fpar: the SteeringParameters in the order of PARAMETERS (offsets F_*), then kingpin = mu_k r_k
          (F_KINGPIN) and the five inertias J_sw, J_p, m_r, J_w, J_w (F_MASSES)
    ipar: active flag of each element (``SteeringSystem.active``; an inactive element never sticks
          and has no events)

Mode arrays (``encode_mode``): imode = directions of the four elements (ELEMENTS order; +1 / -1
slipping, 0 stuck), fmode = the same as floats.

Record (``record_layout``), flat in this order: q (5), qd (5), qdd (5), friction (4), stuck (4),
in_freeplay, E_kin, E_spring, W_driver, W_aligning, W_friction, W_damping, T_c, F_g, F_tL, F_tR.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .model import CompiledModel
from .signatures import KERNEL

#: The decorator of the helpers (as in ``compiled.planar``): division by zero gives inf or nan instead
#: of raising; compiled without numba's runtime (_nrt), so that passing the arrays costs no reference
#: counting (its atomic increments and decrements took several times the arithmetic of these models).
#: Not cached on their own: the cached kernels contain them. The kernels allocate nothing and are
#: compiled without the runtime too.
jit = njit(error_model="numpy", _nrt=False)

BREAKAWAY_MARGIN = 1e-9  # vehicle.steering.BREAKAWAY_MARGIN (N.m or N)

PARAMETERS = ("J_sw", "k_c", "c_c", "J_p", "r_p", "k_g", "b", "m_r", "k_t", "c_t", "l_a", "J_w", "c_w", "T_p",
              "F_r", "mu_k", "r_k", "static_factor", "friction_scale")
(F_J_SW, F_K_C, F_C_C, F_J_P, F_R_P, F_K_G, F_B, F_M_R, F_K_T, F_C_T, F_L_A, F_J_W, F_C_W, F_T_P,
 F_F_R, F_MU_K, F_R_K, F_STATIC, F_SCALE) = range(len(PARAMETERS))
F_KINGPIN = len(PARAMETERS)
F_MASSES = F_KINGPIN + 1
FPAR_SIZE = F_MASSES + 5

ERRORS = {}  # the kernels cannot fail: every division is by an inertia (> 0, checked by the parameters)

#: (key, size, kind) of the flat record; kind: 'array', 'bools', 'bool_' (numpy bool), 'float'
#: (Python float) or 'float64' (numpy scalar), as SteeringSystem.record returns them
RECORD = [("q", 5, "array"), ("qd", 5, "array"), ("qdd", 5, "array"), ("friction", 4, "array"),
          ("stuck", 4, "bools"), ("in_freeplay", 1, "bool_"), ("E_kin", 1, "float64"), ("E_spring", 1, "float64"),
          ("W_driver", 1, "float64"), ("W_aligning", 1, "float64"), ("W_friction", 1, "float64"),
          ("W_damping", 1, "float64"), ("T_c", 1, "float"), ("F_g", 1, "float"), ("F_tL", 1, "float"),
          ("F_tR", 1, "float")]
RECORD_SIZE = sum(size for _, size, _ in RECORD)


# ======================================================================================================
# Packing (Python)
# ======================================================================================================

def pack(system):
    """(fpar, ipar) of a SteeringSystem (layout in the module docstring)."""
    p = system.p
    fpar = np.array([getattr(p, name) for name in PARAMETERS] + [p.mu_k * p.r_k] + list(p.masses), dtype=np.float64)
    ipar = np.array([int(a) for a in system.active], dtype=np.int64)
    return fpar, ipar


def compile_system(system):
    """The CompiledModel of a SteeringSystem."""
    fpar, ipar = pack(system)
    return CompiledModel(rhs, events, record, fpar, ipar, RECORD_SIZE, dict(ERRORS))


def encode_mode(mode):
    """(fmode, imode) of a steering Mode."""
    imode = np.array([int(d) for d in mode.directions], dtype=np.int64)
    return imode.astype(np.float64), imode


def decode_record(out):
    """The record dict (as SteeringSystem.record returns it, the same types) of the flat record ``out``.
    Its arrays are views of ``out``: a caller that keeps the dict gives every record a fresh ``out``."""
    rec = {}
    for key, o, size, form in _RECORD_AT:
        if form == "array":
            rec[key] = out[o : o + size]
        elif form == "bools":
            rec[key] = out[o : o + size] != 0.0
        elif form == "bool_":
            rec[key] = out[o] != 0.0
        elif form == "float":
            rec[key] = float(out[o])
        else:
            rec[key] = out[o]
    return rec


_RECORD_AT = tuple((key, sum(s for _, s, _ in RECORD[:i]), size, form) for i, (key, size, form) in enumerate(RECORD))


# ======================================================================================================
# Forces
# ======================================================================================================

@jit
def _luz(x, a):
    """luz(x, a) (seed 001 Sect. 2) as the dead zone: 0 on [-a, a], x -+ a outside (``projections.luz``)."""
    if abs(x) <= a:
        return 0.0
    return x - math.copysign(a, x)


@jit
def _forces(y, tau, fpar):
    """(Q, kinetic, internal) (``SteeringSystem.forces``): Q (5) the generalised forces without
    friction, kinetic (4) the kinetic friction levels, internal (T_c, F_g, F_tL, F_tR); tuples, no
    allocation."""
    th_sw, th_p, x, dL, dR = y[0], y[1], y[2], y[3], y[4]
    w_sw, w_p, v, wL, wR = y[5], y[6], y[7], y[8], y[9]
    r_p, l_a = fpar[F_R_P], fpar[F_L_A]
    T_c = fpar[F_K_C] * (th_sw - th_p) + fpar[F_C_C] * (w_sw - w_p)
    F_g = fpar[F_K_G] * _luz(r_p * th_p - x, fpar[F_B])  # the rack-pinion mesh with freeplay 2 b
    F_tL = fpar[F_K_T] * (x - l_a * dL) + fpar[F_C_T] * (v - l_a * wL)
    F_tR = fpar[F_K_T] * (x - l_a * dR) + fpar[F_C_T] * (v - l_a * wR)
    Q = (tau[0] - T_c, T_c - r_p * F_g, F_g - F_tL - F_tR, l_a * F_tL + tau[1] - fpar[F_C_W] * wL,
         l_a * F_tR + tau[2] - fpar[F_C_W] * wR)
    s, kingpin = fpar[F_SCALE], fpar[F_KINGPIN]
    kinetic = (s * fpar[F_T_P], s * fpar[F_F_R],
               s * kingpin * (abs(tau[3]) + abs(F_tL)),  # a king-pin's friction follows its load
               s * kingpin * (abs(tau[4]) + abs(F_tR)))
    return Q, kinetic, (T_c, F_g, F_tL, F_tR)


@jit
def _element(d, Q_dof, level):
    """Friction of one element: the holding force -Q of its coordinate while stuck (d = 0), else the
    kinetic level against the sliding direction d."""
    return -Q_dof if d == 0 else -d * level


@jit
def _accelerations(fpar, imode, Q, kinetic):
    """(accelerations (5), friction of the elements (4)) in the mode (``SteeringSystem.accelerations``):
    element k acts on coordinate k + 1; a stuck coordinate's acceleration is exactly 0."""
    f = (_element(imode[0], Q[1], kinetic[0]), _element(imode[1], Q[2], kinetic[1]),
         _element(imode[2], Q[3], kinetic[2]), _element(imode[3], Q[4], kinetic[3]))
    acc = (Q[0] / fpar[F_MASSES], (Q[1] + f[0]) / fpar[F_MASSES + 1], (Q[2] + f[1]) / fpar[F_MASSES + 2],
           (Q[3] + f[2]) / fpar[F_MASSES + 3], (Q[4] + f[3]) / fpar[F_MASSES + 4])
    return acc, f


# ======================================================================================================
# Kernels
# ======================================================================================================

@njit(KERNEL, cache=True, error_model="numpy", _nrt=False)
def rhs(t, y, tau, fpar, ipar, fmode, imode, dy):
    """dy/dt = [rates (5), accelerations (5), driver power, aligning power, friction power, damping
    power] (``SteeringSystem.rhs``)."""
    Q, kinetic, _ = _forces(y, tau, fpar)
    acc, f = _accelerations(fpar, imode, Q, kinetic)
    w_sw, w_p, v, wL, wR = y[5], y[6], y[7], y[8], y[9]
    for i in range(5):
        dy[i] = y[5 + i]
        dy[5 + i] = acc[i]
    l_a = fpar[F_L_A]
    dy[10] = tau[0] * w_sw
    dy[11] = tau[1] * wL + tau[2] * wR
    dy[12] = f[0] * w_p + f[1] * v + f[2] * wL + f[3] * wR
    dy[13] = -(fpar[F_C_C] * (w_sw - w_p) ** 2 + fpar[F_C_T] * ((v - l_a * wL) ** 2 + (v - l_a * wR) ** 2)
               + fpar[F_C_W] * (wL ** 2 + wR ** 2))
    return 0


@njit(KERNEL, cache=True, error_model="numpy", _nrt=False)
def events(t, y, tau, fpar, ipar, fmode, imode, g):
    """For each active element in ELEMENTS order: breakaway |Q_{k+1}| - static level - margin while
    stuck, stop d v_{k+1} while slipping (``SteeringSystem.events``)."""
    Q, kinetic, _ = _forces(y, tau, fpar)
    n = 0
    for k in range(4):
        if ipar[k] == 0:
            continue
        d = imode[k]
        if d == 0:
            g[n] = abs(Q[k + 1]) - fpar[F_STATIC] * kinetic[k] - BREAKAWAY_MARGIN
        else:
            g[n] = d * y[6 + k]
        n += 1
    return 0


@njit(KERNEL, cache=True, error_model="numpy", _nrt=False)
def record(t, y, tau, fpar, ipar, fmode, imode, out):
    """The quantities of ``SteeringSystem.record``, flat (``RECORD``)."""
    Q, kinetic, internal = _forces(y, tau, fpar)
    acc, f = _accelerations(fpar, imode, Q, kinetic)
    for i in range(10):
        out[i] = y[i]
    for i in range(5):
        out[10 + i] = acc[i]
    for k in range(4):
        out[15 + k] = f[k]
        out[19 + k] = 1.0 if imode[k] == 0 else 0.0
    r_p, b, l_a = fpar[F_R_P], fpar[F_B], fpar[F_L_A]
    gap = r_p * y[1] - y[2]
    out[23] = 1.0 if abs(gap) < b else 0.0  # in_freeplay (strict, as the Python record)
    E_kin = 0.0
    for i in range(5):
        E_kin += fpar[F_MASSES + i] * y[5 + i] ** 2
    out[24] = 0.5 * E_kin
    th_sw, th_p, x, dL, dR = y[0], y[1], y[2], y[3], y[4]
    out[25] = 0.5 * (fpar[F_K_C] * (th_sw - th_p) ** 2 + fpar[F_K_G] * _luz(gap, b) ** 2
                     + fpar[F_K_T] * ((x - l_a * dL) ** 2 + (x - l_a * dR) ** 2))
    for i in range(4):
        out[26 + i] = y[10 + i]
        out[30 + i] = internal[i]
    return 0
