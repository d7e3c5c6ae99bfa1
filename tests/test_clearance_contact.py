"""Revolute joints with clearance (seed 003): the contact laws' coefficient of restitution in a free-journal
impact run by the hybrid integrator (and the cap of the Flores law), event times and grazes, energy balances,
friction opposing the slip, a pendulum converging to the ideal joint, the spatial model against the planar one,
against the gradient of its potential, the closed-form tilting moment and a fine quadrature, the spatial
journal's motion, and parameter errors."""

import warnings

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from friction_joints.contact import (FREE, Contact, Flores, Free, FreeJournal, LankaraniNikravesh, PlanarClearance,
                                     SpatialClearance, SpatialJournal, contact_events, contact_update,
                                     cylinder_stiffness)
from friction_joints.friction import Coulomb, Tanh
from friction_joints.hybrid.integrator import HybridIntegrator
from friction_joints.planar.joints import rotation

R_J, R_B = 9.5e-3, 10.0e-3  # m: journal and bearing radii, clearance 0.5 mm
C = R_B - R_J
K = cylinder_stiffness(R_J, R_B, 207e9, 207e9, 0.3, 0.3)  # steel on steel, N/m^1.5
M, J = 0.1, 0.5 * 0.1 * R_J**2  # kg, kg.m^2: a solid steel-like journal


def run(joint, y0, t_end, *, g=(0.0, 0.0), n_out=0, rtol=1e-10):
    system = FreeJournal(joint, M, J, g=g)
    integ = HybridIntegrator(system, 0.0, y0, rtol=rtol, atol=rtol * 1e-3)
    return integ.advance(t_end, np.linspace(0.0, t_end, n_out + 1)[1:] if n_out else None)


def restitution(law, v0):
    """-(rebound velocity) / v0 of a journal thrown from the centre straight at the bearing wall (no friction)."""
    joint = PlanarClearance(R_J, R_B, law)
    t_end = 1.5 * C / v0  # after the first rebound, before the second impact
    res = run(joint, FreeJournal.initial_state((0.0, 0.0), (v0, 0.0)), t_end)
    assert [k for _, k in res.events] == ["impact", "separation"], res.events
    return -res["v"][-1][0] / v0


def test_first_impact_is_located_at_the_free_flight_time_and_the_rebound_is_free_flight():
    v0 = 0.5
    res = run(PlanarClearance(R_J, R_B, Flores(0.6, K)), FreeJournal.initial_state((0.0, 0.0), (v0, 0.0)),
              5.0 * C / v0)
    (t1, k1), (t2, k2), (t3, k3) = res.events[:3]
    assert (k1, k2, k3) == ("impact", "separation", "impact")
    assert t1 == pytest.approx(C / v0, rel=1e-12)
    v_out = -res["v"][res.rows_at([t2])[0] + 1][0]
    assert t3 - t2 == pytest.approx(2.0 * C / v_out, rel=1e-9)  # across the diameter at constant speed


def test_a_journal_started_inside_the_wall_begins_in_contact_and_leaves_where_the_clipped_force_vanishes():
    law = Flores(0.6, K)
    system = FreeJournal(PlanarClearance(R_J, R_B, law), M, J)  # deltad0_min = 1 mm/s
    y0 = FreeJournal.initial_state((C + 1e-6, 0.0), (1e-4, 0.0))
    assert system.update(0.0, y0, None, None)[1:] == (Contact(1e-3), "impact")  # deltad = 0.1 mm/s, floored
    assert system.update(0.0, FreeJournal.initial_state((0.0, 0.0), (1.0, 0.0)), None, None)[1:] == (FREE, None)
    res = run(PlanarClearance(R_J, R_B, law), y0, 2e-3)
    assert res.events[0] == (0.0, "impact") and res.events[1][1] == "separation"
    # 1 + chi deltad / deltad0 falls to 0 at deltad = -deltad0 / chi: the force, clipped at 0, lets the journal
    # go at that speed (the laws do not pull the surfaces together)
    assert res["v"][-1][0] == pytest.approx(-1e-3 / law.chi, rel=1e-6)


def test_an_event_with_the_penetration_rate_turning_back_is_a_graze_that_keeps_the_mode():
    assert contact_update(FREE, "impact", 0.0, 0.2, 1e-3) == (Contact(0.2), "impact")
    assert contact_update(FREE, "impact", 0.0, -1e-12, 1e-3) == (FREE, None)
    assert contact_update(Contact(0.2), "separation", 0.0, -0.1, 1e-3) == (FREE, "separation")
    assert contact_update(Contact(0.2), "separation", 0.0, 1e-12, 1e-3) == (Contact(0.2), None)
    assert contact_update(Contact(0.2), None, 1e-6, 0.0, 1e-3) == (Contact(0.2), None)


