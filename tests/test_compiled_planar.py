"""The compiled kernels of the planar engine (friction_joints.planar.packing) against the Python
engine, their reference: MechanismSystem.rhs, .events(mode) and .record on random states of the
seed mechanisms and of test mechanisms with every joint type and friction law (PinInSlot,
Prismatic with edge_length on a rotating guide, Stribeck, Exponential, Tanh, frictionless
coordinates, four closing rows), in every mode kind (slip, stuck, frozen, shared stiction and
shared frozen stiction) and other partitions; the failures (dead centre, Painleve cases) give the
status codes and messages of the Python exceptions, and cond(V) decides the dead centre as in the
Python engine. Agreement to 1e-10 of each quantity's scale (at least 1 in its unit).

The kernels are those of the installed C engine (native/src/planar.c) that ``system.compiled()`` calls;
some of these tests also run once against a build with sanitizers (tests/native_build.py)."""

import itertools
from pathlib import Path

import numpy as np
import pytest

from friction_joints.errors import (ConvergenceError, FrictionJointsError, IndeterminateFrictionError,
                                    InconsistentFrictionError, SingularConfigurationError)
from friction_joints.friction import Coulomb, Exponential, FrictionLaw, Stribeck, Tanh
from friction_joints.hybrid import Constant
from friction_joints.mechanisms import (Mechanism, dupont_two_mass, offset_slider_crank, regularised, slider_crank,
                                        stacked_blocks)
from friction_joints import native
from friction_joints.native import library
from friction_joints.planar import (Body, BodyLoad, MechanismSystem, MinimalForm, Mode, PinInSlot, PlanarModel,
                                    Prismatic, RegularisedSystem, Revolute, packing)
from friction_joints.planar.system import _independent_rows, lock_velocity

from native_build import run_against

RTOL = 1e-10  # of each quantity's scale (its largest magnitude, at least 1)
STATES = 6  # random states per mechanism (the Yoke's Python reference is slow: a sign-pattern search)
MAX_COND_M2 = 1e4  # states beyond it lose digits in proportion in both engines (they are skipped)


# --- test mechanisms ----------------------------------------------------------------------------------

def yoke(a=0.3):
    """Scotch yoke with a block riding on the yoke: crank (Stribeck) turning about O, its pin in a
    vertical slot of the yoke (PinInSlot: Coulomb sliding, Tanh pin rotation), the yoke on a guide
    along x with edge_length (Tanh), the block on the yoke (Exponential). q = [th, x2, x3], k = 2."""
    model = PlanarModel(
        bodies=[Body("crank", 1.0, 0.02), Body("yoke", 2.0, 0.05), Body("block", 0.5, 0.01)],
        joints=[Revolute(1, 0, (-a / 2, 0.0), (0.0, 0.0), Stribeck(0.2, 0.1, 0.05, 2.0), 0.02),
                Prismatic(2, 0, (0.0, 0.0), (0.0, 0.0), (1.0, 0.0), 0.0, Tanh(0.15, 0.02, mu_s=0.2), edge_length=0.3),
                Prismatic(3, 2, (0.0, 0.0), (0.0, 0.1), (1.0, 0.0), 0.0, Exponential(0.3, 3.0, 0.01, mu_s=0.35)),
                PinInSlot(1, 2, (a / 2, 0.0), (0.0, 0.0), (0.0, 1.0), Coulomb(0.25, 0.2), Tanh(0.1, 0.01, mu_s=0.15),
                          0.01)],
        drives=[BodyLoad(1, (0.0, 0.0, 1.0)), BodyLoad(3, (1.0, 0.0, 0.0))],
        gravity=(0.0, -9.81))
    minimal = MinimalForm(model, tree=(0, 1, 2), coordinates=("theta", "x", "x"))
    return Mechanism("Yoke", model, minimal, (0, 2), ("th", "x2", "x3"),
                     lambda q_u: np.array([q_u[0], a * np.cos(q_u[0]), q_u[1]]))


