"""The compiled kernels of the spatial RSRRR linkage (friction_joints.spatial.packing) against the
Python engine (RSRRRSystem, its reference) on random states: rhs, events and record (through
decode_record, key by key) agree to 1e-10 of each quantity's scale in every supported configuration
(cut and minimal forms, recursive and trace formulations, friction on and off, stiction with the
modes +1, -1 and 0, no load and SpeedLoads); the reaction-friction coupling, a fixed point in Python,
is solved by Newton's method in C, in no more passes (the recorded ``iterations``), and also where the
fixed point diverges; the failures give their statuses, named as the Python exceptions name them.

The kernels are those of the installed C engine (native/src/spatial.c) that ``system.compiled()``
calls; some of these tests also run once against a build with sanitizers (tests/native_build.py)."""

import ctypes
from pathlib import Path

import numpy as np
import pytest

from friction_joints.errors import ConvergenceError, SingularConfigurationError
from friction_joints.hybrid.stiction import DirectionMode as Mode
from friction_joints import native
from friction_joints.native import library
from friction_joints.spatial import packing
from friction_joints.spatial.load import SpeedLoad
from friction_joints.spatial.rsrrr import RSRRR, RSRRRParameters, table1_journals
from friction_joints.spatial.system import RSRRRSystem, paper_drive, paper_load

from native_build import run_against

TOL = 1e-10  # of each quantity's scale
STATES = 6  # random states per configuration

CONFIGS = {
    "cut": dict(),
    "cut-trace": dict(params=dict(trace=True)),
    "cut-frictionless": dict(params=dict(friction=False)),
    "minimal": dict(form="minimal"),
    "minimal-trace": dict(form="minimal", params=dict(trace=True)),
    "cut-no-load": dict(load=None),
    "cut-speed-load": dict(load=SpeedLoad(2.0, -1.0, 0.5)),  # active at negative speeds too
    "stiction-cut": dict(stiction=True),
    "stiction-minimal": dict(stiction=True, form="minimal"),
    "stiction-trace": dict(stiction=True, params=dict(trace=True)),
    "stiction-frictionless": dict(stiction=True, params=dict(friction=False), load=None),
}


def make_system(params=None, form="cut", stiction=False, load="paper"):
    mech = RSRRR(RSRRRParameters(**(params or {})))
    return RSRRRSystem(mech, [paper_drive(), 0.3], paper_load() if load == "paper" else load, form=form,
                       stiction=stiction)


def random_states(system, rng, count):
    """(t, y) near the closure: a random driving angle and speed (some at rest, some below psid_k where
    eq. 7 is steep), chain 2 perturbed off the closure (the cut form's Baumgarte terms; the minimal
    form's Newton guess) and its rates off the dependent ones, random works."""
    for k in range(count):
        psid = (0.0, 0.004, -0.02)[k] if k < 3 else rng.normal() * 6.0
        y = system.initial_state(psi11=rng.uniform(-np.pi, np.pi), psid11=psid)
        y[:4] += rng.normal(size=4) * 1e-3
        y[5:8] += rng.normal(size=3) * (0.0 if k == 0 else 0.005)
        y[8:] = rng.normal(size=3)
        yield rng.uniform(0.0, 3.0), y


def modes_of(system):
    return (Mode(1), Mode(-1), Mode(0)) if system.stiction else (Mode(1),)


def call(kernel, system, t, y, mode, size):
    model = system.compiled()
    fmode, imode = system.encode_mode(mode)
    out = np.full(size, np.nan)
    status = kernel(t, np.ascontiguousarray(y, float), np.ascontiguousarray(system.input_values(t), float),
                    model.fpar, model.ipar, fmode, imode, out)
    return status, out


def assert_close(got, want, what, floor=1.0):
    want = np.asarray(want, float)
    scale = max(np.abs(want).max(initial=0.0), floor)
    err = np.abs(np.asarray(got, float) - want).max(initial=0.0)
    assert err <= TOL * scale, f"{what}: error {err:.3g} beyond {TOL:g} x scale {scale:.3g}\n{got}\n{want}"


