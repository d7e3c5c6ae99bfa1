"""The SSP files build_fmu.py writes, run by the master's command (python -m friction_joints.master)
and by libcosim: the same results as the master on the FMUs directly and as libcosim; clear exit
statuses and errors."""

import importlib.util
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest

from friction_joints.fmi import master
from friction_joints.fmi.regression import read_csv, write_csv
from friction_joints.fmi.ssp import SSPError, read_ssp, write_ssp
from friction_joints.fmi.steering_vehicle import LINKS, RECORD, run_fmpy, run_libcosim, sine_sweep

H, T_END = 0.005, 2.0
TAU = sine_sweep(3.0, 0.5, 1.5, 2.0)
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "cosim_speed_control.py"


def table(columns: dict, t):
    return np.array(list(zip(t, *columns.values())), dtype=[("time", float)] + [(c, float) for c in columns])


def cli(tmp_path, ssp, *args, inputs=None):
    """(exit status, output table or None) of the command on ssp, run in this process; inputs: a
    table for --input."""
    argv = [str(ssp), *args, "--output", str(tmp_path / "out.csv")]
    if inputs is not None:
        write_csv(tmp_path / "in.csv", inputs)
        argv += ["--input", str(tmp_path / "in.csv")]
    try:
        status = master.main(argv)
    except SystemExit as exc:  # argparse's exit on bad arguments
        status = exc.code
    return status, read_csv(tmp_path / "out.csv") if status == 0 else None


@pytest.fixture(scope="module")
def steering_cli(fmus, tmp_path_factory):
    """The command's Jacobi run of SteeringVehicle.ssp under TAU (sampled at the steps) and its input table."""
    t = np.arange(int(round(T_END / H)) + 1) * H  # the master's communication points k h
    status, out = cli(tmp_path_factory.mktemp("cli"), fmus["SteeringSystem"].parent / "SteeringVehicle.ssp",
                      "--stop-time", str(T_END), "--step", str(H), inputs=table({"steering.tau_sw": TAU(t)}, t))
    assert status == 0
    return out


def test_the_ssp_holds_the_pair_as_defined(fmus):
    dist = fmus["SteeringSystem"].parent
    with zipfile.ZipFile(dist / "SteeringVehicle.ssp") as archive:
        assert sorted(archive.namelist()) == ["SystemStructure.ssd", "resources/SingleTrackVehicle.fmu",
                                              "resources/SteeringSystem.fmu"]
    system = read_ssp(dist / "SteeringVehicle.ssp", dist / "unpacked")
    assert sorted(system.links) == sorted(LINKS) and system.inputs == {"tau_sw": ("steering", "tau_sw")}
    assert {name: fmu.name for name, fmu in system.fmus.items()} == {"steering": "SteeringSystem.fmu",
                                                                     "vehicle": "SingleTrackVehicle.fmu"}


def test_cli_on_steering_vehicle_matches_the_master_on_the_fmus(fmus, steering_cli):
    direct = run_fmpy(fmus["SteeringSystem"].parent, TAU, T_END, H)
    np.testing.assert_array_equal(steering_cli["time"], direct["time"])
    for column, (instance, var) in RECORD.items():
        if column != "tau_sw":  # an input, not in the output table
            np.testing.assert_allclose(steering_cli[f"{instance}.{var}"], direct[column], rtol=0, atol=1e-12,
                                       err_msg=column)
    assert np.abs(direct["r"]).max() > 0.05  # the car turns


