"""The mode decisions of the planar family in C (planar.c's decide and mode_events) against the Python
engine, their reference: ``CompiledModel.update(system, t, y, mode, event)`` equals
``MechanismSystem.update(t, y, mode, event)`` (the new mode, its kind, the state) and
``CompiledModel.mode_events`` equals ``events(mode)`` and ``events_watch_all(mode)``.

Cases: random states of the seed mechanisms (test_compiled_planar's, and the catalogue's mechanism files)
moving, at rest and with some contacts at zero slip (u in the null space of their rows), with inputs near
the static balance so that contacts both stick and slip; at each state the start (mode None), random
modes of every kind (slip, stuck, frozen, shared) and the modes update decides, each after every event
of the mode and after none (a time event or a settling pass). Special states: kinematic zeros of a
contact's slip (a row Cpp_c vanishes, located by bisection) and partitions near their dead centre (cond(V)
beyond planar.minimal.MAX_CONDITION: update changes the partition and converts u). The new mode is
compared with == except its lock rows (rows of Cpp, computed in another order in C: to 1e-14 of their
scale), the C mode arrays with ``encode_mode`` of the Python mode (the QR pivots exactly), y exactly
where update leaves or zeroes it and to 1e-14 of its scale where it computes it; a Python exception is
matched by a status of the same failure."""

from collections import Counter
from dataclasses import replace
from itertools import combinations
from pathlib import Path
from unittest.mock import patch

import numpy as np
import pytest

import test_compiled_planar as cp
from friction_joints import native
from friction_joints.errors import ConvergenceError, FrictionJointsError, SingularConfigurationError
from friction_joints.hybrid import Constant
from friction_joints.mechanisms import regularised, slider_crank, stacked_blocks
from friction_joints.mechanisms.files import read_file
from friction_joints.planar import MechanismSystem, Mode, RegularisedSystem, packing
from friction_joints.planar.system import ZERO_ROW, lock_velocity

from native_build import run_against, run_kernels

CATALOGUE = Path(__file__).resolve().parent.parent / "examples" / "mechanisms"
RTOL = 1e-14  # of the scale of y's velocities (at least 1) and of a lock row where C computes them
FACTORIES = {**cp.FACTORIES, **{name: (lambda name=name: read_file(CATALOGUE / f"{name}.toml").build().mechanism)
                                for name in ("FourBar", "QuickReturn", "Ackermann")}}


# --- one decision in both engines ---------------------------------------------------------------------

def c_update(cm, system, t, y, mode, event):
    """((y, mode, kind) of CompiledModel.update or its FrictionJointsError, the raw (status, fmode, imode,
    change) of the C decide it called)."""
    raw = {}
    decide = native.Workspace.decide

    def spy(ws, *args):
        raw["out"] = decide(ws, *args)
        return raw["out"]

    with patch.object(native.Workspace, "decide", spy):
        try:
            return cm.update(system, t, y, mode, event), raw["out"]
        except FrictionJointsError as exc:
            return exc, raw["out"]


def expected_statuses(exc):
    """The C statuses of the failure the Python engine raised."""
    if type(exc) is ValueError and "not in list" in str(exc):  # the contact breaking away is not at zero slip
        return {packing.ST_BREAKAWAY_SLIPPING}
    if type(exc) is FrictionJointsError and "not supported" in str(exc):
        return {packing.ST_DEPENDENT_STUCK}
    if type(exc) is ConvergenceError:
        return cp.STATUS_OF[ConvergenceError] | {packing.ST_GAUSS_NO_SETTLE}
    return cp.STATUS_OF.get(type(exc), set())


def assert_same_mode(new, ref, what):
    """== but for the lock rows (to RTOL of their scale)."""
    assert (new.direction, new.stuck, new.partition, len(new.lock)) == \
        (ref.direction, ref.stuck, ref.partition, len(ref.lock)), f"{what}: mode {new} != {ref}"
    if ref.lock:
        lock, expected = np.array(new.lock), np.array(ref.lock)
        scale = max(np.abs(expected).max(), 1.0)
        np.testing.assert_allclose(lock, expected, rtol=0, atol=RTOL * scale, err_msg=f"{what}: lock rows")
        if new != ref:  # the rows differ in their last bits: equal with the Python rows in
            assert replace(new, lock=ref.lock) == ref