def make_systems():
    """{name: system} of CONFIGS."""
    return {name: make_system(**kw) for name, kw in CONFIGS.items()}


@pytest.fixture(scope="module")
def systems():
    return make_systems()


@pytest.mark.parametrize("name", list(CONFIGS))
def test_kernels_agree_with_the_python_engine(systems, name):
    system = systems[name]
    assert system.compiled() is not None
    rng = np.random.default_rng(sum(map(ord, name)))
    for t, y in random_states(system, rng, STATES):
        for mode in modes_of(system):
            where = f"{name}, mode {mode.direction}, t={t:.6g}, y={np.array2string(y, precision=4)}"
            status, dy = call(system.compiled().rhs, system, t, y, mode, 11)
            assert status == 0, f"rhs status {status} ({where})"
            assert_close(dy, system.rhs(t, y, mode), f"rhs ({where})")

            evs = system.events(mode)
            status, g = call(system.compiled().events, system, t, y, mode, len(evs))
            assert status == 0, f"events status {status} ({where})"
            for k, ev in enumerate(evs):
                assert_close(g[k], ev.fn(t, y), f"event {k} '{ev.name}' ({where})")

            status, out = call(system.compiled().record, system, t, y, mode, system.compiled().n_record)
            assert status == 0, f"record status {status} ({where})"
            got, want = system.decode_record(out), system.record(t, y, mode)
            assert list(got) == list(want), f"record keys ({where})"
            for key, ref in want.items():
                if isinstance(ref, np.ndarray):
                    assert isinstance(got[key], np.ndarray) and got[key].shape == ref.shape, f"{key} shape ({where})"
                    assert got[key].dtype == ref.dtype, f"{key} dtype ({where})"
                else:
                    assert type(got[key]) is type(ref), f"{key}: {type(got[key])} for {type(ref)} ({where})"
                if key == "iterations" and mode.direction != 0:  # Newton's passes against the fixed point's
                    assert 1 <= got[key] <= ref and got[key] < RSRRR.MAX_ITERATIONS, \
                        f"record {key}: {got[key]} for {ref} ({where})"
                elif key in ("iterations", "stuck"):  # the holding iteration is the Python engine's
                    assert got[key] == ref, f"record {key}: {got[key]} for {ref} ({where})"
                else:
                    floor = 1e-3 if key == "closure" else 1.0  # m (links are 0.1-0.3 m); rad, N, N.m, J
                    assert_close(got[key], ref, f"record {key} ({where})", floor)


@pytest.mark.parametrize("name", ["stiction-cut", "stiction-minimal"])
def test_kept_state_of_motion_gives_the_bits_of_a_fresh_scratch(systems, name):
    """spatial.c keeps the state of motion of its last arguments in its scratch: along calls that reuse
    it, change the inputs only or the mode only, or leave a state and come back, rhs, events and record
    give the bits of a fresh scratch."""
    system = systems[name]
    model = system.compiled()
    ws = native.Workspace(model.family, model.fpar, model.ipar)
    points = [(y, tau) for _, y in random_states(system, np.random.default_rng(3), 4)
              for tau in (np.array([1.5, 0.3]), np.array([-2.0, 0.1]))]
    sizes = {"rhs": 11, "record": model.n_record}
    sequence = []
    for y, tau in points:  # each mode's kernels, then the held state's events between a turning rhs and record
        sequence += [(which, y, tau, mode) for mode in modes_of(system)
                     for which in ("rhs", "record", "events", "record", "rhs")]
        sequence += [("rhs", y, tau, Mode(1)), ("events", y, tau, Mode(0)), ("record", y, tau, Mode(1))]
    compared = 0
    for which, y, tau, mode in sequence + sequence[::-1]:
        fmode, imode = system.encode_mode(mode)
        size = sizes.get(which, len(system.events(mode)))
        kept, fresh = np.full(size, np.nan), np.full(size, np.nan)
        ws.set_mode(fmode, imode)
        status = ws.call(which, 0.5, y, tau, kept)
        assert status == getattr(model, which)(0.5, y, tau, model.fpar, model.ipar, fmode, imode, fresh) == 0
        assert np.array_equal(kept, fresh, equal_nan=True), f"{name} {which} in {mode}:\n{kept}\n{fresh}"
        compared += 1
    assert compared == 2 * len(sequence)


