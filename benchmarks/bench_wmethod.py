"""What reusing the Jacobian across steps would save on the RSRRR linkage's stiff cases (not a test).

RODAS (rodas.c) is a classical Rosenbrock method: its order needs the exact Jacobian at every step, which costs
one right-hand side per state (but the work integrals) and is most of a step (12 of 18 right-hand sides for the
planar clearance, 32 of 38 for the four-sde flexible link). A Rosenbrock W-method keeps its order with any
matrix in place of the Jacobian, so one Jacobian can serve many steps. This prototype (Python, over the C family's
right-hand side) runs ROS34PW2 (Rang & Angermann 2005, BIT 45: four stages, order 3 with an embedded order 2,
stiffly accurate, L-stable, a W-method) with the Jacobian of rodas.c's forward differences refreshed every
``reuse`` steps or after a rejected step on a stale one, the step size controlled on rodas.c's error norm with the
exponent 1/3 of the embedded order, against the engine's RODAS: the RSRRRLinkage FMU's case (bench_rsrrr_clearance)
run to ``--t-mid`` as its twin does, then ``--span`` seconds with the drive held at its value there (no events:
the planar journal stays in contact), both at rtol (atol = rtol / 100). Reported: integrator steps, rejected
steps, Jacobians, right-hand sides (the Jacobians' columns included) and the largest error of q and qd at the
end against RODAS at rtol 1e-10.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_wmethod.py [--case flex|planar] [--t-mid 0.2] [--span 0.02]
"""

from __future__ import annotations

import argparse

import numpy as np
import scipy.linalg

from bench_rsrrr_clearance import FMU_CASES, drive, twin
from friction_joints.engine import make_integrator
from friction_joints.spatial.clearance_system import ClearanceRSRRRSystem

# ROS34PW2 (Rang & Angermann 2005): (I - h gamma J) k_i = h f(y + sum_j alpha_ij k_j) + h J sum_j gamma_ij k_j,
# y1 = y + sum b_i k_i, the error estimate sum (b_i - b^_i) k_i
GAMMA = 0.435866521508459
ALPHA = np.array([[0.0, 0.0, 0.0], [0.87173304301691801, 0.0, 0.0],
                  [0.84457060015369423, -0.11299064236484185, 0.0], [0.0, 0.0, 1.0]])
GAMMAS = np.array([[0.0, 0.0, 0.0], [-0.87173304301691801, 0.0, 0.0],
                   [-0.90338057013044082, 0.054180672388095326, 0.0],
                   [0.24212380706095346, -1.2232505839045147, 0.54526025533510214]])
B = np.array([0.24212380706095346, -1.2232505839045147, 1.5452602553351020, GAMMA])
B_HAT = np.array([0.37810903145819369, -0.096042292212423178, 0.5, 0.2179332607542295])
CASES = {"flex": "flexible link, 4 sdes", "planar": "planar clearance"}


def start_of(case, t_mid, h=1e-3):
    """(system with the drive held at its value at t_mid, t_mid, y there, its mode) of the FMU's case run by its
    twin to t_mid (rtol 1e-6)."""
    _, stepper = twin(FMU_CASES[CASES[case]], 1e-6)
    for k in range(round(t_mid / h)):
        stepper.step(k * h, h, [drive(k * h)[0], 0.0])
    state, system = stepper.integrator.state, stepper.system
    return ClearanceRSRRRSystem(system.mech, [drive(t_mid)[0], 0.0], system.load), state.t, state.y, state.mode


def rodas(system, t0, y0, span, rtol):
    """(y at t0 + span, steps, right-hand sides) of the engine's RODAS, 1 ms calls."""
    integrator = make_integrator(system, t0, y0, engine="compiled", rtol=rtol, atol=rtol * 1e-2)
    for k in range(1, round(span / 1e-3) + 1):
        integrator.advance_to(t0 + k * 1e-3)
    rhs, steps, _ = integrator.instance.counters
    return np.array(integrator.state.y), steps, rhs