def arm_slider():
    """A slider on a turning arm: rotating guide (e_j not along an axis, theta_0, edge_length),
    open tree, q = [th2, y1], k = 2."""
    model = PlanarModel(
        bodies=[Body("slider", 0.7, 0.01), Body("arm", 2.0, 0.1)],
        joints=[Prismatic(1, 2, (0.1, 0.05), (-0.3, 0.1), (0.6, 0.8), 0.3, Coulomb(0.3, 0.2), edge_length=0.1),
                Revolute(2, 0, (0.3, -0.1), (0.0, 0.0), Stribeck(0.2, 0.1, 0.5, 1.5), 0.05)],
        drives=[BodyLoad(2, (0.0, 0.0, 1.0)), BodyLoad(1, (1.0, -0.5, 0.0))],
        gravity=(0.0, -9.81))
    minimal = MinimalForm(model, tree=(1, 0))
    return Mechanism("ArmSlider", model, minimal, (0, 1), ("th2", "y1"), lambda q_u: np.asarray(q_u, float))


def twin_slider(a1=0.1, a2=0.3, a4=0.35):
    """Two connecting rods on one crank pin, one slider on x, one on y: four closing rows (two
    revolutes), q = [th1, th2, x3, th4, y5], k = 1; frictionless guides and pins among Coulomb ones."""
    law = Coulomb(0.15, 0.1)
    model = PlanarModel(
        bodies=[Body("crank", 1.0, 0.01), Body("rodA", 1.5, 0.03), Body("sliderA", 0.4, 0.0), Body("rodB", 1.2, 0.02),
                Body("sliderB", 0.3, 0.0)],
        joints=[Revolute(1, 0, (-a1, 0.0), (0.0, 0.0), law, 0.02),
                Revolute(2, 1, (-a2, 0.0), (a1, 0.0), law, 0.02),
                Prismatic(3, 0, (0.0, 0.0), (0.0, 0.0), (1.0, 0.0), 0.0, Coulomb(0.3, 0.2)),
                Revolute(4, 1, (-a4, 0.0), (a1, 0.0)),
                Prismatic(5, 0, (0.0, 0.0), (0.0, 0.0), (0.0, 1.0), 0.0),
                Revolute(3, 2, (0.0, 0.0), (a2, 0.0), law, 0.02),
                Revolute(5, 4, (0.0, 0.0), (a4, 0.0), Stribeck(0.2, 0.1, 0.3), 0.02)],
        drives=[BodyLoad(1, (0.0, 0.0, 1.0))],
        gravity=(0.0, -9.81))
    minimal = MinimalForm(model, tree=(0, 1, 2, 3, 4), coordinates=("theta", "theta", "x", "theta", "y"))

    def guess(q_u):
        q1 = q_u[0]
        px, py = 2 * a1 * np.cos(q1), 2 * a1 * np.sin(q1)
        q2 = np.arcsin(-py / (2 * a2))
        q4 = np.arccos(-px / (2 * a4))
        return np.array([q1, q2, px + 2 * a2 * np.cos(q2), q4, py + 2 * a4 * np.sin(q4)])

    return Mechanism("TwinSlider", model, minimal, (0,), ("th1", "th2", "x3", "th4", "y5"), guess)


