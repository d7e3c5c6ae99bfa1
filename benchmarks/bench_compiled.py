"""The compiled engine against the Python engine, side by side in one run (not a test).

Run with OPENBLAS_NUM_THREADS=1 (the Python engine's small solves otherwise pay for BLAS threads):

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_compiled.py [--dist dist] [--quick]

Reported:
  rhs        one right-hand side of each model, compiled and Python, called from Python (us), ratio;
  step       the engine's own 1 ms communication step called from C (engine_step.c): us per step,
             right-hand sides and integrator steps per communication step; with --callgrind (this
             section alone, 1 s under valgrind) its instructions per step and per right-hand side;
  library    seed runs through friction_joints.engine.run on both engines: wall time, ratio, and the
             largest state difference between the engines;
  FMU        each FMU stepped by FMPy's FMU2Slave at a 1 ms communication step on both engines
             (FRICTION_JOINTS_ENGINE), its real-time factor, its FMI 3.0 build (dist/fmi3, FMU3Slave) on
             the compiled engine, and the floor of pythonfmu itself: a no-op FMU built here (an empty
             doStep) stepped the same way in the same run;
  master     SteeringSystem + SingleTrackVehicle under the project's master at 1 ms, and the ceiling of
             that master: two no-op FMUs coupled the same way, in the same process.
The goals of the compiled-engine issue are printed beside the measured values.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def per_call(fn, repeat=200):
    fn()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - start) / repeat


# --- right-hand sides -------------------------------------------------------------------------------
def rhs_cases():
    from friction_joints.hybrid import Sine
    from friction_joints.lumped import SingleMassFriction, SingleMassParameters, TwoMassFriction, TwoMassParameters
    from friction_joints.mechanisms import dupont_two_mass, slider_crank
    from friction_joints.planar import MechanismSystem
    from friction_joints.spatial.rsrrr import RSRRR
    from friction_joints.spatial.system import RSRRRSystem, paper_drive, paper_load
    from friction_joints.vehicle import SteeringParameters, SteeringSystem

    cases = []
    mech = slider_crank()
    system = MechanismSystem(mech, [Sine(4.0, 3.0)])
    cases.append(("Example 2 (slider-crank)", system, system.initial_state(mech.assemble([0.5]), [2.0])))
    mech = dupont_two_mass()
    system = MechanismSystem(mech, [Sine(7.0, 2.4), Sine(50.0, 0.8, np.pi / 2)])
    cases.append(("Dupont", system, system.initial_state([0.0, 0.0], [0.3, 0.5])))
    system = SingleMassFriction(SingleMassParameters(), [Sine(5.0, 2.0)])
    cases.append(("single mass", system, system.initial_state(0.0, 0.3)))
    system = TwoMassFriction(TwoMassParameters(), [Sine(6.0, 2.0), 3.0])
    cases.append(("two masses", system, system.initial_state((0.0, 0.0), (0.5, 0.2))))
    system = SteeringSystem(SteeringParameters(), [1.0, 0.0, 0.0, 3500.0, 3500.0])
    y = system.initial_state()
    y[5:10] = [0.5, 0.45, 0.0033, 0.02, 0.02]
    cases.append(("steering", system, y))
    system = RSRRRSystem(RSRRR(), [paper_drive(), 0.0], load=paper_load())
    y = system.initial_state(np.pi / 2, 5.0)
    cases.append(("RSRRR, friction", system, y))
    cases.append(("SliderCrank LuGre (FMU)", *slider_crank_lugre()))
    return cases


def slider_crank_lugre():
    """(system, y0) of the SliderCrank FMU with friction_model 2 (LuGre in every joint, the bristle defaults) at
    its start values, the input of its default experiment (tau = 4 sin 3t N.m): family planar_bristle on RODAS."""
    sys.path.insert(0, str(ROOT))
    import build_fmu
    from friction_joints.hybrid import Sine

    cls = build_fmu.slave_class(build_fmu.SOURCES / "SliderCrank.py")
    values = {v.name: v.start if v.start is not None else 0.0 for v in cls.variables}
    values["friction_model"] = 2
    make_system, y0_of = cls.bristle_system(object.__new__(cls).build(values), 2, values)
    system = make_system([Sine(4.0, 3.0)])
    return system, y0_of(system)


def bench_rhs():
    """One right-hand side from Python: the Python system's and the C kernel's."""
    from friction_joints import native

    print("right-hand side in the initial mode (us per call, both called from Python)")
    print(f"  {'model':26s} {'Python':>9s} {'compiled':>9s} {'ratio':>7s}")
    for name, system, y0 in rhs_cases():
        model = system.compiled()
        mode = system.update(0.0, np.array(y0, float), None, None)[1]
        fmode, imode = system.encode_mode(mode)
        y, tau, dy = np.array(y0, float), np.asarray(system.input_values(0.1), float), np.zeros(len(y0))
        python = per_call(lambda: system.rhs(0.1, y, mode), 50)
        ws = native.Workspace(model.family, model.fpar, model.ipar)
        ws.set_mode(np.ascontiguousarray(fmode, float), np.ascontiguousarray(imode, np.int64))
        compiled = per_call(lambda: ws.call("rhs", 0.1, y, tau, dy), 2000)
        print(f"  {name:26s} {python * 1e6:9.1f} {compiled * 1e6:9.2f} {python / compiled:7.0f}")


# --- the engine's step in C ----------------------------------------------------------------------------
STEP_GOALS = {"Example 2 (slider-crank)": "<= 10 us", "Dupont": "<= 5 us"}


def _waves(system, t=0.0):
    """Per input (offset, amplitude, omega, phase) of its Sine, or (value at t, 0, 0, 0) of another signal."""
    from friction_joints.hybrid import Sine

    return [(s.offset, s.amplitude, s.omega, s.phase) if isinstance(s, Sine) else (float(s(t)), 0.0, 0.0, 0.0)
            for s in system.inputs]


def callgrind_instructions(program, text, family_name, steps):
    """(instructions per step, per right-hand side) of the engine_step program on the input text under
    valgrind's callgrind: the run's (its set-up included) over its steps, and the family's rhs and rhs_near
    kernels' inclusive count over their calls."""
    out = Path(tempfile.mkdtemp()) / "callgrind.out"
    done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", str(program)], input=text,
                          capture_output=True, text=True, check=True)
    rhs_per_step = float(done.stdout.split()[1])
    report = subprocess.run(["callgrind_annotate", "--inclusive=yes", str(out)], capture_output=True, text=True,
                            check=True).stdout

    def inclusive(suffix):
        return next((float(line.split()[0].replace(",", "")) for line in report.splitlines() if suffix in line), 0.0)
    rhs = inclusive(f"{family_name}.c:rhs ") + inclusive(f"{family_name}.c:rhs_near ")  # (RODAS's: fj_kernel.h)
    return inclusive("engine_step.c:main ") / steps, rhs / (rhs_per_step * steps)


