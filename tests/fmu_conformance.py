"""FMI conformance checks of built FMUs (issue 32), run as a script in a fresh process like
fmu_low_level.py:

    python fmu_conformance.py CHECK FMU [FMU ...]     (exit 0 = pass)

CHECK: states SLIDER_CRANK (a state, serialized, restarts a fresh or reset instance, and carries its
parameters); terminated SLIDER_CRANK SLIDER_CRANK_FMI3 (calls after terminate are illegal);
tolerance BRISTLE (a host's tolerance never loosens the FMU); no_inertia SLIDER_CRANK (all-zero
inertias name the parameters); sys_path SLIDER_CRANK (instantiations do not grow sys.path).
"""

import math
import sys
import tempfile
import zipfile

from fmpy import read_model_description
from fmpy.fmi3 import FMU3Slave
from fmu_low_level import ERROR, OK, Log, expect, fresh, initialise, load, succeeds

WARNING = 1


def _steps(fmu, vr, t0, t1, h=0.05):
    """Steps from t0 to t1 with tau = 4 sin(3 t) held over each; the outputs u and q[1] at t1."""
    for k in range(round((t1 - t0) / h)):
        t = t0 + k * h
        fmu.setReal([vr["tau"]], [4.0 * math.sin(3.0 * t)])
        fmu.doStep(t, h)
    return fmu.getReal([vr["u"], vr["q[1]"]])


def states(path):
    """A state saved at t = 1 s, serialized, is set into a fresh instance (no initialisation), into a
    reset one, and into one initialised with another m1: each continues exactly as the instance it
    was taken from, and reads that instance's parameters."""
    log = Log()
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = load(path, tmp, "states")
        fresh(fmu, log)
        initialise(fmu)
        at_save = _steps(fmu, vr, 0.0, 1.0)
        saved = fmu.serializeFMUstate(fmu.getFMUstate())
        want = _steps(fmu, vr, 1.0, 1.5)
        assert want[1] != at_save[1], (at_save, want)  # the crank turns

        cases = {"a fresh instance": lambda: fresh(fmu, log),
                 "a reset instance": lambda: succeeds(log, "reset", fmu.reset),
                 "an instance initialised with m1 = 5": lambda: (fmu.reset(), initialise(fmu, **{str(vr["m1"]): 5.0}))}
        for case, prepare in cases.items():
            prepare()
            succeeds(log, case, fmu.setFMUstate, fmu.deSerializeFMUstate(saved))
            assert fmu.getReal([vr["m1"]]) == [2.5], case
            got = _steps(fmu, vr, 1.0, 1.5)
            assert got == want, f"{case}: {got} != {want}"
        fmu.fmi2FreeInstance(fmu.component)
        fmu.freeLibrary()


def terminated(path2, path3):
    """After terminate a setter, doStep, a second terminate and initialisation fail with fmi2Error
    (fmi3Error) and "illegal call sequence"; getters still work, and reset starts again."""
    log = Log()
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = load(path2, tmp, "terminated")
        fresh(fmu, log)
        initialise(fmu)
        _steps(fmu, vr, 0.0, 0.1)
        succeeds(log, "terminate", fmu.terminate)
        u = fmu.getReal([vr["u"]])
        part = ["illegal call sequence", "after terminate"]
        expect(log, "setReal", "fmi2SetReal", ERROR, ["setReal"] + part, fmu.setReal, [vr["tau"]], [1.0])
        expect(log, "doStep", "fmi2DoStep", ERROR, ["doStep"] + part, fmu.doStep, 0.1, 0.05)
        expect(log, "terminate", "fmi2Terminate", ERROR, part, fmu.terminate)
        expect(log, "setupExperiment", "fmi2SetupExperiment", ERROR, part, fmu.setupExperiment, None, 0.0)
        assert fmu.getReal([vr["u"]]) == u, "the model advanced after terminate"
        succeeds(log, "reset", fmu.reset)
        initialise(fmu)
        succeeds(log, "doStep after reset", fmu.doStep, 0.0, 0.05)
        fmu.fmi2FreeInstance(fmu.component)
        fmu.freeLibrary()
    messages = []
    with tempfile.TemporaryDirectory() as tmp:
        md = read_model_description(path3)
        zipfile.ZipFile(path3).extractall(tmp)
        vr = {v.name: v.valueReference for v in md.modelVariables}
        fmu = FMU3Slave(guid=md.guid, unzipDirectory=tmp, modelIdentifier=md.coSimulation.modelIdentifier)
        fmu.instantiate(logMessage=lambda env, status, category, message: messages.append((status, message)))
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        fmu.doStep(0.0, 0.05)
        fmu.terminate()
        for name, call, args in (("fmi3SetFloat64", fmu.setFloat64, ([vr["tau"]], [1.0])),
                                 ("fmi3DoStep", fmu.doStep, (0.05, 0.05))):
            messages.clear()
            try:
                call(*args)
            except Exception as exc:  # FMPy raises above fmi3Warning
                assert getattr(exc, "status", None) == ERROR, f"{name}: {exc}"
            else:
                raise AssertionError(f"{name} after fmi3Terminate returned OK")
            assert any("illegal call sequence" in m.decode() for s, m in messages), (name, messages)
        fmu.freeInstance()


