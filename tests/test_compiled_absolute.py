"""The compiled kernels of the absolute formulation (friction_joints.planar.absolute_packing) against
planar.absolute_dynamics (seed 000 eq. 2.9, friction directions sgn(sd)), their reference, on random
states of the seed mechanisms (on the constraints, drifted off them as an integrated x is, and at
rest), the failure statuses and their messages, and a run of AbsoluteSystem on both engines. Agreement
to 1e-10 of each quantity's scale (at least 1 in its unit).

The kernels are those of the installed C engine (native/src/absolute.c, on planar.c) that
``system.compiled()`` calls; some of these tests also run once against a build with sanitizers
(tests/native_build.py)."""

import warnings
from pathlib import Path

import numpy as np
import pytest

from friction_joints.engine import run
from friction_joints.errors import SingularConfigurationError
from friction_joints.hybrid import Constant
from friction_joints.mechanisms import Mechanism, dupont_two_mass, offset_slider_crank, slider_crank
from friction_joints.native import Family, library
from friction_joints.planar import (Body, BodyLoad, MinimalForm, PlanarModel, RegularisedSystem, Revolute,
                                    absolute_dynamics, absolute_packing, packing)
from friction_joints.planar.absolute_system import SIGN_MODE, AbsoluteSystem

from native_build import run_against

RTOL = 1e-10  # of each quantity's scale (its largest magnitude, at least 1)
STATES = 12  # random states per mechanism
FACTORIES = {
    "SliderCrank": slider_crank,  # seed 000 Example 2: the massless slider (M singular, K not)
    "OffsetSliderCrank": offset_slider_crank,  # Example 1
    "DupontTwoMass": dupont_two_mass,  # bodies with J = 0, theta fixed by the prismatic lock rows
}


def assert_close(actual, expected, what):
    actual, expected = np.asarray(actual, float), np.asarray(expected, float)
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    scale = max(np.abs(expected).max(initial=0.0), 1.0)
    np.testing.assert_allclose(actual, expected, rtol=0, atol=RTOL * scale, err_msg=what)


def states(mech, system, rng):
    """(label, y, tau): on the constraints, drifted off them, and at rest (sd = 0: no friction)."""
    n, nd = mech.model.n, mech.model.n_drives
    for i in range(STATES):
        q = mech.assemble(rng.uniform(-np.pi, np.pi, size=len(mech.partition)))
        u = 3.0 * rng.normal(size=mech.minimal.k) if i % 4 else np.zeros(mech.minimal.k)
        y = system.initial_state(q, u)
        label = "on the constraints" if i % 4 else "at rest"
        if i % 2:
            y[:n] += 1e-3 * rng.normal(size=n)
            y[n:] += 1e-2 * rng.normal(size=n)
            label = "drifted"
        yield f"{label} {i}", y, 10.0 * rng.normal(size=nd)


def kernel(cm, name, t, y, tau, size, fill=0.0):
    out = np.full(size, fill)
    fmode, imode = absolute_packing.encode_mode(SIGN_MODE)
    status = getattr(cm, name)(t, y, np.asarray(tau, float), cm.fpar, cm.ipar, fmode, imode, out)
    return status, out


@pytest.mark.parametrize("name", FACTORIES)
def test_kernels_match_absolute_dynamics(name):
    mech = FACTORIES[name]()
    system = AbsoluteSystem(mech, [0.0] * mech.model.n_drives)
    cm = system.compiled()
    assert cm is not None
    n = mech.model.n
    rng = np.random.default_rng(7)
    for label, y, tau in states(mech, system, rng):
        what = f"{name} {label}"
        ref = absolute_dynamics(mech.model, y[:n], y[n:], tau)
        system.inputs = [Constant(v) for v in tau]
        np.testing.assert_array_equal(system.rhs(0.0, y, SIGN_MODE), np.concatenate((y[n:], ref.xdd)))
        status, dy = kernel(cm, "rhs", 0.0, y, tau, 2 * n)
        assert status == 0, f"{what}: rhs status {status}"
        assert_close(dy[:n], y[n:], f"{what}: dy[:n] = xd")
        assert_close(dy[n:], ref.xdd, f"{what}: xdd")
        status, out = kernel(cm, "record", 0.0, y, tau, cm.n_record)
        assert status == 0, f"{what}: record status {status}"
        rec, expected = system.decode_record(out), system.record(0.0, y, SIGN_MODE)
        assert rec.keys() == expected.keys() == {"x", "xd", "xdd", "f", "f_mu"}, what
        for key, value in expected.items():
            assert isinstance(rec[key], np.ndarray) and rec[key].dtype == value.dtype, f"{what}: {key} type"
            assert_close(rec[key], value, f"{what}: record {key}")
        assert system.events(SIGN_MODE) == []
        status, g = kernel(cm, "events", 0.0, y, tau, 3, fill=7.0)
        assert status == 0 and np.all(g == 7.0), f"{what}: events wrote {g}"


