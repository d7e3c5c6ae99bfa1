"""Minimal form against the absolute-coordinate formulation, integrating seed 000 Example 1 with
friction (tau = 60 N.m from rest at theta1 = 0) to the same accuracy (not a test; prints ratios).

Both are integrated as plain ODEs by DOP853 with the friction directions sgn(sd) (no events, so the
comparison is of the formulations alone). The reference is the minimal form at rtol 1e-12; the
error is |theta1(t_end) - reference|. The absolute formulation integrates x (9 coordinates) and
xdot with the closed-loop constraints only at acceleration level, so it also drifts off them.

Usage: python benchmarks/bench_formulations.py [--t-end 10]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.integrate import solve_ivp

from friction_joints.mechanisms import offset_slider_crank
from friction_joints.planar import absolute_dynamics

TAU = [60.0]


def minimal_run(mech, q0, t_end, rtol):
    k1 = mech.minimal.k1

    def rhs(t, y):
        sol = mech.minimal.evaluate(y[:k1], y[k1:], TAU, mech.partition)
        return np.concatenate((sol.qd, sol.udot))

    t0 = time.perf_counter()
    res = solve_ivp(rhs, (0.0, t_end), np.append(q0, 0.0), method="DOP853", rtol=rtol, atol=rtol * 1e-2)
    return time.perf_counter() - t0, res.y[0, -1], res.nfev, 0.0


def absolute_run(mech, q0, t_end, rtol):
    model, n = mech.model, mech.model.n

    def rhs(t, y):
        return np.concatenate((y[n:], absolute_dynamics(model, y[:n], y[n:], TAU).xdd))

    x0 = mech.minimal.coords.g(q0)
    t0 = time.perf_counter()
    res = solve_ivp(rhs, (0.0, t_end), np.append(x0, np.zeros(n)), method="DOP853", rtol=rtol, atol=rtol * 1e-2)
    wall = time.perf_counter() - t0
    z = model.constraints(res.y[:n, -1])[0]
    return wall, res.y[2, -1], res.nfev, float(np.abs(z).max())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=10.0, help="simulated time (s)")
    args = parser.parse_args()
    mech = offset_slider_crank()
    q0 = mech.assemble([0.0])
    _, ref, _, _ = minimal_run(mech, q0, args.t_end, 1e-12)
    print(f"Example 1 with friction, tau = 60 N.m, {args.t_end:g} s; reference theta1 = {ref:.10f} rad")
    print(f"  {'form':9s} {'rtol':>6s} {'error [rad]':>12s} {'wall [s]':>9s} {'rhs calls':>9s} {'closure':>9s}")
    rows = {}
    for rtol in (1e-6, 1e-8, 1e-10):
        for name, run in (("minimal", minimal_run), ("absolute", absolute_run)):
            wall, th, nfev, drift = run(mech, q0, args.t_end, rtol)
            rows[name, rtol] = (abs(th - ref), wall)
            print(f"  {name:9s} {rtol:6.0e} {abs(th - ref):12.3e} {wall:9.2f} {nfev:9d} {drift:9.1e}")
    print("  wall-time ratio absolute/minimal at equal rtol: " +
          ", ".join(f"{r:.0e}: {rows['absolute', r][1] / rows['minimal', r][1]:.2f}" for r in (1e-6, 1e-8, 1e-10)))


if __name__ == "__main__":
    main()
