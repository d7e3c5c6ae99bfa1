"""The packing (model and mode arrays, record layout) of the C engine's family "spatial"
(``native/src/spatial.c``, whose kernels follow this description) for the spatial RSRRR linkage (seed
002): ``spatial.system.RSRRRSystem``. The Python engine (``spatial.chain``, ``spatial.dynamics``,
``spatial.loop``, ``spatial.reactions``, ``spatial.journal``, ``spatial.rsrrr``, ``spatial.system``) is
the reference: the kernels re-implement the same equations in the same order, on the model packed into
arrays.

Supported: both forms of the loop (form "cut": seed 002 eq. 2 with Baumgarte's stabilisation of the
closure; "minimal": coordinate partitioning, chain 2 re-assembled by Newton at every evaluation), both
open-chain formulations (recursive: composite rigid bodies and recursive Newton-Euler; trace: the
4x4-matrix Lagrange form of seed 002 eq. 2), friction on or off, stiction on (modes +1, -1, 0) or off,
no load or a ``SpeedLoad``; the kernels run any serial or tree chains of 1 + 3 joints, the packer the RSRRR of
its ``RSRRRParameters`` (the chain functions also serve the family "spatial_clearance" of
``spatial.clearance_packing``: revolute and prismatic joints with spring-dampers, longer chains).
``compile_system`` returns None for anything else (another load, a subclass of RSRRR, RSRRRSystem, Chain or CutJointLoop that could change
the equations, a loop other than the one RSRRR built from its parameters): the Python engine runs those.

The packer is the C assembly "RSRRRSystem" (``native/src/assembly_spatial.c``, through the binding): the
arrays from the parameters (RSRRRParameters, the form, the stiction, the SpeedLoad), checked with the
Python classes' messages; the native FMU RSRRRLinkage runs the same code from its own parameters
(assembly "RSRRRLinkage"). The tests build the layout below from the Python objects and compare.

The reaction-friction coupling (``RSRRR.dynamics``): as in the Python engine, one solve of eq. (2)
gives the accelerations and the cut force as affine functions of the four friction torques (the
applied case plus one column per unit friction torque; the column is computed directly as the linear
part instead of as a difference of two solves, the same up to rounding) and the Newton-Euler reactions
(eqs 3.1-3.8) follow as affine functions too. The Python engine iterates the fixed point
t_f = t_f(reactions(t_f)) (eqs 4-7) on that map; the C engine solves the same equation by Newton's
method with its analytic Jacobian, from the same start (t_f = 0) to the same stopping test on the
change, so to the same solution within the tolerance. The recorded ``iterations`` are each engine's own
passes (evaluations of t_f(reactions)): the fixed point's in Python, Newton's in C (fewer: 4-5 against
12-24 at Table 1's friction); in a held state they are the holding iteration's
(``RSRRRSystem.holding``, on the same kind of map), the same in both engines.

Inputs: tau = input_values(t) = [tau (drive), tau_res] (N.m).

Model arrays (``pack``; every offset is in the ipar header, named I_*; ``native/src/spatial_internal.h``
has the same names):

ipar header: I_N1, I_N2 joints of chains 1 and 2; I_FORM (FORM_CUT / FORM_MINIMAL); I_TRACE (1: trace
    formulation); I_FRICTION; I_STICTION; I_LOAD (NO_LOAD / SPEED_LOAD); I_MAX_COUPLING
    (RSRRR.MAX_ITERATIONS); I_MAX_HOLD (RSRRRSystem.MAX_HOLD_ITERATIONS); then the offsets I_PARENTS
    (into ipar) and I_F_LINKS, I_F_CHAINS, I_F_LOOP, I_F_JOURNALS, I_F_LOAD (into fpar).
ipar block parents: the parent of each link within its chain (-1: the base), chain 1's then chain 2's.
fpar blocks:
    links (LINK_WIDTH each, chain 1's then chain 2's, so link k is joint k of q): m, c (3), I_c (3x3),
        B (4x4), A (4x4) as in ``chain.Link``, the pseudo-inertia H (4x4, ``Link.H``), the centre of
        mass c_J (3) and inertia I_J (3x3) in the joint frame and A_parent B (4x4, I for a root link's
        A_parent) (``reactions._joint_geometry``), base B (4x4) for a root link (zeros otherwise: its
        joint-axis frame M, ``Chain.frames``), the joint's kind (0 revolute, 1 prismatic), its spring k and
        damper d (``chain.Link``; the RSRRR's: 0, 0, 0);
    chains (CHAIN_WIDTH each): base (4x4), gravity (3), r_S (3) the point S in the last link frame,
        tip (3) S in the last joint frame (A r_S + a), vd_0 (3) = -R_base^T g the base acceleration of
        the Newton-Euler recursion (``reactions.newton_euler``);
    loop: Baumgarte alpha, beta, RSRRR.COUPLING_TOL, RSRRRSystem.HOLD_TOL;
    journals (JOURNAL_WIDTH each, joint order of q): a_bar, d_A, d_B, d_C, mu_A, mu_B, mu_C, k,
        psid_k, mu_s_factor (``journal.JournalFriction``);
    load: t_0, psid_0, c (``SpeedLoad``; zeros without a load).
All matrices row-major.

Mode arrays (``encode_mode``, ``decode_mode``): imode = [direction], fmode = [direction] (DirectionMode:
+1 / -1 turning, 0 stuck; without stiction the mode is always +1).

Mode decisions (``RSRRRSystem.update``, spatial.c's decide): events as ``RSRRRSystem.events`` (none
without stiction; 'breakaway' of a stuck mode, rising and input-driven; 'stop' of a turning one,
falling); no change report (n_change = 0): the kind is ``direction_change`` of the two modes
(``RSRRRSystem.change_kind``). ST_NO_DIRECTION where Python's int(np.sign(Q)) fails (Q not a number).

Record (``record_layout``): q (4), qd (4), qdd (4), f_S (3), f_O (4x3), n_O (4x3), t_f (4),
iterations, stuck, tau, tau_res, E_kin, E_pot, W_drive, W_res, W_friction, closure, flat in this order.

Linear algebra at these sizes (at most 7x7) is written out: LU with partial pivoting.
"""

