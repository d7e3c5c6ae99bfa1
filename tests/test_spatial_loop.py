"""The cut-joint loop, the Newton-Euler reactions and the journal friction of seed 002, checked
against independent calculations: two formulations of every quantity, global Newton-Euler balances
by finite differences, the force and moment balance of the journal loads."""

import numpy as np
import pytest
from hypothesis import given, settings
from scipy.integrate import trapezoid
from hypothesis import strategies as st

from friction_joints.spatial.dynamics import point_terms, point_terms_trace, recursive
from friction_joints.spatial.journal import JournalFriction, JournalSet
from friction_joints.spatial.reactions import newton_euler
from friction_joints.spatial.rsrrr import RSRRR, RSRRRParameters, table1_journals
from test_spatial_chain import random_chain


def moving_state(mech, psi11=0.9, psid11=7.0):
    q = mech.loop.assemble(mech.initial_position() + [psi11 - np.pi / 2, 0.0, 0.0, 0.0])
    return q, mech.loop.dependent_velocities(q, np.array([psid11]))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5), st.booleans())
def test_point_terms_trace_and_vector_agree(seed, n, tree):
    """D^T and c of seed 002 eq. (2) (4x4 trace form) against the O(n) vector kinematics, for a point
    of a random link of a serial chain or a tree."""
    rng = np.random.default_rng(seed)
    chain = random_chain(rng, n, tree)
    q, qd, r = rng.normal(size=n), rng.normal(size=n) * 2, rng.normal(size=3)
    link = int(rng.integers(0, n))
    DT, c = point_terms_trace(chain, q, qd, r, link)
    J, b = point_terms(chain, q, qd, r, link)
    assert np.all(J[:, ~chain.supports[:, link]] == 0)  # joints off the link's path do not move it
    np.testing.assert_allclose(J, DT, atol=1e-12 * max(1.0, np.abs(DT).max()))
    np.testing.assert_allclose(b, c, atol=1e-11 * max(1.0, np.abs(c).max()))


def assert_point_terms_are_derivatives(chain, q, qd, r):
    """J = dP/dq and b = d2P/dt2 at qdd = 0 of the point r (3,) of the chain's last link, by central
    differences along q + qd t."""

    def P(qq):
        return (chain.frames(qq)[0][-1] @ np.append(r, 1.0))[:3]

    J, b = point_terms(chain, q, qd, r)
    h = 1e-4
    np.testing.assert_allclose((P(q + h * qd) - P(q - h * qd)) / (2 * h), J @ qd, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose((P(q + h * qd) - 2 * P(q) + P(q - h * qd)) / h**2, b, rtol=1e-5, atol=1e-6)


def test_point_terms_are_the_derivatives_of_the_point():
    rng = np.random.default_rng(7)
    chain = random_chain(rng, 4)
    assert_point_terms_are_derivatives(chain, rng.normal(size=4), rng.normal(size=4), rng.normal(size=3))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5), st.booleans())
def test_newton_euler_joint_torques_equal_the_lagrange_forces(seed, n, tree):
    """n_z of eqs 3.1-3.8 is the joint torque: A qdd - e - J^T F_tip of the Lagrange form, with the
    force on a random link of a serial chain or a tree."""
    rng = np.random.default_rng(seed)
    chain = random_chain(rng, n, tree)
    q, qd, qdd = rng.normal(size=n), rng.normal(size=n), rng.normal(size=n)
    r, F, link = rng.normal(size=3), rng.normal(size=3) * 10, int(rng.integers(0, n))
    A, e = recursive(chain, q, qd)
    J, _ = point_terms(chain, q, qd, r, link)
    _, n_O = newton_euler(chain, q, qd, qdd, F, r, link)
    tau = A @ qdd - e - J.T @ F
    np.testing.assert_allclose(n_O[:, 2], tau, atol=1e-11 * max(1.0, np.abs(tau).max()))


def _vee(W):
    return np.array([W[2, 1], W[0, 2], W[1, 0]])


def link_motion(frame, h=1e-4):
    """Motion of a body by central differences of its frame(t) (4x4) at t = 0: (R, omega, omega_dot,
    acceleration(r): the acceleration of the body point r given in the frame), global axes."""
    def omega(t):
        return _vee((frame(t + h)[:3, :3] - frame(t - h)[:3, :3]) / (2 * h) @ frame(t)[:3, :3].T)

    def acceleration(r):
        P = [(frame(t) @ np.append(r, 1.0))[:3] for t in (-h, 0.0, h)]
        return (P[2] - 2 * P[1] + P[0]) / h**2

    return frame(0.0)[:3, :3], omega(0.0), (omega(h) - omega(-h)) / (2 * h), acceleration


