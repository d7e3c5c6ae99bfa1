"""The C family "planar_bristle" (native/src/planar_bristle.c) of planar.BristleSystem against the Python
reference: rhs and record at random states (every bristle law, a different law per contact too; sliding
and pre-sliding slips, deflections inside and beyond the steady ones; the Yoke's kappa > 1 sign-pattern
search and its pin in a slot with two contacts), the Painleve statuses where Python raises, runs of the
slider crank on both engines at tight tolerances (RODAS against LSODA), and the energy balance of the C
run."""

from pathlib import Path

import numpy as np
import pytest

from friction_joints import native
from friction_joints.engine import run
from friction_joints.friction import Dahl, ElastoPlastic, Gonthier, LuGre, make_law
from friction_joints.lumped.bristle_packing import LAW_PARAMETERS, law_parameters
from friction_joints.hybrid import Constant, Sine
from friction_joints.mechanisms import offset_slider_crank, slider_crank
from friction_joints.planar import packing
from friction_joints.planar.bristle import BristleSystem, contact_laws

from native_build import run_against
from test_bristle_joints import assert_energy_balance
from test_compiled_planar import STATUS_OF, assert_close, assert_failure, python_or_error, random_state, yoke

MECHANISMS = {"SliderCrank": slider_crank, "OffsetSliderCrank": offset_slider_crank, "Yoke": yoke}
LAW = dict(sigma0=1e4, sigma1=0.05, v_s=1e-3)  # sigma1 small: the random bristle rates are far from steady
STATES = 8  # per mechanism and law


def laws_of(mech, model):
    """One law per contact: bristle law `model` (1-4) in every contact, or 0: the four in turn."""
    n = sum(law is not None for joint in mech.model.joints for law in joint.friction_laws())
    sigma2 = np.linspace(0.0, 0.5, n)
    if model:
        return contact_laws(mech, model, sigma2=sigma2, **LAW)
    return tuple(contact_laws(mech, i % 4 + 1, sigma2=sigma2, **LAW)[i] for i in range(n))


def bristle_state(system, mech, rng, pre_sliding):
    """(y, tau): a random state of random_state's, its slips of order v_s if pre_sliding, the deflections
    across +-1.2 z_bound."""
    q, u, tau, _ = random_state(mech, rng)
    if pre_sliding:
        u = u * LAW["v_s"]
    z = np.array([rng.uniform(-1.2, 1.2) * law.z_bound for law in system.laws])
    return system.initial_state(q, u, z) + np.r_[np.zeros(len(q) + len(u) + len(z)), 0.1, -0.2], tau


