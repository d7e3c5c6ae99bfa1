"""FMPy's container FMU of the project's FMU systems (friction_joints.fmi.container): it runs with the
workarounds, and its Jacobi coupling gives the master's results to the last digit."""

import numpy as np
import pytest
from fmpy import simulate_fmu

from friction_joints.fmi import speed_control, steering_vehicle
from friction_joints.fmi.container import write_container
from friction_joints.fmi.coupling import Coupling
from friction_joints.fmi.master import simulate_ssp
from friction_joints.fmi.ssp import write_ssp


def test_steering_and_vehicle_container_gives_the_jacobi_run(fmus, tmp_path):
    """SteeringSystem + SingleTrackVehicle at 5 ms under a torque sweep: the container's outputs equal
    the master's Jacobi run at every communication point (and differ from its Gauss-Seidel run)."""
    h, t_end = 0.005, 1.0
    system = steering_vehicle.system(fmus["SteeringSystem"].parent, h)
    outputs = {column: steering_vehicle.RECORD[column] for column in ("delta_sw", "r", "T_column")}
    container = write_container(system, tmp_path / "SteeringVehicle.fmu", outputs)
    tau = steering_vehicle.study_torque()
    times = np.arange(round(t_end / h) + 1) * h
    table = np.array(list(zip(times, tau(times))), dtype=[("time", float), ("tau_sw", float)])
    result = simulate_fmu(container, stop_time=t_end, step_size=h, output_interval=h, input=table)
    np.testing.assert_allclose(result["time"], times, atol=1e-12)
    for scheme, equal in (("jacobi", True), ("gauss-seidel", False)):
        master = steering_vehicle.run_fmpy(system.fmus, tau, t_end, h, coupling=Coupling(scheme))
        assert np.abs(master["delta_sw"]).max() > 0.05  # the wheel turns
        same = [np.allclose(result[c], master[c], rtol=1e-12, atol=1e-15) for c in outputs]
        assert all(same) == equal, (scheme, same)


def test_parameter_bindings_and_inputs_reach_the_components(fmus, tmp_path):
    """The demo pair with controller gains that differ from the FMU's defaults, as parameter bindings:
    the container and the master running the same system's SSP file agree."""
    system = speed_control.system(fmus["SliderCrank"].parent, h=0.01, t_end=1.5)
    system.parameters["controller"]["k_p"] = 5.0
    container = write_container(system, tmp_path / "SpeedControl.fmu")
    write_ssp(tmp_path / "SpeedControl.ssp", system)
    times, w_ref = [0.0, 0.3, 0.3, 1.2, 1.2, 1.5], [0.0, 0.0, 2.0, 2.0, 0.0, 0.0]  # steps, held by both
    result = simulate_fmu(container, stop_time=1.5, step_size=0.01, output_interval=0.01,
                          input=np.array(list(zip(times, w_ref)), dtype=[("time", float), ("w_ref", float)]))
    master = simulate_ssp(tmp_path / "SpeedControl.ssp", 1.5, 0.01, inputs=np.array(
        list(zip(times, w_ref)), dtype=[("time", float), ("controller.w_ref", float)]))
    assert np.abs(master["crank.u"]).max() > 0.5  # the crank runs
    for name in ("crank.u", "crank.q[1]", "controller.tau"):
        np.testing.assert_allclose(result[name], master[name], rtol=1e-12, atol=1e-15, err_msg=name)


def test_a_system_without_a_step_or_with_an_unknown_output_is_refused(fmus, tmp_path):
    system = speed_control.system(fmus["SliderCrank"].parent)
    system.step = None
    with pytest.raises(ValueError, match="step=None"):
        write_container(system, tmp_path / "c.fmu")
    with pytest.raises(ValueError, match="no variable crank.nothing"):
        write_container(system, tmp_path / "c.fmu", {"x": ("crank", "nothing")}, step=0.01)