def test_reactions_satisfy_newton_euler_for_every_link_of_the_rsrrr():
    """For each link, in global axes: m a_C = f_O(p) - f_O(p+1) + m g (+ the cut force at S on the
    last link) and I omega_dot + omega x I omega = the moments about the centre of mass, with a_C,
    omega, omega_dot by finite differences of the frames along q(t) = q + qd t + qdd t^2 / 2:
    independent of the recursion of eqs 3.1-3.8."""
    mech = RSRRR()
    q, qd = moving_state(mech)
    s = mech.dynamics(q, qd, 6.0)
    assert np.abs(s.t_f).max() > 0.05  # friction is acting
    for c, chain in enumerate(mech.loop.chains):
        rows = slice(0, 1) if c == 0 else slice(1, 4)
        f_O, n_O = s.f_O[rows], s.n_O[rows]

        def frames(t):
            x = q + qd * t + 0.5 * s.qdd * t**2
            return chain.frames(x[rows])[0]

        for p, link in enumerate(chain.links):
            R, omega, omega_dot, acceleration = link_motion(lambda t: frames(t)[p])
            T = frames(0.0)[p]
            C = T[:3, :3] @ np.asarray(link.c) + T[:3, 3]
            f_p, n_p, O_p = R @ f_O[p], R @ n_O[p], T[:3, 3]  # link frame = joint frame (A = I)
            if p + 1 < chain.n:  # the next link acts with -f_O(p+1), -n_O(p+1) at its joint origin
                T_next = frames(0.0)[p + 1]
                force, point, torque = -T_next[:3, :3] @ f_O[p + 1], T_next[:3, 3], -T_next[:3, :3] @ n_O[p + 1]
            else:  # the cut force: f_S on chain 1, -f_S on chain 2, at S
                force, point, torque = (1 if c == 0 else -1) * s.f_S, (T @ np.append(mech.loop.r_S[c], 1.0))[:3], 0.0
            scale = max(1.0, np.abs(f_O).max())
            np.testing.assert_allclose(link.m * acceleration(np.asarray(link.c)), f_p + force + link.m * chain.gravity,
                                       atol=1e-5 * scale)
            I = R @ np.asarray(link.I_c) @ R.T
            moments = n_p + torque + np.cross(O_p - C, f_p) + np.cross(point - C, force)
            np.testing.assert_allclose(I @ omega_dot + np.cross(omega, I @ omega), moments, atol=1e-5 * scale)


def test_cut_form_and_minimal_form_agree():
    """Eq. (2) with its cut force against the minimal form in psid(1,1), with friction acting."""
    mech = RSRRR()
    for psi11, psid11, tau in ((0.9, 7.0, 6.0), (2.5, -3.0, -2.0), (4.0, 0.5, 10.0)):
        q, qd = moving_state(mech, psi11, psid11)
        cut, minimal = mech.dynamics(q, qd, tau), mech.dynamics(q, qd, tau, minimal=True)
        for name in ("qdd", "f_S", "f_O", "n_O", "t_f"):
            a, b = getattr(cut, name), getattr(minimal, name)
            np.testing.assert_allclose(a, b, atol=1e-9 * max(1.0, np.abs(a).max()))
        G, c, Phi, _ = mech.loop.kinematics(q, qd)
        np.testing.assert_allclose(G @ cut.qdd, c, atol=1e-9 * np.abs(c).max())  # closure at acceleration level


def test_friction_coupling_is_solved_and_three_passes_are_close():
    """The returned t_f reproduce themselves through the reactions (eqs 4-7 on eqs 3.1-3.8 of eq. 2);
    the paper's three passes (seed 002 Sect. 6) leave a small error only."""
    mech = RSRRR()
    q, qd = moving_state(mech)
    s = mech.dynamics(q, qd, 6.0)
    again = mech.friction_torques(qd, s.f_O, s.n_O)
    np.testing.assert_allclose(again, s.t_f, atol=1e-11)
    assert 3 < s.iterations < RSRRR.MAX_ITERATIONS
    three = mech.dynamics(q, qd, 6.0, iterations=3)
    assert three.iterations == 3
    assert np.abs(three.t_f - s.t_f).max() < 0.1 * np.abs(s.t_f).max()
    one = mech.dynamics(q, qd, 6.0, iterations=1)
    np.testing.assert_array_equal(one.t_f, 0.0)  # the first pass is frictionless


