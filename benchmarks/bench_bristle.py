"""Cost of bristle friction against the exact Coulomb model on one stick-slip run (not a test).

The belt oscillator: 1 kg on a belt at 0.1 m/s, spring 100 N/m, N = 10 N, mu_c 0.3, mu_s 0.4, T seconds
from rest. Exact: lumped.SingleMassFriction (kinetic mu_c N, static mu_s N, events located) on the
compiled and the Python engine, rtol 1e-8. Bristle: each law with sigma0 = 1e5 1/m, sigma1 = 5 s/m,
v_s = 1 mm/s on LSODA (what the library uses), and LuGre on Radau and on the explicit DOP853 (cut
at a wall-time budget: its simulated time per wall second is reported), rtol 1e-8, atol 1e-10.
Reported: wall time per simulated second and its ratio to the exact model on the compiled engine.

The slider-crank (seed 000 Example 2) in its joints: held at th1 = 0.5 rad by the torque balancing
gravity plus 2 sin 5t N.m (stick, slip, stick, slip in 0.8 s; tests/test_bristle_joints.py), T_crank
seconds. Exact: MechanismSystem on the compiled and the Python engine, rtol 1e-8. Bristle:
planar.BristleSystem with LuGre in all four joints, sigma0 = 1e3, 1e4, 1e5 (1/rad, 1/m),
sigma1 = 0.05 sqrt(sigma0), v_s = 3e-3, on RODAS (compiled engine) and LSODA (Python), rtol 1e-8, atol 1e-10.

The spatial RSRRR linkage (seed 002) under the drive of Fig. 10a and the governed load, from rest,
T_rsrrr seconds. Exact: RSRRRSystem (kinetic characteristic of eq. 7, no stiction) on the compiled and
the Python engine, rtol 1e-8. Bristle: spatial.BristleRSRRRSystem with LuGre on all 11 frictional
journal surfaces, sigma0 = 1e3, 1e4, 1e5 1/rad, sigma1 = 0.05 sqrt(sigma0), v_s = 3e-3 rad/s, on RODAS
(compiled engine, spatial_bristle.c) and LSODA (Python), rtol 1e-8, atol 1e-10.

The SliderCrank FMU (pythonfmu, from --dist) stepped by FMPy's FMU2Slave at h = 1 ms, its default
experiment's torque 4 sin 3t N.m sampled at each communication point, from rest, T_fmu seconds, internal
rtol 1e-8: the exact model (friction_model 0) and LuGre in every joint (friction_model 2, the FMU's bristle
defaults sigma0 = 1e4, sigma1 = 5, v_s = 3e-3) on the compiled engine (planar_bristle.c, RODAS) and on the
Python engine (LSODA; FRICTION_JOINTS_ENGINE=python, over T_fmu / 20). The RSRRRLinkage FMU (pythonfmu) the
same way, its default experiment's drive (tau ramped to 10 N.m over 2 s, the governed load), from rest, internal
rtol 1e-6 (its default): friction_model 0 and 2 (LuGre on its 11 journal surfaces, the bristle defaults), over
T_fmu / 5 and, on the Python engine, T_fmu / 100. Reported: the real-time factor (simulated / wall) and the
wall time per step. (The native FMUs with LuGre: bench_native.py.)

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_bristle.py [--t-end 3] [--t-crank 0.8] [--t-rsrrr 0.5]
       [--t-fmu 10] [--dist dist] [--only fmu]
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from friction_joints.engine import run
from friction_joints.friction import make_law
from friction_joints.hybrid import Sine
from friction_joints.hybrid.integrator import HybridIntegrator
from friction_joints.lumped import (BristleOscillator, BristleOscillatorParameters, SingleMassParameters,
                                    simulate_single_mass)
from friction_joints.mechanisms import slider_crank
from friction_joints.planar import BristleSystem, MechanismSystem, contact_laws
from friction_joints.spatial.bristle import BristleRSRRRSystem, surface_laws
from friction_joints.spatial.rsrrr import RSRRR
from friction_joints.spatial.system import RSRRRSystem, paper_drive, paper_load

N, V_BELT = 10.0, 0.1
NAMES = {1: "Dahl", 2: "LuGre", 3: "elasto-plastic", 4: "Gonthier"}


def law(model):
    return make_law(model, sigma0=1e5, sigma1=5.0, sigma2=0.0, mu_c=0.3, mu_s=0.4, v_s=1e-3, delta=2.0, z_ba_ratio=0.7)


def bristle_run(model, method, t_end, budget=np.inf):
    """(simulated s, wall s) of the oscillator with the law ``model`` on the solve_ivp ``method``, stopped
    after the first 10 ms output step that ends beyond ``budget`` wall seconds."""
    system = BristleOscillator(BristleOscillatorParameters(law(model), m=1.0, k=100.0), [0.0, V_BELT, N])
    system.ode_method = method
    start = time.perf_counter()
    if budget == np.inf:
        run(system, system.initial_state(sigma0=1e5), t_end, dt_out=0.01, rtol=1e-8, atol=1e-10, engine="python")
        return t_end, time.perf_counter() - start
    integ = HybridIntegrator(system, 0.0, system.initial_state(sigma0=1e5), rtol=1e-8, atol=1e-10)
    t = 0.0
    while t < t_end and time.perf_counter() - start < budget:
        t += 0.01
        integ.advance_to(t)
    return t, time.perf_counter() - start


def report(title, rows, t_end):
    """Print the wall time per simulated second of each (label, simulated s, wall s) of a run to t_end (s),
    and its ratio to the first row's."""
    base = rows[0][2] / rows[0][1]
    print(title)
    for label, simulated, wall in rows:
        per = wall / simulated
        print(f"  {label:34s} {per * 1e3:10.1f} ms  {per / base:8.1f} x exact (compiled)"
              + ("" if simulated >= t_end - 1e-9 else f"  (stopped at {simulated:.2f} s)"))