from __future__ import annotations

import numpy as np

from .. import native
from ..hybrid.stiction import DirectionMode
from ..native.model import CompiledModel
from .journal import JournalSet
from .load import SpeedLoad
from .rsrrr import RSRRR

# --- codes ------------------------------------------------------------------------------------------
FORM_CUT, FORM_MINIMAL = 0, 1
NO_LOAD, SPEED_LOAD = 0, 1

ST_K_SINGULAR, ST_J2_SINGULAR, ST_REDUCED_SINGULAR, ST_NOT_CLOSED = 1, 2, 3, 4
ST_COUPLING, ST_HOLDING, ST_FRAME_SINGULAR, ST_NO_DIRECTION = 5, 6, 7, 8  # spatial.c's message() has their texts

# --- ipar header ------------------------------------------------------------------------------------
(I_N1, I_N2, I_FORM, I_TRACE, I_FRICTION, I_STICTION, I_LOAD, I_MAX_COUPLING, I_MAX_HOLD,
 I_PARENTS, I_F_LINKS, I_F_CHAINS, I_F_LOOP, I_F_JOURNALS, I_F_LOAD) = range(15)
HEADER = 15
# sizes of the fpar blocks (their layout in the module docstring)
LINK_WIDTH = 108  # per link
CHAIN_WIDTH = 28  # per chain
JOURNAL_WIDTH = 10  # per journal
#: a journal's block, in its order (journal.JournalFriction's fields)
JOURNAL_FIELDS = ("a_bar", "d_A", "d_B", "d_C", "mu_A", "mu_B", "mu_C", "k", "psid_k", "mu_s_factor")


# ======================================================================================================
# Packing (the C assembly "RSRRRSystem", native/src/assembly_spatial.c: the one packer of the linkage)
# ======================================================================================================

def pack_links(loop):
    """(fpar blocks of the links and chains, parents) of a CutJointLoop's chains in the layout of the module
    docstring, from its Python objects (the C assembly packs the RSRRR's from its parameters; the family
    spatial_clearance's packer and the tests use this)."""
    links, parents, chains = [], [], []
    for chain, r_S in zip(loop.chains, loop.r_S):
        parents.extend(chain.parents)
        for link, i in zip(chain.links, chain.parents):
            R_A = link.A[:3, :3]
            c_J = R_A @ np.asarray(link.c, float) + link.A[:3, 3]
            I_J = R_A @ np.asarray(link.I_c, float) @ R_A.T
            AB = (np.eye(4) if i < 0 else chain.links[i].A) @ link.B
            MB = chain.base @ link.B if i < 0 else np.zeros((4, 4))
            links.append(np.concatenate(([link.m], link.c, np.ravel(link.I_c), link.B.ravel(), link.A.ravel(),
                                         link.H.ravel(), c_J, I_J.ravel(), AB.ravel(), MB.ravel(),
                                         [float(link.joint == "P"), link.k, link.d])))
        A_k = chain.links[-1].A
        chains.append(np.concatenate((chain.base.ravel(), chain.gravity, r_S, A_k[:3, :3] @ r_S + A_k[:3, 3],
                                      -chain.base[:3, :3].T @ chain.gravity)))
    return np.ravel(links), np.ravel(chains), parents


