"""The SliderCrank FMU through FMPy against the same run in the library alone (not a test).

SliderCrank (seed 000 Example 2) from rest in its hanging equilibrium, drive torque
tau = 4 sin(3 t) N.m sampled and held at every communication point, communication step 1 ms,
internal rtol 1e-8. In one process:
  fmu      the built FMU stepped by FMPy's FMU2Slave (pythonfmu binary, Python slave, our stepper);
  stepper  friction_joints.stepping.MechanismStepper with the same held inputs (what the slave calls);
  library  friction_joints.simulation.simulate with the same piecewise-constant torque table.
Reported: wall time, real-time factor (simulated / wall), per-step cost, the FMU's overhead per
step over the stepper, and the largest difference of the crank angle between the runs.
Goal of the FMU issue: 10 s in under 1 s of wall time (real-time factor 10).

Usage: python benchmarks/bench_fmu.py [--t-end 10] [--h 0.001] [--dist dist]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from fmpy_slave import initialised

from friction_joints.hybrid import PiecewiseConstant
from friction_joints.mechanisms import slider_crank
from friction_joints.simulation import simulate
from friction_joints.stepping import MechanismStepper

ROOT = Path(__file__).resolve().parents[1]


def torque(t):
    return 4.0 * np.sin(3.0 * t)


def run_fmu(path, t_grid, h):
    with initialised(path) as (fmu, vr):
        q1 = []
        start = time.perf_counter()
        for t in t_grid:
            fmu.setReal([vr["tau"]], [torque(t)])
            fmu.doStep(t, h)
            q1.append(fmu.getReal([vr["q[1]"]])[0])
        wall = time.perf_counter() - start
    return wall, np.array(q1)


def run_stepper(t_grid, h):
    mech = slider_crank()
    start = time.perf_counter()
    stepper = MechanismStepper(mech, mech.assemble([0.0]), [0.0], [torque(0.0)], rtol=1e-8)
    q1 = [stepper.step(t, h, [torque(t)])["q"][0] for t in t_grid]
    return time.perf_counter() - start, np.array(q1)


def run_library(t_grid, h):
    mech = slider_crank()
    t_end = t_grid[-1] + h
    start = time.perf_counter()
    res = simulate(mech, [PiecewiseConstant(t_grid, torque(t_grid))], t_end, mech.assemble([0.0]), [0.0], dt_out=h,
                   rtol=1e-8, atol=1e-10)
    wall = time.perf_counter() - start
    return wall, res["q"][res.rows_at(t_grid + h), 0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--t-end", type=float, default=10.0, help="s")
    parser.add_argument("--h", type=float, default=1e-3, help="communication step, s")
    parser.add_argument("--dist", default=str(ROOT / "dist"))
    args = parser.parse_args()
    n = int(round(args.t_end / args.h))
    t_grid = np.arange(n) * args.h
    print(f"SliderCrank, {args.t_end:g} s at h = {args.h * 1e3:g} ms ({n} steps), rtol 1e-8", flush=True)
    runs = {}
    for name, fn in (("fmu", lambda: run_fmu(Path(args.dist) / "SliderCrank.fmu", t_grid, args.h)),
                     ("stepper", lambda: run_stepper(t_grid, args.h)), ("library", lambda: run_library(t_grid, args.h))):
        runs[name] = fn()
        print(f"  {name} done in {runs[name][0]:.1f} s", flush=True)
    for name, (wall, q1) in runs.items():
        print(f"  {name:8s} {wall:8.2f} s wall, real-time factor {args.t_end / wall:7.3f}, "
              f"{wall / n * 1e3:7.2f} ms per step, max |q1 - q1_fmu| = {np.abs(q1 - runs['fmu'][1]).max():.2e} rad")
    overhead = (runs["fmu"][0] - runs["stepper"][0]) / n
    print(f"  FMU overhead over the stepper: {overhead * 1e3:.3f} ms per step; "
          f"fmu / library wall ratio {runs['fmu'][0] / runs['library'][0]:.2f}")


if __name__ == "__main__":
    main()
