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
(pythonfmu binary on the compiled engine, the family spatial_clearance for the clearance and flexible-link cases),
and with ``--native native/RSRRRLinkage.fmu`` (build_fmu.py --native) the native FMU beside it: the
drive of its experiment (tau ramped to 10 N.m over 2 s, tau_res 0, the governed load
of its defaults), from rest; cases: a planar clearance of 0.1 mm in (2,2) with its default contact (the Hertz
stiffness of steel), the spatial one, a flexible coupler (2,3) of four steel sdes (modified and classical RFEM), the
ideal rigid linkage. Reported: the real-time factor (simulated / wall seconds) over ``--fmu-t-end`` seconds (a tenth of it for
the spatial model), or up to a step that failed, by wall and by CPU time, with the drive held over each step (a host that sets
values only) and interpolated (its rate set by fmi2SetRealInputDerivatives before each step: the
FMU declares canInterpolateInputs).

With ``--counts`` it runs the same cases as the FMU's twin does (the slave of fmu_src/RSRRRLinkage.py builds the
system, ``friction_joints.stepping.Stepper`` steps it on the compiled engine at 1 ms with the same drive) at each
rtol of ``--rtols`` (atol = rtol / 100, the FMU's) and at a tight reference (rtol 1e-10), and reports counts rather
than wall times: the process CPU seconds per simulated second, integrator steps per 1 ms step, right-hand sides
per integrator step, and how close the FMU's outputs come to the reference: the largest deviation over the run of
each output relative to its range over the run (the worst output named; closure and iteration counts left out).

With ``--callgrind`` it runs the FMU's clearance and flexible-link cases on the engine's step from C
(benchmarks/engine_step.c, no FMI, no Python: the system the FMU's twin builds, from rest, the drive's ramp as
100 sin(0.05 t) N.m, within 0.05 % of it to 1 s, held over each 1 ms step, rtol 1e-6) under valgrind's callgrind,
for ``--callgrind-t-end`` seconds (a sixth of it for the spatial model, a tenth for the flexible link), and
reports the instructions per 1 ms step and per right-hand side, the right-hand sides and RODAS steps per 1 ms.

With ``--kick`` it reports the modes of the flexible link (four sdes) that the held drive's jump excites at 0.097 s
(``kick_modes``), then runs it as ``--counts`` does at rtol 1e-6 for 0.1 s, its drive's ramp scaled by 10, 1,
0.1, 0.01, 0.001 (so the held drive jumps by 5e-2 ... 5e-6 N.m at every 1 ms step), held and interpolated, and
reports RODAS steps and right-hand sides per 1 ms step.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_rsrrr_clearance.py [--calls 200] [--t-end 0.005] [--rounds 2]
       python benchmarks/bench_rsrrr_clearance.py --fmu dist/RSRRRLinkage.fmu [--native dist/native/RSRRRLinkage.fmu]
           [--fmu-t-end 1.0]
       python benchmarks/bench_rsrrr_clearance.py --counts [--fmu-t-end 1.0] [--rtols 1e-6 1e-5]
       python benchmarks/bench_rsrrr_clearance.py --callgrind [--callgrind-t-end 0.3]
       python benchmarks/bench_rsrrr_clearance.py --kick
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from friction_joints.contact import FREE, Contact
from friction_joints.engine import run
from friction_joints.spatial.clearance_rsrrr import ClearanceParameters, ClearanceRSRRR
from friction_joints.spatial.clearance_system import ClearanceRSRRRSystem

ROOT = Path(__file__).resolve().parents[1]
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


def drive(t, scale=1.0):
    """(tau (N.m), its rate (N.m/s)) of the FMU's experiment at t (s): 10 N.m ramped over 2 s (times scale)."""
    return 10.0 * scale * min(t / 2.0, 1.0), 5.0 * scale if t < 2.0 else 0.0


def fmu_rtf(path, start, t_end, interpolated, h=1e-3):
    """(real-time factor by wall time, by the process's CPU time, the time reached (s): t_end, or where a step
    failed) of the FMU at path with the start values, stepped by FMPy at h (s) to t_end (s), its drive held over
    each step or, interpolated, given its rate too (fmi2SetRealInputDerivatives)."""
    from fmpy.fmi1 import FMICallException
    from fmpy_slave import initialised

    begin, cpu, reached = time.perf_counter(), time.process_time(), 0.0
    try:
        with initialised(path, start) as (fmu, vr):
            begin, cpu = time.perf_counter(), time.process_time()
            for k in range(round(t_end / h)):
                tau, rate = drive(k * h)
                fmu.setReal([vr["tau"]], [tau])
                if interpolated:
                    fmu.setRealInputDerivatives([vr["tau"]], [1], [rate])
                fmu.doStep(k * h, h)
                reached = (k + 1) * h
            wall, cpu = time.perf_counter() - begin, time.process_time() - cpu
    except FMICallException:  # FMPy has logged the error; the FMU is freed without fmi2Terminate
        wall, cpu = time.perf_counter() - begin, time.process_time() - cpu
    return reached / wall, reached / cpu, reached


def twin(start, rtol):
    """(the slave of fmu_src/RSRRRLinkage.py, the Stepper of its system on the compiled engine at rtol, as the FMU's
    twin builds it) with the parameters' start values updated by start."""
    from friction_joints.stepping import Stepper

    spec = importlib.util.spec_from_file_location("RSRRRLinkage", ROOT / "fmu_src" / "RSRRRLinkage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    slave = module.RSRRRLinkage(instance_name="bench")
    values = {v.name: v.start for v in slave.variables if v.causality == "parameter"} | start
    make, y0_of, _ = slave.build(values)
    return slave, Stepper(make, y0_of, [0.0, 0.0], rtol, 0.0, "compiled")


def twin_run(start, rtol, t_end, interpolated=False, h=1e-3, scale=1.0):
    """({FMU output: values over the run}, CPU seconds, integrator steps, right-hand sides) of the FMU's case with
    the start values, its system stepped as the FMU's twin does (Stepper on the compiled engine) at rtol to t_end,
    or up to a step that failed; the drive (times scale) held over each step or, interpolated, following its rate."""
    slave, stepper = twin(start, rtol)
    outputs, begin = {}, time.process_time()
    for k in range(round(t_end / h)):
        try:
            tau, rate = drive(k * h, scale)
            record = stepper.step(k * h, h, [tau, 0.0], [rate, 0.0] if interpolated else None)
        except Exception as error:  # noqa: BLE001 - the steel coupler's fold ends its run
            print(f"    rtol {rtol:g}: stopped at t = {k * h:.3f} s: {str(error)[:80]}...")
            break
        for name, value in slave.publish(record).items():
            outputs.setdefault(name, []).append(float(value))
    cpu = time.process_time() - begin
    rhs, steps, _ = stepper.integrator.instance.counters
    return {name: np.array(v) for name, v in outputs.items()}, cpu, steps, rhs


def deviation(run, reference):
    """(largest |run - reference| / range of the reference over the common steps, its output's name)."""
    worst = (0.0, "")
    for name, ref in reference.items():
        if name in ("closure", "stuck") or np.ptp(ref) == 0.0:
            continue
        m = min(len(ref), len(run[name]))
        worst = max(worst, (float(np.abs(run[name][:m] - ref[:m]).max() / np.ptp(ref[:m])), name))
    return worst


def main_counts(t_end, rtols):
    print("RSRRRLinkage's cases as its FMU twin steps them (compiled engine, 1 ms steps), against rtol 1e-10;")
    print("drive held over each step, or interpolated (its rate given)")
    print(f"  {'case':24s} {'drive':>12s} {'rtol':>6s} {'CPU s/s':>8s} {'steps/ms':>9s} {'rhs/step':>9s} "
          f"{'worst output':>14s}")
    for name, start in FMU_CASES.items():
        if not start:
            continue
        end = t_end / 10 if name == "spatial clearance" else t_end
        for interpolated in (False, True):
            reference = twin_run(start, 1e-10, end, interpolated)[0]
            for rtol in rtols:
                outputs, cpu, steps, rhs = twin_run(start, rtol, end, interpolated)
                reached = len(outputs["E_kin"]) * 1e-3
                error, worst = deviation(outputs, reference)
                print(f"  {name:24s} {'interpolated' if interpolated else 'held':>12s} {rtol:6.0e} "
                      f"{cpu / reached:8.2f} {steps / reached / 1e3:9.2f} {rhs / steps:9.1f} {error:8.1e} {worst}")


def kick_modes(start, t, rtol=1e-6):
    """[(eigenvalue (1/s), transient amplitude in tolerances)] of the modes that the held drive's jump at t (s, a
    communication point) excites in the FMU's case with the start values, stepped held to t at rtol: the jump of f
    split over the eigenvectors v_k of J (central differences of the compiled right-hand side), each mode's
    largest |v_ik d_k / lambda_k| / (atol + rtol |y_i|); one of each complex pair, the fast ones first."""
    _, stepper = twin(start, rtol)
    for k in range(round(t / 1e-3)):
        stepper.step(k * 1e-3, 1e-3, [drive(k * 1e-3)[0], 0.0])
    state, model = stepper.integrator.state, stepper.system.compiled()
    fmode, imode = stepper.system.encode_mode(state.mode)
    y = np.array(state.y, float)

    def f(y, tau):
        out = np.zeros(y.size)
        assert model.rhs(t, y, np.array([tau, 0.0]), model.fpar, model.ipar, fmode, imode, out) == 0
        return out

    tau = drive(t)[0]
    J = np.empty((y.size, y.size))
    for j in range(y.size):
        step = np.zeros(y.size)
        step[j] = 1e-7 * max(1e-3, abs(y[j]))
        J[:, j] = (f(y + step, tau) - f(y - step, tau)) / (2.0 * step[j])
    lam, V = np.linalg.eig(J)
    d = np.linalg.solve(V, f(y, tau) - f(y, drive(t - 1e-3)[0]))
    tolerance = rtol * 1e-2 + rtol * np.abs(y)
    modes = [(lam[k], float(np.max(np.abs(V[:, k] * d[k] / lam[k]) / tolerance)))
             for k in range(y.size) if lam[k].real < 0.0 and lam[k].imag >= 0.0]
    return sorted(modes, key=lambda mode: mode[0].real)


def main_kick(t_end, scales=(10.0, 1.0, 0.1, 0.01, 0.001)):
    start = FMU_CASES["flexible link, 4 sdes"]
    print("The modes the held drive's jump (5e-3 N.m) excites at 0.097 s (rtol 1e-6), those of over 100 tolerances:")
    print(f"  {'Re lambda (1/s)':>16s} {'Im lambda':>10s} {'f (Hz)':>8s} {'1/|Re| (ms)':>11s} {'tolerances':>10s}")
    for lam, amplitude in kick_modes(start, 0.097):
        if amplitude > 100.0:
            print(f"  {lam.real:16.4g} {lam.imag:10.4g} {lam.imag / (2.0 * np.pi):8.1f} {-1e3 / lam.real:11.3f} "
                  f"{amplitude:10.3g}")
    print(f"The flexible link's first {t_end} s as the FMU's twin steps it (rtol 1e-6), the drive's ramp times scale:")
    print("the held drive jumps by 5e-3 scale N.m at every 1 ms step")
    print(f"  {'scale':>6s} {'drive':>12s} {'steps/ms':>9s} {'rhs/ms':>7s}")
    for scale in scales:
        for interpolated in (False, True):
            outputs, _, steps, rhs = twin_run(start, 1e-6, t_end, interpolated, scale=scale)
            reached = len(outputs["E_kin"]) * 1e-3
            print(f"  {scale:6g} {'interpolated' if interpolated else 'held':>12s} {steps / reached / 1e3:9.2f} "
                  f"{rhs / reached / 1e3:7.1f}")


def main_callgrind(t_end, rtol=1e-6):
    from bench_compiled import ROOT as BENCH_ROOT, callgrind_instructions
    from friction_joints.native import build

    program = Path(tempfile.mkdtemp()) / "engine_step"
    subprocess.run([*build.c_compiler(), *build.CFLAGS, "-g", "-I", str(build.SOURCE_DIR),
                    str(BENCH_ROOT / "benchmarks" / "engine_step.c"), *map(str, build.sources()), "-o", str(program),
                    "-lm"], check=True)
    print(f"RSRRRLinkage's cases on the engine's step from C under callgrind (rtol {rtol:g}, 1 ms steps, from rest)")
    print(f"  {'case':24s} {'simulated':>9s} {'instr/step':>12s} {'instr/rhs':>10s} {'rhs/ms':>7s} {'steps/ms':>9s}")
    for name, start in FMU_CASES.items():
        if name not in ("planar clearance", "spatial clearance", "flexible link, 4 sdes"):
            continue
        end = t_end / {"planar clearance": 1, "spatial clearance": 6, "flexible link, 4 sdes": 10}[name]
        _, stepper = twin(start, rtol)
        stepper.step(0.0, 1e-3, [0.0, 0.0])  # builds the system; its state is still the start's
        model, y0 = stepper.system.compiled(), np.asarray(stepper.integrator.state.y, float)
        text = "\n".join([f"{model.family_name} {model.fpar.size} {model.ipar.size} {y0.size} 2 {model.n_record} "
                          f"{rtol!r} {rtol * 1e-2!r} 0.001 {end!r}", " ".join(map(repr, model.fpar.tolist())),
                          " ".join(map(str, model.ipar.tolist())), " ".join(map(repr, y0.tolist())),
                          "0.0 100.0 0.05 0.0 0.0 0.0 0.0 0.0"]) + "\n"
        steps = round(end / 1e-3)
        per_step, per_rhs = callgrind_instructions(program, text, model.family_name, steps)
        counts = subprocess.run([str(program)], input=text, capture_output=True, text=True, check=True).stdout.split()
        print(f"  {name:24s} {end:9.3f} {per_step:12,.0f} {per_rhs:10,.0f} {float(counts[1]):7.1f} "
              f"{float(counts[2]):9.2f}")


def main_fmu(path, native_fmu, t_end):
    print("RSRRRLinkage FMUs in FMPy, 1 ms steps, from rest, drive ramped to 10 N.m over 2 s, held over each step or")
    print("interpolated (fmi2SetRealInputDerivatives); real-time factor by wall and by CPU time, the pythonfmu FMU and")
    print("the native one (if given) one after the other")
    print(f"  {'case':28s} {'drive':>12s} {'FMU':>9s} {'simulated (s)':>13s} {'RTF wall':>9s} {'RTF CPU':>8s}")
    fmus = {"pythonfmu": path, "native": native_fmu} if native_fmu else {"pythonfmu": path}
    for name, start in FMU_CASES.items():
        for interpolated in (False, True):
            for kind, fmu in fmus.items():
                rtf, rtf_cpu, reached = fmu_rtf(fmu, start, t_end / 10 if name == "spatial clearance" else t_end,
                                                interpolated)
                print(f"  {name:28s} {'interpolated' if interpolated else 'held':>12s} {kind:>9s} {reached:13.3f} "
                      f"{rtf:9.3f} {rtf_cpu:8.3f}")


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
    parser.add_argument("--counts", action="store_true", help="counts and accuracy of the FMU's cases (no FMU)")
    parser.add_argument("--rtols", type=float, nargs="+", default=[1e-6, 1e-5])
    parser.add_argument("--callgrind", action="store_true", help="instructions per step of the FMU's stiff cases")
    parser.add_argument("--callgrind-t-end", type=float, default=0.3)
    parser.add_argument("--kick", action="store_true", help="the flexible link's steps against the held drive's jump")
    args = parser.parse_args()
    if args.kick:
        main_kick(0.1)
    elif args.callgrind:
        main_callgrind(args.callgrind_t_end)
    elif args.counts:
        main_counts(args.fmu_t_end, args.rtols)
    elif args.fmu:
        main_fmu(args.fmu, args.native, args.fmu_t_end)
    else:
        main(args.calls, args.t_end, args.rounds)