def bench_engine_step(quick, callgrind=False):
    """The engine's own 1 ms communication step called from C (benchmarks/engine_step.c, no FMI, no
    Python): the inputs sampled from the case's signals at each step and held over it. callgrind: 1 s
    under valgrind's callgrind, instructions per step and per right-hand side instead of times."""
    from friction_joints.native import build

    program = Path(tempfile.mkdtemp()) / "engine_step"
    subprocess.run([*build.c_compiler(), *build.CFLAGS, *(["-g"] if callgrind else []), "-I", str(build.SOURCE_DIR),
                    str(ROOT / "benchmarks" / "engine_step.c"), *map(str, build.sources()), "-o", str(program), "-lm"],
                   check=True)
    t_end, rtol = (1.0 if quick or callgrind else 10.0), 1e-8
    print(f"\nthe engine's 1 ms step called from C (no FMI, no Python), rtol {rtol:g}, {t_end:g} s")
    if callgrind:
        print(f"  {'model':26s} {'instructions/step':>18s} {'instructions/rhs':>17s}")
    else:
        print(f"  {'model':26s} {'us/step':>8s} {'rhs/step':>9s} {'steps/step':>11s} {'events':>7s}  goal")
    for name, system, y0 in rhs_cases():
        model = system.compiled()
        if not model.family.decides_modes:
            print(f"  {name:26s} (its family does not decide its modes in C yet)")
            continue
        lines = [f"{model.family_name} {model.fpar.size} {model.ipar.size} {len(y0)} {len(system.inputs)} "
                 f"{model.n_record} {rtol!r} {rtol * 1e-2!r} 0.001 {t_end!r}",
                 " ".join(map(repr, model.fpar.tolist())), " ".join(map(str, model.ipar.tolist())),
                 " ".join(map(repr, np.asarray(y0, float).tolist())),
                 " ".join(" ".join(map(repr, w)) for w in _waves(system))]
        if callgrind:
            per_step, per_rhs = callgrind_instructions(program, "\n".join(lines) + "\n", model.family_name,
                                                       round(t_end / 0.001))
            print(f"  {name:26s} {per_step:18,.0f} {per_rhs:17,.0f}")
            continue
        done = subprocess.run([str(program)], input="\n".join(lines) + "\n", capture_output=True, text=True)
        if done.returncode:
            print(f"  {name:26s} failed: {done.stderr.strip()}")
            continue
        us, rhs, steps, events = done.stdout.split()
        print(f"  {name:26s} {float(us):8.2f} {float(rhs):9.2f} {float(steps):11.2f} {events:>7s}  "
              f"{STEP_GOALS.get(name, '')}")


