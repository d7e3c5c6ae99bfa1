"""Compiled kernels of the planar engine: ``hybrid.mechanism.MechanismSystem`` (the minimal form of
seed 000 Sect. 4-5 with exact stick-slip per frictional contact) with the protocol of
``signatures.KERNEL``. The Python engine (``planar.model``, ``planar.joints``, ``planar.tree``,
``planar.minimal``, ``planar.coupling``, ``friction.laws``, ``hybrid.mechanism``) is the reference:
the kernels re-implement the same equations in the same order, on the model packed into arrays.

Supported: joints Revolute, Prismatic (with or without ``edge_length``) and PinInSlot; laws
Coulomb, Stribeck, Exponential and Tanh, or none (a frictionless free coordinate); any tree and
partition of ``MinimalForm``; every mode of ``MechanismSystem`` (slip, stuck with independent
locked rows, frozen, shared stiction) and the single mode of ``RegularisedSystem`` (friction
directions sgn(sd), no events). ``pack`` returns None for anything else (another joint or law
class): the Python engine runs it.

Model arrays (``pack``; every offset is in the ipar header, named I_*):

ipar header: I_N n = 3b, I_M m, I_L l, I_K1 k1, I_K k, I_M2 m2, I_NB b, I_NJ joints, I_ND drives,
    I_NC contacts; then offsets into ipar (I_JOINTS, I_TREE, I_ROWS1, I_ROWS2, I_CONTACTS, I_LAWS,
    I_XQ, I_XO, I_WORK, I_IWORK), the workspace size (I_WORK_ROWS, I_IWORK_ROWS, I_WIDTH)
    and into fpar (I_F_MASS, I_F_HEXT, I_F_H, I_F_GRAV, I_F_BODY_MASS, I_F_LIP, I_F_JOINTS, I_F_LAWS).
ipar blocks: joints (JI_WIDTH each: type, body_i, body_j, first row of z, n_z, first index of s,
    n_s, has edge_length); tree (k1 x 2: joint index, axis 0 x / 1 y / 2 theta); rows1 (n - k1 rows
    of C in the tree); rows2 (m2 closing rows); contacts (indices of the frictional free
    coordinates); laws (l law kinds, NO_LAW ... TANH); xq (k1 indices of x that are q, tree order);
    xo (the other n - k1 indices of x); the workspace tables (I_WORK, I_IWORK, below).
fpar blocks: diag(M) (n); h_ext (n); H (n x n_drives, row-major); gravity (2); body masses (b);
    Lipschitz constants of f_mu (l); joints (JF_WIDTH each: p_i, p_j, e_j, theta_0, r,
    edge_length); laws (LAW_WIDTH per free coordinate: mu_s, then Coulomb mu_k | Stribeck mu_k, v_s,
    delta | Exponential mu_0, k, v_k | Tanh mu_k, v_eps).

Mode arrays (``encode_mode``): imode = [n_stuck, n_lock, directions from sgn(sd) (RegularisedSystem),
partition (k), dependent indices v (m2), stuck contacts (l, the first n_stuck used), pivot columns of
the lock rows then the others (k, as in ``lock_velocity``), stuck flag per free coordinate (l)];
fmode = [direction (l), lock rows (k x k, the first n_lock rows used)].

Record (``record_layout``): q, u, qd, qdd, udot, f, f_mu, sd, tau, stuck, stuck_contacts, E_kin,
E_pot, W_drive, W_friction, flat in this order.

Workspace: each kernel call allocates one float and one int matrix (WORK_FIELDS, IWORK_FIELDS, their
layout in ipar); the helpers work in views of them and are compiled without numba's runtime (no
reference counting, no allocation). Linear algebra at these sizes (3-12) is written out: LU with
partial pivoting, Cholesky, the one-sided Jacobi method for the singular values that decide
kappa < 1 and cond(V). Where the Python engine solves an n x n or m x m system, the kernels solve
an equivalent smaller one: [C1; S] on the coordinates of x that q does not give (n - k1), and the
Newton step (I - B J)^-1 R = R + B (I - J B)^-1 J R (l x l); the results agree to rounding.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from numba import njit

from .dense import _lu_factor, _lu_solve, _lu_solve_columns, _sign, jit
from .model import CompiledModel
from .signatures import KERNEL

#: small accessors inlined into the helpers (their views then belong to the caller)
inline = njit(inline="always")

# --- constants of the Python engine (the same values) ---------------------------------------------
COUPLED_MAX_ITERATIONS = 50  # planar.coupling.MAX_ITERATIONS
COUPLED_TOLERANCE = 1e-14  # planar.coupling.TOLERANCE
MAX_CONDITION_V = 1e12  # planar.minimal._D2: cond(V) beyond which the configuration is singular
MAX_BOUND_ITERATIONS = 50  # hybrid.mechanism.MAX_BOUND_ITERATIONS (secant of _shared_holding)

# --- codes ------------------------------------------------------------------------------------------
REVOLUTE, PRISMATIC, PIN_IN_SLOT = 0, 1, 2
NO_LAW, COULOMB, STRIBECK, EXPONENTIAL, TANH = 0, 1, 2, 3, 4

OK = 0
ST_GUIDE_AXIS, ST_TREE_SINGULAR, ST_V_SINGULAR, ST_M2_NOT_PD, ST_CCT_SINGULAR = 1, 2, 3, 4, 5
ST_NO_CONVERGENCE, ST_INCONSISTENT, ST_INDETERMINATE, ST_HOLDING_SINGULAR, ST_LOCK_SINGULAR = 6, 7, 8, 9, 10
ST_SHARED_NO_SETTLE = 11
ERRORS = {
    ST_GUIDE_AXIS: "a prismatic tree joint cannot use its coordinate: the guide is perpendicular to it",
    ST_TREE_SINGULAR: "the tree map [C1; S] is singular",
    ST_V_SINGULAR: "V is singular for the partition (a dead-centre configuration)",
    ST_M2_NOT_PD: "the reduced mass matrix M'' is not positive definite",
    ST_CCT_SINGULAR: "C C^T is singular (dependent constraint rows)",
    ST_NO_CONVERGENCE: "reaction-friction iteration did not converge",
    ST_INCONSISTENT: "the reaction-friction equations have no solution (Painleve inconsistency)",
    ST_INDETERMINATE: "the reaction-friction equations have several solutions (Painleve indeterminacy)",
    ST_HOLDING_SINGULAR: "the holding friction of the stuck contacts is singular (W = P[:, S])",
    ST_LOCK_SINGULAR: "the locked rows are singular on their pivot columns",
    ST_SHARED_NO_SETTLE: "the shared holding friction does not settle",
}

# --- ipar header ------------------------------------------------------------------------------------
(I_N, I_M, I_L, I_K1, I_K, I_M2, I_NB, I_NJ, I_ND, I_NC,
 I_JOINTS, I_TREE, I_ROWS1, I_ROWS2, I_CONTACTS, I_LAWS, I_XQ, I_XO, I_WORK, I_IWORK,
 I_F_MASS, I_F_HEXT, I_F_H, I_F_GRAV, I_F_BODY_MASS, I_F_LIP, I_F_JOINTS, I_F_LAWS,
 I_WORK_ROWS, I_IWORK_ROWS, I_WIDTH) = range(31)
HEADER = 31
# per joint in ipar
JI_TYPE, JI_BODY_I, JI_BODY_J, JI_Z, JI_NZ, JI_S, JI_NS, JI_EDGE = range(8)
JI_WIDTH = 8
# per joint in fpar
JF_PI, JF_PJ, JF_EJ, JF_THETA0, JF_R, JF_EDGE = 0, 2, 4, 6, 7, 8
JF_WIDTH = 9
LAW_WIDTH = 4  # mu_s and three parameters
# imode header
IM_NSTUCK, IM_NLOCK, IM_SIGN = 0, 1, 2
IM_HEADER = 3

# --- the workspace of one kernel call ------------------------------------------------------------------
# One float and one int matrix (``work``, ``iwork``) of I_WIDTH columns, allocated once per kernel
# call; every field below is a block of their rows (a vector: one row), (first row, rows, cols) of
# each in the ipar blocks I_WORK and I_IWORK (``_vec``, ``_mat``, ``_ivec``). Shapes in the sizes
# n, m, l, k1, k, m2 of the model, n1 = n - k1, ms = max(m, m2), ls = max(l, m2).
WORK_FIELDS = (
    # the minimal form at (q, u, tau) (MinimalForm.kinematics, linear_terms): x, xdot, qdot, C, C_mu,
    # xi, D1, D2, nu2, D = D1 D2, gamma, sd, h, the Cholesky factor of M'', h'', Cpp, f0, B
    ("x", "n"), ("xd", "n"), ("qd", "k1"), ("C", "m n"), ("Cmu", "l n"), ("xi", "m"), ("D1", "n k1"),
    ("D2", "k1 k"), ("nu2", "k1"), ("D", "n k"), ("gamma", "n"), ("sd", "l"), ("h", "n"), ("L2", "k k"),
    ("h2", "k"), ("Cpp", "l k"), ("f0", "m"), ("B", "m l"),
    # their scratch: A = C1 on the coordinates of x that q does not give (n1 = n - k1) and its LU,
    # V and its LU, C2', U, D1dot qdot, xi2', M''^-1 h'', M''^-1 Cpp^T, w, W and C C^T of
    # f0 = (C C^T)^-1 C w, B = (C C^T)^-1 C W
    ("A", "n1 n1"), ("V", "m2 m2"), ("C2p", "m2 k1"), ("U", "m2 k"), ("D1dq", "n"), ("xi2p", "m2"),
    ("y0", "k"), ("Y", "k l"), ("wv", "n"), ("Wm", "n l"), ("CCt", "m m"),
    # an evaluation: f, f_mu, udot; friction directions (the mode's with the stuck contacts off, the
    # base and trial directions of the Sect. 5 test, the scaled ones), static limits, ones
    ("f", "m"), ("f_mu", "l"), ("udot", "k"), ("direction", "l"), ("base", "l"), ("trial", "l"),
    ("scaled", "l"), ("limits", "l"), ("ones", "l"),
    # the Newton iteration and the sign-pattern search
    ("J", "l m"), ("J2", "l m"), ("f2", "m"), ("fmu2", "l"), ("Bf", "m"), ("Bf2", "m"), ("R", "m"),
    ("R2", "m"), ("step", "m"), ("NA", "l l"), ("JR", "l"), ("start", "m"), ("root", "m"), ("root_mu", "l"),
    # the stuck elimination (r = |S| <= l rows used): P, W, b0, lambda, f0 and B with lambda eliminated
    ("P", "l l"), ("Wr", "l l"), ("b0", "l"), ("hold", "l"), ("f0s", "m"), ("Bs", "m l"),
    # singular values (kappa of the coupled solve, cond(V)): the matrix rotated, its column norms
    ("SV", "ms ls"), ("sv", "ls"),
)
IWORK_FIELDS = (  # pivots of A, V, the Newton matrix, W, the lock rows; static flags
    ("piv", "n1"), ("vpiv", "m2"), ("npiv", "l"), ("wpiv", "l"), ("lpiv", "k"), ("static", "l"),
    ("all_static", "l"),
)
(W_X, W_XD, W_QD, W_C, W_CMU, W_XI, W_D1, W_D2, W_NU2, W_D, W_GAMMA, W_SD, W_H, W_L2, W_H2, W_CPP, W_F0, W_B,
 W_A, W_V, W_C2P, W_U, W_D1DQ, W_XI2P, W_Y0, W_Y, W_WV, W_WM, W_CCT,
 W_F, W_FMU, W_UDOT, W_DIRECTION, W_BASE, W_TRIAL, W_SCALED, W_LIMITS, W_ONES,
 W_J, W_J2, W_F2, W_FMU2, W_BF, W_BF2, W_R, W_R2, W_STEP, W_NA, W_JR, W_START, W_ROOT, W_ROOTMU,
 W_P, W_WR, W_B0, W_HOLD, W_F0S, W_BS, W_SV, W_SVALUES) = range(len(WORK_FIELDS))
(WI_PIV, WI_VPIV, WI_NPIV, WI_WPIV, WI_LPIV, WI_STATIC, WI_ALL_STATIC) = range(len(IWORK_FIELDS))


# ======================================================================================================
# Packing (Python)
# ======================================================================================================

def _law_row(law):
    """(kind, [mu_s, a, b, c]) of a friction law, or None if its class is not compiled."""
    from ..friction.laws import Coulomb, Exponential, Stribeck, Tanh

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


def pack(model, minimal):
    """(fpar, ipar) of a PlanarModel and its MinimalForm (layout in the module docstring), or None
    if the model has a joint or friction law the kernels do not implement."""
    from ..planar.joints import PinInSlot, Prismatic, Revolute

    coords = minimal.coords
    b, n, m, l = len(model.bodies), model.n, model.m, model.l
    joint_i, joint_f, law_kinds, law_par = [], [], [], []
    for joint, zs, ss in zip(model.joints, model.z_slices, model.s_slices):
        kind = {Revolute: REVOLUTE, Prismatic: PRISMATIC, PinInSlot: PIN_IN_SLOT}.get(type(joint))
        if kind is None:
            return None
        edge = getattr(joint, "edge_length", None)
        joint_i.append([kind, joint.body_i, joint.body_j, zs.start, zs.stop - zs.start, ss.start,
                        ss.stop - ss.start, int(edge is not None)])
        e_j = getattr(joint, "e_j", (1.0, 0.0))
        joint_f.append([*joint.p_i, *joint.p_j, *e_j, getattr(joint, "theta_0", 0.0), getattr(joint, "r", 0.0),
                        0.0 if edge is None else edge])
        for law in joint.friction_laws():
            row = _law_row(law)
            if row is None:
                return None
            law_kinds.append(row[0])
            law_par.append(row[1])
    contacts = np.flatnonzero(model.frictional)
    tree = [[t, axis] for t, axis in zip(coords.tree, coords.axes)]

    iblocks = [("joints", np.array(joint_i, dtype=np.int64).ravel()),
               ("tree", np.array(tree, dtype=np.int64).ravel()),
               ("rows1", np.asarray(coords.rows1, dtype=np.int64)),
               ("rows2", np.asarray(coords.rows2, dtype=np.int64)),
               ("contacts", contacts.astype(np.int64)),
               ("laws", np.array(law_kinds, dtype=np.int64)),
               ("xq", np.asarray(coords.q_index, dtype=np.int64)),
               ("xo", np.array([i for i in range(n) if i not in set(coords.q_index.tolist())], dtype=np.int64))]
    fblocks = [("mass", np.diag(model.M)), ("hext", model.h_ext), ("H", model.H.ravel()),
               ("grav", model.gravity), ("body_mass", model.masses), ("lip", model.lipschitz),
               ("joints", np.array(joint_f, dtype=float).ravel()),
               ("laws", np.array(law_par, dtype=float).ravel())]
    sizes = dict(n=n, m=m, l=l, k1=minimal.k1, k=minimal.k, m2=minimal.m2, n1=n - minimal.k1,
                 ms=max(m, minimal.m2), ls=max(l, minimal.m2))
    work, work_rows = _workspace_layout(WORK_FIELDS, sizes)
    iwork, iwork_rows = _workspace_layout(IWORK_FIELDS, sizes)
    iblocks += [("work", work), ("iwork", iwork)]
    header = np.zeros(HEADER, dtype=np.int64)
    header[[I_N, I_M, I_L, I_K1, I_K, I_M2, I_NB, I_NJ, I_ND, I_NC, I_WORK_ROWS, I_IWORK_ROWS, I_WIDTH]] = (
        n, m, l, minimal.k1, minimal.k, minimal.m2, b, len(model.joints), model.n_drives, len(contacts),
        work_rows, iwork_rows, max(sizes.values()))
    offset = HEADER
    for slot, (_, block) in zip((I_JOINTS, I_TREE, I_ROWS1, I_ROWS2, I_CONTACTS, I_LAWS, I_XQ, I_XO, I_WORK,
                                 I_IWORK), iblocks):
        header[slot] = offset
        offset += block.size
    ipar = np.concatenate([header] + [blk for _, blk in iblocks]).astype(np.int64)
    offset = 0
    for slot, (_, block) in zip((I_F_MASS, I_F_HEXT, I_F_H, I_F_GRAV, I_F_BODY_MASS, I_F_LIP, I_F_JOINTS,
                                 I_F_LAWS), fblocks):
        ipar[slot] = offset
        offset += block.size
    fpar = np.concatenate([np.asarray(blk, dtype=float).ravel() for _, blk in fblocks])
    return np.ascontiguousarray(fpar), np.ascontiguousarray(ipar)


def _workspace_layout(fields, sizes):
    """(first row, rows, cols) of each field (a vector is one row), flat, and the number of rows."""
    table, row = [], 0
    for _, shape in fields:
        dims = [sizes[d] for d in shape.split()]
        rows, cols = (1, dims[0]) if len(dims) == 1 else dims
        table += [row, rows, cols]
        row += rows
    return np.array(table, dtype=np.int64), row


def record_layout(model, minimal):
    """[(key, size, kind)] of the flat record; kind 'array', 'bools' (a bool array), 'bool', 'float' (a
    Python float) or 'float64' (a numpy scalar), as MechanismSystem.record returns them."""
    k1, k, m, l = minimal.k1, minimal.k, model.m, model.l
    return [("q", k1, "array"), ("u", k, "array"), ("qd", k1, "array"), ("qdd", k1, "array"),
            ("udot", k, "array"), ("f", m, "array"), ("f_mu", l, "array"), ("sd", l, "array"),
            ("tau", model.n_drives, "array"), ("stuck", 1, "bool"), ("stuck_contacts", l, "bools"),
            ("E_kin", 1, "float"), ("E_pot", 1, "float"), ("W_drive", 1, "float64"), ("W_friction", 1, "float64")]


def encode_mode(model, minimal, mode):
    """(fmode, imode) of a hybrid.mechanism.Mode (layout in the module docstring)."""
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


def decode_record(layout, out):
    """The record dict (as MechanismSystem.record returns it) of the flat record ``out`` (n_record,).
    Its arrays are views of ``out``: a caller that keeps the dict gives every record a fresh ``out``."""
    rec, o = {}, 0
    for key, size, kind in layout:
        if kind == "array":
            rec[key] = out[o : o + size]
        elif kind == "bools":
            rec[key] = out[o : o + size].astype(bool)  # nonzero (NaN too): True
        elif kind == "bool":
            rec[key] = bool(out[o])
        elif kind == "float":
            rec[key] = float(out[o])
        else:
            rec[key] = out[o]
        o += size
    return rec


def compile_system(system):
    """The CompiledModel of a MechanismSystem, or None if its model is not supported."""
    packed = pack(system.model, system.minimal)
    if packed is None:
        return None
    fpar, ipar = packed
    n_record = sum(size for _, size, _ in record_layout(system.model, system.minimal))
    return CompiledModel(rhs, events, record, fpar, ipar, n_record, dict(ERRORS))


# ======================================================================================================
# Small dense linear algebra
# ======================================================================================================

@jit
def _cholesky(A):
    """Lower Cholesky factor of A in place (upper part untouched); returns 1 if A is not positive definite."""
    n = A.shape[0]
    for j in range(n):
        s = A[j, j]
        for c in range(j):
            s -= A[j, c] * A[j, c]
        if not s > 0.0:
            return 1
        d = np.sqrt(s)
        A[j, j] = d
        for i in range(j + 1, n):
            s = A[i, j]
            for c in range(j):
                s -= A[i, c] * A[j, c]
            A[i, j] = s / d
    return 0


@jit
def _cho_solve(L, b):
    """b = (L L^T)^-1 b in place."""
    n = L.shape[0]
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= L[i, j] * b[j]
        b[i] = s / L[i, i]
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= L[j, i] * b[j]
        b[i] = s / L[i, i]


@jit
def _cho_solve_columns(L, B):
    """B = (L L^T)^-1 B in place (every column)."""
    n, r = L.shape[0], B.shape[1]
    for c in range(r):
        for i in range(n):
            s = B[i, c]
            for j in range(i):
                s -= L[i, j] * B[j, c]
            B[i, c] = s / L[i, i]
        for i in range(n - 1, -1, -1):
            s = B[i, c]
            for j in range(i + 1, n):
                s -= L[j, i] * B[j, c]
            B[i, c] = s / L[i, i]


@jit
def _copy(dst, src):
    """dst[:] = src, element by element (a slice assignment may copy through a temporary)."""
    for i in range(dst.size):
        dst[i] = src[i]


@jit
def _norm(v):
    s = 0.0
    for i in range(v.size):
        s += v[i] * v[i]
    return np.sqrt(s)


@jit
def _dot(a, b):
    s = 0.0
    for i in range(a.size):
        s += a[i] * b[i]
    return s




@jit
def _singular_values(S, sv):
    """Singular values of S (rows x cols, overwritten) into sv (cols,), unsorted: the one-sided
    Jacobi method (Hestenes) rotates the columns of S until they are orthogonal; their norms are
    the singular values, each to a few ulps of itself."""
    rows, cols = S.shape
    for _ in range(60):
        rotated = False
        for p in range(cols - 1):
            for q in range(p + 1, cols):
                alpha, beta, gamma = 0.0, 0.0, 0.0
                for i in range(rows):
                    alpha += S[i, p] * S[i, p]
                    beta += S[i, q] * S[i, q]
                    gamma += S[i, p] * S[i, q]
                if gamma == 0.0 or abs(gamma) <= 1e-15 * np.sqrt(alpha * beta):
                    continue
                rotated = True
                zeta = (beta - alpha) / (2.0 * gamma)
                if abs(zeta) > 1e150:
                    t = 0.5 / zeta
                else:
                    t = (1.0 if zeta >= 0.0 else -1.0) / (abs(zeta) + np.sqrt(1.0 + zeta * zeta))
                c = 1.0 / np.sqrt(1.0 + t * t)
                s = c * t
                for i in range(rows):
                    sp, sq = S[i, p], S[i, q]
                    S[i, p] = c * sp - s * sq
                    S[i, q] = s * sp + c * sq
        if not rotated:
            break
    for j in range(cols):
        s = 0.0
        for i in range(rows):
            s += S[i, j] * S[i, j]
        sv[j] = np.sqrt(s)


@jit
def _cond2(V, S, sv):
    """2-norm condition number of the square V (np.linalg.cond): closed form up to 2 x 2, else from
    the singular values (S, sv: scratch of V's shape and size)."""
    n = V.shape[0]
    if n == 1:
        return 1.0 if V[0, 0] != 0.0 else np.inf
    if n == 2:
        a, b, c, d = V[0, 0], V[0, 1], V[1, 0], V[1, 1]
        det = abs(a * d - b * c)
        if det == 0.0:
            return np.inf
        S2 = a * a + b * b + c * c + d * d
        root = np.sqrt(max(S2 * S2 - 4.0 * det * det, 0.0))
        # sigma_max^2 = (S2 + root) / 2 and sigma_min^2 = 2 det^2 / (S2 + root)
        return (S2 + root) / (2.0 * det)
    for i in range(n):
        for j in range(n):
            S[i, j] = V[i, j]
    _singular_values(S, sv)
    big, small = 0.0, np.inf
    for j in range(n):
        big, small = max(big, sv[j]), min(small, sv[j])
    return big / small if small > 0.0 else np.inf


# ======================================================================================================
# Joints (planar.joints, seed 000 Sect. 2) and the tree (planar.tree, seed 000 Sect. 4)
# ======================================================================================================

@jit
def _pose(x, body):
    """(rx, ry, theta) of ``body`` in x (the ground, body 0, at the origin)."""
    if body == 0:
        return 0.0, 0.0, 0.0
    k = 3 * (body - 1)
    return x[k], x[k + 1], x[k + 2]


@jit
def _rotate(theta, px, py):
    """R(theta) p."""
    c, s = np.cos(theta), np.sin(theta)
    return c * px - s * py, s * px + c * py


@jit
def _place(q, fpar, ipar, x):
    """x = g(q) (seed 000 eq. 4.2; tree.JointCoordinates.g): place the bodies joint by joint."""
    x[:] = 0.0
    for t in range(ipar[I_K1]):
        jt = ipar[ipar[I_TREE] + 2 * t]
        axis = ipar[ipar[I_TREE] + 2 * t + 1]
        ji = ipar[I_JOINTS] + JI_WIDTH * jt
        jf = ipar[I_F_JOINTS] + JF_WIDTH * jt
        bi, bj = ipar[ji + JI_BODY_I], ipar[ji + JI_BODY_J]
        rjx, rjy, thj = _pose(x, bj)
        pjx, pjy = _rotate(thj, fpar[jf + JF_PJ], fpar[jf + JF_PJ + 1])
        if ipar[ji + JI_TYPE] == REVOLUTE:  # q = theta_i, the absolute angle (seed 000 (6.4))
            thi = q[t]
            pix, piy = _rotate(thi, fpar[jf + JF_PI], fpar[jf + JF_PI + 1])
            rix, riy = rjx + pjx - pix, rjy + pjy - piy
        else:  # prismatic: q = x or y of r_i
            thi = thj + fpar[jf + JF_THETA0]
            ex, ey = _rotate(thj, fpar[jf + JF_EJ], fpar[jf + JF_EJ + 1])
            e_axis = ex if axis == 0 else ey
            if abs(e_axis) < 1e-12:
                return ST_GUIDE_AXIS
            pix, piy = _rotate(thi, fpar[jf + JF_PI], fpar[jf + JF_PI + 1])
            bx, by = rjx + pjx - pix, rjy + pjy - piy
            step = (q[t] - (bx if axis == 0 else by)) / e_axis
            rix, riy = bx + step * ex, by + step * ey
        k = 3 * (bi - 1)
        x[k], x[k + 1], x[k + 2] = rix, riy, thi
    return OK


@jit
def _jacobians(x, fpar, ipar, C, Cmu):
    """C = dPhi/dx (m, n) and C_mu = dPsi/dx (l, n) (model.constraints; seed 000 eqs 2.1-2.2)."""
    C[:, :] = 0.0
    Cmu[:, :] = 0.0
    for j in range(ipar[I_NJ]):
        ji = ipar[I_JOINTS] + JI_WIDTH * j
        jf = ipar[I_F_JOINTS] + JF_WIDTH * j
        typ, bi, bj = ipar[ji + JI_TYPE], ipar[ji + JI_BODY_I], ipar[ji + JI_BODY_J]
        z, s = ipar[ji + JI_Z], ipar[ji + JI_S]
        ci, cj = 3 * (bi - 1), 3 * (bj - 1)
        rix, riy, thi = _pose(x, bi)
        rjx, rjy, thj = _pose(x, bj)
        aix, aiy = _rotate(thi, fpar[jf + JF_PI], fpar[jf + JF_PI + 1])
        ajx, ajy = _rotate(thj, fpar[jf + JF_PJ], fpar[jf + JF_PJ + 1])
        if typ == REVOLUTE:  # z = d, s = theta_i - theta_j
            C[z, ci], C[z, ci + 2] = 1.0, -aiy
            C[z + 1, ci + 1], C[z + 1, ci + 2] = 1.0, aix
            Cmu[s, ci + 2] = 1.0
            if bj:
                C[z, cj], C[z, cj + 2] = -1.0, ajy
                C[z + 1, cj + 1], C[z + 1, cj + 2] = -1.0, -ajx
                Cmu[s, cj + 2] = -1.0
            continue
        # prismatic and pin-in-slot: normal row n . d and sliding row e . d, e = R_j e_j, n = perp(e)
        dx, dy = rix + aix - rjx - ajx, riy + aiy - rjy - ajy
        ex, ey = _rotate(thj, fpar[jf + JF_EJ], fpar[jf + JF_EJ + 1])
        nx, ny = -ey, ex
        C[z, ci], C[z, ci + 1], C[z, ci + 2] = nx, ny, nx * -aiy + ny * aix
        Cmu[s, ci], Cmu[s, ci + 1], Cmu[s, ci + 2] = ex, ey, ex * -aiy + ey * aix
        if bj:  # de/dtheta_j = n, dn/dtheta_j = -e: extra terms in the theta_j column
            C[z, cj], C[z, cj + 1] = -nx, -ny
            C[z, cj + 2] = -(nx * -ajy + ny * ajx) - (ex * dx + ey * dy)
            Cmu[s, cj], Cmu[s, cj + 1] = -ex, -ey
            Cmu[s, cj + 2] = -(ex * -ajy + ey * ajx) + (nx * dx + ny * dy)
        if typ == PRISMATIC:  # lock row theta_i - theta_j - theta_0
            C[z + 1, ci + 2] = 1.0
            if bj:
                C[z + 1, cj + 2] = -1.0
        else:  # pin-in-slot: second free coordinate theta_i - theta_j
            Cmu[s + 1, ci + 2] = 1.0
            if bj:
                Cmu[s + 1, cj + 2] = -1.0
    return OK


@jit
def _moving_point(x, xd, body, px, py):
    """(R p, r + R p, omega, velocity of the point) of point p of ``body`` (joints._moving_point)."""
    if body == 0:
        return px, py, px, py, 0.0, 0.0, 0.0
    k = 3 * (body - 1)
    ax, ay = _rotate(x[k + 2], px, py)
    w = xd[k + 2]
    return ax, ay, x[k] + ax, x[k + 1] + ay, w, xd[k] + w * -ay, xd[k + 1] + w * ax


@jit
def _xi(x, xd, fpar, ipar, xi):
    """xi = -Cdot xdot (m,) (model.xi; seed 000 eq. 2.9)."""
    for j in range(ipar[I_NJ]):
        ji = ipar[I_JOINTS] + JI_WIDTH * j
        jf = ipar[I_F_JOINTS] + JF_WIDTH * j
        typ, bi, bj, z = ipar[ji + JI_TYPE], ipar[ji + JI_BODY_I], ipar[ji + JI_BODY_J], ipar[ji + JI_Z]
        aix, aiy, Pix, Piy, wi, vix, viy = _moving_point(x, xd, bi, fpar[jf + JF_PI], fpar[jf + JF_PI + 1])
        ajx, ajy, Pjx, Pjy, wj, vjx, vjy = _moving_point(x, xd, bj, fpar[jf + JF_PJ], fpar[jf + JF_PJ + 1])
        if typ == REVOLUTE:
            xi[z] = aix * wi**2 - ajx * wj**2
            xi[z + 1] = aiy * wi**2 - ajy * wj**2
            continue
        # z_n'' = n''.d + 2 n'.d' + n.d'' (joints.Prismatic._slide_xi)
        ex, ey = _rotate(_pose(x, bj)[2], fpar[jf + JF_EJ], fpar[jf + JF_EJ + 1])
        nx, ny = -ey, ex
        xi[z] = ((nx * (Pix - Pjx) + ny * (Piy - Pjy)) * wj**2 + 2.0 * wj * (ex * (vix - vjx) + ey * (viy - vjy))
                 + (nx * (aix * wi**2 - ajx * wj**2) + ny * (aiy * wi**2 - ajy * wj**2)))
        if typ == PRISMATIC:
            xi[z + 1] = 0.0
    return OK


# ======================================================================================================
# The workspace
# ======================================================================================================

@inline
def _mat(work, ipar, field):
    """Matrix field ``field`` of WORK_FIELDS (a view of its rows of the workspace)."""
    p = ipar[I_WORK] + 3 * field
    return work[ipar[p] : ipar[p] + ipar[p + 1], : ipar[p + 2]]


@inline
def _sub(work, ipar, field, rows, cols):
    """The leading rows x cols block of matrix field ``field`` of WORK_FIELDS."""
    o = ipar[ipar[I_WORK] + 3 * field]
    return work[o : o + rows, :cols]


@inline
def _vec(work, ipar, field):
    """Vector field ``field`` of WORK_FIELDS."""
    p = ipar[I_WORK] + 3 * field
    return work[ipar[p], : ipar[p + 2]]


@inline
def _false(ipar):
    """False as a value of the run (a literal False would compile its callee a second time)."""
    return ipar[I_N] < 0


@inline
def _ivec(iwork, ipar, field):
    """Vector field ``field`` of IWORK_FIELDS."""
    p = ipar[I_IWORK] + 3 * field
    return iwork[ipar[p], : ipar[p + 2]]


# ======================================================================================================
# Friction (planar.joints *.friction, seed 000 eq. 2.5; friction.laws)
# ======================================================================================================

@jit
def _law_coefficient(fpar, ipar, c, sd, sign, static):
    """Signed coefficient -sign mu of free coordinate c (joints._law_coefficients): mu_s if static,
    else the kinetic mu(sd) of its law; 0 without a law or with sign 0."""
    kind = ipar[ipar[I_LAWS] + c]
    if kind == NO_LAW or sign == 0.0:
        return 0.0
    p = ipar[I_F_LAWS] + LAW_WIDTH * c
    if static:
        mu = fpar[p]
    elif kind == COULOMB:
        mu = fpar[p + 1]
    elif kind == STRIBECK:  # mu_k + (mu_s - mu_k) exp(-(|v|/v_s)^delta)
        mu = fpar[p + 1] + (fpar[p] - fpar[p + 1]) * np.exp(-((abs(sd) / fpar[p + 2]) ** fpar[p + 3]))
    elif kind == EXPONENTIAL:  # seed 002 eq. (7): mu_0 (1 - exp(-k |v| / v_k))
        mu = fpar[p + 1] * (1.0 - np.exp(-fpar[p + 2] * abs(sd) / fpar[p + 3]))
    else:  # TANH: mu_k tanh(|v| / v_eps)
        mu = fpar[p + 1] * np.tanh(abs(sd) / fpar[p + 2])
    return -sign * mu


@jit
def _friction(f, sd, direction, use_sign, static, fpar, ipar, f_mu, J):
    """f_mu (l,) from the ideal reactions f (m,) and df_mu/df (model.friction). Friction directions:
    ``direction`` (l,) (its values scale the coefficient, as in _holding_trial), or sgn(sd) if
    use_sign; static (l,) int flags: the static coefficient mu_s. J (l, m): only the blocks (s rows,
    z columns) of each joint are written, the rest of df_mu/df being zero."""
    for j in range(ipar[I_NJ]):
        ji = ipar[I_JOINTS] + JI_WIDTH * j
        jf = ipar[I_F_JOINTS] + JF_WIDTH * j
        typ, z, s = ipar[ji + JI_TYPE], ipar[ji + JI_Z], ipar[ji + JI_S]
        sign0 = _sign(sd[s]) if use_sign else direction[s]
        coef = _law_coefficient(fpar, ipar, s, sd[s], sign0, static[s] != 0)
        if typ == REVOLUTE:  # f_mu = -sgn mu r |f| (eq. 2.5 row 1)
            r = fpar[jf + JF_R]
            norm = np.hypot(f[z], f[z + 1])
            f_mu[s] = coef * r * norm
            if norm != 0.0:
                J[s, z] = coef * r * f[z] / norm
                J[s, z + 1] = coef * r * f[z + 1] / norm
            else:
                J[s, z] = 0.0
                J[s, z + 1] = 0.0
        elif typ == PRISMATIC:  # f_mu = -sgn mu N (eq. 2.5 row 2)
            if ipar[ji + JI_EDGE] == 0:  # N = |f_n|
                f_mu[s] = coef * abs(f[z])
                J[s, z] = coef * _sign(f[z])
                J[s, z + 1] = 0.0
            else:  # two edges at -+L/2 carry the lock moment: N = |f_n/2 + f_th/L| + |f_n/2 - f_th/L|
                L = fpar[jf + JF_EDGE]
                a, b = f[z] / 2 + f[z + 1] / L, f[z] / 2 - f[z + 1] / L
                f_mu[s] = coef * (abs(a) + abs(b))
                J[s, z] = coef * (_sign(a) * 0.5 + _sign(b) * 0.5)
                J[s, z + 1] = coef * (_sign(a) * (1 / L) + _sign(b) * (-1 / L))
        else:  # pin-in-slot (eq. 2.5 rows 3-4): pin load sqrt(f^2 + f_mu1^2) = |f| sqrt(1 + c_t^2)
            sign1 = _sign(sd[s + 1]) if use_sign else direction[s + 1]
            c_r = _law_coefficient(fpar, ipar, s + 1, sd[s + 1], sign1, static[s + 1] != 0)
            fn = f[z]
            factor = fpar[jf + JF_R] * np.sqrt(1.0 + coef**2)
            f_mu[s] = coef * abs(fn)
            f_mu[s + 1] = c_r * factor * abs(fn)
            J[s, z] = coef * _sign(fn)
            J[s + 1, z] = c_r * factor * _sign(fn)
    return OK


@jit
def _static_limits(f, fpar, ipar, work, iwork, limits):
    """Static friction limits (l,) of every free coordinate with the reactions f
    (MechanismSystem._static_limits: |f_mu| with direction 1 and mu_s everywhere)."""
    ones, all_static = _vec(work, ipar, W_ONES), _ivec(iwork, ipar, WI_ALL_STATIC)
    ones[:] = 1.0
    all_static[:] = 1
    _friction(f, ones, ones, _false(ipar), all_static, fpar, ipar, limits, _mat(work, ipar, W_J))  # mu_s: sd unused
    for c in range(limits.size):
        limits[c] = abs(limits[c])


# ======================================================================================================
# The coupled reaction-friction equations f = f0 + B f_mu(f) (planar.coupling, seed 000 eq. 3.3)
# ======================================================================================================

@jit
def _residual(f, f0, B, f_mu, Bf, R):
    """Bf = B f_mu and R = f - f0 - B f_mu."""
    for i in range(f.size):
        s = 0.0
        for c in range(f_mu.size):
            s += B[i, c] * f_mu[c]
        Bf[i] = s
        R[i] = f[i] - f0[i] - s


@jit
def _newton_matrix(B, J, ipar, A, R, JR):
    """A = I - J B (l, l) and JR = J R, J = df_mu/df being nonzero only in the blocks (s rows, z
    columns) of each joint."""
    l = A.shape[0]
    for a in range(l):
        for c in range(l):
            A[a, c] = 0.0
        A[a, a] = 1.0
    for j in range(ipar[I_NJ]):
        ji = ipar[I_JOINTS] + JI_WIDTH * j
        z, nz, s, ns = ipar[ji + JI_Z], ipar[ji + JI_NZ], ipar[ji + JI_S], ipar[ji + JI_NS]
        for a in range(s, s + ns):
            jr = 0.0
            for i in range(z, z + nz):
                jac = J[a, i]
                jr += jac * R[i]
                if jac != 0.0:
                    for c in range(l):
                        A[a, c] -= jac * B[i, c]
            JR[a] = jr


@jit
def _newton(f_start, f0, B, sd, direction, use_sign, static, fpar, ipar, work, iwork, f, f_mu):
    """Damped Newton on R(f) = f - f0 - B f_mu(f) from f_start (coupling._newton); f, f_mu: the root.
    Returns the number of iterations, or -1 without convergence."""
    m = f0.size
    J, J_new, A = _mat(work, ipar, W_J), _mat(work, ipar, W_J2), _mat(work, ipar, W_NA)
    Bf, R, step, JR = _vec(work, ipar, W_BF), _vec(work, ipar, W_R), _vec(work, ipar, W_STEP), _vec(work, ipar, W_JR)
    f_new, fmu_new = _vec(work, ipar, W_F2), _vec(work, ipar, W_FMU2)
    Bf_new, R_new = _vec(work, ipar, W_BF2), _vec(work, ipar, W_R2)
    piv = _ivec(iwork, ipar, WI_NPIV)
    _copy(f, f_start)
    scale = 1.0 + _norm(f0)
    _friction(f, sd, direction, use_sign, static, fpar, ipar, f_mu, J)
    _residual(f, f0, B, f_mu, Bf, R)
    for it in range(COUPLED_MAX_ITERATIONS + 1):
        res = _norm(R)
        if res <= COUPLED_TOLERANCE * (scale + _norm(Bf)):
            return it
        if it == COUPLED_MAX_ITERATIONS:
            return -1
        # step = (I - B J)^-1 R = R + B (I - J B)^-1 J R (an l x l system instead of m x m)
        _newton_matrix(B, J, ipar, A, R, JR)
        _copy(step, R)
        if _lu_factor(A, piv) == 0:
            _lu_solve(A, piv, JR)
            for i in range(m):
                s = 0.0
                for a in range(JR.size):
                    s += B[i, a] * JR[a]
                step[i] += s
        # else: the fixed-point step R where the Jacobian is singular
        t = 1.0
        while True:  # backtracking on the residual norm
            for i in range(m):
                f_new[i] = f[i] - t * step[i]
            _friction(f_new, sd, direction, use_sign, static, fpar, ipar, fmu_new, J_new)
            _residual(f_new, f0, B, fmu_new, Bf_new, R_new)
            if _norm(R_new) < res or t < 1e-6:
                break
            t *= 0.5
        _copy(f, f_new)
        _copy(f_mu, fmu_new)
        J, J_new = J_new, J
        Bf, Bf_new = Bf_new, Bf
        R, R_new = R_new, R
    return -1


@jit
def _kappa_below_one(B, fpar, ipar, work):
    """kappa = ||B diag(L)||_2 < 1 (coupling.solve_coupled): its Frobenius norm bounds it; the exact
    2-norm (the largest singular value) decides where that bound does not."""
    m, l = B.shape
    lip = fpar[ipar[I_F_LIP] : ipar[I_F_LIP] + l]
    S = _sub(work, ipar, W_SV, m, l)
    frob = 0.0
    for i in range(m):
        for c in range(l):
            S[i, c] = B[i, c] * lip[c]
            frob += S[i, c] * S[i, c]
    if frob < 1.0:
        return True
    sv = _vec(work, ipar, W_SVALUES)[:l]
    _singular_values(S, sv)
    kappa = 0.0
    for c in range(l):
        kappa = max(kappa, sv[c])
    return kappa < 1.0


@jit
def _solve_coupled(f0, B, sd, direction, use_sign, static, fpar, ipar, work, iwork, f, f_mu):
    """f = f0 + B f_mu(f) to machine precision (coupling.solve_coupled): Newton from f0 when the map
    is a contraction (kappa < 1), else Newton from every sign pattern of the joint reactions, the root
    to be unique."""
    if _kappa_below_one(B, fpar, ipar, work):
        if _newton(f0, f0, B, sd, direction, use_sign, static, fpar, ipar, work, iwork, f, f_mu) < 0:
            return ST_NO_CONVERGENCE
        return OK
    m, nj = f0.size, ipar[I_NJ]
    scale = 1.0 + _norm(f0)
    start, root, root_mu = _vec(work, ipar, W_START), _vec(work, ipar, W_ROOT), _vec(work, ipar, W_ROOTMU)
    n_roots = 0
    for pattern in range(2**nj):  # itertools.product((1, -1), repeat=nj): the last joint varies fastest
        _copy(start, f0)
        for j in range(nj):
            if (pattern >> (nj - 1 - j)) & 1:
                ji = ipar[I_JOINTS] + JI_WIDTH * j
                for i in range(ipar[ji + JI_Z], ipar[ji + JI_Z] + ipar[ji + JI_NZ]):
                    start[i] = -start[i]
        if _newton(start, f0, B, sd, direction, use_sign, static, fpar, ipar, work, iwork, root, root_mu) < 0:
            continue
        if n_roots == 0:
            _copy(f, root)
            _copy(f_mu, root_mu)
            n_roots = 1
            continue
        d = 0.0
        for i in range(m):
            d += (root[i] - f[i]) ** 2
        if np.sqrt(d) > 1e-8 * scale:  # a second distinct root: indeterminate
            return ST_INDETERMINATE
    return OK if n_roots == 1 else ST_INCONSISTENT


# ======================================================================================================
# The minimal form (planar.minimal, seed 000 Sect. 4-5)
# ======================================================================================================

@jit
def _kinematics(q, u, fpar, ipar, imode, work, iwork):
    """Velocity-level terms at (q, u) for the partition of the mode (MinimalForm.kinematics): x, xd,
    qd, C, C_mu, xi, D1, D2, nu2, D = D1 D2, gamma = D1 nu2 + D1dot qdot, sd = C_mu xd."""
    n, k1, k, m2 = ipar[I_N], ipar[I_K1], ipar[I_K], ipar[I_M2]
    part, vidx = imode[IM_HEADER : IM_HEADER + k], imode[IM_HEADER + k : IM_HEADER + k + m2]
    rows1 = ipar[ipar[I_ROWS1] : ipar[I_ROWS1] + n - k1]
    rows2 = ipar[ipar[I_ROWS2] : ipar[I_ROWS2] + m2]
    x, C, Cmu, A = _vec(work, ipar, W_X), _mat(work, ipar, W_C), _mat(work, ipar, W_CMU), _mat(work, ipar, W_A)
    piv = _ivec(iwork, ipar, WI_PIV)
    st = _place(q, fpar, ipar, x)
    if st:
        return st
    _jacobians(x, fpar, ipar, C, Cmu)
    # D1 = [C1; S]^-1 [0; I] (tree.velocity_maps): C1 D1 = 0, S D1 = I. S selects q from x, so
    # D1[xq] = I and D1[xo] = -A^-1 C1[:, xq] with A = C1[:, xo] (square: the tree places each body by
    # one coordinate and two constraint rows)
    n1 = n - k1
    xq, xo = ipar[ipar[I_XQ] : ipar[I_XQ] + k1], ipar[ipar[I_XO] : ipar[I_XO] + n1]
    for r in range(n1):
        for c in range(n1):
            A[r, c] = C[rows1[r], xo[c]]
    if _lu_factor(A, piv):
        return ST_TREE_SINGULAR
    D1, col = _mat(work, ipar, W_D1), _vec(work, ipar, W_D1DQ)[:n1]
    D1[:, :] = 0.0
    for t in range(k1):
        D1[xq[t], t] = 1.0
        for r in range(n1):
            col[r] = -C[rows1[r], xq[t]]
        _lu_solve(A, piv, col)
        for r in range(n1):
            D1[xo[r], t] = col[r]
    # C2' = C2 D1 = [U, V] (eq. 5.1); D2 = [I; -V^-1 U] (eq. 5.2)
    V, D2, vpiv = _mat(work, ipar, W_V), _mat(work, ipar, W_D2), _ivec(iwork, ipar, WI_VPIV)
    D2[:, :] = 0.0
    for j in range(k):
        D2[part[j], j] = 1.0
    if m2:
        C2p, U = _mat(work, ipar, W_C2P), _mat(work, ipar, W_U)
        for r in range(m2):
            for c in range(k1):
                s = 0.0
                for i in range(n):
                    s += C[rows2[r], i] * D1[i, c]
                C2p[r, c] = s
        for r in range(m2):
            for c in range(m2):
                V[r, c] = C2p[r, vidx[c]]
        if not _cond2(V, _sub(work, ipar, W_SV, m2, m2), _vec(work, ipar, W_SVALUES)[:m2]) <= MAX_CONDITION_V:
            return ST_V_SINGULAR
        _lu_factor(V, vpiv)
        for r in range(m2):
            for c in range(k):
                U[r, c] = C2p[r, part[c]]
        _lu_solve_columns(V, vpiv, U)
        for r in range(m2):
            for c in range(k):
                D2[vidx[r], c] = -U[r, c]
    qd, xd = _vec(work, ipar, W_QD), _vec(work, ipar, W_XD)
    for i in range(k1):  # qdot = D2 u
        s = 0.0
        for j in range(k):
            s += D2[i, j] * u[j]
        qd[i] = s
    for i in range(n):  # xdot = D1 qdot
        s = 0.0
        for j in range(k1):
            s += D1[i, j] * qd[j]
        xd[i] = s
    xi = _vec(work, ipar, W_XI)
    _xi(x, xd, fpar, ipar, xi)
    # D1dot qdot = [C1; S]^-1 [xi_1; 0]: zero on xq, A^-1 xi_1 on xo
    D1dq, col = _vec(work, ipar, W_D1DQ), _vec(work, ipar, W_WV)[:n1]
    for r in range(n1):
        col[r] = xi[rows1[r]]
    _lu_solve(A, piv, col)
    D1dq[:] = 0.0
    for r in range(n1):
        D1dq[xo[r]] = col[r]
    nu2 = _vec(work, ipar, W_NU2)
    nu2[:] = 0.0
    if m2:  # nu2_v = V^-1 xi2', xi2' = xi2 - C2 D1dot qdot (the sign as in minimal.kinematics)
        xi2p = _vec(work, ipar, W_XI2P)
        for r in range(m2):
            s = 0.0
            for i in range(n):
                s += C[rows2[r], i] * D1dq[i]
            xi2p[r] = xi[rows2[r]] - s
        _lu_solve(V, vpiv, xi2p)
        for r in range(m2):
            nu2[vidx[r]] = xi2p[r]
    D, gamma = _mat(work, ipar, W_D), _vec(work, ipar, W_GAMMA)
    for i in range(n):
        for j in range(k):
            s = 0.0
            for a in range(k1):
                s += D1[i, a] * D2[a, j]
            D[i, j] = s
        s = 0.0
        for a in range(k1):
            s += D1[i, a] * nu2[a]
        gamma[i] = s + D1dq[i]
    sd = _vec(work, ipar, W_SD)
    for c in range(sd.size):  # sd = C_mu xdot (eq. 5.5)
        s = 0.0
        for i in range(n):
            s += Cmu[c, i] * xd[i]
        sd[c] = s
    return OK


@jit
def _linear_terms(q, u, tau, fpar, ipar, imode, work, iwork):
    """The minimal form with friction unknown (MinimalForm.linear_terms): M'' = D^T M D,
    h'' = D^T (h - M gamma) (eq. 5.4) and the Cholesky factor of M'', Cpp = C_mu D (eq. 5.5), and
    f0, B with f = f0 + B f_mu from C^T f = M xdd - h - C_mu^T f_mu by the left inverse (C C^T)^-1 C."""
    st = _kinematics(q, u, fpar, ipar, imode, work, iwork)
    if st:
        return st
    n, m, l, k, nd = ipar[I_N], ipar[I_M], ipar[I_L], ipar[I_K], ipar[I_ND]
    mass = fpar[ipar[I_F_MASS] : ipar[I_F_MASS] + n]
    hext = fpar[ipar[I_F_HEXT] : ipar[I_F_HEXT] + n]
    H0 = ipar[I_F_H]
    D, gamma, C, Cmu = _mat(work, ipar, W_D), _vec(work, ipar, W_GAMMA), _mat(work, ipar, W_C), _mat(work, ipar, W_CMU)
    h, L2, h2, Cpp = _vec(work, ipar, W_H), _mat(work, ipar, W_L2), _vec(work, ipar, W_H2), _mat(work, ipar, W_CPP)
    for i in range(n):  # h = h_ext + H tau (eq. 2.9)
        s = hext[i]
        for d in range(nd):
            s += fpar[H0 + i * nd + d] * tau[d]
        h[i] = s
    for a in range(k):
        for b in range(k):
            s = 0.0
            for i in range(n):
                s += D[i, a] * mass[i] * D[i, b]
            L2[a, b] = s
        s = 0.0
        for i in range(n):
            s += D[i, a] * (h[i] - mass[i] * gamma[i])
        h2[a] = s
    if _cholesky(L2):
        return ST_M2_NOT_PD
    for c in range(l):
        for a in range(k):
            s = 0.0
            for i in range(n):
                s += Cmu[c, i] * D[i, a]
            Cpp[c, a] = s
    # w = M D M''^-1 h'' + M gamma - h and W = M D M''^-1 Cpp^T - C_mu^T;
    # f0 = (C C^T)^-1 C w and B = (C C^T)^-1 C W
    y0, Y, wv = _vec(work, ipar, W_Y0), _mat(work, ipar, W_Y), _vec(work, ipar, W_WV)
    W, CCt = _mat(work, ipar, W_WM), _mat(work, ipar, W_CCT)
    _copy(y0, h2)
    _cho_solve(L2, y0)
    for a in range(k):
        for c in range(l):
            Y[a, c] = Cpp[c, a]
    _cho_solve_columns(L2, Y)
    for i in range(n):
        s = 0.0
        for a in range(k):
            s += D[i, a] * y0[a]
        wv[i] = mass[i] * s + mass[i] * gamma[i] - h[i]
        for c in range(l):
            s = 0.0
            for a in range(k):
                s += D[i, a] * Y[a, c]
            W[i, c] = mass[i] * s - Cmu[c, i]
    for r in range(m):
        for c in range(r + 1):
            s = 0.0
            for i in range(n):
                s += C[r, i] * C[c, i]
            CCt[r, c] = s
            CCt[c, r] = s
    if _cholesky(CCt):
        return ST_CCT_SINGULAR
    f0, B = _vec(work, ipar, W_F0), _mat(work, ipar, W_B)
    for r in range(m):
        s = 0.0
        for i in range(n):
            s += C[r, i] * wv[i]
        f0[r] = s
        for c in range(l):
            s = 0.0
            for i in range(n):
                s += C[r, i] * W[i, c]
            B[r, c] = s
    _cho_solve(CCt, f0)
    _cho_solve_columns(CCt, B)
    return OK


@jit
def _udot(work, ipar, f_mu, udot):
    """udot = M''^-1 (h'' + Cpp^T f_mu) (eq. 5.4)_2 (MinimalForm.solution)."""
    h2, Cpp = _vec(work, ipar, W_H2), _mat(work, ipar, W_CPP)
    for a in range(udot.size):
        s = h2[a]
        for c in range(f_mu.size):
            s += Cpp[c, a] * f_mu[c]
        udot[a] = s
    _cho_solve(_mat(work, ipar, W_L2), udot)


@jit
def _evaluate(direction, use_sign, static, fpar, ipar, work, iwork):
    """MinimalForm.evaluate on the linear terms: the coupled solve, then udot (into the fields f,
    f_mu, udot)."""
    f, f_mu = _vec(work, ipar, W_F), _vec(work, ipar, W_FMU)
    st = _solve_coupled(_vec(work, ipar, W_F0), _mat(work, ipar, W_B), _vec(work, ipar, W_SD), direction, use_sign,
                        static, fpar, ipar, work, iwork, f, f_mu)
    if st:
        return st
    _udot(work, ipar, f_mu, _vec(work, ipar, W_UDOT))
    return OK


# ======================================================================================================
# The hybrid system (hybrid.mechanism.MechanismSystem)
# ======================================================================================================

@inline
def _mode_parts(ipar, imode):
    """(stuck contacts, lock pivot columns then the others, stuck flags) as views of imode."""
    k, m2, l = ipar[I_K], ipar[I_M2], ipar[I_L]
    o = IM_HEADER + k + m2
    stuck = imode[o : o + imode[IM_NSTUCK]]
    piv = imode[o + l : o + l + k]
    flags = imode[o + l + k : o + l + k + l]
    return stuck, piv, flags


@jit
def _lock_velocity(v, fmode, ipar, imode, work, iwork):
    """v with the locked combinations lock v exactly zero: the pivot components solved from the
    others (mechanism.lock_velocity)."""
    k, l, r = ipar[I_K], ipar[I_L], imode[IM_NLOCK]
    if r == 0:
        return OK
    if r == k:
        v[:] = 0.0
        return OK
    _, piv, _ = _mode_parts(ipar, imode)
    Rp, rhs, lpiv = _sub(work, ipar, W_WR, r, r), _vec(work, ipar, W_HOLD)[:r], _ivec(iwork, ipar, WI_LPIV)[:r]
    for i in range(r):  # lock[i] = fmode[l + i k : l + (i + 1) k]
        for j in range(r):
            Rp[i, j] = fmode[l + i * k + piv[j]]
        s = 0.0
        for j in range(r, k):
            s += fmode[l + i * k + piv[j]] * v[piv[j]]
        rhs[i] = s
    if _lu_factor(Rp, lpiv):
        return ST_LOCK_SINGULAR
    _lu_solve(Rp, lpiv, rhs)
    for i in range(r):
        v[piv[i]] = -rhs[i]
    return OK


@jit
def _stuck(fpar, ipar, fmode, imode, work, iwork):
    """(f, f_mu, udot) in a stuck mode (MechanismSystem._stuck), into the fields f, f_mu, udot: the
    locked accelerations are zero. Independent rows: the holding friction lambda = -W^-1 (b0 +
    P f_mu_slip), W = P[:, S], eliminated from f = f0 + B f_mu (seed 000 Sect. 3, seed 004 Sect. 2).
    Shared rows: f and the f_mu of the stuck contacts are indeterminate (NaN), udot = M''^-1 h''
    locked."""
    m, l, k = ipar[I_M], ipar[I_L], ipar[I_K]
    stuck, _, _ = _mode_parts(ipar, imode)
    r = stuck.size
    f, f_mu, udot = _vec(work, ipar, W_F), _vec(work, ipar, W_FMU), _vec(work, ipar, W_UDOT)
    direction = _vec(work, ipar, W_DIRECTION)
    if imode[IM_SIGN] == 0:
        _copy(direction, fmode[:l])
    else:
        direction[:] = 0.0
    for c in stuck:
        direction[c] = 0.0
    if r > imode[IM_NLOCK]:  # shared: several joints hold one direction (seed 000 Sect. 5)
        f[:] = np.nan
        f_mu[:] = 0.0
        _udot(work, ipar, f_mu, udot)
        for c in stuck:
            f_mu[c] = np.nan
        return _lock_velocity(udot, fmode, ipar, imode, work, iwork)
    # R udot = R M''^-1 (h'' + Cpp^T f_mu) = 0, R = Cpp[S]: P = R M''^-1 Cpp^T, b0 = R M''^-1 h''
    # (M''^-1 Cpp^T and M''^-1 h'' are the fields Y and y0 of _linear_terms)
    Cpp, Y, y0 = _mat(work, ipar, W_CPP), _mat(work, ipar, W_Y), _vec(work, ipar, W_Y0)
    P, W, b0 = _sub(work, ipar, W_P, r, l), _sub(work, ipar, W_WR, r, r), _vec(work, ipar, W_B0)[:r]
    for i in range(r):
        s = 0.0
        for a in range(k):
            s += Cpp[stuck[i], a] * y0[a]
        b0[i] = s
        for c in range(l):
            s = 0.0
            for a in range(k):
                s += Cpp[stuck[i], a] * Y[a, c]
            P[i, c] = s
        for j in range(r):
            W[i, j] = P[i, stuck[j]]
    wpiv = _ivec(iwork, ipar, WI_WPIV)[:r]
    if _lu_factor(W, wpiv):
        return ST_HOLDING_SINGULAR
    _lu_solve(W, wpiv, b0)  # W^-1 b0
    _lu_solve_columns(W, wpiv, P)  # W^-1 P
    f0_all, B_all = _vec(work, ipar, W_F0), _mat(work, ipar, W_B)
    f0, B = _vec(work, ipar, W_F0S), _mat(work, ipar, W_BS)
    for i in range(m):
        s = 0.0
        for j in range(r):
            s += B_all[i, stuck[j]] * b0[j]
        f0[i] = f0_all[i] - s
        for c in range(l):
            s = 0.0
            for j in range(r):
                s += B_all[i, stuck[j]] * P[j, c]
            B[i, c] = B_all[i, c] - s
    static = _ivec(iwork, ipar, WI_STATIC)
    static[:] = 0
    st = _solve_coupled(f0, B, _vec(work, ipar, W_SD), direction, _false(ipar), static, fpar, ipar, work, iwork, f,
                        f_mu)
    if st:
        return st
    hold = _vec(work, ipar, W_HOLD)[:r]
    for j in range(r):
        s = 0.0
        for c in range(l):
            s += P[j, c] * f_mu[c]
        hold[j] = -(b0[j] + s)
    for j in range(r):
        f_mu[stuck[j]] = hold[j]
    _udot(work, ipar, f_mu, udot)
    return _lock_velocity(udot, fmode, ipar, imode, work, iwork)


@jit
def _holding_setup(fpar, ipar, fmode, imode, work, iwork):
    """The first evaluation of seed 000 Sect. 5 (MechanismSystem._holding_trial) for the stuck
    contacts Z of the mode, locking direction g = lock[0]: the tendency a0 = g . udot with the
    friction of Z off. Sets the fields base (directions, Z off) and trial (Z opposing the tendency)
    and the static flags (Z). Returns (status, a0)."""
    l, k = ipar[I_L], ipar[I_K]
    stuck, _, _ = _mode_parts(ipar, imode)
    g = fmode[l : l + k]
    base, trial, static = _vec(work, ipar, W_BASE), _vec(work, ipar, W_TRIAL), _ivec(iwork, ipar, WI_STATIC)
    _copy(base, fmode[:l])
    for c in stuck:
        base[c] = 0.0
    static[:] = 0
    st = _evaluate(base, _false(ipar), static, fpar, ipar, work, iwork)
    if st:
        return st, 0.0
    a0 = _dot(g, _vec(work, ipar, W_UDOT))
    d = 1.0 if a0 >= 0 else -1.0
    _copy(trial, base)
    Cpp = _mat(work, ipar, W_CPP)
    for c in stuck:
        s = 0.0
        for a in range(k):
            s += Cpp[c, a] * g[a]
        trial[c] = _sign(s * d)
        static[c] = 1
    return OK, a0


@jit
def _holding(alpha, fpar, ipar, fmode, imode, work, iwork):
    """The friction of Z at alpha times its static limit, opposing the tendency (holding(alpha) of
    MechanismSystem._holding_trial), after _holding_setup. Returns (status, g . udot)."""
    l, k = ipar[I_L], ipar[I_K]
    stuck, _, _ = _mode_parts(ipar, imode)
    scaled, trial = _vec(work, ipar, W_SCALED), _vec(work, ipar, W_TRIAL)
    _copy(scaled, _vec(work, ipar, W_BASE))
    for c in stuck:
        scaled[c] = alpha * trial[c]
    st = _evaluate(scaled, _false(ipar), _ivec(iwork, ipar, WI_STATIC), fpar, ipar, work, iwork)
    return st, _dot(fmode[l : l + k], _vec(work, ipar, W_UDOT))


@jit
def _sect5_margin(fpar, ipar, fmode, imode, work, iwork):
    """d a_s of seed 000 Sect. 5 for the shared stiction of the mode (MechanismSystem._sect5 with
    g = lock[0]): positive when the mechanism breaks away. Returns (status, margin)."""
    st, a0 = _holding_setup(fpar, ipar, fmode, imode, work, iwork)
    if st:
        return st, 0.0
    st, a_s = _holding(1.0, fpar, ipar, fmode, imode, work, iwork)
    return st, (_sign(a0) * a_s if a0 != 0 else -abs(a_s) - 1.0)  # a0 = 0 sticks


@jit
def _shared_holding(fpar, ipar, fmode, imode, work, iwork):
    """(f, f_mu) in a shared stiction (MechanismSystem._shared_holding), into the fields f, f_mu:
    every stuck contact at the same fraction alpha in [0, 1] of its static limit, alpha making
    g . udot vanish (the secant method on alpha; this proportional distribution is the Python
    engine's modelling choice)."""
    st, a0 = _holding_setup(fpar, ipar, fmode, imode, work, iwork)
    if st:
        return st
    if a0 == 0.0:
        return _holding(0.0, fpar, ipar, fmode, imode, work, iwork)[0]
    st, a1 = _holding(1.0, fpar, ipar, fmode, imode, work, iwork)
    if st or _sign(a1) == _sign(a0):  # at breakaway: the whole static limit is needed
        return st
    tol = 1e-12 * max(abs(a0), abs(a1))
    x0, g0, x1, g1 = 0.0, a0, 1.0, a1
    for _ in range(MAX_BOUND_ITERATIONS):
        alpha = min(max(x1 - g1 * (x1 - x0) / (g1 - g0), 0.0), 1.0)
        st, a = _holding(alpha, fpar, ipar, fmode, imode, work, iwork)
        if st or abs(a) <= tol or abs(alpha - x1) <= 1e-14:
            return st
        x0, g0, x1, g1 = x1, g1, alpha, a
    return ST_SHARED_NO_SETTLE


@jit
def _slip(fpar, ipar, fmode, imode, work, iwork):
    """The slip evaluation with the mode's friction directions (or sgn(sd): RegularisedSystem)."""
    static, direction = _ivec(iwork, ipar, WI_STATIC), _vec(work, ipar, W_DIRECTION)
    static[:] = 0
    _copy(direction, fmode[: ipar[I_L]])
    return _evaluate(direction, imode[IM_SIGN] != 0, static, fpar, ipar, work, iwork)


@jit
def _drive_power(tau, fpar, ipar, xd):
    """(H tau) . xdot."""
    n, nd, H0 = ipar[I_N], ipar[I_ND], ipar[I_F_H]
    power = 0.0
    for i in range(n):
        s = 0.0
        for d in range(nd):
            s += fpar[H0 + i * nd + d] * tau[d]
        power += s * xd[i]
    return power


# The kernels (signatures.KERNEL) allocate the workspace and call the helpers above, compiled
# without the runtime; they take few views themselves.

@njit(KERNEL, cache=True, error_model="numpy")
def rhs(t, y, tau, fpar, ipar, fmode, imode, dy):
    """dy/dt = [qdot, udot, drive power, friction power] in the mode (MechanismSystem.rhs)."""
    l, k1, k = ipar[I_L], ipar[I_K1], ipar[I_K]
    if imode[IM_NLOCK] == k:  # frozen by its stuck contacts: u = 0 and udot = 0, no power
        dy[:] = 0.0
        return OK
    work = np.empty((ipar[I_WORK_ROWS], ipar[I_WIDTH]))  # the workspace (WORK_FIELDS, IWORK_FIELDS)
    iwork = np.empty((ipar[I_IWORK_ROWS], ipar[I_WIDTH]), dtype=np.int64)
    st = _linear_terms(y[:k1], y[k1 : k1 + k], tau, fpar, ipar, imode, work, iwork)
    if st:
        return st
    f_mu, sd = _vec(work, ipar, W_FMU), _vec(work, ipar, W_SD)
    friction_power = 0.0
    if imode[IM_NSTUCK]:
        st = _stuck(fpar, ipar, fmode, imode, work, iwork)
        _, _, flags = _mode_parts(ipar, imode)
        for c in range(l):
            if flags[c] == 0:
                friction_power += f_mu[c] * sd[c]
    else:
        st = _slip(fpar, ipar, fmode, imode, work, iwork)
        friction_power = _dot(f_mu, sd)
    if st:
        return st
    _copy(dy[:k1], _vec(work, ipar, W_QD))
    _copy(dy[k1 : k1 + k], _vec(work, ipar, W_UDOT))
    dy[k1 + k] = _drive_power(tau, fpar, ipar, _vec(work, ipar, W_XD))
    dy[k1 + k + 1] = friction_power
    return OK


@njit(KERNEL, cache=True, error_model="numpy")
def events(t, y, tau, fpar, ipar, fmode, imode, g):
    """The event functions of MechanismSystem.events(mode), in its order: slip_zero (direction_c sd_c)
    of the slipping contacts, then the breakaway margins |lambda_c| - static limit_c of the stuck
    contacts, or the Sect. 5 margin of a shared stiction. None in RegularisedSystem's mode."""
    k1, k = ipar[I_K1], ipar[I_K]
    if imode[IM_SIGN]:
        return OK
    stuck, _, flags = _mode_parts(ipar, imode)
    contacts = ipar[ipar[I_CONTACTS] : ipar[I_CONTACTS] + ipar[I_NC]]
    q, u = y[:k1], y[k1 : k1 + k]
    work = np.empty((ipar[I_WORK_ROWS], ipar[I_WIDTH]))  # the workspace (WORK_FIELDS, IWORK_FIELDS)
    iwork = np.empty((ipar[I_IWORK_ROWS], ipar[I_WIDTH]), dtype=np.int64)
    sd = _vec(work, ipar, W_SD)
    i = 0
    for c in contacts:
        if flags[c] == 0 and fmode[c] != 0.0:
            if i == 0:  # the velocity level only, as MechanismSystem._sd
                st = _kinematics(q, u, fpar, ipar, imode, work, iwork)
                if st:
                    return st
            g[i] = fmode[c] * sd[c]
            i += 1
    if stuck.size == 0:
        return OK
    st = _linear_terms(q, u, tau, fpar, ipar, imode, work, iwork)
    if st:
        return st
    if stuck.size > imode[IM_NLOCK]:
        st, margin = _sect5_margin(fpar, ipar, fmode, imode, work, iwork)
        g[i] = margin
        return st
    st = _stuck(fpar, ipar, fmode, imode, work, iwork)
    if st:
        return st
    limits, f_mu = _vec(work, ipar, W_LIMITS), _vec(work, ipar, W_FMU)
    _static_limits(_vec(work, ipar, W_F), fpar, ipar, work, iwork, limits)
    for c in stuck:
        g[i] = abs(f_mu[c]) - limits[c]
        i += 1
    return OK


@njit(KERNEL, cache=True, error_model="numpy")
def record(t, y, tau, fpar, ipar, fmode, imode, out):
    """The recorded quantities of MechanismSystem.record, flat (record_layout)."""
    n, m, l, k1, k, nd = ipar[I_N], ipar[I_M], ipar[I_L], ipar[I_K1], ipar[I_K], ipar[I_ND]
    q, u = y[:k1], y[k1 : k1 + k]
    work = np.empty((ipar[I_WORK_ROWS], ipar[I_WIDTH]))  # the workspace (WORK_FIELDS, IWORK_FIELDS)
    iwork = np.empty((ipar[I_IWORK_ROWS], ipar[I_WIDTH]), dtype=np.int64)
    st = _linear_terms(q, u, tau, fpar, ipar, imode, work, iwork)
    if st:
        return st
    stuck, _, flags = _mode_parts(ipar, imode)
    # the layout of record_layout: q, u, qd, qdd, udot, f, f_mu, sd, tau, stuck, stuck_contacts,
    # E_kin, E_pot, W_drive, W_friction
    o_udot = 3 * k1 + k
    o_f = o_udot + k
    o_fmu = o_f + m
    f, f_mu, udot = _vec(work, ipar, W_F), _vec(work, ipar, W_FMU), _vec(work, ipar, W_UDOT)
    if stuck.size:
        st = _stuck(fpar, ipar, fmode, imode, work, iwork)
        _copy(out[o_udot : o_udot + k], udot)  # locked
        if st == OK and stuck.size > imode[IM_NLOCK]:
            st = _shared_holding(fpar, ipar, fmode, imode, work, iwork)
    else:
        st = _slip(fpar, ipar, fmode, imode, work, iwork)
        _copy(out[o_udot : o_udot + k], udot)
    if st:
        return st
    _copy(out[o_f : o_f + m], f)
    _copy(out[o_fmu : o_fmu + l], f_mu)
    _copy(out[:k1], q)
    _copy(out[k1 : k1 + k], u)
    _copy(out[k1 + k : 2 * k1 + k], _vec(work, ipar, W_QD))
    nu2, D2 = _vec(work, ipar, W_NU2), _mat(work, ipar, W_D2)
    for i in range(k1):  # qdd = D2 udot + nu2 (eq. 5.2)
        s = nu2[i]
        for a in range(k):
            s += D2[i, a] * out[o_udot + a]
        out[2 * k1 + k + i] = s
    o = o_fmu + l
    _copy(out[o : o + l], _vec(work, ipar, W_SD))
    o += l
    _copy(out[o : o + nd], tau[:nd])
    o += nd
    out[o] = 1.0 if stuck.size else 0.0
    o += 1
    for c in range(l):
        out[o + c] = 1.0 if flags[c] else 0.0
    o += l
    mass, x, xd = fpar[ipar[I_F_MASS] : ipar[I_F_MASS] + n], _vec(work, ipar, W_X), _vec(work, ipar, W_XD)
    e_kin = 0.0
    for i in range(n):
        e_kin += xd[i] * mass[i] * xd[i]
    out[o] = 0.5 * e_kin
    gx, gy = fpar[ipar[I_F_GRAV]], fpar[ipar[I_F_GRAV] + 1]
    e_pot = 0.0
    for b in range(ipar[I_NB]):  # -sum m_i g . r_i
        e_pot += fpar[ipar[I_F_BODY_MASS] + b] * (x[3 * b] * gx + x[3 * b + 1] * gy)
    out[o + 1] = -e_pot
    out[o + 2] = y[y.size - 2]
    out[o + 3] = y[y.size - 1]
    return OK
