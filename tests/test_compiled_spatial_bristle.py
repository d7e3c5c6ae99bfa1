"""The C family "spatial_bristle" (native/src/spatial_bristle.c over spatial.c's mechanics and bristle_laws.c,
packed by spatial.bristle_packing) against spatial.BristleRSRRRSystem, its reference: rhs and record (key by key,
same types, the same Newton iterations) at random states agree to 1e-10 of each quantity's scale for every law,
both forms and both open-chain formulations, with slips at rest, slow and sliding and deflections in pre-sliding,
at the steady ones and beyond the static bound; at states where the coefficients reach 1 and more, the fixed
point of the exact model diverges and Newton (both engines) solves the coupling; where the coupling has no
solution both fail alike. Whole runs: the compiled engine (RODAS) against the Python engine (LSODA) at rtol 1e-10,
and the energy balance of the compiled run for every law. The native FMU's C assembly RSRRRBristle packs the
pythonfmu FMU's compiled system and refuses what it refuses, with its messages."""

import ctypes
import math
from pathlib import Path

import numpy as np
import pytest

from friction_joints.engine import run
from friction_joints.native import Assembly
from friction_joints.errors import ConvergenceError
from friction_joints.hybrid import PiecewiseLinear
from friction_joints.spatial import bristle_packing, packing
from friction_joints.spatial.bristle import BristleRSRRRSystem, steady_deflection, surface_laws
from friction_joints.spatial.load import SpeedLoad
from friction_joints.spatial.rsrrr import NO_SOLUTION, RSRRR, RSRRRParameters, table1_journals
from friction_joints.spatial.system import RSRRRSystem

from native_build import run_against
from test_compiled_spatial import assert_close, call
from test_spatial_assembly import PARAMETERS, twin_system

LAWS = {1: "Dahl", 2: "LuGre", 3: "elasto-plastic", 4: "Gonthier"}
CONFIGS = {"cut": dict(), "minimal": dict(form="minimal"), "cut-trace": dict(trace=True)}
LAW = dict(sigma0=1e4, sigma1=0.02, sigma2=1e-3, v_s=0.3)  # sigma1 small: random deflections far from steady
STATES = 6  # per law and configuration
TAU = [3.0, 0.4]  # drive and resistance torques (N.m)


def make_system(model, form="cut", trace=False, **law):
    mech = RSRRR(RSRRRParameters(journals=table1_journals(mu_s_factor=1.4), trace=trace))
    return BristleRSRRRSystem(mech, surface_laws(mech, model, **(LAW | law)), TAU, form=form)


def random_states(system, rng, count):
    """(t, y): a random pose and driving speed (at rest, slow, sliding; chain 2 off the closure and its rates off
    the dependent ones), per surface a deflection in pre-sliding, at its steady value or beyond the static bound
    mu_s / sigma0 (the elasto-plastic law's three parts)."""
    for k in range(count):
        psid = (0.0, 0.02, -0.3)[k] if k < 3 else rng.normal() * 5.0
        y = system.initial_state(psi11=rng.uniform(-np.pi, np.pi), psid11=psid)
        y[:4] += rng.normal(size=4) * 1e-3
        y[5:8] += rng.normal(size=3) * (0.0 if k == 0 else 0.005)
        y[8:11] = rng.normal(size=3)
        qd = system._coordinates(y)[1]
        for i, law in enumerate(system.laws):
            v = qd[system.joint[i]]
            y[11 + i] = [rng.uniform(-1.0, 1.0) * law.mu_c, law.sigma0 * steady_deflection(law, v),
                         1.1 * law.mu_s * np.sign(rng.normal())][(k + i) % 3]
        yield rng.uniform(0.0, 1.0), y