def tolerance(path):
    """BristleOscillator: a host's tolerance 1e-4 (looser than the FMU's default) leaves rtol and
    the outputs as without one; 1e-10 (tighter) is taken; 0.5 (above rtol's allowed range) returns
    fmi2Warning with a message, and the default stays; an rtol the host sets wins."""
    log = Log()
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = load(path, tmp, "tolerance")
        rtol, default = vr["rtol"], float(read_model_description(path).defaultExperiment.tolerance)
        names = [n for n in ("x", "v", "F_f") if n in vr]
        outputs = [vr[n] for n in names]

        def run(tol, **values):
            fresh(fmu, log, logging=True)
            status = fmu.fmi2SetupExperiment(fmu.component, tol is not None, tol or 0.0, 0.0, False, 0.0)
            fmu.enterInitializationMode()
            for vr_, value in values.items():
                fmu.setReal([int(vr_)], [value])
            fmu.exitInitializationMode()
            result = []
            for k in range(60):
                fmu.doStep(k * 0.05, 0.05)
                result.append(fmu.getReal(outputs))
            return status, fmu.getReal([rtol])[0], result, log.take()

        _, used, reference, _ = run(None)
        assert used == default, used
        status, used, result, messages = run(1e-4)
        assert (status, used) == (OK, default) and result == reference, (status, used)
        assert any(f"rtol = {default!r}, the tighter of the host's tolerance 0.0001" in m for _, m in messages), messages
        assert run(1e-10)[1] == 1e-10
        status, used, _, messages = run(0.5)
        assert (status, used) == (WARNING, default), (status, used)
        assert any(s == WARNING and "tolerance = 0.5 is outside rtol's allowed range" in m for s, m in messages)
        assert run(1e-4, **{str(rtol): 1e-3})[1] == 1e-3
        fmu.fmi2FreeInstance(fmu.component)
        fmu.freeLibrary()


def no_inertia(path):
    """Every mass and moment of inertia 0: exitInitializationMode fails with a message naming them."""
    log = Log()
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = load(path, tmp, "no inertia")
        fresh(fmu, log)
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        names = ["m1", "m2", "J1", "J2", "m3"]
        fmu.setReal([vr[n] for n in names], [0.0] * len(names))
        expect(log, "no inertia", "fmi2ExitInitializationMode", ERROR,
               ["m1, J1, m2, J2, m3 = 0", "no inertia", "at least one of them > 0"], fmu.exitInitializationMode)
        fmu.fmi2FreeInstance(fmu.component)
        fmu.freeLibrary()


def sys_path(path):
    """30 instantiations and frees of one extracted FMU leave its resources folder once on sys.path."""
    log = Log()
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = load(path, tmp, "sys.path")
        for _ in range(30):
            fresh(fmu, log)
        fmu.fmi2FreeInstance(fmu.component)
        entries = [p for p in sys.path if p.rstrip("/").endswith("resources") and p.startswith(tmp)]
        assert len(entries) == 1, entries
        fmu.freeLibrary()


if __name__ == "__main__":
    checks = {"states": states, "terminated": terminated, "tolerance": tolerance, "no_inertia": no_inertia,
              "sys_path": sys_path}
    checks[sys.argv[1]](*sys.argv[2:])
    print("pass")