def compare_update(system, cm, t, y, mode, event, label, tally):
    """C against Python for update(t, y, mode, event); the Python result (y, mode, kind) or None."""
    what = f"{label} mode {mode} event {event}"
    tally["python"] += 1
    try:
        ref = system.update(t, y.copy(), mode, event)
    except (FrictionJointsError, ValueError) as exc:
        got, (status, *_) = c_update(cm, system, t, y.copy(), mode, event)
        assert isinstance(got, FrictionJointsError), f"{what}: Python raised {exc!r}, C decided {got}"
        assert status in expected_statuses(exc), f"{what}: Python raised {exc!r}, C status {status} ({got})"
        tally["error " + type(exc).__name__] += 1
        return None
    got, (status, fmode, imode, change) = c_update(cm, system, t, y.copy(), mode, event)
    assert not isinstance(got, Exception), f"{what}: C failed ({got}), Python decided {ref[1:]}"
    (y_c, new_c, kind_c), (y_ref, new_ref, kind_ref) = got, ref
    assert kind_c == kind_ref, f"{what}: kind {kind_c!r} != {kind_ref!r}"
    assert_same_mode(new_c, new_ref, what)
    # the arrays of the C mode: encode_mode's of the Python mode (partition, stuck, flags, QR pivots exactly)
    f_ref, i_ref = system.encode_mode(new_ref)
    np.testing.assert_array_equal(imode, i_ref, err_msg=f"{what}: imode")
    np.testing.assert_allclose(fmode, f_ref, rtol=0, atol=RTOL * max(np.abs(f_ref).max(initial=0.0), 1.0),
                               err_msg=f"{what}: fmode")
    k1, k = system.k1, system.k
    np.testing.assert_array_equal(y_c[:k1], y_ref[:k1], err_msg=f"{what}: q")
    np.testing.assert_array_equal(y_c[k1 + k:], y_ref[k1 + k:], err_msg=f"{what}: works")
    u_c, u_ref = y_c[k1:k1 + k], y_ref[k1:k1 + k]
    np.testing.assert_array_equal(u_c[u_ref == 0.0], 0.0, err_msg=f"{what}: the locked velocities")
    np.testing.assert_allclose(u_c, u_ref, rtol=0, atol=RTOL * max(np.abs(u_ref).max(), 1.0) * conversion(system, y, mode,
                                                                                                   new_ref),
                               err_msg=f"{what}: u")
    tally[kind_ref or "None"] += 1
    tally["partition changed"] += int(conversion(system, y, mode, new_ref) != 1.0)
    tally[cp.kind_of(system, new_ref)] += 1
    return ref


def conversion(system, y, mode, new):
    """The condition of u's conversion to the new partition (cond(V) of the old one; 1 if it stays): the
    two engines' u agree to its rounding times this."""
    old = system.mech.partition if mode is None else mode.partition
    if tuple(new.partition) == tuple(old):
        return 1.0
    v_idx = [i for i in range(system.k1) if i not in old]
    return np.linalg.cond(system.minimal.closing_jacobian(y[:system.k1])[3][:, v_idx])


def compare_events(system, cm, mode, what):
    directions, flags, watch_all = cm.mode_events(system, mode)
    evs = system.events(mode)
    assert directions.tolist() == [ev.direction for ev in evs], what
    assert flags.tolist() == [native.INPUT_DRIVEN if ev.input_driven else 0 for ev in evs], what
    assert watch_all == system.events_watch_all(mode), what


# --- states and modes -----------------------------------------------------------------------------------

