"""Cost of one FMU communication step in Python, split by where it goes (not a test).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_step.py [--steps 2000] [--h 0.001]

The slaves of SliderCrank and DupontTwoMass are instantiated in this process (no FMU, no pythonfmu
binary) and stepped as pythonfmu steps them: set_real of the inputs, then do_step (the stepper and the
engine's record; no output is read, so none is published), from rest with the inputs of bench_compiled.py. Reported per step (us): the whole, the
C engine's call (``native.Instance.step_held``: integration, events, mode decisions and the record) and the rest,
the per-step Python path (the setter, the slave's checks, the stepper, the inputs' forms); its
ratio to the engine's call is comparable between runs on a loaded machine, the absolute values are not. Medians over chunks of
100 steps (a chunk with an event costs more; the median is the common step). The pythonfmu binary
adds its own floor on top (the no-op FMU of bench_compiled.py).
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import statistics
import time
from pathlib import Path

from friction_joints.native import Instance

ROOT = Path(__file__).resolve().parents[1]
CASES = {  # slave, {input: function of t}
    "SliderCrank": {"tau": lambda t: 4.0 * math.sin(3.0 * t)},
    "DupontTwoMass": {"F1": lambda t: 7.0 * math.sin(2.4 * t), "F2": lambda t: 50.0 * math.cos(0.8 * t)},
}


def slave(name):
    """The slave of fmu_src/<name>.py, initialised with its parameters' start values."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "fmu_src" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    instance = getattr(module, name)(instance_name="bench")
    instance.setup_experiment(0.0)
    instance.enter_initialization_mode()
    instance.exit_initialization_mode()
    return instance


class Timed:
    """Replaces module.name by a wrapper that adds its wall time to ``seconds`` while in a with block."""

    def __init__(self, owner, name):
        self.owner, self.name, self.seconds = owner, name, 0.0
        self.real = getattr(owner, name)

    def __enter__(self):
        def timed(*args):
            start = time.perf_counter()
            try:
                return self.real(*args)
            finally:
                self.seconds += time.perf_counter() - start
        setattr(self.owner, self.name, timed)
        return self

    def __exit__(self, *exc):
        setattr(self.owner, self.name, self.real)


def chunks(instance, inputs, steps, h, size=100):
    """(whole, engine) seconds per step of each chunk of ``size`` steps."""
    refs = [next(vr for vr, v in instance.vars.items() if v.name == name) for name in inputs]
    functions = list(inputs.values())
    out, t = [], 0.0
    for _ in range(steps // size):
        with Timed(Instance, "step_held") as engine:
            start = time.perf_counter()
            for _ in range(size):
                instance.set_real(refs, [f(t) for f in functions])
                if not instance.do_step(t, h):
                    raise RuntimeError(f"doStep failed at t={t}: {instance.error}")
                t += h
            whole = time.perf_counter() - start
        out.append((whole / size, engine.seconds / size))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--h", type=float, default=1e-3, help="communication step (s)")
    args = parser.parse_args()
    print(f"slave steps at h = {args.h * 1e3:g} ms, medians over chunks of 100 steps (us per step)")
    print(f"  {'FMU':14s} {'whole':>7s} {'engine':>7s} {'rest':>6s}  rest / engine")
    for name, inputs in CASES.items():
        rows = chunks(slave(name), inputs, args.steps, args.h)
        whole, engine = (statistics.median(column) * 1e6 for column in zip(*rows))
        rest = statistics.median(w - e for w, e in rows) * 1e6
        print(f"  {name:14s} {whole:7.1f} {engine:7.1f} {rest:6.1f}  {rest / engine:.2f}")


if __name__ == "__main__":
    main()
