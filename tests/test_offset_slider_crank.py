"""Seed 000 Example 1: the engine reproduces the paper's z, s, C, C_mu (6.2), x = g(q), D1 (6.4),
M', h', C2'^T (6.5), C2', xi2' (6.6), D2, nu2 (6.7) and sdot (6.8) at random configurations."""

import numpy as np
import pytest

from friction_joints.mechanisms import offset_slider_crank

m1, m2, m3 = 3.0, 7.0, 2.0
a1, a2, a3 = 0.3, 0.7, 0.2
g = 9.81
rng = np.random.default_rng(2)


@pytest.fixture(scope="module")
def mech():
    return offset_slider_crank()


def paper_C_Cmu(x):
    _, _, t1, _, _, t2, _, _, t3 = x
    s1, c1, s2, c2, s3, c3 = np.sin(t1), np.cos(t1), np.sin(t2), np.cos(t2), np.sin(t3), np.cos(t3)
    C = np.array([
        [1, 0, a1 * s1, 0, 0, 0, 0, 0, 0],
        [0, 1, -a1 * c1, 0, 0, 0, 0, 0, 0],
        [-1, 0, a1 * s1, 1, 0, a2 * s2, 0, 0, 0],
        [0, -1, -a1 * c1, 0, 1, -a2 * c2, 0, 0, 0],
        [0, 0, 0, -1, 0, a2 * s2, 1, 0, a3 * s3],
        [0, 0, 0, 0, -1, -a2 * c2, 0, 1, -a3 * c3],
        [0, 0, 0, 0, 0, 0, 0, 1, a3 * c3],
        [0, 0, 0, 0, 0, 0, 0, 0, 1]], dtype=float)
    Cmu = np.array([
        [0, 0, 1, 0, 0, 0, 0, 0, 0],
        [0, 0, -1, 0, 0, 1, 0, 0, 0],
        [0, 0, 0, 0, 0, -1, 0, 0, 1],
        [0, 0, 0, 0, 0, 0, 1, 0, -a3 * s3]], dtype=float)
    return C, Cmu


def test_local_coordinates_and_jacobians_are_eq_6_2(mech):
    for _ in range(50):
        x = rng.normal(size=9)
        X1, Y1, t1, X2, Y2, t2, X3, Y3, t3 = x
        z, s, C, Cmu, _ = mech.model.constraints(x)
        z_paper = [X1 - a1 * np.cos(t1), Y1 - a1 * np.sin(t1),
                   X2 - a2 * np.cos(t2) - X1 - a1 * np.cos(t1), Y2 - a2 * np.sin(t2) - Y1 - a1 * np.sin(t1),
                   X3 - a3 * np.cos(t3) - X2 - a2 * np.cos(t2), Y3 - a3 * np.sin(t3) - Y2 - a2 * np.sin(t2),
                   Y3 + a3 * np.sin(t3), t3 + np.pi / 2]
        s_paper = [t1, t2 - t1, t3 - t2, X3 + a3 * np.cos(t3)]
        np.testing.assert_allclose(z, z_paper, atol=1e-14)
        np.testing.assert_allclose(s, s_paper, atol=1e-14)
        C_paper, Cmu_paper = paper_C_Cmu(x)
        np.testing.assert_allclose(C, C_paper, atol=1e-14)
        np.testing.assert_allclose(Cmu, Cmu_paper, atol=1e-14)


