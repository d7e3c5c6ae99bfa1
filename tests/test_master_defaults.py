"""The master's defaults and FMI versions (issue 32, item 12): coupled inputs interpolated wherever every
FMU can (the implicit scheme was first order by default), held elsewhere; FMI 3.0 FMUs run by the
master and its SSP command (they were refused)."""

from pathlib import Path

import numpy as np
import pytest

from friction_joints.fmi import master, speed_control
from friction_joints.fmi.coupling import Coupling
from friction_joints.fmi.master import Connection, FMUInstance
from friction_joints.fmi.regression import read_csv
from friction_joints.fmi.ssp import write_ssp
from friction_joints.fmi.steering_vehicle import run_fmpy, sine_sweep, system

TAU = sine_sweep(3.0, 0.5, 1.5, 0.3)
T_END, H = 0.3, 0.01


def steering(dist, coupling):
    return run_fmpy(dist, TAU, T_END, H, coupling=coupling)


def as_array(result):
    return np.array([result[name] for name in result.dtype.names])


def test_implicit_coupling_interpolates_by_default_where_every_fmu_can(fmus):
    """SteeringSystem and SingleTrackVehicle both interpolate their inputs: the default implicit run
    is the interpolated one, not the held one."""
    dist = fmus["SteeringSystem"].parent
    default = as_array(steering(dist, Coupling("implicit", rtol=1e-5, atol=1e-8)))
    linear = as_array(steering(dist, Coupling("implicit", rtol=1e-5, atol=1e-8, interpolation="linear")))
    held = as_array(steering(dist, Coupling("implicit", rtol=1e-5, atol=1e-8, interpolation="hold")))
    np.testing.assert_array_equal(default, linear)
    assert np.abs(default - held).max() > 1e-6


def test_inputs_are_held_by_default_where_an_fmu_cannot_interpolate(fmus):
    """SpeedController holds its inputs: the default implicit run of the speed-control pair is the held
    one (and "linear" is refused, test_input_interpolation.py)."""
    runs = []
    for interpolation in ("auto", "hold"):
        paths = speed_control.system(fmus["SliderCrank"].parent).fmus
        instances = {name: FMUInstance(path, name) for name, path in paths.items()}
        try:
            result = master.run(instances, [Connection(*link) for link in speed_control.LINKS], 0.01, 0.2,
                                external={("controller", "w_ref"): lambda t: 2.0},
                                record={"u": ("crank", "u"), "tau": ("controller", "tau")},
                                coupling=Coupling("implicit", rtol=1e-6, atol=1e-9, interpolation=interpolation))
        finally:
            for inst in instances.values():
                inst.close()
        runs.append(as_array(result))
    np.testing.assert_array_equal(runs[0], runs[1])
    assert runs[0][1, -1] > 0  # the crank turns


def test_the_master_and_its_ssp_command_run_fmi3_fmus(fmus, fmus3, tmp_path):
    """The FMI 3.0 FMUs give the FMI 2.0 ones' numbers (held inputs: FMI 3.0 has no derivatives), by
    run and by the command on an SSP file of FMI 3.0 FMUs."""
    pair3 = {"steering": fmus3["SteeringSystem"], "vehicle": fmus3["SingleTrackVehicle"]}
    held = Coupling(interpolation="hold")
    np.testing.assert_array_equal(as_array(steering(pair3, Coupling())),
                                  as_array(steering(fmus["SteeringSystem"].parent, held)))
    write_ssp(tmp_path / "fmi3.ssp", system(pair3))
    for ssp in (tmp_path / "fmi3.ssp", fmus["SteeringSystem"].parent / "SteeringVehicle.ssp"):
        assert master.main([str(ssp), "--stop-time", "0.1", "--step", "0.005", "--interpolation", "hold",
                            "--output", str(tmp_path / f"{ssp.stem}.csv")]) == 0
    three, two = (read_csv(tmp_path / f"{stem}.csv") for stem in ("fmi3", "SteeringVehicle"))
    assert three.dtype.names == two.dtype.names and len(three) == 21
    np.testing.assert_array_equal(as_array(three), as_array(two))


def test_a_sweep_case_runs_an_fmi3_fmu_as_its_fmi2_twin(fmus, fmus3):
    """The sweep's task on the FMI 3.0 SliderCrank gives the FMI 2.0 one's statistics."""
    from friction_joints.fmi.sweep import simulate_case

    opt = {"StartTime": 0.0, "StopTime": 0.2, "StepSize": 0.01, "RelTol": 1e-8}
    cases = [simulate_case({"fmu": f["SliderCrank"]}, {"tau": 3.0, "m1": 3.0}, opt, None, ["u"], False)[0]
             for f in (fmus3, fmus)]
    assert cases[0] == cases[1] and cases[0]["u.final"] > 0, cases


def test_a_failed_initialisation_names_the_cause_and_leaves_no_extracted_fmu(fmus, tmp_path, monkeypatch):
    """An FMU that rejects a parameter at initialisation: SimulationFailed with the FMU's message, the
    instance freed and its extracted folder deleted (they were left behind)."""
    monkeypatch.setattr(master.tempfile, "tempdir", str(tmp_path))
    with pytest.raises(master.SimulationFailed, match=r"crank: initialisation failed.*a1=0\.0.*allowed range"):
        FMUInstance(fmus["SliderCrank"], "crank", {"a1": 0.0})
    assert list(tmp_path.iterdir()) == []
    instance = FMUInstance(fmus["SliderCrank"], "crank")  # the extracted folder is where the check looks
    try:
        assert Path(instance.unzipdir).parent == tmp_path
    finally:
        instance.close()
    assert list(tmp_path.iterdir()) == []
