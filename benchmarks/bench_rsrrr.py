"""The RSRRR linkage of seed 002: costs of its formulations and integrators (not a test).

All runs start from rest in the yz-plane pose with the drive ramp and governed load of Fig. 10 as
we read it (friction_joints.spatial.system), in one process. Reported:
  per evaluation  one dynamics evaluation with friction (eq. 2 + Newton-Euler + coupling), recursive
                  against the paper's trace formulation, cut form against the minimal form;
  per sim. second wall time per simulated second over --t-end, DOP853 (rtol 1e-8) with the recursive
                  and the trace formulation, with and without friction;
  Newmark         the paper's integrator at fixed steps against DOP853 at rtol 1e-11 over 0.5 s
                  (frictionless and with friction): error of the state, evaluations, wall time;
  FMU             the RSRRRLinkage FMU stepped by FMPy at a 1 ms communication step (rtol 1e-6):
                  wall per step and real-time factor.

Usage: python benchmarks/bench_rsrrr.py [--t-end 1.0] [--fmu-time 0.1] [--dist dist]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from friction_joints.engine import run
from friction_joints.fmi.master import FMUInstance
from friction_joints.hybrid.newmark import newmark
from friction_joints.hybrid.stiction import DirectionMode
from friction_joints.spatial.rsrrr import RSRRR, RSRRRParameters
from friction_joints.spatial.system import RSRRRSystem, paper_drive, paper_load

ROOT = Path(__file__).resolve().parents[1]


def best_of(fn, repeat=7, number=20):
    fn()  # warm-up (first calls pay for imports and caches)
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - start) / number)
    return best


def system(friction=True, trace=False, drive=None):
    return RSRRRSystem(RSRRR(RSRRRParameters(friction=friction, trace=trace)),
                       [paper_drive() if drive is None else drive, 0.0], paper_load())


def per_evaluation():
    mech, trace = RSRRR(), RSRRR(RSRRRParameters(trace=True))
    q = mech.loop.assemble(mech.initial_position() + [0.7, 0.0, 0.0, 0.0])
    qd = mech.loop.dependent_velocities(q, np.array([8.0]))
    rows = [("recursive, cut form", lambda: mech.dynamics(q, qd, 5.0)),
            ("trace, cut form", lambda: trace.dynamics(q, qd, 5.0)),
            ("recursive, minimal form", lambda: mech.dynamics(q, qd, 5.0, minimal=True))]
    base = None
    print("one dynamics evaluation with friction       [ms]   ratio")
    for name, fn in rows:
        t = best_of(fn)
        base = base or t
        print(f"  {name:40s} {t * 1e3:6.2f}  {t / base:5.2f}")
    print(f"  coupling iterations to 1e-12 N.m here: {mech.dynamics(q, qd, 5.0).iterations}")


def per_simulated_second(t_end):
    print(f"wall time per simulated second over {t_end:g} s (DOP853, rtol 1e-8)")
    for friction in (False, True):
        walls = {}
        for trace in (False, True):
            s = system(friction, trace)
            start = time.perf_counter()
            r = run(s, s.initial_state(), t_end, dt_out=0.01, rtol=1e-8, atol=1e-10)
            walls[trace] = (time.perf_counter() - start) / t_end
        print(f"  friction={friction!s:5s}  recursive {walls[False]:6.2f} s  trace {walls[True]:6.2f} s  "
              f"ratio trace/recursive {walls[True] / walls[False]:4.2f}  closure {r['closure'].max():.1e} m")


def newmark_against_dop853():
    print("Newmark (beta 1/4, gamma 1/2, Newton) against DOP853 over 0.5 s from 3 rad/s, drive 3 N.m")
    for friction in (False, True):
        s = system(friction, drive=3.0)
        y0 = s.initial_state(psid11=3.0)
        start = time.perf_counter()
        ref = run(s, y0, 0.5, dt_out=0.5, rtol=1e-11, atol=1e-13)
        print(f"  friction={friction!s:5s} DOP853 rtol 1e-11: {time.perf_counter() - start:6.2f} s wall")
        exact = np.concatenate((ref["q"][-1], ref["qd"][-1]))
        for rtol in (1e-6, 1e-8):
            start = time.perf_counter()
            calls = [0]
            rhs = s.rhs

            def counted(t, y, mode):
                calls[0] += 1
                return rhs(t, y, mode)

            s.rhs = counted
            r = run(s, y0, 0.5, dt_out=0.5, rtol=rtol, atol=rtol * 1e-2)
            s.rhs = rhs
            err = np.abs(np.concatenate((r["q"][-1], r["qd"][-1])) - exact).max()
            print(f"    DOP853 rtol {rtol:.0e}: error {err:.1e}, {calls[0]:5d} evaluations, "
                  f"{time.perf_counter() - start:6.2f} s")
        for h in (4e-3, 2e-3, 1e-3):
            start = time.perf_counter()
            _, y, evaluations = newmark(s, y0, 0.5, h, 4, mode=DirectionMode(1))
            print(f"    Newmark h {h:.0e}:    error {np.abs(y[-1, :8] - exact).max():.1e}, {evaluations:5d} evaluations, "
                  f"{time.perf_counter() - start:6.2f} s")


def fmu(dist, t_end, h=1e-3):
    path = dist / "RSRRRLinkage.fmu"
    if not path.exists():
        print(f"FMU: {path} not found (python build_fmu.py --out {dist})")
        return
    inst = FMUInstance(path, "bench", {"psid1_start": 8.0})
    steps = int(round(t_end / h))
    start = time.perf_counter()
    for k in range(steps):
        inst.set({"tau": 10.0})
        inst.fmu.doStep(k * h, h)
        inst.get(["psi[1]", "f_S[1]", "t_f[1]"])
    wall = time.perf_counter() - start
    inst.close()
    print(f"FMU RSRRRLinkage at a {h * 1e3:g} ms step over {t_end:g} s from 8 rad/s: {wall / steps * 1e3:.1f} ms per step, "
          f"real-time factor {t_end / wall:.3f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=1.0, help="simulated time of the per-second runs [s]")
    parser.add_argument("--fmu-time", type=float, default=0.1, help="simulated time of the FMU run [s]")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="folder of the built FMUs")
    args = parser.parse_args()
    per_evaluation()
    per_simulated_second(args.t_end)
    newmark_against_dop853()
    fmu(args.dist, args.fmu_time)


if __name__ == "__main__":
    main()
