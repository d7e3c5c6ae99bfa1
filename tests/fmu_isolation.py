"""Isolation checks of built FMUs, each run in a fresh process by test_fmu_isolation.py (exit 0 = pass).

    python fmu_isolation.py two_builds FMU_A FMU_B [FIRST]   A and B: SliderCrank from sources that
        differ only in B's E_kin output (+1000 J); FIRST = A or B is instantiated first. Both run in
        one process, after the project's friction_joints was imported, each with its own code.
    python fmu_isolation.py broken FMU_OK FMU_BROKEN   FMU_BROKEN's bundled package cannot be imported:
        its instantiation fails, though FMU_OK and the project's friction_joints are already imported.
    python fmu_isolation.py threads FMU   while FMU's first instantiation loads its engine (the bundle
        standing for friction_joints meanwhile), another thread pickles and unpickles a class of the
        project's friction_joints (as a Dask worker's event loop does with task results): every time
        by the project's module name, as the same class.
    python fmu_isolation.py deleted_folder FMU   FMU (SliderCrank) runs with bristle friction (the Python
        engine: its compiled engine is not imported), is freed and its folder deleted; a second
        instance from another folder then runs the exact model, importing the compiled engine.
    python fmu_isolation.py build_between FMU3 OUT   FMU3 (SliderCrank, FMI 3.0) runs with LuGre through FMPy,
        SliderCrank is built into OUT in this process (FMI 2.0: its other entry module), and FMU3 runs again:
        on the compiled engine both times, with bit-identical results.
"""

import pickle
import sys
import tempfile
import threading
import zipfile
from pathlib import Path

from fmpy import read_model_description
from fmpy.fmi2 import FMU2Slave

import friction_joints  # noqa: F401  (another friction_joints, imported before the FMUs)


def instantiate(path, tmp):
    md = read_model_description(path)
    with zipfile.ZipFile(path) as z:
        z.extractall(tmp)
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=tmp, modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName=path)
    fmu.instantiate(loggingOn=True)
    return fmu, {v.name: v.valueReference for v in md.modelVariables}


def kinetic_energy_after_steps(fmu, vr, steps=20, h=0.01, integers=None):
    fmu.setupExperiment(startTime=0.0)
    for name, value in (integers or {}).items():
        fmu.setInteger([vr[name]], [value])
    fmu.enterInitializationMode()
    fmu.exitInitializationMode()
    fmu.setReal([vr["tau"]], [5.0])
    for k in range(steps):
        fmu.doStep(k * h, h)
    return fmu.getReal([vr["E_kin"]])[0]


def two_builds(path_a, path_b, first="A"):
    paths = {"A": path_a, "B": path_b}
    order = (first, "B" if first == "A" else "A")
    with tempfile.TemporaryDirectory() as tmp_a, tempfile.TemporaryDirectory() as tmp_b:
        fmus = {name: instantiate(paths[name], tmp) for name, tmp in zip(order, (tmp_a, tmp_b))}
        e_kin = {name: kinetic_energy_after_steps(*fmus[name]) for name in order}
        for fmu, _ in fmus.values():
            fmu.terminate()
            fmu.freeInstance()
    assert e_kin["A"] > 0.0, e_kin
    assert abs(e_kin["B"] - e_kin["A"] - 1000.0) < 1e-9, e_kin


def broken(path_ok, path_broken):
    with tempfile.TemporaryDirectory() as tmp_ok, tempfile.TemporaryDirectory() as tmp_broken:
        fmu, vr = instantiate(path_ok, tmp_ok)
        assert kinetic_energy_after_steps(fmu, vr) > 0.0
        try:
            instantiate(path_broken, tmp_broken)
        except Exception as exc:  # FMPy raises when fmi2Instantiate returns NULL
            assert "instantiate" in str(exc), exc
        else:
            raise AssertionError("an FMU whose bundled package is broken was instantiated")
        fmu.terminate()
        fmu.freeInstance()


def threads(path):
    from friction_joints.fmi.regression import Run

    done, failures, rounds = threading.Event(), [], [0]

    def round_trips():
        while not done.is_set():
            try:
                data = pickle.dumps(Run)
                assert b"friction_joints.fmi.regression" in data and pickle.loads(data) is Run, data
            except Exception as exc:  # noqa: BLE001 -- every failure is reported
                failures.append(repr(exc))
            rounds[0] += 1

    worker = threading.Thread(target=round_trips)
    worker.start()
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = instantiate(path, tmp)
        assert kinetic_energy_after_steps(fmu, vr) > 0.0  # exitInitializationMode loads the engine
        fmu.terminate()
        fmu.freeInstance()
    done.set()
    worker.join()
    assert rounds[0] > 100 and not failures, (rounds[0], len(failures), failures[:3])


def deleted_folder(path):
    for integers in ({"friction_model": 2}, {}):
        with tempfile.TemporaryDirectory() as tmp:  # deleted after each instance, as simulate_fmu does
            fmu, vr = instantiate(path, tmp)
            assert kinetic_energy_after_steps(fmu, vr, integers=integers) > 0.0, integers
            fmu.terminate()
            fmu.freeInstance()


def build_between(path, out):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import build_fmu  # before an FMU runs (build_fmu.build needs the installed pythonfmu's builder)
    import numpy as np
    from fmpy import simulate_fmu

    def run():
        messages = []
        result = simulate_fmu(path, stop_time=1.2, output_interval=0.01, input=np.array(
            [(0.0, 1.0)], dtype=[("time", float), ("tau", float)]), start_values={"friction_model": 2},
            output=["q[1]", "u"], debug_logging=True, logger=lambda *args: messages.append(args[-1].decode()))
        assert "compiled engine (C)" in messages, messages
        return result

    first = run()
    build_fmu.main(["--only", "SliderCrank", "--no-loader", "--fmi", "2", "--out", out])
    second = run()  # the build imported the FMU's bundle and modules under their names: they stay as they were
    for name in ("q[1]", "u"):
        assert np.array_equal(first[name], second[name]), (name, np.abs(first[name] - second[name]).max())


if __name__ == "__main__":
    {"two_builds": two_builds, "broken": broken, "threads": threads, "deleted_folder": deleted_folder,
     "build_between": build_between}[sys.argv[1]](*sys.argv[2:])
    print("pass")