def near_balance(mech, q, rng):
    """Inputs near the static balance h'' = 0 at q (test_compiled_planar's), with inputs that leave h''
    unchanged (loading the joints) where there are such: contacts stick and slip."""
    u0, nd = np.zeros(mech.minimal.k), mech.model.n_drives
    h2 = lambda tau: mech.minimal.linear_terms(q, u0, tau, mech.partition)["h2"]  # noqa: E731
    G = np.column_stack([h2(e) - h2(np.zeros(nd)) for e in np.eye(nd)])
    balance = np.linalg.lstsq(G, -h2(np.zeros(nd)), rcond=None)[0]
    _, sv, Vt = np.linalg.svd(G)
    null = Vt[int(np.sum(sv > 1e-9 * max(sv.max(initial=0.0), 1.0))):]
    return balance + null.T @ rng.uniform(-10, 10, size=len(null)) + rng.choice([1e-3, 0.1, 10.0]) * rng.uniform(
        -1, 1, size=nd)


def velocities(system, q, u, tau, rng):
    """u moving, at rest, and (k > 1) in the null space of the rows of a random set of contacts (their
    slip exactly zero or nearly)."""
    out = [u, np.zeros(system.k)]
    contacts = [int(c) for c in system.contacts]
    if system.k > 1 and contacts:
        Cpp = system.minimal.linear_terms(q, u, tau, system.mech.partition)["Cpp"]
        S = rng.choice(contacts, size=rng.integers(1, len(contacts) + 1), replace=False)
        _, sv, Vt = np.linalg.svd(Cpp[S])
        null = Vt[int(np.sum(sv > 1e-9 * max(sv.max(), 1.0))):]
        if len(null):
            out.append(null.T @ rng.uniform(-2, 2, size=len(null)))
    return out


def kinematic_zeros(mech, n_grid=48):
    """q (1-DOF mechanisms) where a contact's row Cpp_c vanishes (a kinematic zero of its slip), by
    bisection on q[partition] between grid points where Cpp_c changes sign."""
    minimal, out = mech.minimal, []
    if minimal.k != 1:
        return out
    contacts = np.flatnonzero(mech.model.frictional)

    def rows(th):
        try:
            q = mech.assemble([th])
            return q, minimal.linear_terms(q, np.zeros(1), np.zeros(mech.model.n_drives), mech.partition)["Cpp"][:, 0]
        except (SingularConfigurationError, ValueError):
            return None, None
    grid = np.linspace(-np.pi, np.pi, n_grid)
    values = [rows(th)[1] for th in grid]
    for c in contacts:
        for i in range(n_grid - 1):
            a, b = values[i], values[i + 1]
            if a is None or b is None or not a[c] * b[c] < 0:
                continue
            lo, hi = grid[i], grid[i + 1]
            for _ in range(80):
                mid = 0.5 * (lo + hi)
                r = rows(mid)[1]
                if r is None:
                    break
                lo, hi = (mid, hi) if np.sign(r[c]) == np.sign(a[c]) else (lo, mid)
            q, r = rows(0.5 * (lo + hi))
            if r is not None and abs(r[c]) <= ZERO_ROW:
                out.append(q)
            break
    return out


def near_dead_centres(mech, n_grid=48):
    """(q, partition): every partition with cond(V) between MAX_CONDITION and 1e12 at q (update changes
    it), and beyond 1e12 (the velocities of the old partition fail)."""
    minimal, out = mech.minimal, []
    if minimal.m2 == 0 or minimal.k != 1:
        return out
    for partition in combinations(range(minimal.k1), minimal.k):
        v_idx = [i for i in range(minimal.k1) if i not in partition]

        def det(th):
            try:
                return np.linalg.det(minimal.closing_jacobian(mech.assemble([th]))[3][:, v_idx])
            except (SingularConfigurationError, ValueError):
                return None
        grid = np.linspace(-np.pi, np.pi, n_grid)
        values = [det(th) for th in grid]
        for i in range(n_grid - 1):
            a, b = values[i], values[i + 1]
            if a is None or b is None or not a * b < 0:
                continue
            lo, hi = grid[i], grid[i + 1]
            for _ in range(80):
                mid = 0.5 * (lo + hi)
                d = det(mid)
                if d is None:
                    break
                lo, hi = (mid, hi) if np.sign(d) == np.sign(a) else (lo, mid)
            for offset in (1e-5, 1e-14):
                q = mech.assemble([0.5 * (lo + hi) + offset])
                out.append((q, partition))
            break
    return out


