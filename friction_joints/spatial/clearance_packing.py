"""The packing (model and mode arrays, record layout) of the C engine's family "spatial_clearance"
(``native/src/spatial_clearance.c``) for ``ClearanceRSRRRSystem``: the RSRRR linkage with a clearance
joint (the planar model) and an RFEM flexible link. The Python engine (``spatial.clearance_system``,
``spatial.clearance_rsrrr``, ``contact``) is the reference; the kernels re-implement its equations in
the same order.

Supported: the ideal joint, the planar or the spatial clearance model, the rigid or the flexible link
(modified or classical RFEM: revolute and prismatic sde coordinates with their spring-dampers), friction
on or off, no load or a ``SpeedLoad``. ``compile_system`` returns None for subclasses that could change the
equations: the Python engine runs those.

Model arrays (``pack``):
    the layout of the family "spatial" (``spatial.packing``'s docstring) for the loop's chains (n1 + n2
    links, each with its joint's kind and spring-damper), form "cut", no stiction;
    ipar, after the header and the parents (at HEADER + n): CI_JOINTS (4) the loop coordinates of the
        four joints of seed 002, CI_GAP (4) those of the clearance x, y and the spatial model's tilts a, b (-1
        where there are none), CI_MODEL (MODEL_NONE, MODEL_PLANAR, MODEL_SPATIAL), CI_BEARING the coordinate
        of the clearance joint's rotation, CI_F the offset of the clearance block in fpar;
    fpar clearance block: R_J, R_B (m), K (N/m^n), n, chi of the contact law (``contact.Flores``), mu_k,
        v_eps (m/s) of the contact friction (``Tanh``), friction (1 or 0), deltad0_min (m/s), and the spatial
        model's bearing length L (m) and slices (0 in the planar model).
Mode arrays (``encode_mode``): fmode = [deltad0 (0 in FREE), level], imode = [1 in Contact, else 0].
Change report (one entry): KIND_NONE, KIND_IMPACT, KIND_SEPARATION, the kind ``update`` names.
Record (``record_layout``): the keys of ``ClearanceRSRRRSystem.record``, flat: the spatial family's record
(``spatial.packing.record_layout``, so that the native FMU RSRRRLinkage reads its outputs at the same places with
either family), then W_dissipated, e_clearance, delta, F_contact, in_contact, E_contact, E_strain, E_elastic, and
q_all, qd_all (n each) last.
"""

from __future__ import annotations

import numpy as np

from ..contact import Contact, Flores, Free, PlanarClearance, SpatialClearance
from ..friction.laws import Tanh
from ..native.model import CompiledModel
from . import packing
from .clearance_rsrrr import ClearanceRSRRR
from .dynamics import lagrange_trace
from .load import SpeedLoad

# --- the clearance block ----------------------------------------------------------------------------
CI_JOINTS, CI_GAP, CI_MODEL, CI_BEARING, CI_F = 0, 4, 8, 9, 10
MODEL_NONE, MODEL_PLANAR, MODEL_SPATIAL = 0, 1, 2
CLEARANCE_WIDTH = 11  # the fpar clearance block
KINDS = {0: None, 1: "impact", 2: "separation"}  # the change report's KIND_*
# the kernels' statuses beyond the spatial family's (spatial_clearance.c's message() has their texts)
ST_SKEW, ST_NO_SOLUTION = 9, 10