def test_the_comparison_sees_friction(systems):
    """The random states load the journals: the frictionless kernels differ from the Python engine
    with friction far beyond the tolerance (so the agreement above is not vacuous)."""
    with_friction, frictionless = systems["cut"], systems["cut-frictionless"]
    rng = np.random.default_rng(7)
    worst = 0.0
    for t, y in random_states(with_friction, rng, 4):
        _, dy = call(frictionless.compiled().rhs, frictionless, t, y, Mode(1), 11)
        ref = with_friction.rhs(t, y, Mode(1))
        worst = max(worst, np.abs(dy - ref).max() / np.abs(ref).max())
    assert worst > 1e-4


def test_stuck_rhs_is_zero_and_the_iterations_count_passes(systems):
    system = systems["stiction-cut"]
    y = system.initial_state(psid11=2.0)
    status, dy = call(system.compiled().rhs, system, 1.0, y, Mode(0), 11)
    assert status == 0 and np.all(dy == 0.0)
    # turning with friction, the fixed point takes several passes (the paper's three and more); Newton in C
    # converged in more than its frictionless first pass and not more than the fixed point's
    status, out = call(system.compiled().record, system, 1.0, y, Mode(1), system.compiled().n_record)
    rec = system.decode_record(out)
    fixed_point = system.record(1.0, y, Mode(1))["iterations"]
    assert status == 0 and 1 < rec["iterations"] <= fixed_point and fixed_point > 3, (rec["iterations"], fixed_point)


def journal_torque(model, j, f_O, n_O):
    """(t_0, its gradient (6,)) of journal j of the packed model under the reactions f_O, n_O (3,), from the C
    engine's fj_spatial_journal_torque."""
    function = library().fj_spatial_journal_torque
    P = ctypes.c_void_p
    function.argtypes, function.restype = [P, P, ctypes.c_int64, P, P, P], ctypes.c_double
    f_O, n_O, grad = (np.ascontiguousarray(x, float) for x in (f_O, n_O, np.full(6, np.nan)))
    t_0 = function(model.fpar.ctypes.data, model.ipar.ctypes.data, j, f_O.ctypes.data, n_O.ctypes.data,
                   grad.ctypes.data)
    return t_0, grad


def test_journal_torque_gradient_is_its_derivative(systems):
    """The gradient that Newton's Jacobian is built from equals central differences of t_0 (the value the
    Python engine's journals give) at random reactions, on every journal (the first without surface C); at
    a zero load, the kink of its norm, that load's part is zero."""
    system = systems["cut"]
    model, journals = system.compiled(), system.mech.journals
    rng = np.random.default_rng(11)
    for j in range(4):
        for _ in range(5):
            f_O, n_O = rng.normal(size=3) * 50.0, rng.normal(size=3) * 2.0
            t_0, grad = journal_torque(model, j, f_O, n_O)
            reference = journals.full_torque(*(np.tile(x, (4, 1)) for x in (f_O, n_O)))[j]
            assert abs(t_0 - reference) <= 1e-12 * abs(reference), (t_0, reference)
            x, numeric = np.concatenate((f_O, n_O)), np.zeros(6)
            for i in range(6):
                h = 1e-6 * max(abs(x[i]), 1.0)
                up, down = x.copy(), x.copy()
                up[i] += h
                down[i] -= h
                numeric[i] = (journal_torque(model, j, up[:3], up[3:])[0]
                              - journal_torque(model, j, down[:3], down[3:])[0]) / (2 * h)
            assert np.abs(grad - numeric).max() <= 1e-7 * np.abs(numeric).max(), (j, grad, numeric)
    # no load on A and B (f_x = f_y = n_x = n_y = 0) and none on C: the gradient is 0; f_z alone: only its part
    assert np.array_equal(journal_torque(model, 1, np.zeros(3), np.ones(3) * [0, 0, 1])[1], np.zeros(6))
    _, grad = journal_torque(model, 1, [0.0, 0.0, -5.0], np.zeros(3))
    assert np.array_equal(grad[[0, 1, 3, 4, 5]], np.zeros(5)) and grad[2] == -journals.mu_C[1] * journals.arms()[2, 1], grad


