"""The compiled kernels of the lumped luz/tar models of seed 001 (friction_joints.lumped.packing)
against the Python models (SingleMassFriction, TwoMassFriction, their reference) on random states:
rhs, events (in the order of ``system.events(mode)``) and record (through decode_record, key by key,
same types and dtypes) agree to 1e-10 of each quantity's scale in every mode kind: slip in both
directions and stiction of the single mass (with and without spring and belt, static above kinetic,
a frictionless level without events); for the two masses every slip direction of each friction, each
stuck set ({12}, {20}, both) and a frictionless contact at zero velocity, and the modes that
TwoMassFriction.update selects by the Gauss principle at rest (all four stuck sets reached).

The kernels are those of the installed C engine (native/src/lumped.c) that ``system.compiled()`` calls;
they also run once from a build with sanitizers (tests/native_build.py), with the mode decisions (their
comparison with the Python update: test_decide_lumped.py)."""

import itertools

import numpy as np
import pytest

from friction_joints.hybrid import Sine
from friction_joints.hybrid.stiction import DirectionMode
from friction_joints.lumped import SingleMassFriction, SingleMassParameters, TwoMassFriction, TwoMassParameters
from friction_joints.lumped.two_mass import Mode as TwoMode
from friction_joints.native import library

from native_build import run_kernels

TOL = 1e-10  # of each quantity's scale
STATES = 8  # random states per configuration

SINGLE = {
    "fig3": dict(),  # seed 001 Fig. 3: K = 0, resting surface
    "belt-oscillator": dict(C=0.4, FT0=2.0, FT0S=3.0, K=5.0, v_belt=0.3, M=2.0),
    "viscous": dict(C=1.5, FT0=1.0, K=0.5, v_belt=-0.2),
    "frictionless": dict(FT0=0.0, C=0.7, K=2.0),  # FT0S = 0: no slip_zero event
}
TWO = {
    "fig5": dict(),  # seed 001 Fig. 5 (C = 0)
    "viscous-static": dict(C12=0.3, C20=0.8, FT012=2.0, FT020=6.0, FT012S=2.5, FT020S=7.0, M2=3.0),
    "no-base-friction": dict(FT020=0.0, C20=0.5),  # Sect. 3: friction 20 absent (not dry)
    "no-upper-friction": dict(FT012=0.0, C12=0.2),
}


def single_system(kw):
    return SingleMassFriction(SingleMassParameters(**kw), [Sine(5.0, 2.0, 0.3, 0.5)])


def two_system(kw):
    return TwoMassFriction(TwoMassParameters(**kw), [Sine(6.0, 2.0), Sine(10.0, 1.3, np.pi / 2, 1.0)])


def single_states(system, rng):
    for k in range(STATES):
        y = rng.normal(size=4)
        if k % 3 == 0:
            y[1] = system.p.v_belt  # at the surface velocity (a stuck state)
        yield rng.uniform(0.0, 5.0), y


def two_states(rng):
    for k in range(STATES):
        y = rng.normal(size=6)
        if k % 3 == 0:
            y[2:4] = 0.0  # both at rest
        elif k % 3 == 1:
            y[2] = y[3]  # block 1 moving with block 2
        yield rng.uniform(0.0, 5.0), y


SINGLE_MODES = (DirectionMode(1), DirectionMode(-1), DirectionMode(0))


def two_modes():
    """Every mode kind: each stuck set, the other frictions slipping either way or at zero (d = 0: a
    frictionless contact at rest)."""
    modes = []
    for stuck in itertools.product((False, True), repeat=2):
        choices = [(0,) if s else (1, -1, 0) for s in stuck]
        for direction in itertools.product(*choices):
            modes.append(TwoMode(direction, stuck))
    return modes


def call(kernel, system, t, y, mode, size, fpar=None):
    model = system.compiled()
    fmode, imode = system.encode_mode(mode)
    out = np.full(size, np.nan)
    status = kernel(t, np.ascontiguousarray(y, float), np.ascontiguousarray(system.input_values(t), float),
                    model.fpar if fpar is None else fpar, model.ipar, fmode, imode, out)
    return status, out


def assert_close(got, want, what, floor=1.0):
    want = np.asarray(want, float)
    scale = max(np.abs(want).max(initial=0.0), floor)
    err = np.abs(np.asarray(got, float) - want).max(initial=0.0)
    assert err <= TOL * scale, f"{what}: error {err:.3g} beyond {TOL:g} x scale {scale:.3g}\n{got}\n{want}"


