"""The C engine under sanitizers (tests/native_build.py): whole simulations with events (a two-mass
stick-slip run, a steering run, an RSRRR run from the native FMU's assembly: its packer and its loop
closed in C; the RSRRR with a clearance joint and a flexible link, impacts and separations; the bristle oscillator,
the two blocks with bristle friction, the slider crank with bristle friction, the steering with LuGre elements on its end stops and the RSRRR with LuGre
journal surfaces, stiff families, in 1 ms steps) on a build of every source with
``sanitizers()`` (the address and undefined-behaviour sanitizers where Python can run the former, else
the latter), DOP853, RK45 (the two-mass run also in 1 ms steps), RODAS and their event location
included, agree with the same runs on the
installed library (the tolerances of test_compiled_engine.py). A sanitizer's report fails a run (shown here on a faulty library), and
FRICTION_JOINTS_ENGINE_LIBRARY chooses the library a process runs on."""

import math
import pickle

import numpy as np
import pytest

from friction_joints import native
from friction_joints.engine import make_integrator, run
from friction_joints.hybrid import Sine
from friction_joints.friction import make_law
from friction_joints.lumped import (BristleOscillator, BristleOscillatorParameters, TwoMassBristle, TwoMassBristleParameters,
                                    TwoMassFriction, TwoMassParameters)
from friction_joints.mechanisms import slider_crank
from friction_joints.planar import BristleSystem, contact_laws
from friction_joints.spatial.clearance_rsrrr import ClearanceParameters, ClearanceRSRRR
from friction_joints.spatial.clearance_system import ClearanceRSRRRSystem
from friction_joints.spatial.bristle import BristleRSRRRSystem, surface_laws
from friction_joints.spatial.rsrrr import RSRRR
from friction_joints.spatial.system import RSRRRSystem
from friction_joints.stepping import MechanismStepper
from friction_joints.vehicle import SteeringBristle, SteeringParameters, SteeringSystem, element_laws

import build_fmu

from native_build import ADDRESS, UNDEFINED, run_against, sanitized_library
from test_compiled_engine import STATE, assert_same_run

FAULTY = """
#include <stdint.h>
int fj_probe(int i) { return i + 1; }  /* overflows at INT_MAX */
void fj_fill(double *out, int64_t n) { for (int64_t k = 0; k <= n; k++) out[k] = 1.0; }  /* writes out[n] */
"""
FILL = """
import ctypes, sys
import numpy as np
fill = ctypes.CDLL(sys.argv[1]).fj_fill
fill.argtypes = [ctypes.c_void_p, ctypes.c_int64]
out = np.zeros(1000)
fill(out.ctypes.data, out.size - {past})
assert np.all(out[out.size - {past}:] == 1.0)
"""

#: the parameters of the native FMU RSRRRLinkage (their defaults)
LINKAGE = {v.name: v.start for v in build_fmu.slave_class(build_fmu.SOURCES / "RSRRRLinkage.py").variables
           if v.causality == "parameter"}
TWO_MASSES = (lambda: TwoMassFriction(TwoMassParameters(), [Sine(6.0, 2.0), Sine(20.0, 1.3, np.pi / 2)]),
              lambda system: system.initial_state((0.0, 0.0), (0.0, 0.0)))
