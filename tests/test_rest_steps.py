"""Steps at rest under held inputs (rk_driver.c): when f(t, y) and the first stage are zero, the C engine's
explicit pairs take the later stages, y_new and f_new from the first stage instead of evaluating them (the
right-hand sides do not depend on t but through the inputs). DupontTwoMass held at rest, then driven into
slip: a step at rest costs 2 right-hand sides (f at the start, which each communication step evaluates, and
the first stage), a step in slip its pair's, and the run is the Python engine's (the reference, which
evaluates every stage) to 1e-8 of each output's range, its events to 1e-9 s."""

import math

import numpy as np
import pytest

from friction_joints.mechanisms import dupont_two_mass
from friction_joints.stepping import MechanismStepper

H = 0.002  # s, the communication step
REST, SLIP = 40, 60  # steps held at rest, then driven


def force(i):
    """(F1, F2) in N held over step i: none at rest, then a swing that slips."""
    t = i * H
    return [0.0, 0.0] if i < REST else [30.0 * math.sin(8.0 * t), 60.0 * math.cos(3.0 * t)]


def run(engine):
    """(outputs of each step, event times, right-hand sides of each step: compiled only)."""
    mech = dupont_two_mass()
    stepper = MechanismStepper(mech, [0.0, 0.0], [0.0, 0.0], force(0), rtol=1e-8, engine=engine)
    outputs, events, calls = [], [], []
    for i in range(REST + SLIP):
        before = stepper.integrator.rhs_calls if engine == "compiled" else 0
        stepper.step(i * H, H, force(i))
        if engine == "compiled":
            calls.append(stepper.integrator.rhs_calls - before)
        events += [t for t, _ in stepper.integrator.results.events]
        outputs.append({k: np.atleast_1d(np.asarray(v, float)) for k, v in stepper.outputs.items()})
    return outputs, np.array(events), calls


@pytest.fixture(scope="module")
def runs():
    return run("compiled"), run("python")


def test_a_step_at_rest_takes_two_right_hand_sides_and_the_run_is_the_references(runs):
    (compiled, _, calls), (python, _, _) = runs
    assert all(c == 2 for c in calls[1:REST]), calls[:REST]  # the first step decides the mode
    assert min(calls[REST:]) >= 7, calls[REST:]  # slipping: every stage
    assert np.abs(compiled[-1]["u"]).max() > 0.1, compiled[-1]["u"]  # it slips
    for key in python[0]:
        ref = np.array([o[key] for o in python])
        scale = max(np.abs(ref).max(), 1e-300)
        np.testing.assert_allclose(np.array([o[key] for o in compiled]), ref, rtol=0, atol=1e-8 * scale,
                                   err_msg=key)


def test_the_breakaway_where_the_drive_starts_is_among_the_steps_events_on_both_engines(runs):
    """The mode decided again at a communication point whose inputs changed (a restart) is an event of the
    step that begins there, on the Python engine too (Stepper.step empties the events before the restart)."""
    (_, events, _), (_, events_ref, _) = runs
    assert REST * H in events and events.shape == events_ref.shape, (events, events_ref)
    np.testing.assert_allclose(events, events_ref, rtol=0, atol=1e-9)
