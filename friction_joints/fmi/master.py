"""A small fixed-step co-simulation master for FMI 2.0 and 3.0 co-simulation FMUs, on FMPy.

At each communication point t the master sets every connected input (and the external inputs from
functions of t, held over the step) and steps every FMU from t to t + h, by one of the coupling
schemes of ``coupling``: Jacobi (the default: every input from the outputs at t, what the examples
use and what a tool master such as FMPy's container FMU or OMSimulator does), Gauss-Seidel, or
implicit (the step iterated with state rollback until the coupled values converge). The coupled
inputs are interpolated linearly over a step where every FMU that takes one can (canInterpolateInputs;
FMI 3.0 co-simulation has no input derivatives), else held (``Coupling.interpolation``).

``simulate_ssp`` runs an SSP file of such FMUs (friction_joints.fmi.ssp); ``main`` is the command

    python -m friction_joints.master SYSTEM.ssp --stop-time T --step H [--coupling jacobi|gauss-seidel|implicit]
        [--on-no-convergence error|accept] [--interpolation auto|hold|linear] [--set INSTANCE.VAR=VALUE ...]
        [--input FILE.csv] [--output FILE.csv]

--set gives start values (after the SSP's parameter bindings); FILE.csv (input): a "time" column and
columns INSTANCE.VAR of the system's inputs, held over each step; FILE.csv (output, default
SYSTEM.csv): "time" and every output of every instance as INSTANCE.VAR at every communication
point. Progress goes to stderr. Exit status: 0 done; 1 the simulation failed (the FMU's message on
stderr); 2 bad arguments or an SSP file this master cannot run.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from fmpy import extract, read_model_description
from fmpy import calloc, free
from fmpy.fmi1 import printLogMessage
from fmpy.fmi2 import (FMU2Slave, fmi2Boolean, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                       fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, fmi2Real, fmi2ValueReference)
from fmpy.fmi3 import FMU3Slave, fmi3Boolean, fmi3Float64, fmi3ValueReference

from . import regression, ssp
from .coupling import (INTERPOLATIONS, ON_NO_CONVERGENCE, SCHEMES, Coupling, CouplingStats, extrapolate,
                       gauss_seidel_order, implicit_step, make_accelerator)


class SimulationFailed(RuntimeError):
    """A co-simulation stopped: the failed call and what the FMUs logged."""


REAL = ("Real", "Float64")  # the FMI 2.0 and 3.0 names of the real type


class FMUInstance:
    """One instantiated FMI 2.0 or 3.0 co-simulation FMU; path: its file, or a folder it is extracted
    in. start_values: {parameter name: value} (SI units). messages: what the FMU logged with status
    Discard, Error or Fatal (also printed, as FMPy does). SimulationFailed (with those messages) if
    the FMU cannot be initialised. ``fmu`` is FMPy's FMU2Slave or FMU3Slave; ``do_step``,
    ``get_state``, ``set_state`` and ``free_state`` call it in either version."""

    def __init__(self, path, name: str, start_values=None, start_time=0.0):
        self.name = name
        self.md = read_model_description(str(path))
        if self.md.fmiVersion not in ("2.0", "3.0") or self.md.coSimulation is None:
            raise ValueError(f"{name}: {Path(path).name} is no FMI 2.0 or 3.0 co-simulation FMU")
        self.fmi3 = self.md.fmiVersion == "3.0"
        self.refs = {v.name: v for v in self.md.modelVariables}
        unknown = sorted(set(start_values or {}) - set(self.refs))
        if unknown:
            raise ValueError(f"{name}: no variables {unknown} in {Path(path).name}")
        self._only_real(start_values or {})
        self.extracted = Path(path).is_dir()  # an FMU already extracted in that folder: used in place
        self.unzipdir = str(path) if self.extracted else extract(str(path), tempfile.mkdtemp(prefix=f"{name}_"))
        slave = FMU3Slave if self.fmi3 else FMU2Slave
        self.fmu = slave(guid=self.md.guid, unzipDirectory=self.unzipdir,
                         modelIdentifier=self.md.coSimulation.modelIdentifier, instanceName=name)
        self.messages = []
        try:
            if self.fmi3:
                self.fmu.instantiate(logMessage=self._log3)
                self.fmu.enterInitializationMode(startTime=start_time)
            else:
                self.fmu.instantiate(callbacks=self._callbacks())
                self.fmu.setupExperiment(startTime=start_time)
                self.fmu.enterInitializationMode()
            self.set(start_values or {})
            self.fmu.exitInitializationMode()
        except Exception as exc:
            self._discard()
            raise SimulationFailed("; ".join([f"{name}: initialisation failed: {exc}", *self.messages])) from exc

    def _discard(self):
        """After a failed initialisation: the instance freed (if it was made), the extracted folder deleted."""
        if getattr(self.fmu, "component", None) is not None:
            self.fmu.freeInstance()
        else:
            self.fmu.freeLibrary()
        if not self.extracted:
            shutil.rmtree(self.unzipdir, ignore_errors=True)

    def _keep(self, status, message):
        if status >= 2:  # Discard, Error, Fatal
            self.messages.append(f"[{('DISCARD', 'ERROR', 'FATAL')[min(status, 4) - 2]}] "
                                 f"{message.decode(errors='replace')}")

    def _log3(self, environment, status, category, message):
        self._keep(status, message)
        print(f"[{('OK', 'WARNING', 'DISCARD', 'ERROR', 'FATAL')[min(status, 4)]}] {message.decode(errors='replace')}")

    def _callbacks(self):
        def log(component, instance, status, category, message):
            self._keep(status, message)
            printLogMessage(component, instance, status, category, message)

        callbacks = fmi2CallbackFunctions()
        callbacks.logger = fmi2CallbackLoggerTYPE(log)
        callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        return callbacks

    def _vr(self, names):
        return [self.refs[n].valueReference for n in names]

    def _only_real(self, names):
        others = [f"{n} ({self.refs[n].type})" for n in names if self.refs[n].type not in REAL]
        if others:
            raise ValueError(f"{self.name}: only Real variables can be set, not {', '.join(others)}")

    def set(self, values: dict):
        """Set Real variables {name: value}; ValueError names the variables of other types."""
        self.setter(list(values))(list(values.values()))

    def setter(self, names):
        """set_values(values): sets the Real variables ``names`` to ``values`` (a sequence in that order),
        with the FMI arrays built once (the per-step form of ``set``); ValueError names the variables of
        other types."""
        self._only_real(names)
        n = len(names)
        if self.fmi3:
            refs, buffer = (fmi3ValueReference * n)(*self._vr(names)), (fmi3Float64 * n)()
            call = lambda: self.fmu.fmi3SetFloat64(self.fmu.component, refs, n, buffer, n)  # noqa: E731
        else:
            refs, buffer = (fmi2ValueReference * n)(*self._vr(names)), (fmi2Real * n)()
            call = lambda: self.fmu.fmi2SetReal(self.fmu.component, refs, n, buffer)  # noqa: E731

        def set_values(values):
            if n:
                buffer[:] = values
                call()
        return set_values

    def set_rates(self, rates: dict):
        """Set the first derivatives {input name: du/dt} of Real inputs for the next doStep
        (fmi2SetRealInputDerivatives; FMI 3.0: ValueError, it has none)."""
        if rates and self.fmi3:
            raise ValueError(f"{self.name}: FMI 3.0 co-simulation takes no input derivatives")
        if rates:
            self.fmu.setRealInputDerivatives(self._vr(rates), [1] * len(rates), [float(v) for v in rates.values()])

    def get(self, names) -> list:
        """Values of the variables ``names``, with one FMI call per variable type."""
        values = self.getter(names)()
        return [values[n] for n in names]

    def getter(self, names):
        """get_values(): {name: value} of the variables ``names``, one FMI call per variable type (Real,
        Boolean), with the FMI arrays built once (the per-step form of ``get``)."""
        calls = []
        if self.fmi3:
            kinds = ((False, fmi3Float64, lambda *a: self.fmu.fmi3GetFloat64(*a, a[2])),
                     (True, fmi3Boolean, lambda *a: self.fmu.fmi3GetBoolean(*a, a[2])))
            reference = fmi3ValueReference
        else:
            kinds = ((False, fmi2Real, self.fmu.fmi2GetReal), (True, fmi2Boolean, self.fmu.fmi2GetBoolean))
            reference = fmi2ValueReference
        for boolean, ctype, function in kinds:
            chosen = [n for n in names if (self.refs[n].type == "Boolean") == boolean]
            if chosen:
                n = len(chosen)
                calls.append((chosen, function, (reference * n)(*self._vr(chosen)), (ctype * n)()))

        def get_values():
            values = {}
            for chosen, function, refs, buffer in calls:
                function(self.fmu.component, refs, len(chosen), buffer)
                values.update(zip(chosen, buffer))
            return values
        return get_values

    def do_step(self, t: float, h: float):
        self.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)

    def get_state(self):
        return self.fmu.getFMUState() if self.fmi3 else self.fmu.getFMUstate()

    def set_state(self, state):
        if self.fmi3:
            self.fmu.setFMUState(state)
        else:
            self.fmu.setFMUstate(state)

    def free_state(self, state):
        if self.fmi3:
            self.fmu.freeFMUState(state)
        else:
            self.fmu.freeFMUstate(state)

    def close(self):
        self.fmu.terminate()
        self.fmu.freeInstance()
        if not self.extracted:
            shutil.rmtree(self.unzipdir, ignore_errors=True)


@dataclass(frozen=True)
class Connection:
    """Output ``source`` of instance ``src`` feeds input ``target`` of instance ``dst``."""

    src: str
    source: str
    dst: str
    target: str


def run(instances: dict, connections, h: float, t_end: float, external=None, record=None, progress=None,
        coupling: Coupling | None = None, stats: CouplingStats | None = None):
    """Co-simulate from t = 0 to t_end with step h (s).

    instances: {name: FMUInstance}; connections: Connection list; external: {(instance, input):
    function of t}; record: {column: (instance, variable)} sampled at every communication point;
    progress: optional callable(t) called every step; coupling: the scheme and its settings (default
    Jacobi); stats: a CouplingStats the implicit scheme fills (iterations per step, rollbacks).
    Returns a structured array with 'time' and the recorded columns.
    """
    external, record = external or {}, record or {}
    coupling, stats = coupling or Coupling(), stats if stats is not None else CouplingStats()
    if not (h > 0 and t_end > 0):
        raise ValueError(f"need h > 0 and t_end > 0, got h={h!r}, t_end={t_end!r}")
    if coupling.scheme == "implicit":
        cannot = [name for name, inst in instances.items() if not inst.md.coSimulation.canGetAndSetFMUstate]
        if cannot:
            raise ValueError(f"coupling scheme 'implicit' needs fmi2GetFMUstate/SetFMUstate; {cannot} cannot")
    n = int(round(t_end / h))
    rows = []
    # the coupled values (one per connected output), and the outputs read from each instance at a
    # communication point (one FMI call per type)
    coupled = list(dict.fromkeys((c.src, c.source) for c in connections))
    wanted = {name: sorted({c.source for c in connections if c.src == name}
                           | {v for i, v in record.values() if i == name}) for name in instances}

    read = {name: inst.getter(wanted[name]) for name, inst in instances.items()}  # name -> {variable: value}

    def vector(values):
        return np.array([values[i][v] for i, v in coupled], dtype=float)

    # per instance, once: (input, index of its coupled value) of its connections, and its external inputs
    fed = {name: [(c.target, coupled.index((c.src, c.source))) for c in connections if c.dst == name]
           for name in instances}
    driven = {name: [(var, fn) for (i, var), fn in external.items() if i == name] for name in instances}
    cannot = [name for name, inst in instances.items() if fed[name] and not inst.md.coSimulation.canInterpolateInputs]
    if coupling.interpolation == "linear" and cannot:
        raise ValueError(f"interpolation 'linear' needs FMUs that interpolate their inputs (canInterpolateInputs); "
                         f"{cannot} do not")
    interpolate = coupling.interpolation == "linear" or (coupling.interpolation == "auto" and not cannot)

    setters = {name: inst.setter([target for target, _ in fed[name]] + [var for var, _ in driven[name]])
               for name, inst in instances.items()}

    def set_inputs(name, t, x, start=None):
        """Set the connected inputs of ``name`` from the coupled values x and its external inputs at t:
        held at x, or, with the values at t ``start`` (interpolation "linear"), the lines from start
        to x at t + h."""
        at_t = x if start is None else start
        setters[name]([at_t[j] for _, j in fed[name]] + [fn(t) for _, fn in driven[name]])
        rates = {target: (x[j] - start[j]) / h for target, j in fed[name]} if start is not None else {}
        if any(rates.values()):  # (a doStep resets the derivatives to 0: zeros need no call)
            instances[name].set_rates(rates)

    def step(name, t):
        instances[name].do_step(t, h)
        values[name] = read[name]()

    values = {name: get() for name, get in read.items()}
    rows.append((0.0, *(float(values[i][v]) for i, v in record.values())))
    order = gauss_seidel_order(list(instances), connections) if coupling.scheme == "gauss-seidel" else list(instances)
    accelerator = make_accelerator(coupling)
    previous = None  # the coupled values at t - h
    for k in range(n):
        t = k * h
        now = vector(values)
        if coupling.scheme == "implicit":
            states = {name: inst.get_state() for name, inst in instances.items()}

            def iterate(x, first):
                for name, inst in instances.items():
                    if not first:
                        inst.set_state(states[name])
                    set_inputs(name, t, x, now if interpolate else None)
                for name in instances:
                    step(name, t)
                return vector(values)

            guess = extrapolate(coupling.extrapolation, now, previous, 1.0)
            try:
                implicit_step(iterate, guess, coupling, accelerator, stats, [f"{i}.{v}" for i, v in coupled],
                              f"t={t:g} s (step {k + 1} of {n}, h={h:g} s)")
            finally:
                for name, inst in instances.items():
                    inst.free_state(states[name])
        else:
            # held over the step: the extrapolation to its middle; interpolated: the line from now to
            # the extrapolation to its end
            held = extrapolate(coupling.extrapolation, now, previous, 1.0 if interpolate else 0.5)
            start = now if interpolate else None
            if coupling.scheme == "jacobi":  # every input from the outputs at t
                for name in order:
                    set_inputs(name, t, held, start)
                for name in order:
                    step(name, t)
            else:  # Gauss-Seidel: the outputs at t + h of the FMUs already stepped
                stepped = set()
                for name in order:
                    set_inputs(name, t, np.where([src in stepped for src, _ in coupled], vector(values), held), start)
                    step(name, t)
                    stepped.add(name)
        previous = now
        rows.append(((k + 1) * h, *(float(values[i][v]) for i, v in record.values())))
        if progress:
            progress((k + 1) * h)
    return np.array(rows, dtype=[("time", float)] + [(c, float) for c in record])


def held(times, values, h):
    """Function of t: the value of the last row at or before t (zero-order hold; rows within h/1e6
    of t count as reached), the first value before the first row."""
    times, values = np.asarray(times, float), np.asarray(values, float)

    def value(t):
        return values[max(int(np.searchsorted(times, t + 1e-6 * h, side="right")) - 1, 0)]
    return value


def simulate_ssp(path, t_end: float, h: float, start_values=None, inputs=None, coupling=None, progress=None,
                 stats=None):
    """Co-simulate the SSP file at path from 0 to t_end with step h (s).

    start_values: {instance: {variable: value}}, applied after the SSP's parameter bindings; inputs: a
    structured array with 'time' and columns INSTANCE.VAR of the system's inputs (held over each
    step; the inputs it leaves out keep their start values); coupling, progress, stats: see ``run``.
    Returns a structured array with 'time' and every output of every instance as INSTANCE.VAR.
    ValueError (ssp.SSPError) for bad arguments or an unsupported SSP; SimulationFailed if the run stops.
    """
    start_values = start_values or {}
    with tempfile.TemporaryDirectory(prefix="ssp_") as folder:
        system = ssp.read_ssp(path, folder)
        unknown = sorted(set(start_values) - set(system.fmus))
        if unknown:
            raise ValueError(f"{path}: no instances {unknown}; its instances: {', '.join(system.fmus)}")
        allowed = {f"{i}.{v}": (i, v) for i, v in system.inputs.values()}
        columns = list(inputs.dtype.names[1:]) if inputs is not None else []
        if any(c not in allowed for c in columns):
            raise ValueError(f"input columns {[c for c in columns if c not in allowed]} are no inputs of the system "
                             f"{system.name}; its inputs: {', '.join(allowed) or 'none'}")
        external = {allowed[c]: held(inputs["time"], inputs[c], h) for c in columns}
        instances = {}
        try:
            for name, fmu in system.fmus.items():
                values = {**system.parameters.get(name, {}), **start_values.get(name, {})}
                instances[name] = FMUInstance(fmu, name, values)
            record = {f"{name}.{v.name}": (name, v.name) for name, inst in instances.items()
                      for v in inst.md.modelVariables if v.causality == "output"}
            try:
                return run(instances, [Connection(*link) for link in system.links], h, t_end, external=external,
                           record=record, progress=progress, coupling=coupling, stats=stats)
            except ValueError:
                raise
            except Exception as exc:
                logged = [f"{name}: {m}" for name, inst in instances.items() for m in inst.messages]
                raise SimulationFailed("; ".join([str(exc) or type(exc).__name__, *logged])) from exc
        finally:
            for inst in instances.values():
                inst.close()


def parse_set(texts) -> dict:
    """{instance: {variable: value}} of --set INSTANCE.VAR=VALUE arguments; ValueError if malformed."""
    values = {}
    for text in texts or ():
        target, sep, value = text.partition("=")
        instance, dot, variable = target.partition(".")
        try:
            number = float(value)
        except ValueError:
            number = None
        if not (sep and dot and instance and variable and number is not None):
            raise ValueError(f"--set {text!r}: expected INSTANCE.VAR=VALUE with a number VALUE")
        values.setdefault(instance, {})[variable] = number
    return values


def _parser():
    p = argparse.ArgumentParser(prog="python -m friction_joints.master",
                                description="Co-simulate an SSP file of FMI 2.0 or 3.0 co-simulation FMUs.")
    p.add_argument("ssp", type=Path, help="the system (.ssp)")
    p.add_argument("--stop-time", type=float, required=True, help="stop time T [s]")
    p.add_argument("--step", type=float, required=True, help="communication step H [s]")
    p.add_argument("--coupling", choices=SCHEMES, default="jacobi", help="coupling scheme (default jacobi)")
    p.add_argument("--on-no-convergence", choices=ON_NO_CONVERGENCE, default="error",
                   help="implicit coupling, a step out of iterations: stop with the error (default) or go on")
    p.add_argument("--interpolation", choices=INTERPOLATIONS, default="auto",
                   help="coupled inputs interpolated linearly where every FMU can (canInterpolateInputs), else "
                        "held (auto, the default), held over a step, or interpolated linearly")
    p.add_argument("--set", action="append", metavar="INSTANCE.VAR=VALUE", help="a start value (repeatable)")
    p.add_argument("--input", type=Path, help="CSV: a 'time' column and columns INSTANCE.VAR of the system's inputs")
    p.add_argument("--output", type=Path, help="CSV of every output (default: SYSTEM.csv next to the .ssp)")
    return p


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    wall = time.perf_counter()
    every = max(1, int(round(args.stop_time / args.step / 10))) if args.step > 0 else 1
    count = [0]

    def progress(t):
        count[0] += 1
        if count[0] % every == 0:
            print(f"t = {t:g} s of {args.stop_time:g} s ({time.perf_counter() - wall:.1f} s wall)",
                  file=sys.stderr, flush=True)

    try:
        if not (args.stop_time > 0 and 0 < args.step <= args.stop_time):
            raise ValueError(f"need --stop-time > 0 and 0 < --step <= --stop-time, got {args.stop_time}, {args.step}")
        inputs = regression.read_csv(args.input) if args.input is not None else None
        stats = CouplingStats()
        result = simulate_ssp(args.ssp, args.stop_time, args.step, parse_set(args.set), inputs,
                              Coupling(scheme=args.coupling, on_no_convergence=args.on_no_convergence,
                                       interpolation=args.interpolation), progress, stats)
    except (ValueError, regression.ReferenceError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SimulationFailed as exc:
        print(f"simulation failed: {exc}", file=sys.stderr)
        return 1
    output = args.output or args.ssp.with_suffix(".csv")
    output.parent.mkdir(parents=True, exist_ok=True)
    regression.write_csv(output, result)
    if stats.unconverged:
        when, worst = max(stats.unconverged, key=lambda u: u[1])
        print(f"warning: {len(stats.unconverged)} steps accepted without convergence; the worst at {when}, "
              f"residual {worst:.3g} x its tolerance", file=sys.stderr)
    print(f"wrote {output} ({len(result)} rows, {len(result.dtype.names) - 1} outputs)", file=sys.stderr)
    return 0
