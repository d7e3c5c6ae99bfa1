"""Newmark's method with iteration, the integrator of seed 002 Sect. 4, for comparison with the
event-driven DOP853 integrator.

For a system in one smooth mode whose state is y = [q (n), qd (n), w (k)] with
dy/dt = [qd, a(t, y), wd(t, y)] (w: work integrals and the like), one step of size h is

    q1  = q + h qd + h^2 ((1/2 - beta) a + beta a1),
    qd1 = qd + h ((1 - gamma) a + gamma a1),           w1 = w + h (wd + wd1) / 2,

with a1 = a(t + h, y1) solved by iteration. Fixed-point iteration (``iteration="fixed-point"``, the
plain reading of the paper) fails where the friction characteristic of seed 002 eq. (7) is steep
(|psid| < psid_k, slope k mu_0 / psid_k): for the RSRRR starting from rest it does not converge in
50 passes at 39 of the first 250 steps of 2 ms. The default is Newton's iteration, with the Jacobian
d(a1 - a(y1(a1)))/da1 formed once per step by differences (modified Newton). beta = 1/4, gamma = 1/2 (the average-acceleration
rule) is second-order accurate and unconditionally stable for linear systems.
"""

from __future__ import annotations

import numpy as np

from ..errors import ConvergenceError


def newmark(system, y0, t_end, h, n, *, mode=None, beta=0.25, gamma=0.5, tol=1e-10, max_iter=50,
            iteration="newton"):
    """Integrate from t = 0 to t_end (s) with steps h (s); n: number of coordinates q; iteration:
    "newton" or "fixed-point" (raises ConvergenceError when it does not converge in max_iter passes).

    Returns (t (N+1,), y (N+1, len(y0)), evaluations): the states at the steps and the number of
    right-hand-side evaluations.
    """
    if not (h > 0 and t_end > 0):
        raise ValueError(f"h={h!r} and t_end={t_end!r} must be positive")
    if iteration not in ("newton", "fixed-point"):
        raise ValueError(f"iteration must be 'newton' or 'fixed-point', got {iteration!r}")
    if not (0 <= beta <= 0.5 and 0 <= gamma <= 1):
        raise ValueError(f"beta={beta!r} must be in [0, 0.5] and gamma={gamma!r} in [0, 1]")
    steps = int(np.ceil(t_end / h - 1e-9))
    evaluations = 0

    def f(t, y):
        nonlocal evaluations
        evaluations += 1
        return system.rhs(t, y, mode)

    system.begin_segment(0.0, np.inf)
    ys = np.empty((steps + 1, len(y0)))
    ys[0] = y = np.array(y0, float)
    d = f(0.0, y)
    for i in range(steps):
        t, t1 = i * h, min((i + 1) * h, t_end)
        dt = t1 - t
        q, qd, w, a, wd = y[:n], y[n:2 * n], y[2 * n:], d[n:2 * n], d[2 * n:]

        def state(a1):
            q1 = q + dt * qd + dt**2 * ((0.5 - beta) * a + beta * a1)
            qd1 = qd + dt * ((1.0 - gamma) * a + gamma * a1)
            return np.concatenate((q1, qd1, w))

        def residual(a1):
            d1 = f(t1, state(a1))
            return a1 - d1[n:2 * n], d1

        a1 = a.copy()
        r, d1 = residual(a1)
        if iteration == "newton":
            eps = 1e-7 * max(1.0, np.abs(a).max())
            jac = np.column_stack([(residual(a1 + eps * e)[0] - r) / eps for e in np.eye(n)])
        for _ in range(max_iter):
            step = np.linalg.solve(jac, r) if iteration == "newton" else r
            a1 = a1 - step
            r, d1 = residual(a1)
            if np.abs(step).max() <= tol * (1.0 + np.abs(a1).max()):
                break
        else:
            raise ConvergenceError(f"Newmark {iteration} iteration did not converge in {max_iter} passes at t={t1:.9g}")
        y = state(a1)
        y[2 * n:] = w + 0.5 * dt * (wd + d1[2 * n:])
        ys[i + 1], d = y, d1
    return np.append(np.arange(steps) * h, t_end), ys, evaluations
