"""The native FMUs (build_fmu.py --native) in the plain C host and in FMPy, beside their pythonfmu twins
(not a test).

Each native FMU of DIST/native (FMI 2.0): its first input a triangle wave (the amplitude of its default
experiment's input, period 3.14 s) sampled at every communication point, its other inputs held at the
amplitudes of theirs (DupontTwoMass: F2 = 50 N presses m1 into its slot), 1 ms communication steps.
  c host    tests/c_host/fmi2_host.c (-T -w): the host's loop in C, no Python; instantiation and
            initialisation (setupExperiment to exitInitializationMode) timed apart from the steps
  fmpy      FMPy's FMU2Slave stepping the native FMU from Python
  pythonfmu FMPy stepping the pythonfmu twin DIST/<Model>.fmu (when built), over the same run: a shorter window
            is no comparison (RSRRRLinkage with LuGre takes 35 right-hand sides per step over its first second,
            88 while it spins backwards at 50 rad/s)
Reported: the FMU's size, instantiation and initialisation (ms), real-time factor (simulated / wall)
of each, and the right-hand sides and integrator steps per communication step (rhs/step, steps/step: the
model on the compiled engine in Python, stepped so, whose instance takes the native FMU's steps). Goals of
issue 29: RTF in the C host >= 500 for TwoMassFriction, >= 300 for DupontTwoMass, >= 150 for SliderCrank,
>= 40 for RSRRRLinkage (GOALS); instantiation and initialisation < 10 ms (RSRRRLinkage's closes its loop
then), FMU size <= 300 kB. Issue 30's: RTF in FMPy >= 50 for BristleOscillator (FMPY_GOALS; its first input
x_d is 0 in its default experiment, so it is held at 0, F_n at 13 N, the belt at 0.1 m/s: stick-slip), >= 20 for
SteeringSystem with LuGre friction (VARIANTS: a row of start values set in initialisation, friction_model
2 with the bristle defaults; FMPy and pythonfmu only, as the C host sets no Integer), >= 10 for
SliderCrank with LuGre friction, native and pythonfmu (PYTHONFMU_GOALS); RSRRRLinkage with LuGre friction
measured so too (no goal).

--cpu: the rates in FMPy by the process's CPU time (time.process_time) instead of the wall clock, which other
processes on a loaded machine disturb less (the C host's stay wall-clock).

Usage: python benchmarks/bench_native.py [--dist dist] [--t-end 10] [--h 0.001] [--only BristleOscillator] [--cpu]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import fmpy
from fmpy import extract, read_model_description
from fmpy_slave import initialised

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
PERIOD = 3.14
GOALS = {"TwoMassFriction": 500, "DupontTwoMass": 300, "SliderCrank": 150, "RSRRRLinkage": 40}  # RTF in the C host
FMPY_GOALS = {"BristleOscillator": 50, "SteeringSystem LuGre": 20, "SliderCrank LuGre": 10}  # native FMU in FMPy
PYTHONFMU_GOALS = {"SliderCrank LuGre": 10}  # RTF of the pythonfmu twin in FMPy
#: more rows of a model: (label, start values)
VARIANTS = {"SteeringSystem": (("SteeringSystem LuGre", {"friction_model": 2}),),
            "SliderCrank": (("SliderCrank LuGre", {"friction_model": 2}),),
            "RSRRRLinkage": (("RSRRRLinkage LuGre", {"friction_model": 2}),)}


def triangle(x):
    f = x - int(x)
    return 4.0 * f if f < 0.25 else 2.0 - 4.0 * f if f < 0.75 else 4.0 * f - 4.0


def inputs(name):
    """(name, amplitude) of the model's first input in its default experiment, and {name: amplitude} of the
    others."""
    import build_fmu

    cls = build_fmu.slave_class(build_fmu.SOURCES / f"{name}.py")
    e = cls.experiment
    names = [v.name for v in cls.variables if v.causality == "input"]
    amplitude = {n: max(abs(e.inputs[n](k * e.stop_time / 200)) if n in e.inputs else 0.0 for k in range(201))
                 for n in names}
    first = names[0]
    return first, amplitude.pop(first), amplitude


def c_host(fmu, host, folder, amplitude, input_vr, held, t_end, h):
    """(instantiation, initialisation, steps) in s; held: {value reference: value} of the other inputs."""
    md = read_model_description(str(fmu))
    name = md.coSimulation.modelIdentifier
    out = [str(v.valueReference) for v in md.modelVariables if v.causality == "output" and v.type == "Real"][:3]
    others = [a for vr, value in held.items() for a in ("-a", f"{vr}={value!r}")]
    done = subprocess.run([str(host), "-q", "-T", *others, "-w", repr(PERIOD),
                           str(folder / "binaries" / "linux64" / f"{name}.so"),
                           (folder / "resources").as_uri(), md.guid, str(input_vr), repr(amplitude), repr(h),
                           str(round(t_end / h)), *out], capture_output=True, text=True, check=True, env={})
    _, instantiate, initialize, steps = done.stdout.split()
    return float(instantiate), float(initialize), float(steps)


def fmpy_run(fmu, input_name, amplitude, held, t_end, h, start=None, clock=time.perf_counter):
    """Time (s) of the steps by clock (the wall's, or time.process_time); start: {name: value} of Integer
    parameters set in initialisation."""
    with initialised(fmu, {n: int(x) for n, x in (start or {}).items()}) as (slave, vr):
        slave.setReal([vr[n] for n in held], list(held.values()))
        n = round(t_end / h)
        begin = clock()
        for k in range(n):
            slave.setReal([vr[input_name]], [amplitude * triangle(k * h / PERIOD)])
            slave.doStep(k * h, h)
        elapsed = clock() - begin
    return elapsed


def per_step(name, input_name, amplitude, held, t_end, h, start=None) -> tuple[float, float]:
    """(right-hand sides, accepted integrator steps) per communication step of the model with the start values
    on the compiled engine, stepped as fmpy_run steps the FMU (stepping.Stepper on the system its slave builds,
    as the pythonfmu twin runs it; the native FMU's instance takes the same steps)."""
    import build_fmu
    from friction_joints.fmi import native
    from friction_joints.stepping import Stepper

    cls = build_fmu.slave_class(build_fmu.SOURCES / f"{name}.py")
    values = {v.name: v.start if v.start is not None else 0.0 for v in cls.variables}
    values.update(held, **(start or {}))
    values[input_name] = 0.0
    names = tuple(getattr(cls, "inputs", ()))
    system, y0 = native._system(cls, object.__new__(cls), values, names)
    stepper = Stepper(lambda inputs: system, lambda _: y0, [values[n] for n in names], values.get("rtol", 1e-8),
                      engine="compiled")
    first = names.index(input_name)
    n = round(t_end / h)
    for k in range(n):
        inputs = [values[v] for v in names]
        inputs[first] = amplitude * triangle(k * h / PERIOD)
        stepper.step_record(k * h, h, inputs)
    rhs, steps, _ = stepper.integrator.instance.counters
    return rhs / n, steps / n


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    parser.add_argument("--t-end", type=float, default=10.0)
    parser.add_argument("--h", type=float, default=1e-3)
    parser.add_argument("--only", help="this FMU only (e.g. BristleOscillator)")
    parser.add_argument("--cpu", action="store_true", help="rates in FMPy by the process's CPU time")
    args = parser.parse_args(argv)
    fmus = sorted((args.dist / "native").glob(f"{args.only or '*'}.fmu"))
    if not fmus:
        raise SystemExit(f"no native FMU in {args.dist / 'native'}: build them with python build_fmu.py --native")
    with tempfile.TemporaryDirectory() as tmp:
        host = Path(tmp) / "fmi2_host"
        subprocess.run(["gcc", "-std=c99", "-O2", f"-I{Path(fmpy.__file__).parent / 'c-code'}", "-o", str(host),
                        str(ROOT / "tests" / "c_host" / "fmi2_host.c"), "-ldl"], check=True)
        print(f"{'model':20s} {'size kB':>8s} {'inst ms':>8s} {'init ms':>8s} {'RTF C':>8s} {'RTF FMPy':>9s} "
              f"{'RTF pythonfmu':>14s} {'rhs/step':>9s} {'steps/step':>10s}")
        for fmu in fmus:
            name = fmu.stem
            folder = Path(tmp) / name
            extract(str(fmu), str(folder))
            md = read_model_description(str(fmu))
            input_name, amplitude, held = inputs(name)
            vr = {v.name: v.valueReference for v in md.modelVariables}
            runs = [c_host(fmu, host, folder, amplitude, vr[input_name], {vr[n]: x for n, x in held.items()},
                           args.t_end, args.h) for _ in range(3)]
            instantiate, initialize, steps = (min(r[i] for r in runs) for i in range(3))
            twin = args.dist / f"{name}.fmu"
            for label, start in ((name, None), *VARIANTS.get(name, ())):
                clock = time.process_time if args.cpu else time.perf_counter
                native = fmpy_run(fmu, input_name, amplitude, held, args.t_end, args.h, start, clock)
                python_rtf = (args.t_end / fmpy_run(twin, input_name, amplitude, held, args.t_end, args.h, start, clock)
                              if twin.exists() else None)
                python = f"{python_rtf:14.1f}" if python_rtf is not None else f"{'(not built)':>14s}"
                rhs, integrator_steps = per_step(name, input_name, amplitude, held, args.t_end, args.h, start)
                python += f" {rhs:9.1f} {integrator_steps:10.2f}"
                rtf = args.t_end / steps
                goal = (f"  (goal >= {GOALS[name]}: {'met' if rtf >= GOALS[name] else 'not met'})"
                        if name in GOALS and start is None else "")  # a variant has no C host run
                if label in FMPY_GOALS:
                    met = args.t_end / native >= FMPY_GOALS[label]
                    goal += f"  (goal in FMPy >= {FMPY_GOALS[label]}: {'met' if met else 'not met'})"
                if label in PYTHONFMU_GOALS and python_rtf is not None:
                    met = python_rtf >= PYTHONFMU_GOALS[label]
                    goal += f"  (pythonfmu's goal >= {PYTHONFMU_GOALS[label]}: {'met' if met else 'not met'})"
                c_columns = (f"{instantiate * 1e3:8.3f} {initialize * 1e3:8.3f} {rtf:8.0f}" if start is None
                             else f"{'-':>8s} {'-':>8s} {'-':>8s}")
                print(f"{label:20s} {fmu.stat().st_size / 1000:8.0f} {c_columns} {args.t_end / native:9.1f} "
                      f"{python}{goal}")
    if shutil.which("nproc"):
        print(f"({subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores; the C host's "
              "best of 3 runs)")


if __name__ == "__main__":
    main()
