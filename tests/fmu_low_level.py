"""Low-level FMI checks of a built FMU, run as a script in a fresh process by test_fmus.py.

    python fmu_low_level.py CHECK FMU      (CHECK: nan_input | state_round_trip; exit 0 = pass)
"""

import sys
import tempfile
import zipfile

import numpy as np
from fmpy import read_model_description
from fmpy.fmi2 import FMU2Slave


def open_fmu(path, tmp):
    md = read_model_description(path)
    with zipfile.ZipFile(path) as z:
        z.extractall(tmp)
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=tmp, modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName="check")
    fmu.instantiate(loggingOn=True)
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    return fmu, {v.name: v.valueReference for v in md.modelVariables}


def nan_input(fmu, vr):
    fmu.doStep(0.0, 0.01)
    fmu.setReal([vr["tau"]], [float("nan")])
    try:
        fmu.doStep(0.01, 0.01)
    except Exception as exc:  # FMPy raises on a non-OK status
        assert "fmi2DoStep" in str(exc), exc
    else:
        raise AssertionError("doStep accepted a NaN input")


def state_round_trip(fmu, vr):
    outs = [vr[n] for n in ("q[1]", "u", "W_drive", "W_friction", "f_mu[1]")]
    t = 0.0
    for _ in range(5):
        fmu.setReal([vr["tau"]], [4.0 * np.sin(3.0 * t)])
        fmu.doStep(t, 0.05)
        t += 0.05
    state = fmu.getFMUstate()
    runs = []
    for _ in range(2):
        fmu.setFMUstate(state)
        tt = t
        for _ in range(3):
            fmu.setReal([vr["tau"]], [4.0 * np.sin(3.0 * tt)])
            fmu.doStep(tt, 0.05)
            tt += 0.05
        runs.append(fmu.getReal(outs))
    assert runs[0] == runs[1] and runs[0][1] != 0.0, runs
    fmu.freeFMUstate(state)


if __name__ == "__main__":
    check, path = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = open_fmu(path, tmp)
        {"nan_input": nan_input, "state_round_trip": state_round_trip}[check](fmu, vr)
        fmu.terminate()
        fmu.freeInstance()
        fmu.freeLibrary()
    print("pass")
