"""A contact at a kinematic zero of its slip (its row Cpp_c passes zero while the mechanism moves) takes
the sign its slip has past the zero, on both engines, also at an event just after its reversal.

The quick-return mechanism's pin in the slot (contact 4) and the ram's revolute (contact 6) pass their
kinematic zeros together near t = 1.288 s of the file's default experiment. Where an engine found them at
two events 1e-10 s apart (contact 4 first), the second one reversed contact 4 again, its slip still within
ZERO_SLIP of zero: its sliding friction pushed along the motion until the next reversal, and W_friction
rose by 10 J over a co-simulation step (the native FMU under FMPy). Here: the state just past the two
zeros, in the mode the reversal gave, and an event of either contact there (both engines' update); and the
run of the file's steps around them."""

from pathlib import Path

import numpy as np
import pytest

from friction_joints.engine import compiled_available
from friction_joints.mechanisms.files import read_file
from friction_joints.planar.system import ZERO_ROW, ZERO_SLIP
from friction_joints.stepping import MechanismStepper

CATALOGUE = Path(__file__).resolve().parents[1] / "examples" / "mechanisms"
RTOL = 1e-8  # the FMU's default
T0, T1 = 1.28, 1.30  # a window of the default experiment around the two zeros (s)
KINEMATIC = (4, 6)
pytestmark = pytest.mark.skipif(not compiled_available(), reason="the C engine is not built")


@pytest.fixture(scope="module")
def window():
    """(system, rows of the event, events, W_friction at each step's end) of the C engine's run of the
    default experiment's steps restarted at T0 from its state there, to T1."""
    spec = read_file(CATALOGUE / "QuickReturn.toml")
    h, inputs = spec.experiment["step_size"], [20.0, 0.0]
    built = spec.build()
    stepper = MechanismStepper(built.mechanism, built.q0, built.u0, inputs, rtol=RTOL, engine="compiled")
    n0 = int(round(T0 / h))
    for n in range(n0):
        stepper.step(n * h, h, inputs)
    k1, k = len(built.q0), len(built.u0)
    y = stepper.integrator.state.y
    stepper = MechanismStepper(built.mechanism, y[:k1], y[k1:k1 + k], inputs, rtol=RTOL, t0=T0, engine="compiled")
    integ = stepper.integrator
    integ.results.rows.clear()
    res = integ.advance(T1, np.arange(n0 + 1, int(round(T1 / h)) + 1) * h)
    return stepper.system, list(res.rows), list(res.events)


def state(row):
    return np.concatenate((row["q"], row["u"], [row["W_drive"], row["W_friction"]]))


def test_the_window_holds_the_two_kinematic_zeros(window):
    _, rows, events = window
    assert [kind for _, kind in events] == ["reversal:4,6"]
    after = [r for r in rows if r["t"] == events[0][0]][-1]
    assert all(abs(after["sd"][c]) <= ZERO_SLIP for c in KINEMATIC)
    assert np.all(np.diff([r["W_friction"] for r in rows]) <= 0.0)


@pytest.mark.parametrize("fired", KINEMATIC)
def test_an_event_past_a_kinematic_reversal_keeps_its_direction(window, fired):
    """Just past the zeros (dt = 2e-11 s along the motion: both slips still within ZERO_SLIP, both rows
    within ZERO_ROW), an event of one of the contacts in the mode the reversal gave changes nothing, in
    both engines (before: both contacts turned back against their slip)."""
    system, rows, events = window
    t_ev = events[0][0]
    y_ev = state([r for r in rows if r["t"] == t_ev][-1])
    _, mode, _ = system.update(t_ev, y_ev, None, None)  # the mode at y_ev (as the reversal left it)
    dt = 2e-11
    t, y = t_ev + dt, y_ev + dt * system.rhs(t_ev, y_ev, mode)
    lin = system.minimal.linear_terms(*system._split(y), system.tau(t), mode.partition)
    for c in KINEMATIC:
        assert abs(lin["sd"][c]) <= ZERO_SLIP and np.linalg.norm(lin["Cpp"][c]) <= ZERO_ROW
        assert mode.direction[c] * lin["sd"][c] >= 0.0, f"contact {c} slips against its mode's direction"
    event = f"slip_zero:{fired}"
    _, python_mode, python_kind = system.update(t, y, mode, event)
    _, c_mode, c_kind = system.compiled().update(system, t, y, mode, event)
    for name, new, kind in (("python", python_mode, python_kind), ("compiled", c_mode, c_kind)):
        assert new.direction == mode.direction and kind is None, f"{name}: {mode.direction} -> {new.direction} ({kind})"