FACTORIES = {
    "SliderCrank": slider_crank,  # seed 000 Example 2, massless slider
    "SliderCrankMassive": lambda: slider_crank(m3=0.5),
    "SliderCrankFrictionless": lambda: slider_crank(friction=False),  # no contact, no event
    "OffsetSliderCrank": offset_slider_crank,  # Example 1 (stuck modes reach the Painleve cases)
    "DupontTwoMass": dupont_two_mass,
    "StackedBlocks": stacked_blocks,
    "Yoke": yoke,  # kappa > 1: the sign-pattern search
    "ArmSlider": arm_slider,
    "TwinSlider": twin_slider,
}
# mode kinds every mechanism reaches in the test
KINDS = {
    "SliderCrank": {"slip", "frozen", "shared frozen"},
    "SliderCrankMassive": {"slip", "frozen", "shared frozen"},
    "SliderCrankFrictionless": {"slip"},
    "OffsetSliderCrank": {"slip", "frozen", "shared frozen"},
    "DupontTwoMass": {"slip", "stuck"},
    "StackedBlocks": {"slip", "stuck", "frozen"},
    "Yoke": {"slip", "stuck", "frozen", "shared", "shared frozen"},
    "ArmSlider": {"slip", "stuck", "frozen"},
    "TwinSlider": {"slip", "frozen", "shared frozen"},
}
# the status codes a kernel may return where the Python engine raises
STATUS_OF = {
    SingularConfigurationError: {packing.ST_GUIDE_AXIS, packing.ST_V_SINGULAR, packing.ST_M2_NOT_PD},
    ConvergenceError: {packing.ST_NO_CONVERGENCE, packing.ST_SHARED_NO_SETTLE},
    InconsistentFrictionError: {packing.ST_INCONSISTENT},
    IndeterminateFrictionError: {packing.ST_INDETERMINATE},
    np.linalg.LinAlgError: {packing.ST_TREE_SINGULAR, packing.ST_CCT_SINGULAR, packing.ST_LOCK_SINGULAR},
}
# words of a failure that the Python exception's text and the kernels' (model.message) both have
NAMES = {
    packing.ST_V_SINGULAR: "(a dead-centre configuration)",
    packing.ST_M2_NOT_PD: "the reduced mass matrix M'' is not positive definite",
    packing.ST_NO_CONVERGENCE: "reaction-friction iteration did not converge",
    packing.ST_INCONSISTENT: "have no solution (Painleve inconsistency",
    packing.ST_INDETERMINATE: "solutions (Painleve indeterminacy",
    packing.ST_SHARED_NO_SETTLE: "the shared holding friction does not settle",
}


# --- helpers ------------------------------------------------------------------------------------------

def kind_of(system, mode):
    if not mode.stuck:
        return "slip"
    frozen = len(mode.lock) == system.k
    if mode.shared:
        return "shared frozen" if frozen else "shared"
    return "frozen" if frozen else "stuck"


def assert_close(actual, expected, what):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    scale = max(np.abs(expected).max(initial=0.0), 1.0)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=RTOL * scale, err_msg=what)


def random_state(mech, rng):
    """(q, u, tau) near an assembled configuration, M'' well conditioned."""
    k, minimal = mech.minimal.k, mech.minimal
    for _ in range(100):
        q_u = rng.uniform(-np.pi, np.pi, size=len(mech.partition))
        if mech.name in ("DupontTwoMass", "StackedBlocks"):
            q_u = rng.uniform(-1, 1, size=len(mech.partition))
        if mech.name == "Yoke":
            q_u[1] = rng.uniform(-1, 1)
        try:
            q = mech.assemble(q_u)
        except SingularConfigurationError:
            continue
        u = rng.uniform(-3, 3, size=k)
        tau = rng.uniform(-10, 10, size=mech.model.n_drives) * (10 if mech.name == "DupontTwoMass" else 1)
        try:
            lin = minimal.linear_terms(q, u, tau, mech.partition)
        except SingularConfigurationError:
            continue
        if np.linalg.cond(lin["M2"]) < MAX_COND_M2:
            return q, u, tau, lin
    raise AssertionError(f"no well-conditioned state of {mech.name}")


def partitions(mech, q, other_too):
    """The default partition and (if other_too) another well-conditioned one, if any."""
    minimal, out = mech.minimal, [tuple(mech.partition)]
    other = minimal.choose_partition(q)
    if other_too and other not in out:
        try:
            cond = np.linalg.cond(minimal.linear_terms(q, np.zeros(minimal.k), np.zeros(mech.model.n_drives),
                                                       other)["M2"])
        except SingularConfigurationError:
            cond = np.inf
        if cond < MAX_COND_M2:
            out.append(other)
    return out


