"""Co-simulation stepping (what the FMUs call): held inputs, restarts at input changes, state."""

import numpy as np
import pytest

from friction_joints.hybrid import PiecewiseConstant
from friction_joints.mechanisms import slider_crank
from friction_joints.simulation import simulate
from friction_joints.stepping import MechanismStepper

H = 0.05


def held_torque(t):
    return 4.0 * np.sin(3.0 * t)


def run_stepper(mech, t_end, h, torque):
    stepper = MechanismStepper(mech, mech.assemble([0.0]), [0.0], [torque(0.0)], rtol=1e-8)
    rows, t = [], 0.0
    for _ in range(int(round(t_end / h))):
        rows.append(stepper.step(t, h, [torque(t)]))
        t += h
    return stepper, rows


def test_stuck_crank_restarted_by_held_inputs_matches_a_table_input():
    """The slider-crank hangs stuck at its dead centre (the slider's slip row is zero there) while
    the held torque rises step by step: each restart re-decides stiction without chattering, and
    the run equals the library fed the same piecewise-constant table."""
    mech = slider_crank()
    t_end = 0.5
    stepper, rows = run_stepper(mech, t_end, H, held_torque)
    t = np.arange(0.0, t_end, H)
    lib = simulate(mech, [PiecewiseConstant(t, held_torque(t))], t_end, mech.assemble([0.0]), [0.0], dt_out=H,
                   rtol=1e-8, atol=1e-10)
    grid = [i for i in range(len(lib.t)) if lib.t[i] > 0 and (i + 1 == len(lib.t) or lib.t[i + 1] != lib.t[i])]
    np.testing.assert_allclose([r["u"][0] for r in rows], lib["u"][grid, 0], atol=1e-7)
    stuck = [r["stuck"] for r in rows]
    assert stuck[0] and not stuck[-1]
    assert all(r["u"][0] == 0.0 for r in rows if r["stuck"])  # no creep while held
    kinds = [k for _, k in lib.events]
    assert kinds.count("breakaway") == 1 and not any("reversal" in k for k in kinds)


@pytest.mark.parametrize("h_small", [0.005])
def test_step_size_does_not_matter_for_a_constant_input(h_small):
    mech = slider_crank()
    outputs = [run_stepper(mech, 0.2, h, lambda t: 3.0)[1][-1] for h in (h_small, H)]
    np.testing.assert_allclose(outputs[0]["q"], outputs[1]["q"], atol=1e-7)
    np.testing.assert_allclose(outputs[0]["u"], outputs[1]["u"], atol=1e-6)
    assert outputs[0]["W_drive"] > 0 and outputs[0]["W_friction"] < 0


def test_state_round_trip_repeats_the_future():
    mech = slider_crank()
    stepper, _ = run_stepper(mech, 0.25, H, held_torque)
    snapshot, t0 = stepper.get_state(), stepper.time
    runs = []
    for _ in range(2):
        stepper.set_state(snapshot)
        t = t0
        for _ in range(3):
            rec = stepper.step(t, H, [held_torque(t)])
            t += H
        runs.append((rec["q"].copy(), rec["u"].copy(), rec["W_friction"]))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    assert runs[0][2] == runs[1][2] and runs[0][1][0] != 0.0


def test_bad_step_requests_name_the_problem():
    mech = slider_crank()
    stepper = MechanismStepper(mech, mech.assemble([0.0]), [0.0], [0.0])
    with pytest.raises(ValueError, match="step size"):
        stepper.step(0.0, -1.0, [0.0])
    with pytest.raises(ValueError, match="communication point"):
        stepper.step(0.3, 0.1, [0.0])
    with pytest.raises(ValueError, match="finite"):
        stepper.step(0.0, 0.1, [np.nan])
    with pytest.raises(ValueError, match="rtol"):
        MechanismStepper(mech, mech.assemble([0.0]), [0.0], [0.0], rtol=2.0)
