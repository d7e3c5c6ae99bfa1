"""The mode decisions of the C family "lumped" (native/src/lumped.c: decide, mode_events) against the
Python models' update and events (SingleMassFriction, TwoMassFriction: the reference).

``model.update(system, t, y, mode, event)`` (the C decision, its mode decoded by ``system.decode_mode``
and its kind named by ``system.change_kind``) equals ``system.update(t, y, mode, event)``: y bit for bit
(the update only sets stuck velocities to exact values), the mode (==) and the kind (==), or both
raise. Compared on seeded random states in every mode of each model, after every event of the mode,
at a time event (None) and at the start (mode None): slip velocities exactly zero, below and above
ZERO_VELOCITY and clearly slipping either way, forces within and beyond the static levels and exactly
on them. Every line of both updates and of their kind naming runs in the compared cases (traced), and
every kind of change is seen. The two masses' decision solves the Gauss principle with the C box QP
(box_qp.c) instead of scipy's BVLS: their solutions differ by rounding, the decisions (a stick
tolerance of 1e-12 of the forces' scale) agree in every case. mode_events gives the directions,
input-driven flags and events_watch_all of the Python events. Where the Python update raises (a
breakaway of a friction that is not at rest, a non-finite force deciding a sign) decide returns a
status with its message. A decision made with a static level 1e-6 off differs: the comparison can fail.

The decisions are those of the installed C engine that ``system.compiled()`` calls; the sanitizer test
of test_compiled_lumped.py runs decide and mode_events from a build with sanitizers."""

import sys

import numpy as np
import pytest

from friction_joints.errors import FrictionJointsError
from friction_joints.hybrid.stiction import DirectionMode, direction_change
from friction_joints.lumped import SingleMassFriction, SingleMassParameters, TwoMassFriction, TwoMassParameters
from friction_joints.lumped.two_mass import Mode as TwoMode
from friction_joints.lumped.two_mass import mode_change
from friction_joints.native import INPUT_DRIVEN, NO_EVENT, START, Workspace
from friction_joints.native.model import CompiledModel

from test_compiled_lumped import SINGLE, SINGLE_MODES, TWO, single_system, two_modes, two_system

STATES = 24  # random states per configuration and mode
# slip velocities: at zero, within ZERO_VELOCITY (a located zero's noise) either way, just beyond it
SLIPS = (0.0, 1e-11, -1e-11, 2e-9, -2e-9)
NOT_AT_REST = "a breakaway of a friction that is not at zero relative velocity"
NOT_FINITE = "a non-finite force or velocity decides the mode"


class Lines:
    """The lines of the functions' code that run within the block (sys.settrace; the previous tracer is
    restored after it)."""

    def __init__(self, *functions):
        self.hit = {f.__code__: set() for f in functions}

    def __enter__(self):
        self.previous = sys.gettrace()
        sys.settrace(self._call)
        return self

    def __exit__(self, *exc):
        sys.settrace(self.previous)

    def _call(self, frame, event, arg):
        hit = self.hit.get(frame.f_code)
        if hit is None:
            return None

        def line(frame, event, arg):
            if event == "line":
                hit.add(frame.f_lineno)
            return line
        return line

    def missed(self):
        """{function name: its lines that did not run} of the functions with such lines."""
        missed = {}
        for code, hit in self.hit.items():
            lines = {line for *_, line in code.co_lines() if line is not None and line != code.co_firstlineno}
            if lines - hit:
                missed[code.co_qualname] = sorted(lines - hit)
        return missed


def compare(system, t, y, mode, event, model=None):
    """The C decision (``model``, default the system's compiled model) against system.update at
    (t, y, mode, event): asserts they agree; returns ('ok', kind) or ('raised', the C message)."""
    model = system.compiled() if model is None else model
    where = f"{type(system).__name__}, mode {mode}, event {event}, t={t!r}, y={list(y)!r}"
    try:
        want = system.update(t, np.array(y, float), mode, event)
    except Exception as error:  # the Python update raises: so does the C decision, with its message
        with pytest.raises(FrictionJointsError) as info:
            model.update(system, t, np.array(y, float), mode, event)
        return "raised", f"{info.value} (Python: {type(error).__name__}: {error})"
    got = model.update(system, t, np.array(y, float), mode, event)
    np.testing.assert_array_equal(got[0], want[0], err_msg=f"y ({where})")
    assert got[0].tobytes() == np.asarray(want[0], float).tobytes(), f"y bits ({where})"
    assert got[1] == want[1], f"mode: C {got[1]}, Python {want[1]} ({where})"
    assert got[2] == want[2], f"kind: C {got[2]!r}, Python {want[2]!r} ({where})"
    return "ok", want[2]


def every_decision(system, t, y, mode, seen):
    """compare at (t, y) after each event of mode, at a time event, and at the start (mode None);
    seen: a dict of the outcomes' counts."""
    for m, event in [(mode, ev.name) for ev in system.events(mode)] + [(mode, None), (None, None)]:
        outcome = compare(system, t, y, m, event)
        seen[outcome] = seen.get(outcome, 0) + 1


