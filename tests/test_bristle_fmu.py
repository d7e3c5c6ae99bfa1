"""The BristleOscillator FMU: agrees with the library for every friction law, and refuses a law number
outside 1-4 with fmi2Error from fmi2SetInteger, naming the parameter and its range. The mechanism FMUs
with a bristle law (friction_model 1-4: SliderCrank, OffsetSliderCrank, RSRRRLinkage, SteeringSystem)
agree with the library's bristle systems."""

import numpy as np
import pytest
from fmpy import simulate_fmu
from fmpy.fmi1 import FMICallException

import build_fmu
from friction_joints.engine import run
from friction_joints.fmi.regression import input_table
from friction_joints.friction import make_law
from friction_joints.hybrid import PiecewiseConstant
from friction_joints.lumped import BristleOscillatorParameters, simulate_bristle

STOP, H = 1.0, 0.01


@pytest.fixture
def fmu(fmus):
    return fmus["BristleOscillator"]


def inputs(name="BristleOscillator", stop=STOP):
    """The input table of the FMU ``name``'s default experiment up to stop (s), sampled every H."""
    cls = build_fmu.slave_class(build_fmu.SOURCES / f"{name}.py")
    return input_table(stop, H, cls.experiment.inputs)


def held(table, names):
    """The inputs names of the table as the library sees an FMU's inputs held over each step."""
    return [PiecewiseConstant(table["time"], table[name]) for name in names]


@pytest.mark.parametrize("model", [1, 2, 3, 4])
def test_fmu_agrees_with_the_library(fmu, model):
    table = inputs()
    res = simulate_fmu(str(fmu), stop_time=STOP, output_interval=H, input=table, start_values={"model": model},
                       output=["x", "v", "z", "F_f", "W_friction"])
    law = make_law(model, sigma0=1e5, sigma1=5.0, sigma2=0.0, mu_c=0.3, mu_s=0.4, v_s=1e-3, delta=2.0, z_ba_ratio=0.7)
    lib = simulate_bristle(BristleOscillatorParameters(law, m=1.0, k=100.0), held(table, ("x_d", "v_belt", "F_n")),
                           STOP, dt_out=H, rtol=1e-8, atol=1e-10)  # the FMU's default rtol; its atol = rtol / 100
    rows = lib.rows_at(res["time"])
    # the states (F_f follows the held F_n at once, and the two runs round the input jumps' times apart)
    for name, key in (("x", "x"), ("v", "v"), ("z", "z"), ("W_friction", "W_friction")):
        scale = np.ptp(lib[key][rows])
        np.testing.assert_allclose(res[name], lib[key][rows], atol=1e-3 * scale, err_msg=f"model {model}: {name}")
    assert res["W_friction"][-1] < 0 and res["W_friction"].max() <= 1e-12  # the bristle may return what it stored


def test_law_number_outside_its_range_is_an_fmi_error_with_its_name(fmu):
    messages = []

    def logger(env, instance, status, category, message):
        messages.append(message.decode())

    with pytest.raises(FMICallException, match="fmi2SetInteger"):
        simulate_fmu(str(fmu), stop_time=0.1, output_interval=H, start_values={"model": 5}, logger=logger)
    assert any("model = 5 is outside its allowed range [1, 4]" in m for m in messages), messages


def test_state_round_trip_continues_exactly(fmu, tmp_path):
    """fmi2GetFMUstate / fmi2SetFMUstate: two continuations from one saved state give identical outputs
    (the elasto-plastic law, N varying)."""
    from fmpy import extract, read_model_description
    from fmpy.fmi2 import FMU2Slave

    md = read_model_description(str(fmu))
    vr = {v.name: v.valueReference for v in md.modelVariables}
    slave = FMU2Slave(guid=md.guid, unzipDirectory=extract(str(fmu), str(tmp_path)),
                      modelIdentifier=md.coSimulation.modelIdentifier, instanceName="state")
    slave.instantiate()
    slave.setupExperiment(startTime=0.0)
    slave.enterInitializationMode()
    slave.setInteger([vr["model"]], [3])
    slave.exitInitializationMode()

    def steps(t, n):
        for _ in range(n):
            slave.setReal([vr["F_n"]], [10.0 * (1.0 + 0.3 * np.sin(3.0 * t))])
            slave.doStep(t, 0.05)
            t += 0.05
        return t

    t = steps(0.0, 6)
    state = slave.getFMUstate()
    outputs = [vr[n] for n in ("x", "v", "z", "F_f", "W_friction")]
    runs = []
    for _ in range(2):
        slave.setFMUstate(state)
        steps(t, 4)
        runs.append(slave.getReal(outputs))
    assert runs[0] == runs[1] and runs[0][0] != 0.0, runs
    slave.freeFMUstate(state)
    slave.terminate()
    slave.freeInstance()


@pytest.fixture
def crank_fmus(fmus):
    """The folder of the built FMUs (SliderCrank, OffsetSliderCrank among them)."""
    return fmus["SliderCrank"].parent


@pytest.mark.parametrize("name, model, mechanism", [("SliderCrank", 2, "slider_crank"),
                                                    ("OffsetSliderCrank", 3, "offset_slider_crank")])