def mode_list(system, q, u, tau, rng, other_partition):
    """test_compiled_planar's random modes of every kind, and the mode update decides at the start."""
    out = cp.modes(system, q, u, tau, rng, other_partition)
    try:
        out.append(system.update(0.0, np.concatenate((q, u, [0.0, 0.0])), None, None)[1])
    except FrictionJointsError:
        pass
    return out


def compare_mode(system, cm, t, y, mode, label, tally, follow=1):
    """The events of mode, and update after each of them and after none; follow: also the modes these
    decide, so many levels deep."""
    compare_events(system, cm, mode, f"{label} events of {mode}")
    tally["modes"] += 1
    for event in [None] + [ev.name for ev in system.events(mode)]:
        u_mode = lock_velocity(y[system.k1:system.k1 + system.k], mode.lock) if mode.stuck else y[system.k1:-2]
        y_mode = np.concatenate((y[:system.k1], u_mode, y[-2:]))
        ref = compare_update(system, cm, t, y_mode, mode, event, label, tally)
        if ref is not None and follow and ref[1] != mode:
            compare_mode(system, cm, t, ref[0], ref[1], label, tally, follow - 1)


def system_of(name):
    mech = FACTORIES[name]()
    system = MechanismSystem(mech, [0.0] * mech.model.n_drives)
    return mech, system, system.compiled()


# Python updates per mechanism in the random-state test (the Yoke's, ArmSlider's and QuickReturn's
# decisions at rest take 0.1-0.2 s: the sign-pattern search of their coupled solves)
BUDGET = {"Yoke": 30, "ArmSlider": 40, "QuickReturn": 40}
MODES_PER_STATE = 3  # random modes of test_compiled_planar.modes at each state, besides the start's


# --- tests ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(FACTORIES))
def test_decisions_match_the_python_engine(name, budget=None):
    """Random states moving, at rest and partly at zero slip: the start, random modes of every kind and
    the modes decided, after every event and none."""
    rng = np.random.default_rng(sum(map(ord, name)) + 1)
    mech, system, cm = system_of(name)
    tally = Counter()
    budget = budget or BUDGET.get(name, 160)
    for i in range(100):
        q, u, tau, _ = cp.random_state(mech, rng)
        if i % 2:
            tau = near_balance(mech, q, rng)
        system.inputs = [Constant(v) for v in tau]
        for j, v in enumerate(velocities(system, q, u, tau, rng)):
            y = np.concatenate((q, v, rng.uniform(-1, 1, size=2)))
            label = f"{name} state {i} velocity {j}"
            ref = compare_update(system, cm, 0.25, y, None, None, label, tally)
            modes = cp.modes(system, q, v, tau, rng, other_partition=(i + j) % 2 == 1)
            for m in rng.choice(len(modes), size=min(MODES_PER_STATE, len(modes)), replace=False):
                compare_mode(system, cm, 0.25, y, modes[m], label, tally, follow=0)
            if ref is not None:
                compare_mode(system, cm, 0.25, ref[0], ref[1], label, tally)
        if tally["python"] >= budget:
            break
    assert tally["python"] >= budget, tally


ONE_DOF = [name for name in FACTORIES if name not in ("SliderCrankFrictionless", "DupontTwoMass", "StackedBlocks", "Yoke",
                                                      "ArmSlider")]


