"""The FMI 3.0 FMUs (build_fmu.py, dist/fmi3): each runs its FMI 2.0 twin's slave through
friction_joints.fmi.fmi3, with the same variables, results, failures and state (issue 13, item 6)."""

import math
import subprocess
import sys
import zipfile

import numpy as np
import pytest
from fmpy import read_csv, read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException
from fmpy.fmi3 import FMU3Slave

import build_fmu

MODELS = sorted(s.stem for s in build_fmu.SOURCES.glob("[A-Z]*.py"))


def _number(text):
    """A start or bound as FMPy reads it (a string, or None), as a float; booleans as 1.0 and 0.0."""
    if text is None:
        return None
    word = str(text).lower()
    return float(word == "true") if word in ("true", "false") else float(text)


@pytest.mark.parametrize("model", MODELS)
def test_fmi3_fmu_declares_the_fmi2_variables_and_gives_its_results(fmus, fmus3, model, tmp_path):
    md2, md3 = read_model_description(str(fmus[model])), read_model_description(str(fmus3[model]))
    assert (md2.fmiVersion, md3.fmiVersion) == ("2.0", "3.0")
    assert md3.coSimulation.modelIdentifier == model and md3.coSimulation.canGetAndSetFMUstate
    v2, v3 = {v.name: v for v in md2.modelVariables}, {v.name: v for v in md3.modelVariables}
    assert set(v3) == set(v2) | {"time"}
    assert (v3["time"].causality, v3["time"].unit, v3["time"].valueReference) == ("independent", "s", len(v2))
    for name, a in v2.items():
        b = v3[name]
        assert (b.valueReference, b.causality, b.variability, b.unit, b.displayUnit, b.description) == \
            (a.valueReference, a.causality, a.variability, a.unit, a.displayUnit, a.description), name
        assert [_number(x) for x in (b.start, b.min, b.max)] == [_number(x) for x in (a.start, a.min, a.max)], name
        assert b.type == {"Real": "Float64", "Integer": "Int32", "Boolean": "Boolean"}[a.type], name
    assert [u.variable.name for u in md3.outputs] == [u.variable.name for u in md2.outputs]
    experiment = ("startTime", "stopTime", "stepSize", "tolerance")
    assert [getattr(md3.defaultExperiment, a) for a in experiment] == \
        [getattr(md2.defaultExperiment, a) for a in experiment]

    cls = build_fmu.slave_class(build_fmu.SOURCES / f"{model}.py")
    with zipfile.ZipFile(fmus3[model]) as z:
        z.extract(f"documentation/{model}_in.csv", tmp_path)
    inputs = read_csv(str(tmp_path / "documentation" / f"{model}_in.csv"))
    outputs = [u.variable.name for u in md2.outputs]
    r2, r3 = (simulate_fmu(str(f[model]), input=inputs, output=outputs) for f in (fmus, fmus3))
    assert r3["time"][-1] == pytest.approx(float(md3.defaultExperiment.stopTime))
    for name in ["time", *outputs]:  # the same slave on the same inputs: the same numbers, bit for bit
        np.testing.assert_array_equal(r3[name], r2[name], err_msg=name)
    assert any(np.ptp(r3[n].astype(float)) > 0 for n in cls.experiment.outputs)


def _slave(fmu, tmp_path, messages):
    """An instantiated FMU3Slave of ``fmu`` whose log messages go to ``messages``; (slave, {name: vr})."""
    from fmpy import extract

    md = read_model_description(str(fmu))
    slave = FMU3Slave(guid=md.guid, unzipDirectory=extract(str(fmu), str(tmp_path / "unzipped")),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="test")
    slave.instantiate(logMessage=lambda env, status, category, message: messages.append((status, message.decode())))
    return slave, {v.name: v.valueReference for v in md.modelVariables}


