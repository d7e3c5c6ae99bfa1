"""The compiled engine against the Python engine (its reference) on the seed runs: the same events
(kinds in order, times to 1e-9 s) and the same recorded states (to 1e-8 of each quantity's range).
The kernels themselves are compared on random states in test_compiled_<model>.py."""

import numpy as np
import pytest

from friction_joints.engine import run
from friction_joints.hybrid import PiecewiseConstant, Sine
from friction_joints.lumped import SingleMassFriction, SingleMassParameters, TwoMassFriction, TwoMassParameters
from friction_joints.mechanisms import dupont_two_mass, offset_slider_crank, slider_crank
from friction_joints.simulation import simulate
from friction_joints.spatial.rsrrr import RSRRR
from friction_joints.spatial.system import RSRRRSystem, paper_drive, paper_load
from friction_joints.vehicle import SteeringParameters, SteeringSystem

EVENT_TIME = 1e-9  # s
STATE = 1e-8  # of each recorded quantity's range over the run


def both_engines(make_run):
    return make_run("python"), make_run("compiled")


def assert_same_run(python, compiled, keys, name):
    assert [k for _, k in compiled.events] == [k for _, k in python.events], f"{name}: event kinds differ"
    np.testing.assert_allclose(compiled.event_times(), python.event_times(), rtol=0, atol=EVENT_TIME,
                               err_msg=f"{name}: event times")
    np.testing.assert_allclose(compiled.t, python.t, rtol=0, atol=EVENT_TIME, err_msg=f"{name}: recorded times "
                               "(output grid and events)")
    for key in keys:
        a, b = python[key].astype(float), compiled[key].astype(float)
        scale = max(np.ptp(a), np.abs(a).max(), 1e-300)
        np.testing.assert_allclose(b, a, rtol=0, atol=STATE * scale, err_msg=f"{name}: {key}")


def test_dupont_fig4c():
    mech = dupont_two_mass()
    inputs = [Sine(7.0, 2.4), Sine(50.0, 0.8, np.pi / 2)]
    python, compiled = both_engines(lambda engine: simulate(mech, inputs, 10.0, [0.0, 0.0], [0.0, 0.0], dt_out=0.02,
                                                            engine=engine))
    assert len(python.events) > 5
    assert_same_run(python, compiled, ("q", "u", "f", "f_mu", "stuck", "W_drive", "W_friction"), "Dupont")


@pytest.mark.parametrize("factory, tau, t_end, q1", [
    (slider_crank, Sine(4.0, 3.0), 3.0, 0.0),  # Example 2 with stick, breakaway and reversals
    (offset_slider_crank, 60.0, 0.3, 0.0),  # Example 1 from rest
    (slider_crank, PiecewiseConstant([0.0, 0.5], [0.0, 5.0]), 0.8, 0.0),  # an input jump breaks stiction
])
def test_slider_cranks(factory, tau, t_end, q1):
    mech = factory()
    python, compiled = both_engines(lambda engine: simulate(mech, [tau], t_end, mech.assemble([q1]), [0.0],
                                                            dt_out=0.02, engine=engine))
    assert_same_run(python, compiled, ("q", "u", "qdd", "f", "f_mu", "sd", "stuck", "E_kin", "W_drive",
                                       "W_friction"), factory.__name__)


def test_single_mass_lumped():
    system = lambda: SingleMassFriction(SingleMassParameters(), [Sine(5.0, 2.0)])  # noqa: E731
    python, compiled = both_engines(lambda engine: run(system(), system().initial_state(0.0, 0.0), 5.0,
                                                       dt_out=0.01, engine=engine))
    assert len(python.events) > 3
    assert_same_run(python, compiled, ("z", "zd", "zdd", "f", "stuck", "W_drive", "W_friction"), "single mass")


def test_two_mass_lumped():
    inputs = [Sine(6.0, 2.0), Sine(20.0, 1.3, np.pi / 2)]
    system = lambda: TwoMassFriction(TwoMassParameters(), inputs)  # noqa: E731
    python, compiled = both_engines(lambda engine: run(system(), system().initial_state((0.0, 0.0), (0.0, 0.0)),
                                                       5.0, dt_out=0.01, engine=engine))
    assert len(python.events) > 3
    assert_same_run(python, compiled, ("z", "zd", "zdd", "f", "stuck", "W_drive", "W_friction"), "two masses")


def test_steering_system():
    # left and right loads differ: with symmetric inputs both king-pins stop at one instant, where the
    # order of two simultaneous stops decides the mode (seen to differ between engines at rounding level);
    # the aligning moments take the rack to its right end stop from 1.8 s on, whose stiffness (1e7 N/m) makes
    # the rack's holding forces sensitive to its position: rtol 1e-11 (at 1e-10 they differ by 2.5e-8 of
    # their range, beyond STATE)
    inputs = [Sine(3.0, np.pi), -20.0, -15.0, 3500.0, 3300.0]
    system = lambda: SteeringSystem(SteeringParameters(), inputs)  # noqa: E731
    python, compiled = both_engines(lambda engine: run(system(), system().initial_state(), 2.0, dt_out=0.01,
                                                       rtol=1e-11, engine=engine))
    assert len(python.events) > 3
    # states and works; not the accelerations: the stiff gear mesh (k_g r_p^2 / J_p about 3e4 s^-2)
    # turns the engines' 1e-10 state differences into 1e-6 of qdd's range
    assert_same_run(python, compiled, ("q", "qd", "friction", "stuck", "W_friction", "W_driver"), "steering")


@pytest.mark.parametrize("form, stiction", [("cut", False), ("minimal", True)])
def test_rsrrr_linkage(form, stiction):
    system = lambda: RSRRRSystem(RSRRR(), [paper_drive(), 0.0], load=paper_load(), form=form,  # noqa: E731
                                 stiction=stiction)
    python, compiled = both_engines(lambda engine: run(system(), system().initial_state(), 0.3, dt_out=0.01,
                                                       rtol=1e-10, engine=engine))
    assert_same_run(python, compiled, ("q", "qd", "qdd", "f_S", "t_f", "E_kin", "W_drive", "W_friction"), f"RSRRR {form}")


def test_steering_system_at_its_end_stops():
    """A driver torque that takes the rack to both end stops and back (no aligning moment): the contacts,
    releases and clears of the stops and the stick-slip around them are the same events on both engines,
    and so are the stop's force and the works."""
    inputs = [Sine(6.0, 2.5), 0.0, 0.0, 3500.0, 3300.0]
    system = lambda: SteeringSystem(SteeringParameters(), inputs)  # noqa: E731
    python, compiled = both_engines(lambda engine: run(system(), system().initial_state(), 4.0, dt_out=0.01,
                                                       rtol=1e-11, engine=engine))
    kinds = " ".join(k for _, k in python.events)
    for kind in ("contact_stop_left", "release_stop_left", "clear_stop_left", "contact_stop_right",
                 "release_stop_right", "clear_stop_right"):
        assert kind in kinds
    assert_same_run(python, compiled, ("q", "qd", "friction", "stuck", "F_stop", "W_friction", "W_driver",
                                       "W_damping"), "steering at its end stops")