TWO_MASS_KEYS = ("z", "zd", "zdd", "f", "stuck", "W_drive", "W_friction")
RUNS = {  # name: (system, its initial state, t_end (s), the recorded quantities compared, step (s): 0 for one
    # run, else advanced step by step, each step recorded at its end (RK45 segments; RODAS for the stiff family)
    "two masses": (*TWO_MASSES, 5.0, TWO_MASS_KEYS, 0.0),
    "two masses, 1 ms steps": (*TWO_MASSES, 2.0, TWO_MASS_KEYS, 1e-3),
    "steering": (lambda: SteeringSystem(SteeringParameters(), [Sine(3.0, np.pi), -20.0, -15.0, 3500.0, 3300.0]),
                 lambda system: system.initial_state(), 2.0,
                 ("q", "qd", "friction", "stuck", "W_friction", "W_driver"), 0.0),
    "rsrrr": (lambda: RSRRRSystem(RSRRR(), [Sine(2.0, 8.0), 0.0], stiction=True),
              lambda system: native.Assembly("RSRRRLinkage")(dict(LINKAGE, load_c=0.0, stiction=True))[2], 3.0,
              ("q", "qd", "t_f", "stuck", "W_friction"), 0.0),
    "bristle, 1 ms steps": (lambda: BristleOscillator(BristleOscillatorParameters(make_law(
        3, sigma0=1e5, sigma1=5.0, sigma2=0.0, mu_c=0.3, mu_s=0.4, v_s=1e-3, delta=2.0, z_ba_ratio=0.7), k=100.0),
        [0.0, 0.1, Sine(3.0, 3.0, 0.0, 10.0)]), lambda system: system.initial_state(), 0.5,
        ("x", "v", "z", "F", "W_friction"), 1e-3),
    "two masses bristle, 1 ms steps": (lambda: TwoMassBristle(TwoMassBristleParameters(*(make_law(
        model, sigma0=1e5, sigma1=20.0, sigma2=0.1, mu_c=0.2, mu_s=0.3, v_s=1e-3, delta=2.0, z_ba_ratio=0.7) for model in (2, 4)),
        9.81, 29.43), [Sine(6.0, 2.0), Sine(20.0, 1.3, np.pi / 2)]), lambda system: system.initial_state(), 0.3,
        ("z1", "zd2", "z12", "F20", "W_friction"), 1e-3),
    "planar bristle, 1 ms steps": (lambda: BristleSystem(  # the slider crank with LuGre in every joint
        slider_crank(), contact_laws(slider_crank(), 2, sigma0=1e4, sigma1=5.0, v_s=1e-3), [Sine(4.0, 3.0)]),
        lambda system: system.initial_state(system.mech.assemble([0.0]), [0.0]), 0.2,
        ("q", "u", "z", "f", "W_friction"), 1e-3),
    "steering bristle, 1 ms steps": (lambda: SteeringBristle(SteeringParameters(rack_travel=3e-4), element_laws(
        SteeringParameters(rack_travel=3e-4), 2, sigma0=1e4, sigma1=5.0, sigma2=[0.01, 20.0, 0.1, 0.1]),
        [Sine(3.0, np.pi), -20.0, -15.0, 3500.0, 3300.0]), lambda system: system.initial_state(), 0.3,
        ("q", "qd", "friction", "z", "W_friction", "F_stop"), 1e-3),
    "rsrrr clearance and flexible link, 1 ms steps": (lambda: ClearanceRSRRRSystem(ClearanceRSRRR(
        clearance=ClearanceParameters(clearance=1e-4, joint=2, n_rfe=1, flexible=3, E=2e9, G=2e9 / 2.6)), [5.0, 0.0]),
        lambda system: system.initial_state(psid11=3.0, seated=False), 0.006,
        ("q_all", "qd_all", "t_f", "F_contact", "E_strain", "W_dissipated"), 1e-3),
    "spatial bristle, 1 ms steps": (lambda: BristleRSRRRSystem(  # the RSRRR with LuGre on every journal surface
        RSRRR(), surface_laws(RSRRR(), 2, sigma0=1e4, sigma1=1.0, v_s=1e-3), [Sine(2.0, 8.0), 0.0]),
        lambda system: system.initial_state(psid11=3.0), 0.1, ("q", "qd", "t_f", "z", "W_friction"), 1e-3),
}
NO_EVENTS = ("bristle, 1 ms steps", "two masses bristle, 1 ms steps", "planar bristle, 1 ms steps", "steering bristle, 1 ms steps",
             "spatial bristle, 1 ms steps")  # one smooth mode
SIMULATIONS = """
import pickle, sys
from friction_joints.native import library
from test_sanitized_engine import simulations
assert library() is library(sys.argv[1])
with open(sys.argv[2], "wb") as file:
    pickle.dump(simulations(), file)
"""


def simulations() -> dict:
    """{name: Results} of RUNS on the compiled engine, whose library is this process's default."""
    results = {}
    for name, (make, initial_state, t_end, _, step) in RUNS.items():
        system = make()
        assert system.compiled().family.lib is native.library()
        if step == 0.0:
            results[name] = run(system, initial_state(system), t_end, dt_out=0.01, engine="compiled")
            continue
        integrator = make_integrator(system, 0.0, initial_state(system), engine="compiled")
        for k in range(1, round(t_end / step) + 1):
            integrator.advance(k * step, [k * step])
        results[name] = integrator.results
    return results


