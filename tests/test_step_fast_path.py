"""A co-simulation step gives exactly what the general path gives.

``CompiledIntegrator.advance_to`` runs a step without an input breakpoint inside as one call of the C
engine and takes its output from the engine's record at the step's end; the general path is
``advance`` with the grid [t_end], whose row the engine records on its way.
Compared bit for bit over a few hundred steps of SliderCrank and Dupont's two masses with inputs
that change at every communication point and stick-slip events inside steps, with:
* ``Stepper.step`` given lists of Python floats (its fast input check) against numpy arrays;
* every earlier output unchanged by the later steps (no record buffer shared between steps);
* ``crank.publish`` against the definition of its output names, value for value.
"""

import copy
import math

import numpy as np
import pytest

from friction_joints.engine import make_integrator
from friction_joints.fmi import crank
from friction_joints.hybrid import PiecewiseConstant
from friction_joints.mechanisms import dupont_two_mass, slider_crank
from friction_joints.planar import MechanismSystem
from friction_joints.stepping import MechanismStepper

from friction_joints.native.instance import CompiledIntegrator

CASES = {  # mechanism, q0, u0, inputs at t, step (s), steps
    "SliderCrank": (slider_crank, lambda m: m.assemble([0.0]), [0.0], lambda t: [4.0 * math.sin(3.0 * t)], 0.005, 400),
    "Dupont": (dupont_two_mass, lambda m: [0.0, 0.0], [0.0, 0.0],
               lambda t: [7.0 * math.sin(2.4 * t), 50.0 * math.cos(0.8 * t)], 0.02, 500),
}


def general_advance_to(integrator, t_end):
    """``advance_to`` through the general loop: the record at t_end recorded on the grid [t_end] (the
    last row), or, when an event at t_end ended the step, recorded after it as advance_to does."""
    integrator.advance(t_end, [t_end])
    s = integrator.state
    if integrator.results.events and integrator.results.events[-1][0] == t_end:
        return integrator.record_row(s.t, s.y, s.mode)
    row = integrator.results.rows[-1]
    assert row["t"] == t_end
    return row


def assert_identical(got, want, where):
    """Same keys in the same order, same types, dtypes and shapes, equal bits."""
    assert list(got) == list(want), where
    for key, value in want.items():
        assert type(got[key]) is type(value), f"{where} {key}: {type(got[key])} != {type(value)}"
        a, b = np.asarray(got[key]), np.asarray(value)
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes(), \
            f"{where} {key}: {got[key]!r} != {value!r}"


@pytest.mark.parametrize("name", list(CASES))
def test_fast_steps_equal_general_steps(name):
    factory, q0_of, u0, inputs, h, n = CASES[name]
    mech = factory()
    fast, general = (MechanismStepper(mech, q0_of(mech), u0, inputs(0.0), rtol=1e-8, engine="compiled")
                     for _ in range(2))
    general.integrator.advance_to = lambda t_end: general_advance_to(general.integrator, t_end)
    kept, events, t = [], [], 0.0
    for i in range(n):
        got = fast.step(t, h, inputs(t))
        want = general.step(t, h, np.array(inputs(t)))  # the numpy branch of the input check
        assert_identical(got, want, f"{name} step {i} (t = {t:.3f})")
        assert fast.integrator.state.step == general.integrator.state.step
        assert fast.integrator.results.events == general.integrator.results.events, f"{name} step {i}"
        events += fast.integrator.results.events  # the step's events: Stepper keeps no more
        kept.append((got, copy.deepcopy(got)))
        t += h
    for i, (got, at_the_time) in enumerate(kept):
        assert_identical(got, at_the_time, f"{name} output of step {i} after the run")
    inside = [te for te, _ in events if abs(te / h - round(te / h)) > 1e-6]
    kinds = {kind for _, kind in events}
    assert len(inside) >= 3 and {"stick", "breakaway"} <= kinds, events


def test_steps_across_input_breakpoints_equal_the_general_loop():
    """A piecewise-constant torque table with jumps every 7 ms, steps of 5 ms: a step with a jump inside
    is two calls of the engine with the mode decided at the jump between them; as advance."""
    mech = slider_crank()
    times = np.arange(0.0, 1.5, 0.007)
    table = PiecewiseConstant(times, 4.0 * np.sin(3.0 * times) + 0.5 * np.sign(np.sin(40.0 * times)))
    fast, general = (make_integrator(MechanismSystem(mech, [table]), 0.0,
                                     MechanismSystem(mech, [table]).initial_state(mech.assemble([0.0]), [0.0]),
                                     engine="compiled", rtol=1e-8, atol=1e-10) for _ in range(2))
    assert isinstance(fast, CompiledIntegrator)
    t, h = 0.0, 0.005
    for i in range(300):
        got, want = fast.advance_to(t + h), general_advance_to(general, t + h)
        assert_identical(got, want, f"step {i} (t = {t:.3f})")
        t += h
    assert fast.results.events == general.results.events and len(fast.results.events) > 3


def test_publish_names_every_element():
    """crank.publish: one output per element of the record arrays, named key[i] from 1, the
    scalars as they are; the names are exactly the outputs OUTPUTS declares."""
    mech = slider_crank()
    stepper = MechanismStepper(mech, mech.assemble([0.3]), [1.0], [2.0], engine="compiled")
    rec = stepper.step(0.0, 0.01, [2.0])
    want = {"stuck": bool(rec["stuck"]), "E_kin": rec["E_kin"], "E_pot": rec["E_pot"],
            "W_drive": rec["W_drive"], "W_friction": rec["W_friction"]}
    want["u"] = float(rec["u"][0])  # a one-element array, published as its element like the others
    for key in ("q", "qd", "qdd", "f", "f_mu", "sd"):
        want.update({f"{key}[{i}]": float(v) for i, v in enumerate(rec[key], 1)})
    got = crank.publish(rec)
    assert got == want and all(type(got[k]) is type(v) for k, v in want.items())
    assert set(got) == {v.name for v in crank.OUTPUTS}