# --- library runs -----------------------------------------------------------------------------------
def library_cases(quick):
    from friction_joints.engine import run
    from friction_joints.hybrid import Sine
    from friction_joints.mechanisms import dupont_two_mass, slider_crank
    from friction_joints.simulation import simulate
    from friction_joints.spatial.rsrrr import RSRRR
    from friction_joints.spatial.system import RSRRRSystem, paper_drive, paper_load

    t_ex2 = 3.0 if quick else 10.0
    ex2 = slider_crank()
    dupont = dupont_two_mass()

    def rsrrr(engine):
        system = RSRRRSystem(RSRRR(), [paper_drive(), 0.0], load=paper_load())
        return run(system, system.initial_state(), 0.5 if quick else 1.0, dt_out=0.01, rtol=1e-8, atol=1e-10,
                   engine=engine)
    return [
        (f"Example 2, {t_ex2:g} s, tau = 4 sin 3t", "<= 0.05 s for 10 s",
         lambda engine: simulate(ex2, [Sine(4.0, 3.0)], t_ex2, ex2.assemble([0.0]), [0.0], dt_out=0.01, engine=engine)),
        ("Dupont Fig. 4c, 10 s", "<= 0.01 s",
         lambda engine: simulate(dupont, [Sine(7.0, 2.4), Sine(50.0, 0.8, np.pi / 2)], 10.0, [0.0, 0.0], [0.0, 0.0],
                                 dt_out=0.01, engine=engine)),
        (f"RSRRR with friction, {0.5 if quick else 1.0:g} s", "", rsrrr),
    ]


def bench_library(quick):
    print("\nlibrary runs (wall s)")
    print(f"  {'run':40s} {'Python':>8s} {'compiled':>9s} {'ratio':>7s}  goal")
    for name, goal, make in library_cases(quick):
        make("compiled")  # warm-up (loads the kernels)
        start = time.perf_counter()
        python = make("python")
        t_py = time.perf_counter() - start
        start = time.perf_counter()
        compiled = make("compiled")
        t_c = time.perf_counter() - start
        same = len(python.events) == len(compiled.events)
        print(f"  {name:40s} {t_py:8.2f} {t_c:9.3f} {t_py / t_c:7.0f}  {goal}  "
              f"({len(compiled.events)} events{'' if same else ', EVENT COUNTS DIFFER'})")


# --- FMUs ---------------------------------------------------------------------------------------------
NOOP_SLAVE = textwrap.dedent('''
    from pythonfmu import Fmi2Causality, Fmi2Slave, Real


    class NoOp(Fmi2Slave):
        """An FMU whose doStep does nothing: the floor of pythonfmu's per-step cost."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.u = 0.0
            self.y = 0.0
            self.register_variable(Real("u", causality=Fmi2Causality.input))
            self.register_variable(Real("y", causality=Fmi2Causality.output))

        def do_step(self, current_time, step_size):
            return True
''')