def pack(system):
    """(fpar, ipar) of a ClearanceRSRRRSystem (layout in the module docstring), or None where the family
    does not apply (another load, contact law or friction law, a mechanism not of its parameters)."""
    mech, load = system.mech, system.load
    if type(mech) is not ClearanceRSRRR or (load is not None and type(load) is not SpeedLoad):
        return None
    joint = mech.clearance_joint
    if joint is not None and not (type(joint) in (PlanarClearance, SpatialClearance) and type(joint.law) is Flores
                                  and (joint.friction is None or type(joint.friction) is Tanh)):
        return None
    loop = mech.loop
    links, chains, parents = packing.pack_links(loop)
    journals = np.column_stack([getattr(mech.journals, name) for name in packing.JOURNAL_FIELDS]).ravel()
    blocks = [links, chains, [loop.alpha, loop.beta, mech.COUPLING_TOL, system.HOLD_TOL], journals,
              [load.t_0, load.psid_0, load.c] if load else np.zeros(3)]
    offsets = np.cumsum([0] + [len(b) for b in blocks])
    if joint is None:
        gap, model, clearance = (-1,) * 4, MODEL_NONE, np.zeros(CLEARANCE_WIDTH)
    else:
        law, friction = joint.law, joint.friction
        planar = type(joint) is PlanarClearance
        gap, model = (*mech.gap, -1, -1) if planar else tuple(mech.gap), MODEL_PLANAR if planar else MODEL_SPATIAL
        clearance = [joint.R_J, joint.R_B, law.k_contact, law.n, law.chi, friction.mu_k if friction else 0.0,
                     friction.v_eps if friction else 1.0, float(friction is not None), mech.c.deltad0_min,
                     0.0 if planar else joint.L, 0.0 if planar else joint.n_slices]
    fpar = np.concatenate(blocks + [clearance])
    ipar = [loop.n1, loop.n2, packing.FORM_CUT, int(loop.formulation is lagrange_trace), int(mech.p.friction), 0,
            packing.SPEED_LOAD if load else packing.NO_LOAD, mech.MAX_ITERATIONS, system.MAX_HOLD_ITERATIONS,
            packing.HEADER, *offsets[:5], *parents, *mech.joints, *gap, model, mech.joints[mech.c.joint],
            offsets[5]]
    return fpar, np.array(ipar, dtype=np.int64)


def trim(fpar, ipar, y0):
    """(fpar, ipar, y0) of the C assembly "RSRRRClearance" (whose arrays are sized for its largest model) cut to the
    sizes of the model they hold (n = n1 + n2 loop coordinates, its clearance block last)."""
    n = int(ipar[packing.I_N1] + ipar[packing.I_N2])
    block = packing.HEADER + n
    return fpar[:ipar[block + CI_F] + CLEARANCE_WIDTH], ipar[:block + CI_F + 1], y0[:2 * n + 4]


def record_layout(n):
    """[(key, shape, kind)] of the flat record of a loop of n coordinates (kinds as ``spatial.packing``)."""
    return (packing.record_layout() + [("W_dissipated", (), "float64")]
            + [(key, (), "float") for key in ("e_clearance", "delta", "F_contact")]
            + [("in_contact", (), "bool")] + [(key, (), "float") for key in ("E_contact", "E_strain", "E_elastic")]
            + [("q_all", (n,), "array"), ("qd_all", (n,), "array")])


def decode_record(out, n):
    """The record dict (as ClearanceRSRRRSystem.record returns it) of the flat record ``out``."""
    rec, o = {}, 0
    for key, shape, kind in record_layout(n):
        size = int(np.prod(shape))
        rec[key] = packing.decode_value(out[o:o + size], shape, kind)
        o += size
    return rec


def encode_mode(mode):
    """(fmode, imode) of a Free or Contact mode."""
    touching = isinstance(mode, Contact)
    return (np.array([mode.deltad0 if touching else 0.0, mode.level]), np.array([int(touching)], dtype=np.int64))


def decode_mode(fmode, imode):
    """The mode of the arrays (the inverse of ``encode_mode``)."""
    return Contact(float(fmode[0]), float(fmode[1])) if imode[0] else Free(float(fmode[1]))


def compile_system(system):
    """The CompiledModel of a ClearanceRSRRRSystem, or None if it is not supported."""
    packed = pack(system)
    if packed is None:
        return None
    fpar, ipar = packed
    n = system.n
    return CompiledModel("spatial_clearance", fpar, ipar, sum(int(np.prod(s)) for _, s, _ in record_layout(n)))
