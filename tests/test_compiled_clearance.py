"""The C family spatial_clearance (ClearanceRSRRRSystem on the compiled engine) against the Python engine: the
right-hand side and the record at random states in both contact modes (the planar clearance in every joint, the
spatial one, RFEM links of both approaches, clearance and flexible link together, the ideal joint, without
friction, with a SpeedLoad), the mode decisions, a run's impacts, separations and states, the energy balance of
compiled runs (planar and spatial clearance)."""

import re
from pathlib import Path

import numpy as np
import pytest

from friction_joints.contact import FREE, Contact, Free
from friction_joints.engine import make_integrator, run
from friction_joints.errors import ConvergenceError, FrictionJointsError
from friction_joints.hybrid.signals import PiecewiseLinear
from friction_joints.spatial import clearance_packing
from friction_joints.spatial.clearance_rsrrr import ClearanceParameters, ClearanceRSRRR
from friction_joints.spatial.clearance_system import ClearanceRSRRRSystem
from friction_joints.spatial.load import SpeedLoad
from friction_joints.spatial.rsrrr import NO_SOLUTION, RSRRRParameters

from native_build import run_against
from test_compiled_engine import assert_same_run

RHS = 1e-10  # of 1 + |dy/dt| per entry
CASES = {
    "planar clearance in (1,1)": (dict(clearance=1e-4, joint=0), {}),
    "planar clearance in (2,1), SpeedLoad": (dict(clearance=1e-4, joint=1, k_contact=1e8), dict(load=True)),
    "planar clearance in (2,2)": (dict(clearance=1e-4, joint=2), {}),
    "planar clearance in (2,3), no friction": (dict(clearance=2e-4, joint=3), dict(friction=False)),
    "modified flexible (2,3)": (dict(n_rfe=3, flexible=3), {}),
    "classical flexible (1,1)": (dict(n_rfe=2, flexible=0, rfem="classical", E=2e9, G=2e9 / 2.6), {}),
    "clearance in (1,1), flexible (2,2)": (dict(clearance=1e-4, joint=0, n_rfe=2, flexible=2), {}),
    "clearance and flexible link in (2,2)": (dict(clearance=1e-4, joint=2, n_rfe=1, flexible=2, rfem="classical"), {}),
    "ideal joint, rigid link": (dict(), {}),
    "spatial clearance in (2,2)": (dict(clearance=1e-4, joint=2, model="spatial", n_slices=4), {}),
    "spatial clearance in (2,1), flexible (2,3)": (dict(clearance=1e-4, joint=1, model="spatial", n_slices=3,
                                                        k_contact=1e8, n_rfe=1, flexible=3), {}),
}


def make(case, tau=(2.0, 0.3)):
    clearance, options = CASES[case]
    params = RSRRRParameters(friction=options.get("friction", True))
    mech = ClearanceRSRRR(params, ClearanceParameters(**clearance))
    return ClearanceRSRRRSystem(mech, list(tau), SpeedLoad(1.0, 3.0, 0.5) if options.get("load") else None)


def random_states(system, rng, count):
    """States near the start at random driving angles, the bearing within 2 um of its wall (in or out)."""
    mech, n = system.mech, system.n
    for _ in range(count):
        y = system.initial_state(psi11=rng.uniform(0.0, 2.0 * np.pi), psid11=rng.uniform(-5.0, 5.0), seated=False)
        if len(mech.gap):
            angle = rng.uniform(0.0, 2.0 * np.pi)
            y[mech.gap[:2]] = (mech.clearance_joint.c + rng.uniform(-2e-6, 2e-6)) * np.array([np.cos(angle),
                                                                                               np.sin(angle)])
            y[mech.gap[2:]] = rng.normal(size=len(mech.gap) - 2) * 1e-4  # the spatial model's tilts (rad)
        y[:n] += rng.normal(size=n) * 1e-8
        y[n:2 * n] += rng.normal(size=n) * 1e-2
        y[2 * n:] = rng.normal(size=4)
        yield y


def modes(system):
    return [FREE, Free(3e-9), Contact(0.05), Contact(2e-3, -1e-9)] if len(system.mech.gap) else [FREE]