FMU_CASES = [  # FMU, seconds, {input: function of t}, goal (time per step over the no-op FMU's)
    ("NoOp", 10.0, {"u": lambda t: np.sin(t)}, "pythonfmu floor"),
    ("SliderCrank", 2.0, {"tau": lambda t: 4.0 * np.sin(3.0 * t)}, "<= 6x no-op"),
    ("DupontTwoMass", 10.0, {"F1": lambda t: 7 * np.sin(2.4 * t), "F2": lambda t: 50 * np.cos(0.8 * t)}, "<= 4x no-op"),
    ("RSRRRLinkage", 1.0, {"tau": lambda t: 10.0 * min(t / 2.0, 1.0)}, "<= 20x no-op"),
    ("SingleMassFriction", 10.0, {"F": lambda t: 5 * np.sin(2 * t)}, ""),
    ("TwoMassFriction", 10.0, {"F1": lambda t: 6 * np.sin(2 * t), "F2": lambda t: 20 * np.cos(1.3 * t)}, ""),
]


def step_fmu(path, t_end, inputs, h=1e-3):
    """Wall seconds of stepping the FMU (FMI 2.0 or 3.0) from 0 to t_end at h (instantiation excluded)
    and of its instantiation + initialisation."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave
    from fmpy.fmi3 import FMU3Slave

    md = read_model_description(str(path))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    fmi3 = md.fmiVersion.startswith("3")
    start = time.perf_counter()
    fmu = (FMU3Slave if fmi3 else FMU2Slave)(guid=md.guid, unzipDirectory=extract(str(path), tempfile.mkdtemp()),
                                             modelIdentifier=md.coSimulation.modelIdentifier, instanceName="bench")
    fmu.instantiate()
    if not fmi3:
        fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    t_init = time.perf_counter() - start
    refs = [vr[name] for name in inputs]
    set_inputs = fmu.setFloat64 if fmi3 else fmu.setReal
    n = int(round(t_end / h))
    start = time.perf_counter()
    for k in range(n):
        t = k * h
        set_inputs(refs, [float(fn(t)) for fn in inputs.values()])
        fmu.doStep(t, h)  # FMPy raises on an FMI error
    wall = time.perf_counter() - start
    fmu.terminate()
    fmu.freeInstance()
    return wall, t_init


def _fmu_in_process(path, t_end, engine):
    """Run step_fmu in a fresh process with FRICTION_JOINTS_ENGINE=engine: (wall, t_init)."""
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); import bench_compiled as b; "
            f"from pathlib import Path; case = next(c for c in b.FMU_CASES if c[0] == {path.stem!r}); "
            f"print(*b.step_fmu(Path({str(path)!r}), {t_end!r}, case[2]))")
    env = dict(os.environ, FRICTION_JOINTS_ENGINE=engine)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    wall, t_init = map(float, out.split()[-2:])
    return wall, t_init


def build_noop(out):
    from pythonfmu.builder import FmuBuilder

    script = Path(tempfile.mkdtemp()) / "NoOp.py"
    script.write_text(NOOP_SLAVE)
    return FmuBuilder.build_FMU(script, dest=out)


def bench_fmus(dist, noop, quick):
    print("\nFMUs in FMPy at h = 1 ms (fresh process each; wall time of the steps, instantiation apart; FMI 3.0:"
          " the same slave built with pythonfmu3, dist/fmi3; x no-op: time per step over the no-op FMU's;"
          " start-up: instantiation and initialisation, goal < 0.3 s; size goal <= 1 MB)")
    print(f"  {'FMU':20s} {'t':>5s} {'Python RTF':>11s} {'compiled RTF':>13s} {'ratio':>6s} {'us/step':>8s} "
          f"{'x no-op':>8s} {'start-up s':>10s} {'MB':>5s} {'FMI 3.0 RTF':>12s}  goal")
    floor = None
    for name, t_end, _, goal in FMU_CASES:
        path = noop if name == "NoOp" else Path(dist) / f"{name}.fmu"
        t_end = min(t_end, 0.5) if quick else t_end
        compiled, t_init = _fmu_in_process(path, t_end, "auto")
        per_step = compiled / (t_end / 1e-3)
        floor = per_step if floor is None else floor
        python_text, ratio_text, fmi3_text = "", "", ""
        if name != "NoOp":
            t_py = min(t_end, 0.2)  # the Python engine is slow: a shorter run, scaled
            python, _ = _fmu_in_process(path, t_py, "python")
            python_text = f"{t_py / python:11.2f}"
            ratio_text = f"{(python / t_py) / (compiled / t_end):6.0f}"
            fmi3 = Path(dist) / "fmi3" / f"{name}.fmu"
            if fmi3.exists():
                fmi3_text = f"{t_end / _fmu_in_process(fmi3, t_end, 'auto')[0]:12.1f}"
        print(f"  {name:20s} {t_end:5g} {python_text:>11s} {t_end / compiled:13.1f} {ratio_text:>6s} "
              f"{per_step * 1e6:8.1f} {per_step / floor:8.1f} {t_init:10.2f} {path.stat().st_size / 1e6:5.2f} "
              f"{fmi3_text:>12s}  {goal}", flush=True)


def master_walls(dist, noop, t_end, t_short):
    """Wall seconds of the steering + vehicle co-simulation at 1 ms to t_short and to t_end, after a
    warm-up run that loads both FMUs' engines, and of two no-op FMUs (each one's output feeding the
    other's input) stepped to t_end by the same master."""
    from friction_joints.fmi.master import Connection, FMUInstance, run
    from friction_joints.fmi.steering_vehicle import run_fmpy, sine_sweep

    tau = sine_sweep(3.0, 0.2, 2.0, 10.0)

    def wall(t):
        start = time.perf_counter()
        run_fmpy(dist, tau, t, 1e-3)
        return time.perf_counter() - start

    def noop_wall():
        instances = {"a": FMUInstance(noop, "a"), "b": FMUInstance(noop, "b")}
        try:
            start = time.perf_counter()
            run(instances, [Connection("a", "y", "b", "u"), Connection("b", "y", "a", "u")], 1e-3, t_end,
                record={"a.y": ("a", "y"), "b.y": ("b", "y")})
            return time.perf_counter() - start
        finally:
            for inst in instances.values():
                inst.close()

    wall(t_short)
    return wall(t_short), wall(t_end), noop_wall()


