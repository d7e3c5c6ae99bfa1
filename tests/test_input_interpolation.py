"""Input derivatives (FMI 2.0 canInterpolateInputs, fmi2SetRealInputDerivatives): the FMU follows the
lines its host gives, for one step; bad calls fail with their message; the implicit coupling with
interpolated inputs reaches second order."""

import numpy as np
import pytest
from fmpy import read_model_description
from fmpy.fmi1 import FMICallException

from friction_joints.engine import run
from friction_joints.fmi import speed_control
from friction_joints.fmi.coupling import Coupling
from friction_joints.fmi.master import Connection, FMUInstance
from friction_joints.fmi.master import run as run_master
from friction_joints.fmi.steering_vehicle import deviation, run_fmpy, study_torque, STUDY_T_END
from friction_joints.hybrid import PiecewiseLinear
from friction_joints.mechanisms import slider_crank
from friction_joints.simulation import simulate
from friction_joints.stepping import MechanismStepper
from friction_joints.vehicle import SingleTrackVehicle, VehicleParameters

OUTPUTS = ("r", "psi", "v_y", "M_z_left")
H = 0.05


def library_run(times, values, t_end):
    """The vehicle (default parameters) with both steer angles following the table, at every H."""
    model = SingleTrackVehicle(VehicleParameters(), [PiecewiseLinear(times, values)] * 2)
    results = run(model, model.initial_state(), t_end, dt_out=H, rtol=1e-11, atol=1e-13, engine="python")
    rows = [results.rows[i] for i in results.rows_at(np.arange(1, round(t_end / H) + 1) * H)]
    return np.array([[row[name] for name in OUTPUTS] for row in rows])


def fmu_run(path, steps):
    """The vehicle FMU stepped by H; steps: (value, rate or None) of both steer angles per step."""
    inst = FMUInstance(path, "vehicle", {"rtol": 1e-10})
    try:
        out = []
        for k, (value, rate) in enumerate(steps):
            inst.set({"delta_left": value, "delta_right": value})
            if rate is not None:
                inst.set_rates({"delta_left": rate, "delta_right": rate})
            inst.fmu.doStep(currentCommunicationPoint=k * H, communicationStepSize=H)
            out.append(inst.get(list(OUTPUTS)))
        return np.array(out)
    finally:
        inst.close()


@pytest.mark.parametrize("engine", ["compiled", "python"])
def test_a_stepper_with_rates_runs_the_piecewise_linear_input(engine):
    """The slider-crank (seed 000 Example 2) with stick-slip under a torque table given per step of
    0.05 s as value and slope: the same crank angle and speed as a run with the table itself."""
    mech = slider_crank()
    q0 = mech.assemble([0.0])
    times = np.arange(0.0, 2.0 + H / 2, H)
    torque = 4.0 * np.sin(3.0 * times)
    reference = simulate(mech, [PiecewiseLinear(times, torque)], 2.0, q0, [0.0], dt_out=H, rtol=1e-10, atol=1e-12,
                         engine=engine)
    rows = reference.rows_at(times[1:])
    stepper = MechanismStepper(mech, q0, [0.0], [torque[0]], rtol=1e-10, engine=engine)
    stuck = []
    for k, t in enumerate(times[:-1]):
        out = stepper.step(t, H, [torque[k]], [(torque[k + 1] - torque[k]) / H])
        row = reference.rows[rows[k]]
        np.testing.assert_allclose([out["q"][0], out["u"][0]], [row["q"][0], row["u"][0]], rtol=1e-7, atol=1e-9)
        stuck.append(bool(out["stuck"]))
    assert any(stuck) and not all(stuck)  # the run crosses stick-slip transitions


def test_the_vehicle_fmu_follows_the_input_lines_of_its_host(fmus):
    """A steer ramp to 0.03 rad in 0.3 s and back to 0.01 rad by 0.6 s, given per step as the value at
    the step's start and its slope: the FMU gives the library's run with the same piecewise-linear
    inputs; held inputs (no derivatives) give a visibly different run."""
    assert read_model_description(str(fmus["SingleTrackVehicle"])).coSimulation.canInterpolateInputs
    times, values = np.array([0.0, 0.3, 0.6, 1.0]), np.array([0.0, 0.03, 0.01, 0.01])
    points = np.arange(round(1.0 / H)) * H
    start = np.interp(points, times, values)
    slope = (np.interp(points + H, times, values) - start) / H
    reference = library_run(times, values, 1.0)
    interpolated = fmu_run(fmus["SingleTrackVehicle"], list(zip(start, slope)))
    held = fmu_run(fmus["SingleTrackVehicle"], [(v, None) for v in start])
    scale = np.abs(reference).max(axis=0)
    assert np.all(np.abs(interpolated - reference).max(axis=0) < 1e-7 * scale)
    assert np.all(np.abs(held - reference).max(axis=0) > 1e-2 * scale)