def check_mode(system, t, y, mode, where):
    """rhs, events and record of the kernels against the Python model at (t, y, mode)."""
    model = system.compiled()
    where = f"{where}, mode {mode}, t={t:.6g}, y={np.array2string(np.asarray(y), precision=4)}"
    status, dy = call(model.rhs, system, t, y, mode, len(y))
    assert status == 0, f"rhs status {status} ({where})"
    assert_close(dy, system.rhs(t, y, mode), f"rhs ({where})")

    evs = system.events(mode)
    status, g = call(model.events, system, t, y, mode, len(evs) + 1)
    assert status == 0, f"events status {status} ({where})"
    for k, ev in enumerate(evs):
        assert_close(g[k], ev.fn(t, y), f"event {k} '{ev.name}' ({where})")
    assert np.isnan(g[len(evs)]), f"the kernel wrote more event functions than the {len(evs)} of the mode ({where})"

    status, out = call(model.record, system, t, y, mode, model.n_record)
    assert status == 0, f"record status {status} ({where})"
    got, want = system.decode_record(out), system.record(t, y, mode)
    assert list(got) == list(want), f"record keys ({where})"
    for key, ref in want.items():
        if isinstance(ref, np.ndarray):
            assert isinstance(got[key], np.ndarray) and got[key].shape == ref.shape, f"record {key} shape ({where})"
            assert got[key].dtype == ref.dtype, f"record {key} dtype {got[key].dtype} for {ref.dtype} ({where})"
        else:
            assert type(got[key]) is type(ref), f"record {key}: {type(got[key])} for {type(ref)} ({where})"
        if key == "stuck":
            assert np.array_equal(got[key], ref), f"record {key}: {got[key]} for {ref} ({where})"
        else:
            assert_close(got[key], ref, f"record {key} ({where})")


@pytest.mark.parametrize("name", list(SINGLE))
def test_single_mass_kernels_agree_with_the_python_model(name):
    system = single_system(SINGLE[name])
    assert system.compiled() is not None
    rng = np.random.default_rng(sum(map(ord, name)))
    for t, y in single_states(system, rng):
        for mode in SINGLE_MODES:
            check_mode(system, t, y, mode, name)


@pytest.mark.parametrize("name", list(TWO))
def test_two_mass_kernels_agree_with_the_python_model(name):
    system = two_system(TWO[name])
    assert system.compiled() is not None
    rng = np.random.default_rng(sum(map(ord, name)))
    modes = two_modes()
    assert len(modes) == 16
    for t, y in two_states(rng):
        for mode in modes:
            check_mode(system, t, y, mode, name)


@pytest.mark.parametrize("name", ["fig5", "viscous-static"])
def test_two_mass_gauss_principle_modes(name):
    """The modes TwoMassFriction.update decides at rest (the Gauss principle of seed 001 Sect. 3-4)
    for random constant forces reach every stuck set; the kernels agree in each, on the updated state
    and on the state moved slightly off it."""
    params = TwoMassParameters(**TWO[name])
    rng = np.random.default_rng(11)
    seen = set()
    for k in range(60):
        F1, F2 = rng.uniform(-1.0, 1.0) * 6.0 * params.FT012S, rng.uniform(-1.0, 1.0) * 2.5 * params.FT020S
        system = TwoMassFriction(params, [F1, F2])
        y = np.concatenate((rng.normal(size=2), [0.0, 0.0], rng.normal(size=2)))
        if k % 4 == 3:
            y[2] = y[3] = rng.normal()  # moving together: only friction 12 at zero
        t = rng.uniform(0.0, 2.0)
        y, mode, _ = system.update(t, y, None, None)
        seen.add(mode.stuck)
        check_mode(system, t, y, mode, f"{name} update (F1={F1:.3g}, F2={F2:.3g})")
        y_off = y + rng.normal(size=6) * 1e-3
        check_mode(system, t, y_off, mode, f"{name} update, moved off (F1={F1:.3g}, F2={F2:.3g})")
    assert seen == {(False, False), (True, False), (False, True), (True, True)}, seen