def test_a_mode_started_past_its_event_by_the_root_residual_fires_where_it_started():
    # a located separation leaves delta a rounding residual off 0 (4e-18 m seen): on the contact side, the next
    # impact fires when delta rises through that residual, not through 0, which delta already exceeds
    eps = 4e-18
    assert contact_update(Contact(0.2), "separation", eps, -0.1, 1e-3) == (Free(eps), "separation")
    assert contact_update(Contact(0.2), "separation", -eps, -0.1, 1e-3) == (FREE, "separation")
    assert contact_update(FREE, "impact", -eps, 0.2, 1e-3) == (Contact(0.2, -eps), "impact")
    assert contact_update(Free(eps), "impact", eps, 0.2, 1e-3) == (Contact(0.2), "impact")

    def delta(t, y):
        return y[0]
    (impact,) = contact_events(delta, Free(eps))
    (separation,) = contact_events(delta, Contact(0.2, -eps))
    assert (impact.name, impact.direction, separation.name, separation.direction) == ("impact", 1, "separation", -1)
    for event, level in ((impact, eps), (separation, -eps)):  # each starts on the side before its crossing
        assert event.fn(0.0, [level]) == 0.0
        assert event.fn(0.0, [level + 1e-9]) == pytest.approx(1e-9, abs=1e-20)
        assert event.fn(0.0, [level - 1e-9]) == pytest.approx(-1e-9, abs=1e-20)


PENDULUM = dict(m=1.0, l=0.1, J_G=1e-3, g=9.81, phi0=0.5)


def clearance_pendulum(c):
    """(system, y0): a body (1 kg, J_G = 1e-3 kg.m^2) hanging from its journal 0.1 m above G, released at 0.5 rad
    with the journal resting on the bearing's bottom (radius 10 mm, clearance c); steel contact, so K grows as the
    clearance closes (c^-1/2)."""
    m, l, J_G, g, phi0 = PENDULUM.values()
    joint = PlanarClearance(0.01 - c, 0.01, LankaraniNikravesh(0.9, cylinder_stiffness(0.01 - c, 0.01, 207e9, 207e9)))
    system = FreeJournal(joint, m, J_G, g=(0.0, -g), a=(0.0, l))
    r_J = np.array([0.0, -c - (m * g / joint.law.k_contact) ** (1 / 1.5)])  # statically loaded contact
    return system, system.initial_state(r_J - rotation(phi0) @ [0.0, l], (0.0, 0.0), phi=phi0)


def test_pendulum_on_a_clearance_joint_converges_to_the_ideal_pendulum_as_the_clearance_closes():
    m, l, J_G, g, phi0 = PENDULUM.values()
    t_end = 0.1
    times = np.linspace(0.0, t_end, 11)[1:]
    ideal = solve_ivp(lambda t, y: [y[1], -m * g * l / (J_G + m * l**2) * np.sin(y[0])], (0.0, t_end), [phi0, 0.0],
                      t_eval=times, rtol=1e-12, atol=1e-14).y[0]
    clearances, errors = (1e-4, 1e-5, 1e-6), []
    for c in clearances:
        system, y0 = clearance_pendulum(c)
        res = HybridIntegrator(system, 0.0, y0, rtol=1e-8, atol=1e-12).advance(t_end, times)
        errors.append(np.abs(res["phi"][res.rows_at(times)] - ideal).max())
    slope = np.polyfit(np.log(clearances), np.log(errors), 1)[0]
    assert slope > 0.9, (slope, errors)  # at least first order in c: the pivot wanders within the clearance
    assert errors[-1] < 10 * clearances[-1] / l, errors


def test_a_journal_leaving_the_wall_and_back_within_one_step_impacts_where_it_returns():
    # the pendulum with c = 1 um: its journal leaves the wall at 94 us and comes back 18 us later, within one
    # integrator step. The impact's bracket once started at the separation, where the gap sits on zero to its
    # rounding (1e-17 m), and Brent's method found a sign change of the rounding there: an impact 4e-14 s after
    # the separation with the journal still leaving (a graze), then again 1e-15 s later, until the Zeno guard
    # (hybrid.integrator.EventWatch._bracket). Free of the wall, the body falls and turns at a constant rate: the
    # impact comes where that flight from the separation's state meets the wall (to 1e-6 of the flight; 4e-9 seen).
    system, y0 = clearance_pendulum(1e-6)
    res = HybridIntegrator(system, 0.0, y0, rtol=1e-8, atol=1e-12).advance(3e-4)
    assert [k for _, k in res.events] == ["impact", "separation", "impact"]
    t_separation, t_impact = res.event_times()[1:]
    after, before = res.rows_at([t_separation])[0] + 1, res.rows_at([t_impact])[0]
    r, v, phi, omega = (res[name][after] for name in ("r", "v", "phi", "omega"))
    g, a = np.array([0.0, -PENDULUM["g"]]), np.array([0.0, PENDULUM["l"]])

    def gap(tau):
        return system.joint.penetration(r + v * tau + 0.5 * g * tau**2 + rotation(phi + omega * tau) @ a)
    flight = brentq(gap, 1e-6, 1e-4, xtol=1e-20)  # 1 us after the separation the journal is 0.1 nm off the wall
    assert t_impact - t_separation == pytest.approx(flight, rel=1e-6)
    assert res["deltad"][after] < 0.0 < res["deltad"][before]


