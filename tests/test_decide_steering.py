"""The steering system's mode decisions in C (native/src/steering.c: mode_layout, mode_events, decide)
against the Python reference, SteeringSystem.update and .events: ``model.update(system, t, y, mode, event)``
equals ``system.update(t, y, mode, event)`` (y exactly: the Python only sets values in it, the rack on the
edge of its travel and stuck rates 0; the mode ==; the kind string ==) and ``model.mode_events`` gives the
directions, input_driven flags and events_watch_all of ``system.events(mode)``.

Compared on the configurations and random states of test_compiled_steering (within the freeplay and beyond
it, the rack within its travel, pushing on a stop, released from it and on its edge, inactive elements)
and on states at rest (rates 0, below ZERO_VELOCITY or on it, forces of the order of the static levels, so
that the elements stick and break away either way), in every friction mode with each of the end stops'
positions, after each event of the mode, without an event (None) and at the start (mode None). Each
element's branch of update (inactive, breakaway, slipping on, keeping its slip, stuck or starting to slip
at rest, its stop event) and each end-stop change (contact, release, clear at either stop, at events and
at the start) is counted and must have been compared."""

import collections

import numpy as np
import pytest

from friction_joints import native
from friction_joints.errors import FrictionJointsError
from friction_joints.native.model import CompiledModel
from friction_joints.vehicle import steering_packing
from friction_joints.vehicle.steering import ELEMENTS, STOPS, ZERO_VELOCITY, Mode, mode_change

from test_compiled_steering import CONFIGS, DIRECTIONS, STOP_POSITIONS, make_system, modes_for_state, random_states

REST_STATES = 16  # states at rest per configuration
# element rates at rest: 0, below ZERO_VELOCITY, on it (not beyond: |v| > ZERO_VELOCITY is strict), beyond
REST_RATES = (0.0, 0.0, 3e-10, ZERO_VELOCITY, 1e-6)