def compare(system, t, y, where):
    """rhs and record of the kernels against the Python engine at (t, y); the record's dict."""
    mode = system.update(t, y, None, None)[1]
    model = system.compiled()
    status, dy = call(model.rhs, system, t, y, mode, len(y))
    assert status == 0, f"rhs status {status}: {model.message(status)} ({where})"
    assert_close(dy, system.rhs(t, y, mode), f"rhs ({where})")
    status, out = call(model.record, system, t, y, mode, model.n_record)
    assert status == 0, f"record status {status} ({where})"
    got, want = system.decode_record(out), system.record(t, y, mode)
    assert list(got) == list(want), f"record keys ({where})"
    for key, ref in want.items():
        assert type(got[key]) is type(ref) and np.shape(got[key]) == np.shape(ref), f"record {key} ({where})"
        if key in ("iterations", "stuck"):
            assert got[key] == ref, f"record {key}: {got[key]} for {ref} ({where})"
        else:
            assert_close(got[key], ref, f"record {key} ({where})", 1e-3 if key in ("closure", "z") else 1.0)
    return want


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("model", LAWS)
def test_kernels_agree_with_the_python_model(model, config):
    system = make_system(model, **CONFIGS[config])
    compiled = system.compiled()
    assert compiled.family_name == "spatial_bristle" and compiled.family.lib is not None
    alphas, sliding, resting = set(), 0, 0
    for t, y in random_states(system, np.random.default_rng(model), STATES):
        rec = compare(system, t, y, f"{LAWS[model]}, {config}, t={t:.6g}, y={np.array2string(y, precision=4)}")
        sliding += np.sum(np.abs(rec["psid_s"]) > 0.3)
        resting += np.sum(rec["psid_s"] == 0.0)
        if model == 3:
            alphas |= {float(law.alpha(z, v)) for law, z, v in zip(system.laws, rec["z"], rec["psid_s"])}
    assert sliding > 10 and resting >= 11, (sliding, resting)
    if model == 3:  # every part of alpha(z, v): elastic, the transition, plastic
        assert 0.0 in alphas and 1.0 in alphas and any(0.0 < a < 1.0 for a in alphas), alphas


#: (psi11 (rad), sigma1 (s/rad)) with every bristle at z = 0 and the driving link at 5 rad/s: the coefficients
#: sigma1 |psid| of the sliding joints reach 1.0-1.25, where the exact model's fixed point diverges
STRONG = [(0.5, 0.2), (2.5, 0.2), (5.5, 0.2)]


@pytest.mark.parametrize("psi11, sigma1", STRONG)
def test_newton_solves_the_coupling_where_the_fixed_point_diverges(psi11, sigma1):
    """At coefficients of 1 and more (a fast slip from z = 0) the fixed point of RSRRR.dynamics diverges while
    Newton's method converges, in both engines alike: the rhs and record agree, and the solution is the coupling's
    fixed point: each joint's t_f is the sum of its surfaces' N c + sigma2 psid, N from the returned reactions."""
    system = make_system(2, sigma1=sigma1, sigma2=0.0)
    y = system.initial_state(psi11=psi11, psid11=5.0, z=np.zeros(len(system.laws)))
    q, qd = system._coordinates(y)
    coefficient = np.abs(sigma1 * qd[system.joint])
    assert coefficient.max() >= 1.0, coefficient
    with pytest.raises(ConvergenceError, match="did not converge in 50 iterations"):  # the fixed point
        system.mech.dynamics(q, qd, system.applied(0.0, y), friction=lambda f, n: _friction(system, y, f, n))
    rec = compare(system, 0.0, y, f"psi11={psi11}, sigma1={sigma1}")
    assert rec["iterations"] < 10
    np.testing.assert_allclose(np.bincount(system.joint, rec["t_s"], minlength=4), rec["t_f"], rtol=1e-11, atol=1e-13)
    N = system.surface_loads(rec["f_O"], rec["n_O"])
    np.testing.assert_allclose(rec["N"], N, rtol=1e-12)


