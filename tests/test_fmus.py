"""The FMUs built by build_fmu.py: valid, run in FMPy, agree with the library, report failures
as fmi2Error from the call where they happen, and round-trip their state."""

import json
import zipfile

import numpy as np
from fmpy import read_model_description, simulate_fmu

from friction_joints.hybrid import PiecewiseConstant
from friction_joints.mechanisms import dupont_two_mass
from friction_joints.simulation import simulate

H = 0.01


def dupont_inputs(t_end):
    t = np.arange(0.0, t_end + H / 2, H)
    return t, 7 * np.sin(2.4 * t), 50 * np.cos(0.8 * t)


def test_every_fmu_is_built_with_units_and_structure(fmus):
    assert set(fmus) == {"DupontTwoMass", "OffsetSliderCrank", "SliderCrank", "SpeedController",
                         "SingleMassFriction", "TwoMassFriction", "RSRRRLinkage", "SteeringSystem",
                         "SingleTrackVehicle", "BristleOscillator"}
    for path in fmus.values():
        md = read_model_description(str(path))
        units = {u.name for u in md.unitDefinitions}
        for v in md.modelVariables:
            assert v.description, v.name
            if v.type == "Real" and v.unit:
                assert v.unit in units
        assert len(md.outputs) == sum(v.causality == "output" for v in md.modelVariables)
        assert md.defaultExperiment.stopTime
        with zipfile.ZipFile(path) as z:
            assert {"documentation/index.html", "documentation/default_experiment.png"} <= set(z.namelist())
            bundled = {n.split("/")[1] for n in z.namelist() if n.startswith("resources/friction_joints")}
            assert len(bundled) == 1 and f"resources/{bundled.pop()}/__init__.py" in z.namelist()
    crank = read_model_description(str(fmus["SliderCrank"]))
    names = {v.name: v for v in crank.modelVariables}
    assert {f"f[{i}]" for i in range(1, 9)} <= set(names) and names["q[1]"].unit == "rad"
    assert names["q[1]"].displayUnit == "deg" and names["stuck"].variability == "discrete"


def test_an_fmu_carries_binaries_of_tested_platforms_only_and_no_c_sources(fmus, fmus3):
    """pythonfmu's builder copies its binaries for every platform it has; an FMU keeps those of the platforms that
    the tests run it on (linux64, x86_64-linux), and the compiled engine, not the C sources it was built from."""
    for version, built, platforms in ((2, fmus, {"linux64"}), (3, fmus3, {"x86_64-linux"})):
        assert len(built) == 10, version
        for path in built.values():
            with zipfile.ZipFile(path) as z:
                names = z.namelist()
            assert {n.split("/")[1] for n in names if n.startswith("binaries/") and n.count("/") > 1} == platforms
            assert not [n for n in names if n.endswith((".c", ".h"))], path.name
            assert any(n.startswith("resources/friction_joints") and "/native/_engine" in n for n in names), path.name


def test_dupont_fmu_agrees_with_the_library(fmus):
    """The FMU holds its inputs over each step: the library fed the same piecewise-constant
    inputs must give the same stiction interval and the same trajectory."""
    t, F1, F2 = dupont_inputs(0.6)
    signal = np.array(list(zip(t, F1, F2)), dtype=[("time", float), ("F1", float), ("F2", float)])
    res = simulate_fmu(str(fmus["DupontTwoMass"]), stop_time=0.6, output_interval=H, input=signal,
                       output=["x", "xd", "stuck", "f_n", "f_mu", "E_kin", "W_drive", "W_friction"])
    lib = simulate(dupont_two_mass(), [PiecewiseConstant(t, F1), PiecewiseConstant(t, F2)], 0.6, [0, 0], [0, 0],
                   dt_out=H, rtol=1e-8, atol=1e-10)
    rows = lib.rows_at(np.unique(lib.t))
    np.testing.assert_allclose(res["x"], lib["q"][rows, 1], atol=1e-8)
    np.testing.assert_array_equal(res["stuck"], lib["stuck"][rows])
    assert res["stuck"][0] and not res["stuck"][-1]
    # friction law and energy balance on the FMU outputs
    slip = ~res["stuck"] & (np.abs(res["xd"]) > 1e-9)
    np.testing.assert_allclose(res["f_mu"][slip], -np.sign(res["xd"][slip]) * 0.3 * np.abs(res["f_n"][slip]),
                               rtol=1e-9)
    assert np.all(np.abs(res["f_mu"][res["stuck"]]) <= 0.5 * np.abs(res["f_n"][res["stuck"]]) + 1e-12)
    balance = res["W_drive"] - res["E_kin"] + res["W_friction"]
    assert np.abs(balance).max() <= 1e-6 * max(res["W_drive"].max(), 1.0)