def assembly_values(system):
    """The parameters of the C assembly "RSRRRSystem" (by name) of an RSRRRSystem whose parts are compiled,
    else None: the RSRRRParameters of its mechanism, its form, stiction and SpeedLoad, and a state at rest
    (the assembly's initial state, unused here)."""
    mech = system.mech
    if type(mech) is not RSRRR or type(mech.journals) is not JournalSet or mech.loop is not mech.built_loop:
        return None  # the mechanism of its parameters only (the assembly builds it from them)
    if system.load is not None and type(system.load) is not SpeedLoad:
        return None
    p, load = mech.p, system.load
    values = {f"l[{i + 1}]": length for i, length in enumerate(p.l)}
    values.update(d=p.d, density=p.density, y0=p.y0, z0=p.z0, g=p.g, alpha=p.alpha, beta=p.beta,
                  friction=float(bool(p.friction)), trace=float(bool(p.trace)))
    for j, journal in enumerate(p.journals, 1):
        values.update({f"{name}[{j}]": getattr(journal, name) for name in JOURNAL_FIELDS})
    values.update(form=float(system.form == "minimal"), stiction=float(system.stiction), load=float(load is not None),
                  t_0=load.t_0 if load else 0.0, psid_0=load.psid_0 if load else 0.0, c=load.c if load else 0.0)
    values.update({f"{name}[{i}]": 0.0 for name in ("psi", "psid") for i in range(1, 5)})
    return values


def pack(system):
    """(fpar, ipar) of an RSRRRSystem (layout in the module docstring) by the C assembly, or None if a part
    of it is not compiled."""
    values = assembly_values(system)
    if values is None:
        return None
    fpar, ipar, _ = native.Assembly("RSRRRSystem")(values)
    return fpar, ipar


def record_layout(n=4):
    """[(key, shape, kind)] of the flat record; kind 'array', 'int', 'bool', 'float' (Python float)
    or 'float64' (numpy scalar), as RSRRRSystem.record returns them."""
    return [("q", (n,), "array"), ("qd", (n,), "array"), ("qdd", (n,), "array"), ("f_S", (3,), "array"),
            ("f_O", (n, 3), "array"), ("n_O", (n, 3), "array"), ("t_f", (n,), "array"),
            ("iterations", (), "int"), ("stuck", (), "bool"), ("tau", (), "float64"), ("tau_res", (), "float64"),
            ("E_kin", (), "float"), ("E_pot", (), "float"), ("W_drive", (), "float64"), ("W_res", (), "float64"),
            ("W_friction", (), "float64"), ("closure", (), "float")]


def record_size(n=4):
    return sum(int(np.prod(shape)) for _, shape, _ in record_layout(n))


def encode_mode(mode):
    """(fmode, imode) of a DirectionMode (layout in the module docstring)."""
    d = int(mode.direction)
    return np.array([float(d)]), np.array([d], dtype=np.int64)


def decode_mode(fmode, imode):
    """The DirectionMode of the mode arrays (the inverse of ``encode_mode``)."""
    return DirectionMode(int(imode[0]))


def decode_value(v, shape, kind):
    """The value of a record entry from its flat part v, as ``record_layout`` gives its shape and kind."""
    if kind == "array":
        return v.reshape(shape).copy()
    if kind == "int":
        return int(v[0])
    if kind == "bool":
        return bool(v[0] != 0.0)
    return float(v[0]) if kind == "float" else np.float64(v[0])


def decode_record(out, n=4):
    """The record dict (as RSRRRSystem.record returns it) of the flat record ``out``."""
    rec, o = {}, 0
    for key, shape, kind in record_layout(n):
        size = int(np.prod(shape))
        rec[key] = decode_value(out[o : o + size], shape, kind)
        o += size
    return rec


def compile_system(system):
    """The CompiledModel of an RSRRRSystem, or None if it is not supported."""
    packed = pack(system)
    if packed is None:
        return None
    fpar, ipar = packed
    return CompiledModel("spatial", fpar, ipar, record_size())