def _friction(system, y, f_O, n_O):
    """BristleRSRRRSystem's friction torques t_f (4,) at the reactions f_O, n_O at the state y."""
    _, qd = system._coordinates(y)
    z, v = y[11:] / system.sigma0, qd[system.joint]
    force = np.array([[law.force(zi, vi, N) for N in (0.0, 1.0)] for law, zi, vi in zip(system.laws, z, v)])
    return np.bincount(system.joint, system.surface_loads(f_O, n_O) * (force[:, 1] - force[:, 0]) + force[:, 0],
                       minlength=4)


def test_where_the_coupling_has_no_solution_both_engines_fail_alike():
    """Coefficients of 5 (sigma1 = 1 s/rad at 5 rad/s from z = 0): Newton does not converge in Python
    (ConvergenceError) nor in C, and both name the fold (an iterate with det(I - G) <= 0: ST_NO_SOLUTION, the same
    words); a model without its law rows is ST_LAYOUT."""
    system = make_system(2, sigma1=1.0, sigma2=0.0)
    y = system.initial_state(psi11=1.5, psid11=5.0, z=np.zeros(len(system.laws)))
    mode = system.update(0.0, y, None, None)[1]
    with pytest.raises(ConvergenceError) as exc:
        system.rhs(0.0, y, mode)
    model = system.compiled()
    status, _ = call(model.rhs, system, 0.0, y, mode, len(y))
    assert status == bristle_packing.ST_NO_SOLUTION and model.message(status) == NO_SOLUTION
    assert str(exc.value).startswith(NO_SOLUTION)
    assert "did not converge" in model.message(packing.ST_COUPLING)
    fmode, imode = system.encode_mode(mode)
    out = np.zeros(len(y))
    assert model.rhs(0.0, y, np.array(TAU), model.fpar[:-1], model.ipar, fmode, imode, out) == bristle_packing.ST_LAYOUT
    assert "one bristle law row per frictional surface" in model.message(bristle_packing.ST_LAYOUT)
    spatial = RSRRRSystem(RSRRR(), [0.0, 0.0]).compiled()  # the spatial family's statuses keep their texts
    assert all(model.message(status) == spatial.message(status) for status in range(1, 9))


def test_the_comparison_can_fail_and_subclasses_run_in_python():
    """A law with mu_c 1e-6 larger gives a right-hand side beyond the tolerance (the agreement is not
    vacuous); a subclass that changes the equations has no compiled form; without friction there are no laws."""
    system = make_system(2)
    t, y = next(random_states(system, np.random.default_rng(0), 4))
    y[4] = 3.0
    mode = system.update(t, y, None, None)[1]
    model = system.compiled()
    fpar = model.fpar.copy()
    fpar[-len(system.laws) * 9 + 4] *= 1.0 + 1e-6  # the mu_c of the first law (joint (1,1), sliding)
    fmode, imode = system.encode_mode(mode)
    dy = np.zeros(len(y))
    assert model.rhs(t, y, np.array(TAU), fpar, model.ipar, fmode, imode, dy) == 0
    with pytest.raises(AssertionError):
        assert_close(dy, system.rhs(t, y, mode), "perturbed mu_c")

    class Changed(BristleRSRRRSystem):
        def surface_loads(self, f_O, n_O):
            return 2.0 * super().surface_loads(f_O, n_O)

    assert Changed(system.mech, system.laws, TAU).compiled() is None
    ideal = RSRRR(RSRRRParameters(friction=False))
    plain = BristleRSRRRSystem(ideal, (), TAU)
    y = plain.initial_state(psid11=2.0)
    compare(plain, 0.1, y, "frictionless")


#: the run of test_rsrrr_bristle's stribeck_run: LuGre with a Stribeck drop and viscous friction, 50 ms from
#: 5 rad/s with steady deflections (joints (2,2) and (2,3) start at rest: pre-sliding, then sliding)
def stribeck_system(model):
    mech = RSRRR(RSRRRParameters(journals=table1_journals(mu_s_factor=1.5)))
    return BristleRSRRRSystem(mech, surface_laws(mech, model, sigma0=1e4, sigma1=1.0, sigma2=2e-4, v_s=0.5), [3.0, 0.0])


