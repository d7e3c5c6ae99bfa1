"""The mode decisions of the spatial RSRRR linkage in C (native/src/spatial.c: mode_layout, mode_events,
decide) against the Python reference, RSRRRSystem.update and RSRRRSystem.events: through
``CompiledModel.update``, the same new mode (==), the same state (bit for bit: the C decision only sets the
rates of a stuck linkage to zero, as Python does) and the same kind, on random states in every mode, after
every event of the mode, at a time event (None) and at the start (mode None), in every configuration with
stiction (cut and minimal forms, trace formulation, no friction, a SpeedLoad active at rest) and without.

Every branch of update is taken: turning states (sgn psid11: slip, reversal, the same direction), states
at rest below ZERO_VELOCITY or at it (a turning mode keeps its direction right after a breakaway; the
holding decision: stuck while alpha <= 1, else away in the direction of Q), the breakaway event (sgn Q) and
the stop event (holding). States at rest come with a drive (a ramp in t) that puts the holding fraction
alpha on both sides of 1. The failures where Python raises give their statuses."""

import numpy as np
import pytest

from friction_joints.errors import ConvergenceError, FrictionJointsError, SingularConfigurationError
from friction_joints.hybrid.signals import PiecewiseLinear
from friction_joints.hybrid.stiction import DirectionMode as Mode
from friction_joints.spatial import packing
from friction_joints.spatial.load import SpeedLoad
from friction_joints.spatial.rsrrr import RSRRR, RSRRRParameters, table1_journals
from friction_joints.spatial.system import ZERO_VELOCITY, RSRRRSystem, paper_load

from test_compiled_spatial import random_states

T0, SLOPE = 5.0, 20.0  # the drive's ramp (s, N.m/s): zero at T0
RAMP = PiecewiseLinear([0.0, 2.0 * T0], [-SLOPE * T0, SLOPE * T0])  # drive torque (N.m): t picks a state's drive
TAU_RES = 0.3  # N.m
TURNING = 6  # random turning states per configuration (test_compiled_spatial.random_states)
AT_REST = 14  # random states at rest per configuration
# psid11 at rest (rad/s): zero, below ZERO_VELOCITY, at it (not beyond: at rest) and just beyond it (turning)
REST_SPEEDS = (0.0, 0.4 * ZERO_VELOCITY, -ZERO_VELOCITY, ZERO_VELOCITY, np.nextafter(ZERO_VELOCITY, 1.0),
               -np.nextafter(ZERO_VELOCITY, 1.0))

CONFIGS = {
    "stiction-cut": dict(),
    "stiction-minimal": dict(form="minimal"),
    "stiction-trace": dict(params=dict(trace=True)),
    "stiction-minimal-trace": dict(form="minimal", params=dict(trace=True)),
    "stiction-frictionless": dict(params=dict(friction=False), load=None),
    "stiction-speed-load": dict(load=SpeedLoad(2.0, -1.0, 0.5)),  # a resistance at rest: load(0) = 2.5 N.m
    "stiction-strong": dict(params=dict(journals=table1_journals(mu_s_factor=1.5))),
    "cut": dict(stiction=False),
    "minimal": dict(stiction=False, form="minimal"),
}


def make_system(params=None, form="cut", stiction=True, load="paper", drive=RAMP):
    mech = RSRRR(RSRRRParameters(**(params or {})))
    return RSRRRSystem(mech, [drive, TAU_RES], paper_load() if load == "paper" else load, form=form,
                       stiction=stiction)


def make_systems():
    return {name: make_system(**kw) for name, kw in CONFIGS.items()}


@pytest.fixture(scope="module")
def systems():
    return make_systems()


def modes_of(system):
    """The start (None) and every mode of the system."""
    return (None, Mode(1), Mode(-1), Mode(0)) if system.stiction else (None, Mode(1))


def events_of(system, mode):
    """None (a time event or a settling pass; the start) and the names of the mode's events."""
    return [None] if mode is None else [None, *(ev.name for ev in system.events(mode))]


