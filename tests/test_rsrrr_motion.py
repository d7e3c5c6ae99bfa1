"""Motion of the RSRRR linkage (seed 002 Sect. 5): energy balance, loop closure, the driving
speed about 9 rad/s, exact stiction (beyond the paper) and the paper's Newmark integrator."""

import numpy as np
import pytest

from friction_joints.engine import run
from friction_joints.errors import ConvergenceError
from friction_joints.hybrid.newmark import newmark
from friction_joints.hybrid.stiction import DirectionMode
from friction_joints.spatial.rsrrr import RSRRR, RSRRRParameters
from friction_joints.spatial.system import RSRRRSystem, paper_drive, paper_load


def balance_residual(r):
    """max |E(t) - E(0) - (W_drive + W_friction)(t)| (J)."""
    E = r["E_kin"] + r["E_pot"]
    return np.abs(E - E[0] - (r["W_drive"] + r["W_friction"])).max()


@pytest.fixture(scope="module")
def spinning():
    """0.6 s of the paper's scenario with friction, from 3 rad/s (joint velocities pass zero)."""
    system = RSRRRSystem(RSRRR(), [paper_drive(), 0.0], paper_load())
    return system, run(system, system.initial_state(psid11=3.0), 0.6, dt_out=0.01, rtol=1e-9, atol=1e-11)


def test_energy_balance_closes_with_friction(spinning):
    _, r = spinning
    assert r["W_friction"][-1] < -0.01  # friction does work
    assert np.all(np.diff(r["W_friction"]) <= 1e-12)  # and never positive work
    assert balance_residual(r) < 1e-6


def test_reactions_and_friction_are_consistent_along_the_run(spinning):
    system, r = spinning
    mech = system.mech
    for k in range(0, len(r.t), 15):
        again = mech.friction_torques(r["qd"][k], r["f_O"][k], r["n_O"][k])
        np.testing.assert_allclose(again, r["t_f"][k], atol=1e-10)
        # n_z of the driving joint carries the applied torque less its friction
        assert r["n_O"][k][0, 2] == pytest.approx(r["tau"][k] - r["tau_res"][k] - r["t_f"][k][0], abs=1e-9)


def test_baumgarte_keeps_the_loop_closed():
    """At a loose tolerance the unstabilised closure drifts and grows; Baumgarte's stabilisation keeps
    it bounded at the integrator's error (seed 002 says none was needed at its accuracy)."""
    closure = {}
    for alpha in (0.0, 10.0):
        system = RSRRRSystem(RSRRR(RSRRRParameters(friction=False, alpha=alpha, beta=alpha)), [3.0, 0.0],
                             paper_load(3.0, 6.0))
        r = run(system, system.initial_state(psid11=6.0), 3.0, dt_out=0.25, rtol=1e-4, atol=1e-6)
        closure[alpha] = r["closure"]
    first, last = slice(1, 5), slice(9, 13)  # samples in (0, 1] s and (2, 3] s
    assert closure[0.0][last].mean() > 2 * closure[0.0][first].mean()  # the unstabilised drift grows
    assert closure[10.0][last].max() < 0.2 * closure[0.0][last].mean()
    assert closure[10.0].max() < 5e-6


