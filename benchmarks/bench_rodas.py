"""The bristle oscillator on the C engine's stiff integrator RODAS at 1 ms communication steps (not a test).

The oscillator of bench_bristle.py (1 kg on a belt at 0.1 m/s, spring 100 N/m, N = 10 N, mu_c 0.3,
mu_s 0.4, sigma0 = 1e5 1/m, sigma1 = 5 s/m, v_s = 1 mm/s) from rest, each bristle law, T seconds,
stepped at h = 1 ms with the inputs held over each step (an FMU's way):

  C          family "bristle" and fj_rodas_advance called from C (rodas_step.c): the integrator's own cost
  instance   the same family on the engine's instance (fj.h, engine_step.c), whose step integrates the
             stiff family with RODAS: the integrator and the instance's loop
  explicit   the same on the instance with the family's integrator cleared: DOP853 or RK45 (engine_step.c)
  compiled   the instance from Python (engine="compiled": CompiledIntegrator.advance_to, ctypes)
  python     the Python engine (LSODA) over the whole run in one call, for scale

Reported: real-time factor (simulated / wall seconds) and integrator steps per communication step
(RODAS, the explicit pairs), at rtol 1e-8 (the FMU's default), 1e-6 and 1e-4, atol = rtol / 100.

Usage: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_rodas.py [--t-end 3]
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

from friction_joints.engine import make_integrator, run
from friction_joints.friction import make_law
from friction_joints.lumped import BristleOscillator, BristleOscillatorParameters
from friction_joints.lumped.bristle_packing import pack
from friction_joints.native import build

NAMES = {1: "Dahl", 2: "LuGre", 3: "elasto-plastic", 4: "Gonthier"}
H = 1e-3
INPUTS = [0.0, 0.1, 10.0]


def params(model):
    law = make_law(model, sigma0=1e5, sigma1=5.0, sigma2=0.0, mu_c=0.3, mu_s=0.4, v_s=1e-3, delta=2.0,
                   z_ba_ratio=0.7)
    return BristleOscillatorParameters(law, m=1.0, k=100.0)


def c_program(name) -> Path:
    """benchmarks/<name>.c built with the engine's sources."""
    program = Path(tempfile.mkdtemp()) / name
    subprocess.run([*build.c_compiler(), *build.CFLAGS, "-I", str(build.SOURCE_DIR),
                    str(Path(__file__).with_name(name + ".c")), *map(str, build.sources()), "-o", str(program),
                    "-lm"], check=True)
    return program


def rodas_c(program, model, rtol, t_end):
    """(RTF, steps per 1 ms) of rodas_step.c."""
    out = subprocess.run([str(program), str(model), str(rtol), str(H), str(t_end)], check=True, capture_output=True,
                         text=True).stdout.split()
    return float(out[1]), float(out[2])


def instance_c(program, model, rtol, t_end, family="bristle"):
    """(RTF, steps per 1 ms) of engine_step.c (the instance's step) on ``family`` ("explicit:bristle": the
    explicit pairs)."""
    fpar, ipar = pack(params(model))
    lines = [f"{family} {fpar.size} {ipar.size} 4 3 {len(BristleOscillator.RECORD_KEYS)} {rtol!r} {rtol / 100!r} {H!r} {t_end!r}",
             " ".join(map(repr, fpar.tolist())), " ".join(map(str, ipar.tolist())), "0 0 0 0",
             " ".join(f"{value!r} 0 0 0" for value in INPUTS)]
    out = subprocess.run([str(program)], input="\n".join(lines) + "\n", check=True, capture_output=True,
                         text=True).stdout.split()
    return 1e3 / float(out[0]), float(out[2])


def compiled_rtf(model, rtol, t_end):
    system = BristleOscillator(params(model), INPUTS)
    integrator = make_integrator(system, 0.0, system.initial_state(), engine="compiled", rtol=rtol, atol=rtol / 100)
    start = time.perf_counter()
    for k in range(round(t_end / H)):
        integrator.advance_to((k + 1) * H)
    return t_end / (time.perf_counter() - start)


def python_rtf(model, rtol, t_end):
    system = BristleOscillator(params(model), INPUTS)
    start = time.perf_counter()
    run(system, system.initial_state(sigma0=1e5), t_end, dt_out=0.01, rtol=rtol, atol=rtol / 100, engine="python")
    return t_end / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t-end", type=float, default=3.0)
    args = parser.parse_args()
    rodas, instance = c_program("rodas_step"), c_program("engine_step")
    print(f"{'law':15s} {'rtol':>6s} {'RTF C':>7s} {'steps/h':>8s} {'RTF instance':>13s} {'steps/h':>8s} "
          f"{'RTF explicit':>13s} {'steps/h':>8s} {'RTF compiled':>13s} {'RTF python':>11s}")
    for model, name in NAMES.items():
        for rtol in (1e-8, 1e-6, 1e-4):
            rtf, steps = rodas_c(rodas, model, rtol, args.t_end)
            rtf_inst, steps_inst = instance_c(instance, model, rtol, args.t_end)
            rtf_exp, steps_exp = instance_c(instance, model, rtol, args.t_end, "explicit:bristle")
            print(f"{name:15s} {rtol:6.0e} {rtf:7.0f} {steps:8.2f} {rtf_inst:13.0f} {steps_inst:8.2f} "
                  f"{rtf_exp:13.0f} {steps_exp:8.2f} {compiled_rtf(model, rtol, args.t_end):13.1f} "
                  f"{python_rtf(model, rtol, args.t_end):11.2f}", flush=True)


if __name__ == "__main__":
    main()