HIGH_FRICTION = 3.0  # times Table 1's levels: mu_a0 = 0.6


def test_newton_converges_where_the_fixed_point_diverges():
    """At journal friction three times Table 1's (mu_a0 = 0.6) the Python engine's fixed point diverges at
    more than half the random states; the C engine's Newton method solves the coupling wherever the fixed point does and
    at most states where it diverges (elsewhere the coupling has no solution near: Python's Newton method,
    RSRRR.dynamics(newton=True), fails there too), and its t_f satisfies t_f = t_f(reactions(t_f)) to the
    coupling's tolerance: the Python engine's reactions at those t_f (its eq. 2 and eqs 3.1-3.8, t_f imposed)
    give them back through eqs 4-7, and its qdd, f_S there are the C engine's."""
    system = RSRRRSystem(RSRRR(RSRRRParameters(journals=table1_journals(HIGH_FRICTION))), [paper_drive(), 0.0],
                         paper_load())
    mech, model = system.mech, system.compiled()
    rng = np.random.default_rng(5)
    beyond = 0  # states where the fixed point diverges and Newton converges
    for k in range(12):
        y = system.initial_state(psi11=rng.uniform(-np.pi, np.pi), psid11=rng.normal() * 6.0)
        q, qd = y[:4], y[4:8]  # the cut form's loop coordinates
        try:
            fixed_point = system.rhs(0.5, y, Mode(1))
        except ConvergenceError:
            fixed_point = None
        status, out = call(model.record, system, 0.5, y, Mode(1), model.n_record)
        if status != 0:  # no solution near (Painleve-type)
            assert status == packing.ST_COUPLING and fixed_point is None, status
            with pytest.raises(ConvergenceError):
                mech.dynamics(q, qd, system.applied(0.5, y), newton=True)
            continue
        beyond += fixed_point is None
        rec = system.decode_record(out)
        assert 1 < rec["iterations"] < RSRRR.MAX_ITERATIONS, rec["iterations"]
        at_t_f = mech.dynamics(q, qd, system.applied(0.5, y), friction=lambda f_O, n_O: rec["t_f"])
        t_f = mech.friction_torques(qd, at_t_f.f_O, at_t_f.n_O)  # eqs 4-7 of the reactions at t_f
        assert np.abs(t_f - rec["t_f"]).max() <= RSRRR.COUPLING_TOL * (1.0 + np.abs(t_f).max()), (t_f, rec["t_f"])
        assert_close(rec["qdd"], at_t_f.qdd, "qdd")
        assert_close(rec["f_S"], at_t_f.f_S, "f_S")
    assert beyond >= 4, beyond