@pytest.mark.parametrize("case", CASES)
def test_rhs_and_record_agree_at_random_states(case):
    system = make(case)
    model = system.compiled()
    assert model is not None and model.family_name == "spatial_clearance"
    rng = np.random.default_rng(list(CASES).index(case))
    for y in random_states(system, rng, 3):
        t = rng.uniform(0.0, 1.0)
        tau = np.asarray(system.input_values(t), float)
        for mode in modes(system):
            fmode, imode = system.encode_mode(mode)
            assert system.decode_mode(fmode, imode) == mode
            expected, out = system.rhs(t, y, mode), np.zeros(y.size)
            assert model.rhs(t, y, tau, model.fpar, model.ipar, fmode, imode, out) == 0
            np.testing.assert_allclose(out, expected, rtol=0, atol=RHS * (1.0 + np.abs(expected)).max(),
                                       err_msg=f"{case} {mode}")
            record = np.zeros(model.n_record)
            assert model.record(t, y, tau, model.fpar, model.ipar, fmode, imode, record) == 0
            python, compiled = system.record(t, y, mode), system.decode_record(record)
            assert compiled.keys() == python.keys()
            for key, value in python.items():
                if key == "iterations":  # Newton's passes against the fixed point's
                    assert 1 <= compiled[key] <= value, f"{case} {mode}: iterations {compiled[key]} for {value}"
                    continue
                value = np.asarray(value, float)
                scale = 1.0 + np.abs(value).max()
                np.testing.assert_allclose(np.asarray(compiled[key], float), value, rtol=0, atol=1e-9 * scale,
                                           err_msg=f"{case} {mode}: {key}")
            if system.events(mode):
                g = np.zeros(1)
                assert model.events(t, y, tau, model.fpar, model.ipar, fmode, imode, g) == 0
                assert g[0] == pytest.approx(system.events(mode)[0].fn(t, y), rel=0, abs=1e-18)


@pytest.mark.parametrize("case", ["planar clearance in (2,2)", "modified flexible (2,3)",
                                  "spatial clearance in (2,1), flexible (2,3)"])
def test_the_coupling_by_newton_reproduces_itself(case):
    """The C family solves the reaction-friction coupling t_f = g(t_f) by Newton's method from t_f = 0, where the
    Python engine iterates the fixed point: at random states in every mode, the recorded t_f is the friction of eqs
    4-7 (the Python engine's journals) under the recorded reactions at it within the stopping test's tolerance
    (RSRRR.COUPLING_TOL), well within it at half the states or more (at most a twentieth of it: Newton converges
    quadratically, to rounding at most states; the fixed point's medians are 0.06-0.6 of it), in no more passes
    than the fixed point and, where the fixed point needs 8 or more, in less than half as many."""
    system = make(case)
    model, mech = system.compiled(), system.mech
    rng = np.random.default_rng(7)
    residuals, slow = [], []
    for y in random_states(system, rng, 6):
        t = rng.uniform(0.0, 1.0)
        tau = np.asarray(system.input_values(t), float)
        for mode in modes(system):
            fmode, imode = system.encode_mode(mode)
            record = np.zeros(model.n_record)
            assert model.record(t, y, tau, model.fpar, model.ipar, fmode, imode, record) == 0
            newton, fixed_point = system.decode_record(record), system.record(t, y, mode)
            g = mech.friction_torques(y[system.n:2 * system.n], newton["f_O"], newton["n_O"])
            residual = np.abs(g - newton["t_f"]).max() / (1.0 + np.abs(g).max())
            assert residual <= mech.COUPLING_TOL, (case, mode, residual)
            assert 1 <= newton["iterations"] <= fixed_point["iterations"], (case, mode)
            residuals.append(residual)
            if fixed_point["iterations"] >= 8:
                slow.append((newton["iterations"], fixed_point["iterations"]))
    assert np.median(residuals) <= mech.COUPLING_TOL / 20, residuals
    assert slow and 2 * sum(n for n, _ in slow) < sum(f for _, f in slow), slow