def test_minimal_form_integration_agrees_with_the_cut_form():
    results = {}
    for form in ("cut", "minimal"):
        system = RSRRRSystem(RSRRR(), [4.0, 0.0], form=form)
        results[form] = run(system, system.initial_state(psid11=2.0), 0.1, dt_out=0.05, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(results["cut"]["q"], results["minimal"]["q"], atol=1e-7)
    assert results["minimal"]["closure"].max() < 1e-12


def test_stiction_holds_then_breaks_away_when_the_drive_exceeds_the_static_limit():
    """From rest in the symmetric yz-plane pose gravity needs no holding; the drive ramp loads the
    joints until the common fraction of their static limits reaches 1, then the linkage starts."""
    system = RSRRRSystem(RSRRR(), [paper_drive(), 0.0], paper_load(), stiction=True)
    r = run(system, system.initial_state(), 0.2, dt_out=0.01, rtol=1e-8, atol=1e-10)
    kinds = [k for _, k in r.events]
    assert kinds[:2] == ["stick", "breakaway"]
    t_break = r.events[1][0]
    stuck = r["stuck"]
    assert np.all(r["qd"][stuck] == 0.0) and np.ptp(r["q"][stuck], axis=0).max() == 0.0  # no creep
    assert np.abs(r["qdd"][stuck]).max() < 1e-9  # the holding torques balance the statics
    held = system.holding(t_break, r["q"][0])
    assert held.alpha == pytest.approx(1.0, abs=1e-7)
    # the holding torques are within their static limits and hold the drive on the driving link
    limits = system.mech.journals.static_limit(held.f_O, held.n_O)
    np.testing.assert_array_less(np.abs(held.t_f), limits * (1 + 1e-9))
    assert r["qd"][-1][0] > 0.1 and balance_residual(r) < 1e-6
    # the paper's characteristic has no static friction: the same linkage creeps from t = 0
    creeping = RSRRRSystem(RSRRR(), [paper_drive(), 0.0], paper_load())
    c = run(creeping, creeping.initial_state(), 0.1, dt_out=0.05, rtol=1e-8, atol=1e-10)
    assert abs(c["q"][-1][0] - c["q"][0][0]) > 1e-5


def test_newmark_is_second_order_and_agrees_with_dop853():
    system = RSRRRSystem(RSRRR(RSRRRParameters(friction=False)), [3.0, 0.0])
    y0 = system.initial_state(psid11=3.0)
    ref = run(system, y0, 0.3, dt_out=0.3, rtol=1e-11, atol=1e-13)
    exact = np.concatenate((ref["q"][-1], ref["qd"][-1]))
    errors = [np.abs(newmark(system, y0, 0.3, h, 4, mode=DirectionMode(1))[1][-1, :8] - exact).max()
              for h in (4e-3, 2e-3)]
    assert errors[1] < 2e-3 * np.abs(exact).max()
    assert 3.5 < errors[0] / errors[1] < 4.5


@pytest.mark.slow
def test_driving_speed_oscillates_about_nine_rad_per_s():
    """Seed 002 Sect. 5: after start-up the driving link's speed oscillates about psid_0 = 9 rad/s."""
    for friction in (False, True):
        system = RSRRRSystem(RSRRR(RSRRRParameters(friction=friction)), [paper_drive(), 0.0], paper_load())
        r = run(system, system.initial_state(), 3.5, dt_out=0.01, rtol=1e-7, atol=1e-9)
        late = r["qd"][r.t > 2.5][:, 0]
        assert abs(late.mean() - 9.0) < 0.15
        assert late.min() < 9.0 < late.max()
        assert balance_residual(r) < 1e-5


def test_newmark_needs_newton_where_the_characteristic_is_steep():
    """From rest the joint velocities sit below psid_k, where eq. (7) is steep: the plain fixed-point
    iteration of a1 fails there while Newton's converges and keeps the energy balance."""
    system = RSRRRSystem(RSRRR(), [paper_drive(), 0.0], paper_load())
    y0 = system.initial_state()
    with pytest.raises(ConvergenceError, match="fixed-point"):
        newmark(system, y0, 0.5, 2e-3, 4, mode=DirectionMode(1), iteration="fixed-point")
    t, y, _ = newmark(system, y0, 0.1, 2e-3, 4, mode=DirectionMode(1))
    assert y[-1, 4] > 0 and np.all(np.isfinite(y))
    E = [sum(system.mech.energy(yk[:4], yk[4:8])) for yk in (y[0], y[-1])]
    assert abs(E[1] - E[0] - y[-1, 8:].sum()) < 1e-3 * max(abs(y[-1, 8]), 1e-3)