def test_libcosim_on_the_ssp_agrees_with_the_master_jacobi(fmus, tmp_path):
    """libcosim and the command on SteeringVehicle.ssp with both FMUs at rtol 1e-12 (inline parameter
    bindings): the masters' inputs differ at rounding level, which moves the stick-slip events by ~1e-10 s,
    so a comparison at 1e-9 is only meaningful where each FMU's own integration error is below it (as in
    test_steering_cosim)."""
    pytest.importorskip("libcosimpy")
    system = read_ssp(fmus["SteeringSystem"].parent / "SteeringVehicle.ssp", tmp_path / "unpacked")
    system.parameters = {name: {**system.parameters.get(name, {}), "rtol": 1e-12} for name in system.fmus}
    write_ssp(tmp_path / "tight.ssp", system)
    t = np.arange(int(round(T_END / H)) + 1) * H
    status, a = cli(tmp_path, tmp_path / "tight.ssp", "--stop-time", str(T_END), "--step", str(H),
                    inputs=table({"steering.tau_sw": TAU(t)}, t))
    assert status == 0
    b = run_libcosim(None, TAU, T_END, H, ssp=tmp_path / "tight.ssp")
    np.testing.assert_allclose(b["time"], a["time"][1:], atol=1e-12)
    for column, (instance, var) in RECORD.items():
        if column != "tau_sw":
            ref = a[f"{instance}.{var}"]
            np.testing.assert_allclose(b[column], ref[1:], rtol=0, atol=1e-9 * np.abs(ref).max(), err_msg=column)


def test_cli_on_speed_control_matches_the_example(fmus, tmp_path):
    spec = importlib.util.spec_from_file_location("cosim_speed_control", EXAMPLE)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    t_end, h = 1.5, 0.01
    direct = example.simulate(fmus["SliderCrank"].parent, t_end, h)
    steps = table({"controller.w_ref": [0.0, 2.0, 0.0]}, [0.0, 0.5, 4.0])  # example.set_point, held
    status, out = cli(tmp_path, fmus["SliderCrank"].parent / "SpeedControl.ssp", "--stop-time", str(t_end),
                      "--step", str(h), inputs=steps)
    assert status == 0
    for column, name in (("u", "crank.u"), ("tau", "controller.tau"), ("q1", "crank.q[1]"), ("stuck", "crank.stuck")):
        np.testing.assert_allclose(out[name], direct[column], rtol=0, atol=1e-12, err_msg=column)
    assert out["crank.u"].max() > 0.5  # the crank runs
    # --set overrides the SSP's parameter binding tau_max = 80 N.m
    status, limited = cli(tmp_path, fmus["SliderCrank"].parent / "SpeedControl.ssp", "--stop-time", "1",
                          "--step", str(h), "--set", "controller.tau_max=5", "--coupling", "gauss-seidel",
                          inputs=steps)
    assert status == 0 and np.abs(limited["controller.tau"]).max() <= 5.0 < np.abs(out["controller.tau"]).max()


@pytest.mark.parametrize("args, message", [
    (["--set", "steering.mu_k"], "INSTANCE.VAR=VALUE"),
    (["--set", "car.mu_k=1"], "no instances"),
    (["--set", "steering.nope=1"], "nope"),
    (["--step", "0"], "--step"),
    (["--coupling", "newton"], "invalid choice: 'newton'"),
    (["--interpolation", "cubic"], "invalid choice: 'cubic'"),
])
def test_bad_arguments_exit_2(fmus, tmp_path, capsys, args, message):
    ssp = fmus["SteeringSystem"].parent / "SteeringVehicle.ssp"
    defaults = {"--stop-time": "0.1", "--step": str(H)}
    for flag, value in zip(args[::2], args[1::2]):
        defaults.pop(flag, None)
    argv = [a for kv in defaults.items() for a in kv] + args
    assert cli(tmp_path, ssp, *argv)[0] == 2
    assert message in capsys.readouterr().err


def test_interpolation_of_inputs_an_fmu_cannot_interpolate_exits_2(fmus, tmp_path, capsys):
    """SpeedController holds its inputs (no canInterpolateInputs): refused before the first step."""
    assert cli(tmp_path, fmus["SliderCrank"].parent / "SpeedControl.ssp", "--stop-time", "0.1", "--step", "0.01",
               "--interpolation", "linear")[0] == 2
    assert "(canInterpolateInputs); ['controller'] do not" in capsys.readouterr().err