@pytest.mark.parametrize("case", ["planar clearance in (2,2)", "modified flexible (2,3)",
                                  "classical flexible (1,1)", "spatial clearance in (2,1), flexible (2,3)"])
def test_rhs_near_keeps_the_terms_of_q_bit_for_bit(case):
    """rhs_near (RODAS's right-hand sides after a step's first, the Jacobian's columns from the last) reuses the
    terms of q alone of the last call where q is the same bits: at each column of RODAS's differences in its
    order (the velocities' with q kept, then the positions'), after a record and after an rhs elsewhere, it
    gives the bits of rhs_near in a scratch whose memo holds another q (the coupling started alike: from the
    last rhs's solution)."""
    system = make(case)
    cm = system.compiled()
    rng = np.random.default_rng(20 + list(CASES).index(case))
    n, compared = system.n, 0
    for y in random_states(system, rng, 2):
        tau = np.asarray(system.input_values(0.0), float)
        far = y + np.concatenate([1e-3 * rng.normal(size=n), np.zeros(len(y) - n)])
        record = np.zeros(cm.n_record)
        for mode in modes(system)[::2]:
            ws, other = cm.workspace(system, mode), cm.workspace(system, mode)
            for scratch in (ws, other):
                assert scratch.call("rhs", 0.0, y, tau, np.zeros(len(y))) == 0

            def near(scratch, state):
                dy = np.full(len(y), np.nan)
                return scratch.call("rhs_near", 0.0, state, tau, dy), dy

            def forgotten(state):  # rhs_near at another q first: this state's terms of q computed afresh
                assert near(other, far)[0] == 0
                return near(other, state)

            columns = [y + np.sqrt(1e-16 * max(1e-5, abs(y[j]))) * np.eye(len(y))[j] for j in range(2 * n)[::-1]]
            for state in columns:
                status, dy = near(ws, state)
                assert status == 0
                np.testing.assert_array_equal(dy, forgotten(state)[1])
                compared += 1
            velocity = y + np.concatenate([np.zeros(n), 1e-3 * rng.normal(size=n), np.zeros(len(y) - 2 * n)])
            for before in ("record", "rhs_near"):  # a record at y (the memo is forgotten), a call at another q
                if before == "record":
                    assert near(ws, y)[0] == 0 and ws.call("record", 0.0, y, tau, record) == 0
                else:
                    assert near(ws, columns[-1])[0] == 0
                np.testing.assert_array_equal(near(ws, velocity)[1], forgotten(velocity)[1])
                compared += 1
    assert compared >= 2 * (2 * n + 2)


@pytest.mark.parametrize("case", CASES)
def test_rhs_near_is_rhs_within_the_coupling_tolerance(case):
    """rhs_near starts the coupling's Newton solve from the last rhs's solution (RODAS's f0: fj_rodas.h), so that
    next to its state it converges in fewer passes: against rhs in a fresh scratch, the bits of rhs at the last
    rhs's own state (its solution passes the stopping test at once), and within the agreement's tolerance RHS
    (of 1 + max |dy/dt|, as test_rhs_and_record_agree_at_random_states) next to it (each Jacobian column's difference, a stage's distance) and from a far start (an rhs at another
    state last)."""
    system = make(case)
    cm = system.compiled()
    rng = np.random.default_rng(40 + list(CASES).index(case))
    n, compared, largest = system.n, 0, 0.0
    for y in random_states(system, rng, 2):
        tau = np.asarray(system.input_values(0.0), float)
        far = next(random_states(system, rng, 1))
        for mode in modes(system)[::2]:
            ws, dy = cm.workspace(system, mode), np.zeros(len(y))
            assert ws.call("rhs", 0.0, y, tau, dy) == 0
            near = np.full(len(y), np.nan)
            assert ws.call("rhs_near", 0.0, y, tau, near) == 0 and np.array_equal(near, dy)
            steps = [np.sqrt(1e-16 * max(1e-5, abs(y[j]))) * np.eye(len(y))[j] for j in range(2 * n)[::-1]]
            steps += [1e-3 * rng.uniform(-1.0, 1.0, len(y)) * np.maximum(np.abs(y), 1e-2)]  # a stage's distance
            for step in steps:
                for start in (y, far):
                    assert ws.call("rhs", 0.0, start, tau, np.zeros(len(y))) == 0
                    want = np.full(len(y), np.nan)
                    status = cm.workspace(system, mode).call("rhs", 0.0, y + step, tau, want)
                    assert ws.call("rhs_near", 0.0, y + step, tau, near) == status
                    if status == 0:
                        error = np.max(np.abs(near - want)) / (1.0 + np.max(np.abs(want)))
                        assert error <= RHS, f"{case} {mode}: {error:.1e}"
                        largest, compared = max(largest, error), compared + 1
    print(f"{case}: {compared} points, rhs_near - rhs at most {largest:.1e} of 1 + max |dy/dt|")
    assert compared >= 2 * (2 * n + 1)


