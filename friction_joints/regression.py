"""FMU regression tests against references in the FMI cross-check layout.

    python -m friction_joints.regression FMU REFDIR [--tube-rtol R] [--tube-ttol T]
    python -m friction_joints.regression --record FMU REFDIR

REFDIR holds, for the FMU's model identifier <Model>:
  <Model>_ref.opt   "StartTime, 0", "StopTime, 2", "StepSize, 0.01", "RelTol, 1e-8" (one per line);
  <Model>_in.csv    optional input table, a "time" column then one column per input (held by
                    FMPy at the communication points);
  <Model>_ref.csv   the reference: a "time" column then one column per output that is checked.

The check simulates the FMU with FMPy (output_interval = StepSize, tolerance = RelTol) and puts a
tolerance tube around every reference signal: at time t the result must lie within
[min, max] of the reference over [t - ttol, t + ttol], widened by rtol times the signal's range
(plus a tiny absolute floor). The time tolerance lets an event move by up to ttol without a
failure; the default ttol is one communication step. Exit status: 0 pass, 1 a signal left its
tube (the report names it and when), 2 error (missing or malformed files, simulation failure).
``--record`` writes <Model>_ref.csv from a run of the FMU instead (with the same .opt and inputs).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

OPT_KEYS = ("StartTime", "StopTime", "StepSize", "RelTol")
ABS_FLOOR = 1e-12  # absolute half-width added to every tube (signals that are constant)


class ReferenceError(Exception):
    """A missing or malformed reference file (exit status 2)."""


@dataclass
class SignalVerdict:
    name: str
    passed: bool
    first_violation: float | None  # s
    violations: int  # number of samples outside the tube
    max_excess: float  # largest distance outside the tube (signal units)


def read_opt(path: Path) -> dict:
    if not path.exists():
        raise ReferenceError(f"missing {path}")
    opt = {}
    for line in path.read_text().splitlines():
        if line.strip():
            key, _, value = line.partition(",")
            opt[key.strip()] = float(value)
    missing = [k for k in OPT_KEYS if k not in opt]
    if missing:
        raise ReferenceError(f"{path} lacks {', '.join(missing)}")
    if not (opt["StopTime"] > opt["StartTime"] and opt["StepSize"] > 0 and 0 < opt["RelTol"] < 1):
        raise ReferenceError(f"{path}: need StopTime > StartTime, StepSize > 0 and 0 < RelTol < 1, got {opt}")
    return opt


def read_csv(path: Path) -> np.ndarray:
    """A CSV with a header row (quoted or bare names, the first one 'time') as a structured array."""
    if not path.exists():
        raise ReferenceError(f"missing {path}")
    with path.open() as f:
        names = [n.strip().strip('"') for n in f.readline().split(",")]
    if not names or names[0] != "time":
        raise ReferenceError(f"{path}: the first column must be 'time', got {names[:1]}")
    data = np.atleast_2d(np.loadtxt(path, delimiter=",", skiprows=1))
    if data.shape[1] != len(names) or np.any(np.diff(data[:, 0]) < 0):
        raise ReferenceError(f"{path}: {len(names)} named columns, {data.shape[1]} data columns, or time decreasing")
    return np.array([tuple(row) for row in data], dtype=[(n, float) for n in names])


def input_table(stop_time: float, step_size: float, inputs: dict):
    """Inputs {name: function of t} sampled at 0, step_size, ..., stop_time (s) as the structured
    array FMPy's simulate_fmu takes and <Model>_in.csv holds; None without inputs."""
    if not inputs:
        return None
    t = np.round(np.arange(0.0, stop_time + step_size / 2, step_size), 12)
    return np.array([(ti, *(float(fn(ti)) for fn in inputs.values())) for ti in t],
                    dtype=[("time", float)] + [(n, float) for n in inputs])


def write_csv(path: Path, table: np.ndarray):
    names = table.dtype.names
    with path.open("w") as f:
        f.write(",".join(f'"{n}"' for n in names) + "\n")
        for row in table:
            f.write(",".join(repr(float(v)) for v in row) + "\n")