@pytest.mark.parametrize("name", ONE_DOF)
def test_kinematic_zeros_and_partition_changes(name):
    """At the kinematic zeros of each contact's slip (reversal:c; the direction off the zero along u, or
    along udot at rest) and near the dead centres of every partition (update changes it and converts u;
    beyond cond(V) = 1e12 the conversion fails in both engines)."""
    rng = np.random.default_rng(sum(map(ord, name)) + 2)
    mech, system, cm = system_of(name)
    tally = Counter()
    l, contacts = mech.model.l, [int(c) for c in system.contacts]
    for i, q in enumerate(kinematic_zeros(mech)[:1 if name == "QuickReturn" else 3]):
        # at rest without inputs the Ackermann (no gravity) has udot = 0 too: the direction off the zero is 0
        tau = [near_balance(mech, q, rng), rng.uniform(-10, 10, size=mech.model.n_drives), np.zeros(
            mech.model.n_drives)][i % 3]
        system.inputs = [Constant(v) for v in tau]
        for v in (rng.uniform(-3, 3, size=1), np.zeros(1)):
            y = np.concatenate((q, v, [0.1, 0.2]))
            label = f"{name} kinematic zero {i} u {v}"
            ref = compare_update(system, cm, 0.0, y, None, None, label, tally)
            d = np.zeros(l, dtype=int)  # some contacts without a direction: off the zero along the motion
            d[contacts] = rng.choice([-1, 1], size=len(contacts)) * (rng.uniform(size=len(contacts)) >= 0.5)
            compare_mode(system, cm, 0.0, y, Mode(tuple(int(x) for x in d), (), (), mech.partition), label, tally,
                         follow=0)
            if ref is not None:
                compare_mode(system, cm, 0.0, ref[0], ref[1], label, tally)
    assert tally["python"] and any("reversal:" in kind for kind in tally), tally
    for i, (q, partition) in enumerate(near_dead_centres(mech)):
        tau = rng.uniform(-10, 10, size=mech.model.n_drives)
        system.inputs = [Constant(v) for v in tau]
        y = np.concatenate((q, rng.uniform(-3, 3, size=1), [0.1, 0.2]))
        d = np.zeros(l, dtype=int)
        d[contacts] = rng.choice([-1, 1], size=len(contacts))
        label = f"{name} near the dead centre of {partition} {i}"
        if partition == tuple(mech.partition):
            compare_update(system, cm, 0.0, y, None, None, label, tally)
        compare_mode(system, cm, 0.0, y, Mode(tuple(int(x) for x in d), (), (), partition), label, tally, follow=0)
    assert tally["partition changed"] and tally["error SingularConfigurationError"], tally


def recorded_updates(system, y0, t_end):
    """(t, y, mode, event, tau) of every update a run of system from y0 on the Python engine makes (the C
    engine decides in C)."""
    from friction_joints.engine import run

    calls, update = [], system.update

    def recording(t, y, mode, event):
        calls.append((t, np.array(y, dtype=float), mode, event, system.input_values(t)))
        return update(t, y, mode, event)

    system.update = recording
    try:
        run(system, y0, t_end, dt_out=0.02, engine="python")
    finally:
        del system.update
    return calls


def seed_runs():
    """Seed scenarios with stick, slip, reversals and breakaways: (label, system, y0, t_end)."""
    from friction_joints.hybrid import PiecewiseLinear, Sine
    from friction_joints.mechanisms import dupont_two_mass, offset_slider_crank

    def system(mech, inputs):
        return MechanismSystem(mech, inputs)
    crank, offset, dupont = slider_crank(), offset_slider_crank(), dupont_two_mass()
    ramp = PiecewiseLinear([0.0, 10.0], [0.0, 20.0])
    out = [("slider crank, seed 000 Example 2", system(crank, [Sine(4.0, 3.0)]), crank.assemble([0.0]), 3.0),
           ("offset slider crank, Example 1", system(offset, [Sine(6.0, 2.0)]), offset.assemble([0.3]), 2.0),
           ("Dupont, seed 000 Fig. 4c", system(dupont, [Sine(7.0, 2.4), Sine(50.0, 0.8, np.pi / 2)]), [0.0, 0.0],
            10.0)]
    for mu12, mu20, c in (((0.3, 0.2), (0.5, 0.4), 2.0), ((0.9, 0.8), (0.2, 0.1), 5.0)):  # both break orders
        mech = stacked_blocks(1.0, 2.0, *mu12, *mu20)
        out.append((f"stacked blocks ramp {c}", system(mech, [PiecewiseLinear([0.0, 10.0], [0.0, 10 * c]), 0.0]),
                    [0.0, 0.0], 3.5))
    yoke = cp.yoke()
    # the Yoke sticks until its breakaway at 0.284 s, its last update: it slips to 2 s without another (and
    # its stuck phase costs the Python engine 0.1 s a right-hand side)
    out.append(("Yoke", system(yoke, [Sine(0.5, 3.0), ramp]), yoke.assemble([0.4, 0.0]), 0.3))
    return [(label, sys_, sys_.initial_state(q0, np.zeros(sys_.k)), t_end) for label, sys_, q0, t_end in out]


