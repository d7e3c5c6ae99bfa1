"""FMU regression tests against references in the FMI cross-check layout.

    python -m friction_joints.fmi.regression FMU REFDIR [--case CASE] [--tube-rtol R] [--tube-ttol T]
    python -m friction_joints.fmi.regression --record FMU REFDIR [--case CASE]
    python -m friction_joints.fmi.regression FOLDER [REFDIR] [--scheduler ADDRESS] [--workers N]

REFDIR holds, for the FMU's model identifier <Model>:
  <Model>_ref.opt   "StartTime, 0", "StopTime, 2", "StepSize, 0.01", "RelTol, 1e-8" (one per line);
  <Model>_in.csv    optional input table, a "time" column then one column per input (held by
                    FMPy at the communication points);
  <Model>_ref.csv   the reference: a "time" column then one column per output that is checked
                    (up to StopTime at most).
A variant of the model's parameters is a further case <Model>-<variant> (e.g. SliderCrank-LuGre) with
the same three files under that name; its .opt sets the parameters it changes with lines
"Start <variable>, <value>" (start values given to FMPy). --case checks (or records) one case; a
FOLDER is checked against every case of each FMU.

The check simulates the FMU with FMPy (output_interval = StepSize, tolerance = RelTol) and puts a
tolerance tube around every reference signal: at time t the result must lie within
[min, max] of the reference over [t - ttol, t + ttol], widened by rtol times the signal's range
(plus a tiny absolute floor). The time tolerance lets an event move by up to ttol without a
failure; the default ttol is one communication step.

Exit status:
  0  pass;
  1  the FMU failed the check: a signal left its tube, the run stopped before StopTime, an FMI
     call returned Discard, Error or Fatal, or the reference has signals the FMU lacks;
  2  the check could not run: a missing or malformed reference file, no FMU file, or a simulation
     that FMPy could not start.
The report has a line for each reason of a failure (which call, at what time and with which status,
then the messages the FMU logged with status Discard or worse) and one per signal, checked over the
part of the run that was computed.
A FOLDER of FMUs is checked in parallel on a Dask cluster (friction_joints.fmi.cluster: a local
one of N worker processes, default the cores, or the one at the scheduler ADDRESS), each FMU
against its reference in REFDIR (default: FOLDER), one task per FMU; the output is one summary
line per FMU (PASS, FAIL with the first reason, or ERROR where the check could not run) and the
exit status is the worst of them.
``--record`` writes <Model>_ref.csv from a run of the FMU instead (with the same .opt and inputs);
a run that fails writes nothing (exit 1).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

OPT_KEYS = ("StartTime", "StopTime", "StepSize", "RelTol")
START = "Start "  # the prefix of a start value's key in an .opt
ABS_FLOOR = 1e-12  # absolute half-width added to every tube (signals that are constant)
FAILED = {2: "Discard", 3: "Error", 4: "Fatal"}  # the FMI 2 statuses that fail a run


class ReferenceError(Exception):
    """A missing or malformed reference file (exit status 2)."""


class RunFailed(Exception):
    """A run of the FMU to record from failed (exit status 1)."""


@dataclass
class SignalVerdict:
    name: str
    passed: bool
    first_violation: float | None  # s
    violations: int  # number of samples outside the tube
    max_excess: float  # largest distance outside the tube (signal units)


@dataclass
class Run:
    """A run of the FMU: the rows it computed (None if none), why it failed (empty if it did not)
    and the messages the FMU logged with status Discard or worse."""
    result: np.ndarray | None
    failures: list[str]
    log: list[str]


@dataclass
class Verdict:
    """The outcome of a check (exit status 0 if passed, else 1)."""
    run: Run
    lacking: list[str]  # reference signals that are no variables of the FMU
    signals: list[SignalVerdict]  # over the rows the run computed

    @property
    def passed(self) -> bool:
        return not self.run.failures and not self.lacking and all(v.passed for v in self.signals)


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


def start_values_of(opt: dict) -> dict:
    """{variable: value} of the "Start <variable>" lines of an .opt (whole numbers as int, which an Integer
    variable needs)."""
    return {key[len(START):]: int(value) if value.is_integer() else value for key, value in opt.items()
            if key.startswith(START)}


def cases(refdir, model) -> list[str]:
    """The reference cases of <Model> in refdir: the model itself, then its variants <Model>-<variant>."""
    return [model] + sorted(p.name[:-len("_ref.opt")] for p in Path(refdir).glob(f"{model}-*_ref.opt"))


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


def before(t: float, stop: float) -> bool:
    """Whether time t is short of stop by more than rounding."""
    return t < stop and not np.isclose(t, stop)


def read_experiment(refdir, model) -> tuple[dict, np.ndarray | None]:
    """The .opt of <Model> in refdir and its input table (None without <Model>_in.csv)."""
    in_path = Path(refdir) / f"{model}_in.csv"
    return read_opt(Path(refdir) / f"{model}_ref.opt"), read_csv(in_path) if in_path.exists() else None


class _Monitor:
    """The callbacks of simulate_fmu: they note the time reached, the FMI calls that return Discard,
    Error or Fatal and what the FMU logs with such a status, and stop the run after such a call
    (FMPy raises on Error and Fatal, stops on a Discard only if the FMU says it terminated)."""

    def __init__(self, start_time):
        self.time, self.recorder, self.failures, self.log = start_time, None, [], []

    def fmi_call(self, message):
        """fmi_call_logger: message is e.g. 'fmi2DoStep(c=0x5d.., currentCommunicationPoint=0.3, ..) -> DISCARD'
        (fmi3DoStep for FMI 3.0)."""
        status = message.rpartition(" -> ")[2].capitalize()
        if status in FAILED.values():
            self.failures.append(f"{message.partition('(')[0]} returned {status} at t = {self.time:.6g} s")

    def logger(self, *arguments):
        """FMPy's logger: (environment, instance name, status, category, message) of FMI 2.0, or
        (environment, status, category, message) of FMI 3.0."""
        status, message = arguments[-3], arguments[-1]
        if status in FAILED:
            self.log.append(f"[{FAILED[status]}] {message.decode(errors='replace')}")

    def step_finished(self, time, recorder):
        self.time, self.recorder = time, recorder
        return not self.failures


def simulate(fmu, opt, inputs, outputs, start_values=None) -> Run:
    """Run the FMU (its file, or the folder it is extracted in) from StartTime to StopTime of opt with
    the input table and the start values {name: value} (default: those of opt), recording outputs
    (RelTol None or absent: the FMU's default tolerance)."""
    from fmpy import extract, simulate_fmu
    from fmpy.fmi1 import FMICallException

    monitor = _Monitor(opt["StartTime"])
    with tempfile.TemporaryDirectory() as unzipdir:  # simulate_fmu's own one stays behind when it raises
        try:
            result = simulate_fmu(str(fmu) if Path(fmu).is_dir() else extract(str(fmu), unzipdir),
                                  start_time=opt["StartTime"],
                                  stop_time=opt["StopTime"], output_interval=opt["StepSize"],
                                  relative_tolerance=opt.get("RelTol"),
                                  start_values=start_values_of(opt) if start_values is None else start_values,
                                  input=inputs, output=outputs, debug_logging=True,
                                  logger=monitor.logger, fmi_call_logger=monitor.fmi_call,
                                  step_finished=monitor.step_finished)
        except FMICallException:  # the monitor has the call, and the rows up to the last finished step
            result = monitor.recorder.result() if monitor.recorder else None
    run = Run(result, monitor.failures, monitor.log)
    t_end = opt["StartTime"] if result is None else float(result["time"][-1])
    if before(t_end, opt["StopTime"]):
        run.failures.insert(0, f"the run stopped at t = {t_end:.6g} s, before StopTime = {opt['StopTime']:.6g} s")
    return run


def load_reference(refdir, model) -> tuple[dict, np.ndarray | None, np.ndarray]:
    """(opt, input table or None, reference) of <Model> in refdir."""
    opt, inputs = read_experiment(refdir, model)
    ref = read_csv(Path(refdir) / f"{model}_ref.csv")
    if before(opt["StopTime"], ref["time"][-1]):
        raise ReferenceError(f"{model}_ref.csv goes on to t = {ref['time'][-1]:.6g} s, after StopTime = "
                             f"{opt['StopTime']:.6g} s")
    return opt, inputs, ref


def check(fmu, refdir, tube_rtol=1e-3, tube_ttol=None, reference=None, case=None) -> Verdict:
    """The verdict on a run of the FMU and on every signal of <case>_ref.csv (case: default <Model>;
    reference: what load_reference gives, read from refdir if None)."""
    from fmpy import read_model_description

    md = read_model_description(str(fmu))
    opt, inputs, ref = reference or load_reference(refdir, case or md.coSimulation.modelIdentifier)
    variables = {v.name for v in md.modelVariables}
    names = [n for n in ref.dtype.names[1:] if n in variables]
    run = simulate(fmu, opt, inputs, names)
    ttol = opt["StepSize"] if tube_ttol is None else tube_ttol
    signals = [] if run.result is None else [
        tube_check(n, run.result["time"], run.result[n].astype(float), ref["time"], ref[n], tube_rtol, ttol)
        for n in names]
    return Verdict(run, [n for n in ref.dtype.names[1:] if n not in variables], signals)


def record(fmu, refdir, outputs=None, case=None):
    """Write <case>_ref.csv (case: default <Model>) from a run of the FMU (all its outputs unless
    named); raise RunFailed and write nothing if the run fails."""
    from fmpy import read_model_description

    md = read_model_description(str(fmu))
    case = case or md.coSimulation.modelIdentifier
    outputs = outputs or [v.name for v in md.modelVariables if v.causality == "output"]
    run = simulate(fmu, *read_experiment(refdir, case), outputs)
    if run.failures:
        raise RunFailed("; ".join(run.failures + run.log))
    path = Path(refdir) / f"{case}_ref.csv"
    write_csv(path, as_float_table(run.result, ["time", *outputs]))
    return path


def as_float_table(result: np.ndarray, names) -> np.ndarray:
    """The columns names of a result (Booleans as 0/1) as a structured array of floats."""
    return np.array([tuple(float(v) for v in row) for row in result[list(names)]], dtype=[(n, float) for n in names])


def report(fmu, verdict: Verdict) -> str:
    lines = [f"{Path(fmu).name}: {'PASS' if verdict.passed else 'FAIL'}"]
    lines += [f"  FAIL  {failure}" for failure in verdict.run.failures]
    lines += [f"  log   {message}" for message in verdict.run.log]
    lines += [f"  FAIL  {name}: the FMU has no such variable" for name in verdict.lacking]
    for v in verdict.signals:
        if v.passed:
            lines.append(f"  ok    {v.name}")
        else:
            lines.append(f"  FAIL  {v.name}: left its tube at t = {v.first_violation:.6g} s, {v.violations} "
                         f"samples outside, by up to {v.max_excess:.3g}")
    return "\n".join(lines)


def summary(fmu, verdict: Verdict) -> str:
    """One line: '<file>: PASS', or '<file>: FAIL: <the first reason of the report> (+n more)'."""
    reasons = [line[8:] for line in report(fmu, verdict).splitlines() if line.startswith("  FAIL  ")]
    if verdict.passed:
        return f"{Path(fmu).name}: PASS"
    return f"{Path(fmu).name}: FAIL: {reasons[0]}" + (f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else "")


def _check_shipped(fmu, reference, tube_rtol, tube_ttol, label) -> tuple[int, str]:
    """A Dask task: (exit status, summary line starting with label) of the shipped FMU (a cluster.FMUFile)
    against reference."""
    try:
        verdict = check(fmu.local(), None, tube_rtol, tube_ttol, reference)
    except Exception as exc:  # FMPy could not run the FMU
        return 2, f"{label}: ERROR: simulating failed: {type(exc).__name__}: {exc}"
    return (0 if verdict.passed else 1), summary(label, verdict)


def check_folder(folder, refdir, tube_rtol=1e-3, tube_ttol=None, scheduler=None, workers=None) -> list[tuple[int, str]]:
    """(exit status, summary line) of every FMU in folder against each of its reference cases in refdir
    (the line names the file, and a variant case in brackets), the checks run in parallel on a Dask
    cluster (see cluster.connect for scheduler and workers)."""
    from fmpy import read_model_description

    from . import cluster

    fmus = sorted(Path(folder).glob("*.fmu"))
    if not fmus:
        raise ReferenceError(f"no FMUs in {folder}")
    outcomes, references, labels = {}, {}, {}
    for fmu in fmus:
        try:
            model = read_model_description(str(fmu)).coSimulation.modelIdentifier
        except Exception as exc:  # no readable FMU
            outcomes[fmu, None] = (2, f"{fmu.name}: ERROR: {exc}")
            continue
        for case in cases(refdir, model):
            labels[fmu, case] = fmu.name if case == model else f"{fmu.name} [{case}]"
            try:
                references[fmu, case] = load_reference(refdir, case)
            except Exception as exc:  # a missing or malformed reference
                outcomes[fmu, case] = (2, f"{labels[fmu, case]}: ERROR: {exc}")
    if references:
        with cluster.connect(scheduler, workers) as client:
            shipped = cluster.ship(client, {fmu: fmu for fmu, _ in references})
            results = cluster.run_tasks(client, _check_shipped, [(shipped[fmu], references[fmu, case], tube_rtol,
                                                                  tube_ttol, labels[fmu, case])
                                                                 for fmu, case in references], "FMU cases")
        for key, result in zip(references, results):
            outcomes[key] = result if isinstance(result, tuple) else (
                2, f"{labels[key]}: ERROR: its task failed: {type(result).__name__}: {result}")
    return [outcomes[key] for key in sorted(outcomes, key=lambda key: (key[0], key[1] or ""))]


def _main_folder(args) -> int:
    """The summary lines of a folder of FMUs; the exit status of the worst (130 if cancelled)."""
    from .cluster import Cancelled

    try:
        outcomes = check_folder(args.fmu, args.refdir or args.fmu, args.tube_rtol, args.tube_ttol,
                                args.scheduler, args.workers)
    except (ValueError, RuntimeError) as exc:  # bad --workers, no dask.distributed
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (Cancelled, KeyboardInterrupt) as exc:
        print(f"regression run {exc or 'cancelled'}", file=sys.stderr)
        return 130
    print("\n".join(line for _, line in outcomes))
    return max(status for status, _ in outcomes)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m friction_joints.fmi.regression", description=__doc__.split("\n")[0])
    parser.add_argument("fmu", type=Path, help="an FMU, or a folder of FMUs (checked in parallel on Dask)")
    parser.add_argument("refdir", type=Path, nargs="?", help="folder of the references (default for a folder of "
                        "FMUs: that folder)")
    parser.add_argument("--record", action="store_true", help="write the reference from a run of the FMU")
    parser.add_argument("--case", help="a single FMU: the reference case <Model>-<variant> (default: <Model>)")
    parser.add_argument("--tube-rtol", type=float, default=1e-3,
                        help="tube half-width relative to each signal's range (default 1e-3)")
    parser.add_argument("--tube-ttol", type=float, default=None,
                        help="time tolerance of the tube in s (default: the StepSize of the .opt)")
    parser.add_argument("--scheduler", help="a folder of FMUs: address of a running Dask scheduler "
                        "(default: a local cluster)")
    parser.add_argument("--workers", type=int, help="a folder of FMUs: worker processes of the local cluster "
                        "(default: the cores); with --scheduler: wait for this many workers")
    args = parser.parse_args(argv)
    folder = args.fmu.is_dir()
    if args.refdir is None and not folder:
        parser.error("REFDIR is needed for a single FMU")
    if folder and args.record:
        parser.error("--record takes a single FMU")
    if folder and args.case:
        parser.error("--case takes a single FMU")
    if not folder and (args.scheduler or args.workers):
        parser.error("--scheduler and --workers apply to a folder of FMUs")
    try:
        if not args.fmu.exists():
            raise ReferenceError(f"no FMU at {args.fmu}")
        if not args.tube_rtol >= 0 or (args.tube_ttol is not None and not args.tube_ttol >= 0):
            raise ReferenceError("--tube-rtol and --tube-ttol must be >= 0")
        if folder:
            return _main_folder(args)
        if args.record:
            print(f"wrote {record(args.fmu, args.refdir, case=args.case)}")
            return 0
        verdict = check(args.fmu, args.refdir, args.tube_rtol, args.tube_ttol, case=args.case)
    except ReferenceError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RunFailed as exc:
        print(f"{args.fmu.name}: FAIL, nothing recorded: {exc}")
        return 1
    except Exception as exc:  # FMPy could not run the FMU (failed FMI calls are verdicts, see simulate)
        print(f"error: simulating {args.fmu} failed: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    print(report(args.fmu, verdict))
    return 0 if verdict.passed else 1


if __name__ == "__main__":
    sys.exit(main())
