"""Low-level FMI checks of built FMUs, run as a script in a fresh process by the FMU tests, so that
each check also covers the host's exit.

    python fmu_low_level.py CHECK FMU [FMU ...]     (exit 0 = pass)

CHECK: nan_input | state_round_trip (one FMU); two_models (two different FMUs in one process,
then re-instantiation after free); standalone (the FMU's friction_joints comes from its own
resources: run with ``python -S`` so that the project's installation is not on the path);
fmi_errors SLIDER_CRANK DUPONT (every failure is fmi2Error from the call where it happens, with a
message naming the variable, its value and its allowed range; FMUs with the loader);
bad_parameters CASES (JSON: [[FMU, NAME, VALUE, FUNCTION, [PART...]]...]: setting NAME = VALUE in
initialization mode makes FUNCTION return fmi2Error with a message containing every PART);
errors_without_loader SLIDER_CRANK (an FMU built with --no-loader: pythonfmu's statuses, fmi2OK
and then fmi2Discard).
"""

import importlib.util
import json
import sys
import tempfile
import zipfile
from ctypes import byref
from pathlib import Path

import numpy as np
from fmpy import read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException
from fmpy.fmi2 import (FMU2Slave, calloc, fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                       fmi2CallbackFunctions, fmi2CallbackLoggerTYPE, fmi2LastSuccessfulTime, free)
from fmpy.logging import addLoggerProxy

OK, DISCARD, ERROR = 0, 2, 3  # fmi2Status


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
    """A NaN input: fmi2SetReal returns fmi2Error (the loader), and so does the next doStep."""
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = open_fmu(path, tmp)
        fmu.doStep(0.0, 0.01)
        for call, args in ((fmu.setReal, ([vr["tau"]], [float("nan")])), (fmu.doStep, (0.01, 0.01))):
            try:
                call(*args)
            except FMICallException as exc:
                assert exc.status == ERROR, exc
            else:
                raise AssertionError(f"{call.__name__} accepted a NaN input")
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
    assert "friction_joints" not in sys.modules  # the FMU imports its bundle only, under its own name
    bundles = [m for n, m in sys.modules.items() if n.startswith("friction_joints_") and "." not in n]
    assert len(bundles) == 1 and Path(bundles[0].__file__).parent.parent.name == "resources", bundles
    assert res["u"][-1] > 0, res["u"]


class Log:
    """A host's logger for FMPy (fmi2CallbackFunctions): keeps (status, message) of every message."""

    def __init__(self):
        self.messages = []
        self.callbacks = fmi2CallbackFunctions()
        self.callbacks.logger = fmi2CallbackLoggerTYPE(self._log)
        self.callbacks.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
        self.callbacks.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
        addLoggerProxy(byref(self.callbacks))  # formats the message as FMPy's own logger does

    def _log(self, env, instance, status, category, message):
        self.messages.append((status, message.decode()))

    def take(self):
        messages, self.messages = self.messages, []
        return messages


def load(path, tmp, name):
    """(FMU2Slave with its library loaded and no instance, {name: value reference})."""
    md = read_model_description(path)
    with zipfile.ZipFile(path) as z:
        z.extractall(tmp)
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=tmp, modelIdentifier=md.coSimulation.modelIdentifier,
                    instanceName=name)
    fmu.component = None
    return fmu, {v.name: v.valueReference for v in md.modelVariables}


def fresh(fmu, log, logging=False):
    """A new instance of fmu (the previous one freed, the library kept loaded)."""
    if fmu.component is not None:
        fmu.fmi2FreeInstance(fmu.component)
        fmu.component = None
    log.take()
    fmu.instantiate(callbacks=log.callbacks, loggingOn=logging)


def initialise(fmu, **values):
    """setupExperiment, enterInitializationMode, values set by value reference, exitInitializationMode."""
    fmu.setupExperiment(startTime=0.0)
    fmu.enterInitializationMode()
    for vr, value in values.items():
        fmu.setReal([int(vr)], [value])
    fmu.exitInitializationMode()


def expect(log, case, function, status, parts, call, *args):
    """call(*args) is the FMI function `function`: it returns `status` (FMPy raises above fmi2Warning)
    and logs, during the call, a message of status fmi2Error that contains every string of parts."""
    log.take()
    try:
        call(*args)
        returned = OK
    except FMICallException as exc:
        assert exc.function == function, f"{case}: {exc}"
        returned = exc.status
    messages = log.take()
    assert returned == status, f"{case}: {function} returned {returned}, not {status}; log: {messages}"
    errors = [m for s, m in messages if s == ERROR]
    assert errors and all(p in errors[0] for p in parts), f"{case}: {function}: {parts} not in {messages}"
    return errors[0]