def test_a_run_agrees_with_the_python_engine():
    """LuGre, 50 ms at rtol 1e-10 (atol 1e-12) on both engines, RODAS against LSODA: q, qd, t_f, z and
    W_friction within 1e-8 of their ranges at every 2 ms (measured: q 1e-10, qd 5e-10, t_f 1.7e-9, z 7e-10,
    W_friction 4e-10)."""
    system = stribeck_system(2)
    runs = {engine: run(system, system.initial_state(psid11=5.0), 0.05, dt_out=0.002, rtol=1e-10, atol=1e-12,
                        engine=engine) for engine in ("python", "compiled")}
    family = system.compiled().family  # a stiff family: its integrator is RODAS
    assert family.c.integrator == ctypes.addressof(ctypes.c_char.in_dll(family.lib, "fj_rodas"))
    worst = {}
    for key in ("q", "qd", "t_f", "z", "W_friction"):
        want, got = np.asarray(runs["python"][key], float), np.asarray(runs["compiled"][key], float)
        assert got.shape == want.shape, key
        worst[key] = np.abs(got - want).max() / np.ptp(want, axis=0).max()
    print("max |compiled - python| / range", {k: f"{v:.1e}" for k, v in worst.items()})
    assert max(worst.values()) < 1e-8, worst


def test_a_stage_beyond_the_coupling_rejects_the_rodas_step():
    """The RSRRRLinkage FMU's default experiment with LuGre (sigma1 = 5 s/rad; rtol 1e-6): joint (2,1) reverses at
    0.514 s, where a large RODAS step's stage meets the joint sliding back with its bristles still deflected
    forward (coefficients about 8: Newton does not converge, ST_COUPLING). RODAS rejects such a step and tries a
    smaller one (before, the run failed there): the run goes on through every reversal, and its energy balances."""
    mech = RSRRR()
    laws = surface_laws(mech, 2, sigma0=1e4, sigma1=5.0, sigma2=0.0, v_s=3e-3)
    system = BristleRSRRRSystem(mech, laws, [PiecewiseLinear([0.0, 2.0], [0.0, 10.0]), 0.0], SpeedLoad())
    r = run(system, system.initial_state(), 1.0, dt_out=0.01, rtol=1e-6, atol=1e-8, engine="compiled")
    E = r["E_kin"] + r["E_pot"]
    balance, scale = np.abs(E - E[0] - r["W_drive"] - r["W_friction"]).max(), np.abs(r["W_drive"]).max()
    print(f"energy balance max |error| {balance:.2e} J of W_drive up to {scale:.3f} J")
    assert r["t"][-1] == 1.0 and np.sum(np.diff(np.sign(r["qd"][:, 1])) != 0) >= 2
    assert balance < 1e-5 * scale


@pytest.mark.parametrize("model", LAWS)
def test_energy_balance_of_the_compiled_run(model):
    """0.3 s on the compiled engine at rtol 1e-9: E_kin + E_pot - its start = W_drive + W_friction within 1e-8 of the
    drive's work (the cut form's Baumgarte drift included; measured: 4e-10 to 7e-10); friction took energy out."""
    system = stribeck_system(model)
    r = run(system, system.initial_state(psid11=5.0), 0.3, dt_out=0.005, rtol=1e-9, atol=1e-11, engine="compiled")
    E = r["E_kin"] + r["E_pot"]
    balance, scale = np.abs(E - E[0] - r["W_drive"] - r["W_friction"]).max(), np.abs(r["W_drive"]).max()
    print(f"{LAWS[model]}: energy balance max |error| {balance:.2e} J of W_drive up to {scale:.3f} J")
    assert r["W_friction"][-1] < -0.05 * scale
    assert balance < 1e-8 * scale