def test_failures_return_their_status():
    """The statuses where the Python engine raises; their messages have the exceptions' words."""
    # a coupling without solution (friction five times Table 1's): ConvergenceError in Python (its fixed point
    # diverges), Newton in C does not converge either
    system = RSRRRSystem(RSRRR(RSRRRParameters(journals=table1_journals(5.0))), [paper_drive(), 0.0], paper_load())
    y = system.initial_state(psid11=3.0)
    with pytest.raises(ConvergenceError) as exc:
        system.rhs(0.5, y, Mode(1))
    status, _ = call(system.compiled().rhs, system, 0.5, y, Mode(1), 11)
    message, words = system.compiled().message(status), "the reaction-friction coupling did not converge"
    assert status == packing.ST_COUPLING and words in message and words in str(exc.value), (message, exc.value)
    # chain 2 stretched (psi(2,3) = 0): J2 is singular, the holding torques need V = dq/dpsi11
    system = make_system(stiction=True)
    y = system.initial_state()
    y[3] = 0.0
    with pytest.raises(SingularConfigurationError) as exc:
        system.events(Mode(0))[0].fn(0.5, y)
    status, _ = call(system.compiled().events, system, 0.5, y, Mode(0), 1)
    message, words = system.compiled().message(status), "is singular at S"
    assert status == packing.ST_J2_SINGULAR and "J2" in message, message
    assert words in message and words in str(exc.value), (message, exc.value)


def test_compiled_is_built_once_and_none_where_unsupported(systems):
    system = systems["cut"]
    assert system.compiled() is system.compiled()
    model = system.compiled()
    assert model.family_name == "spatial" and model.family.lib is library()
    assert model.fpar.dtype == np.float64 and model.ipar.dtype == np.int64
    assert model.fpar.flags.c_contiguous and model.ipar.flags.c_contiguous
    assert model.n_record == packing.record_size()
    fmode, imode = system.encode_mode(Mode(-1))
    assert fmode.dtype == np.float64 and imode.dtype == np.int64 and imode[0] == -1
    # a load other than SpeedLoad, or a subclass changing the equations: the Python engine runs them
    assert make_system(load=lambda psid: 0.1 * psid).compiled() is None

    class Damped(RSRRRSystem):
        def rhs(self, t, y, mode):
            return super().rhs(t, y, mode)

    assert Damped(RSRRR(), [1.0, 0.0]).compiled() is None


def test_messages_and_scratch(systems):
    """Every status (ST_*) has its own message, any other is unknown; the scratch depends on the numbers
    of joints only."""
    model = systems["cut"].compiled()
    statuses = [value for name, value in vars(packing).items() if name.startswith("ST_")]
    messages = {model.message(status) for status in statuses}
    assert len(messages) == len(statuses) and "unknown status" not in messages, messages
    for status in (0, max(statuses) + 1, -1):
        assert model.message(status) == "unknown status"
    sizes = model.family.work_size(model.fpar, model.ipar)
    assert sizes[0] > 0 and sizes[1] > 0
    assert all(s.compiled().family.work_size(s.compiled().fpar, s.compiled().ipar) == sizes for s in systems.values())


SANITIZED = f"""
import sys
from friction_joints.native import library
import {Path(__file__).stem} as tests
assert library() is library(sys.argv[1])
systems = tests.make_systems()
for name in tests.CONFIGS:
    tests.test_kernels_agree_with_the_python_engine(systems, name)
tests.test_stuck_rhs_is_zero_and_the_iterations_count_passes(systems)
tests.test_failures_return_their_status()
tests.test_newton_converges_where_the_fixed_point_diverges()
tests.test_journal_torque_gradient_is_its_derivative(systems)
tests.test_kept_state_of_motion_gives_the_bits_of_a_fresh_scratch(systems, "stiction-minimal")
import test_decide_spatial as decide
systems = decide.make_systems()
decide.compare_decisions(systems, turning=1, at_rest=3)
decide.test_mode_events_agree_with_python(systems)
decide.test_failures_return_their_statuses(systems)
"""


@pytest.mark.slow
def test_kernels_under_sanitizers(sanitized_engine):
    """The comparisons in every configuration and mode, a stuck and a turning state, the failures and the
    kept state of motion along a sequence of calls, with the kernels of the engine built with the
    sanitizers (conftest's ``sanitized_engine``; in a subprocess: a sanitizer's report fails this test);
    and the mode decisions (test_decide_spatial): after each event of the stuck and the turning modes, at
    time events and at the start, on turning states and states at rest that stick and that break away,
    and their failures."""
    # -O0 after the build's -O2: the same checks in a third of the compile time
    run_against(sanitized_engine, SANITIZED)