def test_invalid_parameters_are_fmi3_errors_from_the_failing_call_and_every_later_step(fmus3, tmp_path):
    """mu_k > mu_s: the slave refuses it at exitInitializationMode, which returns fmi3Error (the loader);
    every doStep then returns fmi3Error (not Discard, also without the loader) with the message, until
    fmi3Reset."""
    messages = []
    slave, vr = _slave(fmus3["DupontTwoMass"], tmp_path, messages)
    try:
        slave.enterInitializationMode(startTime=0.0)
        slave.setFloat64([vr["mu_k"]], [0.8])
        with pytest.raises(FMICallException) as failed:
            slave.exitInitializationMode()
        assert failed.value.status == 3
        with pytest.raises(FMICallException) as failed:
            slave.doStep(0.0, 0.01)
        assert failed.value.status == 3
        errors = [m for status, m in messages if status == 3]
        assert errors[0].startswith("exitInitializationMode: initialization failed") and "mu_k" in errors[0]
        assert errors[1].startswith("doStep at t=0.0: not stepped, an earlier call failed") and "mu_k" in errors[1]
        slave.reset()  # fmi3Reset: a new slave with the start values (mu_k = 0.3)
        slave.enterInitializationMode(startTime=0.0)
        slave.exitInitializationMode()
        slave.setFloat64([vr["F1"]], [40.0])
        slave.doStep(0.0, 0.01)
        assert slave.getFloat64([vr["mu_k"], vr["time"]]) == [0.3, 0.01] and slave.getFloat64([vr["xd"]])[0] > 0
    finally:
        slave.freeInstance()


def test_state_round_trip_and_serialization(fmus3, tmp_path):
    """getFMUState at t1, run to t2, setFMUState, run to t2 again: the same outputs and time; the same
    through serializeFMUState/deserializeFMUState in a fresh instance."""
    messages = []
    slave, vr = _slave(fmus3["DupontTwoMass"], tmp_path, messages)
    out = [vr[n] for n in ("x", "xd", "f_mu", "time")]
    try:
        slave.enterInitializationMode(startTime=0.0)
        slave.exitInitializationMode()

        def run(t0, n, h=0.01):
            for k in range(n):
                t = t0 + k * h
                slave.setFloat64([vr["F1"], vr["F2"]], [7 * math.sin(2.4 * t), 50 * math.cos(0.8 * t)])
                slave.doStep(t, h)
            return slave.getFloat64(out)

        run(0.0, 50)
        state = slave.getFMUState()
        serialized = slave.serializeFMUState(state)
        first = run(0.5, 50)
        assert first[-1] == pytest.approx(1.0) and first[0] != 0.0
        slave.setFMUState(state)
        assert slave.getFloat64([vr["time"]]) == [pytest.approx(0.5)]
        assert run(0.5, 50) == first
        slave.setFMUState(slave.deserializeFMUState(serialized))
        assert run(0.5, 50) == first
        slave.freeFMUState(state)
    finally:
        slave.freeInstance()


def test_an_fmu_whose_code_cannot_be_imported_fails_to_instantiate_without_crashing(fmus3, tmp_path):
    """pythonfmu3 0.3.4 crashes its host (SIGSEGV) when the FMU's script raises on import; the binding's
    script turns that into a failed instantiation that says which module is missing."""
    broken = tmp_path / "DupontTwoMass.fmu"
    with zipfile.ZipFile(fmus3["DupontTwoMass"]) as src, zipfile.ZipFile(broken, "w") as dst:
        for item in src.infolist():
            if not item.filename.endswith("/fmi/fmi3.py"):
                dst.writestr(item, src.read(item))
    run = "import sys\nfrom fmpy import simulate_fmu\nsimulate_fmu(sys.argv[1], stop_time=0.1)\n"
    proc = subprocess.run([sys.executable, "-c", run, str(broken)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, (proc.returncode, proc.stdout, proc.stderr)
    assert "Failed to instantiate FMU" in proc.stderr
    assert "the FMU's Python code cannot be imported" in proc.stdout + proc.stderr
    assert ".fmi.fmi3'" in proc.stdout + proc.stderr


def test_the_master_refuses_a_model_exchange_fmu(tmp_path):
    """The master runs FMI 2.0 and 3.0 co-simulation FMUs (tests/test_master_defaults.py); an FMU without
    co-simulation is refused with its name."""
    from friction_joints.fmi.master import FMUInstance

    (tmp_path / "modelDescription.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?><fmiModelDescription fmiVersion="3.0" modelName="M" '
        'instantiationToken="{x}"><ModelExchange modelIdentifier="M"/><ModelVariables>'
        '<Float64 name="time" valueReference="0" causality="independent"/></ModelVariables>'
        '<ModelStructure/></fmiModelDescription>')
    with pytest.raises(ValueError, match=r"vehicle: .* is no FMI 2.0 or 3.0 co-simulation FMU"):
        FMUInstance(tmp_path, "vehicle")