def test_simulations_under_sanitizers(tmp_path, sanitized_engine):
    run_against(sanitized_engine, SIMULATIONS, args=[tmp_path / "runs.pickle"])
    sanitized = pickle.loads((tmp_path / "runs.pickle").read_bytes())
    installed = simulations()
    for name, (*_, keys, _) in RUNS.items():
        if name not in NO_EVENTS:
            assert len(installed[name].events) > 3, f"{name}: too few events to exercise their location"
        assert_same_run(installed[name], sanitized[name], keys, name)


FMU_STEPS = """
import pickle, sys
from friction_joints.native import library
from test_sanitized_engine import fmu_steps
assert library() is library(sys.argv[1])
with open(sys.argv[2], "wb") as file:
    pickle.dump(fmu_steps(), file)
"""


def crank_stepper() -> MechanismStepper:
    """The slider crank's stepper on the compiled engine, from rest in its hanging equilibrium."""
    mechanism = slider_crank()
    return MechanismStepper(mechanism, mechanism.assemble([0.0]), [0.0], [0.0], engine="compiled")


def fmu_steps() -> np.ndarray:
    """The record rows (300, n_record) of the slider crank stepped as its FMU steps it over 0.3 s from rest
    (``Stepper.step_record``: one call of the engine per 1 ms step, fj_instance_step_forms), the torque
    4 sin(3 t) N.m sampled at each communication point and on the line of its derivative every other step."""
    stepper = crank_stepper()
    rows = []
    for k in range(300):
        t = k * 1e-3
        rates = [12.0 * math.cos(3.0 * t)] if k % 2 else None
        rows.append(stepper.step_record(t, 1e-3, [4.0 * math.sin(3.0 * t)], rates).copy())
    return np.array(rows)


def test_fmu_steps_under_sanitizers(tmp_path, sanitized_engine):
    run_against(sanitized_engine, FMU_STEPS, args=[tmp_path / "steps.pickle"])
    sanitized, installed = pickle.loads((tmp_path / "steps.pickle").read_bytes()), fmu_steps()
    decode = crank_stepper().system.decode_record
    stuck = [bool(decode(row.copy())["stuck"]) for row in (installed[0], installed[-1])]
    assert stuck == [True, False]  # stick-slip events inside: the crank broke away
    scale = np.maximum(np.ptp(installed, axis=0), np.abs(installed).max(axis=0))  # each recorded quantity's
    assert np.all(np.abs(sanitized - installed) <= STATE * scale)


def test_undefined_behaviour_fails_the_run(tmp_path):
    (tmp_path / "faulty.c").write_text(FAULTY)
    path = sanitized_library(tmp_path, UNDEFINED, [tmp_path / "faulty.c"])
    code = "import ctypes, sys; assert ctypes.CDLL(sys.argv[1]).fj_probe({}) == {}"
    run_against(path, code.format(1, 2))
    with pytest.raises(AssertionError, match="signed integer overflow"):
        run_against(path, code.format(2**31 - 1, -2**31))


def test_an_out_of_bounds_write_fails_the_run(tmp_path):
    """Writing one past a numpy array (as a kernel writing beyond ``out`` would) fails an address-
    sanitized run."""
    (tmp_path / "faulty.c").write_text(FAULTY)
    path = sanitized_library(tmp_path, ADDRESS + UNDEFINED, [tmp_path / "faulty.c"])
    run_against(path, FILL.format(past=1))
    with pytest.raises(AssertionError, match="heap-buffer-overflow"):
        run_against(path, FILL.format(past=0))


def test_a_compiler_without_the_sanitizer_skips(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", "false")  # a compiler that fails every build
    with pytest.raises(pytest.skip.Exception, match="cannot build with -fsanitize=undefined"):
        sanitized_library(tmp_path)


def test_the_library_variable(tmp_path, monkeypatch):
    monkeypatch.delenv(native.LIBRARY_VARIABLE, raising=False)
    assert native.default_library_path().parent == native.PACKAGE_DIR
    monkeypatch.setenv(native.LIBRARY_VARIABLE, str(tmp_path / "missing.so"))
    with pytest.raises(RuntimeError, match="names no file"):
        native.default_library_path()
    (tmp_path / "engine.so").touch()
    monkeypatch.setenv(native.LIBRARY_VARIABLE, str(tmp_path / "engine.so"))
    assert native.default_library_path() == (tmp_path / "engine.so").resolve()
