"""An FMI 2.0 FMU stepped by FMPy in this process, for the benchmarks that time FMUs."""

from __future__ import annotations

import shutil
import tempfile
from contextlib import contextmanager

from fmpy import extract, read_model_description
from fmpy.fmi2 import FMU2Slave


@contextmanager
def initialised(path, start=None):
    """(FMPy's FMU2Slave, {variable name: value reference}) of the FMI 2.0 FMU at path, extracted in a
    temporary folder, instantiated and initialised with the start values {name: value} (an int sets an
    Integer, anything else a Real); terminated and freed at the end of the block (freed only if the block
    raised), its folder deleted."""
    md = read_model_description(str(path))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    folder = tempfile.mkdtemp()
    slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(path), folder),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="bench")
    try:
        slave.instantiate()
        try:
            slave.setupExperiment(startTime=0.0)
            slave.enterInitializationMode()
            for name, value in (start or {}).items():
                (slave.setInteger if isinstance(value, int) else slave.setReal)([vr[name]], [value])
            slave.exitInitializationMode()
            yield slave, vr
            slave.terminate()
        finally:
            slave.freeInstance()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
