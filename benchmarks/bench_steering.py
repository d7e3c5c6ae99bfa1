"""Real-time factor of the steering + vehicle co-simulation at a 1 ms communication step (not a test).

Driver torque sine sweep (3 N.m, 0.2 -> 2 Hz) at 80 km/h, in one process:
  steppers  the two models' co-simulation steppers (friction_joints.stepping.Stepper) coupled in a
            plain loop: the cost of the models and their integrator alone, no FMI;
  FMPy      the SteeringSystem and SingleTrackVehicle FMUs under friction_joints.fmi.master;
  libcosim  the same FMUs under libcosim (libcosimpy).
Reported: wall time, real-time factor (simulated / wall) and wall time per communication step.
Goal of the steering issue: real-time factor at least 5.

Usage: python benchmarks/bench_steering.py [--t-end 1.0] [--h 0.001] [--dist dist]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from friction_joints.stepping import Stepper
from friction_joints.vehicle import SingleTrackVehicle, SteeringParameters, SteeringSystem, VehicleParameters
from friction_joints.fmi.steering_vehicle import run_fmpy, run_libcosim, sine_sweep

ROOT = Path(__file__).resolve().parents[1]


def run_steppers(tau, t_end, h):
    vehicle_params = VehicleParameters()
    load = vehicle_params.front_wheel_load
    steering = Stepper(lambda inputs: SteeringSystem(SteeringParameters(), inputs), lambda s: s.initial_state(),
                       [0.0, 0.0, 0.0, load, load], rtol=1e-6)
    vehicle = Stepper(lambda inputs: SingleTrackVehicle(vehicle_params, inputs), lambda s: s.initial_state(),
                      [0.0, 0.0], rtol=1e-8)
    s_out, v_out = steering.outputs, vehicle.outputs
    for k in range(int(round(t_end / h))):
        t = k * h
        s_new = steering.step(t, h, [tau(t), v_out["M_z_left"], v_out["M_z_right"], v_out["F_z_left"], v_out["F_z_right"]])
        v_out = vehicle.step(t, h, [s_out["q"][3], s_out["q"][4]])
        s_out = s_new


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=1.0, help="simulated time [s]")
    parser.add_argument("--h", type=float, default=0.001, help="communication step [s]")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="folder of the built FMUs")
    args = parser.parse_args()
    tau = sine_sweep(3.0, 0.2, 2.0, 10.0)
    runs = [("steppers (no FMI)", lambda: run_steppers(tau, args.t_end, args.h)),
            ("FMUs, FMPy master", lambda: run_fmpy(args.dist, tau, args.t_end, args.h)),
            ("FMUs, libcosim", lambda: run_libcosim(args.dist, tau, args.t_end, args.h))]
    steps = int(round(args.t_end / args.h))
    print(f"steering + vehicle, {args.t_end:g} s at a {args.h * 1e3:g} ms communication step ({steps} steps)")
    for name, fn in runs:
        start = time.perf_counter()
        fn()
        wall = time.perf_counter() - start
        print(f"  {name:20s} {wall:6.2f} s wall, real-time factor {args.t_end / wall:5.2f}, "
              f"{wall / steps * 1e3:5.2f} ms per step")


if __name__ == "__main__":
    main()
