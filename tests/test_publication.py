"""An FMU's outputs read from the engine's record row equal what its publish computes from the record dict.

The pythonfmu slaves on the compiled engine step with ``Stepper.step_record`` (one call of the C engine)
and publish through ``fmi.publication.Publication``; their twin path is ``Stepper.step`` and ``publish``.
Both are run side by side over steps with stick-slip events inside, for every shipped model with a
compiled form: the rows are bit-identical to the records, the published outputs equal value for value
and type for type, and every output publish can change is read from the row.
"""

import math

import numpy as np
import pytest

import build_fmu
from friction_joints.fmi.publication import NotFromRecord, Publication
from friction_joints.fmi.slave import SystemSlave

MODELS = ["DupontTwoMass", "SliderCrank", "OffsetSliderCrank", "SingleMassFriction", "TwoMassFriction",
          "RSRRRLinkage", "SteeringSystem", "SingleTrackVehicle", "BristleOscillator"]


def slave_and_stepper(name):
    """(a slave object of the FMU ``name`` for its build and publish, a fresh compiled stepper of its
    default parameters, the default inputs)."""
    cls = build_fmu.slave_class(build_fmu.SOURCES / f"{name}.py")
    slave = object.__new__(cls)  # build, make_stepper and publish use only the values (no FMU instance)
    slave.values = {v.name: v.start if v.start is not None else (False if v.kind == "Boolean" else 0.0)
                    for v in cls.variables}
    slave.t_start = 0.0
    inputs = [slave.values[n] for n in cls.inputs]
    return slave, lambda: slave.make_stepper(slave.build(slave.values), inputs), inputs


def driven(inputs, t):
    """Inputs that change at every communication point: the defaults plus a slow swing of their size."""
    return [v + (1.0 + abs(v)) * math.sin(2.0 * t + i) for i, v in enumerate(inputs)]


@pytest.mark.parametrize("name", MODELS)
def test_outputs_from_the_row_equal_publish(name, monkeypatch):
    monkeypatch.setenv("FRICTION_JOINTS_ENGINE", "compiled")
    slave, make_stepper, inputs = slave_and_stepper(name)
    fast, general = make_stepper(), make_stepper()
    assert fast.integrator.engine == "compiled"
    publication = Publication(slave.variables, slave.publish, fast.system.decode_record,
                              fast.integrator.model.n_record)
    outputs = {v.name for v in slave.variables if v.causality == "output"}
    t, h, events = 0.0, 0.005, 0
    for i in range(120):
        u = driven(inputs, t)
        row = fast.step_record(t, h, u)
        rec = general.step(t, h, u)
        events += len(general.integrator.results.events)
        want = slave.publish(rec)
        got = publication(row)
        assert set(got) <= outputs and set(want) == outputs
        for key, value in got.items():
            assert value == want[key] and isinstance(value, bool) == isinstance(want[key], (bool, np.bool_)), \
                f"{name} step {i} {key}: {value!r} != {want[key]!r}"
        unread = outputs - set(got)  # outputs publish gives as 0 from any row: constant
        assert all(want[key] == 0.0 for key in unread), unread
        t += h
    assert fast.outputs.keys() == rec.keys()
    assert all(np.array_equal(fast.outputs[k], rec[k]) for k in rec)  # the row decoded once asked for


def test_a_publish_that_computes_an_output_is_refused():
    slave, make_stepper, inputs = slave_and_stepper("DupontTwoMass")
    stepper = make_stepper()

    def computing(rec):
        return dict(slave.publish(rec), x=rec["q"][0] + rec["q"][1])

    with pytest.raises(NotFromRecord, match="output x"):
        Publication(slave.variables, computing, stepper.system.decode_record, stepper.integrator.model.n_record)


def test_the_slave_publishes_from_the_row_on_the_compiled_engine_only(monkeypatch):
    for engine, expected in (("compiled", Publication), ("python", type(None))):
        monkeypatch.setenv("FRICTION_JOINTS_ENGINE", engine)
        slave, make_stepper, _ = slave_and_stepper("SliderCrank")
        slave.stepper = make_stepper()
        assert isinstance(slave._publication(), expected), engine
    assert issubclass(build_fmu.slave_class(build_fmu.SOURCES / "SteeringSystem.py"), SystemSlave)