def modes(system, q, u, tau, rng, other_partition):
    """Modes of every kind at (q, u, tau): random slip directions; stuck subsets of the contacts
    with their lock rows as MechanismSystem.update builds them (single contacts, pairs, all)."""
    l, contacts = system.model.l, [int(c) for c in system.contacts]
    out = []
    for partition in partitions(system.mech, q, other_partition):
        Cpp = system.minimal.linear_terms(q, u, tau, partition)["Cpp"]
        for p_zero in (0.0, 0.3):
            d = np.zeros(l, dtype=int)
            d[contacts] = rng.choice([-1, 1], size=len(contacts)) * (rng.uniform(size=len(contacts)) >= p_zero)
            out.append(Mode(tuple(int(v) for v in d), (), (), partition))
        if not contacts:
            continue
        singles = rng.choice(contacts, size=min(3, len(contacts)), replace=False)
        subsets = [[c] for c in singles] + [rng.choice(contacts, size=2, replace=False).tolist()
                                            for _ in range(2) if len(contacts) > 1] + [contacts]
        if system.mech.name == "Yoke":  # the crank, pin and yoke contacts lock one direction: shared, not frozen
            subsets += [[0, 1], [0, 3, 4], [0, 1, 3, 4]]
        for S in subsets:
            S = sorted(set(int(c) for c in S))
            if np.linalg.norm(Cpp[S], axis=1).min() <= 1e-9:
                continue
            lock = tuple(tuple(Cpp[c]) for c in np.array(S)[_independent_rows(Cpp[S])])
            d = np.zeros(l, dtype=int)
            d[contacts] = rng.choice([-1, 1], size=len(contacts))
            d[S] = 0
            out.append(Mode(tuple(int(v) for v in d), tuple(S), lock, partition))
    return out


def python_or_error(fn):
    try:
        return fn(), None
    except tuple(STATUS_OF) as exc:
        return None, exc


def assert_failure(cm, status, exc, what):
    """The kernel's status is one of the Python exception's (STATUS_OF) and names the same failure (NAMES;
    numpy's LinAlgError has no words of the engine)."""
    text = f"{what}: Python raised {exc!r}, kernel status {status} ({cm.message(status)})"
    assert status in STATUS_OF[type(exc)], text
    if status in NAMES:
        assert NAMES[status] in str(exc) and NAMES[status] in cm.message(status), text


def compare(system, cm, t, y, tau, mode, label, failures):
    """rhs, events and record of the kernels against the Python engine at (t, y) in mode."""
    fmode, imode = system.encode_mode(mode)
    args = (t, y, tau, cm.fpar, cm.ipar, fmode, imode)

    dy = np.full_like(y, np.nan)
    status = cm.rhs(*args, dy)
    ref, exc = python_or_error(lambda: system.rhs(t, y, mode))
    if exc is not None:
        assert_failure(cm, status, exc, f"{label} rhs")
        failures.append(status)
        return
    assert status == 0, f"{label} rhs: status {status} ({cm.message(status)})"
    k1, k = system.k1, system.k
    for name, part in (("qd", slice(0, k1)), ("udot", slice(k1, k1 + k)), ("W_drive'", k1 + k),
                       ("W_friction'", k1 + k + 1)):
        assert_close(dy[part], ref[part], f"{label} rhs {name}")

    evs = system.events(mode)
    g = np.full(len(evs), np.nan)
    status = cm.events(*args, g)
    ref, exc = python_or_error(lambda: [ev.fn(t, y) for ev in evs])
    if exc is not None:
        assert_failure(cm, status, exc, f"{label} events")
        failures.append(status)
    else:
        assert status == 0, f"{label} events: status {status} ({cm.message(status)})"
        for ev, value, expected in zip(evs, g, ref):
            assert_close(value, expected, f"{label} event {ev.name}")

    out = np.full(cm.n_record, np.nan)
    status = cm.record(*args, out)
    ref, exc = python_or_error(lambda: system.record(t, y, mode))
    if exc is not None:
        assert_failure(cm, status, exc, f"{label} record")
        failures.append(status)
        return
    assert status == 0, f"{label} record: status {status} ({cm.message(status)})"
    rec = system.decode_record(out)
    assert list(rec) == list(ref), f"{label} record keys"
    for key, expected in ref.items():
        value = rec[key]
        assert type(value) is type(expected) or (np.isscalar(value) and np.isscalar(expected)), \
            f"{label} record {key}: type {type(value).__name__} != {type(expected).__name__}"
        if isinstance(expected, np.ndarray):
            assert value.dtype == expected.dtype, f"{label} record {key}: dtype {value.dtype} != {expected.dtype}"
        if isinstance(expected, (bool, np.bool_)) or getattr(expected, "dtype", None) == bool:
            np.testing.assert_array_equal(value, expected, err_msg=f"{label} record {key}")
        else:
            assert_close(value, expected, f"{label} record {key}")