def crank_rows(t_end):
    """(label, simulated s, wall s) of the slider-crank runs of the module's docstring."""
    mech = slider_crank()
    q0 = mech.assemble([0.5])
    rest = mech.minimal.evaluate(q0, [0.0], [0.0], mech.partition, direction=np.zeros(4))
    tau_eq = -float(rest.M2[0, 0] * rest.udot[0])
    drive = Sine(2.0, 5.0, offset=tau_eq)
    rows = []
    for engine in ("compiled", "python"):
        system = MechanismSystem(mech, [drive])
        run(system, system.initial_state(q0, [0.0]), min(t_end, 0.05), rtol=1e-8, atol=1e-10, engine=engine)  # warm up
        start = time.perf_counter()
        run(system, system.initial_state(q0, [0.0]), t_end, dt_out=0.01, rtol=1e-8, atol=1e-10, engine=engine)
        rows.append((f"exact Coulomb, {engine} engine", t_end, time.perf_counter() - start))
    for sigma0 in (1e3, 1e4, 1e5):
        system = BristleSystem(mech, contact_laws(mech, 2, sigma0=sigma0, sigma1=0.05 * np.sqrt(sigma0), v_s=3e-3),
                               [drive])
        for engine, method in (("compiled", "RODAS"), ("python", "LSODA")):
            start = time.perf_counter()
            run(system, system.initial_state(q0, [0.0]), t_end, dt_out=0.01, rtol=1e-8, atol=1e-10, engine=engine)
            rows.append((f"LuGre sigma0 = {sigma0:.0e}, {method}", t_end, time.perf_counter() - start))
    return rows


def rsrrr_rows(t_end):
    """(label, simulated s, wall s) of the RSRRR runs of the module's docstring."""
    mech = RSRRR()
    inputs = [paper_drive(), 0.0]
    rows = []
    for engine in ("compiled", "python"):
        system = RSRRRSystem(mech, inputs, paper_load())
        run(system, system.initial_state(), min(t_end, 0.05), rtol=1e-8, atol=1e-10, engine=engine)  # warm up
        start = time.perf_counter()
        run(system, system.initial_state(), t_end, dt_out=0.01, rtol=1e-8, atol=1e-10, engine=engine)
        rows.append((f"exact kinetic (eq. 7), {engine} engine", t_end, time.perf_counter() - start))
    for sigma0 in (1e3, 1e4, 1e5):
        system = BristleRSRRRSystem(mech, surface_laws(mech, 2, sigma0=sigma0, sigma1=0.05 * np.sqrt(sigma0), v_s=3e-3),
                                    inputs, paper_load())
        for engine, method in (("compiled", "RODAS"), ("python", "LSODA")):
            start = time.perf_counter()
            run(system, system.initial_state(), t_end, dt_out=0.01, rtol=1e-8, atol=1e-10, engine=engine)
            rows.append((f"LuGre sigma0 = {sigma0:.0e}, {method}", t_end, time.perf_counter() - start))
    return rows