def test_failures_give_the_status_of_the_python_exception():
    """A body with zero mass moment about its own pivot: [[M, -C^T], [C, 0]] is singular; a non-finite
    angle: ValueError in Python. The statuses' messages are the Python engine's."""
    model = PlanarModel([Body("disc", 1.0, 0.0)], [Revolute(1, 0, (0.0, 0.0), (0.0, 0.0))],
                        [BodyLoad(1, (0.0, 0.0, 1.0))], (0.0, -9.81))
    mech = Mechanism("disc", model, MinimalForm(model, (0,), ("theta",)), (0,), ("th",), lambda q_u: q_u)
    system = AbsoluteSystem(mech, [1.0])
    y = system.initial_state([0.3], [1.0])
    with warnings.catch_warnings(), pytest.raises(SingularConfigurationError) as exc:
        warnings.simplefilter("ignore")  # scipy's LinAlgWarning of the exactly zero pivot
        absolute_dynamics(model, y[:3], y[3:], [1.0])
    cm = system.compiled()
    assert kernel(cm, "rhs", 0.0, y, [1.0], 6)[0] == absolute_packing.ST_AUGMENTED_SINGULAR
    assert kernel(cm, "record", 0.0, y, [1.0], cm.n_record)[0] == absolute_packing.ST_AUGMENTED_SINGULAR
    assert cm.message(absolute_packing.ST_AUGMENTED_SINGULAR) == str(exc.value)

    mech = offset_slider_crank()
    system = AbsoluteSystem(mech, [60.0])
    y = system.initial_state(mech.assemble([0.4]), [3.0])
    y[2] = np.nan  # theta_1
    with pytest.raises(ValueError, match="non-finite") as exc:
        absolute_dynamics(mech.model, y[:9], y[9:], [60.0])
    cm = system.compiled()
    assert kernel(cm, "rhs", 0.0, y, [60.0], 18)[0] == absolute_packing.ST_NOT_FINITE
    assert str(exc.value).startswith(cm.message(absolute_packing.ST_NOT_FINITE) + ": ")  # then numpy's words


def test_the_comparison_detects_a_wrong_model():
    """A mass 1 % off, or a kinetic coefficient, changes xdd beyond the tolerance."""
    mech = offset_slider_crank()
    system = AbsoluteSystem(mech, [60.0])
    cm = system.compiled()
    y = system.initial_state(mech.assemble([0.7]), [4.0])
    ref = system.rhs(0.0, y, SIGN_MODE)
    fmode, imode = absolute_packing.encode_mode(SIGN_MODE)
    for slot, index in ((packing.I_F_MASS, 3), (packing.I_F_LAWS, 3 * packing.LAW_WIDTH + 1)):
        fpar = cm.fpar.copy()
        fpar[cm.ipar[slot] + index] *= 1.01
        dy = np.zeros_like(y)
        assert cm.rhs(0.0, y, np.array([60.0]), fpar, cm.ipar, fmode, imode, dy) == 0
        with pytest.raises(AssertionError):
            assert_close(dy, ref, "perturbed model")


def test_runs_on_both_engines_and_agrees_with_the_minimal_form():
    """Example 1 from rest (tau = 60 N.m) through engine.run: the same run on both engines (to 1e-8 of
    each quantity's range), and theta_1 = x[2] as the minimal form with the same friction (sgn(sd),
    RegularisedSystem of the Coulomb mechanism) integrates it."""
    mech = offset_slider_crank()
    system = AbsoluteSystem(mech, [60.0])
    y0 = system.initial_state(mech.assemble([0.0]), [0.0])
    python, compiled = (run(system, y0, 0.3, dt_out=0.02, engine=engine) for engine in ("python", "compiled"))
    np.testing.assert_allclose(compiled.t, python.t, rtol=0, atol=1e-12)
    assert python.events == compiled.events == []
    for key in ("x", "xd", "xdd", "f", "f_mu"):
        a, b = python[key], compiled[key]
        scale = max(np.ptp(a), np.abs(a).max())
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-8 * scale, err_msg=key)
    minimal = RegularisedSystem(mech, [60.0])
    reference = run(minimal, minimal.initial_state(mech.assemble([0.0]), [0.0]), 0.3, dt_out=0.02,
                    engine="compiled")
    np.testing.assert_allclose(compiled["x"][:, 2], reference["q"][:, 0], rtol=0, atol=1e-7)
    z = np.array([mech.model.constraints(x)[0] for x in compiled["x"]])
    assert np.abs(z).max() < 1e-8  # the drift off Phi(x) = 0 at rtol 1e-10


def test_messages_scratch_and_library():
    """The family's own statuses (ST_*) have their own messages, the coupled solve's those of the planar
    family, any other is unknown; the scratch is the planar workspace and the augmented system; the
    kernels are the engine library's."""
    cm = AbsoluteSystem(offset_slider_crank(), [0.0]).compiled()
    assert cm.family_name == "absolute" and cm.family.lib is library()
    own = [value for name, value in vars(absolute_packing).items() if name.startswith("ST_")]
    messages = {cm.message(status) for status in own}
    assert len(messages) == len(own) and "unknown status" not in messages, messages
    coupled = (packing.ST_NO_CONVERGENCE, packing.ST_INCONSISTENT, packing.ST_INDETERMINATE)
    for status in coupled:
        assert cm.message(status) == Family("planar").message(status) != "unknown status"
    for status in set(range(-1, max(own) + 2)) - set(own) - set(coupled):
        assert cm.message(status) == "unknown status", status
    n, m, l, width = (cm.ipar[i] for i in (packing.I_N, packing.I_M, packing.I_L, packing.I_WIDTH))
    assert cm.family.work_size(cm.fpar, cm.ipar) == (cm.ipar[packing.I_WORK_ROWS] * width + (n + m) * (n + m + 1 + l),
                                                     cm.ipar[packing.I_IWORK_ROWS] * width + n + m)


SANITIZED = f"""
import sys
from friction_joints.native import library
import {Path(__file__).stem} as tests
assert library() is library(sys.argv[1])
for name in tests.FACTORIES:
    tests.test_kernels_match_absolute_dynamics(name)
tests.test_failures_give_the_status_of_the_python_exception()
"""


def test_kernels_under_sanitizers(sanitized_engine):
    """The comparisons on every seed mechanism (moving, at rest, drifted) and the failures (a singular
    augmented matrix, a non-finite state), with the kernels of the engine built with the sanitizers
    (conftest's ``sanitized_engine``; in a subprocess: a sanitizer's report fails this test)."""
    run_against(sanitized_engine, SANITIZED)