def test_journal_loads_balance_the_reaction():
    """F_A at z = -a_bar/2 and F_B at z = +a_bar/2 (the derivation behind eqs 6.1-6.2) carry f_x, f_y
    and produce n_x, n_y about the origin; the printed magnitudes equal theirs."""
    j = JournalFriction()
    rng = np.random.default_rng(4)
    for _ in range(20):
        f, n = rng.normal(size=3) * 50, rng.normal(size=3) * 3
        F_A = np.array([f[0] / 2 - n[1] / j.a_bar, f[1] / 2 + n[0] / j.a_bar, 0.0])
        F_B = np.array([f[0] / 2 + n[1] / j.a_bar, f[1] / 2 - n[0] / j.a_bar, 0.0])
        np.testing.assert_allclose((F_A + F_B)[:2], f[:2], atol=1e-12)
        moment = np.cross([0, 0, -j.a_bar / 2], F_A) + np.cross([0, 0, j.a_bar / 2], F_B)
        np.testing.assert_allclose(moment[:2], n[:2], atol=1e-12)
        loads = j.surface_loads(f, n)
        np.testing.assert_allclose(loads, (np.linalg.norm(F_A), np.linalg.norm(F_B), abs(f[2])), rtol=1e-13)


def test_face_friction_formula_and_its_thin_ring_limit():
    """Eq. (5.3) against the integral of mu p r over the annulus with uniform pressure; at d_C = d_A
    (joint (2,1) of Table 1, where the printed formula is 0/0) the limit mu |f_z| d_A / 2."""
    f_z, mu = 40.0, 0.2
    for d_A, d_C in ((0.01, 0.015), (0.02, 0.06)):
        j = JournalFriction(d_A=d_A, d_C=d_C, mu_A=0.0, mu_B=0.0, mu_C=mu)
        r = np.linspace(d_A / 2, d_C / 2, 20001)
        p = f_z / (np.pi * ((d_C / 2) ** 2 - (d_A / 2) ** 2))
        integral = trapezoid(mu * p * r * 2 * np.pi * r, r)
        assert j.full_torque([0, 0, -f_z], [0, 0, 0]) == pytest.approx(integral, rel=1e-7)
        printed = mu * f_z * (d_C**3 - d_A**3) / (3 * (d_C**2 - d_A**2))
        assert j.full_torque([0, 0, f_z], [0, 0, 0]) == pytest.approx(printed, rel=1e-13)
    ring = JournalFriction(a_bar=0.03, d_A=0.028, d_B=0.028, d_C=0.028, mu_A=0.0, mu_B=0.0, mu_C=mu)
    assert ring.full_torque([0, 0, f_z], [0, 0, 0]) == pytest.approx(mu * f_z * 0.028 / 2, rel=1e-13)


def test_kinetic_characteristic_of_eq7():
    """k = 3 and psid_k = 0.01 rad/s give 0.95 mu_0 at psid_k (seed 002 Table 1 note); the torque
    opposes the rotation and is odd in psid."""
    j = table1_journals()[2]
    f, n = np.array([30.0, -20.0, 10.0]), np.array([0.5, 0.2, 0.0])
    full = j.full_torque(f, n)
    assert j.torque(0.01, f, n) == pytest.approx((1 - np.exp(-3)) * full, rel=1e-13)
    assert 0.95 <= j.torque(0.01, f, n) / full < 0.951
    assert j.torque(-0.3, f, n) == pytest.approx(-j.torque(0.3, f, n), rel=1e-14)
    assert j.torque(0.0, f, n) == 0.0
    stack = JournalSet(table1_journals())
    F, N = np.tile(f, (4, 1)), np.tile(n, (4, 1))
    np.testing.assert_allclose(stack.torque(np.full(4, 0.02), F, N),
                               [jj.torque(0.02, f, n) for jj in table1_journals()], rtol=1e-14)


def test_bad_parameters_are_named():
    with pytest.raises(ValueError, match="d_C"):
        JournalFriction(d_A=0.02, d_C=0.01)
    with pytest.raises(ValueError, match="a_bar"):
        JournalFriction(a_bar=0.0)
    with pytest.raises(ValueError, match=r"l\[3\]"):
        RSRRRParameters(l=(0.2, 0.2, -0.1, 0.3))


def test_rsrrr_with_the_trace_formulation_agrees():
    """The whole linkage (eq. 2, reactions, friction) with the paper's trace formulation of A and e."""
    recursive_form, trace_form = RSRRR(), RSRRR(RSRRRParameters(trace=True))
    q, qd = moving_state(recursive_form, 2.0, -6.0)
    a, b = recursive_form.dynamics(q, qd, 4.0), trace_form.dynamics(q, qd, 4.0)
    for name in ("qdd", "f_S", "f_O", "n_O", "t_f"):
        x, y = getattr(a, name), getattr(b, name)
        np.testing.assert_allclose(x, y, atol=1e-10 * max(1.0, np.abs(x).max()))