def rest_states(system, rng):
    """(t, y) at or near rest: the column twisted, the rack-pinion gap around the freeplay and the tie rods
    stretched by amounts whose forces are of the order of the elements' static levels (so that each sticks
    in some states and breaks away in others); every element's rate from REST_RATES with either sign; a
    quarter of the states with the rack beyond an end stop (pushing or released)."""
    p = system.p
    for k in range(REST_STATES):
        t = rng.uniform(0.0, 5.0)
        tau = system.input_values(t)
        y = system.initial_state(rng.normal() * 0.3)
        if k % 4 == 3:  # at an end stop, slightly beyond the travel
            y = system.initial_state((1, -1)[k % 8 // 4] * (p.rack_travel + rng.uniform(0.0, 1e-5)) / p.r_p)
        y[0] = y[1] + rng.normal() * 1.5 * p.T_p / p.k_c
        gap = rng.uniform(-1.0, 1.0) * (p.b + 1.5 * p.F_r / p.k_g)
        y[2] = p.r_p * y[1] - gap
        for i, M_z in ((3, tau[1]), (4, tau[2])):  # the tie rod balances the aligning moment, give or take
            stretch = (-M_z + rng.normal() * 5.0) / (p.l_a * p.k_t)
            y[i] = (y[2] - stretch) / p.l_a
        y[5] = rng.normal() * 0.1
        y[6:10] = rng.choice(REST_RATES, size=4) * rng.choice((1.0, -1.0), size=4)
        y[10:] = rng.normal(size=4)
        yield t, y


def branch(system, y, mode, event, k, new):
    """The branch of SteeringSystem.update that decided element k (for the coverage count), from its
    conditions as the docstrings state them."""
    name, v = ELEMENTS[k], y[6 + k]
    was = None if mode is None else mode.directions[k]
    if not system.active[k]:
        return "inactive"
    if event == f"breakaway_{name}":
        return "breakaway"
    if event == f"stop_{name}":
        return f"stop event, {'stick' if new == 0 else 'slip'}"
    if abs(v) > ZERO_VELOCITY:
        return "slipping on"
    if was not in (None, 0) and v * was >= 0.0:
        return "keeps its slip"
    return "stuck" if new == 0 else "starts to slip"


def compare(system, model, t, y, mode, event, seen):
    """The C decision equals the Python one at (t, y, mode, event); counts the branches in ``seen``."""
    want_y, want_mode, want_kind = system.update(t, y.copy(), mode, event)
    got_y, got_mode, got_kind = model.update(system, t, y.copy(), mode, event)
    where = f"mode {mode}, event {event}, t={t!r}, y={y.tolist()!r}"
    np.testing.assert_array_equal(got_y, want_y, err_msg=where)
    assert got_mode == want_mode, f"mode {got_mode} for {want_mode} ({where})"
    assert got_kind == want_kind, f"kind {got_kind!r} for {want_kind!r} ({where})"
    for k in range(len(ELEMENTS)):
        seen[branch(system, y, mode, event, k, want_mode.directions[k])] += 1
    change = mode_change(mode, want_mode)
    if change[4]:
        seen[f"{steering_stop_change(change)}{' at the start' if mode is None else ''}"] += 1
    seen["y changed"] += not np.array_equal(want_y, y)
    seen["rack put on the edge"] += want_y[2] != y[2]
    seen["decisions"] += 1


def steering_stop_change(change):
    return f"{('contact', 'release', 'clear')[change[4] - 1]}_stop_{STOPS[change[5]]}"


def states(system, rng):
    yield from random_states(system, rng)
    yield from rest_states(system, rng)


@pytest.fixture(scope="module")
def systems():
    return {name: make_system(kw) for name, kw in CONFIGS.items()}


@pytest.fixture(scope="module")
def coverage():
    return {}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_decide_agrees_with_the_python_update(systems, coverage, name):
    """Every event of every mode (the 81 friction modes, each state with its turn of the stop positions),
    no event and the start, at each state."""
    system = systems[name]
    model = system.compiled()
    assert model.family.decides_modes
    rng = np.random.default_rng(sum(map(ord, name)) + 1)
    seen = coverage[name] = collections.Counter()
    for k, (t, y) in enumerate(states(system, rng)):
        compare(system, model, t, y, None, None, seen)
        for mode in modes_for_state(k):
            for event in [None] + [ev.name for ev in system.events(mode)]:
                compare(system, model, t, y, mode, event, seen)
    print(f"{name}: {seen['decisions']} decisions compared; {dict(seen)}")
    assert seen["y changed"] and seen["decisions"] > 5000
    if all(system.active):
        assert {"breakaway", "slipping on", "keeps its slip", "stuck", "starts to slip", "stop event, stick",
                "stop event, slip"} <= set(seen), seen
    else:
        assert "inactive" in seen


def test_every_end_stop_change_was_compared(systems, coverage):
    """The comparisons above (run first) met each end stop's contact, release and clear at events (the
    rack put exactly on the edge of its travel where it crosses it), and the start on a stop and released
    beyond one."""
    if set(coverage) != set(CONFIGS):
        pytest.skip("needs test_decide_agrees_with_the_python_update of every configuration")
    seen = sum(coverage.values(), collections.Counter())
    kinds = {f"{kind}_stop_{side}" for kind in ("contact", "release", "clear") for side in STOPS.values()}
    assert kinds <= set(seen), sorted(seen)
    assert {f"contact_stop_{side} at the start" for side in STOPS.values()} <= set(seen), sorted(seen)
    assert {f"release_stop_{side} at the start" for side in STOPS.values()} <= set(seen), sorted(seen)
    assert seen["rack put on the edge"] > 0


@pytest.mark.parametrize("name", ["default", "no-kingpin-friction", "frictionless"])
def test_mode_events_agree_with_the_python_events(systems, name):
    """Directions, input_driven flags and events_watch_all of every mode (81 friction modes x 5 stop
    positions); the layout's max_events bounds them."""
    system = systems[name]
    model = system.compiled()
    layout = model.mode_layout
    assert (layout.n_fmode, layout.n_imode, layout.n_change) == (5, 5, 6)
    assert layout.max_events == sum(system.active) + 2
    for directions in DIRECTIONS:
        for stop in STOP_POSITIONS:
            mode = Mode(directions, stop)
            evs = system.events(mode)
            got_dir, got_flags, watch_all = model.mode_events(system, mode)
            assert got_dir.tolist() == [ev.direction for ev in evs], mode
            assert got_flags.tolist() == [int(ev.input_driven) for ev in evs], mode
            assert watch_all == system.events_watch_all(mode), mode
            assert len(evs) <= layout.max_events


def test_decode_mode_and_change_kind(systems):
    """decode_mode inverts encode_mode; change_kind names each change report as update names its decision."""
    system = systems["default"]
    for directions in DIRECTIONS:
        for stop in STOP_POSITIONS:
            mode = Mode(directions, stop)
            assert system.decode_mode(*system.encode_mode(mode)) == mode
    left_on = Mode((0, 1, -1, 0), 1)
    assert system.change_kind(left_on, left_on, None, [0] * 6) is None
    assert system.change_kind(None, left_on, None, mode_change(None, left_on)) == (
        "stick_pinion+slip_rack+slip_kingpin_left+stick_kingpin_right+contact_stop_left")
    released = Mode((0, 0, -1, 0), -2)
    assert system.change_kind(left_on, released, None, mode_change(left_on, released)) == (
        "stick_rack+release_stop_left")  # the side of the stop left (was), as update names it


def test_the_comparison_can_fail(systems):
    """A decision with a static factor 1 % larger in C differs from the Python one where the rack's acting
    force lies between the two static levels (the Python's breaks away, the perturbed one sticks); one with
    a rack travel 1e-6 longer puts the rack elsewhere at a contact: the agreement above is not vacuous."""
    system = systems["default"]
    p, model = system.p, system.compiled()
    y = system.initial_state()
    # the rack alone loaded, by the mesh: F_g = 1.305 F_r (between 1.3 and 1.313 of the kinetic level)
    y[2] = -(p.b + 1.305 * p.F_r / p.k_g)
    y[3] = y[4] = y[2] / p.l_a  # tie rods relaxed
    stuck = Mode((0, 0, 0, 0))
    perturbed = model.fpar.copy()
    perturbed[steering_packing.PARAMETERS.index("static_factor")] *= 1.01
    other = CompiledModel("steering", perturbed, model.ipar, model.n_record)
    assert model.update(system, 0.0, y, stuck, None)[1] == system.update(0.0, y, stuck, None)[1]
    assert system.update(0.0, y, stuck, None)[1].directions[1] == 1  # the rack breaks away (pushed to +x)
    assert other.update(system, 0.0, y, stuck, None)[1] != system.update(0.0, y, stuck, None)[1]

    perturbed = model.fpar.copy()
    perturbed[steering_packing.PARAMETERS.index("rack_travel")] += 1e-6
    other = CompiledModel("steering", perturbed, model.ipar, model.n_record)
    y = system.initial_state(p.rack_travel / p.r_p)
    within = Mode((1, 1, 1, 1))
    want = system.update(0.0, y, within, "contact_stop_left")[0]
    np.testing.assert_array_equal(model.update(system, 0.0, y, within, "contact_stop_left")[0], want)
    assert not np.array_equal(other.update(system, 0.0, y, within, "contact_stop_left")[0], want)


def test_decide_fails_where_the_python_raises(systems):
    """A NaN holding force whose sign decides (a stuck element at rest): the Python raises, decide returns a
    status that names it; a NaN force that decides nothing (every element slipping on) passes in both. An
    event index beyond the mode's events is decide's other status."""
    system = systems["default"]
    model = system.compiled()
    y = system.initial_state()
    y[0] = np.nan  # the column's torque T_c: the pinion's holding force
    stuck = Mode((0, 0, 0, 0))
    with pytest.raises(ValueError):
        system.update(0.0, y, stuck, None)
    with pytest.raises(FrictionJointsError, match="sign of a force or rate that is NaN"):
        model.update(system, 0.0, y, stuck, None)
    y[6:10] = [1.0, -1.0, 1.0, -1.0]
    slipping = Mode((1, -1, 1, -1))
    want, got = system.update(0.0, y, slipping, None), model.update(system, 0.0, y, slipping, None)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1:] == want[1:] == (slipping, None)
    # an index beyond the mode's events (which the Python's names cannot give): the other status
    ws = native.Workspace(model.family, model.fpar, model.ipar)
    ws.set_mode(*system.encode_mode(slipping))
    tau = system.input_values(0.0)
    assert ws.decide(0.0, y.copy(), tau, len(system.events(slipping)), model.mode_layout)[0] == 2
    assert ws.decide(0.0, y.copy(), tau, -3, model.mode_layout)[0] == 2
    assert model.message(2).startswith("the event is not one of the mode's")