# ======================================================================================================
# Single mass
# ======================================================================================================

def single_edges():
    """Systems whose force F_W = F (K = 0) is exactly on the static level, or a rounding off it."""
    p = SingleMassParameters(C=0.4, FT0=2.0, FT0S=3.0)
    return [SingleMassFriction(p, [F]) for F in (3.0, -3.0, np.nextafter(3.0, 4.0), np.nextafter(-3.0, -4.0), 0.0)]


def single_states(system, rng):
    vb = system.p.v_belt
    for k in range(STATES):
        slip = SLIPS[k] if k < len(SLIPS) else rng.normal()
        yield rng.uniform(0.0, 5.0), np.array([2.0 * rng.normal(), vb + slip, rng.normal(), rng.normal()])


def test_single_mass_decisions_agree():
    """Every mode (slipping either way, stuck), every event, a time event and the start: the C decision
    equals SingleMassFriction.update; every line of update and direction_change runs, every kind is seen."""
    rng = np.random.default_rng(1)
    seen = {}
    systems = [single_system(kw) for kw in SINGLE.values()] + single_edges()
    with Lines(SingleMassFriction.update, direction_change) as lines:
        for system in systems:
            for t, y in single_states(system, rng):
                for mode in SINGLE_MODES:
                    every_decision(system, t, y, mode, seen)
    assert lines.missed() == {}
    assert {kind for (what, kind) in seen if what == "ok"} == {None, "stick", "breakaway", "reversal", "slip"}
    assert sum(seen.values()) > 1500 and not any(what == "raised" for what, _ in seen)


# ======================================================================================================
# Two masses
# ======================================================================================================

def two_edges():
    """Systems with constant forces exactly on the static levels: |F1| = FT012S (block 1 held by block 2
    at its limit), |F1 + F2| = FT020S (the base at its limit), and both."""
    p = TwoMassParameters(C12=0.3, C20=0.8, FT012=2.0, FT020=6.0, FT012S=2.5, FT020S=7.0, M2=3.0)
    forces = [(2.5, 1.0), (-2.5, 1.0), (1.0, 6.0), (1.0, -8.0), (2.5, 4.5), (-2.5, -4.5), (0.0, 0.0)]
    return [TwoMassFriction(p, list(F)) for F in forces]


def two_states(system, mode, rng):
    """(t, y) with the relative velocities of stuck frictions exactly zero, the others at zero, within
    or beyond ZERO_VELOCITY, or slipping either way."""
    for _ in range(STATES):
        v = [0.0 if mode.stuck[c] else SLIPS[k] if (k := rng.integers(8)) < len(SLIPS) else rng.normal()
             for c in range(2)]
        y = np.array([rng.normal(), rng.normal(), v[0] + v[1], v[1], rng.normal(), rng.normal()])
        yield rng.uniform(0.0, 5.0), y


def test_two_mass_decisions_agree():
    """Every mode (each stuck set, slip directions either way or none), every event, a time event and the
    start, with the Gauss principle: the C decision equals TwoMassFriction.update; every line of update
    and mode_change runs, the kinds of every change are seen. A breakaway of a stuck friction without
    static friction (a mode the update never makes) raises in both."""
    rng = np.random.default_rng(2)
    seen = {}
    systems = [two_system(kw) for kw in TWO.values()] + two_edges()
    with Lines(TwoMassFriction.update, mode_change) as lines:
        for system in systems:
            for mode in two_modes():
                for t, y in two_states(system, mode, rng):
                    every_decision(system, t, y, mode, seen)
    assert lines.missed() == {}
    kinds = {kind for (what, kind) in seen if what == "ok"}
    assert {None, "stick", "breakaway", "reversal", "slip", "stick+breakaway", "breakaway+reversal",
            "stick+reversal"} <= kinds, kinds
    raised = {message for (what, message) in seen if what == "raised"}
    assert raised and all(m.startswith(NOT_AT_REST) and "x not in list" in m for m in raised), raised
    assert sum(seen.values()) > 10000


def test_the_gauss_principle_selects_every_stuck_set():
    """At rest (both relative velocities zero) the start decides, by the Gauss principle, each stuck set
    for some forces, and the C decision agrees on each."""
    rng = np.random.default_rng(5)
    p = TwoMassParameters(**TWO["viscous-static"])
    stuck_sets = set()
    for _ in range(200):
        F = [rng.uniform(-1.0, 1.0) * 6.0 * p.FT012S, rng.uniform(-1.0, 1.0) * 2.5 * p.FT020S]
        system = TwoMassFriction(p, F)
        y = np.concatenate((rng.normal(size=2), [0.0, 0.0], rng.normal(size=2)))
        assert compare(system, 0.0, y, None, None)[0] == "ok"
        stuck_sets.add(system.update(0.0, y, None, None)[1].stuck)
    assert stuck_sets == {(False, False), (True, False), (False, True), (True, True)}


# ======================================================================================================
# Events, failures, layout
# ======================================================================================================

def all_systems_and_modes():
    for kw in SINGLE.values():
        yield single_system(kw), SINGLE_MODES
    for kw in TWO.values():
        yield two_system(kw), two_modes()