@pytest.mark.parametrize("model", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("name", list(MECHANISMS))
def test_kernels_agree_with_the_python_model(name, model):
    """rhs and every recorded quantity to 1e-10 of its scale, or the same failure (the statuses of the
    planar family) where the Python model raises."""
    mech = MECHANISMS[name]()
    system = BristleSystem(mech, laws_of(mech, model), [0.0] * mech.model.n_drives)
    cm = system.compiled()
    assert cm.family_name == "planar_bristle" and cm.family.c.integrator
    assert np.array_equal(cm.ipar[cm.ipar[packing.I_CONTACTS]:][: system.n_c], system.contacts)
    rng = np.random.default_rng(model)
    compared, failed = 0, 0
    for i in range(2 * STATES):
        y, tau = bristle_state(system, mech, rng, pre_sliding=i % 2 == 1)
        system.inputs = [Constant(value) for value in tau]
        _, mode, _ = cm.update(system, 0.0, y, None, None)
        assert mode == system.update(0.0, y, None, None)[1]
        ws = cm.workspace(system, mode)
        dy, out = np.full(len(y), np.nan), np.full(cm.n_record, np.nan)
        status = ws.call("rhs", 0.0, y, tau, dy)
        want, exc = python_or_error(lambda: system.rhs(0.0, y, mode))
        if exc is not None:
            assert_failure(cm, status, exc, f"{name} {i}")
            failed += 1
            continue
        assert status == 0, cm.message(status)
        assert_close(dy, want, f"{name} {i} rhs")
        assert ws.call("record", 0.0, y, tau, out) == 0
        rec, got = system.record(0.0, y, mode), system.decode_record(out)
        assert list(got) == list(rec)
        for key in rec:
            assert_close(got[key], rec[key], f"{name} {i} {key}")
        compared += 1
    print(f"{name}, law {model}: {compared} states compared, {failed} failures in both")
    assert compared >= STATES, f"{name}: {compared} states compared"


def test_a_painleve_case_fails_as_in_python():
    """Large bristle damping at a fast slip: the signed coefficients far above mu_s make the coupled
    equations indeterminate (several roots, kappa > 1) in Python; the kernel returns ST_INDETERMINATE."""
    mech = slider_crank()
    system = BristleSystem(mech, contact_laws(mech, 1, sigma0=1e4, sigma1=3.0), [2.0])
    y = system.initial_state(mech.assemble([1.2]), [-1.5], [-1.1 * law.z_bound for law in system.laws])
    cm = system.compiled()
    _, exc = python_or_error(lambda: system.rhs(0.0, y, system.mode))
    assert type(exc) in STATUS_OF
    ws = cm.workspace(system, system.mode)
    status = ws.call("rhs", 0.0, y, np.array([2.0]), np.zeros(len(y)))
    assert_failure(cm, status, exc, "sigma1 = 3")


def crank_runs(model, rtol):
    """test_bristle_joints' slider crank (torque 4 sin 3t N.m from rest, sigma0 = 1e4, sigma1 = 5, sigma2 > 0)
    over 0.5 s on both engines at rtol (atol = rtol / 100)."""
    mech = slider_crank()
    laws = contact_laws(mech, model, sigma0=1e4, sigma1=5.0, sigma2=[0.01, 0.01, 0.01, 0.5], v_s=1e-3)
    system = BristleSystem(mech, laws, [Sine(4.0, 3.0)])
    y0 = system.initial_state(mech.assemble([0.0]), [0.0])
    return {engine: run(system, y0, 0.5, dt_out=0.005, rtol=rtol, atol=1e-2 * rtol, engine=engine)
            for engine in ("python", "compiled")}


@pytest.mark.parametrize("model", [2, 3])
def test_runs_agree_with_the_python_engine(model):
    """RODAS (compiled) against LSODA (Python), both at rtol 1e-10: q, u, z, f, f_mu and the works within
    1e-7 of their ranges at every 5 ms (measured: 3e-11 (q) to 1e-9 (z) for LuGre and the elasto-plastic
    law; the stiff rates zdot differ by up to 8e-8), and the C run's energy balance
    E_kin + E_pot - its start = W_drive + W_friction to 1e-8 of W_drive (measured: 6e-11)."""
    runs = crank_runs(model, 1e-10)
    for key in ("q", "u", "z", "f", "f_mu", "W_drive", "W_friction"):
        want, got = np.asarray(runs["python"][key], float), np.asarray(runs["compiled"][key], float)
        error = np.max(np.abs(got - want)) / np.ptp(want)
        print(f"law {model}: {key} max |C - Python| {error:.1e} of its range")
        assert got.shape == want.shape and error < 1e-7, key
    assert_energy_balance(runs["compiled"], 1e-8)


def test_the_law_rows_are_packed_in_c_with_make_laws_checks():
    """Each contact's row is its law's fields (native.pack_bristle_law, the C packer of the BristleOscillator's
    row too), and a value make_law refuses is refused with make_law's text."""
    mech = yoke()
    system = BristleSystem(mech, laws_of(mech, 0), [0.0, 0.0])
    rows = system.compiled().fpar[-system.n_c * len(LAW_PARAMETERS):].reshape(system.n_c, -1)
    for row, law in zip(rows, system.laws):
        want = [law_parameters(law)[name] for name in LAW_PARAMETERS]
        assert list(row) == want and row[0] == {Dahl: 1, LuGre: 2, ElastoPlastic: 3, Gonthier: 4}[type(law)]
    for bad in (dict(sigma0=-1.0), dict(mu_s=0.05), dict(z_ba_ratio=1.0), dict(model=5)):
        values = {**dict(model=3, sigma0=1e4, sigma1=0.05, sigma2=0.0, mu_c=0.1, mu_s=0.15, v_s=1e-3, delta=2.0,
                         z_ba_ratio=0.7), **bad}
        with pytest.raises(ValueError) as python:
            make_law(int(values["model"]), **{k: v for k, v in values.items() if k != "model"})
        with pytest.raises(ValueError) as c:
            native.pack_bristle_law([values[name] for name in LAW_PARAMETERS])
        assert str(c.value) == str(python.value), bad


def test_a_subclass_that_changes_the_equations_runs_on_the_python_engine():
    class Changed(BristleSystem):
        def rhs(self, t, y, mode):
            return super().rhs(t, y, mode)

    mech = slider_crank()
    assert Changed(mech, contact_laws(mech, 2, **LAW), [0.0]).compiled() is None
    assert BristleSystem(mech, contact_laws(mech, 2, **LAW), [0.0]).compiled() is not None


SANITIZED = f"""
import sys
from friction_joints.native import library
import {Path(__file__).stem} as tests
assert library() is library(sys.argv[1])
for name in tests.MECHANISMS:
    tests.test_kernels_agree_with_the_python_model(name, 0)
tests.test_a_painleve_case_fails_as_in_python()
"""


def test_kernels_under_sanitizers(sanitized_engine):
    """The kernel comparisons (every mechanism, the four laws in turn) and the Painleve status with the
    engine built with the sanitizers (a sanitizer's report fails this test)."""
    run_against(sanitized_engine, SANITIZED)


@pytest.mark.parametrize("model", [0, 2])
@pytest.mark.parametrize("name", list(MECHANISMS))
def test_rhs_near_is_rhs_within_the_coupled_solve_tolerance(name, model):
    """rhs_near (RODAS's right-hand sides of a step after its first: the coupled Newton solve started from the
    reactions of the last rhs) against rhs in a fresh scratch: the bits of rhs at the last rhs's own state,
    and within 1e-12 of the scale of dy/dt next to it (each Jacobian column's difference, a stage's
    distance) and after an rhs at another state (a start far from the root)."""
    mech = MECHANISMS[name]()
    system = BristleSystem(mech, laws_of(mech, model), [0.0] * mech.model.n_drives)
    cm = system.compiled()
    rng = np.random.default_rng(10 + model)
    compared, largest = 0, 0.0
    for i in range(STATES):
        y, tau = bristle_state(system, mech, rng, pre_sliding=i % 2 == 1)
        far, _ = bristle_state(system, mech, rng, pre_sliding=False)
        system.inputs = [Constant(value) for value in tau]
        _, mode, _ = cm.update(system, 0.0, y, None, None)
        ws, dy = cm.workspace(system, mode), np.zeros(len(y))
        if ws.call("rhs", 0.0, y, tau, dy):
            continue  # (a Painleve state: test_kernels_agree_with_the_python_model)
        near = np.full(len(y), np.nan)
        assert ws.call("rhs_near", 0.0, y, tau, near) == 0 and np.array_equal(near, dy)
        steps = [np.sqrt(1e-16 * max(1e-5, abs(v))) * np.eye(len(y))[j] for j, v in enumerate(y)]
        steps += [1e-3 * rng.uniform(-1.0, 1.0, len(y)) * np.maximum(np.abs(y), 1e-2)]  # a stage's distance
        for step in steps:
            for start in (y, far):
                ws.call("rhs", 0.0, start, tau, np.zeros(len(y)))
                fresh = cm.workspace(system, mode)
                want = np.full(len(y), np.nan)
                status = fresh.call("rhs", 0.0, y + step, tau, want)
                assert ws.call("rhs_near", 0.0, y + step, tau, near) == status
                if status == 0:
                    error = np.max(np.abs(near - want)) / max(np.max(np.abs(want)), 1.0)
                    assert error < 1e-12, f"{name} {i}: {error:.1e}"
                    largest, compared = max(largest, error), compared + 1
    print(f"{name}, law {model}: {compared} points, rhs_near - rhs at most {largest:.1e} of the scale")
    assert compared >= 2 * STATES
