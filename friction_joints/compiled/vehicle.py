"""Compiled kernels of the single-track (bicycle) vehicle ``vehicle.single_track.SingleTrackVehicle``
(linear tyres, one mode, no events) with the protocol of ``signatures.KERNEL``; the Python model is
the reference (its module docstring has the equations):

    m (v_y' + u r) = F_yf + F_yr,   I_z r' = a F_yf - b F_yr,   F_yf = C_f alpha_f,  F_yr = C_r alpha_r,
    alpha_f = delta - (v_y + a r) / u,  alpha_r = -(v_y - b r) / u,  delta = (delta_L + delta_R) / 2,

with sigma > 0 the axle forces as lagged states, F_y' = (u / sigma) (C alpha - F_y).

Inputs: tau = input_values(t) = [delta_left, delta_right] (rad).

Model arrays (``pack``): fpar = the VehicleParameters in the order of PARAMETERS (offsets F_*), then
the static front wheel load (F_WHEEL_LOAD, ``VehicleParameters.front_wheel_load``); ipar =
[relaxed] (1 when sigma > 0: the axle forces are the states y[3], y[4]).

Mode arrays (``encode_mode``): the single mode "smooth": fmode = [0.0], imode = [0].

Record (``RECORD``), flat in this order: v_y, r, psi, a_y, F_yf, F_yr, M_z_left, M_z_right, F_z_left,
F_z_right.
"""

from __future__ import annotations

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

PARAMETERS = ("m", "I_z", "a", "b", "C_f", "C_r", "t_p", "t_c", "h", "T", "u", "sigma")
F_M, F_I_Z, F_A, F_B, F_C_F, F_C_R, F_T_P, F_T_C, F_H, F_T, F_U, F_SIGMA = range(len(PARAMETERS))
F_WHEEL_LOAD = len(PARAMETERS)
I_RELAXED = 0

ERRORS = {}  # the kernels cannot fail: u, m, I_z > 0 and sigma > 0 where divided by (the parameters)

RECORD = ("v_y", "r", "psi", "a_y", "F_yf", "F_yr", "M_z_left", "M_z_right", "F_z_left", "F_z_right")


def pack(system):
    """(fpar, ipar) of a SingleTrackVehicle (layout in the module docstring)."""
    p = system.p
    fpar = np.array([getattr(p, name) for name in PARAMETERS] + [p.front_wheel_load], dtype=np.float64)
    return fpar, np.array([int(p.sigma > 0)], dtype=np.int64)


def compile_system(system):
    """The CompiledModel of a SingleTrackVehicle."""
    fpar, ipar = pack(system)
    return CompiledModel(rhs, events, record, fpar, ipar, len(RECORD), dict(ERRORS))


def encode_mode(mode):
    """(fmode, imode) of the single mode."""
    return np.zeros(1), np.zeros(1, dtype=np.int64)


def decode_record(out):
    """The record dict (as SingleTrackVehicle.record returns it: numpy scalars) of the flat record."""
    return dict(zip(RECORD, out))  # iterating the array gives numpy scalars


@jit
def _steady_forces(y, tau, fpar):
    """(C_f alpha_f, C_r alpha_r) (N): the axle forces without relaxation."""
    u = fpar[F_U]
    delta = 0.5 * (tau[0] + tau[1])
    alpha_f = delta - (y[0] + fpar[F_A] * y[1]) / u
    alpha_r = -(y[0] - fpar[F_B] * y[1]) / u
    return fpar[F_C_F] * alpha_f, fpar[F_C_R] * alpha_r


@jit
def _tyre_forces(y, tau, fpar, ipar):
    """(F_yf, F_yr) (N): the relaxed states when sigma > 0, else the steady forces."""
    if ipar[I_RELAXED] != 0:
        return y[3], y[4]
    return _steady_forces(y, tau, fpar)


@njit(KERNEL, cache=True, error_model="numpy", _nrt=False)
def rhs(t, y, tau, fpar, ipar, fmode, imode, dy):
    """dy/dt = [v_y', r', psi' = r, F_yf', F_yr'] (``SingleTrackVehicle.rhs``)."""
    F_f, F_r = _tyre_forces(y, tau, fpar, ipar)
    dy[0] = (F_f + F_r) / fpar[F_M] - fpar[F_U] * y[1]
    dy[1] = (fpar[F_A] * F_f - fpar[F_B] * F_r) / fpar[F_I_Z]
    dy[2] = y[1]
    if ipar[I_RELAXED] != 0:  # first-order lag with time constant sigma / u
        S_f, S_r = _steady_forces(y, tau, fpar)
        rate = fpar[F_U] / fpar[F_SIGMA]
        dy[3] = rate * (S_f - F_f)
        dy[4] = rate * (S_r - F_r)
    else:
        dy[3] = 0.0
        dy[4] = 0.0
    return 0


@njit(KERNEL, cache=True, error_model="numpy", _nrt=False)
def events(t, y, tau, fpar, ipar, fmode, imode, g):
    """No events (one smooth mode)."""
    return 0


@njit(KERNEL, cache=True, error_model="numpy", _nrt=False)
def record(t, y, tau, fpar, ipar, fmode, imode, out):
    """The quantities of ``SingleTrackVehicle.record``, flat (``RECORD``)."""
    F_f, F_r = _tyre_forces(y, tau, fpar, ipar)
    a_y = (F_f + F_r) / fpar[F_M]
    M_z = -(fpar[F_T_P] + fpar[F_T_C]) * F_f / 2.0  # aligning moment of each front wheel
    # lateral load transfer, the front axle's share by its static load
    dF = fpar[F_M] * a_y * fpar[F_H] * fpar[F_B] / ((fpar[F_A] + fpar[F_B]) * fpar[F_T])
    out[0] = y[0]
    out[1] = y[1]
    out[2] = y[2]
    out[3] = a_y
    out[4] = F_f
    out[5] = F_r
    out[6] = M_z
    out[7] = M_z
    out[8] = fpar[F_WHEEL_LOAD] - dF
    out[9] = fpar[F_WHEEL_LOAD] + dF
    return 0