# --- tests --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", list(FACTORIES))
def test_kernels_match_the_python_engine(name):
    mech = FACTORIES[name]()
    rng = np.random.default_rng(sum(map(ord, name)))
    system = MechanismSystem(mech, [0.0] * mech.model.n_drives)
    cm = system.compiled()
    assert cm is not None
    seen, failures = set(), []
    for i in range(STATES if name != "Yoke" else 4):
        q, u, tau, _ = random_state(mech, rng)
        system.inputs = [Constant(v) for v in tau]
        for mode in modes(system, q, u, tau, rng, other_partition=i % 2 == 1):
            kind = kind_of(system, mode)
            seen.add(kind)
            u_mode = lock_velocity(u, mode.lock) if mode.stuck else u  # as update() leaves it
            y = np.concatenate((q, u_mode, rng.uniform(-1, 1, size=2)))
            label = f"{name} state {i} {kind} mode {mode}"
            compare(system, cm, 0.3, y, tau, mode, label, failures)
    assert KINDS[name] <= seen, f"{name}: mode kinds {seen}"
    if name == "OffsetSliderCrank":  # stuck modes reach the Painleve cases: their status codes are checked
        assert failures and set(failures) <= {packing.ST_INCONSISTENT, packing.ST_INDETERMINATE}


def calls_on(system, cm, ws, which, t, y, tau, mode):
    """(status, out) of kernel `which` at (t, y, tau) in mode: on the workspace ws (kept between calls) and
    on a fresh scratch."""
    fmode, imode = system.encode_mode(mode)
    size = {"rhs": y.size, "events": len(system.events(mode)), "record": cm.n_record}[which]
    kept, fresh = np.full(size, np.nan), np.full(size, np.nan)
    ws.set_mode(fmode, imode)
    status = ws.call(which, t, y, tau, kept)
    return (status, kept), (getattr(cm, which)(t, y, tau, cm.fpar, cm.ipar, fmode, imode, fresh), fresh)


@pytest.mark.parametrize("name", ["SliderCrank", "Yoke", "TwinSlider", "DupontTwoMass"])
def test_kept_terms_give_the_bits_of_a_fresh_scratch(name):
    """planar.c keeps the terms of its last arguments in its scratch (kinematics, the terms of the minimal
    form, the slip evaluation; the events elsewhere in a second scratch): along calls that reuse them, change
    the inputs only, the velocities only (the terms of q kept), the mode only (partition, directions, stuck
    contacts), or leave a state and come back, every kernel gives the bits of a fresh scratch."""
    mech = FACTORIES[name]()
    rng = np.random.default_rng(5)
    system = MechanismSystem(mech, [0.0] * mech.model.n_drives)
    cm = system.compiled()
    ws = native.Workspace(cm.family, cm.fpar, cm.ipar)
    points, k1, k = [], system.minimal.k1, system.k
    for i in range(3):
        q, u, tau, _ = random_state(mech, rng)
        system.inputs = [Constant(v) for v in tau]
        state_modes = modes(system, q, u, tau, rng, other_partition=i % 2 == 1)
        for other in itertools.combinations(range(k1), k):  # the slip mode in every other usable partition
            if other != tuple(mech.partition):
                try:
                    system.minimal.linear_terms(q, u, tau, other)
                except SingularConfigurationError:
                    continue
                state_modes.append(Mode(state_modes[0].direction, (), (), other))
        for mode in state_modes:
            u_mode = lock_velocity(u, mode.lock) if mode.stuck else u
            points.append((np.concatenate((q, u_mode, rng.uniform(-1, 1, size=2))), tau, mode))
    sequence = []
    for j, (y, tau, mode) in enumerate(points):
        other, moved = tau + 0.5, y.copy()
        moved[k1:k1 + k] += 0.25
        sequence += [("rhs", y, tau, mode), ("rhs", moved, tau, mode), ("record", moved, tau, mode),
                     ("events", moved, tau, mode), ("events", y, tau, mode), ("record", y, tau, mode),
                     ("rhs", y, other, mode), ("record", y, other, mode),
                     ("events", *points[j - 1]), ("record", y, other, mode), ("rhs", y, tau, points[j - 1][2])]
    compared = 0
    for which, y, tau, mode in sequence + sequence[::-1]:
        (status, kept), (status_fresh, fresh) = calls_on(system, cm, ws, which, 0.3, y, tau, mode)
        assert status == status_fresh, f"{name} {which} in {mode}: status {status} / {status_fresh}"
        if status == 0:  # (a failure's output is not defined)
            assert np.array_equal(kept, fresh, equal_nan=True), f"{name} {which} in {mode}:\n{kept}\n{fresh}"
            compared += kept.size > 0
    assert compared > len(sequence)