@pytest.mark.slow
@pytest.mark.parametrize("case", range(6))
def test_decisions_along_seed_runs(case):
    """Every update a run of a seed scenario makes (the states at its located events, the time events and
    settling passes) decided again by both engines with the recorded inputs."""
    label, system, y0, t_end = seed_runs()[case]
    cm, tally = system.compiled(), Counter()
    calls = recorded_updates(system, y0, t_end)
    for t, y, mode, event, tau in calls:
        system.inputs = [Constant(v) for v in tau]
        compare_update(system, cm, t, y, mode, event, f"{label} t = {t}", tally)
        if mode is not None:
            compare_events(system, cm, mode, f"{label} t = {t} events of {mode}")
    assert len(calls) > 3 and all(any(word in kind for kind in tally) for word in ("stick", "breakaway")), tally


def test_gauss_principle_on_stacked_blocks():
    """The Gauss principle (seed 001) for both contacts of the stacked blocks at zero slip: inputs around
    the thresholds where one or both stick (tests/test_multi_contact_stiction.py's closed forms)."""
    rng = np.random.default_rng(11)
    tally = Counter()
    for _ in range(40):
        mech = stacked_blocks(1.0, 2.0, *np.sort(rng.uniform(0.1, 0.9, size=2))[::-1],
                              *np.sort(rng.uniform(0.1, 0.9, size=2))[::-1])
        system = MechanismSystem(mech, [0.0, 0.0])
        cm = system.compiled()
        system.inputs = [Constant(v) for v in rng.uniform(-30, 30, size=2)]
        u = [np.zeros(2), np.full(2, rng.uniform(-1, 1))][rng.integers(2)]  # at rest, or moving together
        y = np.concatenate(([0.0, 0.0], u, [0.0, 0.0]))
        ref = compare_update(system, cm, 0.0, y, None, None, "stacked blocks", tally)
        if ref is not None:
            compare_mode(system, cm, 0.0, ref[0], ref[1], "stacked blocks", tally)
    assert {"stuck", "frozen", "slip"} <= set(tally)


def test_a_breakaway_away_from_zero_slip_fails_in_both():
    """A stuck contact whose slip is not zero (y not locked) cannot break away: Python's update raises
    ValueError (list.remove), the C decide ST_BREAKAWAY_SLIPPING."""
    mech = stacked_blocks()
    system = MechanismSystem(mech, [1.0, 0.0])
    cm = system.compiled()
    mode = Mode((0, 1), (0,), ((-1.0, 1.0),), (0, 1))
    y = np.array([0.0, 0.0, 0.5, 1.0, 0.0, 0.0])
    with pytest.raises(ValueError):
        system.update(0.0, y.copy(), mode, "breakaway:0")
    tally = Counter()
    compare_update(system, cm, 0.0, y, mode, "breakaway:0", "stacked blocks", tally)
    assert tally["error ValueError"] == 1
    assert "not at zero slip" in cm.message(packing.ST_BREAKAWAY_SLIPPING)


