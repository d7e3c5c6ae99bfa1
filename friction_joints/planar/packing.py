"""The packing (model and mode arrays, record layout) of the C engine's family "planar"
(``native/src/planar.c``, whose kernels follow this description) for the planar engine:
``planar.system.MechanismSystem`` (the minimal form of seed 000 Sect. 4-5 with exact stick-slip per
frictional contact). The Python engine (``planar.model``, ``planar.joints``, ``planar.tree``,
``planar.minimal``, ``planar.coupling``, ``friction.laws``, ``planar.system``) is the reference: the
kernels re-implement the same equations in the same order, on the model packed into arrays.

Supported: joints Revolute, Prismatic (with or without ``edge_length``) and PinInSlot; laws
Coulomb, Stribeck, Exponential and Tanh, or none (a frictionless free coordinate); any tree and
partition of ``MinimalForm``; every mode of ``MechanismSystem`` (slip, stuck with independent
locked rows, frozen, shared stiction) and the single mode of ``RegularisedSystem`` (friction
directions sgn(sd), no events). ``pack`` returns None for anything else (another joint or law
class): the Python engine runs it.

Model arrays (``pack``: the model described as flat arrays, packed by the family's one packer in C,
``native/src/planar_pack.c``, which the native FMUs' assemblies call too; every offset is in the ipar
header, named I_*):

ipar header: I_N n = 3b, I_M m, I_L l, I_K1 k1, I_K k, I_M2 m2, I_NB b, I_NJ joints, I_ND drives,
    I_NC contacts; then offsets into ipar (I_JOINTS, I_TREE, I_ROWS1, I_ROWS2, I_CONTACTS, I_LAWS,
    I_XQ, I_XO, I_WORK, I_IWORK), the workspace size (I_WORK_ROWS, I_IWORK_ROWS, I_WIDTH),
    into fpar (I_F_MASS, I_F_HEXT, I_F_H, I_F_GRAV, I_F_BODY_MASS, I_F_LIP, I_F_JOINTS, I_F_LAWS), and for
    the mode decisions the offset of the mechanism's partition in ipar (I_PARTITION: the partition u is
    given in at the start) and I_REGULARISED (1 for RegularisedSystem, whose single mode decide keeps).
ipar blocks: joints (8 each: type, body_i, body_j, first row of z, n_z, first index of s,
    n_s, has edge_length); tree (k1 x 2: joint index, axis 0 x / 1 y / 2 theta); rows1 (n - k1 rows
    of C in the tree); rows2 (m2 closing rows); contacts (indices of the frictional free
    coordinates); laws (l law kinds, NO_LAW ... TANH); xq (k1 indices of x that are q, tree order);
    xo (the other n - k1 indices of x); the workspace tables (I_WORK, I_IWORK, below); the mechanism's
    partition (k).
fpar blocks: diag(M) (n); h_ext (n); H (n x n_drives, row-major); gravity (2); body masses (b);
    Lipschitz constants of f_mu (l); joints (9 each: p_i (2), p_j (2), e_j (2), theta_0, r,
    edge_length); laws (LAW_WIDTH per free coordinate: mu_s, then Coulomb mu_k | Stribeck mu_k, v_s,
    delta | Exponential mu_0, k, v_k | Tanh mu_k, v_eps).

Mode arrays (``encode_mode``): imode = [n_stuck, n_lock, directions from sgn(sd) (RegularisedSystem),
partition (k), dependent indices v (m2), stuck contacts (l, the first n_stuck used), pivot columns of
the lock rows then the others (k, as in ``lock_velocity``), stuck flag per free coordinate (l)];
fmode = [direction (l), lock rows (k x k, the first n_lock rows used)]. ``decode_mode`` is the inverse.

Mode decisions (planar.c's decide: MechanismSystem.update, RegularisedSystem.update): the new mode's
arrays as ``encode_mode`` gives them, and the change report (l int64, ``change_kind`` names the event's
kind from it): CHANGE_Z for the contacts of the candidate set Z (zero slip, row Cpp_c not zero),
CHANGE_KINEMATIC for those at a kinematic zero of their slip (row Cpp_c zero), else 0. Events
(mode_events): slip_zero (falling) per slipping contact, then breakaway (rising, input-driven) per stuck
contact, or one breakaway of a shared stiction, as ``MechanismSystem.events``.

Record (``record_layout``): q, u, qd, qdd, udot, f, f_mu, sd, tau, stuck, stuck_contacts, E_kin,
E_pot, W_drive, W_friction, flat in this order.

Workspace: one float and one int matrix (planar_pack.c's WORK_FIELDS, IWORK_FIELDS, their layout in
ipar), the scratch of fj_args (the kernels allocate nothing). Linear algebra at these sizes (3-12) is written out: LU with
partial pivoting, Cholesky, the one-sided Jacobi method for the singular values that decide
kappa < 1 and cond(V). Where the Python engine solves an n x n or m x m system, the kernels solve
an equivalent smaller one: [C1; S] on the coordinates of x that q does not give (n - k1), and the
Newton step (I - B J)^-1 R = R + B (I - J B)^-1 J R (l x l); the results agree to rounding.
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..friction.laws import Coulomb, Exponential, Stribeck, Tanh
from ..native.model import CompiledModel
from .joints import PinInSlot, Prismatic, Revolute

# --- constants of the Python engine (the same values) ---------------------------------------------
MAX_CONDITION_V = 1e12  # planar.minimal._D2: cond(V) beyond which the configuration is singular

# --- codes ------------------------------------------------------------------------------------------
REVOLUTE, PRISMATIC, PIN_IN_SLOT = 0, 1, 2
NO_LAW, COULOMB, STRIBECK, EXPONENTIAL, TANH = 0, 1, 2, 3, 4

ST_GUIDE_AXIS, ST_TREE_SINGULAR, ST_V_SINGULAR, ST_M2_NOT_PD, ST_CCT_SINGULAR = 1, 2, 3, 4, 5
ST_NO_CONVERGENCE, ST_INCONSISTENT, ST_INDETERMINATE, ST_HOLDING_SINGULAR, ST_LOCK_SINGULAR = 6, 7, 8, 9, 10
ST_SHARED_NO_SETTLE = 11  # planar.c's message() has the texts of the ST_* codes
# the mode decision (after 12 and 13, planar.absolute_packing's): the Gauss problem does not settle with its
# reactions, contacts stick with dependent rows while others move, a breaking contact is not at zero slip
ST_GAUSS_NO_SETTLE, ST_DEPENDENT_STUCK, ST_BREAKAWAY_SLIPPING = 14, 15, 16
ST_NOT_ASSEMBLED = 17  # the projection onto the closing constraints (fj_planar_project) did not converge

# --- ipar header ------------------------------------------------------------------------------------
(I_N, I_M, I_L, I_K1, I_K, I_M2, I_NB, I_NJ, I_ND, I_NC,
 I_JOINTS, I_TREE, I_ROWS1, I_ROWS2, I_CONTACTS, I_LAWS, I_XQ, I_XO, I_WORK, I_IWORK,
 I_F_MASS, I_F_HEXT, I_F_H, I_F_GRAV, I_F_BODY_MASS, I_F_LIP, I_F_JOINTS, I_F_LAWS,
 I_WORK_ROWS, I_IWORK_ROWS, I_WIDTH, I_PARTITION, I_REGULARISED) = range(33)
HEADER = 33
LAW_WIDTH = 4  # mu_s and three parameters
# imode header
IM_NSTUCK, IM_NLOCK, IM_SIGN = 0, 1, 2
IM_HEADER = 3
# decide's change report, per free coordinate
CHANGE_Z, CHANGE_KINEMATIC = 1, 2

# ======================================================================================================
# Packing (the model as the flat arrays of the C packer)
# ======================================================================================================

def _law_row(law):
    """(kind, [mu_s, a, b, c]) of a friction law, or None if its class is not compiled."""
    if law is None:
        return NO_LAW, [0.0, 0.0, 0.0, 0.0]
    if type(law) is Coulomb:
        return COULOMB, [law.mu_s, law.mu_k, 0.0, 0.0]
    if type(law) is Stribeck:
        return STRIBECK, [law.mu_s, law.mu_k, law.v_s, law.delta]
    if type(law) is Exponential:
        return EXPONENTIAL, [law.mu_s, law.mu_0, law.k, law.v_k]
    if type(law) is Tanh:
        return TANH, [law.mu_s, law.mu_k, law.v_eps, 0.0]
    return None


def pack(model, minimal, partition=None, regularised=False):
    """(fpar, ipar) of a PlanarModel and its MinimalForm (layout in the module docstring), or None
    if the model has a joint or friction law the kernels do not implement. partition: the mechanism's
    (the first k coordinates if None: a family without mode decisions); regularised: for a
    RegularisedSystem. The arrays are packed in C (``native.pack_planar``: planar_pack.c, the family's one
    packer) from the model described as flat arrays here."""
    joint_types, joints, law_kinds, laws = [], [], [], []
    for joint in model.joints:
        kind = {Revolute: REVOLUTE, Prismatic: PRISMATIC, PinInSlot: PIN_IN_SLOT}.get(type(joint))
        if kind is None:
            return None
        edge = getattr(joint, "edge_length", None)
        joint_types.append([kind, joint.body_i, joint.body_j])
        joints.append([*joint.p_i, *joint.p_j, *getattr(joint, "e_j", (1.0, 0.0)), getattr(joint, "theta_0", 0.0),
                       getattr(joint, "r", 0.0), 0.0 if edge is None else edge])
        for law in joint.friction_laws():
            row = _law_row(law)
            if row is None:
                return None
            law_kinds.append(row[0])
            laws.append(row[1])
    coords = minimal.coords
    bodies = [[body.m, body.J, *np.broadcast_to(body.force, 2), body.moment] for body in model.bodies]
    return native.pack_planar(
        bodies, joint_types, joints, law_kinds, laws, [d.body for d in model.drives],
        [d.direction for d in model.drives], model.gravity, list(zip(coords.tree, coords.axes)),
        np.arange(minimal.k) if partition is None else partition, regularised)


def record_layout(model, minimal):
    """[(key, size, kind)] of the flat record; kind 'array', 'bools' (a bool array), 'bool', 'float' (a
    Python float) or 'float64' (a numpy scalar), as MechanismSystem.record returns them."""
    k1, k, m, l = minimal.k1, minimal.k, model.m, model.l
    return [("q", k1, "array"), ("u", k, "array"), ("qd", k1, "array"), ("qdd", k1, "array"),
            ("udot", k, "array"), ("f", m, "array"), ("f_mu", l, "array"), ("sd", l, "array"),
            ("tau", model.n_drives, "array"), ("stuck", 1, "bool"), ("stuck_contacts", l, "bools"),
            ("E_kin", 1, "float"), ("E_pot", 1, "float"), ("W_drive", 1, "float64"), ("W_friction", 1, "float64")]


def encode_mode(model, minimal, mode):
    """(fmode, imode) of a planar.system.Mode (layout in the module docstring)."""
    import scipy.linalg as sla  # here: importing SciPy is most of an FMU's start-up
    k1, k, m2, l = minimal.k1, minimal.k, minimal.m2, model.l
    imode = np.zeros(IM_HEADER + 2 * k + m2 + 2 * l, dtype=np.int64)
    fmode = np.zeros(l + k * k)
    stuck, lock = list(mode.stuck), np.array(mode.lock, dtype=float).reshape(len(mode.lock), k)
    imode[IM_NSTUCK], imode[IM_NLOCK] = len(stuck), len(lock)
    if mode.direction is None:
        imode[IM_SIGN] = 1
    else:
        fmode[:l] = np.asarray(mode.direction, dtype=float)
    partition = [int(i) for i in mode.partition]
    o = IM_HEADER
    imode[o : o + k] = partition
    imode[o + k : o + k + m2] = [i for i in range(k1) if i not in set(partition)]
    o += k + m2
    imode[o : o + len(stuck)] = stuck
    o += l
    if len(lock):
        fmode[l : l + lock.size] = lock.ravel()
        _, _, piv = sla.qr(lock, pivoting=True)  # the pivot columns of lock_velocity
        imode[o : o + k] = piv
    o += k
    imode[o : o + l][stuck] = 1
    return np.ascontiguousarray(fmode), np.ascontiguousarray(imode)


def record_decoder(layout):
    """The function ``out -> record dict`` (as MechanismSystem.record returns it) of the flat records
    ``out`` (n_record,) of ``layout`` (``record_layout``'s), with ``.column(block, key)``: a series over
    the records ``block`` (n, n_record). Its arrays are views of ``out``: a caller
    that keeps the dict gives every record a fresh ``out``. Called at every co-simulation step: the
    offsets are worked out once, the scalars read from one list."""
    entries, o = [], 0
    for key, size, kind in layout:
        entries.append((key, slice(o, o + size) if kind in ("array", "bools") else o, kind))
        o += size
    entries = tuple(entries)
    where = {key: (at, kind) for key, at, kind in entries}

    def decode(out) -> dict:
        rec, values = {}, out.tolist()
        for key, at, kind in entries:
            if kind == "array":
                rec[key] = out[at]
            elif kind == "bools":
                rec[key] = out[at].astype(bool)  # nonzero (NaN too): True
            elif kind == "bool":
                rec[key] = bool(values[at])
            elif kind == "float":
                rec[key] = values[at]
            else:  # "float64": a numpy scalar
                rec[key] = out[at]
        return rec

    def column(block, key) -> np.ndarray:
        """The series of ``key`` over the records ``block`` (n, n_record): what stacking ``decode``'s values
        of each row gives (a new array; KeyError for a key the layout lacks)."""
        at, kind = where[key]
        return block[:, at].astype(bool) if kind in ("bools", "bool") else block[:, at].copy()

    decode.column = column
    return decode


def decode_mode(model, minimal, fmode, imode):
    """The fields (direction, stuck, lock, partition) of the planar.system.Mode of the arrays (fmode, imode)
    (the inverse of ``encode_mode``)."""
    k, m2, l = minimal.k, minimal.m2, model.l
    partition = tuple(int(i) for i in imode[IM_HEADER : IM_HEADER + k])
    if imode[IM_SIGN]:
        return None, (), (), partition
    o = IM_HEADER + k + m2
    stuck = tuple(int(c) for c in imode[o : o + imode[IM_NSTUCK]])
    lock = np.array(fmode[l : l + imode[IM_NLOCK] * k], dtype=float).reshape(-1, k)
    return tuple(int(v) for v in fmode[:l]), stuck, tuple(tuple(row) for row in lock), partition


def compile_system(system, regularised):
    """The CompiledModel of a MechanismSystem (of a RegularisedSystem: ``regularised``), or None if its
    model is not supported."""
    packed = pack(system.model, system.minimal, system.mech.partition, regularised)
    if packed is None:
        return None
    fpar, ipar = packed
    n_record = sum(size for _, size, _ in record_layout(system.model, system.minimal))
    return CompiledModel("planar", fpar, ipar, n_record)