@pytest.mark.parametrize("name", ["SliderCrank", "StackedBlocks", "Yoke"])
def test_modes_decided_by_update_at_rest(name):
    """The modes MechanismSystem.update decides at zero slip (stick, breakaway, Gauss principle)."""
    mech = FACTORIES[name]()
    rng = np.random.default_rng(7)
    system = MechanismSystem(mech, [0.0] * mech.model.n_drives)
    cm = system.compiled()
    seen = set()
    for i in range(8):
        q, _, _, _ = random_state(mech, rng)
        u0, nd = np.zeros(system.k), mech.model.n_drives
        # inputs near the static balance (h'' = 0), so that some contacts stick and others slip
        h2 = lambda tau: mech.minimal.linear_terms(q, u0, tau, mech.partition)["h2"]  # noqa: E731
        G = np.column_stack([h2(e) - h2(np.zeros(nd)) for e in np.eye(nd)])
        balance = np.linalg.lstsq(G, -h2(np.zeros(nd)), rcond=None)[0]
        tau = balance + rng.choice([1e-3, 0.1, 10.0]) * rng.uniform(-1, 1, size=nd)
        system.inputs = [Constant(v) for v in tau]
        y0 = system.initial_state(q, u0)
        try:
            y, mode, _ = system.update(0.0, y0, None, None)
        except FrictionJointsError as exc:  # a case the Python engine does not support
            assert "not supported" in str(exc)
            continue
        seen.add(kind_of(system, mode))
        compare(system, cm, 0.0, y, tau, mode, f"{name} at rest {i} {mode}", [])
    assert len(seen) > 1, f"{name}: only {seen} decided"


def test_regularised_system_single_mode():
    """RegularisedSystem: friction directions sgn(sd) inside the laws (Tanh), no events."""
    for mech in (regularised(slider_crank(), 0.01), regularised(yoke(), 0.01)):
        rng = np.random.default_rng(3)
        system = RegularisedSystem(mech, [0.0] * mech.model.n_drives)
        cm = system.compiled()
        assert cm is not None
        for i in range(4):
            q, u, tau, _ = random_state(mech, rng)
            system.inputs = [Constant(v) for v in tau]
            _, mode, _ = system.update(0.0, None, None, None)
            y = np.concatenate((q, u, [0.1, 0.2]))
            assert system.events(mode) == []
            compare(system, cm, 0.0, y, tau, mode, f"{mech.name} {i}", [])


def test_dead_centre_gives_the_singular_status():
    """u = x3 at the dead centre th1 = th2 = 0: V is singular (Python: SingularConfigurationError); every
    kernel returns ST_V_SINGULAR, whose message names the dead centre as the exception does."""
    mech = slider_crank()
    system = MechanismSystem(mech, [1.0])
    cm = system.compiled()
    q = mech.assemble([0.0])
    mode = Mode((1, 1, 1, 1), (), (), (2,))
    y = np.concatenate((q, [0.3], [0.0, 0.0]))
    with pytest.raises(SingularConfigurationError) as exc:
        system.rhs(0.0, y, mode)
    fmode, imode = system.encode_mode(mode)
    for kernel, size in ((cm.rhs, len(y)), (cm.events, 4), (cm.record, cm.n_record)):
        status = kernel(0.0, y, np.array([1.0]), cm.fpar, cm.ipar, fmode, imode, np.zeros(size))
        assert status == packing.ST_V_SINGULAR
        assert_failure(cm, status, exc.value, "dead centre")