def succeeds(log, case, call, *args):
    """call(*args) returns fmi2OK and logs no error."""
    log.take()
    result = call(*args)
    messages = log.take()
    assert not [m for s, m in messages if s >= ERROR], f"{case}: {call.__name__}: {messages}"
    return result


def fmi_errors(crank_path, dupont_path):
    """Each failure returns fmi2Error from the call where it happens, with a message that names the
    variable, its value and its allowed range (logged though the host turned debug logging off);
    the instance then fails every later step with the same message, until fmi2SetFMUstate restores
    a state saved before the failure."""
    nan, inf = float("nan"), float("inf")
    log = Log()
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        crank, vc = load(crank_path, a, "crank")
        dupont, vd = load(dupont_path, b, "dupont")

        case = "parameter outside its declared range at setReal"
        fresh(crank, log)
        crank.setupExperiment(startTime=0.0)
        crank.enterInitializationMode()
        expect(log, case, "fmi2SetReal", ERROR, ["rtol = 0.5", "allowed range [1e-14, 0.01]"],
               crank.setReal, [vc["rtol"]], [0.5])
        expect(log, case, "fmi2SetReal", ERROR, ["m1 = -1.0", "allowed range [0.0, inf)"],
               crank.setReal, [vc["m1"]], [-1.0])
        assert crank.getReal([vc["rtol"], vc["m1"]]) == [1e-8, 2.5], case  # both left unchanged
        expect(log, case, "fmi2ExitInitializationMode", ERROR, ["rtol = 0.5", "[1e-14, 0.01]"],
               crank.exitInitializationMode)
        expect(log, case, "fmi2DoStep", ERROR, ["rtol = 0.5", "[1e-14, 0.01]"], crank.doStep, 0.0, 0.01)

        case = "parameters rejected together at exitInitializationMode"
        fresh(dupont, log)
        dupont.setupExperiment(startTime=0.0)
        dupont.enterInitializationMode()
        succeeds(log, case, dupont.setReal, [vd["mu_k"]], [0.9])  # within mu_k's declared [0, inf)
        expect(log, case, "fmi2ExitInitializationMode", ERROR, ["mu_k=0.9", "allowed range [0, 0.5]"],
               dupont.exitInitializationMode)
        for k in range(2):
            expect(log, case, "fmi2DoStep", ERROR, ["mu_k=0.9", "allowed range [0, 0.5]"], dupont.doStep, 0.0, 0.01)

        case = "NaN or infinite input at setReal"
        for value in (nan, inf, -inf):
            fresh(crank, log)
            initialise(crank, **{str(vc["tau"]): 2.0})
            succeeds(log, case, crank.doStep, 0.0, 0.01)
            expect(log, case, "fmi2SetReal", ERROR, [f"tau = {value!r}", "allowed range (-inf, inf)"],
                   crank.setReal, [vc["tau"]], [value])
            assert crank.getReal([vc["tau"]]) == [2.0], case
            expect(log, case, "fmi2DoStep", ERROR, [f"tau = {value!r}"], crank.doStep, 0.01, 0.01)

        case = "parameter set after exitInitializationMode"
        fresh(crank, log)
        initialise(crank)
        expect(log, case, "fmi2SetReal", ERROR, ["m1 = 2.0", "after exitInitializationMode", "[0.0, inf)", "stays 2.5"],
               crank.setReal, [vc["m1"]], [2.0])
        assert crank.getReal([vc["m1"]]) == [2.5], case
        expect(log, case, "fmi2DoStep", ERROR, ["m1 = 2.0"], crank.doStep, 0.0, 0.01)

        case = "stop time before start time"
        fresh(crank, log)
        expect(log, case, "fmi2SetupExperiment", ERROR, ["stopTime = 0.5", "allowed range [1.0, inf)",
                                                         "startTime = 1.0"],
               crank.setupExperiment, None, 1.0, 0.5)
        crank.enterInitializationMode()
        expect(log, case, "fmi2ExitInitializationMode", ERROR, ["stopTime = 0.5"], crank.exitInitializationMode)
        succeeds(log, case, crank.reset)  # fmi2Reset ends the failed state
        succeeds(log, case, crank.setupExperiment, None, 1.0, 2.0)
        succeeds(log, case, crank.enterInitializationMode)
        succeeds(log, case, crank.exitInitializationMode)
        succeeds(log, case, crank.doStep, 1.0, 0.01)

        case = "communication step size not positive and finite"
        for h in (0.0, -0.01, nan, inf):
            fresh(crank, log)
            initialise(crank)
            expect(log, case, "fmi2DoStep", ERROR, [f"communicationStepSize = {h!r}", "allowed range (0, inf)"],
                   crank.doStep, 0.0, h)

        case = "an output or an unknown value reference"
        fresh(crank, log)
        initialise(crank)
        expect(log, case, "fmi2SetReal", ERROR, ["u (value reference", "output"], crank.setReal, [vc["u"]], [1.0])
        expect(log, case, "fmi2GetReal", ERROR, ["99999"], crank.getReal, [99999])

        case = "recovery from a saved state"
        fresh(crank, log)
        initialise(crank, **{str(vc["tau"]): 2.0})
        succeeds(log, case, crank.doStep, 0.0, 0.01)
        state = crank.getFMUstate()
        expect(log, case, "fmi2SetReal", ERROR, ["tau = nan"], crank.setReal, [vc["tau"]], [nan])
        succeeds(log, case, crank.setFMUstate, state)
        succeeds(log, case, crank.setReal, [vc["tau"]], [3.0])
        succeeds(log, case, crank.doStep, 0.01, 0.01)
        crank.freeFMUstate(state)

        case = "debug logging off passes errors only; fmi2SetDebugLogging turns the rest on"
        fresh(crank, log)  # logging off
        initialise(crank)
        assert log.take() == [], case
        fresh(crank, log)
        crank.setDebugLogging(True, [])
        initialise(crank)
        assert [s for s, m in log.take() if s < ERROR], case  # the engine's start-up message

        for fmu in (crank, dupont):
            fmu.fmi2FreeInstance(fmu.component)
            fmu.freeLibrary()