def bench_master(dist, noop, quick):
    """In a process of its own (the FMUs' bundled packages are then the only ones imported there)."""
    t_end, t_short = (1.0 if quick else 5.0), 0.01
    code = (f"import sys; sys.path.insert(0, {str(ROOT / 'benchmarks')!r}); import bench_compiled as b; "
            f"print(*b.master_walls({str(dist)!r}, {str(noop)!r}, {t_end!r}, {t_short!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    short, long, noop_wall = map(float, out.split()[-3:])  # instantiation apart: the difference is the stepping
    steps = (long - short) / (t_end - t_short)  # wall s per simulated s
    print(f"\nSteeringSystem + SingleTrackVehicle under friction_joints.fmi.master at 1 ms, {t_end:g} s: "
          f"real-time factor {1 / steps:.1f} of the steps (goal >= 10), {t_end / long:.1f} with the two "
          f"instantiations; the master's ceiling (two no-op FMUs, same run): {t_end / noop_wall:.1f}, "
          f"{steps / (noop_wall / t_end):.1f}x its time per step")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", default=str(ROOT / "dist"), help="folder of the built FMUs")
    parser.add_argument("--quick", action="store_true", help="shorter runs")
    parser.add_argument("--callgrind", action="store_true",
                        help="only the engine's step, its instructions under valgrind's callgrind")
    args = parser.parse_args()
    if args.callgrind:
        bench_engine_step(args.quick, callgrind=True)
        return
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}\n")
    bench_rhs()
    bench_engine_step(args.quick)
    bench_library(args.quick)
    noop = build_noop(Path(tempfile.mkdtemp()))
    bench_fmus(args.dist, noop, args.quick)
    bench_master(args.dist, noop, args.quick)


if __name__ == "__main__":
    main()
