"""Outputs at the communication points do not depend on the communication step (issue 32, item 9).

SliderCrank under a torque that is constant over each whole second (tau = 4 cos(3 k) N.m on
[k, k + 1)), stepped to t = 2 s with steps of 0.5 s, 0.1 s, 0.01 s, 1 ms and random steps: the inputs
change only at points every plan shares, so every run integrates the same hybrid trajectory. The slip
velocity of contact 3 crosses zero at t = 1.8378 s and comes back within one integrator step of the
long runs; the event detection compared the signs of the event functions at a step's ends only, so
that with steps of 0.5 s the slip reversal was missed and u(2) was off by 2.7e-4 rad/s. Both engines
now look for crossings inside each step (hybrid.integrator.EventWatch, rk_driver.c).

Tolerance: every output at every common communication point (0.5, 1, 1.5, 2 s) within TOLERANCE of
the run with steps of 1 ms, relative to the largest magnitude of that output there, and the event
times within TOLERANCE s. rtol 1e-8 bounds each integrator step's local error to about rtol of the
state; the runs take 40 to 2000 steps, placed differently, so their global errors differ by some tens
of rtol (at most 5e-7 of an output's magnitude, 1.6e-7 s in the event times, here): TOLERANCE = 100
rtol, two orders of magnitude below what the missed reversal did. The reference is the compiled
engine's 1 ms run; the Python engine's own (a minute) agrees with it to 1e-15 rad/s in u(2) and runs
with the slow tests.
"""

import math

import numpy as np
import pytest

from friction_joints.mechanisms import slider_crank
from friction_joints.stepping import MechanismStepper

RTOL = 1e-8
TOLERANCE = 100 * RTOL
POINTS = (0.5, 1.0, 1.5, 2.0)  # s: the communication points of every plan


def torque(t):
    return 4.0 * math.cos(3.0 * math.floor(t + 1e-12))


def uniform(h):
    return [h] * round(2.0 / h)


def random_steps(seed):
    """Steps of random sizes (1 to 12 a half second) that meet every half second."""
    rng = np.random.default_rng(seed)
    steps = []
    for _ in range(4):
        cuts = np.sort(rng.uniform(0.0, 0.5, rng.integers(0, 12)))
        steps += np.diff(np.concatenate(([0.0], cuts, [0.5]))).tolist()
    return steps


def run(steps, engine):
    """({t: outputs} at POINTS, event times) of SliderCrank stepped with the communication steps steps."""
    mech = slider_crank()
    stepper = MechanismStepper(mech, mech.assemble([0.0]), [0.0], [torque(0.0)], rtol=RTOL, engine=engine)
    t, outputs, events = 0.0, {}, []
    for h in steps:
        stepper.step(t, h, [torque(t)])
        t += h
        events += [t_event for t_event, _ in stepper.integrator.results.events]
        point = round(2.0 * t) / 2.0
        if abs(t - point) < 1e-9:
            outputs[point] = {key: np.atleast_1d(np.asarray(value, float)) for key, value in stepper.outputs.items()}
    assert sorted(outputs) == list(POINTS)
    return outputs, np.array(events)


@pytest.fixture(scope="module")
def reference():
    return run(uniform(0.001), "compiled")


def assert_agrees(run_outputs, reference, name):
    (outputs, events), (outputs_ref, events_ref) = run_outputs, reference
    assert events.shape == events_ref.shape, f"{name}: events at {events} instead of {events_ref}"
    np.testing.assert_allclose(events, events_ref, rtol=0, atol=TOLERANCE, err_msg=f"{name}: event times")
    for key in outputs_ref[2.0]:
        if key == "t":
            continue
        scale = max(np.abs(outputs_ref[t][key]).max() for t in POINTS)
        for t in POINTS:
            np.testing.assert_allclose(outputs[t][key], outputs_ref[t][key], rtol=0, atol=TOLERANCE * scale,
                                       err_msg=f"{name}: {key} at t = {t}")


PLANS = {"0.5 s": uniform(0.5), "0.1 s": uniform(0.1), "0.01 s": uniform(0.01), "random 1": random_steps(1),
         "random 2": random_steps(2)}


@pytest.mark.parametrize("plan", PLANS)
def test_compiled_outputs_and_events_agree_over_step_sizes(plan, reference):
    assert_agrees(run(PLANS[plan], "compiled"), reference, f"compiled, steps {plan}")


@pytest.mark.parametrize("plan", ["0.5 s", "0.1 s", "random 1"])
def test_python_outputs_and_events_agree_over_step_sizes(plan, reference):
    assert_agrees(run(PLANS[plan], "python"), reference, f"python, steps {plan}")


@pytest.mark.slow
@pytest.mark.parametrize("plan", ["0.01 s", "random 2", "1 ms"])
def test_python_outputs_and_events_agree_over_small_step_sizes(plan, reference):
    steps = uniform(0.001) if plan == "1 ms" else PLANS[plan]
    assert_agrees(run(steps, "python"), reference, f"python, steps {plan}")