def bad_parameters(cases):
    """cases: JSON list of [FMU, NAME, VALUE, FUNCTION, [PART, ...]]. NAME = VALUE set in
    initialization mode makes FUNCTION return fmi2Error with every PART in its message
    (fmi2SetReal for a value outside the declared range, fmi2ExitInitializationMode for one the
    model rejects), and every later call up to doStep too; the calls before it succeed."""
    log = Log()
    for path, name, value, function, parts in json.loads(cases):
        case = f"{Path(path).stem}: {name} = {value}"
        with tempfile.TemporaryDirectory() as tmp:
            fmu, vr = load(path, tmp, "bad")
            fresh(fmu, log)
            fmu.setupExperiment(startTime=0.0)
            fmu.enterInitializationMode()
            steps = [("fmi2SetReal", fmu.setReal, [vr[name]], [float(value)]),
                     ("fmi2ExitInitializationMode", fmu.exitInitializationMode),
                     ("fmi2DoStep", fmu.doStep, 0.0, 0.01)]
            names = [step[0] for step in steps]
            assert function in names, function
            for called, call, *args in steps:
                if names.index(called) < names.index(function):
                    succeeds(log, case, call, *args)
                else:
                    expect(log, case, called, ERROR, parts, call, *args)
            fmu.fmi2FreeInstance(fmu.component)
            fmu.freeLibrary()


def errors_without_loader(path):
    """pythonfmu's binary alone: the failures are logged, with fmi2Error status, but the failing call
    returns fmi2OK and every later doStep fmi2Discard, at the step's start (lastSuccessfulTime)."""
    log = Log()
    with tempfile.TemporaryDirectory() as tmp:
        fmu, vr = load(path, tmp, "no loader")
        with zipfile.ZipFile(path) as z:
            assert not any(n.endswith("-pythonfmu.so") for n in z.namelist()), "the FMU has the loader"

        case = "NaN input without the loader"
        fresh(fmu, log, logging=True)
        initialise(fmu)
        succeeds(log, case, fmu.doStep, 0.0, 0.01)
        expect(log, case, "fmi2SetReal", OK, ["tau = nan", "allowed range (-inf, inf)"],
               fmu.setReal, [vr["tau"]], [float("nan")])
        expect(log, case, "fmi2DoStep", DISCARD, ["tau = nan"], fmu.doStep, 0.01, 0.01)
        assert fmu.getRealStatus(fmi2LastSuccessfulTime) == 0.01, case

        case = "parameter outside its range without the loader"
        fresh(fmu, log, logging=True)
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        expect(log, case, "fmi2SetReal", OK, ["rtol = 0.5"], fmu.setReal, [vr["rtol"]], [0.5])
        expect(log, case, "fmi2ExitInitializationMode", OK, ["rtol = 0.5"], fmu.exitInitializationMode)
        expect(log, case, "fmi2DoStep", DISCARD, ["rtol = 0.5"], fmu.doStep, 0.0, 0.01)
        fmu.fmi2FreeInstance(fmu.component)
        fmu.freeLibrary()


if __name__ == "__main__":
    checks = {"nan_input": nan_input, "state_round_trip": state_round_trip, "two_models": two_models,
              "standalone": standalone, "fmi_errors": fmi_errors, "bad_parameters": bad_parameters,
              "errors_without_loader": errors_without_loader}
    checks[sys.argv[1]](*sys.argv[2:])
    print("pass")
