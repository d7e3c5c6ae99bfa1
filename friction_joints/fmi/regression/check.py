"""The check of one reference case: run the FMU, put every reference signal in its tube, say why it failed."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .references import ReferenceError, as_float_table, load_reference, read_experiment, write_csv
from .run import Run, UnsupportedFMU, model_description, simulate
from .tube import SignalVerdict, tube_check


class RunFailed(Exception):
    """A run of the FMU to record from failed (exit status 1)."""


@dataclass
class Verdict:
    """The outcome of a check (exit status 0 if passed, else 1), with what its plots need."""
    run: Run
    lacking: list[str]  # reference signals that are no variables of the FMU
    signals: list[SignalVerdict]  # over the rows the run computed
    reference: np.ndarray
    rtol: float
    ttol: float  # s
    seconds: float  # wall time of the run

    @property
    def passed(self) -> bool:
        return not self.run.failures and not self.lacking and all(v.passed for v in self.signals)

    def reasons(self) -> list[str]:
        """Why it failed, most important first: the run's failures, lacking signals, signals out of their tubes."""
        return (self.run.failures + [f"{name}: the FMU has no such variable" for name in self.lacking]
                + [v.message() for v in self.signals if not v.passed])

    def worst(self) -> SignalVerdict | None:
        """The signal with the largest excursion (None without checked signals)."""
        return max(self.signals, key=lambda v: v.max_excursion, default=None)


@dataclass
class Outcome:
    """One reference case of one FMU: its verdict, or why the check could not run (error)."""
    fmu: str  # the FMU's file name
    case: str
    verdict: Verdict | None = None
    error: str | None = None
    plots: list[bytes] | None = None  # PNGs of the signals, made where the check ran (html_report.plot_png)

    @property
    def status(self) -> int:
        """The exit status: 0 pass, 1 fail, 2 the check could not run."""
        return 2 if self.verdict is None else 0 if self.verdict.passed else 1

    @property
    def label(self) -> str:
        """'<file>', or '<file> [<case>]' for a variant case <Model>-<variant>."""
        return f"{self.fmu} [{self.case}]" if "-" in self.case else self.fmu

    def headline(self) -> str:
        """Why it did not pass: the error, or the first reason of the failure (+n more); empty if it passed."""
        if self.verdict is None:
            return self.error
        reasons = self.verdict.reasons()
        return "" if not reasons else reasons[0] + (f" (+{len(reasons) - 1} more)" if len(reasons) > 1 else "")

    def summary(self) -> str:
        """One line: '<label>: PASS', '<label>: FAIL: <headline>' or '<label>: ERROR: <headline>'."""
        return f"{self.label}: " + ("PASS", f"FAIL: {self.headline()}", f"ERROR: {self.headline()}")[self.status]

    def report(self) -> str:
        """The lines of the check: the verdict, each reason of a failure, the FMU's log, a line per signal."""
        if self.verdict is None:
            return self.summary()
        v = self.verdict
        lines = [f"{self.label}: {'PASS' if v.passed else 'FAIL'}"]
        lines += [f"  FAIL  {failure}" for failure in v.run.failures]
        lines += [f"  log   {message}" for message in v.run.log]
        lines += [f"  FAIL  {name}: the FMU has no such variable" for name in v.lacking]
        lines += [f"  ok    {s.name}" if s.passed else f"  FAIL  {s.message()}" for s in v.signals]
        return "\n".join(lines)


def check(fmu, refdir, tube_rtol=1e-3, tube_ttol=None, reference=None, case=None) -> Verdict:
    """The verdict on a run of the FMU and on every signal of <case>_ref.csv (case: default <Model>;
    reference: what load_reference gives, read from refdir if None)."""
    md = model_description(fmu)
    opt, inputs, ref = reference or load_reference(refdir, case or md.coSimulation.modelIdentifier)
    variables = {v.name for v in md.modelVariables}
    names = [n for n in ref.dtype.names[1:] if n in variables]
    start = time.perf_counter()
    run = simulate(fmu, opt, inputs, names)
    seconds = time.perf_counter() - start
    ttol = opt["StepSize"] if tube_ttol is None else tube_ttol
    signals = [] if run.result is None else [
        tube_check(n, run.result["time"], run.result[n].astype(float), ref["time"], ref[n], tube_rtol, ttol)
        for n in names]
    return Verdict(run, [n for n in ref.dtype.names[1:] if n not in variables], signals, ref, tube_rtol, ttol,
                   seconds)


def check_case(fmu, refdir, case, tube_rtol=1e-3, tube_ttol=None, reference=None) -> Outcome:
    """The outcome of case for the FMU: a verdict, or the error that kept the check from running."""
    try:
        return Outcome(Path(fmu).name, case, check(fmu, refdir, tube_rtol, tube_ttol, reference, case))
    except (ReferenceError, UnsupportedFMU) as exc:
        return Outcome(Path(fmu).name, case, error=str(exc))
    except Exception as exc:  # FMPy could not run the FMU (failed FMI calls are verdicts, see run.simulate)
        return Outcome(Path(fmu).name, case, error=f"simulating failed: {type(exc).__name__}: {exc}")


def record(fmu, refdir, outputs=None, case=None):
    """Write <case>_ref.csv (case: default <Model>) from a run of the FMU (all its outputs unless
    named); raise RunFailed and write nothing if the run fails."""
    md = model_description(fmu)
    case = case or md.coSimulation.modelIdentifier
    outputs = outputs or [v.name for v in md.modelVariables if v.causality == "output"]
    opt, inputs = read_experiment(refdir, case)
    run = simulate(fmu, opt, inputs, outputs)
    if run.failures:
        raise RunFailed("; ".join(run.failures + run.log))
    path = Path(refdir) / f"{case}_ref.csv"
    write_csv(path, as_float_table(run.result, ["time", *outputs]))
    return path