@pytest.mark.parametrize("case", ["planar clearance in (2,2)", "clearance in (1,1), flexible (2,2)",
                                  "spatial clearance in (2,2)"])
def test_mode_decisions_agree(case):
    """update at the start, after an impact or a separation (real ones and grazes) and at a time event, with the
    bearing moved in and out of its seat and its rate turned both ways: the same mode and kind."""
    system = make(case)
    model, mech, n = system.compiled(), system.mech, system.n
    rng = np.random.default_rng(5)
    c = mech.clearance_joint.c
    for y in random_states(system, rng, 4):
        for offset in (-2e-9, 0.0, 3e-9):
            for rate in (-1e-3, 1e-3):
                z = y.copy()
                direction = rng.normal(size=2)
                direction /= np.hypot(*direction)
                z[mech.gap[:2]] = (c + offset) * direction
                z[mech.gap[2:]] = z[n + mech.gap[2:]] = 0.0  # the spatial model's axes aligned
                z[n + mech.gap[:2]] = -rate * direction  # deltad = rate
                for mode, event in [(None, None), (FREE, "impact"), (Free(1e-9), "impact"),
                                    (Contact(0.02), "separation"), (Contact(0.02, -1e-9), "separation"),
                                    (FREE, None), (Contact(0.02), None)]:
                    (_, new, kind), (_, expected, expected_kind) = (model.update(system, 0.0, z, mode, event),
                                                                    system.update(0.0, z, mode, event))
                    assert (type(new), kind) == (type(expected), expected_kind), (mode, event, offset, rate)
                    for name in ("deltad0", "level"):  # deltad and delta of the contact, to rounding
                        assert getattr(new, name, 0.0) == pytest.approx(getattr(expected, name, 0.0), rel=1e-12,
                                                                        abs=1e-20), (mode, event, offset, rate)


def both(system, y0, t_end, **options):
    return [run(system, y0, t_end, dt_out=t_end / 20, rtol=1e-9, atol=1e-12, engine=engine, **options)
            for engine in ("python", "compiled")]


def test_a_run_with_impacts_and_a_separation_agrees():
    """The bearing of (2,2) released centred: it falls, strikes the journal (4.05 ms), rebounds (10.40 ms) and
    strikes again (12.98 ms): the same events to 1e-9 s and states, works and energies to 1e-8 of their ranges
    on both engines (measured: 2e-11 for q, 8e-9 at most); the accelerations and the contact force, which the
    contact's stiffness makes far more sensitive to the penetration, to 1e-7 (measured: 1.3e-8)."""
    mech = ClearanceRSRRR(clearance=ClearanceParameters(clearance=1e-4, k_contact=1e8))
    system = ClearanceRSRRRSystem(mech, [2.0, 0.0])
    python, compiled = both(system, system.initial_state(psid11=3.0, seated=False), 0.0135)
    assert [kind for _, kind in python.events] == ["impact", "separation", "impact"]
    assert_same_run(python, compiled, ("q_all", "qd_all", "t_f", "delta", "W_friction", "W_dissipated", "E_elastic"),
                    "planar clearance")
    for key in ("qdd", "F_contact"):
        a, b = python[key], compiled[key]
        np.testing.assert_allclose(b, a, rtol=0, atol=1e-7 * np.ptp(a), err_msg=key)


