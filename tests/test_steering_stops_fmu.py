"""The SteeringSystem FMU's rack end stops (issue 32 item 14): F_stop and the stop's parameters in the
modelDescription with units, ranges and descriptions; a bad rack_travel refused with its name; the
issue's case (4 N.m, no aligning moment) through the FMU stays at the stop."""

import numpy as np
import pytest
from fmpy import read_model_description, simulate_fmu
from fmpy.fmi1 import FMICallException



@pytest.fixture(scope="module")
def fmu(fmus):
    return fmus["SteeringSystem"]


def test_the_fmu_exposes_the_end_stops(fmu):
    variables = {v.name: v for v in read_model_description(str(fmu)).modelVariables}
    F_stop = variables["F_stop"]
    unit = lambda v: v.unit or (v.declaredType.unit if v.declaredType else None)  # noqa: E731
    assert F_stop.causality == "output" and unit(F_stop) == "N" and "end stops" in F_stop.description
    for name, si, default in (("rack_travel", "m", 0.075), ("k_stop", "N/m", 1e7), ("c_stop", "N.s/m", 1e4)):
        v = variables[name]
        assert v.causality == "parameter" and unit(v) == si, name
        assert float(v.start) == default and v.min is not None and v.max is not None and v.description


@pytest.mark.parametrize("value, call, text", [
    (0.0, "fmi2ExitInitializationMode", "rack_travel=0.0 is outside the allowed range (0, inf)"),
    (-0.01, "fmi2SetReal", "rack_travel = -0.01 is outside its allowed range [0.0, 1.0]"),
])
def test_a_bad_rack_travel_is_refused_with_its_name(fmu, value, call, text):
    messages = []

    def logger(env, instance, status, category, message):
        messages.append(message.decode())

    with pytest.raises(FMICallException, match=call):
        simulate_fmu(str(fmu), stop_time=0.1, output_interval=0.01, start_values={"rack_travel": value}, logger=logger)
    assert any(text in m for m in messages), messages


def test_the_issue_case_through_the_fmu(fmu):
    res = simulate_fmu(str(fmu), stop_time=1.5, output_interval=0.01, start_values={"tau_sw": 4.0},
                       output=["x_rack", "F_stop", "delta_left"])
    assert 0.075 < res["x_rack"].max() < 0.0755 and res["F_stop"].min() < -500.0 and np.all(res["F_stop"] <= 0.0)
    assert np.degrees(res["delta_left"]).max() < 30.0