@pytest.mark.parametrize("model", LAWS)
def test_the_c_assembly_is_the_twins_compiled_system(model):
    """The native FMU's assembly RSRRRBristle (RSRRRLinkage's parameters, then the bristle laws') packs the compiled
    form of the pythonfmu FMU's system (fpar and ipar equal) and its initial state within 1e-12: at rest (no
    deflection), sliding (every moving surface at its steady deflection, found by root finding in Python and in
    closed form in C) and creeping below the Stribeck velocity, with other levels, load and laws' parameters."""
    assembly, linkage = Assembly("RSRRRBristle"), Assembly("RSRRRLinkage")
    assert assembly.names[:len(linkage.names)] == linkage.names and (assembly.family, assembly.n_y, assembly.n_tau) == (
        "spatial_bristle", 22, 2)
    cases = ({}, dict(psid1_start=3.0, mu_s_factor=1.3, v_s=0.01, sigma2=0.1, delta=1.5),
             dict(psid1_start=-0.002, psi1_start=0.3, mu_scale=2.0, load_c=0.0, z_ba_ratio=0.4))
    for case in cases:
        values = dict(PARAMETERS, friction_model=model, **case)
        fpar, ipar, y0 = assembly(values)
        system, y0_twin = twin_system(values)
        compiled = system.compiled()
        assert compiled.family_name == "spatial_bristle" and compiled.n_record == assembly.n_record
        assert np.array_equal(fpar, compiled.fpar) and np.array_equal(ipar, compiled.ipar), case
        np.testing.assert_allclose(y0, y0_twin, rtol=1e-12, atol=1e-12, err_msg=str(case))
        moving = np.abs(y0[4:8][system.joint]) > 1e-9  # the surfaces of the joints that turn
        assert np.array_equal(y0[11:] != 0.0, moving) and moving.any() == ("psid1_start" in case), y0


@pytest.mark.parametrize("name, bad", [("sigma0", 0.0), ("sigma1", -1.0), ("v_s", 0.0), ("delta", math.nan),
                                       ("z_ba_ratio", 1.0), ("stiction", 1.0), ("mu_scale", -1.0), ("z0", 0.0)])
def test_the_c_assembly_checks_give_the_twins_messages(name, bad):
    """A bad parameter with the elasto-plastic law: the message of the pythonfmu FMU's build (its Python classes');
    ideal joints (friction false, mu_scale 0: no frictional surface) are the native FMU's own refusal."""
    values = dict(PARAMETERS, friction_model=3, **{name: bad})
    with pytest.raises(ValueError) as python:
        twin_system(values)
    with pytest.raises(ValueError) as c:
        Assembly("RSRRRBristle")(values)
    assert str(c.value) == str(python.value)
    for ideal in (dict(friction=0.0), dict(mu_scale=0.0)):
        twin_system(dict(PARAMETERS, friction_model=3, **ideal))  # Python runs these without laws
        with pytest.raises(ValueError, match="the native FMU's bristle laws need friction on every journal surface"):
            Assembly("RSRRRBristle")(dict(PARAMETERS, friction_model=3, **ideal))


SANITIZED = f"""
import sys
from friction_joints.native import library
import {Path(__file__).stem} as tests
assert library() is library(sys.argv[1])
for model in tests.LAWS:
    tests.test_kernels_agree_with_the_python_model(model, "minimal" if model == 2 else "cut")
tests.test_newton_solves_the_coupling_where_the_fixed_point_diverges(*tests.STRONG[0])
tests.test_where_the_coupling_has_no_solution_both_engines_fail_alike()
"""


def test_kernels_under_sanitizers(sanitized_engine):
    """The kernel comparisons (the four laws), the strong coupling and the failures with the engine built with
    the sanitizers (a sanitizer's report fails this test)."""
    run_against(sanitized_engine, SANITIZED)