def test_open_tree_matrices_are_eqs_6_4_to_6_6(mech):
    coords = mech.minimal.coords
    model = mech.model
    for _ in range(50):
        q, qd = rng.uniform(-np.pi, np.pi, 3), rng.normal(size=3)
        q1, q2, q3 = q
        s1, c1, s2, c2 = np.sin(q1), np.cos(q1), np.sin(q2), np.cos(q2)
        x = coords.g(q)
        np.testing.assert_allclose(x, [a1 * c1, a1 * s1, q1, 2 * a1 * c1 + a2 * c2, 2 * a1 * s1 + a2 * s2, q2,
                                       q3, a3, -np.pi / 2], atol=1e-14)
        _, _, C, _, _ = model.constraints(x)
        D1, _ = coords.velocity_maps(C)
        D1_paper = np.array([[-a1 * s1, 0, 0], [a1 * c1, 0, 0], [1, 0, 0], [-2 * a1 * s1, -a2 * s2, 0],
                             [2 * a1 * c1, a2 * c2, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
        np.testing.assert_allclose(D1, D1_paper, atol=1e-14)
        _, _, C, Cmu, xi = model.constraints(x, D1 @ qd)
        _, D1dot_qd = coords.velocity_maps(C, xi)
        tau = rng.normal()
        M1 = D1.T @ model.M @ D1
        h1 = D1.T @ (model.h([tau]) - model.M @ D1dot_qd)
        J1, J2 = m1 * a1**2 / 3, m2 * a2**2 / 3
        M1_paper = [[J1 + (m1 + 4 * m2) * a1**2, 2 * m2 * a1 * a2 * np.cos(q2 - q1), 0],
                    [2 * m2 * a1 * a2 * np.cos(q2 - q1), J2 + m2 * a2**2, 0], [0, 0, m3]]
        h1_paper = [tau - (m1 + 2 * m2) * g * a1 * c1 + 2 * m2 * a1 * a2 * qd[1] ** 2 * np.sin(q2 - q1),
                    -m2 * g * a2 * c2 - 2 * m2 * a1 * a2 * qd[0] ** 2 * np.sin(q2 - q1), 0.0]
        np.testing.assert_allclose(M1, M1_paper, atol=1e-12)
        np.testing.assert_allclose(h1, h1_paper, atol=1e-11)
        C2p = C[coords.rows2] @ D1
        np.testing.assert_allclose(C2p, [[2 * a1 * s1, 2 * a2 * s2, 1], [-2 * a1 * c1, -2 * a2 * c2, 0]], atol=1e-14)
        np.testing.assert_allclose(D1.T @ Cmu.T, [[1, -1, 0, 0], [0, 1, -1, 0], [0, 0, 0, 1]], atol=1e-14)
        # (6.6): C2' qdd + [2(a1 q1d^2 c1 + a2 q2d^2 c2), 2(a1 q1d^2 s1 + a2 q2d^2 s2)] = 0, i.e. xi2' = -[...]
        xi2p = xi[coords.rows2] - C[coords.rows2] @ D1dot_qd
        np.testing.assert_allclose(xi2p, [-2 * (a1 * qd[0] ** 2 * c1 + a2 * qd[1] ** 2 * c2),
                                          -2 * (a1 * qd[0] ** 2 * s1 + a2 * qd[1] ** 2 * s2)], atol=1e-12)


def test_partitioned_matrices_are_eqs_6_7_and_6_8(mech):
    for _ in range(50):
        q = mech.assemble([rng.uniform(-np.pi, np.pi)])
        u = rng.uniform(-5, 5)
        q1, q2, _ = q
        s1, c1, c2 = np.sin(q1), np.cos(q1), np.cos(q2)
        kin = mech.minimal.kinematics(q, [u], mech.partition)
        D2 = [1.0, -a1 * c1 / (a2 * c2), 2 * a1 * (c1 * np.tan(q2) - s1)]
        nu2 = [0.0,
               a1 * u**2 * s1 / (a2 * c2) * (1 + a1 * c1 * np.tan(q2) / (a2 * c2 * np.tan(q1))),
               -2 * a1 * u**2 / c2 * (np.cos(q2 - q1) + a1 * c1**2 / (a2 * c2**2))]
        sd = np.array([1.0, -1 - a1 * c1 / (a2 * c2), a1 * c1 / (a2 * c2), 2 * a1 * (c1 * np.tan(q2) - s1)]) * u
        np.testing.assert_allclose(kin["D2"][:, 0], D2, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(kin["nu2"], nu2, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(kin["sd"], sd, rtol=1e-12, atol=1e-12)


def test_reactions_satisfy_the_papers_reaction_equation(mech):
    """d = C M^-1 h + C M^-1 C^T f + C M^-1 C_mu^T f_mu - xi = 0 (seed 000, text before eq. 5.4)."""
    Minv = np.linalg.inv(mech.model.M)
    for _ in range(50):
        q = mech.assemble([rng.uniform(-np.pi, np.pi)])
        u, tau = rng.uniform(-5, 5, 1), rng.uniform(-20, 20, 1)
        sol = mech.minimal.evaluate(q, u, tau, mech.partition)
        _, _, C, Cmu, xi = mech.model.constraints(sol.x, sol.xd)
        d = C @ Minv @ mech.model.h(tau) + C @ Minv @ C.T @ sol.f + C @ Minv @ Cmu.T @ sol.f_mu - xi
        assert np.max(np.abs(d)) < 1e-10 * (1 + np.max(np.abs(sol.f)))