def test_a_flexible_link_run_agrees():
    mech = ClearanceRSRRR(clearance=ClearanceParameters(n_rfe=2, flexible=3, rfem="classical", E=2e9, G=2e9 / 2.6))
    system = ClearanceRSRRRSystem(mech, [2.0, 0.0])
    python, compiled = both(system, system.initial_state(psid11=3.0), 0.002)
    assert_same_run(python, compiled, ("q_all", "qd_all", "t_f", "E_strain", "W_friction", "W_dissipated"),
                    "flexible link")


@pytest.mark.parametrize("model", ["planar", "spatial"])
def test_energy_balance_of_a_compiled_run(model):
    """A clearance in (2,2) and a soft flexible (2,3), 1 ms steps as an FMU takes them (impacts and separations):
    E_kin + E_pot + E_elastic changes by W_drive + W_friction + W_dissipated; the works of friction and damping
    never grow."""
    mech = ClearanceRSRRR(clearance=ClearanceParameters(clearance=1e-4, joint=2, model=model, n_slices=4, n_rfe=1,
                                                         flexible=3, E=2e9, G=2e9 / 2.6))
    system = ClearanceRSRRRSystem(mech, [5.0, 0.0])
    integrator = make_integrator(system, 0.0, system.initial_state(psid11=3.0, seated=False), engine="compiled",
                                 rtol=1e-8, atol=1e-11)
    for k in range(1, 13):
        integrator.advance(k * 1e-3, [k * 1e-3])
    res = integrator.results
    kinds = [kind for _, kind in res.events]
    assert "impact" in kinds and "separation" in kinds
    E = res["E_kin"] + res["E_pot"] + res["E_elastic"]
    W = res["W_drive"] + res["W_friction"] + res["W_dissipated"]
    assert np.abs(E - E[0] - W).max() < 1e-8 * (np.ptp(E) + np.abs(res["W_friction"]).max())
    for name in ("W_friction", "W_dissipated"):
        assert np.all(np.diff(res[name]) <= 1e-15) and res[name][-1] < 0.0, name



def steel_coupler():
    """(system, compiled integrator) of the RSRRRLinkage FMU's flexible-link case (bench_rsrrr_clearance.py
    --fmu): the coupler (2,3) of four steel sdes (modified RFEM), the drive ramped to 10 N.m over 2 s, the FMU's
    governed load, from rest, at the FMU's tolerances."""
    mech = ClearanceRSRRR(clearance=ClearanceParameters(flexible=3, n_rfe=4))
    ramp = PiecewiseLinear([0.0, 2.0, 10.0], [0.0, 10.0, 10.0])
    system = ClearanceRSRRRSystem(mech, [ramp, 0.0], SpeedLoad(10.0, 9.0, 5.0))
    return system, make_integrator(system, 0.0, system.initial_state(), engine="compiled", rtol=1e-6, atol=1e-8)


def test_the_steel_coupler_stops_where_the_coupling_has_no_solution():
    """The FMU's flexible-link run: E_kin + E_pot + E_elastic changes by W_drive + W_friction + W_dissipated up to
    0.388 s, and the run stops between 0.388 and 0.389 s with the message of a coupling without solution (the
    fold of ``test_the_coupling_folds``), not a step the integrator gives up on."""
    system, integrator = steel_coupler()
    rows = [integrator.record_row(0.0, integrator.state.y, integrator.state.mode)]
    with pytest.raises(FrictionJointsError) as exc:
        for k in range(1, 400):
            rows.append(integrator.advance_to(k * 1e-3))
    assert str(exc.value).startswith(NO_SOLUTION + " at t=0.388"), str(exc.value)
    assert len(rows) == 389
    E = np.array([r["E_kin"] + r["E_pot"] + r["E_elastic"] for r in rows])
    W = np.array([r["W_drive"] + r["W_friction"] + r["W_dissipated"] for r in rows])
    assert np.abs(E - E[0] - W).max() < 1e-6 * np.ptp(E)


