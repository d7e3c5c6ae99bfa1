"""A small fixed-step co-simulation master for FMI 2.0 co-simulation FMUs, on FMPy.

Jacobi scheme: at each communication point t the master sets every connected input from the
outputs of the previous step (and the external inputs from functions of t), then steps every FMU
from t to t + h. It is what the examples use to connect the SpeedController and SliderCrank FMUs;
a tool master (FMPy's container FMU, OMSimulator, a Simulink S-function) would do the same.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave


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


def run(instances: dict, connections, h: float, t_end: float, external=None, record=None, progress=None):
    """Co-simulate from t = 0 to t_end with step h (s).

    instances: {name: FMUInstance}; connections: Connection list; external: {(instance, input):
    function of t}; record: {column: (instance, variable)} sampled at every communication point;
    progress: optional callable(t) called every step. Returns a structured array with 'time' and
    the recorded columns.
    """
    external, record = external or {}, record or {}
    if not (h > 0 and t_end > 0):
        raise ValueError(f"need h > 0 and t_end > 0, got h={h!r}, t_end={t_end!r}")
    n = int(round(t_end / h))
    rows = []
    # the outputs read from each instance at a communication point, read with one call per type
    wanted = {name: sorted({c.source for c in connections if c.src == name}
                           | {v for i, v in record.values() if i == name}) for name in instances}

    def read():
        return {name: dict(zip(names, instances[name].get(names))) for name, names in wanted.items() if names}

    def sample(t, values):
        rows.append((t, *(float(values[i][v]) for i, v in record.values())))

    values = read()
    sample(0.0, values)
    for k in range(n):
        t = k * h
        inputs = {name: {} for name in instances}
        for c in connections:
            inputs[c.dst][c.target] = values[c.src][c.source]
        for (name, var), fn in external.items():
            inputs[name][var] = fn(t)
        for name, inst in instances.items():
            inst.set(inputs[name])
        for inst in instances.values():
            inst.fmu.doStep(currentCommunicationPoint=t, communicationStepSize=h)
        values = read()
        sample((k + 1) * h, values)
        if progress:
            progress((k + 1) * h)
    return np.array(rows, dtype=[("time", float)] + [(c, float) for c in record])