def rest_states(system, rng, count):
    """(t, y) at rest (psid11 from REST_SPEEDS) at a random pose, chain 2 off the closure and its rates
    off the dependent ones as in random_states, at a time t whose drive (RAMP) leaves a generalised force
    Q on psi11 of a random multiple in (-2, 2) of the joints' holding capacity: the holding fraction
    alpha = |Q| / capacity falls on both sides of 1."""
    for k in range(count):
        y = system.initial_state(psi11=rng.uniform(-np.pi, np.pi))
        y[:4] += rng.normal(size=4) * 1e-3
        y[4] = REST_SPEEDS[k % len(REST_SPEEDS)]
        y[5:8] += rng.normal(size=3) * 0.005
        y[8:] = rng.normal(size=3)
        q = system._coordinates(y)[0]
        Q0 = system._rest_terms(T0, q)[2]  # Q(t) = Q0 + SLOPE (t - T0)
        t_probe = T0 + (0.1 - Q0) / SLOPE  # Q = 0.1 N.m: its alpha gives the capacity
        try:
            capacity = 0.1 / system.holding(t_probe, q).alpha if system.mech.p.friction else 1.0
        except ConvergenceError:
            capacity = 1.0
        yield T0 + (rng.uniform(-2.0, 2.0) * capacity - Q0) / SLOPE, y


def states(system, rng, turning, at_rest):
    """``turning`` random turning states (random_states, with drives within +-20 N.m), then ``at_rest``
    rest_states."""
    for _, y in random_states(system, rng, turning):
        yield rng.uniform(T0 - 1.0, T0 + 1.0), y
    yield from rest_states(system, rng, at_rest)


def outcome(decision):
    """decision() as (y, mode, kind), or the exception it raised."""
    try:
        return decision()
    except (FrictionJointsError, ValueError) as error:
        return error


# the Python exception of a failed decision and the C statuses (packing.ST_*) that stand for it
FAILURES = ((ConvergenceError, (packing.ST_HOLDING,)),
            (SingularConfigurationError, (packing.ST_J2_SINGULAR, packing.ST_NOT_CLOSED, packing.ST_FRAME_SINGULAR)),
            (ValueError, (packing.ST_NO_DIRECTION,)))


def assert_same_decision(system, t, y, mode, event):
    """C and Python decide alike at (t, y, mode, event); returns Python's (y, mode, kind), or its
    exception."""
    where = f"mode {mode}, event {event}, t={t!r}, y={y.tolist()!r}"
    want = outcome(lambda: system.update(t, y.copy(), mode, event))
    got = outcome(lambda: system.compiled().update(system, t, y.copy(), mode, event))
    if isinstance(want, Exception):
        messages = [system.compiled().message(st) for kind, codes in FAILURES if isinstance(want, kind) for st in codes]
        assert isinstance(got, FrictionJointsError) and any(m in str(got) for m in messages), (where, want, got)
        return want
    assert not isinstance(got, Exception), (where, got)
    assert got[1] == want[1], f"mode {got[1]} for {want[1]} ({where})"
    assert type(got[1].direction) is type(want[1].direction) is int, where
    assert got[2] == want[2], f"kind {got[2]!r} for {want[2]!r} ({where})"
    np.testing.assert_array_equal(got[0], want[0], err_msg=where)
    return want


def branch(system, y, mode, event, new):
    """What a decision covers: (stiction, mode before, event, psid11 at rest (where update asks), mode
    after)."""
    at_rest = bool(abs(y[4]) <= ZERO_VELOCITY) if system.stiction and event is None else None
    return (system.stiction, None if mode is None else mode.direction, event, at_rest, new.direction)


# every branch of RSRRRSystem.update, as branch() names them
BRANCHES = {
    *[(True, None, None, False, d) for d in (1, -1)],  # start, turning: slip
    *[(True, None, None, True, d) for d in (0, 1, -1)],  # start at rest: stick, or away (sgn Q)
    *[(True, w, None, False, d) for w in (1, -1) for d in (1, -1)],  # turning: the same direction, reversal
    *[(True, w, None, True, w) for w in (1, -1)],  # right after a breakaway: keeps its direction
    *[(True, w, "stop", None, d) for w in (1, -1) for d in (0, 1, -1)],  # holding: stick, or away (sgn Q)
    *[(True, 0, "breakaway", None, d) for d in (1, -1)],  # sgn Q
    *[(True, 0, None, False, d) for d in (1, -1)],  # stuck but turning: breakaway (sgn psid)
    *[(True, 0, None, True, d) for d in (0, 1, -1)],  # stuck at rest: holding
    *[(False, w, None, None, 1) for w in (None, 1)],  # without stiction: +1
}


def compare_decisions(systems, turning=TURNING, at_rest=AT_REST):
    """The decisions of every system in ``systems``, mode and event on its random states compared
    (assert_same_decision): (number compared, the branches they took, the kinds they gave)."""
    seen, kinds, compared = set(), set(), 0
    for name, system in systems.items():
        rng = np.random.default_rng(sum(map(ord, name)))
        for t, y in states(system, rng, turning, at_rest):
            for mode in modes_of(system):
                for event in events_of(system, mode):
                    want = assert_same_decision(system, t, y, mode, event)
                    compared += 1
                    if not isinstance(want, Exception):
                        seen.add(branch(system, y, mode, event, want[1]))
                        kinds.add(want[2])
    return compared, seen, kinds


