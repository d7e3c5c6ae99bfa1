"""The packing (model and mode arrays, record layout) of the C engine's family "vehicle"
(``native/src/vehicle.c``, whose kernels follow this description) for the single-track (bicycle) vehicle
``vehicle.single_track.SingleTrackVehicle`` (linear tyres, one mode, no events); the Python model is the
reference (its module docstring has the equations):

    m (v_y' + u r) = F_yf + F_yr,   I_z r' = a F_yf - b F_yr,   F_yf = C_f alpha_f,  F_yr = C_r alpha_r,
    alpha_f = delta - (v_y + a r) / u,  alpha_r = -(v_y - b r) / u,  delta = (delta_L + delta_R) / 2,

with sigma > 0 the axle forces as lagged states, F_y' = (u / sigma) (C alpha - F_y).

Inputs: tau = input_values(t) = [delta_left, delta_right] (rad).

Model arrays (``pack``): fpar = the VehicleParameters in the order of PARAMETERS, then the static
front wheel load (``VehicleParameters.front_wheel_load``); ipar = [relaxed] (1 when sigma > 0: the
axle forces are the states y[3], y[4]).

Mode arrays (``encode_mode``): the single mode "smooth": fmode = [0.0], imode = [0].

Record (``RECORD``), flat in this order: v_y, r, psi, a_y, F_yf, F_yr, M_z_left, M_z_right, F_z_left,
F_z_right.
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..native.model import CompiledModel

PARAMETERS = ("m", "I_z", "a", "b", "C_f", "C_r", "t_p", "t_c", "h", "T", "u", "sigma")

RECORD = ("v_y", "r", "psi", "a_y", "F_yf", "F_yr", "M_z_left", "M_z_right", "F_z_left", "F_z_right")


def pack(system):
    """(fpar, ipar) of a SingleTrackVehicle (layout in the module docstring), by the C assembly
    (native/src/assembly_vehicle.c: the one packer of this model)."""
    fpar, ipar, _ = native.Assembly("SingleTrackVehicle")([getattr(system.p, name) for name in PARAMETERS])
    return fpar, ipar


def compile_system(system):
    """The CompiledModel of a SingleTrackVehicle."""
    fpar, ipar = pack(system)
    return CompiledModel("vehicle", fpar, ipar, len(RECORD))


def encode_mode(mode):
    """(fmode, imode) of the single mode."""
    return np.zeros(1), np.zeros(1, dtype=np.int64)


def decode_record(out):
    """The record dict (as SingleTrackVehicle.record returns it: numpy scalars) of the flat record."""
    return dict(zip(RECORD, out))  # iterating the array gives numpy scalars


