"""Low-level FMI checks of built FMUs, run as a script in a fresh process by the FMU tests, so that
each check also covers the host's exit.

    python fmu_low_level.py CHECK FMU [FMU ...]     (exit 0 = pass)

CHECK: nan_input | state_round_trip (one FMU); two_models (two different FMUs in one process,
then re-instantiation after free); standalone (the FMU's friction_joints comes from its own
resources: run with ``python -S`` so that the project's installation is not on the path).
"""

import importlib.util
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
from fmpy import read_model_description, simulate_fmu
from fmpy.fmi2 import FMU2Slave


def open_fmu(path, tmp, name="check", extract=True):
    md = read_model_description(path)
    if extract:
        with zipfile.ZipFile(path) as z:
            z.extractall(tmp)
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=tmp, modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName=name)
    fmu.instantiate(loggingOn=True)
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    return fmu, {v.name: v.valueReference for v in md.modelVariables}


def close(fmu):
    fmu.terminate()
    fmu.freeInstance()  # FMPy unloads the library here too


def nan_input(path):
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = open_fmu(path, tmp)
        fmu.doStep(0.0, 0.01)
        fmu.setReal([vr["tau"]], [float("nan")])
        try:
            fmu.doStep(0.01, 0.01)
        except Exception as exc:  # FMPy raises on a non-OK status
            assert "fmi2DoStep" in str(exc), exc
        else:
            raise AssertionError("doStep accepted a NaN input")
        close(fmu)


def state_round_trip(path):
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = open_fmu(path, tmp)
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
        close(fmu)


def _drive(fmu, vr, inputs, k0=0, n=4, h=0.05):
    for k in range(k0, k0 + n):
        fmu.setReal([vr[name] for name in inputs], list(inputs.values()))
        fmu.doStep(k * h, h)


def two_models(crank_path, dupont_path):
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b, tempfile.TemporaryDirectory() as c:
        crank, vc = open_fmu(crank_path, a, "crank")
        dupont, vd = open_fmu(dupont_path, b, "dupont")
        for k in range(4):  # interleaved steps of the two instances
            _drive(crank, vc, {"tau": 3.0}, k, n=1)
            _drive(dupont, vd, {"F1": 7.0, "F2": 50.0}, k, n=1)
        first = crank.getReal([vc["q[1]"], vc["u"]]) + dupont.getReal([vd["x"], vd["xd"]])
        close(crank)
        again = []
        for tmp, extract in ((a, False), (a, False), (c, True)):  # re-instantiation after free
            crank, vc = open_fmu(crank_path, tmp, "crank again", extract)
            _drive(crank, vc, {"tau": 3.0})
            again.append(crank.getReal([vc["q[1]"], vc["u"]]))
            close(crank)
        assert first[1] > 0 and first[3] != 0, first
        assert again == [first[:2]] * 3, (again, first)
        close(dupont)


def standalone(path):
    assert importlib.util.find_spec("friction_joints") is None, "friction_joints is installed on this path"
    res = simulate_fmu(path, stop_time=0.2, output_interval=0.05, start_values={"tau": 3.0}, output=["u"])
    source = Path(sys.modules["friction_joints"].__file__)
    assert source.parent.parent.name == "resources", source
    assert res["u"][-1] > 0, res["u"]


if __name__ == "__main__":
    checks = {"nan_input": nan_input, "state_round_trip": state_round_trip, "two_models": two_models,
              "standalone": standalone}
    checks[sys.argv[1]](*sys.argv[2:])
    print("pass")