def test_only_real_variables_can_be_set(fmus, tmp_path, capsys):
    assert cli(tmp_path, fmus["SliderCrank"].parent / "SpeedControl.ssp", "--stop-time", "0.1", "--step", "0.01",
               "--set", "crank.stuck=1")[0] == 2
    assert "only Real variables can be set, not stuck (Boolean)" in capsys.readouterr().err


def test_an_input_column_that_is_no_system_input_exits_2(fmus, tmp_path, capsys):
    bad = table({"vehicle.delta_left": [0.0]}, [0.0])
    assert cli(tmp_path, fmus["SteeringSystem"].parent / "SteeringVehicle.ssp", "--stop-time", "0.1",
               "--step", str(H), inputs=bad)[0] == 2
    assert "steering.tau_sw" in capsys.readouterr().err


def test_a_failing_fmu_exits_1_with_its_message(fmus, tmp_path, capsys):
    status, _ = cli(tmp_path, fmus["SteeringSystem"].parent / "SteeringVehicle.ssp", "--stop-time", "0.1",
                    "--step", str(H), "--set", "steering.mu_k=-1")
    assert status == 1
    assert "mu_k = -1.0 is outside its allowed range" in capsys.readouterr().err


def rewrite(src: Path, dst: Path, edit):
    """A copy of the .ssp src at dst with its SystemStructure.ssd text passed through edit."""
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w") as b:
        for item in a.namelist():
            data = a.read(item)
            b.writestr(item, edit(data.decode()) if item == "SystemStructure.ssd" else data)
    return dst


@pytest.mark.parametrize("edit, feature", [
    (lambda s: s.replace("<ssd:Elements>", '<ssd:Elements><ssd:System name="inner" />'), "nested systems"),
    (lambda s: s.replace('endConnector="w" />',
                         'endConnector="w"><ssc:LinearTransformation factor="2" /></ssd:Connection>'),
     "units conversion"),
    (lambda s: s.replace('type="application/x-fmu-sharedlibrary"', 'type="application/x-ssp-package"', 1),
     "application/x-ssp-package"),
])
def test_unsupported_ssp_features_are_named(fmus, tmp_path, capsys, edit, feature):
    source = fmus["SliderCrank"].parent / "SpeedControl.ssp"
    ssp = rewrite(source, tmp_path / "edited.ssp", edit)
    with zipfile.ZipFile(ssp) as archive:
        assert archive.read("SystemStructure.ssd") != zipfile.ZipFile(source).read("SystemStructure.ssd")
    with pytest.raises(SSPError, match=feature):
        read_ssp(ssp, tmp_path / "unpacked")
    shutil.rmtree(tmp_path / "unpacked")
    assert cli(tmp_path, ssp, "--stop-time", "0.1", "--step", "0.01")[0] == 2
    assert feature in capsys.readouterr().err


def test_every_ssp_file_states_its_start_and_stop_time(fmus, tmp_path):
    """The SSP files build_fmu.py writes (SteeringVehicle.ssp had no stopTime), and a system without a
    stop time is refused instead of written without one."""
    from xml.etree import ElementTree as ET

    from friction_joints.fmi import speed_control, steering_vehicle
    from friction_joints.fmi.ssp import NS, write_ssp

    dist = fmus["SteeringSystem"].parent
    for name, stop in (("SteeringVehicle", 10.0), ("SpeedControl", 6.0)):
        with zipfile.ZipFile(dist / f"{name}.ssp") as archive:
            experiment = ET.fromstring(archive.read("SystemStructure.ssd")).find("ssd:DefaultExperiment", NS)
        assert (experiment.get("startTime"), experiment.get("stopTime")) == ("0.0", repr(stop)), name
        assert read_ssp(dist / f"{name}.ssp", tmp_path / name).stop_time == stop
    system = steering_vehicle.system(dist)
    system.stop_time = None
    with pytest.raises(ValueError, match="SteeringVehicle: stop_time = None"):
        write_ssp(tmp_path / "no_stop.ssp", system)
    assert not (tmp_path / "no_stop.ssp").exists()
    assert speed_control.system(dist).start_time == 0.0