def w_method(system, mode, y0, span, rtol, reuse):
    """(y at the end, steps, rejected, Jacobians, right-hand sides) of ROS34PW2 over span from y0 with the
    Jacobian refreshed every `reuse` steps or after a rejection on a stale one."""
    model, n, calls = system.compiled(), y0.size, [0]
    fmode, imode = system.encode_mode(mode)
    tau = np.asarray(system.input_values(0.0), float)
    integrals = 4  # W_drive, W_res, W_friction, W_dissipated: no right-hand side reads them

    def f(y):
        out = np.zeros(n)
        calls[0] += 1
        if model.rhs(0.0, y, tau, model.fpar, model.ipar, fmode, imode, out) != 0:
            raise RuntimeError("the right-hand side failed")
        return out

    def jacobian(y, f0):  # rodas.c's forward differences
        J = np.zeros((n, n))
        for j in range(n - integrals):
            step, ys = np.sqrt(1e-16 * max(1e-5, abs(y[j]))), y.copy()
            ys[j] += step
            J[:, j] = (f(ys) - f0) / step
        return J

    y, t, h, atol = y0.copy(), 0.0, 1e-5, rtol * 1e-2
    J, age, jacobians, steps, rejected = None, 0, 0, 0, 0
    while t < span * (1 - 1e-12):
        h = min(h, span - t)
        f0 = f(y)
        if J is None or age >= reuse:
            J, age, jacobians = jacobian(y, f0), 0, jacobians + 1
        while True:
            lu = scipy.linalg.lu_factor(np.eye(n) / (h * GAMMA) - J)
            K = np.zeros((4, n))
            for i in range(4):
                fi = f(y + ALPHA[i, :i] @ K[:i]) if i else f0
                K[i] = scipy.linalg.lu_solve(lu, (fi + J @ (GAMMAS[i, :i] @ K[:i])) / GAMMA)
            y_new = y + B @ K
            scale = atol + rtol * np.maximum(np.abs(y), np.abs(y_new))
            err = np.sqrt(np.mean(((B - B_HAT) @ K / scale) ** 2))
            fac = min(5.0, max(0.2, 0.9 * err ** (-1.0 / 3.0))) if err > 0 else 5.0
            if err <= 1.0:
                t, y, h, steps, age = t + h, y_new, h * fac, steps + 1, age + 1
                break
            rejected, h = rejected + 1, h * min(fac, 0.5)
            if age > 0:
                J, age, jacobians = jacobian(y, f0), 0, jacobians + 1
    return y, steps, rejected, jacobians, calls[0]


def main(case, t_mid, span):
    system, t0, y0, mode = start_of(case, t_mid)
    n = (y0.size - 4) // 2
    reference = rodas(system, t0, y0, span, 1e-10)[0]

    def errors(y):
        return np.abs(y[:n] - reference[:n]).max(), np.abs(y[n:2 * n] - reference[n:2 * n]).max()

    print(f"{CASES[case]}, {span} s from t = {t_mid} s with the drive held; error at the end against rtol 1e-10")
    print(f"  {'method':22s} {'rtol':>6s} {'steps':>6s} {'rejected':>8s} {'Jacobians':>9s} {'rhs':>6s} "
          f"{'error q':>8s} {'error qd':>8s}")
    for rtol in (1e-6, 1e-5):
        y, steps, rhs = rodas(system, t0, y0, span, rtol)
        print(f"  {'RODAS':22s} {rtol:6.0e} {steps:6d} {'':>8s} {steps:9d} {rhs:6d} "
              f"{errors(y)[0]:8.1e} {errors(y)[1]:8.1e}")
        for reuse in (1, 5, 20):
            y, steps, rejected, jacobians, rhs = w_method(system, mode, y0, span, rtol, reuse)
            print(f"  {f'ROS34PW2, reuse {reuse}':22s} {rtol:6.0e} {steps:6d} {rejected:8d} {jacobians:9d} {rhs:6d} "
                  f"{errors(y)[0]:8.1e} {errors(y)[1]:8.1e}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=CASES, default="flex")
    parser.add_argument("--t-mid", type=float, default=0.2)
    parser.add_argument("--span", type=float, default=0.02)
    args = parser.parse_args()
    main(args.case, args.t_mid, args.span)