@pytest.mark.parametrize("factory", [slider_crank, twin_slider])
def test_condition_of_v_decides_the_dead_centre(factory):
    """u = x3 near the dead centre th1 = 0, where cond(V) ~ 1 / th1: on 41 states within 1.2 % of
    MAX_CONDITION_V either way the kernel's status is the Python engine's decision (np.linalg.cond),
    and both occur: cond(V) in closed form (SliderCrank: two closing rows) and from singular values by
    Jacobi rotations (TwinSlider: four) right to the grid's step, 6e-4 of cond(V), at 1e12."""
    mech = factory()
    system = MechanismSystem(mech, [0.0] * mech.model.n_drives)
    cm = system.compiled()
    direction = np.zeros(mech.model.l, dtype=int)
    direction[system.contacts] = 1
    mode = Mode(tuple(int(v) for v in direction), (), (), (2,))
    fmode, imode = system.encode_mode(mode)
    tau = np.zeros(mech.model.n_drives)

    def cond_v(th1):  # V of MinimalForm._D2: the closing rows' columns of the dependent coordinates
        return np.linalg.cond(np.delete(mech.minimal.closing_jacobian(mech.assemble([th1]))[3], mode.partition, 1))

    statuses = set()
    for th1 in 1e-9 * cond_v(1e-9) / packing.MAX_CONDITION_V * 10.0 ** np.linspace(-0.005, 0.005, 41):
        y = np.concatenate((mech.assemble([th1]), [0.3], [0.0, 0.0]))
        status = cm.rhs(0.0, y, tau, cm.fpar, cm.ipar, fmode, imode, np.full_like(y, np.nan))
        _, exc = python_or_error(lambda: system.rhs(0.0, y, mode))
        what = f"{mech.name} th1 = {th1:.6g}, cond(V) / 1e12 = {cond_v(th1) / 1e12:.6f}"
        if exc is None:
            assert status == 0, f"{what}: status {status} ({cm.message(status)})"
        else:
            assert status == packing.ST_V_SINGULAR, f"{what}: Python raised {exc!r}, status {status}"
            assert_failure(cm, status, exc, what)
        statuses.add(status)
    assert statuses == {0, packing.ST_V_SINGULAR}


def test_the_comparison_detects_a_wrong_model():
    """A mass 1 % off, or a kinetic coefficient, changes the kernels' results beyond the tolerance:
    the comparisons above can fail."""
    mech = slider_crank()
    system = MechanismSystem(mech, [3.0])
    cm = system.compiled()
    q = mech.assemble([0.7])
    y = np.concatenate((q, [2.0], [0.0, 0.0]))
    mode = Mode((1, 1, -1, 1), (), (), (0,))
    fmode, imode = system.encode_mode(mode)
    ref = system.rhs(0.0, y, mode)
    for slot, index in ((packing.I_F_MASS, 0), (packing.I_F_LAWS, 3 * packing.LAW_WIDTH + 1)):
        fpar = cm.fpar.copy()
        fpar[cm.ipar[slot] + index] *= 1.01
        dy = np.zeros_like(y)
        assert cm.rhs(0.0, y, np.array([3.0]), fpar, cm.ipar, fmode, imode, dy) == 0
        with pytest.raises(AssertionError):
            assert_close(dy, ref, "perturbed model")


class _Viscous(FrictionLaw):
    mu_s = 0.1

    def coefficient(self, v):
        return 0.1 + 0.0 * np.asarray(v)


def test_unsupported_models_run_on_the_python_engine():
    """A friction law class the kernels do not implement: compiled() is None."""
    model = slider_crank().model
    joints = list(model.joints)
    joints[3] = Prismatic(3, 0, (0.0, 0.0), (0.0, 0.0), (1.0, 0.0), 0.0, _Viscous())
    other = PlanarModel(model.bodies, joints, model.drives, model.gravity)
    mech = slider_crank()
    mech = Mechanism("custom", other, MinimalForm(other, (0, 1, 3), ("theta", "theta", "x")), mech.partition,
                     mech.q_names, mech.guess)
    assert MechanismSystem(mech, [0.0]).compiled() is None
    assert MechanismSystem(slider_crank(), [0.0]).compiled() is not None


