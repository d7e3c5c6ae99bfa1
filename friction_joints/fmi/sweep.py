"""Parameter sweeps of an FMU on a Dask cluster: one run per point of a grid, one task each.

    python -m friction_joints.sweep FMU --stop-time T --step H [--input FILE.csv] [--rtol R]
        --grid NAME=v1,v2,... [--grid NAME=start:stop:count ...] [--scheduler ADDRESS] [--workers N]
        --output results.csv [--series DIR]

The grid is the Cartesian product of the --grid axes (the first one varies slowest);
start:stop:count gives count values from start to stop, both included (numpy.linspace). Every run
is FMPy's simulate_fmu from t = 0 to T with output interval H (s), the inputs of FILE.csv (a
"time" column, then one column per input, held at the communication points), the FMU's default
tolerance unless --rtol, and the point's values as start values. Without --scheduler a
LocalCluster of N worker processes runs the tasks (default: the number of cores); with it, the
cluster at that address (the FMU file is sent to the workers).

results.csv: one row per run: ``run`` (its index), the parameter values, ``status`` (ok or
error), ``message`` (why it failed: the failed FMI call and the messages the FMU logged),
``wall_time`` (s, on the worker: instantiation and simulation) and, for every output of the FMU,
``<output>.final``, ``.min`` and ``.max`` (empty in an error row). --series DIR writes the time
series of each successful run in the FMI cross-check layout: DIR/<run>/<Model>_ref.csv,
_ref.opt and _in.csv (with --input).

Exit status: 0 every run ok; 1 some runs failed (their rows say why); 2 bad arguments;
130 cancelled by Ctrl-C (nothing written).

``sweep`` is the engine for other tasks too: any function task(fmus, params, *args) ->
(values, series) run over grid points (the steering studies in examples/cosim_steering.py).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import cluster, regression

STATS = ("final", "min", "max")


class CaseFailed(Exception):
    """A run failed; the message says why."""


@dataclass
class Row:
    """The outcome of one run: values {column: float} (empty if it failed), series: the time
    series as a structured array (if asked for), wall_time in s."""
    params: dict
    status: str
    message: str
    wall_time: float
    values: dict
    series: np.ndarray | None = None


def parse_axis(text: str, parameters: dict) -> tuple[str, list]:
    """'NAME=v1,v2,...' or 'NAME=start:stop:count' -> (NAME, values); parameters: {name: FMPy
    ScalarVariable} of the FMU's parameters. Raises ValueError naming what is wrong."""
    name, sep, spec = text.partition("=")
    name = name.strip()
    form = "expected NAME=v1,v2,... or NAME=start:stop:count"
    if not sep or not name or not spec.strip():
        raise ValueError(f"--grid {text!r}: {form}")
    if name not in parameters:
        raise ValueError(f"--grid {text!r}: the FMU has no parameter {name!r}; its parameters: "
                         f"{', '.join(parameters)}")
    variable = parameters[name]
    if variable.type not in ("Real", "Integer"):
        raise ValueError(f"--grid {text!r}: {name} is a {variable.type} parameter; only Real and Integer "
                         "parameters can be swept")
    try:
        if ":" in spec:
            start, stop, count = spec.split(":")
            if int(count) < 1 or str(int(count)) != count.strip():
                raise ValueError
            values = np.linspace(float(start), float(stop), int(count)).tolist()
        else:
            values = [float(v) for v in spec.split(",")]
    except ValueError:
        raise ValueError(f"--grid {text!r}: {form} (numbers; count an integer >= 1)") from None
    if variable.type == "Integer":
        if any(v != round(v) for v in values):
            raise ValueError(f"--grid {text!r}: {name} is an Integer parameter, got {values}")
        values = [int(round(v)) for v in values]
    return name, values


def grid(axes: dict) -> list[dict]:
    """The Cartesian product of axes {name: values} as [{name: value}] (the first axis slowest)."""
    return [dict(zip(axes, point)) for point in itertools.product(*axes.values())]


def simulate_case(fmus, params, opt, inputs, outputs, keep_series):
    """A sweep task: the FMU fmus["fmu"] run by regression.simulate with params as start values.
    Returns ({'<output>.final'|'.min'|'.max': value}, the series or None); raises CaseFailed with
    the failed FMI call and the FMU's logged messages."""
    run = regression.simulate(fmus["fmu"], opt, inputs, outputs, start_values=params)
    if run.failures:
        raise CaseFailed("; ".join(run.failures + run.log))
    values = {}
    for name in outputs:
        y = run.result[name].astype(float)
        values.update({f"{name}.final": float(y[-1]), f"{name}.min": float(y.min()), f"{name}.max": float(y.max())})
    return values, regression.as_float_table(run.result, ["time", *outputs]) if keep_series else None


def _case(task, shipped, params, args) -> Row:
    """Run task on a worker: the shipped FMUs {key: FMUFile} as local paths, wall time measured,
    an exception turned into an error row."""
    start = time.perf_counter()
    try:
        values, series = task({key: f.local() for key, f in shipped.items()}, params, *args)
        values, status, message = {k: float(v) for k, v in values.items()}, "ok", ""
    except Exception as exc:  # noqa: BLE001 -- any failure of a run is its row's message
        values, series = {}, None
        status, message = "error", str(exc) if isinstance(exc, CaseFailed) else f"{type(exc).__name__}: {exc}"
    return Row(params, status, message, time.perf_counter() - start, values, series)


