"""Instructions per 1 ms communication step of the pythonfmu FMUs, under valgrind's callgrind (not a test).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_step_instructions.py DIST [--short 100] [--long 500]

Instruction counts do not depend on the machine's load, unlike the wall times of bench_fmu_builds.py. Per
FMU with a per-step goal over the no-op FMU (SliderCrank, DupontTwoMass), from rest with the inputs of
bench_compiled.FMU_CASES, each run a fresh process under callgrind, instructions per step as the difference
of a run of --long steps and one of --short steps over their difference (the start-up cancels):
  FMPy      DIST/<FMU>.fmu (FMI 2.0) stepped by FMPy (setReal, doStep), as bench_compiled.py steps it, and
            the no-op pythonfmu FMU (an empty doStep) the same way; "x no-op" is their ratio;
  slave     the slave of fmu_src/ of this tree in this process, as pythonfmu steps it (set_real, do_step;
            bench_step.py), no FMU and no pythonfmu binary;
  engine    of the slave's: the C engine's call (fj_instance_step_forms: the functions it calls, counted
            with callgrind's --toggle-collect in a run of their own).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks"
FMUS = ("SliderCrank", "DupontTwoMass")
ENGINE_CALLS = ("fj_instance_set_input_forms", "fj_instance_step", "fj_instance_outputs")  # what step_forms calls

FMPY_RUN = """
import sys; sys.path.insert(0, {benchmarks!r})
from pathlib import Path
import bench_compiled as b
case = next(c for c in b.FMU_CASES if c[0] == {name!r})
b.step_fmu(Path({path!r}), {steps} * 1e-3, case[2])
"""

SLAVE_RUN = """
import sys; sys.path.insert(0, {benchmarks!r})
import bench_step as b
instance = b.slave({name!r})
refs = [next(vr for vr, v in instance.vars.items() if v.name == n) for n in b.CASES[{name!r}]]
functions, t = list(b.CASES[{name!r}].values()), 0.0
for _ in range({steps}):
    instance.set_real(refs, [f(t) for f in functions])
    assert instance.do_step(t, 1e-3), instance.error
    t += 1e-3
"""


def callgrind(code: str, engine: bool = False) -> int:
    """Instructions of the run of python -c code under callgrind; engine: only those inside ENGINE_CALLS."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")  # the same start-up
    only = ["--collect-atstart=no", *(f"--toggle-collect={name}" for name in ENGINE_CALLS)] if engine else []
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", *only, f"--callgrind-out-file={out}", sys.executable, "-c",
                        code], env=env, capture_output=True, text=True, check=True)
        summary = next(line for line in out.read_text().splitlines() if line.startswith("summary:"))
    return int(summary.split()[1])


def per_step(template: str, short: int, long: int, engine: bool = False, **fields) -> float:
    """Instructions per step (engine: only the engine's) from runs of short and long steps."""
    short_run, long_run = (callgrind(template.format(steps=n, **fields), engine) for n in (short, long))
    return (long_run - short_run) / (long - short)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dist", help="folder of FMUs built by build_fmu.py")
    parser.add_argument("--short", type=int, default=100)
    parser.add_argument("--long", type=int, default=500)
    args = parser.parse_args()
    sys.path.insert(0, str(BENCHMARKS))
    from bench_compiled import build_noop

    fields = dict(benchmarks=str(BENCHMARKS))
    noop = build_noop(Path(tempfile.mkdtemp()))
    floor = per_step(FMPY_RUN, args.short, args.long, name="NoOp", path=str(noop), **fields)
    print(f"instructions per step ({args.long} steps less {args.short}); no-op FMU in FMPy: {floor:,.0f}")
    print(f"  {'FMU':14s} {'FMPy':>10s} {'x no-op':>8s} {'slave':>10s} {'engine':>10s}")
    for name in FMUS:
        fmpy = per_step(FMPY_RUN, args.short, args.long, name=name, path=str(Path(args.dist) / f"{name}.fmu"),
                           **fields)
        slave, engine = (per_step(SLAVE_RUN, args.short, args.long, only, name=name, **fields)
                         for only in (False, True))
        print(f"  {name:14s} {fmpy:10,.0f} {fmpy / floor:8.2f} {slave:10,.0f} {engine:10,.0f}", flush=True)


if __name__ == "__main__":
    main()
