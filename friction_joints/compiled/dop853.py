"""DOP853 with dense output and event location, compiled (numba), persistent across calls.

The same method as the Python engine's integrator (SciPy's DOP853: Dormand-Prince 8(5,3) with
SciPy's coefficients, error norm and step-size control, its 7th-order dense output, and event roots
located by Brent's method on the dense output to 4 machine epsilons), but the whole step loop is
compiled: the model's kernels (``signatures.KERNEL``) are called by address (``registry``) and Python is
entered only when an event fires or the requested end time is reached. The step size proposed by
the controller is returned, so that the next call (the next FMU communication step) continues with
it instead of starting afresh.

Inputs over a call are given by ``hybrid.signals.Signal.form``: per input a row (kind, a, b, c, d),
kind 0: a + b (t - t0) (held values, numbers, tables between two breakpoints; at t_end their left
limits), kind 1: a + b sin(c t + d) (sines and cosines of time).
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from scipy.integrate._ivp import dop853_coefficients as _coefficients

from . import registry
from .signatures import F64, IVEC, VEC

N_STAGES = _coefficients.N_STAGES  # 12 stages of the 8th-order step
A = np.ascontiguousarray(_coefficients.A)  # (16, 16): the 12 stages, then the 3 of the dense output
B = np.ascontiguousarray(_coefficients.B)
C = np.ascontiguousarray(_coefficients.C)
E3 = np.ascontiguousarray(_coefficients.E3)
E5 = np.ascontiguousarray(_coefficients.E5)
D = np.ascontiguousarray(_coefficients.D)  # (4, 16) dense-output coefficients
SAFETY, MIN_FACTOR, MAX_FACTOR = 0.9, 0.2, 10.0
ERROR_EXPONENT = -1.0 / 8.0  # the error estimator is of order 7
ROOT_TOLERANCE = 4 * np.finfo(float).eps
NOT_CROSSED = np.finfo(float).tiny  # |g| given to an event function resting exactly on zero (_unfired)

# return codes of ``advance``
REACHED_END, EVENT, KERNEL_FAILED, STEP_TOO_SMALL, NOT_QUIET = 0, 1, 2, 3, 4
# slots of the ``info`` array
INFO_T, INFO_H, INFO_EVENT, INFO_RECORDS, INFO_RHS_CALLS, INFO_KERNEL_STATUS, INFO_STEPS = range(7)
INFO_SIZE = 7


@njit
def _inputs(t, forms, t0, tau):
    for i in range(tau.size):
        kind, a, b, c, d = forms[i, 0], forms[i, 1], forms[i, 2], forms[i, 3], forms[i, 4]
        tau[i] = a + b * (t - t0) if kind == 0.0 else a + b * np.sin(c * t + d)


@njit
def _rms(v, scale):
    s = 0.0
    for i in range(v.size):
        s += (v[i] / scale[i]) ** 2
    return np.sqrt(s / max(v.size, 1))


@njit
def _combine(y, h, coefficients, K, stages, out):
    """out = y + h * sum_j coefficients[j] K[j] over the first ``stages`` stages."""
    for i in range(y.size):
        acc = 0.0
        for j in range(stages):
            acc += coefficients[j] * K[j, i]
        out[i] = y[i] + h * acc


@njit
def _dense_coefficients(kernels, t_old, h, y_old, y_new, f_new, K, forms, t0, tau, fpar, ipar, fmode, imode,
                        ys, F):
    """The 3 extra stages and the interpolation polynomial F (7, n) of the last step (SciPy's
    Dop853DenseOutput). Returns the kernel status."""
    n = y_old.size
    for s in range(N_STAGES + 1, 16):
        _combine(y_old, h, A[s], K, s, ys)
        _inputs(t_old + C[s] * h, forms, t0, tau)
        st = registry.rhs(kernels, t_old + C[s] * h, ys, tau, fpar, ipar, fmode, imode, K[s])
        if st != 0:
            return st
    for i in range(n):
        delta = y_new[i] - y_old[i]
        F[0, i] = delta
        F[1, i] = h * K[0, i] - delta
        F[2, i] = 2.0 * delta - h * (f_new[i] + K[0, i])
        for r in range(4):
            acc = 0.0
            for j in range(16):
                acc += D[r, j] * K[j, i]
            F[3 + r, i] = h * acc
    return 0


@njit
def _interpolate(t, t_old, h, y_old, F, out):
    x = (t - t_old) / h
    for i in range(y_old.size):
        acc = 0.0
        for r in range(6, -1, -1):  # Horner form of SciPy's Dop853DenseOutput
            acc += F[r, i]
            acc *= x if (6 - r) % 2 == 0 else 1.0 - x
        out[i] = acc + y_old[i]


@njit
def _unfired(g, direction):
    """An event function g resting exactly on zero has not crossed yet: moved to the side before the
    crossing (hybrid.integrator.unfired, the same convention on the Python engine)."""
    return -direction * NOT_CROSSED if g == 0.0 and direction != 0 else g


@njit
def _event_value(kernels, k, direction, t, t_old, h, y_old, F, forms, t0, tau, fpar, ipar, fmode, imode, ys, g):
    _interpolate(t, t_old, h, y_old, F, ys)
    _inputs(t, forms, t0, tau)
    st = registry.events(kernels, t, ys, tau, fpar, ipar, fmode, imode, g)
    return _unfired(g[k], direction), st


@njit
def _event_root(kernels, k, direction, t_a, t_b, t_old, h, y_old, F, forms, t0, tau, fpar, ipar, fmode, imode, ys,
                g):
    """Root of event k in [t_a, t_b] on the dense output: Brent's method as in SciPy's brentq
    (xtol = rtol = 4 eps). Returns (root, kernel status)."""
    xpre, xcur = t_a, t_b
    fpre, st = _event_value(kernels, k, direction, xpre, t_old, h, y_old, F, forms, t0, tau, fpar, ipar, fmode, imode,
                            ys, g)
    if st != 0:
        return xcur, st
    fcur, st = _event_value(kernels, k, direction, xcur, t_old, h, y_old, F, forms, t0, tau, fpar, ipar, fmode, imode,
                            ys, g)
    if st != 0:
        return xcur, st
    if fpre == 0.0:
        return xpre, 0
    if fcur == 0.0:
        return xcur, 0
    xblk, fblk, spre, scur = 0.0, 0.0, 0.0, 0.0
    for _ in range(100):
        if fpre != 0.0 and fcur != 0.0 and (fpre < 0.0) != (fcur < 0.0):
            xblk, fblk = xpre, fpre
            spre = scur = xcur - xpre
        if abs(fblk) < abs(fcur):
            xpre, xcur, xblk = xcur, xblk, xcur
            fpre, fcur, fblk = fcur, fblk, fcur
        delta = (ROOT_TOLERANCE + ROOT_TOLERANCE * abs(xcur)) / 2.0
        sbis = (xblk - xcur) / 2.0
        if fcur == 0.0 or abs(sbis) < delta:
            return xcur, 0
        if abs(spre) > delta and abs(fcur) < abs(fpre):
            if xpre == xblk:  # interpolate
                stry = -fcur * (xcur - xpre) / (fcur - fpre)
            else:  # extrapolate
                dpre = (fpre - fcur) / (xpre - xcur)
                dblk = (fblk - fcur) / (xblk - xcur)
                stry = -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            if 2.0 * abs(stry) < min(abs(spre), 3.0 * abs(sbis) - delta):
                spre, scur = scur, stry
            else:
                spre = scur = sbis
        else:
            spre = scur = sbis
        xpre, fpre = xcur, fcur
        xcur += scur if abs(scur) > delta else (delta if sbis > 0 else -delta)
        fcur, st = _event_value(kernels, k, direction, xcur, t_old, h, y_old, F, forms, t0, tau, fpar, ipar, fmode, imode,
                                ys, g)
        if st != 0:
            return xcur, st
    return xcur, 0


@njit
def _initial_step(kernels, t, y, f, t_end, max_step, rtol, atol, forms, t0, tau, fpar, ipar, fmode, imode, ys, fs):
    """SciPy's select_initial_step (Hairer, Norsett, Wanner II.4) for an error estimator of order 7."""
    n = y.size
    scale = np.empty(n)
    for i in range(n):
        scale[i] = atol + abs(y[i]) * rtol
    d0, d1 = _rms(y, scale), _rms(f, scale)
    h0 = 1e-6 if d0 < 1e-5 or d1 < 1e-5 else 0.01 * d0 / d1
    h0 = min(h0, t_end - t)
    for i in range(n):
        ys[i] = y[i] + h0 * f[i]
    _inputs(t + h0, forms, t0, tau)
    st = registry.rhs(kernels, t + h0, ys, tau, fpar, ipar, fmode, imode, fs)
    for i in range(n):
        fs[i] -= f[i]
    d2 = _rms(fs, scale) / h0
    h1 = max(1e-6, h0 * 1e-3) if d1 <= 1e-15 and d2 <= 1e-15 else (0.01 / max(d1, d2)) ** (1.0 / 8.0)
    return min(100.0 * h0, h1, t_end - t, max_step), st


