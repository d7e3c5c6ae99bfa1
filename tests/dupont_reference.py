"""An independent reference for the Dupont problem (seed 000 Sect. 3), by closed form, not the engine.

The slip phase of m1 has a closed-form velocity (eq. 3.4 integrated):
    v(t) = v0 + [ (7/2.4)(cos 2.4 t0 - cos 2.4 t) - s mu_k m1/(m1+m2) (A(t) - A(t0)) ] / m1,
with A the antiderivative of |50 cos 0.8 t|. Zeros of v and breakaway instants
|F1| = mu_s m1 |F2| / (m1+m2) are bracketed on a fine grid and refined by brentq to 1e-14 s.
At v = 0 the mass sticks if |F1| <= mu_s N, else it reverses (eq. 3.5).
"""

import numpy as np
from scipy.optimize import brentq

M1, M2, MU_S, MU_K = 10.0, 30.0, 0.5, 0.3


def F1(t):
    return 7 * np.sin(2.4 * t)


def normal(t):
    return M1 * abs(50 * np.cos(0.8 * t)) / (M1 + M2)


def A(t):
    th = 0.8 * t
    n = np.floor((th + np.pi / 2) / np.pi)
    return 50 / 0.8 * (2 * n + (-1) ** n * np.sin(th))


def velocity(t, t0, s):
    return ((7 / 2.4) * (np.cos(2.4 * t0) - np.cos(2.4 * t)) - s * MU_K * M1 / (M1 + M2) * (A(t) - A(t0))) / M1


def _first_root(fn, t0, t_end, rising=None, dt=1e-3):
    ts = np.arange(t0 + dt, t_end + dt, dt)
    prev_t, prev = t0 + 1e-9, fn(t0 + 1e-9)
    for t in ts:
        val = fn(t)
        if np.sign(val) != np.sign(prev) and (rising is None or (val > prev) == rising):
            return brentq(fn, prev_t, t, xtol=1e-14, rtol=4 * np.finfo(float).eps)
        prev_t, prev = t, val
    return None


def dupont_events(t_end=10.0):
    """[(time, kind)] with kind 'stick', 'breakaway' or 'reversal', starting at rest at t = 0."""
    events, t, stuck, s = [], 0.0, True, 0
    if abs(F1(0.0)) <= MU_S * normal(0.0):
        events.append((0.0, "stick"))
    while t < t_end:
        if stuck:
            t_b = _first_root(lambda x: abs(F1(x)) - MU_S * normal(x), t, t_end, rising=True)
            if t_b is None:
                break
            events.append((t_b, "breakaway"))
            t, stuck, s = t_b, False, np.sign(F1(t_b))
        else:
            t0, s0 = t, s
            t_z = _first_root(lambda x: velocity(x, t0, s0), t0, t_end)
            if t_z is None:
                break
            t = t_z
            if abs(F1(t)) <= MU_S * normal(t):
                events.append((t, "stick"))
                stuck = True
            else:
                events.append((t, "reversal"))
                s = -s0
    return events