# (model, parameter, value, the call that returns fmi2Error, parts of its message): a value outside
# the declared min/max fails at fmi2SetReal, one the model rejects (within its declared range, or
# against another parameter) at fmi2ExitInitializationMode; one case per FMU
BAD_PARAMETERS = [
    ("DupontTwoMass", "mu_k", 0.9, "fmi2ExitInitializationMode", ["mu_k=0.9", "allowed range [0, 0.5]"]),
    ("DupontTwoMass", "m1", -1.0, "fmi2SetReal", ["m1 = -1.0", "allowed range [0.0, inf)"]),
    ("OffsetSliderCrank", "rtol", 0.5, "fmi2SetReal", ["rtol = 0.5", "allowed range [1e-14, 0.01]"]),
    ("SliderCrank", "a1", 0.0, "fmi2ExitInitializationMode", ["a1=0.0", "allowed range (0, inf)"]),
    ("SpeedController", "T_i", 0.0, "fmi2ExitInitializationMode", ["T_i=0.0", "allowed range (0, inf)"]),
    ("SingleMassFriction", "M", -2.0, "fmi2SetReal", ["M = -2.0", "allowed range [0.0, inf)"]),
    ("TwoMassFriction", "M1", 0.0, "fmi2ExitInitializationMode", ["M1=0.0", "allowed range (0, inf)"]),
    ("RSRRRLinkage", "z0", -0.2, "fmi2SetReal", ["z0 = -0.2", "allowed range [0.0, inf)"]),
    ("SteeringSystem", "static_factor", 0.5, "fmi2SetReal", ["static_factor = 0.5", "allowed range [1.0, inf)"]),
    ("SingleTrackVehicle", "u", 0.0, "fmi2ExitInitializationMode", ["u=0.0", "allowed range (0, inf)"]),
    ("BristleOscillator", "mu_s", 0.2, "fmi2ExitInitializationMode", ["mu_s=0.2", "allowed range [0.3, inf)"]),
]


def test_bad_parameter_is_an_fmi_error_with_its_name(fmus, run_isolated):
    """Every FMU: a bad parameter makes the call where it is detected return fmi2Error, with a
    message naming the parameter, its value and its allowed range, and every later call up to
    doStep too (FMPy, in a fresh process: fmu_low_level.bad_parameters)."""
    assert {case[0] for case in BAD_PARAMETERS} == set(fmus)
    cases = [[str(fmus[model]), name, value, function, parts] for model, name, value, function, parts in BAD_PARAMETERS]
    run_isolated("bad_parameters", json.dumps(cases))


def test_fmi_errors_come_from_the_call_where_they_happen(fmus, run_isolated):
    """fmi2Error, with a message naming the variable, its value and its allowed range, from the call
    where the failure happens: a parameter outside its declared range (fmi2SetReal), parameters
    the model rejects (fmi2ExitInitializationMode), a NaN or infinite input (fmi2SetReal), a
    parameter set after initialisation (fmi2SetReal), a stop time before the start time
    (fmi2SetupExperiment), a step size that is not positive (fmi2DoStep); every later doStep fails
    too, and fmi2SetFMUstate to an earlier state recovers (fmu_low_level.fmi_errors)."""
    run_isolated("fmi_errors", fmus["SliderCrank"], fmus["DupontTwoMass"])


def test_nan_input_fails_at_set_real(fmus, run_isolated):
    run_isolated("nan_input", fmus["SliderCrank"])


def test_slave_reports_an_unexpected_exception_as_a_failure():
    """An exception the slave does not expect (a bug) would reach pythonfmu, which returns fmi2Fatal
    and destroys the Python instance: the slave logs it as a failure of the call, with where it was
    raised, and fails every later step. Checked in the slave itself, on SpeedController, whose own
    do_step the checks wrap."""
    import build_fmu
    from pythonfmu.enums import Fmi2Status

    slave = build_fmu.slave_class(build_fmu.SOURCES / "SpeedController.py")(instance_name="test", resources=None)
    slave.exit_initialization_mode()
    assert slave.do_step(0.0, 0.01) is True and slave.do_step(0.01, -0.01) is False
    slave.error = None
    slave.controller.step = None  # calling it raises TypeError
    assert slave.do_step(0.01, 0.01) is False and slave.do_step(0.02, 0.01) is False
    log = [(m.status, m.msg) for m in slave.log_queue]
    assert [status for status, _ in log] == [Fmi2Status.error] * 3, log
    assert log[0][1] == "doStep at t=0.01: communicationStepSize = -0.01 is outside its allowed range (0, inf)"
    assert log[1][1].startswith("doStep at t=0.01: internal error: TypeError: 'NoneType' object is not callable "
                                "(at SpeedController.py:"), log
    assert log[2][1] == "doStep at t=0.02: not stepped, an earlier call failed: " + log[1][1]