def test_the_comparison_can_fail():
    """A kernel given a mass 1e-6 larger, or the wrong mode, differs from the Python model beyond the
    tolerance: the agreement above is not vacuous."""
    for system, mode, y in ((single_system(SINGLE["belt-oscillator"]), DirectionMode(1), np.array([0.2, 0.5, 0, 0])),
                            (two_system(TWO["viscous-static"]), TwoMode((1, -1), (False, False)),
                             np.array([0.1, 0.2, 0.7, -0.4, 0, 0]))):
        fpar = system.compiled().fpar.copy()
        fpar[0] *= 1.0 + 1e-6
        _, dy = call(system.compiled().rhs, system, 0.4, y, mode, len(y), fpar=fpar)
        with pytest.raises(AssertionError):
            assert_close(dy, system.rhs(0.4, y, mode), "perturbed mass")
    system = two_system(TWO["fig5"])
    y = np.array([0.1, 0.2, 0.7, -0.4, 0, 0])
    _, dy = call(system.compiled().rhs, system, 0.4, y, TwoMode((-1, -1), (False, False)), 6)
    with pytest.raises(AssertionError):
        assert_close(dy, system.rhs(0.4, y, TwoMode((1, -1), (False, False))), "wrong direction")


def test_stuck_kernels_hold_exactly():
    """While stuck the accelerations are exactly zero (the luz dead zone), as in the Python models."""
    system = single_system(SINGLE["belt-oscillator"])
    y = np.array([0.1, system.p.v_belt, 0.0, 0.0])
    status, dy = call(system.compiled().rhs, system, 0.3, y, DirectionMode(0), 4)
    assert status == 0 and dy[1] == 0.0 and dy[3] == 0.0
    system = two_system(TWO["fig5"])
    y = np.array([0.1, 0.2, 0.0, 0.0, 0.0, 0.0])
    status, dy = call(system.compiled().rhs, system, 0.3, y, TwoMode((0, 0), (True, True)), 6)
    assert status == 0 and np.all(dy == 0.0)


def test_compiled_is_built_once_and_none_for_subclasses():
    for system in (single_system({}), two_system({})):
        model = system.compiled()
        assert system.compiled() is model
        assert model.fpar.dtype == np.float64 and model.ipar.dtype == np.int64
        assert model.fpar.flags.c_contiguous and model.ipar.flags.c_contiguous
        assert model.family_name == "lumped" and model.family.lib is library()
    fmode, imode = two_system({}).encode_mode(TwoMode((-1, 0), (False, True)))
    assert fmode.dtype == np.float64 and imode.dtype == np.int64 and list(imode) == [-1, 0, 0, 1]

    class Pushed(SingleMassFriction):
        def force(self, t):
            return super().force(t) + 1.0

    class Other(TwoMassFriction):
        def rhs(self, t, y, mode):
            return super().rhs(t, y, mode)

    class Decided(SingleMassFriction):  # the C engine decides the modes: a changed update has no compiled form
        def update(self, t, y, mode, event):
            return super().update(t, y, mode, event)

    class Watched(TwoMassFriction):
        def events_watch_all(self, mode):
            return False

    assert Pushed(SingleMassParameters(), [1.0]).compiled() is None
    assert Other(TwoMassParameters(), [1.0, 0.0]).compiled() is None
    assert Decided(SingleMassParameters(), [1.0]).compiled() is None
    assert Watched(TwoMassParameters(), [1.0, 0.0]).compiled() is None


def test_messages_and_scratch():
    """The kernels cannot fail (nor can the Python models' rhs, events and record): the statuses are the
    mode decision's (test_decide_lumped.py), others unknown. The scratch is the decision's: none for the
    single mass, the box QP's of 2 x 2 (box_qp.h: k z + 2 k + 3 z doubles, 3 z integers) for the two."""
    for system, scratch in ((single_system({}), (0, 0)), (two_system({}), (14, 6))):
        model = system.compiled()
        for status in (0, 5, -1):
            assert model.message(status) == "unknown status"
        for status in (1, 2, 3, 4):
            assert model.message(status) != "unknown status"
        assert model.family.work_size(model.fpar, model.ipar) == scratch


def test_kernels_under_sanitizers(sanitized_engine):
    """Every kernel in every mode kind of both models (slipping and stuck), and the mode decisions after
    each event of the mode, at a time event and at the start, once, from the engine built with the
    sanitizers (conftest's ``sanitized_engine``: a sanitizer's report fails this test). The stuck
    frictions' relative velocities are zero, as the decisions require at a breakaway."""
    rng, cases = np.random.default_rng(3), []
    for system, modes, n_y in ((single_system(SINGLE["belt-oscillator"]), SINGLE_MODES, 4),
                               (two_system(TWO["viscous-static"]), two_modes(), 6)):
        for mode in modes:
            y = rng.normal(size=n_y)
            if n_y == 6:
                y[3] = 0.0 if mode.stuck[1] else y[3]
                y[2] = y[3] if mode.stuck[0] else y[2]
            cases.append((system, rng.uniform(0.0, 5.0), y, mode))
    run_kernels(sanitized_engine, cases)
