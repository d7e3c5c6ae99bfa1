"""Reactions at static equilibrium against hand statics, programmed motion (seed 000 Sect. 7) against
forward dynamics, and the Dupont normal force from the reaction equations."""

import numpy as np
import pytest

from friction_joints.mechanisms import dupont_two_mass, slider_crank
from friction_joints.planar import absolute_dynamics, programmed_motion

from states import random_state

rng = np.random.default_rng(4)


def test_slider_crank_static_reactions_equal_hand_statics():
    m1, m2, a1, a2, g = 2.5, 4.0, 0.25, 0.4, 9.81
    mech = slider_crank()
    for th1 in rng.uniform(-1.4, 1.4, 25):
        q = mech.assemble([th1])
        th2 = q[1]
        # hand statics, gravity +x, massless slider, no friction at rest:
        f6 = -m2 * g * np.tan(th2) / 2  # moment of the rod about A
        f_hand = np.array([-(m1 + m2) * g, f6, -m2 * g, f6, 0.0, f6, -f6, 0.0])
        # holding torque by virtual work: tau = dV/dth1 with dth2/dth1 = -a1 cos th1 / (a2 cos th2)
        dth2 = -a1 * np.cos(th1) / (a2 * np.cos(th2))
        tau_hand = m1 * g * a1 * np.sin(th1) + m2 * g * (2 * a1 * np.sin(th1) + a2 * np.sin(th2) * dth2)
        pm = programmed_motion(mech.minimal, q, [0.0], [0.0], mech.partition)
        np.testing.assert_allclose(pm.f, f_hand, atol=1e-10)
        assert pm.tau[0] == pytest.approx(tau_hand, abs=1e-10)
        # and forward dynamics at that torque stays at rest
        sol = mech.minimal.evaluate(q, [0.0], pm.tau, mech.partition)
        assert abs(sol.udot[0]) < 1e-10
        np.testing.assert_allclose(sol.f, f_hand, atol=1e-10)


def test_hanging_equilibrium_of_slider_crank():
    mech = slider_crank()
    q = mech.assemble([0.0])
    sol = mech.minimal.evaluate(q, [0.0], [0.0], mech.partition)
    np.testing.assert_allclose(q, [0.0, 0.0, 2 * 0.25 + 2 * 0.4], atol=1e-14)
    assert abs(sol.udot[0]) < 1e-12
    np.testing.assert_allclose(sol.f[[0, 2]], [-(2.5 + 4.0) * 9.81, -4.0 * 9.81], atol=1e-10)


@pytest.mark.parametrize("friction", [True, False])
def test_programmed_motion_then_forward_dynamics_returns_the_programme(mechanism_factory, friction):
    mech = mechanism_factory(friction=friction)
    if mech.model.n_drives != mech.minimal.k:
        pytest.skip("needs as many drives as degrees of freedom")
    for _ in range(60):
        q, u, _ = random_state(mech, rng)
        udot = rng.uniform(-30, 30, size=mech.minimal.k)
        pm = programmed_motion(mech.minimal, q, u, udot, mech.partition)
        fwd = mech.minimal.evaluate(q, u, pm.tau, mech.partition)
        np.testing.assert_allclose(fwd.udot, udot, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(fwd.f, pm.f, rtol=1e-9, atol=1e-8)
        np.testing.assert_allclose(fwd.f_mu, pm.f_mu, rtol=1e-9, atol=1e-9)


def test_dupont_normal_force_comes_out_of_the_reaction_equations():
    m1, m2, mu_k = 10.0, 30.0, 0.3
    mech = dupont_two_mass()
    for _ in range(50):
        F1, F2 = rng.uniform(-10, 10), rng.uniform(-60, 60)
        xd = rng.choice([-1.0, 1.0]) * rng.uniform(0.01, 2)
        sol = mech.minimal.evaluate([0.0, 0.0], [rng.normal(), xd], [F1, F2], mech.partition)
        f_n = m1 * F2 / (m1 + m2)
        assert sol.f[0] == pytest.approx(f_n, rel=1e-12)
        assert abs(sol.f[0]) == pytest.approx(m1 * abs(F2) / (m1 + m2), rel=1e-12)
        assert sol.f_mu[0] == pytest.approx(-np.sign(xd) * mu_k * abs(f_n), rel=1e-12)
        # seed 000 eq. (3.4): m1 xdd = F1 - sgn(xd) mu_k m1 |F2| / (m1 + m2)
        assert sol.udot[1] == pytest.approx((F1 - np.sign(xd) * mu_k * m1 * abs(F2) / (m1 + m2)) / m1, rel=1e-12)
        absol = absolute_dynamics(mech.model, sol.x, sol.xd, [F1, F2])
        assert absol.xdd[0] == pytest.approx(sol.udot[1], rel=1e-12)
