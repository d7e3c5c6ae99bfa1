"""The packing (model and mode arrays, record layout) of the C engine's family "steering"
(``native/src/steering.c``, whose kernels follow this description) for the rack-and-pinion steering
system ``vehicle.steering.SteeringSystem`` (a lumped luz/tar model in the spirit of seed 001). The Python
model is the reference: the kernels re-implement its equations in the same order (see its module
docstring):

    T_c = k_c (th_sw - th_p) + c_c (thd_sw - thd_p),     F_g = k_g luz(r_p th_p - x, b)   (freeplay 2 b)
    F_ti = k_t (x - l_a delta_i) + c_t (xd - l_a deltad_i)
    F_stop = -s max(0, k_stop (s x - rack_travel) + c_stop s xd) on end stop s (+1 left, -1 right), else 0
    Q = (tau_sw - T_c, T_c - r_p F_g, F_g - F_tL - F_tR + F_stop, l_a F_tL + M_z,L - c_w deltad_L, l_a F_tR + ...)

(the rack's end stops are the project's addition, issue 32, with their events: contact, release, clear)
and each friction element k (pinion, rack, left and right king-pin) on coordinate k + 1: -d level_k in
slip, the holding force -Q_{k+1} while stuck (acceleration exactly 0); kinetic levels (s T_p, s F_r,
s mu_k r_k (|F_z,i| + |F_ti|)), static = static_factor x kinetic. The mode decisions (``update``) are
the kernel decide's too, branch by branch as the Python's, and mode_events gives the events of a mode.

Inputs: tau = input_values(t) = [tau_sw, M_z_left, M_z_right, F_z_left, F_z_right] (N.m, N).

Model arrays (``pack``):
    fpar: the SteeringParameters in the order of PARAMETERS, then kingpin = mu_k r_k (at F_KINGPIN)
          and the five inertias J_sw, J_p, m_r, J_w, J_w
    ipar: active flag of each element (``SteeringSystem.active``; an inactive element never sticks
          and has no events)

Mode arrays (``encode_mode``): imode = directions of the four elements (ELEMENTS order; +1 / -1
slipping, 0 stuck), then Mode.stop (0 within the rack's travel, s on end stop s, 2 s released from it);
fmode = the same as floats (``decode_mode``: the Mode's fields again).

decide's change report (6 integers, ``vehicle.steering.mode_change``, named by ``change_name``): per
element an index of ELEMENT_CHANGES (0 unchanged, 1 it sticks, 2 it slips), then the end stops' change, an
index of STOP_CHANGES (0 none, 1 contact, 2 release, 3 clear), and its stop (+1 left, -1 right, else 0).

Record (``record_layout``), flat in this order: q (5), qd (5), qdd (5), friction (4), stuck (4),
in_freeplay, E_kin, E_spring, W_driver, W_aligning, W_friction, W_damping, T_c, F_g, F_tL, F_tR, F_stop.
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..native.model import CompiledModel

PARAMETERS = ("J_sw", "k_c", "c_c", "J_p", "r_p", "k_g", "b", "m_r", "k_t", "c_t", "l_a", "J_w", "c_w", "T_p",
              "F_r", "mu_k", "r_k", "static_factor", "friction_scale", "rack_travel", "k_stop", "c_stop")
F_KINGPIN = len(PARAMETERS)  # offset of mu_k r_k in fpar

#: (key, size, kind) of the flat record; kind: 'array', 'bools', 'bool_' (numpy bool), 'float'
#: (Python float) or 'float64' (numpy scalar), as SteeringSystem.record returns them
RECORD = [("q", 5, "array"), ("qd", 5, "array"), ("qdd", 5, "array"), ("friction", 4, "array"),
          ("stuck", 4, "bools"), ("in_freeplay", 1, "bool_"), ("E_kin", 1, "float64"), ("E_spring", 1, "float64"),
          ("W_driver", 1, "float64"), ("W_aligning", 1, "float64"), ("W_friction", 1, "float64"),
          ("W_damping", 1, "float64"), ("T_c", 1, "float"), ("F_g", 1, "float"), ("F_tL", 1, "float"),
          ("F_tR", 1, "float"), ("F_stop", 1, "float")]
RECORD_SIZE = sum(size for _, size, _ in RECORD)


# ======================================================================================================
# Packing (the C assembly, native/src/assembly_steering.c)
# ======================================================================================================

def pack(system):
    """(fpar, ipar) of a SteeringSystem (layout in the module docstring), by the C assembly
    (native/src/assembly_steering.c: the one packer of this model), whose active flags are the system's."""
    fpar, ipar, _ = native.Assembly("SteeringSystem")(
        [getattr(system.p, name) for name in PARAMETERS] + [0.0, 0])  # the initial angle (unused), friction_model
    if ipar.tolist() != [int(a) for a in system.active]:
        raise ValueError(f"the active flags {list(system.active)} are not the parameters' ({ipar.tolist()})")
    return fpar, ipar


def compile_system(system):
    """The CompiledModel of a SteeringSystem."""
    fpar, ipar = pack(system)
    return CompiledModel("steering", fpar, ipar, RECORD_SIZE)


def encode_mode(mode):
    """(fmode, imode) of a steering Mode."""
    imode = np.array([*(int(d) for d in mode.directions), int(mode.stop)], dtype=np.int64)
    return imode.astype(np.float64), imode


def decode_mode(fmode, imode):
    """The fields (directions, stop) of the steering Mode of (fmode, imode) (the inverse of ``encode_mode``)."""
    return tuple(int(d) for d in imode[:4]), int(imode[4])


def decode_record(out):
    """The record dict (as SteeringSystem.record returns it, the same types) of the flat record ``out``.
    Its arrays are views of ``out``: a caller that keeps the dict gives every record a fresh ``out``."""
    return decode(out, _RECORD_AT)


def offsets(record) -> tuple:
    """(key, offset, size, kind) of each entry of a flat record layout such as RECORD."""
    return tuple((key, sum(s for _, s, _ in record[:i]), size, form) for i, (key, size, form) in enumerate(record))


def decode(out, record_at) -> dict:
    """The record dict of the flat record ``out`` in the layout ``record_at`` (``offsets``)."""
    rec = {}
    for key, o, size, form in record_at:
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


_RECORD_AT = offsets(RECORD)

