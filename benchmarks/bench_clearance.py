"""Cost of a clearance-joint contact evaluation, planar and spatial with n slices, and of free-journal runs
(not a test).

Steel journal R_J = 9.5 mm in a bearing R_B = 10 mm (c = 0.5 mm), K from ``cylinder_stiffness``, Flores law
c_e = 0.5, Tanh friction mu_k = 0.2, v_eps = 1 mm/s. Evaluation: one contact in contact (delta ~ 1 um) with
random velocities, best of a few repeats of ``--calls`` calls; the spatial joint with a 0.03 rad skew, length
20 mm. Runs: the free journal thrown at 0.5 m/s with spin, T seconds, Python engine, rtol 1e-10, atol 1e-13, in
the planar joint and in the spatial joint (aligned axes, 10 slices). Reported: microseconds per call and the
ratio to the planar evaluation, wall seconds per simulated second and the ratio to the planar run.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_clearance.py [--calls 2000] [--t-end 0.01]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from friction_joints.contact import (Flores, FreeJournal, PlanarClearance, SpatialClearance, SpatialJournal,
                                     cylinder_stiffness)
from friction_joints.friction import Tanh
from friction_joints.hybrid.integrator import HybridIntegrator

R_J, R_B, L = 9.5e-3, 10e-3, 0.02
C = R_B - R_J
LAW = Flores(0.5, cylinder_stiffness(R_J, R_B, 207e9, 207e9))
FRICTION = Tanh(mu_k=0.2, v_eps=1e-3)


def per_call(fn, calls, repeats=3):
    """Best time (s) per call of fn() over ``repeats`` batches of ``calls``."""
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def main(calls, t_end):
    rng = np.random.default_rng(0)
    planar = PlanarClearance(R_J, R_B, LAW, FRICTION)
    r_J, v_J, v_B = np.array([C + 1e-6, 0.0]), rng.normal(size=2), rng.normal(size=2)
    base = per_call(lambda: planar.contact(r_J, v_J, 30.0, np.zeros(2), v_B, 0.0, 0.5), calls)
    print(f"contact evaluation ({calls} calls, best of 3)")
    print(f"  {'planar':24s} {base * 1e6:9.1f} us  {1.0:7.1f} x planar")
    u_J = np.array([0.0, -np.sin(0.03), np.cos(0.03)])
    state = dict(r_J=np.array([0.0, 0.0, 0.0]), u_J=u_J, v_J=rng.normal(size=3), omega_J=rng.normal(size=3) * 30,
                 r_B=np.zeros(3), u_B=np.array([0.0, 0.0, 1.0]), v_B=rng.normal(size=3), omega_B=np.zeros(3),
                 deltad0=0.5)
    for n in (1, 10, 50, 200):
        joint = SpatialClearance(R_J, R_B, L, LAW, FRICTION, n)
        cost = per_call(lambda: joint.contact(**state), calls)
        print(f"  {f'spatial, {n} slices':24s} {cost * 1e6:9.1f} us  {cost / base:7.1f} x planar")
    J = 0.5 * 0.1 * R_J**2
    flat = FreeJournal(planar, 0.1, J)
    spatial = SpatialJournal(SpatialClearance(R_J, R_B, L, LAW, FRICTION, 10), 0.1, J, 0.1 * (3 * R_J**2 + L**2) / 12)
    runs = (("planar journal", flat, flat.initial_state((0.0, 0.0), (0.3, 0.4), omega=50.0)),
            ("spatial journal, 10 slices", spatial, spatial.initial_state(np.zeros(3), [0.3, 0.4, 0.0],
                                                                          omega=[0.0, 0.0, 50.0])))
    print(f"free journal thrown at 0.5 m/s, {t_end} s simulated")
    base_run = None
    for label, system, y0 in runs:
        start = time.perf_counter()
        res = HybridIntegrator(system, 0.0, y0, rtol=1e-10, atol=1e-13).advance(t_end)
        wall = time.perf_counter() - start
        base_run = base_run or wall
        impacts = sum(k == "impact" for _, k in res.events)
        print(f"  {label:28s} {impacts} impacts {wall / t_end:9.0f} s per simulated s  {wall / base_run:6.1f} x planar")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--t-end", type=float, default=0.01)
    args = parser.parse_args()
    main(args.calls, args.t_end)