@pytest.mark.slow
def test_decisions_agree_with_python(systems):
    """Every configuration, mode and event on random turning and resting states: the same decisions,
    and together they take every branch of update (BRANCHES) and give every kind."""
    compared, seen, kinds = compare_decisions(systems)
    per_state = sum(len(events_of(s, m)) for s in systems.values() for m in modes_of(s))
    assert compared == per_state * (TURNING + AT_REST) > 1000
    assert BRANCHES <= seen, sorted(BRANCHES - seen, key=str)
    assert kinds == {None, "slip", "stick", "breakaway", "reversal"}


def test_mode_events_agree_with_python(systems):
    """Directions, input-driven flags and events_watch_all of every mode's events."""
    for system in systems.values():
        layout = system.compiled().mode_layout
        assert (layout.n_fmode, layout.n_imode, layout.n_change) == (1, 1, 0)
        assert layout.max_events == max(len(system.events(m)) for m in modes_of(system)[1:])
        for mode in modes_of(system)[1:]:
            directions, flags, watch_all = system.compiled().mode_events(system, mode)
            evs = system.events(mode)
            assert directions.tolist() == [ev.direction for ev in evs]
            assert flags.tolist() == [1 if ev.input_driven else 0 for ev in evs]
            assert watch_all == system.events_watch_all(mode)


def test_decode_mode_inverts_encode_mode(systems):
    """decode_mode(encode_mode(mode)) == mode, with a Python int direction; change_kind names the change
    of direction with stiction and nothing without."""
    for d in (1, -1, 0):
        decoded = systems["stiction-cut"].decode_mode(*systems["stiction-cut"].encode_mode(Mode(d)))
        assert decoded == Mode(d) and type(decoded.direction) is int
    no_change = np.zeros(0, np.int64)
    assert systems["stiction-cut"].change_kind(Mode(1), Mode(-1), None, no_change) == "reversal"
    assert systems["stiction-cut"].change_kind(None, Mode(0), None, no_change) == "stick"
    assert systems["cut"].change_kind(None, Mode(1), None, no_change) is None


def test_the_comparison_sees_a_changed_parameter(systems):
    """Decided with twice the static friction (the packed model of another system), states at rest
    that break away in Python stay stuck: the comparison above can fail."""
    system, stronger = systems["stiction-cut"], make_system(params=dict(journals=table1_journals(mu_s_factor=2.0)))
    rng = np.random.default_rng(3)
    differ = 0
    for t, y in rest_states(system, rng, AT_REST):
        want = system.update(t, y.copy(), Mode(1), "stop")
        got = stronger.compiled().update(system, t, y.copy(), Mode(1), "stop")
        differ += got[1] != want[1]
    assert differ > 0


def test_failures_return_their_statuses(systems):
    """Where Python raises, C returns the status that stands for it (FAILURES): chain 2 stretched (J2
    singular) at a breakaway and at rest; holding torques that do not converge (strong static friction);
    an undefined breakaway direction (a drive that is not a number)."""
    system = systems["stiction-cut"]
    y = system.initial_state()
    y[3] = 0.0  # psi(2,3) = 0: chain 2 stretched
    for mode, event in ((Mode(0), "breakaway"), (Mode(1), "stop"), (None, None)):
        assert isinstance(assert_same_decision(system, 1.0, y, mode, event), SingularConfigurationError)

    stuck = make_system(params=dict(journals=table1_journals(mu_s_factor=3.0)))  # the fixed point diverges
    y = stuck.initial_state(psi11=0.95)
    for mode, event in ((Mode(0), None), (Mode(1), "stop")):
        assert isinstance(assert_same_decision(stuck, 6.86, y, mode, event), ConvergenceError)

    undefined = make_system(drive=lambda t: np.nan)
    y = undefined.initial_state()
    for mode, event in ((Mode(0), "breakaway"), (Mode(-1), "stop"), (Mode(0), None)):
        assert isinstance(assert_same_decision(undefined, 1.0, y, mode, event), ValueError)


def test_subclasses_that_decide_otherwise_run_in_python():
    """A subclass with its own update has no compiled form (the C decisions would not be its)."""
    class Creeping(RSRRRSystem):
        def update(self, t, y, mode, event):
            return y, Mode(1), None

    assert Creeping(RSRRR(), [1.0, 0.0], stiction=True).compiled() is None