def test_crank_fmus_with_bristle_friction_agree_with_the_library(crank_fmus, name, model, mechanism):
    """SliderCrank with LuGre (friction_model 2) and OffsetSliderCrank with the elasto-plastic law (3) in
    all their joints, the FMUs' bristle defaults, under their default experiments' torque held per step:
    the FMU's outputs equal planar.BristleSystem fed the same held torque, on the compiled engine (RODAS) as
    the FMU runs it."""
    from friction_joints import mechanisms
    from friction_joints.planar import BristleSystem, contact_laws

    stop = 0.5
    table = inputs(name, stop)
    res = simulate_fmu(str(crank_fmus / f"{name}.fmu"), stop_time=stop, output_interval=H, input=table,
                       start_values={"friction_model": model}, output=["q[1]", "u", "W_friction", "stuck"])
    mech = getattr(mechanisms, mechanism)()
    system = BristleSystem(mech, contact_laws(mech, model, sigma0=1e4, sigma1=5.0, sigma2=0.0, v_s=3e-3),
                           held(table, ("tau",)))
    lib = run(system, system.initial_state(mech.assemble([0.0]), [0.0]), stop, dt_out=H, rtol=1e-8, atol=1e-10,
              engine="compiled")  # the FMU's default rtol; its atol = rtol / 100
    rows = lib.rows_at(res["time"])
    # the states (the reactions follow the held torque at once, and the two runs round the input jumps' times apart)
    for output, got, want in (("q[1]", res["q[1]"], lib["q"][rows, 0]), ("u", res["u"], lib["u"][rows, 0]),
                              ("W_friction", res["W_friction"], lib["W_friction"][rows])):
        np.testing.assert_allclose(got, want, atol=1e-6 * np.ptp(want), err_msg=output)
    assert np.ptp(res["u"]) > 0.1 and not res["stuck"].any()


@pytest.mark.parametrize("engine, family", [("auto", "planar_bristle"), ("python", None)])
def test_crank_slave_runs_bristle_friction_on_the_environments_engine(monkeypatch, engine, family):
    """The SliderCrank slave with friction_model 2 runs planar.BristleSystem on the engine
    FRICTION_JOINTS_ENGINE names, as with the exact model (the compiled family "planar_bristle" by default),
    and logs which."""
    monkeypatch.setenv("FRICTION_JOINTS_ENGINE", engine)
    slave = build_fmu.slave_class(build_fmu.SOURCES / "SliderCrank.py")(instance_name="test", resources=None)
    slave.values["friction_model"] = 2
    slave.exit_initialization_mode()
    assert slave.do_step(0.0, 0.01) is True
    stepper = slave.stepper
    assert type(stepper.system).__name__ == "BristleSystem"
    assert stepper.integrator.engine == ("compiled" if family else "python")
    log = [m.msg for m in slave.log_queue]
    if family:
        assert stepper.system.compiled().family_name == family and log == ["compiled engine (C)"], log
    else:
        assert log == ["bristle friction runs on the Python engine with LSODA (it has no compiled form, or the "
                       "Python engine was chosen)"], log


def test_crank_friction_model_outside_its_range_is_an_fmi_error_with_its_name(crank_fmus):
    messages = []

    def logger(env, instance, status, category, message):
        messages.append(message.decode())

    with pytest.raises(FMICallException, match="fmi2SetInteger"):
        simulate_fmu(str(crank_fmus / "SliderCrank.fmu"), stop_time=0.1, output_interval=H,
                     start_values={"friction_model": 5}, logger=logger)
    assert any("friction_model = 5 is outside its allowed range [0, 4]" in m for m in messages), messages
    messages.clear()  # a bristle parameter the law refuses: exitInitializationMode fails naming it
    with pytest.raises(FMICallException, match="fmi2ExitInitializationMode"):
        simulate_fmu(str(crank_fmus / "SliderCrank.fmu"), stop_time=0.1, output_interval=H,
                     start_values={"friction_model": 2, "sigma0": 0.0}, logger=logger)
    assert any("sigma0=0.0 is outside the allowed range (0, inf)" in m for m in messages), messages