def test_regularised_system_keeps_its_single_mode():
    """RegularisedSystem: the mode of the mechanism's partition, no events, no kind, y unchanged."""
    for mech in (regularised(slider_crank(), 0.01), regularised(cp.yoke(), 0.01)):
        rng = np.random.default_rng(5)
        system = RegularisedSystem(mech, [0.0] * mech.model.n_drives)
        cm = system.compiled()
        q, u, tau, _ = cp.random_state(mech, rng)
        system.inputs = [Constant(v) for v in tau]
        y = np.concatenate((q, u, [0.1, 0.2]))
        ref = system.update(0.0, y, None, None)
        for mode in (None, ref[1]):
            y_c, new, kind = cm.update(system, 0.0, y, mode, None)
            assert (new, kind) == ref[1:] and new.direction is None
            np.testing.assert_array_equal(y_c, y)
            np.testing.assert_array_equal(cm.workspace(system, new).decide(
                0.0, y.copy(), np.asarray(tau, float), native.NO_EVENT, cm.mode_layout)[2], system.encode_mode(new)[1])
        directions, flags, watch_all = cm.mode_events(system, ref[1])
        assert len(directions) == 0 == len(system.events(ref[1])) and watch_all == system.events_watch_all(ref[1])


def test_the_comparison_detects_a_wrong_decision():
    """A static coefficient changed in the packed model changes the C decision (the top block of the
    stacked blocks rides along instead of slipping): the comparisons above can fail."""
    system = MechanismSystem(stacked_blocks(1.0, 2.0, 0.3, 0.2, 0.5, 0.4), [0.0, 30.0])
    cm = system.compiled()
    y = np.zeros(6)
    compare_update(system, cm, 0.0, y, None, None, "stacked blocks", Counter())
    fpar = cm.fpar.copy()
    fpar[cm.ipar[packing.I_F_LAWS] + 0 * packing.LAW_WIDTH] = 0.6  # mu_s of the top contact: 0.3 -> 0.6
    with pytest.raises(AssertionError, match="mode"):
        compare_update(system, replace(cm, fpar=fpar), 0.0, y, None, None, "perturbed", Counter())


def test_layout_messages_and_events_of_the_family():
    """The mode layout is encode_mode's; every decision status has its message."""
    system = MechanismSystem(cp.yoke(), [0.0, 0.0])
    cm = system.compiled()
    layout = cm.mode_layout
    fmode, imode = system.encode_mode(Mode((1,) * system.model.l, (), (), system.mech.partition))
    assert (layout.n_fmode, layout.n_imode, layout.max_events, layout.n_change) == (
        fmode.size, imode.size, len(system.contacts), system.model.l)
    assert cm.family.decides_modes
    for status in (packing.ST_GAUSS_NO_SETTLE, packing.ST_DEPENDENT_STUCK, packing.ST_BREAKAWAY_SLIPPING):
        assert cm.message(status) != "unknown status"
    assert "not supported" in cm.message(packing.ST_DEPENDENT_STUCK)


def c_qr_pivots(A):
    """(pivots, |R_ii|) of planar.c's QR with column pivoting of A."""
    import ctypes

    fn = native.library().fj_planar_qr_pivots
    fn.restype, fn.argtypes = None, [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64] + [
        ctypes.c_void_p] * 4
    A = np.array(A, dtype=float, order="C")
    m, n = A.shape
    jpvt, rdiag, vn = np.zeros(n, dtype=np.int64), np.zeros(min(m, n)), np.zeros(2 * n)
    fn(A.ctypes.data, m, n, n, jpvt.ctypes.data, rdiag.ctypes.data, vn.ctypes.data, vn[n:].ctypes.data)
    return jpvt, rdiag


def seed_matrices(rng):
    """The matrices whose QR pivots the decisions take, at random states of the seed mechanisms: C2'
    (choose_partition), Cpp[S]^T (_independent_rows) and Cpp[S] (lock_velocity's pivot columns) for
    random sets S of contacts."""
    for name in FACTORIES:
        mech, system, _ = system_of(name)
        contacts = [int(c) for c in system.contacts]
        for _ in range(3):
            q, u, tau, lin = cp.random_state(mech, rng)
            if system.minimal.m2:
                yield f"{name} C2'", system.minimal.closing_jacobian(q)[3]
            for size in range(1, len(contacts) + 1):
                S = sorted(rng.choice(contacts, size=size, replace=False))
                yield f"{name} Cpp[{S}]^T", lin["Cpp"][S].T
                yield f"{name} Cpp[{S}]", lin["Cpp"][S]


