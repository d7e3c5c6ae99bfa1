"""Compiled kernels of the spatial RSRRR linkage (seed 002): ``spatial.system.RSRRRSystem`` with the
protocol of ``signatures.KERNEL``. The Python engine (``spatial.chain``, ``spatial.dynamics``,
``spatial.loop``, ``spatial.reactions``, ``spatial.journal``, ``spatial.rsrrr``, ``spatial.system``)
is the reference: the kernels re-implement the same equations in the same order, on the model packed
into arrays.

Supported: both forms of the loop (form "cut": seed 002 eq. 2 with Baumgarte's stabilisation of the
closure; "minimal": coordinate partitioning, chain 2 re-assembled by Newton at every evaluation), both
open-chain formulations (recursive: composite rigid bodies and recursive Newton-Euler; trace: the
4x4-matrix Lagrange form of seed 002 eq. 2), friction on or off, stiction on (modes +1, -1, 0) or off,
no load or a ``SpeedLoad``, any serial or tree chains of 1 + 3 revolute joints without spring-dampers.
``compile_system`` returns None for anything else (another load, a subclass of RSRRR, RSRRRSystem,
Chain or CutJointLoop that could change the equations, another open-chain formulation, prismatic
joints or joint springs): the Python engine runs those.

The reaction-friction coupling (``RSRRR.dynamics``) is solved as the Python engine solves it: one
solve of eq. (2) gives the accelerations and the cut force as affine functions of the four friction
torques (the applied case plus one column per unit friction torque; the column is computed directly
as the linear part instead of as a difference of two solves, the same up to rounding), the
Newton-Euler reactions (eqs 3.1-3.8) follow as affine functions too, and the fixed point
t_f = t_f(reactions(t_f)) (eqs 4-7) is iterated on that map with the same start, the same stopping
test and so the same number of passes (the recorded ``iterations``). The stiction's holding torques
(``RSRRRSystem.holding``) iterate on the same kind of map.

Inputs: tau = input_values(t) = [tau (drive), tau_res] (N.m).

Model arrays (``pack``; every offset is in the ipar header, named I_*):

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
        joint-axis frame M, ``Chain.frames``);
    chains (CHAIN_WIDTH each): base (4x4), gravity (3), r_S (3) the point S in the last link frame,
        tip (3) S in the last joint frame (A r_S + a), vd_0 (3) = -R_base^T g the base acceleration of
        the Newton-Euler recursion (``reactions.newton_euler``);
    loop: Baumgarte alpha, beta, RSRRR.COUPLING_TOL, RSRRRSystem.HOLD_TOL;
    journals (JOURNAL_WIDTH each, joint order of q): a_bar, d_A, d_B, d_C, mu_A, mu_B, mu_C, k,
        psid_k, mu_s_factor (``journal.JournalFriction``);
    load: t_0, psid_0, c (``SpeedLoad``; zeros without a load).
All matrices row-major.

Mode arrays (``encode_mode``): imode = [direction], fmode = [direction] (DirectionMode: +1 / -1
turning, 0 stuck; without stiction the mode is always +1).

Record (``record_layout``): q (4), qd (4), qdd (4), f_S (3), f_O (4x3), n_O (4x3), t_f (4),
iterations, stuck, tau, tau_res, E_kin, E_pot, W_drive, W_res, W_friction, closure, flat in this order.

Linear algebra at these sizes (at most 7x7) is written out: LU with partial pivoting.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.tuple import tuple_setitem

from .dense import _lu_factor, _lu_solve_columns, _sign
from .model import CompiledModel
from .signatures import KERNEL

# --- constants of the Python engine (the same values) ---------------------------------------------
ASSEMBLE_TOL = 1e-13  # spatial.loop.CutJointLoop.assemble(tol)
ASSEMBLE_MAX_ITERATIONS = 50  # spatial.loop.CutJointLoop.assemble(max_iter)
J2_SINGULAR = 1e-12  # spatial.loop.CutJointLoop._dependent_inverse: |det J2| < 1e-12 max(1, max|J2|^3)

# --- codes ------------------------------------------------------------------------------------------
FORM_CUT, FORM_MINIMAL = 0, 1
NO_LOAD, SPEED_LOAD = 0, 1

OK = 0
ST_K_SINGULAR, ST_J2_SINGULAR, ST_REDUCED_SINGULAR, ST_NOT_CLOSED = 1, 2, 3, 4
ST_COUPLING, ST_HOLDING, ST_FRAME_SINGULAR = 5, 6, 7
ERRORS = {
    ST_K_SINGULAR: "the matrix of seed 002 eq. (2) is singular (the closure Jacobian G has lost rank)",
    ST_J2_SINGULAR: "chain 2 is singular at S: its Jacobian J2 has no inverse",
    ST_REDUCED_SINGULAR: "the reduced mass matrix V^T A V of the minimal form is singular",
    ST_NOT_CLOSED: "the loop does not close: Newton on chain 2's coordinates did not converge",
    ST_COUPLING: "the reaction-friction coupling did not converge",
    ST_HOLDING: "the holding torques did not converge",
    ST_FRAME_SINGULAR: "a joint-axis frame M_i has no inverse (trace formulation)",
}

# --- ipar header ------------------------------------------------------------------------------------
(I_N1, I_N2, I_FORM, I_TRACE, I_FRICTION, I_STICTION, I_LOAD, I_MAX_COUPLING, I_MAX_HOLD,
 I_PARENTS, I_F_LINKS, I_F_CHAINS, I_F_LOOP, I_F_JOURNALS, I_F_LOAD) = range(15)
HEADER = 15
# per link in fpar
L_M, L_C, L_IC, L_B, L_A, L_H, L_CJ, L_IJ, L_AB, L_MB = 0, 1, 4, 13, 29, 45, 61, 64, 73, 89
LINK_WIDTH = 105
# per chain in fpar
CH_BASE, CH_G, CH_RS, CH_TIP, CH_VD0 = 0, 16, 19, 22, 25
CHAIN_WIDTH = 28
# loop block in fpar
LOOP_ALPHA, LOOP_BETA, LOOP_COUPLING_TOL, LOOP_HOLD_TOL = 0, 1, 2, 3
LOOP_WIDTH = 4
# per journal in fpar
J_A_BAR, J_D_A, J_D_B, J_D_C, J_MU_A, J_MU_B, J_MU_C, J_K, J_PSID_K, J_MU_S = range(10)
JOURNAL_WIDTH = 10
# load block in fpar
LOAD_T0, LOAD_PSID0, LOAD_C = 0, 1, 2
LOAD_WIDTH = 3


# ======================================================================================================
# Packing (Python)
# ======================================================================================================

def pack(system):
    """(fpar, ipar) of an RSRRRSystem (layout in the module docstring), or None if a part of it is not
    compiled."""
    from ..spatial.chain import Chain
    from ..spatial.dynamics import lagrange_trace, recursive
    from ..spatial.journal import JournalSet
    from ..spatial.loop import CutJointLoop
    from ..spatial.rsrrr import RSRRR
    from ..spatial.system import SpeedLoad

    mech = system.mech
    if type(mech) is not RSRRR or type(mech.journals) is not JournalSet:
        return None
    loop = mech.loop
    if type(loop) is not CutJointLoop or loop.formulation not in (recursive, lagrange_trace):
        return None
    if any(type(c) is not Chain for c in loop.chains) or (loop.n1, loop.n2) != (1, 3):
        return None  # RSRRRSystem's state and holding assume one driving joint
    if any(link.joint != "R" or link.k or link.d for c in loop.chains for link in c.links):
        return None  # the kernels have revolute joints without spring-dampers only
    if len(mech.journals.journals) != loop.n:
        return None
    if system.load is not None and type(system.load) is not SpeedLoad:
        return None

    links, parents, chains = [], [], []
    for chain, r_S in zip(loop.chains, loop.r_S):
        parents.extend(chain.parents)
        for link, i in zip(chain.links, chain.parents):
            R_A = link.A[:3, :3]
            c_J = R_A @ np.asarray(link.c, float) + link.A[:3, 3]  # as reactions._joint_geometry
            I_J = R_A @ np.asarray(link.I_c, float) @ R_A.T
            AB = (np.eye(4) if i < 0 else chain.links[i].A) @ link.B
            MB = chain.base @ link.B if i < 0 else np.zeros((4, 4))  # as Chain.frames
            links.append(np.concatenate(([link.m], np.asarray(link.c, float), np.asarray(link.I_c, float).ravel(),
                                         link.B.ravel(), link.A.ravel(), link.H.ravel(), c_J, I_J.ravel(),
                                         AB.ravel(), MB.ravel())))
        A_k = chain.links[-1].A
        tip = A_k[:3, :3] @ r_S + A_k[:3, 3]  # as reactions.newton_euler
        vd0 = -chain.base[:3, :3].T @ chain.gravity
        chains.append(np.concatenate((chain.base.ravel(), chain.gravity, r_S, tip, vd0)))
    jset = mech.journals
    journals = np.column_stack([getattr(jset, name) for name in
                                ("a_bar", "d_A", "d_B", "d_C", "mu_A", "mu_B", "mu_C", "k", "psid_k", "mu_s_factor")])
    load = system.load
    fblocks = [np.array(links, float).ravel(), np.array(chains, float).ravel(),
               np.array([loop.alpha, loop.beta, mech.COUPLING_TOL, system.HOLD_TOL], float),
               journals.ravel(),
               np.array([load.t_0, load.psid_0, load.c] if load is not None else [0.0, 0.0, 0.0], float)]
    assert fblocks[0].size == loop.n * LINK_WIDTH and fblocks[1].size == 2 * CHAIN_WIDTH
    assert fblocks[3].size == loop.n * JOURNAL_WIDTH

    header = np.zeros(HEADER, dtype=np.int64)
    header[I_N1], header[I_N2] = loop.n1, loop.n2
    header[I_FORM] = FORM_MINIMAL if system.form == "minimal" else FORM_CUT
    header[I_TRACE] = int(loop.formulation is lagrange_trace)
    header[I_FRICTION] = int(bool(mech.p.friction))
    header[I_STICTION] = int(system.stiction)
    header[I_LOAD] = NO_LOAD if load is None else SPEED_LOAD
    header[I_MAX_COUPLING], header[I_MAX_HOLD] = mech.MAX_ITERATIONS, system.MAX_HOLD_ITERATIONS
    header[I_PARENTS] = HEADER
    offset = 0
    for slot, block in zip((I_F_LINKS, I_F_CHAINS, I_F_LOOP, I_F_JOURNALS, I_F_LOAD), fblocks):
        header[slot] = offset
        offset += block.size
    ipar = np.concatenate((header, np.array(parents, dtype=np.int64)))
    fpar = np.concatenate(fblocks)
    return np.ascontiguousarray(fpar, dtype=np.float64), np.ascontiguousarray(ipar, dtype=np.int64)


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


def decode_record(out, n=4):
    """The record dict (as RSRRRSystem.record returns it) of the flat record ``out``."""
    rec, o = {}, 0
    for key, shape, kind in record_layout(n):
        size = int(np.prod(shape))
        v = out[o : o + size]
        if kind == "array":
            rec[key] = v.reshape(shape).copy()
        elif kind == "int":
            rec[key] = int(v[0])
        elif kind == "bool":
            rec[key] = bool(v[0] != 0.0)
        elif kind == "float":
            rec[key] = float(v[0])
        else:
            rec[key] = np.float64(v[0])
        o += size
    return rec


def compile_system(system):
    """The CompiledModel of an RSRRRSystem, or None if it is not supported."""
    packed = pack(system)
    if packed is None:
        return None
    fpar, ipar = packed
    return CompiledModel(rhs, events, record, fpar, ipar, record_size(), dict(ERRORS))


# ======================================================================================================
# Small vectors (tuples: no allocation) and matrices
# ======================================================================================================

@njit(cache=True, forceinline=True)
def _row3(X, i):
    return (X[i, 0], X[i, 1], X[i, 2])


@njit(cache=True, forceinline=True)
def _vec3(x, o):
    return (x[o], x[o + 1], x[o + 2])


@njit(cache=True, forceinline=True)
def _put3(X, i, v):
    X[i, 0], X[i, 1], X[i, 2] = v[0], v[1], v[2]


@njit(cache=True, forceinline=True)
def _add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@njit(cache=True, forceinline=True)
def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@njit(cache=True, forceinline=True)
def _scale(s, a):
    return (s * a[0], s * a[1], s * a[2])


@njit(cache=True, forceinline=True)
def _dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, forceinline=True)
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True, forceinline=True)
def _axis3(X, k):
    """The z axis of the frame X[k] (its column 2), X a stack of 4x4 frames."""
    return (X[k, 0, 2], X[k, 1, 2], X[k, 2, 2])


@njit(cache=True, forceinline=True)
def _origin3(X, k):
    """The origin of the frame X[k] (its column 3)."""
    return (X[k, 0, 3], X[k, 1, 3], X[k, 2, 3])


@njit(cache=True, forceinline=True)
def _rot3(X, k, v):
    """X[k][:3, :3] v."""
    return (X[k, 0, 0] * v[0] + X[k, 0, 1] * v[1] + X[k, 0, 2] * v[2],
            X[k, 1, 0] * v[0] + X[k, 1, 1] * v[1] + X[k, 1, 2] * v[2],
            X[k, 2, 0] * v[0] + X[k, 2, 1] * v[1] + X[k, 2, 2] * v[2])


@njit(cache=True, forceinline=True)
def _rot3_t(X, k, v):
    """X[k][:3, :3]^T v."""
    return (X[k, 0, 0] * v[0] + X[k, 1, 0] * v[1] + X[k, 2, 0] * v[2],
            X[k, 0, 1] * v[0] + X[k, 1, 1] * v[1] + X[k, 2, 1] * v[2],
            X[k, 0, 2] * v[0] + X[k, 1, 2] * v[1] + X[k, 2, 2] * v[2])


@njit(cache=True, forceinline=True)
def _frot(fpar, o, width, v):
    """F v with F the 3x3 top-left block of the row-major matrix of row width ``width`` at fpar[o]."""
    return (fpar[o] * v[0] + fpar[o + 1] * v[1] + fpar[o + 2] * v[2],
            fpar[o + width] * v[0] + fpar[o + width + 1] * v[1] + fpar[o + width + 2] * v[2],
            fpar[o + 2 * width] * v[0] + fpar[o + 2 * width + 1] * v[1] + fpar[o + 2 * width + 2] * v[2])


@njit
def _mul4(X, Y, out):
    """out = X Y (4x4)."""
    for i in range(4):
        for j in range(4):
            out[i, j] = X[i, 0] * Y[0, j] + X[i, 1] * Y[1, j] + X[i, 2] * Y[2, j] + X[i, 3] * Y[3, j]


@njit
def _inverse(A, out):
    """out = A^-1 (A is left untouched); returns 1 if A is singular."""
    n = A.shape[0]
    LU = A.copy()
    piv = np.empty(n, dtype=np.int64)
    if _lu_factor(LU, piv):
        return 1
    out[:, :] = 0.0
    for i in range(n):
        out[i, i] = 1.0
    _lu_solve_columns(LU, piv, out)
    return 0




# ======================================================================================================
# The model and the scratch arrays
# ======================================================================================================

@njit(cache=True, forceinline=True)
def _link(ipar, k):
    """Offset of link k (chain 1's links first) in fpar."""
    return ipar[I_F_LINKS] + k * LINK_WIDTH


@njit(cache=True, forceinline=True)
def _chain(ipar, ch):
    """Offset of chain ch (0, 1) in fpar."""
    return ipar[I_F_CHAINS] + ch * CHAIN_WIDTH


@njit
def _mat(fpar, o, rows, cols):
    return fpar[o : o + rows * cols].reshape((rows, cols))


@njit(cache=True, forceinline=True)
def _chain_range(ipar, ch):
    """(first joint, number of joints) of chain ch."""
    return (0, ipar[I_N1]) if ch == 0 else (ipar[I_N1], ipar[I_N2])


Work = namedtuple("Work", (
    # frames (seed 002 eq. 1) and the open-chain dynamics
    "T", "M", "S", "I6", "comp", "v6", "a6", "f6", "A", "e",
    # closure kinematics: G = [J1, -J2], c = b2 - b1, Phi, dPhi/dt, the points S of both chains
    "G", "c", "Phi", "Phid", "P",
    # eq. (2) and the minimal form: the affine map of qdd and f_S in the friction torques
    "K", "piv", "X", "J2", "J2inv", "V", "qdd0", "fS0", "Sq", "Sf",
    # Newton-Euler (eqs 3.1-3.8): joint geometry and motion, reactions and their slopes
    "Rg", "rO", "Rtip", "motion", "fO0", "nO0", "SfO", "SnO",
    # the state of motion
    "qdd", "fS", "fO", "nO", "tf", "new", "limits", "path", "R4",
))


@njit
def _work(ipar):
    n = ipar[I_N1] + ipar[I_N2]
    return Work(np.empty((n, 4, 4)), np.empty((n, 4, 4)), np.empty((n, 6)), np.empty((n, 6, 6)),
                np.empty((n, 6, 6)), np.empty((n, 6)), np.empty((n, 6)), np.empty((n, 6)), np.zeros((n, n)),
                np.empty(n),
                np.zeros((3, n)), np.empty(3), np.empty(3), np.empty(3), np.empty((2, 3)),
                np.empty((n + 3, n + 3)), np.empty(n + 3, dtype=np.int64), np.empty((n + 3, n + 1)),
                np.empty((3, 3)), np.empty((3, 3)), np.empty((n, ipar[I_N1])), np.empty(n), np.empty(3),
                np.empty((n, n)), np.empty((3, n)),
                np.empty((n, 3, 3)), np.empty((n, 3)), np.empty((2, 3, 3)), np.empty((n, 9)), np.empty((n, 3)),
                np.empty((n, 3)), np.empty((n, n, 3)), np.empty((n, n, 3)),
                np.empty(n), np.empty(3), np.empty((n, 3)), np.empty((n, 3)), np.empty(n), np.empty(n),
                np.empty(n), np.empty(n, dtype=np.int64), np.empty((4, 4)))


@njit
def _tip_path(ipar, first, n, path):
    """The joints from the base to the last link of the chain (local indices, base first) into path;
    returns their number (chain.path(-1))."""
    par = ipar[ipar[I_PARENTS] + first : ipar[I_PARENTS] + first + n]
    count, i = 0, n - 1
    while i >= 0:
        count += 1
        i = par[i]
    i = n - 1
    for s in range(count - 1, -1, -1):
        path[s] = i
        i = par[i]
    return count


# ======================================================================================================
# Open chains: frames, dynamics (recursive and trace), the point S
# ======================================================================================================

@njit
def _frames(q, fpar, ipar, ch, T, M, MR):
    """T (link frames) and M (joint-axis frames T(parent) B_p) of chain ch at its coordinates q
    (seed 002 eq. 1: T(p) = T(parent) B_p Rz(psi_p) A_p; chain.Chain.frames); MR 4x4 scratch."""
    first, n = _chain_range(ipar, ch)
    for p in range(n):
        k, lo, i = first + p, _link(ipar, first + p), ipar[ipar[I_PARENTS] + first + p]
        for a in range(4):
            if i < 0:  # base B
                for b in range(4):
                    M[k, a, b] = fpar[lo + L_MB + 4 * a + b]
            else:  # T(parent) B
                x0, x1, x2, x3 = T[first + i, a, 0], T[first + i, a, 1], T[first + i, a, 2], T[first + i, a, 3]
                for b in range(4):
                    o = lo + L_B + b
                    M[k, a, b] = x0 * fpar[o] + x1 * fpar[o + 4] + x2 * fpar[o + 8] + x3 * fpar[o + 12]
        c, s = np.cos(q[p]), np.sin(q[p])
        for a in range(4):  # M Rz(psi) (chain.rot_z)
            x0, x1 = M[k, a, 0], M[k, a, 1]
            MR[a, 0], MR[a, 1], MR[a, 2], MR[a, 3] = x0 * c + x1 * s, -x0 * s + x1 * c, M[k, a, 2], M[k, a, 3]
        for a in range(4):  # (M Rz) A
            x0, x1, x2, x3 = MR[a, 0], MR[a, 1], MR[a, 2], MR[a, 3]
            for b in range(4):
                o = lo + L_A + b
                T[k, a, b] = x0 * fpar[o] + x1 * fpar[o + 4] + x2 * fpar[o + 8] + x3 * fpar[o + 12]

@njit
def _recursive(qd, fpar, ipar, ch, T, M, S, I6, comp, v6, a6, f6, A, e):
    """The block of chain ch of A (mass matrix, composite rigid bodies) and e = -(h + g) (recursive
    Newton-Euler with qdd = 0, gravity as a base acceleration): dynamics.recursive, spatial vectors
    [omega; v] at the global origin (Featherstone). S, I6, comp, v6, a6, f6: per link scratch."""
    first, n = _chain_range(ipar, ch)
    po = ipar[I_PARENTS] + first
    for p in range(n):  # dynamics._link_terms: the joint axes S and the spatial inertias I
        k, lo = first + p, _link(ipar, first + p)
        z, o = _axis3(M, k), _origin3(M, k)
        oz = _cross(o, z)  # rotation about z through o, at the origin
        for a in range(3):
            S[k, a], S[k, 3 + a] = z[a], oz[a]
        m = fpar[lo + L_M]
        c = _add(_rot3(T, k, _vec3(fpar, lo + L_C)), _origin3(T, k))
        C = ((0.0, -c[2], c[1]), (c[2], 0.0, -c[0]), (-c[1], c[0], 0.0))  # skew(c)
        for i in range(3):
            for j in range(3):
                ig = 0.0  # R I_c R^T
                for a in range(3):
                    ig += T[k, i, a] * (fpar[lo + L_IC + 3 * a] * T[k, j, 0] + fpar[lo + L_IC + 3 * a + 1] * T[k, j, 1]
                                        + fpar[lo + L_IC + 3 * a + 2] * T[k, j, 2])
                cc = C[i][0] * C[j][0] + C[i][1] * C[j][1] + C[i][2] * C[j][2]
                I6[k, i, j] = ig + m * cc  # dynamics._spatial_inertia
                I6[k, i, 3 + j] = m * C[i][j]
                I6[k, 3 + i, j] = m * C[j][i]
                I6[k, 3 + i, 3 + j] = m if i == j else 0.0
    for p in range(n):
        for a in range(6):
            for b in range(6):
                comp[first + p, a, b] = I6[first + p, a, b]
    for p in range(n - 1, -1, -1):  # the inertia of each link with everything beyond it
        i = ipar[po + p]
        if i >= 0:
            for a in range(6):
                for b in range(6):
                    comp[first + i, a, b] += comp[first + p, a, b]
    for j in range(n):  # A_ij = S_i . composite_j S_j for the joints i supporting link j
        kj = first + j
        for a in range(6):
            s = 0.0
            for b in range(6):
                s += comp[kj, a, b] * S[kj, b]
            v6[kj, a] = s  # scratch: composite_j S_j
        i = j
        while i >= 0:
            s = 0.0
            for a in range(6):
                s += S[first + i, a] * v6[kj, a]
            A[first + i, kj] = s
            A[kj, first + i] = s
            i = ipar[po + i]
    g = _vec3(fpar, _chain(ipar, ch) + CH_G)
    for p in range(n):  # outward: velocities, bias accelerations, forces
        k, i = first + p, ipar[po + p]
        s1 = _scale(qd[p], (S[k, 0], S[k, 1], S[k, 2]))  # S qd
        s2 = _scale(qd[p], (S[k, 3], S[k, 4], S[k, 5]))
        if i < 0:
            om, vv = s1, s2
            x1, x2 = (0.0, 0.0, 0.0), _scale(-1.0, g)  # gravity as the base acceleration
        else:
            om = _add((v6[first + i, 0], v6[first + i, 1], v6[first + i, 2]), s1)
            vv = _add((v6[first + i, 3], v6[first + i, 4], v6[first + i, 5]), s2)
            x1 = (a6[first + i, 0], a6[first + i, 1], a6[first + i, 2])
            x2 = (a6[first + i, 3], a6[first + i, 4], a6[first + i, 5])
        x1 = _add(x1, _cross(om, s1))  # + crm(v) (S qd)
        x2 = _add(x2, _add(_cross(vv, s1), _cross(om, s2)))
        for a in range(3):
            v6[k, a], v6[k, 3 + a] = om[a], vv[a]
            a6[k, a], a6[k, 3 + a] = x1[a], x2[a]
        h1, h2 = _mul6(I6, k, om, vv)  # I v
        y1 = _add(_cross(om, h1), _cross(vv, h2))  # -crm(v)^T (I v)
        y2 = _cross(om, h2)
        f1, f2 = _mul6(I6, k, x1, x2)  # I a
        for a in range(3):
            f6[k, a], f6[k, 3 + a] = f1[a] + y1[a], f2[a] + y2[a]
    for p in range(n - 1, -1, -1):  # inward: each link passes its subtree's force to its parent
        k, i = first + p, ipar[po + p]
        s = 0.0
        for a in range(6):
            s += S[k, a] * f6[k, a]
        e[k] = -s
        if i >= 0:
            for a in range(6):
                f6[first + i, a] += f6[k, a]

@njit(cache=True, forceinline=True)
def _mul6(X, k, u1, u2):
    """X[k] [u1; u2] for a stack X of 6x6 matrices, as two 3-vectors."""
    r = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    for a in range(6):
        r = tuple_setitem(r, a, X[k, a, 0] * u1[0] + X[k, a, 1] * u1[1] + X[k, a, 2] * u1[2]
                          + X[k, a, 3] * u2[0] + X[k, a, 4] * u2[1] + X[k, a, 5] * u2[2])
    return (r[0], r[1], r[2]), (r[3], r[4], r[5])


@njit
def _trace_product(X, Y):
    """tr(X Y^T) = sum_ab X_ab Y_ab (4x4)."""
    s = 0.0
    for a in range(4):
        for b in range(4):
            s += X[a, b] * Y[a, b]
    return s


@njit
def _lagrange_trace(qd, fpar, ipar, ch, T, M, A, e):
    """The block of chain ch of A and e by the trace formulation of seed 002 eq. (2)
    (dynamics.lagrange_trace): A_ij = sum_p tr(T_i H T_j^T), e_k = -sum_p (h_k + g_k) with
    T_i = Delta_i T, T_ij = Delta_min(i,j) Delta_max(i,j) T, Delta_i = M_i Q M_i^-1."""
    first, n = _chain_range(ipar, ch)
    par = ipar[ipar[I_PARENTS] + first : ipar[I_PARENTS] + first + n]
    Delta, Minv, MQ = np.empty((n, 4, 4)), np.empty((4, 4)), np.empty((4, 4))
    for p in range(n):
        k = first + p
        if _inverse(M[k], Minv):
            return ST_FRAME_SINGULAR
        for a in range(4):  # M Q: dRz/dpsi = Q Rz with Q[0, 1] = -1, Q[1, 0] = 1
            MQ[a, 0], MQ[a, 1], MQ[a, 2], MQ[a, 3] = M[k, a, 1], -M[k, a, 0], 0.0, 0.0
        _mul4(MQ, Minv, Delta[p])
    g = _vec3(fpar, _chain(ipar, ch) + CH_G)
    Ti, TiH = np.empty((n, 4, 4)), np.empty((n, 4, 4))  # T_i and T_i H of the links on the path
    Tqq, DD, DDT = np.empty((4, 4)), np.empty((4, 4)), np.empty((4, 4))
    on_path = np.empty(n, dtype=np.bool_)
    for p in range(n):
        k, lo = first + p, _link(ipar, first + p)
        H = _mat(fpar, lo + L_H, 4, 4)
        m = fpar[lo + L_M]
        on_path[:] = False
        i = p
        while i >= 0:
            on_path[i] = True
            i = par[i]
        for i in range(n):
            if on_path[i]:
                _mul4(Delta[i], T[k], Ti[i])
                _mul4(Ti[i], H, TiH[i])
        for i in range(n):
            if on_path[i]:
                for j in range(n):
                    if on_path[j]:
                        A[first + i, first + j] += _trace_product(TiH[i], Ti[j])
        Tqq[:, :] = 0.0
        for i in range(n):
            if on_path[i]:
                for j in range(n):
                    if on_path[j]:
                        lo_, hi_ = min(i, j), max(i, j)
                        _mul4(Delta[lo_], Delta[hi_], DD)
                        _mul4(DD, T[k], DDT)
                        f = qd[i] * qd[j]
                        for a in range(4):
                            for b in range(4):
                                Tqq[a, b] += DDT[a, b] * f
        rbar = (fpar[lo + L_C], fpar[lo + L_C + 1], fpar[lo + L_C + 2], 1.0)
        for kk in range(n):
            if on_path[kk]:
                h = _trace_product(TiH[kk], Tqq)
                gk = 0.0
                for a in range(3):  # g4 = (g, 0): only the first three rows of T_k rbar
                    gk += g[a] * (Ti[kk, a, 0] * rbar[0] + Ti[kk, a, 1] * rbar[1] + Ti[kk, a, 2] * rbar[2]
                                  + Ti[kk, a, 3] * rbar[3])
                e[first + kk] -= h + (-m * gk)
    return OK


@njit
def _point_terms(qd, fpar, ipar, ch, T, M, G, P, path, sign):
    """The point S of chain ch (its last link): position into P[ch], its Jacobian times sign into the
    columns of G, and its acceleration at qdd = 0 b (returned): dynamics.point_terms. path: scratch."""
    first, n = _chain_range(ipar, ch)
    count = _tip_path(ipar, first, n, path)
    last = first + n - 1
    Pc = _add(_rot3(T, last, _vec3(fpar, _chain(ipar, ch) + CH_RS)), _origin3(T, last))
    _put3(P, ch, Pc)
    vP = (0.0, 0.0, 0.0)
    for s in range(count):  # columns z_i x (P - o_i)
        i = path[s]
        Ji = _cross(_axis3(M, first + i), _sub(Pc, _origin3(M, first + i)))
        G[0, first + i], G[1, first + i], G[2, first + i] = sign * Ji[0], sign * Ji[1], sign * Ji[2]
        vP = _add(vP, _scale(qd[i], Ji))
    b = (0.0, 0.0, 0.0)
    omega, v_o = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    o_prev = _origin3(M, first + path[0])
    for s in range(count):
        i = path[s]
        z, o = _axis3(M, first + i), _origin3(M, first + i)
        v_o = _add(v_o, _cross(omega, _sub(o, o_prev)))  # consecutive axis points on the link between them
        b = _add(b, _scale(qd[i], _add(_cross(_cross(omega, z), _sub(Pc, o)), _cross(z, _sub(vP, v_o)))))
        omega, o_prev = _add(omega, _scale(qd[i], z)), o
    return b


@njit
def _ne_geometry(q, fpar, ipar, ch, T, Rg, rO, Rtip):
    """Per joint p of chain ch: R~ (frame p to its parent's) and r~_O (O^(p) in the parent's frame) of
    A_parent B Rz(psi) (reactions._joint_geometry); and R_k of the last link (its joint frame in global
    axes, T_k A_k^-1)."""
    first, n = _chain_range(ipar, ch)
    for p in range(n):
        k, lo = first + p, _link(ipar, first + p)
        c, s = np.cos(q[p]), np.sin(q[p])
        for a in range(3):  # (A_parent B) Rz(psi)
            x0, x1 = fpar[lo + L_AB + 4 * a], fpar[lo + L_AB + 4 * a + 1]
            Rg[k, a, 0] = x0 * c + x1 * s
            Rg[k, a, 1] = -x0 * s + x1 * c
            Rg[k, a, 2] = fpar[lo + L_AB + 4 * a + 2]
            rO[k, a] = fpar[lo + L_AB + 4 * a + 3]
    last = first + n - 1
    la = _link(ipar, last) + L_A
    for a in range(3):  # R_k = T[k][:3, :3] A_k[:3, :3]^T
        for b in range(3):
            Rtip[ch, a, b] = (T[last, a, 0] * fpar[la + 4 * b] + T[last, a, 1] * fpar[la + 4 * b + 1]
                              + T[last, a, 2] * fpar[la + 4 * b + 2])

@njit
def _mechanics(q, qd, fpar, ipar, w):
    """Everything at (q, qd) that eq. (2) and the reactions need: frames, A and e of both chains, G, c,
    Phi, dPhi/dt (loop.CutJointLoop.mass_and_bias and kinematics) and the joint geometry."""
    n = ipar[I_N1] + ipar[I_N2]
    T, M, A, e, G, P, c, Phi, Phid = w.T, w.M, w.A, w.e, w.G, w.P, w.c, w.Phi, w.Phid
    A[:, :] = 0.0
    trace = ipar[I_TRACE] != 0
    bs = (0.0, 0.0, 0.0)
    for ch in range(2):
        first, nc = _chain_range(ipar, ch)
        qc, qdc = q[first : first + nc], qd[first : first + nc]
        _frames(qc, fpar, ipar, ch, T, M, w.R4)
        if trace:
            e[first : first + nc] = 0.0
            st = _lagrange_trace(qdc, fpar, ipar, ch, T, M, A, e)
            if st:
                return st
        else:
            _recursive(qdc, fpar, ipar, ch, T, M, w.S, w.I6, w.comp, w.v6, w.a6, w.f6, A, e)
        b = _point_terms(qdc, fpar, ipar, ch, T, M, G, P, w.path, 1.0 if ch == 0 else -1.0)
        bs = _sub(b, bs)  # b1, then b2 - b1
        _ne_geometry(qc, fpar, ipar, ch, T, w.Rg, w.rO, w.Rtip)
    for a in range(3):
        c[a] = bs[a]
        Phi[a] = P[0, a] - P[1, a]
        s = 0.0
        for j in range(n):
            s += G[a, j] * qd[j]
        Phid[a] = s
    return OK


@njit
def _closure_terms(q, fpar, ipar, w):
    """Frames, the points S, Phi and G at q only (for the assembly and the dependent velocities)."""
    zero = np.zeros(ipar[I_N1] + ipar[I_N2])
    T, M, P = w.T, w.M, w.P
    for ch in range(2):
        first, nc = _chain_range(ipar, ch)
        _frames(q[first : first + nc], fpar, ipar, ch, T, M, w.R4)
        _point_terms(zero[first : first + nc], fpar, ipar, ch, T, M, w.G, P, w.path, 1.0 if ch == 0 else -1.0)
    for a in range(3):
        w.Phi[a] = P[0, a] - P[1, a]

# ======================================================================================================
# The loop: eq. (2) with Baumgarte, and the minimal form
# ======================================================================================================

@njit
def _j2_inverse(ipar, w):
    """J2inv = J2^-1 with J2 = -G[:, n1:] (loop.CutJointLoop._dependent_inverse, q_d = q2); 1 if singular."""
    n1 = ipar[I_N1]
    J2, G = w.J2, w.G
    big = 0.0
    for a in range(3):
        for b in range(3):
            J2[a, b] = -G[a, n1 + b]
            big = max(big, abs(J2[a, b]))
    det = (J2[0, 0] * (J2[1, 1] * J2[2, 2] - J2[1, 2] * J2[2, 1])
           - J2[0, 1] * (J2[1, 0] * J2[2, 2] - J2[1, 2] * J2[2, 0])
           + J2[0, 2] * (J2[1, 0] * J2[2, 1] - J2[1, 1] * J2[2, 0]))
    if not abs(det) >= J2_SINGULAR * max(1.0, big**3):
        return 1
    return _inverse(J2, w.J2inv)


@njit
def _solve_cut(tau0, fpar, ipar, w):
    """Seed 002 eq. (2), [A -G^T; G 0] [qdd; f_S] = [e + tau; c - 2 alpha dPhi/dt - beta^2 Phi]
    (loop.CutJointLoop.solve), as the affine map of the friction torques: qdd0, fS0 at the joint
    torques tau = (tau0, 0, ...), and the columns Sq, Sf of a unit friction torque (joint torque -1)."""
    n = ipar[I_N1] + ipar[I_N2]
    alpha, beta = fpar[ipar[I_F_LOOP] + LOOP_ALPHA], fpar[ipar[I_F_LOOP] + LOOP_BETA]
    K, X, A, G, e, c, Phi, Phid = w.K, w.X, w.A, w.G, w.e, w.c, w.Phi, w.Phid
    qdd0, Sq, fS0, Sf = w.qdd0, w.Sq, w.fS0, w.Sf
    K[:, :] = 0.0
    X[:, :] = 0.0
    for i in range(n):
        for j in range(n):
            K[i, j] = A[i, j]
        for a in range(3):
            K[i, n + a] = -G[a, i]
            K[n + a, i] = G[a, i]
        X[i, 0] = e[i] + (tau0 if i == 0 else 0.0)
        X[i, 1 + i] = -1.0
    for a in range(3):
        X[n + a, 0] = c[a] - 2.0 * alpha * Phid[a] - beta**2 * Phi[a]
    if _lu_factor(K, w.piv):
        return ST_K_SINGULAR
    _lu_solve_columns(K, w.piv, X)
    for i in range(n):
        qdd0[i] = X[i, 0]
        for k in range(n):
            Sq[i, k] = X[i, 1 + k]
    for a in range(3):
        fS0[a] = X[n + a, 0]
        for k in range(n):
            Sf[a, k] = X[n + a, 1 + k]
    return OK

@njit
def _solve_minimal(tau0, fpar, ipar, w):
    """The minimal form (loop.CutJointLoop.solve_minimal): qd = V qd1, qdd = V qdd1 + w with
    V = [I; J2^-1 J1], w = [0; -J2^-1 c], V^T A V qdd1 = V^T (e + tau - A w), and f_S = J2^-T times
    chain 2's rows of eq. (2), e2 + tau2 - A2 qdd2; as the affine map of the friction torques."""
    n1, n = ipar[I_N1], ipar[I_N1] + ipar[I_N2]
    if _j2_inverse(ipar, w):
        return ST_J2_SINGULAR
    V, J2inv, A, G, c, e = w.V, w.J2inv, w.A, w.G, w.c, w.e
    V[:, :] = 0.0
    for i in range(n1):
        V[i, i] = 1.0
    for a in range(3):
        for i in range(n1):
            s = 0.0
            for b in range(3):
                s += J2inv[a, b] * G[b, i]
            V[n1 + a, i] = s
    wv = np.zeros(n)
    for a in range(3):
        s = 0.0
        for b in range(3):
            s += J2inv[a, b] * c[b]
        wv[n1 + a] = -s
    Mr = np.empty((n1, n1))  # V^T A V
    AV = np.empty((n, n1))
    for i in range(n):
        for j in range(n1):
            s = 0.0
            for k in range(n):
                s += A[i, k] * V[k, j]
            AV[i, j] = s
    for i in range(n1):
        for j in range(n1):
            s = 0.0
            for k in range(n):
                s += V[k, i] * AV[k, j]
            Mr[i, j] = s
    piv = np.empty(n1, dtype=np.int64)
    if _lu_factor(Mr, piv):
        return ST_REDUCED_SINGULAR
    # right-hand sides: column 0 the applied case, column 1 + k a unit friction torque on joint k
    force = np.zeros((n, n + 1))
    for i in range(n):
        s = 0.0
        for k in range(n):
            s += A[i, k] * wv[k]
        force[i, 0] = e[i] + (tau0 if i == 0 else 0.0) - s
        force[i, 1 + i] = -1.0
    Y = np.empty((n1, n + 1))
    for i in range(n1):
        for r in range(n + 1):
            s = 0.0
            for k in range(n):
                s += V[k, i] * force[k, r]
            Y[i, r] = s
    _lu_solve_columns(Mr, piv, Y)
    qdd = np.empty((n, n + 1))
    for i in range(n):
        for r in range(n + 1):
            s = 0.0
            for j in range(n1):
                s += V[i, j] * Y[j, r]
            qdd[i, r] = s + (wv[i] if r == 0 else 0.0)
    res = np.empty((3, n + 1))  # chain 2 rows of eq. (2): A2 qdd2 + J2^T f_S = e2 + tau2
    for a in range(3):
        i = n1 + a
        for r in range(n + 1):
            s = 0.0
            for k in range(n):
                s += A[i, k] * qdd[k, r]
            if r == 0:
                res[a, r] = e[i] + (tau0 if i == 0 else 0.0) - s
            else:
                res[a, r] = (-1.0 if i == r - 1 else 0.0) - s
    for i in range(n):
        w.qdd0[i] = qdd[i, 0]
        for k in range(n):
            w.Sq[i, k] = qdd[i, 1 + k]
    for a in range(3):
        for r in range(n + 1):
            s = 0.0
            for b in range(3):
                s += J2inv[b, a] * res[b, r]
            if r == 0:
                w.fS0[a] = s
            else:
                w.Sf[a, r - 1] = s
    return OK


@njit
def _assemble(y, fpar, ipar, w, q):
    """q (n,) closing the loop with q1 = y[:n1] fixed, by Newton on chain 2's coordinates from y[n1:n]
    (loop.CutJointLoop.assemble)."""
    n1, n = ipar[I_N1], ipar[I_N1] + ipar[I_N2]
    q[:] = y[:n]
    for _ in range(ASSEMBLE_MAX_ITERATIONS):
        _closure_terms(q, fpar, ipar, w)
        if max(abs(w.Phi[0]), abs(w.Phi[1]), abs(w.Phi[2])) <= ASSEMBLE_TOL:
            return OK
        if _j2_inverse(ipar, w):
            return ST_J2_SINGULAR
        for a in range(3):  # dPhi/dq2 = -J2
            q[n1 + a] -= -(w.J2inv[a, 0] * w.Phi[0] + w.J2inv[a, 1] * w.Phi[1] + w.J2inv[a, 2] * w.Phi[2])
    return ST_NOT_CLOSED


@njit
def _dependent_velocities(q, qd1, fpar, ipar, w, qd):
    """qd (n,) = [qd1, J2^-1 J1 qd1] at q (loop.CutJointLoop.dependent_velocities)."""
    n1 = ipar[I_N1]
    _closure_terms(q, fpar, ipar, w)
    if _j2_inverse(ipar, w):
        return ST_J2_SINGULAR
    for i in range(n1):
        qd[i] = qd1[i]
    for a in range(3):
        s = 0.0
        for i in range(n1):
            v = 0.0
            for b in range(3):
                v += w.J2inv[a, b] * w.G[b, i]
            s += v * qd1[i]
        qd[n1 + a] = s
    return OK


@njit
def _coordinates(y, fpar, ipar, w, q, qd):
    """(q, qd) of the state y (RSRRRSystem._coordinates): y itself in the cut form; chain 2 assembled
    and its rates the dependent ones in the minimal form."""
    n = ipar[I_N1] + ipar[I_N2]
    if ipar[I_FORM] == FORM_MINIMAL:
        st = _assemble(y, fpar, ipar, w, q)
        if st:
            return st
        return _dependent_velocities(q, y[n : n + ipar[I_N1]], fpar, ipar, w, qd)
    q[:] = y[:n]
    qd[:] = y[n : 2 * n]
    return OK


# ======================================================================================================
# Reactions (eqs 3.1-3.8) and journal friction (eqs 4-7)
# ======================================================================================================

@njit
def _newton_euler(qd, qdd, f_tip, gravity, fpar, ipar, ch, Rg, rO, Rtip, motion, f_O, n_O):
    """f_O, n_O (n, 3) of chain ch in its joint frames by recursive Newton-Euler (seed 002 eqs 3.1-3.8,
    reactions.newton_euler), with the cut force f_tip (global axes) on the last link at S. Rg, rO,
    Rtip: the joint geometry (_ne_geometry); motion (n, 9) scratch: omega, omegad, vd of each link.
    gravity 1.0, or 0.0 (with qd = 0): the part linear in qdd and f_tip, a column of the affine map
    (a float, not a bool: numba would compile a copy for each literal bool)."""
    first, n = _chain_range(ipar, ch)
    po = ipar[I_PARENTS] + first
    zero = (0.0, 0.0, 0.0)
    co = _chain(ipar, ch)
    for p in range(n):  # outward, eqs 3.1-3.6
        k, i = first + p, ipar[po + p]
        if i < 0:  # the base: at rest, gravity as its acceleration vd_0 = -R_base^T g
            om, omd, vd = zero, zero, _scale(gravity, _vec3(fpar, co + CH_VD0))
        else:
            om = (motion[i, 0], motion[i, 1], motion[i, 2])
            omd = (motion[i, 3], motion[i, 4], motion[i, 5])
            vd = (motion[i, 6], motion[i, 7], motion[i, 8])
        r = _row3(rO, k)
        z = (0.0, 0.0, qd[p])
        vd = _rot3_t(Rg, k, _add(_add(_cross(omd, r), _cross(om, _cross(om, r))), vd))  # (3.3)
        om_prev = _rot3_t(Rg, k, om)
        omd = _add(_add(_rot3_t(Rg, k, omd), _cross(om_prev, z)), (0.0, 0.0, qdd[p]))  # (3.2), Craig's form
        om = _add(om_prev, z)  # (3.1)
        for a in range(3):
            motion[p, a], motion[p, 3 + a], motion[p, 6 + a] = om[a], omd[a], vd[a]
        lo = _link(ipar, k)
        c = _vec3(fpar, lo + L_CJ)
        vd_C = _add(_add(_cross(omd, c), _cross(om, _cross(om, c))), vd)  # (3.4)
        F = _scale(fpar[lo + L_M], vd_C)  # (3.5)
        N = _add(_frot(fpar, lo + L_IJ, 3, omd), _cross(om, _frot(fpar, lo + L_IJ, 3, om)))  # (3.6)
        _put3(f_O, p, F)
        _put3(n_O, p, _add(N, _cross(c, F)))
    # the tip force acting like a child's -f at the point S
    f_loc = _scale(-1.0, _rot3_t(Rtip, ch, f_tip))
    tip = _vec3(fpar, co + CH_TIP)
    _put3(f_O, n - 1, _add(_row3(f_O, n - 1), f_loc))
    _put3(n_O, n - 1, _add(_row3(n_O, n - 1), _cross(tip, f_loc)))
    for p in range(n - 1, -1, -1):  # inward, eqs 3.7-3.8: each link passes its reaction to its parent
        i = ipar[po + p]
        if i >= 0:
            f_child = _rot3(Rg, first + p, _row3(f_O, p))
            _put3(f_O, i, _add(_row3(f_O, i), f_child))  # (3.7)
            n_child = _add(_rot3(Rg, first + p, _row3(n_O, p)), _cross(_row3(rO, first + p), f_child))
            _put3(n_O, i, _add(_row3(n_O, i), n_child))  # (3.8)


@njit
def _reaction_map(qd, fpar, ipar, w):
    """The reactions as affine functions of the friction torques: fO0, nO0 of (qdd0, fS0) and the
    columns SfO[k], SnO[k] of (Sq[:, k], Sf[:, k]) (RSRRR.reactions: f_S on chain 1, -f_S on chain 2)."""
    n = ipar[I_N1] + ipar[I_N2]
    zero = np.zeros(n)
    col = np.empty(n)
    Rg, rO, Rtip, motion, Sq, Sf, fS0, SfO, SnO = w.Rg, w.rO, w.Rtip, w.motion, w.Sq, w.Sf, w.fS0, w.SfO, w.SnO
    for ch in range(2):
        first, nc = _chain_range(ipar, ch)
        sgn = 1.0 if ch == 0 else -1.0
        f0 = (sgn * fS0[0], sgn * fS0[1], sgn * fS0[2])
        _newton_euler(qd[first : first + nc], w.qdd0[first : first + nc], f0, 1.0, fpar, ipar, ch, Rg, rO,
                      Rtip, motion, w.fO0[first : first + nc], w.nO0[first : first + nc])
        for k in range(n):
            for i in range(n):
                col[i] = Sq[i, k]
            fk = (sgn * Sf[0, k], sgn * Sf[1, k], sgn * Sf[2, k])
            _newton_euler(zero[first : first + nc], col[first : first + nc], fk, 0.0, fpar, ipar, ch, Rg, rO,
                          Rtip, motion, SfO[k, first : first + nc], SnO[k, first : first + nc])

@njit
def _at(t_f, fO0, nO0, SfO, SnO, fO, nO):
    """f_O, n_O at the friction torques t_f, from the affine map."""
    n = t_f.size
    for j in range(n):
        for a in range(3):
            sf, sn = fO0[j, a], nO0[j, a]
            for k in range(n):
                sf += SfO[k, j, a] * t_f[k]
                sn += SnO[k, j, a] * t_f[k]
            fO[j, a], nO[j, a] = sf, sn

@njit
def _at_motion(t_f, qdd0, fS0, Sq, Sf, qdd, fS):
    """qdd, f_S at the friction torques t_f, from the affine map."""
    n = t_f.size
    for i in range(n):
        s = qdd0[i]
        for k in range(n):
            s += Sq[i, k] * t_f[k]
        qdd[i] = s
    for a in range(3):
        s = fS0[a]
        for k in range(n):
            s += Sf[a, k] * t_f[k]
        fS[a] = s

@njit
def _full_torque(fpar, ipar, j, f_O, n_O):
    """t_0 (N.m) of joint j at the full friction levels mu_a0: eqs 4, 5.1-5.3 with the surface loads
    of eqs 6.1-6.2 (journal._full_torque)."""
    o = ipar[I_F_JOURNALS] + j * JOURNAL_WIDTH
    a_bar, d_A, d_B, d_C = fpar[o + J_A_BAR], fpar[o + J_D_A], fpar[o + J_D_B], fpar[o + J_D_C]
    f_nx, f_ny = n_O[j, 0] / a_bar, n_O[j, 1] / a_bar
    xA, yA = 0.5 * f_O[j, 0] - f_ny, 0.5 * f_O[j, 1] + f_nx
    xB, yB = 0.5 * f_O[j, 0] + f_ny, 0.5 * f_O[j, 1] - f_nx
    F_A = math.sqrt(xA * xA + yA * yA)  # (6.1); np.hypot in Python: the same to rounding, 5x faster here
    F_B = math.sqrt(xB * xB + yB * yB)  # (6.2)
    F_z = abs(f_O[j, 2])
    face = (d_C * d_C + d_C * d_A + d_A * d_A) / (3.0 * (d_C + d_A))  # (5.3), 0/0-free form
    return (0.5 * fpar[o + J_MU_A] * F_A * d_A + 0.5 * fpar[o + J_MU_B] * F_B * d_B
            + fpar[o + J_MU_C] * F_z * face)  # (4), (5.1), (5.2)


@njit
def _characteristic(fpar, ipar, j, psid):
    """sgn(psid) (1 - exp(-k |psid| / psid_k)): eq. (7) divided by mu_a0."""
    o = ipar[I_F_JOURNALS] + j * JOURNAL_WIDTH
    return _sign(psid) * -math.expm1(-fpar[o + J_K] * abs(psid) / fpar[o + J_PSID_K])


# ======================================================================================================
# The state of motion: turning (RSRRR.dynamics) and held (RSRRRSystem.holding)
# ======================================================================================================

@njit
def _dynamics(q, qd, applied, fpar, ipar, w):
    """(status, iterations): qdd, f_S, f_O, n_O and t_f at (q, qd) with the net torque ``applied`` on the
    driving link, the reaction-friction coupling iterated on its affine map (RSRRR.dynamics)."""
    n = ipar[I_N1] + ipar[I_N2]
    st = _mechanics(q, qd, fpar, ipar, w)
    if st:
        return st, 0
    st = _solve_minimal(applied, fpar, ipar, w) if ipar[I_FORM] == FORM_MINIMAL else _solve_cut(applied, fpar, ipar, w)
    if st:
        return st, 0
    _reaction_map(qd, fpar, ipar, w)
    tol = fpar[ipar[I_F_LOOP] + LOOP_COUPLING_TOL]
    limit = ipar[I_MAX_COUPLING]
    friction = ipar[I_FRICTION] != 0
    t_f, new, chi, fO, nO = w.tf, w.new, w.limits, w.fO, w.nO
    fO0, nO0, SfO, SnO = w.fO0, w.nO0, w.SfO, w.SnO
    for j in range(n):  # eq. (7) at the joint velocities, divided by mu_a0
        chi[j] = _characteristic(fpar, ipar, j, qd[j])
    t_f[:] = 0.0  # the first pass is frictionless
    change, biggest, it = 0.0, 0.0, 0
    for it in range(1, limit + 1):
        if friction:
            _at(t_f, fO0, nO0, SfO, SnO, fO, nO)
            for j in range(n):  # eqs 4-7
                new[j] = chi[j] * _full_torque(fpar, ipar, j, fO, nO)
        else:
            new[:] = 0.0
        change, biggest = 0.0, 0.0
        for j in range(n):
            change = max(change, abs(new[j] - t_f[j]))
            biggest = max(biggest, abs(new[j]))
        if change <= tol * (1.0 + biggest) or it == limit:
            break
        t_f[:] = new
    _at(t_f, fO0, nO0, SfO, SnO, fO, nO)
    _at_motion(t_f, w.qdd0, w.fS0, w.Sq, w.Sf, w.qdd, w.fS)
    if not change <= tol * (1.0 + biggest):
        return ST_COUPLING, it
    return OK, it


@njit
def _load(fpar, ipar, psid):
    """The SpeedLoad's resistance max(0, t_0 + c (psid - psid_0)) (N.m), 0 without a load."""
    if ipar[I_LOAD] == NO_LOAD:
        return 0.0
    o = ipar[I_F_LOAD]
    return max(0.0, fpar[o + LOAD_T0] + fpar[o + LOAD_C] * (psid - fpar[o + LOAD_PSID0]))


@njit
def _resistance(tau, fpar, ipar, psid):
    """RSRRRSystem.resistance: tau_res plus the load's (N.m)."""
    return tau[1] + _load(fpar, ipar, psid)


@njit
def _holding(tau, q, fpar, ipar, w):
    """(status, iterations, alpha) of the held state at rest at q (RSRRRSystem.holding): t_f are the
    holding torques alpha mu_s t_0 sgn(V Q), every joint at the same fraction alpha of its static
    limit, iterated with the reactions (on the affine map of the cut form's eq. 2 at qd = 0); qdd,
    f_S, f_O, n_O are those of the holding torques of the last pass but one, as in Python."""
    n = ipar[I_N1] + ipar[I_N2]
    zero = np.zeros(n)
    applied = tau[0] - _resistance(tau, fpar, ipar, 0.0)
    st = _mechanics(q, zero, fpar, ipar, w)
    if st:
        return st, 0, 0.0
    # _rest_terms: V = dq/dpsi11 and Q = V^T (e + applied)
    if _j2_inverse(ipar, w):
        return ST_J2_SINGULAR, 0, 0.0
    n1 = ipar[I_N1]
    V = np.empty(n)
    V[0] = 1.0
    for a in range(3):
        s = 0.0
        for b in range(3):
            s += w.J2inv[a, b] * w.G[b, 0]
        V[n1 + a] = s
    Q = 0.0
    for i in range(n):
        Q += V[i] * (w.e[i] + (applied if i == 0 else 0.0))
    st = _solve_cut(applied, fpar, ipar, w)
    if st:
        return st, 0, 0.0
    _reaction_map(zero, fpar, ipar, w)
    tol = fpar[ipar[I_F_LOOP] + LOOP_HOLD_TOL]
    t_hold, limits = w.tf, w.limits
    t_hold[:] = 0.0
    alpha, new_alpha = 0.0, 0.0
    for it in range(ipar[I_MAX_HOLD]):
        _at(t_hold, w.fO0, w.nO0, w.SfO, w.SnO, w.fO, w.nO)
        _at_motion(t_hold, w.qdd0, w.fS0, w.Sq, w.Sf, w.qdd, w.fS)
        capacity = 0.0
        for j in range(n):
            o = ipar[I_F_JOURNALS] + j * JOURNAL_WIDTH
            limits[j] = fpar[o + J_MU_S] * _full_torque(fpar, ipar, j, w.fO, w.nO)
            capacity += abs(V[j]) * limits[j]
        if capacity > 0:
            new_alpha = abs(Q) / capacity
        else:
            new_alpha = 0.0 if Q == 0 else np.inf
        share = min(new_alpha, 1.0)
        for j in range(n):
            t_hold[j] = share * limits[j] * _sign(V[j] * Q)
        if abs(new_alpha - alpha) <= tol * max(1.0, new_alpha) or not np.isfinite(new_alpha):
            return OK, it + 1, new_alpha
        alpha = new_alpha
    return ST_HOLDING, ipar[I_MAX_HOLD], new_alpha


@njit
def _state_of_motion(t, y, tau, fpar, ipar, direction, w, q, qd):
    """(status, iterations, alpha): RSRRRSystem.state_of_motion into q, qd and w (qdd, fS, fO, nO, tf)."""
    st = _coordinates(y, fpar, ipar, w, q, qd)
    if st:
        return st, 0, 0.0
    if direction == 0:
        qd[:] = 0.0
        return _holding(tau, q, fpar, ipar, w)
    applied = tau[0] - _resistance(tau, fpar, ipar, y[ipar[I_N1] + ipar[I_N2]])
    st, it = _dynamics(q, qd, applied, fpar, ipar, w)
    return st, it, np.nan


# ======================================================================================================
# Kernels
# ======================================================================================================

@njit(KERNEL, cache=True)
def rhs(t, y, tau, fpar, ipar, fmode, imode, dy):
    """dy/dt = [qd, qdd, drive power, resistance power, friction power] (RSRRRSystem.rhs)."""
    n = ipar[I_N1] + ipar[I_N2]
    if imode[0] == 0:  # stuck: nothing moves, no work is done
        dy[:] = 0.0
        return OK
    w = _work(ipar)
    q, qd = np.empty(n), np.empty(n)
    st, _, _ = _state_of_motion(t, y, tau, fpar, ipar, imode[0], w, q, qd)
    if st:
        return st
    resistance = _resistance(tau, fpar, ipar, y[n])
    applied = tau[0] - resistance
    friction_power = 0.0
    for j in range(n):
        dy[j] = qd[j]
        dy[n + j] = w.qdd[j]
        friction_power += -w.tf[j] * qd[j]
    dy[2 * n] = applied * qd[0]
    dy[2 * n + 1] = -resistance * qd[0]
    dy[2 * n + 2] = friction_power
    return OK


@njit(KERNEL, cache=True)
def events(t, y, tau, fpar, ipar, fmode, imode, g):
    """RSRRRSystem.events(mode): none without stiction; turning: 'stop' direction psid11; stuck:
    'breakaway' alpha - 1 of the holding torques."""
    if ipar[I_STICTION] == 0:
        return OK
    n = ipar[I_N1] + ipar[I_N2]
    if imode[0] != 0:
        g[0] = imode[0] * y[n]
        return OK
    w = _work(ipar)
    q, qd = np.empty(n), np.empty(n)
    st = _coordinates(y, fpar, ipar, w, q, qd)
    if st:
        return st
    st, _, alpha = _holding(tau, q, fpar, ipar, w)
    g[0] = alpha - 1.0
    return st


@njit
def _energy(q, qd, fpar, ipar, w):
    """(E_kin, E_pot) in J (dynamics.energy of both chains): qd^T A qd / 2 with the recursive A, and
    -sum m g . r_C."""
    n = ipar[I_N1] + ipar[I_N2]
    zero = np.zeros(n)
    w.A[:, :] = 0.0
    e_kin, e_pot = 0.0, 0.0
    for ch in range(2):
        first, nc = _chain_range(ipar, ch)
        _frames(q[first : first + nc], fpar, ipar, ch, w.T, w.M, w.R4)
        _recursive(zero[first : first + nc], fpar, ipar, ch, w.T, w.M, w.S, w.I6, w.comp, w.v6, w.a6, w.f6,
                   w.A, w.e)
        g = _vec3(fpar, _chain(ipar, ch) + CH_G)
        s = 0.0
        for i in range(first, first + nc):
            v = 0.0
            for j in range(first, first + nc):
                v += w.A[i, j] * qd[j]
            s += qd[i] * v
        e_kin += 0.5 * s
        pot = 0.0
        for k in range(first, first + nc):
            lo = _link(ipar, k)
            r_C = _add(_rot3(w.T, k, _vec3(fpar, lo + L_C)), _origin3(w.T, k))
            pot += fpar[lo + L_M] * _dot3(g, r_C)
        e_pot += -pot
    return e_kin, e_pot


@njit(KERNEL, cache=True)
def record(t, y, tau, fpar, ipar, fmode, imode, out):
    """The recorded quantities of RSRRRSystem.record, flat (record_layout)."""
    n = ipar[I_N1] + ipar[I_N2]
    w = _work(ipar)
    q, qd = np.empty(n), np.empty(n)
    st, iterations, _ = _state_of_motion(t, y, tau, fpar, ipar, imode[0], w, q, qd)
    if st:
        return st
    o = 0
    for block in (q, qd, w.qdd, w.fS):
        out[o : o + block.size] = block
        o += block.size
    for block in (w.fO, w.nO):
        for j in range(n):
            for a in range(3):
                out[o + 3 * j + a] = block[j, a]
        o += 3 * n
    out[o : o + n] = w.tf
    o += n
    out[o] = iterations
    out[o + 1] = 1.0 if imode[0] == 0 else 0.0
    out[o + 2] = tau[0]
    out[o + 3] = _resistance(tau, fpar, ipar, y[n])
    e_kin, e_pot = _energy(q, qd, fpar, ipar, w)
    out[o + 4], out[o + 5] = e_kin, e_pot
    out[o + 6], out[o + 7], out[o + 8] = y[2 * n], y[2 * n + 1], y[2 * n + 2]
    _closure_terms(q, fpar, ipar, w)
    out[o + 9] = max(abs(w.Phi[0]), abs(w.Phi[1]), abs(w.Phi[2]))
    return OK
