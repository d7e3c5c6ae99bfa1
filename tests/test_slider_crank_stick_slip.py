"""Exact stick-slip of the 1-DOF slider-crank (seed 000 Example 2, Sect. 5 algorithm)."""

import numpy as np
import pytest

from friction_joints.hybrid import PiecewiseConstant
from friction_joints.mechanisms import slider_crank
from friction_joints.simulation import simulate


@pytest.fixture(scope="module")
def run():
    mech = slider_crank()
    return simulate(mech, [lambda t: 4.0 * np.sin(3.0 * t)], 3.0, mech.assemble([0.0]), [0.0], dt_out=0.02)


def test_stick_phases_and_a_pass_through_reversal_occur(run):
    kinds = [k for _, k in run.events]
    assert "stick" in kinds and "breakaway" in kinds and "reversal" in kinds


def test_stuck_mechanism_does_not_creep(run):
    stuck = run["stuck"]
    assert stuck.any()
    assert np.all(run["u"][stuck] == 0.0) and np.all(run["qd"][stuck] == 0.0)
    # the position is frozen over each stick phase
    starts, ends = run.event_times("stick"), run.event_times("breakaway")
    for a, b in zip(starts, ends):
        inside = (run.t >= a) & (run.t <= b)
        assert np.ptp(run["q"][inside], axis=0).max() == 0.0


def test_friction_law_holds_during_slip(run):
    slip = ~run["stuck"] & (np.abs(run["u"][:, 0]) > 1e-6)
    f, f_mu, sd = run["f"][slip], run["f_mu"][slip], run["sd"][slip]
    mu_rk, mu_tk, r = 0.1, 0.2, 0.05
    expected = np.column_stack([-np.sign(sd[:, j]) * mu_rk * r * np.hypot(f[:, 2 * j], f[:, 2 * j + 1])
                                for j in range(3)] + [-np.sign(sd[:, 3]) * mu_tk * np.abs(f[:, 6])])
    moving = np.abs(sd) > 1e-9  # at sd = 0 (the instant of a kinematic reversal) the law is set-valued
    np.testing.assert_allclose(f_mu[moving], expected[moving], rtol=1e-10, atol=1e-12)


def test_energy_balance_closes(run):
    E = run["E_kin"] + run["E_pot"]
    largest = max(np.abs(E - E[0]).max(), np.abs(run["W_drive"]).max())
    assert np.abs(run["W_drive"] - (E - E[0]) + run["W_friction"]).max() <= 1e-6 * largest
    assert run["W_friction"][-1] < 0


def test_without_friction_energy_is_conserved():
    mech = slider_crank(friction=False)
    res = simulate(mech, [0.0], 1.0, mech.assemble([0.6]), [0.0], dt_out=0.05)
    E = res["E_kin"] + res["E_pot"]
    assert np.abs(E - E[0]).max() <= 1e-8 * np.abs(res["E_pot"]).max()
    assert not res["stuck"].any()


def test_input_jump_is_a_time_event_that_breaks_stiction():
    """A piecewise-constant torque stepping above the static resistance breaks stiction exactly at the step."""
    mech = slider_crank()
    res = simulate(mech, [PiecewiseConstant([0.0, 0.5], [0.0, 5.0])], 0.8, mech.assemble([0.0]), [0.0], dt_out=0.1)
    assert res.events[0] == (0.0, "stick")
    assert res.events[1][1] == "breakaway" and res.events[1][0] == pytest.approx(0.5, abs=1e-12)
    assert res["u"][-1, 0] > 0


def test_shared_stiction_reactions_hold_the_frozen_crank(run):
    """In stiction the three revolutes hold one direction together; their shares are reported in
    proportion to their static limits. Checks: finite reactions; absolute equations (seed 000
    eq. 2.9) with xdd = 0, M xdd = h + C^T f + C_mu^T f_mu; one common fraction of the static limits,
    at most 1, reaching 1 at the breakaway instant."""
    mech = slider_crank()
    model, coords = mech.model, mech.minimal.coords
    stuck = np.flatnonzero(run["stuck"])
    assert len(stuck) > 5 and np.all(np.isfinite(run["f"][stuck])) and np.all(np.isfinite(run["f_mu"][stuck]))
    mu_rs, mu_ts, r = 0.15, 0.3, 0.05
    fractions = []
    for i in stuck:
        x = coords.g(run["q"][i])
        _, _, C, Cmu, _ = model.constraints(x, np.zeros(model.n))
        residual = model.h(run["tau"][i]) + C.T @ run["f"][i] + Cmu.T @ run["f_mu"][i]
        assert np.abs(residual).max() <= 1e-9 * np.abs(model.h(run["tau"][i])).max(), residual
        f = run["f"][i]
        limits = np.append(mu_rs * r * np.hypot(f[0:6:2], f[1:6:2]), mu_ts * abs(f[6]))
        held = run["stuck_contacts"][i] & (limits > 0)
        assert held.sum() >= 2
        fraction = np.abs(run["f_mu"][i][held]) / limits[held]
        np.testing.assert_allclose(fraction, fraction[0], rtol=1e-9, atol=1e-12)
        fractions.append(fraction[0])
    assert max(fractions) <= 1 + 1e-9
    at_breakaway = [j for j, i in enumerate(stuck) if run.t[i] in set(run.event_times("breakaway"))]
    assert at_breakaway and np.allclose(np.array(fractions)[at_breakaway], 1.0, atol=1e-6)