def tie_matrices(rng):
    """Matrices with equal column norms (entries -1, 0, 1, repeated, negated and permuted columns, zero
    columns, exact multiples), where the first of the equal columns must be taken as LAPACK takes it."""
    for _ in range(300):
        m, n = rng.integers(1, 5), rng.integers(1, 6)
        A = rng.integers(-1, 2, size=(m, n)).astype(float)
        if n > 1 and rng.uniform() < 0.5:
            A[:, rng.integers(n)] = rng.choice([-1.0, 1.0, 2.0]) * A[:, rng.integers(n)]
        yield "ties", A


def test_qr_pivots_are_lapacks():
    """planar.c's QR with column pivoting gives scipy.linalg.qr(pivoting=True)'s pivots (LAPACK dgeqp3)
    exactly and its |R_ii| to rounding: on the matrices of the decisions at the seed mechanisms' states,
    on matrices full of ties and on random ones."""
    import scipy.linalg as sla

    rng = np.random.default_rng(3)
    randoms = (("random", rng.standard_normal((rng.integers(1, 6), rng.integers(1, 8))) * 10.0 ** rng.integers(-3, 4))
               for _ in range(300))
    count = 0
    for what, A in (*seed_matrices(rng), *tie_matrices(rng), *randoms):
        _, r, piv = sla.qr(A, pivoting=True, mode="economic")
        jpvt, rdiag = c_qr_pivots(A)
        np.testing.assert_array_equal(jpvt, piv, err_msg=f"{what}: pivots of\n{A!r}")
        np.testing.assert_allclose(rdiag, np.abs(np.diag(r)), rtol=0, atol=1e-14 * max(np.abs(r).max(), 1e-300),
                                   err_msg=f"{what}: |R_ii| of\n{A!r}")
        count += 1
    assert count > 700


SANITIZED = f"""
import sys
from friction_joints.native import library
import {Path(__file__).stem} as tests
assert library() is library(sys.argv[1])
for name in ("Yoke", "TwinSlider", "StackedBlocks", "SliderCrank"):
    tests.test_decisions_match_the_python_engine(name, budget=15)
tests.test_kinematic_zeros_and_partition_changes("OffsetSliderCrank")
tests.test_gauss_principle_on_stacked_blocks()
tests.test_a_breakaway_away_from_zero_slip_fails_in_both()
tests.test_regularised_system_keeps_its_single_mode()
"""


@pytest.mark.slow
def test_decide_under_sanitizers(sanitized_engine):
    """decide and mode_events with the engine built with the sanitizers (conftest's ``sanitized_engine``):
    the comparisons above on a few mechanisms (every branch of update), and run_kernels's calls of every
    kernel, mode_events and decide after each event, at a time event and at the start, in slipping, stuck,
    frozen and shared modes."""
    run_against(sanitized_engine, SANITIZED)
    cases, rng = [], np.random.default_rng(2)
    for name in ("Yoke", "StackedBlocks", "SliderCrank"):
        mech, system, _ = system_of(name)
        q, u, tau, _ = cp.random_state(mech, rng)
        system.inputs = [Constant(v) for v in tau]
        for mode in cp.modes(system, q, u, tau, rng, other_partition=False):
            y = np.concatenate((q, lock_velocity(u, mode.lock) if mode.stuck else u, [0.0, 0.0]))
            try:  # run_kernels asks every call to succeed: the cases where the Python engine decides
                [system.update(0.0, y.copy(), mode, ev) for ev in [None] + [e.name for e in system.events(mode)]]
                system.update(0.0, y.copy(), None, None)
            except (FrictionJointsError, ValueError):
                continue
            cases.append((system, 0.0, y, mode))
    assert {cp.kind_of(system, mode) for system, _, _, mode in cases} >= {"slip", "stuck", "frozen", "shared"}
    run_kernels(sanitized_engine, cases)
