"""Cost of a clearance joint (planar, spatial) and of a flexible link (modified and classical RFEM) in the RSRRR
linkage, against the ideal rigid linkage, in one run (not a test).

Every case is a ``ClearanceRSRRRSystem`` on the Python engine (the ideal rigid case too, so the ratios measure the
model, not the engine): clearance 0.1 mm in joint (2,2), K = 1e8 N/m^1.5, Flores law e = 0.9, Tanh contact friction
(v_eps = 1 mm/s), the spatial model with 10 slices; the flexible coupler (2,3) with 2 sdes and a soft material
(E = 2 GPa, G = E / 2.6, so that runs stay short; steel only shortens the steps further). Reported: the time of
one right-hand side evaluation (best of ``--calls`` calls, in contact for the clearance cases) and of a run of
``--t-end`` seconds from the seated journal (tau = 2 N.m, rtol 1e-8), each with its ratio to the ideal rigid
linkage. Cases are timed round-robin (best of ``--rounds``) so that load changes touch every case alike.

With ``--fmu RSRRRLinkage.fmu`` (built by build_fmu.py) it measures instead the FMU stepped by FMPy at 1 ms
(pythonfmu binary on the compiled engine), and with ``--native native/RSRRRLinkage.fmu`` (build_fmu.py --native)
the native FMU beside it: the drive of its experiment (tau ramped to 10 N.m over 2 s, tau_res 0, the governed load
of its defaults), from rest; cases: a planar clearance of 0.1 mm in (2,2) with its default contact (the Hertz
stiffness of steel), the spatial one, a flexible coupler (2,3) of four steel sdes (modified and classical RFEM),
the ideal rigid linkage. Reported: the real-time factors (simulated / wall seconds) over ``--fmu-t-end`` seconds (a
tenth of it for the spatial model), or up to a step that failed, their ratio, and the right-hand sides and
integrator steps per communication step (the native FMU's; its twin's engine takes the same).

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_rsrrr_clearance.py [--calls 200] [--t-end 0.005] [--rounds 2]
       python benchmarks/bench_rsrrr_clearance.py --fmu dist/RSRRRLinkage.fmu [--native dist/native/RSRRRLinkage.fmu]
           [--fmu-t-end 1.0]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from friction_joints.contact import FREE, Contact
from friction_joints.engine import run
from friction_joints.spatial.clearance_rsrrr import ClearanceParameters, ClearanceRSRRR
from friction_joints.spatial.clearance_system import ClearanceRSRRRSystem

CONTACT = dict(clearance=1e-4, k_contact=1e8, joint=2)
SOFT = dict(flexible=3, n_rfe=2, E=2e9, G=2e9 / 2.6)
CASES = {
    "ideal rigid": ClearanceParameters(),
    "planar clearance": ClearanceParameters(**CONTACT),
    "spatial clearance": ClearanceParameters(**CONTACT, model="spatial"),
    "modified RFEM": ClearanceParameters(**SOFT, rfem="modified"),
    "classical RFEM": ClearanceParameters(**SOFT, rfem="classical"),
}


def timings(clearance, calls, t_end):
    """(seconds per rhs evaluation, wall seconds of a run of t_end, coordinates n)."""
    system = ClearanceRSRRRSystem(ClearanceRSRRR(clearance=clearance), [2.0, 0.0])
    y = system.initial_state(psid11=3.0)
    mode = Contact(1e-3) if clearance.clearance > 0 else FREE
    start = time.perf_counter()
    for _ in range(calls):
        system.rhs(0.0, y, mode)
    per_call = (time.perf_counter() - start) / calls
    start = time.perf_counter()
    run(system, y, t_end, dt_out=t_end, rtol=1e-8, atol=1e-11, engine="python")
    return per_call, time.perf_counter() - start, system.n


FMU_CASES = {
    "ideal rigid": {},
    "planar clearance": dict(clearance=1e-4),
    "spatial clearance": dict(clearance=1e-4, clearance_model=2),
    "flexible link, 4 sdes": dict(n_rfe=4),
    "flexible link, 4 classical": dict(n_rfe=4, rfem=2),
}
H = 1e-3  # s: the communication step


def drive(t):
    """The drive of the experiment (N.m): tau ramped to 10 N.m over 2 s."""
    return 10.0 * min(t / 2.0, 1.0)


def fmu_rtf(path, start, t_end, h=H):
    """(real-time factor, the time reached (s): t_end, or where a step failed) of the FMU at path with the start
    values, stepped by FMPy at h (s) to t_end (s)."""
    from fmpy.fmi1 import FMICallException
    from fmpy_slave import initialised

    begin, reached = time.perf_counter(), 0.0
    try:
        with initialised(path, start) as (fmu, vr):
            begin = time.perf_counter()
            for k in range(round(t_end / h)):
                fmu.setReal([vr["tau"]], [drive(k * h)])
                fmu.doStep(k * h, h)
                reached = (k + 1) * h
            wall = time.perf_counter() - begin
    except FMICallException:  # FMPy has logged the error; the FMU is freed without fmi2Terminate
        wall = time.perf_counter() - begin
    return reached / wall, reached


def per_step(start, t_end, h=H):
    """(right-hand sides, accepted integrator steps) per communication step of the case: stepping.Stepper on the
    compiled engine (the pythonfmu FMU's doStep) from the C assembly's initial state, the native FMU's steps (its
    twin starts from its own, the same to rounding, and takes the same steps to within a few)."""
    import build_fmu
    from friction_joints import native
    from friction_joints.fmi.native import _system
    from friction_joints.spatial import clearance_packing
    from friction_joints.stepping import Stepper

    cls = build_fmu.slave_class(build_fmu.SOURCES / "RSRRRLinkage.py")
    values = {v.name: v.start if v.start is not None else 0.0 for v in cls.variables} | start
    system, y0 = _system(cls, object.__new__(cls), values, tuple(cls.inputs))
    if start:
        _, _, y0 = clearance_packing.trim(*native.Assembly("RSRRRClearance")(values))
    stepper = Stepper(lambda inputs: system, lambda _: y0, [0.0, 0.0], values["rtol"], engine="compiled")
    n = round(t_end / h)
    for k in range(n):
        stepper.step_record(k * h, h, [drive(k * h), 0.0])
    rhs, steps, _ = stepper.integrator.instance.counters
    return rhs / n, steps / n


def main_fmu(twin, native_fmu, t_end):
    print(f"RSRRRLinkage FMUs in FMPy, {H * 1e3:g} ms steps, from rest, drive ramped to 10 N.m over 2 s")
    print(f"  {'case':28s} {'simulated (s)':>13s} {'RTF pythonfmu':>14s} {'RTF native':>11s} {'x':>6s} "
          f"{'rhs/step':>9s} {'steps/step':>10s}")
    for name, start in FMU_CASES.items():
        span = t_end / 10 if name == "spatial clearance" else t_end
        rtf_twin, reached = fmu_rtf(twin, start, span)
        rtf_native, reached_native = fmu_rtf(native_fmu, start, span) if native_fmu else (float("nan"), reached)
        rhs, steps = per_step(start, min(reached, reached_native))
        print(f"  {name:28s} {min(reached, reached_native):13.3f} {rtf_twin:14.3f} {rtf_native:11.2f} "
              f"{rtf_native / rtf_twin:6.0f} {rhs:9.1f} {steps:10.2f}")


def main(calls, t_end, rounds):
    best = {name: (np.inf, np.inf, 0) for name in CASES}
    for _ in range(rounds):
        for name, clearance in CASES.items():
            got = timings(clearance, calls, t_end)
            best[name] = (min(best[name][0], got[0]), min(best[name][1], got[1]), got[2])
    base_call, base_run, _ = best["ideal rigid"]
    print(f"RSRRR, Python engine, best of {rounds} rounds: rhs ({calls} calls), run of {t_end} s")
    print(f"  {'case':20s} {'n':>3s} {'rhs (ms)':>9s} {'x ideal':>8s} {'run (s)':>9s} {'x ideal':>8s}")
    for name, (per_call, wall, n) in best.items():
        print(f"  {name:20s} {n:3d} {per_call * 1e3:9.2f} {per_call / base_call:8.1f} {wall:9.2f} "
              f"{wall / base_run:8.1f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--t-end", type=float, default=0.005)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fmu", help="an RSRRRLinkage.fmu: measure its real-time factor instead")
    parser.add_argument("--native", help="with --fmu: the native RSRRRLinkage.fmu (build_fmu.py --native), beside it")
    parser.add_argument("--fmu-t-end", type=float, default=1.0)
    args = parser.parse_args()
    if args.fmu:
        main_fmu(args.fmu, args.native, args.fmu_t_end)
    else:
        main(args.calls, args.t_end, args.rounds)