def reduced_residual(system, y, t, grid):
    """g (grid,) = friction(t_f)[(2,1)] - t_f[(2,1)] of the coupling at (t, y) with t_f[(2,1)] at the grid
    values (N.m), the other three t_f solved by the fixed point (their gains are small); from the affine map of
    the reactions in t_f (seed 002 eqs 2, 3.1-3.8: RSRRR.dynamics with constant friction torques)."""
    mech, n = system.mech, system.n
    q, qd = y[:n], y[n:2 * n]
    tau = system.applied(t, y)

    def reactions(t_f):
        s = mech.dynamics(q, qd, tau, friction=lambda f_O, n_O: t_f)
        return np.concatenate((s.f_O.ravel(), s.n_O.ravel()))

    base = reactions(np.zeros(4))
    slope = np.array([reactions(e) - base for e in np.eye(4)]).T

    def friction(t_f):
        r = base + slope @ t_f
        return mech.friction_torques(qd, r[:12].reshape(4, 3), r[12:].reshape(4, 3))

    g = []
    for t21 in grid:
        t_f = np.array([0.0, t21, 0.0, 0.0])
        for _ in range(30):
            t_f = friction(t_f)
            t_f[1] = t21
        g.append(friction(t_f)[1] - t21)
    return np.array(g)


def test_the_coupling_folds():
    """At 0.3885 s of the steel coupler's run the coupling has two solutions near t_f(2,1) = 0.31 N.m (the
    residual of joint (2,1)'s friction changes sign twice: its gain on itself through the reactions passes 1
    between them); 0.2 ms further on the trajectory's tangent it has none for |t_f(2,1)| <= 2 N.m. There Python's
    RSRRR.dynamics raises and the C kernel returns ST_NO_SOLUTION, with the same words; before, they agree."""
    system, integrator = steel_coupler()
    integrator.advance_to(0.3885)
    t, before = integrator.time, integrator.state.y.copy()
    after = before + 2e-4 * system.rhs(t, before, FREE)
    grid = np.union1d(np.linspace(-2.0, 2.0, 401), np.linspace(0.30, 0.32, 201))  # finer where the roots are
    g = reduced_residual(system, before, t, grid)
    assert np.count_nonzero(np.diff(np.sign(g))) == 2 and 0.30 < grid[np.argmin(g)] < 0.32
    assert reduced_residual(system, after, t + 2e-4, grid).min() > 0.0
    model = system.compiled()
    fmode, imode = system.encode_mode(FREE)
    for time, y, status in ((t, before, 0), (t + 2e-4, after, clearance_packing.ST_NO_SOLUTION)):
        out, tau = np.zeros(y.size), np.asarray(system.input_values(time), float)
        assert model.rhs(time, y, tau, model.fpar, model.ipar, fmode, imode, out) == status
    expected = system.rhs(t, before, FREE)
    model.rhs(t, before, np.asarray(system.input_values(t), float), model.fpar, model.ipar, fmode, imode, out)
    np.testing.assert_allclose(out, expected, rtol=0, atol=RHS * (1.0 + np.abs(expected)).max())
    with pytest.raises(ConvergenceError, match=r"^" + re.escape(NO_SOLUTION)):
        system.rhs(t + 2e-4, after, FREE)
    assert model.message(clearance_packing.ST_NO_SOLUTION) == NO_SOLUTION


SANITIZED = f"""
import sys
from friction_joints.native import library
import {Path(__file__).stem} as tests
assert library() is library(sys.argv[1])
for case in tests.CASES:
    tests.test_rhs_and_record_agree_at_random_states(case)
tests.test_rhs_near_keeps_the_terms_of_q_bit_for_bit("spatial clearance in (2,1), flexible (2,3)")
tests.test_rhs_near_is_rhs_within_the_coupling_tolerance("spatial clearance in (2,1), flexible (2,3)")
for case in ("planar clearance in (2,2)", "spatial clearance in (2,2)"):
    tests.test_mode_decisions_agree(case)
tests.test_the_coupling_folds()
"""


def test_kernels_under_sanitizers(sanitized_engine):
    """The kernels and records of every case in both modes, the mode decisions and the coupling's fold, on the
    engine built with the sanitizers (in a subprocess: a sanitizer's report fails this test)."""
    run_against(sanitized_engine, SANITIZED)