def sweep(client, task, fmus: dict, points: list[dict], *args, label="runs", stream=None) -> list[Row]:
    """task(fmus, params, *args) -> (values, series) for every params in points, one Dask task each,
    the FMU files fmus {key: path} sent to the workers (task gets {key: local path}). A task
    whose worker died gives an error row."""
    shipped = cluster.ship(client, fmus)
    results = cluster.run_tasks(client, _case, [(task, shipped, p, args) for p in points], label, stream)
    return [r if isinstance(r, Row) else Row(p, "error", f"{type(r).__name__}: {r}", float("nan"), {})
            for p, r in zip(points, results)]


def write_results(path: Path, rows: list[Row], names: list[str], columns: list[str]):
    """results.csv: run, the parameters names, status, message, wall_time, then columns."""
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["run", *names, "status", "message", "wall_time", *columns])
        for i, row in enumerate(rows):
            w.writerow([i, *(repr(row.params[n]) for n in names), row.status, row.message, repr(row.wall_time),
                        *(repr(row.values[c]) if c in row.values else "" for c in columns)])


def write_series(folder: Path, rows: list[Row], model: str, opt: dict, inputs):
    """Each ok run's series as folder/<run>/<Model>_ref.csv, _ref.opt (and _in.csv with inputs)."""
    width = len(str(len(rows) - 1))
    for i, row in enumerate(rows):
        if row.series is None:
            continue
        run_dir = folder / f"{i:0{width}d}"
        run_dir.mkdir(parents=True, exist_ok=True)
        regression.write_csv(run_dir / f"{model}_ref.csv", row.series)
        (run_dir / f"{model}_ref.opt").write_text("".join(f"{k}, {v!r}\n" for k, v in opt.items() if v is not None))
        if inputs is not None:
            regression.write_csv(run_dir / f"{model}_in.csv", inputs)


def _parser():
    p = argparse.ArgumentParser(prog="python -m friction_joints.sweep", description=__doc__.split("\n")[0])
    p.add_argument("fmu", type=Path)
    p.add_argument("--stop-time", type=float, required=True, help="stop time T of every run [s]")
    p.add_argument("--step", type=float, required=True, help="communication step and output interval H [s]")
    p.add_argument("--input", type=Path, help="input table: a 'time' column, then one column per input")
    p.add_argument("--rtol", type=float, help="relative tolerance (default: the FMU's default experiment)")
    p.add_argument("--grid", action="append", required=True, metavar="NAME=v1,v2,...|NAME=start:stop:count",
                   help="a parameter and its values (repeat for more parameters)")
    p.add_argument("--scheduler", help="address of a running Dask scheduler (default: a local cluster)")
    p.add_argument("--workers", type=int, help="worker processes of the local cluster (default: the cores); "
                   "with --scheduler: wait for this many workers")
    p.add_argument("--output", type=Path, required=True, help="results CSV, one row per run")
    p.add_argument("--series", type=Path, help="folder for each run's time series (FMI cross-check layout)")
    return p


def _setup(args):
    """(model identifier, axes, opt, input table, outputs) from the arguments; ValueError if bad."""
    from fmpy import read_model_description

    if not args.fmu.is_file():
        raise ValueError(f"no FMU at {args.fmu}")
    if not (args.stop_time > 0 and 0 < args.step <= args.stop_time):
        raise ValueError(f"need --stop-time > 0 and 0 < --step <= --stop-time, got {args.stop_time}, {args.step}")
    if args.rtol is not None and not 0 < args.rtol < 1:
        raise ValueError(f"--rtol must be in (0, 1), got {args.rtol}")
    md = read_model_description(str(args.fmu))
    parameters = {v.name: v for v in md.modelVariables if v.causality == "parameter"}
    axes = {}
    for text in args.grid:
        name, values = parse_axis(text, parameters)
        if name in axes:
            raise ValueError(f"--grid {text!r}: {name} is given twice")
        axes[name] = values
    inputs = None
    if args.input is not None:
        try:
            inputs = regression.read_csv(args.input)
        except regression.ReferenceError as exc:
            raise ValueError(str(exc)) from None
        fmu_inputs = [v.name for v in md.modelVariables if v.causality == "input"]
        unknown = [n for n in inputs.dtype.names[1:] if n not in fmu_inputs]
        if unknown:
            raise ValueError(f"--input {args.input}: {unknown} are no inputs of the FMU; its inputs: "
                             f"{', '.join(fmu_inputs) or 'none'}")
    experiment = md.defaultExperiment
    rtol = args.rtol if args.rtol is not None else (experiment.tolerance if experiment else None)
    opt = {"StartTime": 0.0, "StopTime": args.stop_time, "StepSize": args.step,
           "RelTol": None if rtol is None else float(rtol)}
    outputs = [v.name for v in md.modelVariables if v.causality == "output"]
    return md.coSimulation.modelIdentifier, axes, opt, inputs, outputs


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        model, axes, opt, inputs, outputs = _setup(args)
        with cluster.connect(args.scheduler, args.workers) as client:
            rows = sweep(client, simulate_case, {"fmu": args.fmu}, grid(axes), opt, inputs, outputs,
                         args.series is not None)
    except (ValueError, RuntimeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (cluster.Cancelled, KeyboardInterrupt) as exc:
        print(f"sweep {exc or 'cancelled'}; nothing written", file=sys.stderr)
        return 130
    args.output.parent.mkdir(parents=True, exist_ok=True)
    write_results(args.output, rows, list(axes), [f"{n}.{s}" for n in outputs for s in STATS])
    if args.series is not None:
        write_series(args.series, rows, model, opt, inputs)
    failed = sum(r.status != "ok" for r in rows)
    print(f"{len(rows)} runs, {failed} failed: wrote {args.output}" + (f" and {args.series}" if args.series else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
