"""A small fixed-step co-simulation master for FMI 2.0 co-simulation FMUs, on FMPy.

At each communication point t the master sets every connected input (and the external inputs from
functions of t, held over the step) and steps every FMU from t to t + h, by one of the coupling
schemes of ``coupling``: Jacobi (the default: every input from the outputs at t, what the examples
use and what a tool master such as FMPy's container FMU or OMSimulator does), Gauss-Seidel, or
implicit (the step iterated with state rollback until the coupled values converge).
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave

from .coupling import Coupling, CouplingStats, extrapolate, gauss_seidel_order, implicit_step, make_accelerator


class FMUInstance:
    """One instantiated co-simulation FMU; path: its file, or a folder it is extracted in.
    start_values: {parameter name: value} (SI units)."""

    def __init__(self, path, name: str, start_values=None, start_time=0.0):
        self.name = name
        self.md = read_model_description(str(path))
        self.refs = {v.name: v for v in self.md.modelVariables}
        unknown = sorted(set(start_values or {}) - set(self.refs))
        if unknown:
            raise ValueError(f"{name}: no variables {unknown} in {path}")
        self.extracted = Path(path).is_dir()  # an FMU already extracted in that folder: used in place
        self.unzipdir = str(path) if self.extracted else extract(str(path), tempfile.mkdtemp(prefix=f"{name}_"))
        self.fmu = FMU2Slave(guid=self.md.guid, unzipDirectory=self.unzipdir,
                             modelIdentifier=self.md.coSimulation.modelIdentifier, instanceName=name)
        self.fmu.instantiate()
        self.fmu.setupExperiment(startTime=start_time)
        self.fmu.enterInitializationMode()
        self.set(start_values or {})
        self.fmu.exitInitializationMode()

    def _vr(self, names):
        return [self.refs[n].valueReference for n in names]

    def set(self, values: dict):
        reals = {n: v for n, v in values.items() if self.refs[n].type == "Real"}
        if reals:
            self.fmu.setReal(self._vr(reals), [float(v) for v in reals.values()])

    def get(self, names) -> list:
        """Values of the variables ``names``, with one FMI call per variable type."""
        reals = [n for n in names if self.refs[n].type != "Boolean"]
        bools = [n for n in names if self.refs[n].type == "Boolean"]
        values = dict(zip(reals, self.fmu.getReal(self._vr(reals)) if reals else []))
        values.update(zip(bools, self.fmu.getBoolean(self._vr(bools)) if bools else []))
        return [values[n] for n in names]

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

    def read(name):
        return dict(zip(wanted[name], instances[name].get(wanted[name])))

    def vector(values):
        return np.array([values[i][v] for i, v in coupled], dtype=float)

    def set_inputs(name, t, x):
        """Set the connected inputs of ``name`` from the coupled values x and its external inputs at t."""
        inputs = {c.target: x[coupled.index((c.src, c.source))] for c in connections if c.dst == name}
        inputs.update({var: fn(t) for (i, var), fn in external.items() if i == name})
        instances[name].set(inputs)

    def step(name, t):
        instances[name].fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)
        values[name] = read(name)

    values = {name: read(name) for name in instances}
    rows.append((0.0, *(float(values[i][v]) for i, v in record.values())))
    order = gauss_seidel_order(list(instances), connections) if coupling.scheme == "gauss-seidel" else list(instances)
    accelerator = make_accelerator(coupling)
    previous = None  # the coupled values at t - h
    for k in range(n):
        t = k * h
        now = vector(values)
        if coupling.scheme == "implicit":
            states = {name: inst.fmu.getFMUstate() for name, inst in instances.items()}

            def iterate(x, first):
                for name, inst in instances.items():
                    if not first:
                        inst.fmu.setFMUstate(states[name])
                    set_inputs(name, t, x)
                for name in instances:
                    step(name, t)
                return vector(values)

            guess = extrapolate(coupling.extrapolation, now, previous, 1.0)
            try:
                implicit_step(iterate, guess, coupling, accelerator, stats, [f"{i}.{v}" for i, v in coupled],
                              f"t={t:g} s (step {k + 1} of {n}, h={h:g} s)")
            finally:
                for name, inst in instances.items():
                    inst.fmu.freeFMUstate(states[name])
        else:
            held = extrapolate(coupling.extrapolation, now, previous, 0.5)
            if coupling.scheme == "jacobi":  # every input from the outputs at t
                for name in order:
                    set_inputs(name, t, held)
                for name in order:
                    step(name, t)
            else:  # Gauss-Seidel: the outputs at t + h of the FMUs already stepped
                stepped = set()
                for name in order:
                    set_inputs(name, t, np.where([src in stepped for src, _ in coupled], vector(values), held))
                    step(name, t)
                    stepped.add(name)
        previous = now
        rows.append(((k + 1) * h, *(float(values[i][v]) for i, v in record.values())))
        if progress:
            progress((k + 1) * h)
    return np.array(rows, dtype=[("time", float)] + [(c, float) for c in record])
