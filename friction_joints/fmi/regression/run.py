"""A run of an FMI 2.0 or 3.0 co-simulation FMU with FMPy, watched for failed calls and early stops."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .references import before, start_values_of

FAILED = {2: "Discard", 3: "Error", 4: "Fatal"}  # the FMI statuses that fail a run


class UnsupportedFMU(Exception):
    """An FMU the check cannot run: not FMI 2.0 or 3.0 co-simulation, or not readable (exit status 2)."""


@dataclass
class Run:
    """A run of the FMU: the rows it computed (None if none), why it failed (empty if it did not)
    and the messages the FMU logged with status Discard or worse."""
    result: np.ndarray | None
    failures: list[str]
    log: list[str]


def model_description(fmu):
    """FMPy's modelDescription of an FMI 2.0 or 3.0 co-simulation FMU; UnsupportedFMU otherwise."""
    from fmpy import read_model_description

    try:
        md = read_model_description(str(fmu))
    except Exception as exc:  # not a zip, no modelDescription.xml, invalid XML
        raise UnsupportedFMU(f"cannot read {Path(fmu).name}: {exc}") from None
    if md.fmiVersion not in ("2.0", "3.0") or md.coSimulation is None:
        kind = "co-simulation" if md.coSimulation else "model exchange only"
        raise UnsupportedFMU(f"{Path(fmu).name} is FMI {md.fmiVersion} {kind}; the check runs FMI 2.0 and 3.0 "
                             "co-simulation FMUs")
    return md


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