def test_the_long_first_step_after_an_impact_is_rejected_without_warnings():
    # a pendulum's journal falls 0.2 mm across its clearance in about 9 ms of smooth free flight, so the first
    # step of the contact is far too long: its trial stages overflow and must be rejected quietly
    joint = PlanarClearance(9.8e-3, 10e-3, Flores(0.5, cylinder_stiffness(9.8e-3, 10e-3, 207e9, 207e9)))
    system = FreeJournal(joint, 1.0, 1e-3, g=(0.0, -9.81), a=(0.0, 0.1))
    y0 = system.initial_state(np.array([0.0, 2e-4]) - rotation(1.0) @ [0.0, 0.1], (0.0, 0.0), phi=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = HybridIntegrator(system, 0.0, y0, rtol=1e-8, atol=1e-12).advance(0.012)
    assert res.events[0][1] == "impact" and 8e-3 < res.events[0][0] < 1e-2
    E = res["E_kin"] + res["E_pot"] + res["E_el"] - res["W_d"]
    np.testing.assert_allclose(E, E[0], rtol=0, atol=1e-9 * abs(E[0]))


@pytest.mark.parametrize("c_e", [0.8, 0.9, 0.95, 0.99])
def test_lankarani_nikravesh_gives_its_restitution_with_an_error_quadratic_in_1_minus_ce(c_e):
    # its derivation (1990) takes the approach and restitution paths as the elastic curve: exact as c_e -> 1,
    # the error vanishing like (1 - c_e)^2; it always returns more energy than c_e promises
    err = restitution(LankaraniNikravesh(c_e, K), 0.5) - c_e
    assert 0.0 < err < 1.6 * (1.0 - c_e) ** 2, err


def test_lankarani_nikravesh_cannot_give_a_low_restitution():
    assert restitution(LankaraniNikravesh(0.5, K), 0.5) > 0.7  # promised 0.5


@pytest.mark.parametrize("c_e", [0.1, 0.3, 0.5, 0.7, 0.9])
def test_flores_gives_its_restitution_within_a_small_fraction_of_1_minus_ce(c_e):
    err = restitution(Flores(c_e, K), 0.5) - c_e
    assert abs(err) < 0.07 * (1.0 - c_e), err
    if c_e <= 0.9:  # and is the better of the two laws at low restitution
        assert abs(err) < abs(restitution(LankaraniNikravesh(c_e, K), 0.5) - c_e)


@pytest.mark.parametrize("c_e", [0.1, 0.2, 0.3, 0.5])
def test_flores_restitution_is_capped_at_the_speed_where_its_hysteresis_factor_vanishes(c_e):
    # 1 + chi deltad / deltad0 = 0 at deltad = -deltad0 / chi, and the journal gains rebound speed only while the
    # force is positive: c_e,obtained <= 1 / chi = 5 c_e / (8 (1 - c_e)), which is below c_e for c_e < 3/8; the
    # lower c_e, the closer the rebound speed creeps up to the cap
    law = Flores(c_e, K)
    obtained = restitution(law, 0.5)
    assert obtained <= 1.0 / law.chi
    if c_e <= 0.2:
        assert obtained > 0.99 / law.chi and obtained < c_e


@pytest.mark.parametrize("law", [LankaraniNikravesh(0.7, K), Flores(0.7, K), Flores(0.7, K, n=1.0)])
def test_restitution_does_not_depend_on_the_impact_velocity_or_the_stiffness(law):
    # F = K delta^n (1 + chi deltad / deltad0): scaling delta by (m v0^2 / K)^(1/(n+1)) and t accordingly
    # removes v0 and K from the impact, so c_e is the same at every speed and stiffness
    slow = restitution(law, 0.1)
    stiff = type(law)(law.c_e, 30.0 * law.k_contact, law.n)
    assert restitution(law, 2.0) == pytest.approx(slow, rel=1e-7)
    assert restitution(stiff, 0.5) == pytest.approx(slow, rel=1e-7)


@pytest.mark.parametrize("law", [LankaraniNikravesh(0.8, K), Flores(0.4, K)])
def test_energy_balance_with_friction_spin_and_gravity(law):
    joint = PlanarClearance(R_J, R_B, law, Tanh(mu_k=0.2, v_eps=1e-3))
    y0 = FreeJournal.initial_state((1e-4, 0.0), (0.3, 0.4), omega=50.0)
    # rtol 1e-11: at 1e-10 the balance's error (integration error over the contacts) reached 7e-10 E (LN) and
    # 1.8e-9 E (Flores) on one CPU and stayed below 1e-9 E on another; at 1e-11, 1.4e-10 E and 9e-12 E
    res = run(joint, y0, 6e-3, g=(0.0, -9.81), n_out=40, rtol=1e-11)
    assert [k for _, k in res.events[:4]] == ["impact", "separation"] * 2  # two impacts at least
    E = res["E_kin"] + res["E_pot"] + res["E_el"] - res["W_d"]
    np.testing.assert_allclose(E, E[0], rtol=0, atol=1e-9 * E[0], err_msg="E_kin + E_pot + E_el - W_d")
    W_d = res["W_d"]
    assert np.all(np.diff(W_d) <= 1e-15) and W_d[-1] < -0.1 * E[0]  # dissipation only, and plenty of it
    assert np.any(np.abs(res["F_t"]) > 0.05 * res["F_n"].max())  # friction did act


@pytest.mark.parametrize("mu", [0.0, 0.05, 0.3])
def test_oblique_impact_on_a_spinning_journal(mu):
    # the bearing pushes along n through the bearing centre O and friction acts at distance R_B + delta from O:
    # the angular momentum about O, H = m r x v + J omega, changes only by friction, opposing the slip
    joint = PlanarClearance(R_J, R_B, Flores(0.6, K), Tanh(mu_k=mu, v_eps=1e-3) if mu else None)
    res = run(joint, FreeJournal.initial_state((0.0, 0.0), (0.5, 0.2), omega=-40.0), 1.5 * C / 0.5)
    (t_in, _), (t_out, _) = res.events
    i_in, i_out = res.rows_at([t_in, t_out])  # the rows just before the impact and before the separation
    r, v = res["r"], res["v"]
    H = M * (r[:, 0] * v[:, 1] - r[:, 1] * v[:, 0]) + J * res["omega"]
    v_t = res["v_t"]
    assert v_t[i_in] < -0.3  # the journal's surface slides on the bearing at impact
    if mu == 0.0:
        assert H[-1] == pytest.approx(H[0], rel=1e-12) and res["omega"][-1] == -40.0
    else:
        assert H[-1] > H[0] + 0.1 * abs(H[0])  # friction pushes along +t, against v_t < 0
        assert abs(v_t[i_out]) < abs(v_t[i_in])
        if mu == 0.05:  # sliding throughout: friction is mu F_n all along, so the slip keeps its sign
            assert v_t[i_out] < -1e-2


def test_planar_friction_opposes_the_slip_including_the_rotations():
    rng = np.random.default_rng(7)
    joint = PlanarClearance(R_J, R_B, LankaraniNikravesh(0.9, K), Tanh(mu_k=0.3, v_eps=1e-3))
    for _ in range(50):
        angle = rng.uniform(0, 2 * np.pi)
        r_B = rng.normal(size=2)
        r_J = r_B + (C + 1e-6) * np.array([np.cos(angle), np.sin(angle)])
        k = joint.contact(r_J, rng.normal(size=2), rng.normal() * 100, r_B, rng.normal(size=2), rng.normal() * 100,
                          1.0)
        assert k.delta == pytest.approx(1e-6, rel=1e-6) and k.F_n > 0
        assert k.F_t * k.v_t < 0
        assert abs(k.F_t) == pytest.approx(0.3 * np.tanh(abs(k.v_t) / 1e-3) * k.F_n, rel=1e-12)
    # rolling without slip: the contact points move together, so there is no friction
    r_J = np.array([C + 1e-6, 0.0])
    k = joint.contact(r_J, (0.0, 0.0), 2.0 * R_B / R_J, (0.0, 0.0), (0.0, 0.0), 2.0, 1.0)
    assert abs(k.v_t) < 1e-15 and abs(k.F_t) < 1e-12 * k.F_n


def random_rotation(rng):
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return q * np.sign(np.linalg.det(q))


@pytest.mark.parametrize("n_slices", [1, 7])
def test_spatial_model_with_aligned_axes_is_the_planar_model_in_any_orientation(n_slices):
    rng = np.random.default_rng(3)
    law, friction = Flores(0.5, K), Tanh(mu_k=0.25, v_eps=2e-3)
    planar = PlanarClearance(R_J, R_B, law, friction)
    spatial = SpatialClearance(R_J, R_B, 0.02, law, friction, n_slices)
    for _ in range(20):
        Q = random_rotation(rng)  # columns: the plane's x, y and the common axis
        angle = rng.uniform(0, 2 * np.pi)
        # positions of mm (rounding in the rotation stays far below the penetration of micrometres)
        r_B, v_B, v_J = rng.normal(size=2) * 1e-3, rng.normal(size=2), rng.normal(size=2)
        r_J = r_B + (C + rng.uniform(1e-6, 1e-5)) * np.array([np.cos(angle), np.sin(angle)])
        w_J, w_B = rng.normal(size=2) * 50
        p = planar.contact(r_J, v_J, w_J, r_B, v_B, w_B, 0.7)

        def lift(xy, z=0.0):
            return Q @ np.array([xy[0], xy[1], z])

        z_B, z_J = rng.normal(size=2) * 1e-3  # the centres along the axis: no effect without axial clearance
        s = spatial.contact(lift(r_J, z_J), Q[:, 2], lift(v_J), w_J * Q[:, 2], lift(r_B, z_B), Q[:, 2], lift(v_B),
                            w_B * Q[:, 2], 0.7)
        scale = abs(p.F_n) + abs(p.F_t)
        np.testing.assert_allclose(Q.T @ s.F_J, [*p.F_J, 0.0], rtol=0, atol=1e-10 * scale, err_msg="F_J")
        np.testing.assert_allclose(Q.T @ s.F_B, [*p.F_B, 0.0], rtol=0, atol=1e-10 * scale, err_msg="F_B")
        # about the journal and bearing centres: the planar moments about the axis and no tilting moment, but
        # for the journal's offset z_J - z_B along the axis from the bearing's mid-plane, where its load acts
        arm = [0.0, 0.0, z_B - z_J]
        np.testing.assert_allclose(Q.T @ s.M_J - np.cross(arm, [*p.F_J, 0.0]), [0.0, 0.0, p.M_J], rtol=0,
                                   atol=1e-10 * scale * R_B, err_msg="M_J")
        np.testing.assert_allclose(Q.T @ s.M_B, [0.0, 0.0, p.M_B], rtol=0, atol=1e-10 * scale * R_B, err_msg="M_B")


def tilted(theta):
    """A journal centred in the bearing (axis z) and tilted by theta about x."""
    return dict(r_J=np.zeros(3), u_J=np.array([0.0, -np.sin(theta), np.cos(theta)]), v_J=np.zeros(3),
                omega_J=np.zeros(3), r_B=np.zeros(3), u_B=np.array([0.0, 0.0, 1.0]), v_B=np.zeros(3),
                omega_B=np.zeros(3), deltad0=1.0)


def test_skewed_journal_meets_a_restoring_tilting_moment_converging_to_the_closed_form_at_2nd_order():
    # delta(s) = |s| tan(theta) - c: the potential of the distributed stiffness (K / L) is
    # V = 2 (K / L) int_{c / tan}^{L / 2} (s tan - c)^(n+1) / (n+1) ds, and the moment about x is
    # M_x = -dV/dtheta = -2 K / (L sin^2 theta) (D^(n+2) / (n+2) + c D^(n+1) / (n+1)), D = tan(theta) L / 2 - c
    L, theta, law = 0.02, 0.06, LankaraniNikravesh(0.9, K)
    n = law.n
    D = np.tan(theta) * L / 2 - C
    M_x = -2 * K / (L * np.sin(theta) ** 2) * (D ** (n + 2) / (n + 2) + C * D ** (n + 1) / (n + 1))
    errors = []
    n_list = (16, 32, 64, 128, 256)
    for n_slices in n_list:
        k = SpatialClearance(R_J, R_B, L, law, n_slices=n_slices).contact(**tilted(theta))
        assert k.M_J[0] < 0  # restoring: opposite to the tilt u_B x u_J = +x
        np.testing.assert_allclose(k.F_J, 0.0, atol=1e-10 * abs(M_x) / L)  # symmetric: no net force
        np.testing.assert_allclose(k.M_J[1:], 0.0, atol=1e-10 * abs(M_x))
        errors.append(abs(k.M_J[0] / M_x - 1.0))
    # the midpoint rule's second order, its rate irregular as the kink at delta = 0 (where delta^n is only C^1)
    # moves between slice midpoints: the least-squares slope of log error against log n_slices
    slope = np.polyfit(np.log(n_list), np.log(errors), 1)[0]
    assert -2.3 < slope < -1.8, (slope, errors)
    assert errors[-1] < 1e-3, errors


def gauss_reference(joint, state, points=60):
    """The contact of the continuous length: Gauss-Legendre on the pieces of [-L/2, L/2] between the roots of
    |e(s)| = c (e(s) is affine in s, so |e(s)|^2 = c^2 is a quadratic), where delta^n is smooth."""
    e0, _, _ = joint.eccentricity([0.0], state["r_J"], state["u_J"], state["r_B"], state["u_B"])
    e1, _, _ = joint.eccentricity([1.0], state["r_J"], state["u_J"], state["r_B"], state["u_B"])
    e0, w = e0[0], e1[0] - e0[0]
    roots = np.roots([w @ w, 2 * e0 @ w, e0 @ e0 - joint.c**2])
    cuts = np.sort([r.real for r in roots if abs(r.imag) < 1e-300 and abs(r.real) < joint.L / 2])
    ends = np.concatenate(([-joint.L / 2], cuts, [joint.L / 2]))
    x, wx = np.polynomial.legendre.leggauss(points)
    s = np.concatenate([0.5 * (a + b) + 0.5 * (b - a) * x for a, b in zip(ends[:-1], ends[1:])])
    ws = np.concatenate([0.5 * (b - a) * wx for a, b in zip(ends[:-1], ends[1:])])
    return joint.contact_at(s, ws, **state)


def test_slices_converge_to_the_continuous_contact_of_a_moving_skewed_journal():
    rng = np.random.default_rng(2)
    u_J = np.array([0.04, -0.03, 1.0])
    state = dict(r_J=np.array([0.6 * C, 0.2 * C, 1e-3]), u_J=u_J / np.linalg.norm(u_J), v_J=rng.normal(size=3),
                 omega_J=rng.normal(size=3) * 30, r_B=np.zeros(3), u_B=np.array([0.0, 0.0, 1.0]),
                 v_B=rng.normal(size=3) * 0.1, omega_B=rng.normal(size=3), deltad0=2.0)
    law, friction = Flores(0.5, K), Tanh(mu_k=0.2, v_eps=1e-3)
    ref = gauss_reference(SpatialClearance(R_J, R_B, 0.02, law, friction), state)
    finer = gauss_reference(SpatialClearance(R_J, R_B, 0.02, law, friction), state, points=120)
    np.testing.assert_allclose(ref.F_J, finer.F_J, rtol=1e-9)  # the reference has converged
    assert 0 < ref.delta.max() and ref.delta.min() < 0  # in contact over part of the length
    n_list, errors = (10, 20, 40, 80, 160), []
    for n_slices in n_list:
        k = SpatialClearance(R_J, R_B, 0.02, law, friction, n_slices).contact(**state)
        errors.append(max(np.linalg.norm(k.F_J - ref.F_J) / np.linalg.norm(ref.F_J),
                          np.linalg.norm(k.M_J - ref.M_J) / np.linalg.norm(ref.M_J)))
    slope = np.polyfit(np.log(n_list), np.log(errors), 1)[0]
    assert -2.3 < slope < -1.8, (slope, errors)
    assert errors[-1] < 1e-3, errors


def rotated(u, phi):
    """u turned by the rotation vector phi (Rodrigues)."""
    angle = np.linalg.norm(phi)
    if angle == 0:
        return u
    k = phi / angle
    return u * np.cos(angle) + np.cross(k, u) * np.sin(angle) + k * (k @ u) * (1 - np.cos(angle))


def test_spatial_normal_forces_and_moments_are_minus_the_gradient_of_the_slices_potential():
    # virtual work: with the bodies at rest (no damping, no friction) F = -dV/dr and M = -dV/dphi for each
    # body, V = sum (w / L) K delta^(n+1) / (n+1), by central differences of V over the poses
    joint = SpatialClearance(R_J, R_B, 0.02, Flores(0.5, K), Tanh(mu_k=0.3, v_eps=1e-3), n_slices=12)
    _, w = joint.slices()
    u_J = np.array([0.03, -0.02, 1.0])
    pose = dict(r_J=np.array([0.8 * C, 0.3 * C, 1e-3]), u_J=u_J / np.linalg.norm(u_J), r_B=np.array([0, 0, -2e-3]),
                u_B=rotated(np.array([0.0, 0.0, 1.0]), np.array([0.01, 0.0, 0.0])))
    rest = dict(v_J=np.zeros(3), omega_J=np.zeros(3), v_B=np.zeros(3), omega_B=np.zeros(3), deltad0=1.0)

    def V(p):
        return w @ joint.law.energy(joint.contact(**p, **rest).delta) / joint.L

    k = joint.contact(**pose, **rest)
    assert k.delta.min() < 0 < k.delta.max()
    for body, F, M in (("J", k.F_J, k.M_J), ("B", k.F_B, k.M_B)):
        grad_r, grad_phi = np.empty(3), np.empty(3)
        for i, h in enumerate(np.eye(3)):
            plus, minus = dict(pose), dict(pose)
            plus[f"r_{body}"], minus[f"r_{body}"] = pose[f"r_{body}"] + 1e-9 * h, pose[f"r_{body}"] - 1e-9 * h
            grad_r[i] = (V(plus) - V(minus)) / 2e-9
            plus, minus = dict(pose), dict(pose)
            plus[f"u_{body}"], minus[f"u_{body}"] = rotated(pose[f"u_{body}"], 1e-7 * h), \
                rotated(pose[f"u_{body}"], -1e-7 * h)
            grad_phi[i] = (V(plus) - V(minus)) / 2e-7
        np.testing.assert_allclose(F, -grad_r, rtol=0, atol=1e-6 * np.linalg.norm(F), err_msg=f"F_{body}")
        np.testing.assert_allclose(M, -grad_phi, rtol=0, atol=1e-6 * np.linalg.norm(M), err_msg=f"M_{body}")


def test_spatial_event_function_is_the_largest_penetration_over_the_slices():
    joint = SpatialClearance(R_J, R_B, 0.02, Flores(0.5, K), n_slices=9)
    rng = np.random.default_rng(5)
    for _ in range(10):
        u_J = np.array([*rng.normal(size=2) * 0.05, 1.0])
        u_J /= np.linalg.norm(u_J)
        r_J, u_B = rng.normal(size=3) * C, np.array([0.0, 0.0, 1.0])
        k = joint.contact(r_J, u_J, np.zeros(3), np.zeros(3), np.zeros(3), u_B, np.zeros(3), np.zeros(3), 1.0)
        assert joint.penetration(r_J, u_J, np.zeros(3), u_B) == k.delta.max()


def test_spatial_friction_only_removes_power():
    rng = np.random.default_rng(11)
    law = LankaraniNikravesh(1.0, K)  # no damping: the normal forces do no net work on their own
    dry = SpatialClearance(R_J, R_B, 0.02, law, Tanh(mu_k=0.3, v_eps=1e-3), n_slices=8)
    smooth = SpatialClearance(R_J, R_B, 0.02, law, None, n_slices=8)
    for _ in range(30):
        u_J = np.array([*rng.normal(size=2) * 0.05, 1.0])
        state = dict(r_J=np.array([C * 1.01, 0, 0]), u_J=u_J / np.linalg.norm(u_J), v_J=rng.normal(size=3),
                     omega_J=rng.normal(size=3) * 50, r_B=np.zeros(3), u_B=np.array([0, 0, 1.0]),
                     v_B=rng.normal(size=3), omega_B=rng.normal(size=3) * 50, deltad0=1.0)

        def power(k):
            return (k.F_J @ state["v_J"] + k.M_J @ state["omega_J"] + k.F_B @ state["v_B"]
                    + k.M_B @ state["omega_B"])

        a, b = dry.contact(**state), smooth.contact(**state)
        assert np.all(a.F_n == b.F_n) and a.F_n.max() > 0
        assert power(a) < power(b)


I_A, I_T = J, M * (3 * R_J**2 + 0.02**2) / 12  # kg.m^2: a solid journal 20 mm long


def run_spatial(joint, state, t_end, *, g=(0.0, 0.0, 0.0), n_out=0, rtol=1e-10):
    system = SpatialJournal(joint, M, I_A, I_T, g=g)
    integ = HybridIntegrator(system, 0.0, system.initial_state(**state), rtol=rtol, atol=rtol * 1e-3)
    return integ.advance(t_end, np.linspace(0.0, t_end, n_out + 1)[1:] if n_out else None)


def test_spatial_journal_with_aligned_axes_moves_as_the_planar_journal():
    """Both at rtol 1e-12: the event times are compared to 1e-12, which the integration error of either
    formulation must stay below (at rtol 1e-10 a segment on the 5th-order pair shifts them by ~1e-12)."""
    law, friction = Flores(0.6, K), Tanh(mu_k=0.2, v_eps=1e-3)
    t_end = 1.5 * C / 0.5
    flat = run(PlanarClearance(R_J, R_B, law, friction), FreeJournal.initial_state((0, 0), (0.5, 0.2), omega=-40.0),
               t_end, rtol=1e-12)
    spatial = run_spatial(SpatialClearance(R_J, R_B, 0.02, law, friction, n_slices=3),
                          dict(r=np.zeros(3), v=[0.5, 0.2, 0.0], omega=[0.0, 0.0, -40.0]), t_end, rtol=1e-12)
    assert [k for _, k in spatial.events] == [k for _, k in flat.events] == ["impact", "separation"]
    np.testing.assert_allclose([t for t, _ in spatial.events], [t for t, _ in flat.events], rtol=1e-12)
    np.testing.assert_allclose(spatial["v"][-1], [*flat["v"][-1], 0.0], rtol=0, atol=1e-9, err_msg="v")
    np.testing.assert_allclose(spatial["omega"][-1], [0.0, 0.0, flat["omega"][-1]], rtol=0, atol=1e-9)


def test_spatial_journal_energy_balance_with_skew_spin_axial_slip_friction_and_gravity():
    tilt = np.array([np.cos(0.01), np.sin(0.01), 0.0, 0.0])  # 0.02 rad about x
    joint = SpatialClearance(R_J, R_B, 0.02, Flores(0.6, K), Tanh(mu_k=0.2, v_eps=1e-3), n_slices=6)
    res = run_spatial(joint, dict(r=[1e-4, 0, 0], v=[0.3, 0.4, 0.1], q=tilt, omega=[2.0, -1.0, 50.0]), 4e-3,
                      g=(0.0, -9.81, 0.0), n_out=40)
    assert [k for _, k in res.events[:4]] == ["impact", "separation"] * 2
    E = res["E_kin"] + res["E_pot"] + res["E_el"] - res["W_d"]
    np.testing.assert_allclose(E, E[0], rtol=0, atol=1e-9 * E[0], err_msg="E_kin + E_pot + E_el - W_d")
    assert np.all(np.diff(res["W_d"]) <= 1e-15) and res["W_d"][-1] < -0.1 * E[0]


def test_a_tilting_journal_is_turned_back_by_the_bearing_ends():
    # centred, tilting about x: both ends strike at once, symmetric about the centre, so the centre stays put
    joint = SpatialClearance(R_J, R_B, 0.02, Flores(0.8, K), n_slices=8)
    res = run_spatial(joint, dict(r=np.zeros(3), v=np.zeros(3), omega=[100.0, 0.0, 0.0]), 1.2e-3, n_out=1200)
    assert [k for _, k in res.events] == ["impact", "separation"]  # the ends move at 1 m/s, 0.5 mm from the wall
    # turned back: only the two end slices (at s = 8.75 mm) touch, the next ones would need a 40 % larger tilt,
    # so this is the one-degree-of-freedom impact of the planar test, whose restitution depends on neither mass
    # nor stiffness, but for delta = s tan(theta) - c: the inertia seen by delta, I cos^4(theta) / s^2, varies
    # over the impact by a fraction 4 tan(theta) delta_max / s
    s_end, theta = 0.01 - 0.02 / 16, np.arctan(C / (0.01 - 0.02 / 16))
    bound = 4 * np.tan(theta) * res["delta"].max() / s_end
    assert 1e-6 < bound < 1e-3
    assert -res["omega"][-1][0] / 100.0 == pytest.approx(restitution(Flores(0.8, K), 0.5), rel=bound)
    np.testing.assert_allclose(res["r"][-1], 0.0, atol=1e-15)
    np.testing.assert_allclose(res["omega"][-1][1:], 0.0, atol=1e-9)


def test_bad_parameters_are_named_with_their_ranges():
    with pytest.raises(ValueError, match=r"c_e=1\.2.*\[0, 1\].*k_contact=-1"):
        LankaraniNikravesh(1.2, -1.0)
    with pytest.raises(ValueError, match=r"c_e=0\.0.*\(0, 1\]"):
        Flores(0.0, K)
    with pytest.raises(ValueError, match=r"n=0\.5"):
        Flores(0.5, K, n=0.5)
    with pytest.raises(ValueError, match=r"R_B=0\.009.*nu_J=0\.6"):
        cylinder_stiffness(0.01, 0.009, 2e11, 2e11, nu_J=0.6)
    with pytest.raises(ValueError, match=r"R_B=0\.01.*friction must be"):
        PlanarClearance(0.01, 0.01, Flores(0.5, K), Coulomb(0.3, 0.2))
    with pytest.raises(ValueError, match=r"law must be a contact law"):
        PlanarClearance(R_J, R_B, 1e9)
    with pytest.raises(ValueError, match=r"L=0\.0.*n_slices=0"):
        SpatialClearance(R_J, R_B, 0.0, Flores(0.5, K), n_slices=0)
    with pytest.raises(ValueError, match=r"u_J must be a unit vector"):
        SpatialClearance(R_J, R_B, 0.02, Flores(0.5, K)).contact(*[np.zeros(3)] * 8, 1.0)
    with pytest.raises(ValueError, match=r"m=0\.0.*J=-1"):
        FreeJournal(PlanarClearance(R_J, R_B, Flores(0.5, K)), 0.0, -1.0)
    with pytest.raises(ValueError, match=r"joint must be a SpatialClearance.*I_t=0\.0.*g must be 3"):
        SpatialJournal(PlanarClearance(R_J, R_B, Flores(0.5, K)), 1.0, 1.0, 0.0, g=(0.0, -9.81))


def test_cylinder_stiffness_scales_with_the_modulus_and_the_conformity():
    # K = 4 / (3 (sigma_J + sigma_B)) sqrt(R_J R_B / (R_B - R_J)): linear in E (equal materials), and
    # growing as the clearance closes like c^(-1/2)
    assert cylinder_stiffness(R_J, R_B, 2e11, 2e11) == pytest.approx(2 * cylinder_stiffness(R_J, R_B, 1e11, 1e11))
    k1, k2 = cylinder_stiffness(0.01 - 1e-4, 0.01, 2e11, 2e11), cylinder_stiffness(0.01 - 1e-6, 0.01, 2e11, 2e11)
    assert k2 / k1 == pytest.approx(np.sqrt(100 * (0.01 - 1e-6) / (0.01 - 1e-4)), rel=1e-12)
    sigma = (1 - 0.3**2) / 207e9
    assert K == pytest.approx(4 / (6 * sigma) * np.sqrt(R_J * R_B / C), rel=1e-14)