@pytest.mark.slow
def test_rsrrr_fmu_with_lugre_agrees_with_the_library(fmus):
    """RSRRRLinkage with LuGre on every journal surface (friction_model 2, the FMU's bristle defaults) under
    its default experiment's inputs held per step, from rest (the bristles hold the linkage against
    gravity, then it breaks away), rtol 1e-10: the FMU's outputs (on the compiled engine, RODAS) equal
    spatial.BristleRSRRRSystem fed the same held inputs on the compiled engine to 1e-8 of each signal's range
    (test_compiled_spatial_bristle compares the engines)."""
    from friction_joints.spatial.bristle import BristleRSRRRSystem, surface_laws
    from friction_joints.spatial.load import SpeedLoad
    from friction_joints.spatial.rsrrr import RSRRR

    stop = 0.2
    table = inputs("RSRRRLinkage", stop)
    names = ["psi[1]", "psi[3]", "psid[1]", "psid[4]", "t_f[2]", "f_S[2]", "W_friction", "stuck"]
    messages = []
    res = simulate_fmu(str(fmus["RSRRRLinkage"]), stop_time=stop, output_interval=H, input=table,
                       start_values={"friction_model": 2, "rtol": 1e-10}, output=names, debug_logging=True,
                       logger=lambda env, *args: messages.append(args[-1].decode()))
    assert any("compiled engine (C)" in m for m in messages), messages
    mech = RSRRR()
    laws = surface_laws(mech, 2, sigma0=1e4, sigma1=5.0, sigma2=0.0, v_s=3e-3)
    system = BristleRSRRRSystem(mech, laws, held(table, ("tau", "tau_res")), SpeedLoad())
    lib = run(system, system.initial_state(), stop, dt_out=H, rtol=1e-10, atol=1e-12,
              engine="compiled")  # the FMU's atol = rtol / 100
    rows = lib.rows_at(res["time"])
    for output, want in (("psi[1]", lib["q"][rows, 0]), ("psi[3]", lib["q"][rows, 2]), ("psid[1]", lib["qd"][rows, 0]),
                         ("psid[4]", lib["qd"][rows, 3]), ("t_f[2]", lib["t_f"][rows, 1]),
                         ("f_S[2]", lib["f_S"][rows, 1]), ("W_friction", lib["W_friction"][rows])):
        np.testing.assert_allclose(res[output], want, rtol=0, atol=1e-8 * np.ptp(want), err_msg=output)
    assert np.ptp(res["psid[1]"]) > 0.1 and not res["stuck"].any()


def test_rsrrr_fmu_refuses_stiction_with_a_bristle_law(fmus):
    messages = []

    def logger(env, instance, status, category, message):
        messages.append(message.decode())

    with pytest.raises(FMICallException, match="fmi2ExitInitializationMode"):
        simulate_fmu(str(fmus["RSRRRLinkage"]), stop_time=0.1, output_interval=H, logger=logger,
                     start_values={"friction_model": 3, "stiction": True})
    assert any("stiction=True is outside its allowed range with friction_model=3" in m for m in messages), messages


@pytest.mark.slow
def test_steering_fmu_with_lugre_equals_the_library(fmus):
    """SteeringSystem with friction_model 2 (LuGre in its four elements, the FMU's bristle defaults) under its
    default experiment's inputs held per step, rtol 1e-10: the FMU's outputs (on the compiled engine, RODAS)
    equal vehicle.SteeringBristle fed the same held inputs on the compiled engine to 1e-8 of each signal's range
    (test_compiled_steering_bristle compares the engines)."""
    from friction_joints.vehicle import SteeringBristle, SteeringParameters, element_laws

    stop, outputs = 0.6, ("delta_sw", "theta_pinion", "x_rack", "delta_left", "delta_right", "F_gear",
                          "T_f_kingpin_left", "F_f_rack", "W_friction")
    table = inputs("SteeringSystem", stop)
    messages = []
    res = simulate_fmu(str(fmus["SteeringSystem"]), stop_time=stop, output_interval=H, input=table,
                       start_values={"friction_model": 2, "rtol": 1e-10}, output=[*outputs, "stuck_rack"],
                       debug_logging=True, logger=lambda env, *args: messages.append(args[-1].decode()))
    assert any("compiled engine (C)" in m for m in messages), messages
    p = SteeringParameters()
    system = SteeringBristle(p, element_laws(p, 2, sigma0=1e4, sigma1=5.0, sigma2=0.0, v_s=3e-3),
                             held(table, ("tau_sw", "M_z_left", "M_z_right", "F_z_left", "F_z_right")))
    lib = run(system, system.initial_state(), stop, dt_out=H, rtol=1e-10, atol=1e-12,
              engine="compiled")  # the FMU's atol = rtol / 100
    rows = lib.rows_at(res["time"])
    q, f = lib["q"][rows], lib["friction"][rows]
    for output, want in zip(outputs, (q[:, 0], q[:, 1], q[:, 2], q[:, 3], q[:, 4], lib["F_g"][rows], f[:, 2], f[:, 1],
                                      lib["W_friction"][rows])):
        np.testing.assert_allclose(res[output], want, rtol=0, atol=1e-8 * np.ptp(want), err_msg=output)
    assert np.ptp(res["delta_sw"]) > 0.05 and not res["stuck_rack"].any()


def test_steering_fmu_refuses_a_bristle_parameter_naming_it(fmus):
    """friction_model 3 with sigma0 = 0 (within the variable's range, refused by the law): exitInitializationMode
    fails with the law's message naming sigma0 and its range."""
    messages = []

    def logger(env, instance, status, category, message):
        messages.append(message.decode())

    with pytest.raises(FMICallException, match="fmi2ExitInitializationMode"):
        simulate_fmu(str(fmus["SteeringSystem"]), stop_time=0.1, output_interval=H, start_values={"friction_model": 3,
                     "sigma0": 0.0}, logger=logger)
    assert any("sigma0=0.0 is outside the allowed range (0, inf)" in m for m in messages), messages