def test_the_packer_takes_each_joint_types_lipschitz_constant_and_refuses_an_unknown_type():
    """The Lipschitz constants in fpar are the joints' own (Joint.lipschitz; the lipschitz of each joint type
    of planar_joints.h), in every mechanism above (every type, with and without laws and an edge length); a
    joint type code the engine does not know is refused by the packer, not packed as another type, and so is a
    tree joint of a type that cannot place its body."""
    for factory in FACTORIES.values():
        mech = factory()
        cm = MechanismSystem(mech, [0.0] * len(mech.model.drives)).compiled()
        lip = cm.fpar[cm.ipar[packing.I_F_LIP]:][:cm.ipar[packing.I_L]]
        np.testing.assert_array_equal(lip, mech.model.lipschitz)
    one_pendulum = dict(bodies=[[1.0, 0.1, 0.0, 0.0, 0.0]], joints=[[0.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.01, 0.0]],
                        law_kinds=[packing.COULOMB], laws=[[0.2, 0.1, 0.0, 0.0]], drive_bodies=[], drives=[],
                        gravity=[0.0, -9.81], tree=[[0, 2]], partition=[0])
    fpar, ipar = native.pack_planar(joint_types=[[packing.REVOLUTE, 1, 0]], **one_pendulum)
    assert fpar[ipar[packing.I_F_LIP]] == 0.2 * 0.01
    for code in (-1, packing.PIN_IN_SLOT + 1):
        with pytest.raises(ValueError, match="a joint's type"):
            native.pack_planar(joint_types=[[code, 1, 0]], **one_pendulum)
    with pytest.raises(ValueError, match="a tree joint of a type that places no body"):  # a pin-in-slot
        native.pack_planar(joint_types=[[packing.PIN_IN_SLOT, 1, 0]], **{**one_pendulum, "law_kinds": [0, 0],
                                                                          "laws": [[0.0] * 4] * 2})


def test_messages_scratch_and_library():
    """Every status (ST_*) has its own message, any other is unknown; the scratch is two of the packer's
    workspace tables (the second for the events away from the memo's state); the kernels are the engine
    library's."""
    cm = MechanismSystem(yoke(), [0.0, 0.0]).compiled()
    assert cm.family_name == "planar" and cm.family.lib is library()
    statuses = [value for name, value in vars(packing).items() if name.startswith("ST_")]
    messages = {cm.message(status) for status in statuses}
    assert len(messages) == len(statuses) and "unknown status" not in messages, messages
    for status in (0, max(statuses) + 1, -1):
        assert cm.message(status) == "unknown status"
    width = cm.ipar[packing.I_WIDTH]
    assert cm.family.work_size(cm.fpar, cm.ipar) == (2 * cm.ipar[packing.I_WORK_ROWS] * width,
                                                     2 * cm.ipar[packing.I_IWORK_ROWS] * width)


SANITIZED = f"""
import sys
from friction_joints.native import library
import {Path(__file__).stem} as tests
assert library() is library(sys.argv[1])
for name in ("Yoke", "TwinSlider", "OffsetSliderCrank"):
    tests.test_kernels_match_the_python_engine(name)
tests.test_dead_centre_gives_the_singular_status()
for factory in (tests.slider_crank, tests.twin_slider):
    tests.test_condition_of_v_decides_the_dead_centre(factory)
for name in ("SliderCrank", "Yoke"):
    tests.test_kept_terms_give_the_bits_of_a_fresh_scratch(name)
"""


def test_kernels_under_sanitizers(sanitized_engine):
    """The comparisons of the Yoke (every joint type, law and mode kind, the sign-pattern search), the
    TwinSlider (four closing rows) and the OffsetSliderCrank (the Painleve statuses), the dead centre and
    cond(V) at the threshold, the kept terms along a sequence of calls, with the kernels of the engine built
    with the sanitizers (conftest's ``sanitized_engine``; in a subprocess: a sanitizer's report fails this
    test)."""
    run_against(sanitized_engine, SANITIZED)