def test_mode_events_agree():
    """The directions, input-driven flags and events_watch_all of each mode's events."""
    n = 0
    for system, modes in all_systems_and_modes():
        for mode in modes:
            directions, flags, watch_all = system.compiled().mode_events(system, mode)
            evs = system.events(mode)
            assert list(directions) == [ev.direction for ev in evs], mode
            assert list(flags) == [INPUT_DRIVEN if ev.input_driven else 0 for ev in evs], mode
            assert watch_all == system.events_watch_all(mode), mode
            n += 1
    assert n == 4 * 3 + 4 * 16


def test_layout_and_modes_round_trip():
    """The mode arrays' sizes, an empty change report (the kind follows from the modes), most events;
    decode_mode inverts encode_mode; decide writes fmode as imode in floats."""
    for system, modes in all_systems_and_modes():
        model = system.compiled()
        layout = model.mode_layout
        size = 1 if isinstance(system, SingleMassFriction) else 4
        assert (layout.n_fmode, layout.n_imode, layout.n_change) == (size, size, 0)
        assert layout.max_events == max(len(system.events(mode)) for mode in modes)
        for mode in modes:
            fmode, imode = system.encode_mode(mode)
            assert system.decode_mode(fmode, imode) == mode
            ws = Workspace(model.family, model.fpar, model.ipar)
            ws.set_mode(fmode, imode)
            status, new_f, new_i, change = ws.decide(0.3, np.zeros(4 if size == 1 else 6),
                                                     np.asarray(system.input_values(0.3), float), NO_EVENT, layout)
            assert status == 0 and change.size == 0 and np.array_equal(new_f, new_i.astype(float))


def test_failures_where_python_raises():
    """A non-finite force where the decision takes its sign (at the start, at a time event, at a
    breakaway) and a breakaway of a friction that is not at rest: the Python update raises, the C
    decision returns a status whose message says why."""
    nan = lambda t: np.nan  # noqa: E731
    single = SingleMassFriction(SingleMassParameters(), [nan])
    two = TwoMassFriction(TwoMassParameters(), [nan, 1.0])
    two_inf = TwoMassFriction(TwoMassParameters(), [lambda t: np.inf, 1.0])
    cases = [(single, np.zeros(4), None, None, NOT_FINITE),
             (single, np.zeros(4), DirectionMode(0), "breakaway", NOT_FINITE),
             (two, np.zeros(6), None, None, NOT_FINITE),
             (two_inf, np.zeros(6), TwoMode((0, 0), (True, True)), None, NOT_FINITE),
             (two, np.zeros(6), TwoMode((0, 0), (True, True)), "breakaway:0", NOT_FINITE),
             (two_system({}), np.array([0.0, 0.0, 0.3, 0.0, 0.0, 0.0]), TwoMode((0, 0), (True, True)),
              "breakaway:0", NOT_AT_REST),
             (two_system({}), np.array([0.0, 0.0, 0.3, 0.3, 0.0, 0.0]), TwoMode((1, 0), (False, True)),
              "breakaway:1", NOT_AT_REST)]
    for system, y, mode, event, message in cases:
        outcome, text = compare(system, 0.5, y, mode, event)
        assert outcome == "raised" and text.startswith(message), (mode, event, text)


def test_bad_event_index():
    """decide refuses an event index beyond the mode's events (or below START) with a status."""
    for system, mode in ((single_system(SINGLE["frictionless"]), DirectionMode(1)),  # no events
                         (two_system({}), TwoMode((1, -1), (False, False)))):
        model = system.compiled()
        n = len(system.events(mode))
        for event in (n, START - 1):
            ws = Workspace(model.family, model.fpar, model.ipar)
            ws.set_mode(*system.encode_mode(mode))
            y = np.array([0.0, 0.5, 0.0, 0.0] if n == 0 else [0.0, 0.0, 0.5, -0.5, 0.0, 0.0])
            status = ws.decide(0.0, y, np.asarray(system.input_values(0.0), float), event, model.mode_layout)[0]
            assert status != 0 and model.message(status) == "the event is not one of the mode's events"


def test_the_comparison_can_fail():
    """The C decision with a static level 1e-6 smaller breaks a stiction that the Python model (and the
    C decision with the true level) holds: compare fails on it."""
    p1 = SingleMassParameters(C=0.4, FT0=2.0, FT0S=3.0)
    p2 = TwoMassParameters(**TWO["viscous-static"])
    for system, y, index in ((SingleMassFriction(p1, [3.0 * (1.0 - 1e-7)]), np.zeros(4), 3),
                             (TwoMassFriction(p2, [2.5 * (1.0 - 1e-7), 0.0]), np.zeros(6), 6)):
        model = system.compiled()
        assert compare(system, 0.0, y, None, None) == ("ok", "stick")
        fpar = model.fpar.copy()
        fpar[index] *= 1.0 - 1e-6
        perturbed = CompiledModel(model.family_name, fpar, model.ipar, model.n_record)
        with pytest.raises(AssertionError, match="mode"):
            compare(system, 0.0, y, None, None, model=perturbed)