def test_a_derivative_holds_for_the_next_step_only(fmus):
    """Set before the first step only: the first step ramps 0 -> 0.02 rad, the next ones hold 0.02."""
    steps = [(0.0, 0.02 / H)] + [(0.02, None)] * 9
    reference = library_run(np.array([0.0, H, 1.0]), np.array([0.0, 0.02, 0.02]), 10 * H)
    result = fmu_run(fmus["SingleTrackVehicle"], steps)
    np.testing.assert_allclose(result, reference, rtol=1e-7, atol=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda inst: inst.fmu.setRealInputDerivatives([inst.refs["delta_left"].valueReference], [0], [1.0]),
     "order 0 of value reference"),
    (lambda inst: inst.fmu.setRealInputDerivatives([inst.refs["m"].valueReference], [1], [1.0]),
     "m (value reference"),
    (lambda inst: inst.fmu.setRealInputDerivatives([inst.refs["r"].valueReference], [1], [1.0]), "r (value reference"),
    (lambda inst: inst.set_rates({"delta_left": float("nan")}), "the derivative of delta_left = nan is outside"),
], ids=["order 0", "a parameter", "an output", "NaN"])
def test_a_bad_derivative_fails_with_its_message(fmus, call, message):
    inst = FMUInstance(fmus["SingleTrackVehicle"], "vehicle")
    try:
        with pytest.raises(FMICallException):
            call(inst)
        assert any(message in m for m in inst.messages), inst.messages
    finally:
        inst.close()


def test_a_second_derivative_is_not_used_and_the_call_succeeds(fmus):
    inst = FMUInstance(fmus["SingleTrackVehicle"], "vehicle")
    try:
        inst.fmu.setRealInputDerivatives([inst.refs["delta_left"].valueReference], [2], [5.0])
        inst.fmu.doStep(currentCommunicationPoint=0.0, communicationStepSize=H)
        assert inst.get(["r"]) == [0.0]  # no steer, no derivative used: the vehicle runs straight
    finally:
        inst.close()


def test_linear_interpolation_needs_fmus_that_can_interpolate(fmus):
    paths = speed_control.system(fmus["SliderCrank"].parent).fmus
    instances = {name: FMUInstance(path, name) for name, path in paths.items()}
    try:
        with pytest.raises(ValueError, match=r"canInterpolateInputs.*\['controller'\]"):
            run_master(instances, [Connection(*link) for link in speed_control.LINKS], 0.01, 0.1,
                       coupling=Coupling(interpolation="linear"))
    finally:
        for inst in instances.values():
            inst.close()


def test_implicit_coupling_with_interpolated_inputs_is_of_second_order_and_within_2_percent_at_20_ms(
        fmus, frictionless_reference):
    """SteeringSystem + SingleTrackVehicle without friction (issue 14): the implicit coupling with the
    coupled inputs interpolated between their values at t and t + h stays within 2 % of the monolithic
    run at 10 and 20 ms, and its error falls with h squared (held inputs: with h, about 1.5 and 3 %)."""
    tau, frictionless, errors = study_torque(), {"friction_scale": 0.0}, {}
    for h in (0.01, 0.02):
        reference = frictionless_reference(h)  # the monolithic run with tau, frictionless, over steps of h
        run_ = run_fmpy(fmus["SteeringSystem"].parent, tau, STUDY_T_END, h, steering=frictionless,
                        coupling=Coupling("implicit", rtol=1e-5, atol=1e-8, interpolation="linear"))
        errors[h] = max(deviation(run_, reference, column) for column in ("delta_sw", "r"))
    assert errors[0.02] < 0.02 and errors[0.01] < 0.02, errors
    assert 3.0 < errors[0.02] / errors[0.01] < 5.0, errors