ADVANCE = types.int64(IVEC, F64, VEC, F64, F64, F64, F64, F64, types.float64[:, ::1], VEC, IVEC,
                      VEC, IVEC, IVEC, VEC, types.float64[:, ::1], VEC, F64)


@njit(ADVANCE, cache=True)
def advance(kernels, t, y, t_end, h_abs, rtol, atol, max_step, forms, fpar, ipar, fmode, imode,
            directions, grid, records, info, quiet):
    """Integrate y (n,) in place from t to t_end, or to the first event, whichever comes first.

    kernels: the model's ``registry.kernel_addresses``; fpar, ipar, fmode, imode: its arrays and its mode;
    h_abs: step size to try first (<= 0: choose one); forms (n_inputs, 5): the inputs (see above);
    directions: (n_events,) of the mode's events (-1 falling, +1 rising, 0 both); grid: increasing output
    times within (t, t_end], recorded by ``record`` into the rows of records (len(grid), n_record) before
    an event (grid points after it are left). info (INFO_SIZE,): time reached, next step size, index of the
    event (-1 none), rows recorded, right-hand sides evaluated, the failing kernel's status, steps taken.
    quiet > 0: first check that every event function at t is at least ``quiet`` from firing in its
    direction (a restart at changed inputs that cannot change the mode), else return NOT_QUIET at once.
    Returns REACHED_END, EVENT, KERNEL_FAILED, STEP_TOO_SMALL or NOT_QUIET.
    """
    n, n_events = y.size, directions.size
    t0 = t
    tau = np.empty(forms.shape[0])
    K = np.zeros((16, n))
    F = np.zeros((7, n))
    f, y_new, f_new, ys = np.empty(n), np.empty(n), np.empty(n), np.empty(n)
    g_old, g_new, g_scratch = np.empty(n_events), np.empty(n_events), np.empty(n_events)
    info[INFO_EVENT], info[INFO_RECORDS], info[INFO_KERNEL_STATUS], info[INFO_STEPS] = -1.0, 0.0, 0.0, 0.0
    calls = 1
    _inputs(t, forms, t0, tau)
    st = registry.rhs(kernels, t, y, tau, fpar, ipar, fmode, imode, f)
    if st == 0 and n_events:
        st = registry.events(kernels, t, y, tau, fpar, ipar, fmode, imode, g_old)
    if st == 0 and quiet > 0.0:
        for k in range(n_events):
            distance = abs(g_old[k]) if directions[k] == 0 else -directions[k] * g_old[k]
            if not distance > quiet:
                info[INFO_T], info[INFO_H], info[INFO_RHS_CALLS] = t, h_abs, calls
                return NOT_QUIET
    if st == 0 and not h_abs > 0.0 and t_end > t:  # no step size yet (or NaN)
        h_abs, st = _initial_step(kernels, t, y, f, t_end, max_step, rtol, atol, forms, t0, tau, fpar, ipar, fmode,
                                  imode, ys, f_new)
        calls += 1
    i_grid, n_rec, steps = 0, 0, 0
    status = REACHED_END
    while st == 0 and t < t_end:
        min_step = 10.0 * abs(np.nextafter(t, np.inf) - t)
        h_abs = min(h_abs, max_step)
        h_abs = max(h_abs, min_step)
        rejected = False
        while True:  # one accepted step (SciPy's RungeKutta._step_impl)
            if h_abs < min_step:
                status = STEP_TOO_SMALL
                break
            t_new = min(t + h_abs, t_end)
            h = t_new - t
            h_abs = h  # as SciPy: a step cut at t_end continues from its length (else a step size grown
            # without bound while the error was 0, e.g. in stiction, could never shrink again)
            for i in range(n):
                K[0, i] = f[i]
            for s in range(1, N_STAGES):
                _combine(y, h, A[s], K, s, ys)
                _inputs(t + C[s] * h, forms, t0, tau)
                st = registry.rhs(kernels, t + C[s] * h, ys, tau, fpar, ipar, fmode, imode, K[s])
                if st != 0:
                    break
            if st != 0:
                break
            _combine(y, h, B, K, N_STAGES, y_new)
            _inputs(t_new, forms, t0, tau)
            st = registry.rhs(kernels, t_new, y_new, tau, fpar, ipar, fmode, imode, f_new)
            calls += N_STAGES
            if st != 0:
                break
            for i in range(n):
                K[N_STAGES, i] = f_new[i]
            err5, err3 = 0.0, 0.0
            for i in range(n):
                scale = atol + max(abs(y[i]), abs(y_new[i])) * rtol
                e5, e3 = 0.0, 0.0
                for j in range(N_STAGES + 1):
                    e5 += E5[j] * K[j, i]
                    e3 += E3[j] * K[j, i]
                err5 += (e5 / scale) ** 2
                err3 += (e3 / scale) ** 2
            error = 0.0 if err5 == 0.0 and err3 == 0.0 else h * err5 / np.sqrt((err5 + 0.01 * err3) * n)
            if error < 1.0:
                factor = MAX_FACTOR if error == 0.0 else min(MAX_FACTOR, SAFETY * error ** ERROR_EXPONENT)
                if rejected:
                    factor = min(1.0, factor)
                h_abs *= factor
                break
            # SciPy's max(MIN_FACTOR, ...), which gives MIN_FACTOR for a NaN error (a right-hand side not
            # finite at a stage); numba's max would give NaN, and the step would never end
            shrink = SAFETY * error ** ERROR_EXPONENT
            h_abs *= shrink if shrink > MIN_FACTOR else MIN_FACTOR
            rejected = True
        if st != 0 or status != REACHED_END:
            break
        steps += 1
        dense = False
        t_stop = t_new
        fired = -1
        if n_events:
            _inputs(t_new, forms, t0, tau)
            st = registry.events(kernels, t_new, y_new, tau, fpar, ipar, fmode, imode, g_new)
            if st != 0:
                break
            for k in range(n_events):  # SciPy's find_active_events
                g0, g1 = _unfired(g_old[k], directions[k]), _unfired(g_new[k], directions[k])
                up = g0 <= 0.0 and g1 >= 0.0
                down = g0 >= 0.0 and g1 <= 0.0
                if not ((up and directions[k] > 0) or (down and directions[k] < 0)
                        or ((up or down) and directions[k] == 0)):
                    continue
                if not dense:
                    st = _dense_coefficients(kernels, t, h, y, y_new, f_new, K, forms, t0, tau, fpar, ipar, fmode,
                                             imode, ys, F)
                    calls += 3
                    dense = True
                    if st != 0:
                        break
                root, st = _event_root(kernels, k, directions[k], t, t_new, t, h, y, F, forms, t0, tau, fpar, ipar,
                                       fmode, imode, ys, g_scratch)
                if st != 0:
                    break
                if fired < 0 or root < t_stop:
                    fired, t_stop = k, root
            if st != 0:
                break
        # output times inside the step (before the event if one fired)
        while i_grid < grid.size and (grid[i_grid] < t_stop or (fired < 0 and grid[i_grid] == t_stop)):
            tg = grid[i_grid]
            if tg == t_new:
                ys[:] = y_new
            else:
                if not dense:
                    st = _dense_coefficients(kernels, t, h, y, y_new, f_new, K, forms, t0, tau, fpar, ipar, fmode,
                                             imode, ys, F)
                    calls += 3
                    dense = True
                    if st != 0:
                        break
                _interpolate(tg, t, h, y, F, ys)
            _inputs(tg, forms, t0, tau)
            st = registry.record(kernels, tg, ys, tau, fpar, ipar, fmode, imode, records[n_rec])
            if st != 0:
                break
            n_rec += 1
            i_grid += 1
        if st != 0:
            break
        if fired >= 0:
            _interpolate(t_stop, t, h, y, F, ys)
            y[:] = ys
            t = t_stop
            info[INFO_EVENT] = fired
            status = EVENT
            break
        t = t_new
        y[:] = y_new
        f[:] = f_new
        g_old[:] = g_new
    if st != 0:
        status = KERNEL_FAILED
    info[INFO_T], info[INFO_H], info[INFO_RECORDS] = t, h_abs, n_rec
    info[INFO_RHS_CALLS], info[INFO_KERNEL_STATUS], info[INFO_STEPS] = calls, st, steps
    return status
