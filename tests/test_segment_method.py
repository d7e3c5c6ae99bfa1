"""Short segments run Dormand-Prince 5(4), longer ones DOP853, by one rule in both engines
(``hybrid.integrator.segment_method``; ``segment_method`` in native/src/hybrid.c).

* the rule: RK45 when the first step covers the segment (no longer than twice the carried step, nor
  than max_step), DOP853 otherwise and before any step, a stiff system's own method untouched;
* one RK45 step of the C engine is SciPy's: from the same state and carried step, the C engine, the
  Python engine and SciPy's RK45 solver take the same step, to rounding, and the C engine proposes
  SciPy's next step size;
* co-simulation at 1 ms: both engines take one RK45 step a communication step (about 7 right-hand
  sides instead of 13), locate the stick-slip events inside steps on its dense output at the same
  times, and agree on the outputs.
"""

import math

import numpy as np
import pytest
from scipy.integrate import RK45

from friction_joints.hybrid import Sine
from friction_joints.hybrid.integrator import HybridIntegrator, IntegratorState, segment_method
from friction_joints.lumped import SingleMassFriction, SingleMassParameters
from friction_joints.native.instance import CompiledIntegrator
from friction_joints.stepping import Stepper

STATE_STEP = 6  # index of the step size in the C engine's saved state (fj_instance_get_state)


def test_the_rule():
    assert segment_method("DOP853", 1e-3, None, np.inf) == "DOP853"  # no step yet: DOP853 chooses one
    assert segment_method("DOP853", 1e-3, 0.5e-3, np.inf) == "RK45"  # the first step, 2 x 0.5 ms, covers it
    assert segment_method("DOP853", 1e-3, 0.49e-3, np.inf) == "DOP853"
    assert segment_method("DOP853", 1e-3, 1.0, 0.5e-3) == "DOP853"  # max_step cuts the first step
    assert segment_method("LSODA", 1e-3, 1.0, np.inf) == "LSODA"  # a stiff system keeps its method


def sliding_mass():
    """A single mass sliding under a sine force, far from sticking over the step below: one mode."""
    system = SingleMassFriction(SingleMassParameters(), [Sine(5.0, 2.0)])
    return system, system.initial_state(0.0, 0.8)


def test_one_rk45_step_is_scipys():
    rtol, atol, h = 1e-8, 1e-10, 2e-3
    system, y0 = sliding_mass()
    python = HybridIntegrator(system, 0.0, y0, rtol=rtol, atol=atol)
    compiled = CompiledIntegrator(system, 0.0, y0, rtol=rtol, atol=atol)
    python.advance_to(h), compiled.advance_to(h)  # one DOP853 segment each (no step yet)
    t, y, mode = compiled.state.t, compiled.state.y, compiled.state.mode
    # both from the C engine's state, with the carried step h / 2: the next segment's first step, h, covers it
    python.set_state(IntegratorState(t, y, mode, h / 2))
    saved = compiled.get_state().array.copy()
    assert saved[STATE_STEP] == compiled.state.step
    saved[STATE_STEP] = h / 2
    compiled.set_state(type(compiled.get_state())(saved))
    calls = compiled.rhs_calls
    python.advance_to(2 * h), compiled.advance_to(2 * h)

    system.begin_segment(t, 2 * h)
    scipy = RK45(lambda s, x: system.rhs(s, x, mode), t, y, 2 * h, rtol=rtol, atol=atol, first_step=h)
    scipy.step()
    assert scipy.t == 2 * h  # one step
    np.testing.assert_array_equal(python.state.y, scipy.y)  # the Python engine ran SciPy's RK45
    np.testing.assert_allclose(compiled.state.y, scipy.y, rtol=1e-14, atol=0.0)
    assert compiled.rhs_calls - calls == 7  # f at the start and six stages
    assert compiled.state.step == pytest.approx(scipy.h_abs, rel=1e-10)


def test_co_simulation_steps_run_rk45_in_both_engines():
    """A single mass under a force 5 sin 20t (friction 2 N) held over each 1 ms step, from rest, for 0.6 s:
    its velocity reverses inside a step every 150 steps or so."""
    h, n = 1e-3, 600
    steppers = {engine: Stepper(lambda inputs: SingleMassFriction(SingleMassParameters(), inputs),
                                lambda s: s.initial_state(0.0, 0.0), [0.0], rtol=1e-8, engine=engine)
                for engine in ("python", "compiled")}
    system = steppers["python"].system
    rhs, python_calls = system.rhs, [0]

    def counted(*args):
        python_calls[0] += 1
        return rhs(*args)

    system.rhs = counted
    events = {engine: [] for engine in steppers}
    outputs = {engine: [] for engine in steppers}
    for i in range(n):
        t = i * h
        for engine, stepper in steppers.items():
            out = stepper.step(t, h, [5.0 * math.sin(20.0 * t)])
            outputs[engine].append([out["z"], out["zd"]])
            events[engine] += stepper.integrator.results.events
    assert python_calls[0] / n < 8 and steppers["compiled"].integrator.rhs_calls / n < 8  # DOP853: 13
    # the events inside steps (the C engine also names the restarts' decisions at communication points, which
    # Stepper.step clears on the Python engine)
    inside = {engine: [(te, kind) for te, kind in found if abs(te / h - round(te / h)) > 1e-3]
              for engine, found in events.items()}
    assert len(inside["compiled"]) >= 3, events["compiled"]
    assert [k for _, k in inside["python"]] == [k for _, k in inside["compiled"]]
    np.testing.assert_allclose([te for te, _ in inside["python"]], [te for te, _ in inside["compiled"]],
                               rtol=0, atol=1e-9)
    python, compiled = np.array(outputs["python"]), np.array(outputs["compiled"])
    assert np.max(np.abs(python - compiled) / np.ptp(python, axis=0)) < 1e-8