def tube_check(name, t, y, t_ref, y_ref, rtol, ttol) -> SignalVerdict:
    """Whether y(t) stays in the tube around y_ref(t_ref) (see the module docstring)."""
    y, y_ref = np.asarray(y, float), np.asarray(y_ref, float)
    finite_ref = y_ref[~np.isnan(y_ref)]
    half = rtol * (np.ptp(finite_ref) if len(finite_ref) else 0.0) + ABS_FLOOR
    excess = np.empty(len(t))
    for i, ti in enumerate(t):
        window = (t_ref >= ti - ttol) & (t_ref <= ti + ttol)
        around = y_ref[window] if window.any() else np.interp([ti], t_ref, y_ref)
        finite = around[~np.isnan(around)]
        if np.isnan(y[i]):  # NaN is in the tube only where the reference is NaN too
            excess[i] = 0.0 if np.isnan(around).any() else np.inf
        elif len(finite) == 0:
            excess[i] = np.inf
        else:
            excess[i] = max(finite.min() - half - y[i], y[i] - finite.max() - half)
    bad = np.flatnonzero(excess > 0)
    return SignalVerdict(name, len(bad) == 0, float(t[bad[0]]) if len(bad) else None, len(bad),
                         float(excess.max()) if len(excess) else 0.0)


def model_identifier(fmu) -> str:
    from fmpy import read_model_description

    return read_model_description(str(fmu)).coSimulation.modelIdentifier


def simulate(fmu, refdir, outputs):
    """Run the FMU as the reference prescribes; returns (result structured array, opt)."""
    from fmpy import simulate_fmu

    model = model_identifier(fmu)
    opt = read_opt(Path(refdir) / f"{model}_ref.opt")
    in_path = Path(refdir) / f"{model}_in.csv"
    inputs = read_csv(in_path) if in_path.exists() else None
    result = simulate_fmu(str(fmu), start_time=opt["StartTime"], stop_time=opt["StopTime"],
                          output_interval=opt["StepSize"], relative_tolerance=opt["RelTol"], input=inputs,
                          output=outputs)
    return result, opt


def check(fmu, refdir, tube_rtol=1e-3, tube_ttol=None) -> list[SignalVerdict]:
    """Verdicts for every signal of <Model>_ref.csv."""
    model = model_identifier(fmu)
    ref = read_csv(Path(refdir) / f"{model}_ref.csv")
    names = list(ref.dtype.names[1:])
    result, opt = simulate(fmu, refdir, names)
    ttol = opt["StepSize"] if tube_ttol is None else tube_ttol
    missing = [n for n in names if n not in result.dtype.names]
    if missing:
        raise ReferenceError(f"the FMU has no outputs {missing}")
    return [tube_check(n, result["time"], result[n].astype(float), ref["time"], ref[n], tube_rtol, ttol)
            for n in names]


def record(fmu, refdir, outputs=None):
    """Write <Model>_ref.csv from a run of the FMU (all its outputs unless named)."""
    from fmpy import read_model_description

    md = read_model_description(str(fmu))
    outputs = outputs or [v.name for v in md.modelVariables if v.causality == "output"]
    result, _ = simulate(fmu, refdir, outputs)
    table = np.array([tuple(float(v) for v in row) for row in result[["time", *outputs]]],
                     dtype=[(n, float) for n in ["time", *outputs]])
    path = Path(refdir) / f"{md.coSimulation.modelIdentifier}_ref.csv"
    write_csv(path, table)
    return path


def report(fmu, verdicts) -> str:
    lines = [f"{Path(fmu).name}: {'PASS' if all(v.passed for v in verdicts) else 'FAIL'}"]
    for v in verdicts:
        if v.passed:
            lines.append(f"  ok    {v.name}")
        else:
            lines.append(f"  FAIL  {v.name}: left its tube at t = {v.first_violation:.6g} s, {v.violations} "
                         f"samples outside, by up to {v.max_excess:.3g}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m friction_joints.regression", description=__doc__.split("\n")[0])
    parser.add_argument("fmu", type=Path)
    parser.add_argument("refdir", type=Path)
    parser.add_argument("--record", action="store_true", help="write the reference from a run of the FMU")
    parser.add_argument("--tube-rtol", type=float, default=1e-3,
                        help="tube half-width relative to each signal's range (default 1e-3)")
    parser.add_argument("--tube-ttol", type=float, default=None,
                        help="time tolerance of the tube in s (default: the StepSize of the .opt)")
    args = parser.parse_args(argv)
    try:
        if not args.fmu.exists():
            raise ReferenceError(f"no FMU at {args.fmu}")
        if not args.tube_rtol >= 0 or (args.tube_ttol is not None and not args.tube_ttol >= 0):
            raise ReferenceError("--tube-rtol and --tube-ttol must be >= 0")
        if args.record:
            print(f"wrote {record(args.fmu, args.refdir)}")
            return 0
        verdicts = check(args.fmu, args.refdir, args.tube_rtol, args.tube_ttol)
    except ReferenceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # a simulation that fails is an error of the run, not a verdict
        print(f"error: simulating {args.fmu} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    print(report(args.fmu, verdicts))
    return 0 if all(v.passed for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
