"""Compiled kernels of the absolute-coordinate formulation (seed 000 eq. 2.9) with the protocol of
``signatures.KERNEL``: ``hybrid.absolute.AbsoluteSystem``, whose reference is
``planar.absolute.absolute_dynamics``.

    M xdd = h(x, xd, tau) + C^T f + C_mu^T f_mu(xd, f),    C xdd = xi(x, xd)

State y = [x (n), xd (n)], dy = [xd, xdd]; one mode: the friction directions are sgn(sd),
sd = C_mu xd (no stick-slip modes, no events). As in the Python code, the augmented matrix
K = [[M, -C^T], [C, 0]] is factorised (bodies with zero mass whose motion the constraints fix are
allowed) and solved for the columns [h; xi] and [C_mu^T; 0]:

    xdd = a0 + A f_mu,   f = f0 + B f_mu,

then the coupled reaction-friction equations f = f0 + B f_mu(f) (seed 000 eq. 3.3) are solved by
the same Newton iteration as the minimal form (``planar._solve_coupled``).

Model arrays: those of the planar kernels (``planar.pack``: the joints, laws, M, h_ext, H and the
workspace tables, layout in ``compiled.planar``); these kernels use the model blocks and the
workspace fields C, C_mu, xi, h, f0, B, sd, f, f_mu and the scratch of the Newton iteration and of
kappa, never the tree or the minimal-form fields. Each kernel call also allocates the augmented system
``aug`` ((n + m) x (n + m + 1 + l): K, then the right-hand sides, solved in place) and its pivots.
Mode arrays: empty (one mode). Record (``record_layout``): x, xd, xdd, f, f_mu, flat.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from . import planar
from .dense import _lu_factor, _lu_solve_columns, jit
from .model import CompiledModel
from .planar import (I_F_H, I_F_HEXT, I_F_MASS, I_IWORK_ROWS, I_L, I_M, I_N, I_ND, I_WIDTH, I_WORK_ROWS, OK,
                     ST_INCONSISTENT, ST_INDETERMINATE, ST_NO_CONVERGENCE, W_B, W_C, W_CMU, W_DIRECTION, W_F, W_F0,
                     W_FMU, W_H, W_SD, W_XI, WI_STATIC, _copy, _false, _ivec, _jacobians, _mat, _solve_coupled,
                     _vec, _xi)
from .signatures import KERNEL

# --- codes (after those of compiled.planar, which the coupled solve returns) ----------------------------
ST_AUGMENTED_SINGULAR, ST_NOT_FINITE = 12, 13
ERRORS = {
    ST_NO_CONVERGENCE: planar.ERRORS[ST_NO_CONVERGENCE],
    ST_INCONSISTENT: planar.ERRORS[ST_INCONSISTENT],
    ST_INDETERMINATE: planar.ERRORS[ST_INDETERMINATE],
    ST_AUGMENTED_SINGULAR: "the augmented matrix [[M, -C^T], [C, 0]] is singular: redundant constraints or a "
                           "body with unconstrained zero mass",
    ST_NOT_FINITE: "the state contains a non-finite value",
}
SINGULAR_PIVOT = 1e-12  # planar.absolute: |pivot| <= 1e-12 max |pivot| is singular


# ======================================================================================================
# Packing (Python)
# ======================================================================================================

def record_layout(model):
    """[(key, size, kind)] of the flat record (kinds as ``planar.decode_record`` reads them)."""
    n, m, l = model.n, model.m, model.l
    return [("x", n, "array"), ("xd", n, "array"), ("xdd", n, "array"), ("f", m, "array"), ("f_mu", l, "array")]


def encode_mode(mode):
    """(fmode, imode) of the single mode: empty."""
    return np.zeros(0), np.zeros(0, dtype=np.int64)


def compile_system(system):
    """The CompiledModel of an AbsoluteSystem, or None if its model has a joint or friction law that
    the planar kernels do not implement."""
    packed = planar.pack(system.model, system.minimal)
    if packed is None:
        return None
    fpar, ipar = packed
    n_record = sum(size for _, size, _ in record_layout(system.model))
    return CompiledModel(rhs, events, record, fpar, ipar, n_record, dict(ERRORS))


# ======================================================================================================
# Seed 000 eq. (2.9) (planar.absolute.absolute_dynamics)
# ======================================================================================================

@jit
def _dynamics(x, xd, tau, fpar, ipar, work, iwork, aug, apiv):
    """Eq. (2.9) at (x, xd, tau): fills the fields C, C_mu, xi, h, f0, B, sd, f, f_mu of the
    workspace and leaves in aug[:n, n + m:] the accelerations [a0, A] (xdd = a0 + A f_mu)."""
    n, m, l, nd = ipar[I_N], ipar[I_M], ipar[I_L], ipar[I_ND]
    C, Cmu, xi, h = _mat(work, ipar, W_C), _mat(work, ipar, W_CMU), _vec(work, ipar, W_XI), _vec(work, ipar, W_H)
    mass = fpar[ipar[I_F_MASS] : ipar[I_F_MASS] + n]
    hext = fpar[ipar[I_F_HEXT] : ipar[I_F_HEXT] + n]
    H0 = ipar[I_F_H]
    _jacobians(x, fpar, ipar, C, Cmu)
    _xi(x, xd, fpar, ipar, xi)
    for i in range(n):  # h = h_ext + H tau
        s = hext[i]
        for d in range(nd):
            s += fpar[H0 + i * nd + d] * tau[d]
        h[i] = s
    # K = [[M, -C^T], [C, 0]] and the right-hand sides [[h, C_mu^T], [xi, 0]]
    nm = n + m
    K, R = aug[:, :nm], aug[:, nm:]
    for i in range(nm):
        for c in range(nm + 1 + l):
            aug[i, c] = 0.0
    for i in range(n):
        K[i, i] = mass[i]
        R[i, 0] = h[i]
        for c in range(l):
            R[i, 1 + c] = Cmu[c, i]
    for r in range(m):
        for i in range(n):
            K[i, n + r] = -C[r, i]
            K[n + r, i] = C[r, i]
        R[n + r, 0] = xi[r]
    for i in range(nm):  # scipy's check_finite on K
        for c in range(nm):
            if not np.isfinite(K[i, c]):
                return ST_NOT_FINITE
    singular = _lu_factor(K, apiv)
    big, small = 0.0, np.inf
    for i in range(nm):
        big, small = max(big, abs(K[i, i])), min(small, abs(K[i, i]))
    if singular or small <= SINGULAR_PIVOT * big:
        return ST_AUGMENTED_SINGULAR
    _lu_solve_columns(K, apiv, R)
    f0, B = _vec(work, ipar, W_F0), _mat(work, ipar, W_B)
    for r in range(m):
        f0[r] = R[n + r, 0]
        for c in range(l):
            B[r, c] = R[n + r, 1 + c]
    sd = _vec(work, ipar, W_SD)
    for c in range(l):  # sd = C_mu xd
        s = 0.0
        for i in range(n):
            s += Cmu[c, i] * xd[i]
        sd[c] = s
    static = _ivec(iwork, ipar, WI_STATIC)
    static[:] = 0
    direction = _vec(work, ipar, W_DIRECTION)  # unused: the directions are sgn(sd)
    direction[:] = 0.0
    return _solve_coupled(f0, B, sd, direction, not _false(ipar), static, fpar, ipar, work, iwork,
                          _vec(work, ipar, W_F), _vec(work, ipar, W_FMU))


@jit
def _accelerations(aug, n, m, f_mu, xdd):
    """xdd = a0 + A f_mu from the solved augmented system."""
    nm = n + m
    for i in range(n):
        s = aug[i, nm]
        for c in range(f_mu.size):
            s += aug[i, nm + 1 + c] * f_mu[c]
        xdd[i] = s


# The kernels (signatures.KERNEL) allocate the workspace of the planar kernels and the augmented
# system, and call the helpers above.

@njit(KERNEL, cache=True, error_model="numpy")
def rhs(t, y, tau, fpar, ipar, fmode, imode, dy):
    """dy/dt = [xd, xdd] (AbsoluteSystem.rhs)."""
    n, m, l = ipar[I_N], ipar[I_M], ipar[I_L]
    work = np.empty((ipar[I_WORK_ROWS], ipar[I_WIDTH]))
    iwork = np.empty((ipar[I_IWORK_ROWS], ipar[I_WIDTH]), dtype=np.int64)
    aug = np.empty((n + m, n + m + 1 + l))
    apiv = np.empty(n + m, dtype=np.int64)
    st = _dynamics(y[:n], y[n : 2 * n], tau, fpar, ipar, work, iwork, aug, apiv)
    if st:
        return st
    _copy(dy[:n], y[n : 2 * n])
    _accelerations(aug, n, m, _vec(work, ipar, W_FMU), dy[n : 2 * n])
    return OK


@njit(KERNEL, cache=True, error_model="numpy")
def events(t, y, tau, fpar, ipar, fmode, imode, g):
    """No events (AbsoluteSystem.events is empty): writes nothing."""
    return OK


@njit(KERNEL, cache=True, error_model="numpy")
def record(t, y, tau, fpar, ipar, fmode, imode, out):
    """x, xd, xdd, f, f_mu flat (record_layout; AbsoluteSystem.record)."""
    n, m, l = ipar[I_N], ipar[I_M], ipar[I_L]
    work = np.empty((ipar[I_WORK_ROWS], ipar[I_WIDTH]))
    iwork = np.empty((ipar[I_IWORK_ROWS], ipar[I_WIDTH]), dtype=np.int64)
    aug = np.empty((n + m, n + m + 1 + l))
    apiv = np.empty(n + m, dtype=np.int64)
    st = _dynamics(y[:n], y[n : 2 * n], tau, fpar, ipar, work, iwork, aug, apiv)
    if st:
        return st
    _copy(out[: 2 * n], y[: 2 * n])
    _accelerations(aug, n, m, _vec(work, ipar, W_FMU), out[2 * n : 3 * n])
    _copy(out[3 * n : 3 * n + m], _vec(work, ipar, W_F))
    _copy(out[3 * n + m : 3 * n + m + l], _vec(work, ipar, W_FMU))
    return OK