def test_state_round_trip_gives_identical_outputs(fmus, run_isolated):
    run_isolated("state_round_trip", fmus["SliderCrank"])


def test_two_mass_fmu_agrees_with_the_planar_engine(fmus):
    """The TwoMassFriction FMU (luz/tar model) and the planar engine's stacked blocks (normal forces
    from its reaction equations) fed the same held inputs: same positions and stick flags."""
    from friction_joints.mechanisms.stacked_blocks import stacked_blocks

    t = np.arange(0.0, 2.0 + H / 2, H)
    F1, F2 = 6 * np.sin(2 * t), 20 * np.cos(1.3 * t)
    signal = np.array(list(zip(t, F1, F2)), dtype=[("time", float), ("F1", float), ("F2", float)])
    res = simulate_fmu(str(fmus["TwoMassFriction"]), stop_time=2.0, output_interval=H, input=signal,
                       output=["z1", "z2", "stuck_12", "stuck_20"])
    lib = simulate(stacked_blocks(), [PiecewiseConstant(t, F1), PiecewiseConstant(t, F2)], 2.0, [0, 0], [0, 0],
                   dt_out=H, rtol=1e-10, atol=1e-12)
    first = lib.rows_at(res["time"])
    np.testing.assert_allclose(res["z1"], lib["q"][first, 1], atol=1e-7)
    np.testing.assert_allclose(res["z2"], lib["q"][first, 0], atol=1e-7)
    np.testing.assert_array_equal(res["stuck_12"] | res["stuck_20"], lib["stuck"][first])
    assert res["stuck_20"].any() and not res["stuck_20"].all()


def test_rsrrr_fmu_agrees_with_the_library_and_balances_energy(fmus):
    """The RSRRRLinkage FMU against RSRRRSystem fed the same held inputs; its outputs close the energy
    balance, keep the loop closed and carry the joint torque n_z = tau - tau_res - t_f at joint 1."""
    from friction_joints.engine import run
    from friction_joints.spatial.load import SpeedLoad
    from friction_joints.spatial.rsrrr import RSRRR
    from friction_joints.spatial.system import RSRRRSystem

    t = np.arange(0.0, 0.3 + H / 2, H)
    tau = 8.0 + 2.0 * np.sin(5 * t)
    signal = np.array(list(zip(t, tau, 0.5 + 0 * t)), dtype=[("time", float), ("tau", float), ("tau_res", float)])
    names = ["psi[1]", "psi[4]", "psid[1]", "f_S[2]", "t_f[2]", "n_z[1]", "t_f[1]", "E_kin", "E_pot", "W_drive",
             "W_res", "W_friction", "closure"]
    res = simulate_fmu(str(fmus["RSRRRLinkage"]), stop_time=0.3, output_interval=H, input=signal,
                       start_values={"psid1_start": 4.0}, output=names)
    system = RSRRRSystem(RSRRR(), [PiecewiseConstant(t, tau), PiecewiseConstant(t, 0.5 + 0 * t)], SpeedLoad())
    lib = run(system, system.initial_state(psid11=4.0), 0.3, dt_out=H, rtol=1e-9, atol=1e-11)
    rows = lib.rows_at(res["time"])
    np.testing.assert_allclose(res["psi[1]"], lib["q"][rows, 0], atol=1e-5)
    np.testing.assert_allclose(res["psi[4]"], lib["q"][rows, 3], atol=1e-5)
    np.testing.assert_allclose(res["f_S[2]"], lib["f_S"][rows, 1], atol=1e-3 * np.abs(lib["f_S"]).max())
    E = res["E_kin"] + res["E_pot"]
    assert np.abs(E - E[0] - res["W_drive"] - res["W_friction"]).max() < 1e-4  # W_drive: net torque on link 1
    assert res["closure"].max() < 1e-6 and res["W_friction"][-1] < 0
    # the joint torque about the driving axis: tau held over the step, less the resistance and friction
    load = np.maximum(0.0, 10.0 + 5.0 * (res["psid[1]"] - 9.0))
    held = np.interp(np.maximum(res["time"] - H, 0.0), t, tau)  # the output at t_k follows the step from t_k - H
    np.testing.assert_allclose(res["n_z[1]"], held - 0.5 - load - res["t_f[1]"], atol=1e-9)