#: per FMU: its inputs at time t (module docstring)
FMU_INPUTS = {"SliderCrank": lambda t: {"tau": 4.0 * np.sin(3.0 * t)},
              "RSRRRLinkage": lambda t: {"tau": 10.0 * min(t / 2.0, 1.0), "tau_res": 0.0}}


def fmu_rtf(path, friction_model, t_end, h, engine):
    """(simulated s, wall s) of the FMU at path (SliderCrank or RSRRRLinkage) stepped by FMPy (module docstring)
    on ``engine``."""
    from fmpy_slave import initialised

    os.environ["FRICTION_JOINTS_ENGINE"] = engine  # read by the slave at its initialisation
    with initialised(path, {"friction_model": int(friction_model)}) as (fmu, vr):
        n = int(round(t_end / h))
        inputs = FMU_INPUTS[Path(path).stem]
        start = time.perf_counter()
        for i in range(n):
            values = inputs(i * h)
            fmu.setReal([vr[name] for name in values], list(values.values()))
            fmu.doStep(i * h, h)
        wall = time.perf_counter() - start
    del os.environ["FRICTION_JOINTS_ENGINE"]
    return n * h, wall


def fmu_report(dist, t_end, h=1e-3):
    """Print the real-time factors of the SliderCrank and RSRRRLinkage FMU runs of the module's docstring."""
    for name, rtol, exact, t_model, python in (("SliderCrank", "1e-8", "exact Coulomb", t_end, t_end / 20),
                                                ("RSRRRLinkage", "1e-6", "exact kinetic (eq. 7)", t_end / 5,
                                                 t_end / 100)):
        path = Path(dist) / f"{name}.fmu"
        print(f"{name} FMU (pythonfmu) through FMPy, h = {h * 1e3:g} ms, rtol {rtol}: real-time factor")
        for label, model, t, engine in ((f"{exact}, compiled engine", 0, t_model, "compiled"),
                                        ("LuGre, compiled engine (RODAS)", 2, t_model, "compiled"),
                                        ("LuGre, Python engine (LSODA)", 2, python, "python")):
            simulated, wall = fmu_rtf(path, model, t, h, engine)
            print(f"  {label:34s} RTF {simulated / wall:8.3f}  {wall / simulated * h * 1e3:8.3f} ms per step "
                  f"({simulated:g} s)", flush=True)


def main(t_end, t_crank, t_rsrrr):
    params = SingleMassParameters(M=1.0, FT0=0.3 * N, FT0S=0.4 * N, K=100.0, v_belt=V_BELT)
    simulate_single_mass(params, 0.0, 0.1, engine="compiled")  # load the compiled engine first
    rows = []
    for engine in ("compiled", "python"):
        start = time.perf_counter()
        simulate_single_mass(params, 0.0, t_end, dt_out=0.01, rtol=1e-8, atol=1e-10, engine=engine)
        rows.append((f"exact Coulomb, {engine} engine", t_end, time.perf_counter() - start))
    for model, name in NAMES.items():
        rows.append((f"{name}, LSODA", *bristle_run(model, "LSODA", t_end)))
    rows.append(("LuGre, Radau", *bristle_run(2, "Radau", t_end)))
    rows.append(("LuGre, DOP853 (explicit)", *bristle_run(2, "DOP853", t_end, budget=20.0)))
    report(f"belt oscillator, stick-slip, {t_end:g} s, rtol 1e-8: wall time per simulated second", rows, t_end)
    report(f"slider-crank (Example 2), stick-slip, {t_crank:g} s, rtol 1e-8: wall time per simulated second",
           crank_rows(t_crank), t_crank)
    report(f"RSRRR linkage, drive of Fig. 10a from rest, {t_rsrrr:g} s, rtol 1e-8: wall time per simulated second",
           rsrrr_rows(t_rsrrr), t_rsrrr)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--t-end", type=float, default=3.0)
    parser.add_argument("--t-crank", type=float, default=0.8)
    parser.add_argument("--t-rsrrr", type=float, default=0.5)
    parser.add_argument("--t-fmu", type=float, default=10.0)
    parser.add_argument("--dist", default=str(Path(__file__).resolve().parents[1] / "dist"))
    parser.add_argument("--only", choices=("fmu",), help="only the FMU runs")
    args = parser.parse_args()
    if args.only != "fmu":
        main(args.t_end, args.t_crank, args.t_rsrrr)
    fmu_report(args.dist, args.t_fmu)
