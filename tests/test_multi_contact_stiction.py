"""Stiction of several independent contacts by the Gauss principle (seed 001 Sect. 3-4), on two
stacked blocks modelled with the planar engine, against hand-derived closed forms."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from friction_joints.hybrid.stiction import gauss_friction
from friction_joints.mechanisms import stacked_blocks
from friction_joints.simulation import simulate

G = 9.81
M1, M2 = 1.0, 2.0
finite = st.floats(-10, 10, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(arrays(float, (3, 3), elements=finite), arrays(float, 3, elements=finite),
       arrays(float, 3, elements=st.one_of(st.just(0.0), st.floats(1e-6, 5))))
def test_gauss_friction_satisfies_coulomb_at_zero_slip(A, b, bound):
    """The optimality conditions are Coulomb's law: a contact inside its limit does not accelerate,
    a contact at its limit accelerates against its friction. (Limits below 1e-6, apart from zero,
    change the objective by less than its rounding, so their sign is not decidable.)"""
    A = A + 3 * np.eye(3)  # keep W = A^T A regular enough for a sharp check
    lam, a = gauss_friction(A, b, bound)
    np.testing.assert_allclose(a, A.T @ (A @ lam + b))
    tol = 1e-8 * (1 + np.abs(A).max() ** 2 * (np.abs(lam).max() + 1) + np.abs(b).max() * np.abs(A).max())
    assert np.all(np.abs(lam) <= bound)
    for lam_c, a_c, bound_c in zip(lam, a, bound):
        if abs(lam_c) < bound_c - 1e-9 * (1 + bound_c):
            assert abs(a_c) <= tol
        elif bound_c > 0:
            assert lam_c * a_c <= tol * bound_c, "friction at its limit must oppose the slip acceleration"


def run_ramp(mu12, mu20, c, t_end):
    mech = stacked_blocks(M1, M2, *mu12, *mu20, g=G)
    return simulate(mech, [lambda t: c * t, 0.0], t_end, [0.0, 0.0], [0.0, 0.0], dt_out=0.05)


def check_physics(res, mu12_s, mu20_s):
    """Stuck slips exactly zero, holding friction within its static limit, energy balance."""
    stuck, sd, f_mu, f = res["stuck_contacts"], res["sd"], res["f_mu"], res["f"]
    assert np.all(sd[stuck] == 0.0)
    limits = np.column_stack([mu12_s * np.abs(f[:, 0]), mu20_s * np.abs(f[:, 2])])
    assert np.all(np.abs(f_mu[stuck]) <= limits[stuck] * (1 + 1e-9))
    E = res["E_kin"] + res["E_pot"]
    residual = res["W_drive"] - (E - E[0]) + res["W_friction"]
    assert np.abs(residual).max() <= 1e-6 * max(np.abs(E).max(), np.abs(res["W_drive"]).max())


def test_upper_block_breaks_away_first():
    """F1 = c t on block 1: total stiction until |F1| = mu12_s M1 g, then block 1 slides over a
    block 2 that stays stuck (it feels mu12_k M1 g < mu20_s (M1 + M2) g)."""
    c, t_end = 2.0, 3.0
    res = run_ramp((0.3, 0.2), (0.5, 0.4), c, t_end)
    t1 = 0.3 * M1 * G / c
    assert [k for _, k in res.events] == ["stick", "breakaway"]
    np.testing.assert_allclose(res.event_times(), [0.0, t1], atol=1e-9)
    dt = t_end - t1
    x1 = c * (t_end**3 - t1**3) / (6 * M1) - c * t1**2 * dt / (2 * M1) - 0.2 * G * dt**2 / 2
    np.testing.assert_allclose(res["q"][-1], [0.0, x1], rtol=1e-9, atol=1e-12)
    assert np.all(res["stuck_contacts"][:, 1]), "block 2 never moves"
    check_physics(res, 0.3, 0.5)


def test_lower_contact_breaks_first_then_the_upper_one():
    """Rough top, slippery base: both blocks start together at t2, the top contact breaks at t3
    when the force needed to carry block 1 exceeds mu12_s M1 g."""
    c, t_end = 5.0, 3.5
    res = run_ramp((0.9, 0.8), (0.2, 0.1), c, t_end)
    M = M1 + M2
    t2 = 0.2 * M * G / c
    t3 = M1 * G * (0.9 - 0.1) * M / (c * M2)  # c t M2 / M + mu20_k M1 g = mu12_s M1 g
    assert [k for _, k in res.events] == ["stick", "breakaway", "breakaway"]
    np.testing.assert_allclose(res.event_times(), [0.0, t2, t3], atol=1e-9)
    # together from t2 to t3, then separately with kinetic friction
    v3 = c * (t3**2 - t2**2) / (2 * M) - 0.1 * G * (t3 - t2)
    x3 = c * (t3**3 - t2**3) / (6 * M) - c * t2**2 * (t3 - t2) / (2 * M) - 0.1 * G * (t3 - t2) ** 2 / 2
    dt = t_end - t3
    a2 = (0.8 * M1 * G - 0.1 * M * G) / M2
    x2 = x3 + v3 * dt + a2 * dt**2 / 2
    x1 = x3 + v3 * dt + c * (t_end**3 - t3**3) / (6 * M1) - c * t3**2 * dt / (2 * M1) - 0.8 * G * dt**2 / 2
    np.testing.assert_allclose(res["q"][-1], [x2, x1], rtol=1e-9)
    check_physics(res, 0.9, 0.2)


def test_a_step_decides_one_contact_stuck_and_one_slipping():
    """F2 = 20 N from rest: the base contact slips at once, block 1 rides along (the Gauss problem
    with both contacts at zero slip has a mixed answer); the holding force is M1 times the common
    acceleration."""
    mech = stacked_blocks(M1, M2, 0.3, 0.2, 0.5, 0.4, g=G)
    res = simulate(mech, [0.0, 20.0], 1.0, [0.0, 0.0], [0.0, 0.0], dt_out=0.1)
    a = (20.0 - 0.4 * (M1 + M2) * G) / (M1 + M2)
    assert [k for _, k in res.events] == ["stick"]
    assert np.all(res["stuck_contacts"][:, 0]) and not res["stuck_contacts"][:, 1].any()
    np.testing.assert_allclose(res["q"][-1], [a / 2, a / 2], rtol=1e-10)
    np.testing.assert_allclose(res["f_mu"][1:, 0], M1 * a, rtol=1e-10)
    check_physics(res, 0.3, 0.5)


@pytest.mark.parametrize("F2", [16.0, 30.0])
def test_step_that_drags_or_leaves_the_top_block(F2):
    """Whether block 1 rides along is decided with the static limits at the instant of the step:
    it sticks iff M1 (F2 - mu20_s (M1 + M2) g) / (M1 + M2) <= mu12_s M1 g."""
    mech = stacked_blocks(M1, M2, 0.3, 0.2, 0.5, 0.4, g=G)
    res = simulate(mech, [0.0, F2], 0.2, [0.0, 0.0], [0.0, 0.0], dt_out=0.1)
    rides = M1 * (F2 - 0.5 * (M1 + M2) * G) / (M1 + M2) <= 0.3 * M1 * G
    assert bool(res["stuck_contacts"][-1, 0]) == rides
    assert res["u"][-1, 0] > 0
    check_physics(res, 0.3, 0.5)
