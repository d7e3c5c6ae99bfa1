"""Open spatial chains (seed 002 Sect. 3): the trace formulation and the recursive one agree, and
both obey physics (energy conservation, a pendulum's closed form, the paper's transforms)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import solve_ivp

from friction_joints.spatial import Chain, Link, dh, energy, fixed, lagrange_trace, recursive, rot_z


def random_chain(rng, n, tree=False):
    """A random chain of n links; tree: each link hangs from a random earlier link or the base."""
    def rotation():
        Qm, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        return Qm * np.sign(np.linalg.det(Qm))

    links = []
    for _ in range(n):
        L = rng.normal(size=(3, 3))
        links.append(Link(m=rng.uniform(0.2, 3.0), c=tuple(0.3 * rng.normal(size=3)), I_c=L @ L.T + 0.05 * np.eye(3),
                          B=fixed(rotation(), 0.5 * rng.normal(size=3)), A=dh(*rng.normal(size=3))))
    parents = [int(rng.integers(-1, p)) for p in range(n)] if tree else None
    return Chain(links, base=fixed(rotation(), rng.normal(size=3)), gravity=rng.normal(size=3) * 5, parents=parents)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 5), st.booleans())
def test_trace_and_recursive_formulations_agree(seed, n, tree):
    """Serial chains and trees (seed 003's open topologies)."""
    rng = np.random.default_rng(seed)
    chain = random_chain(rng, n, tree)
    q, qd = rng.normal(size=n) * 2, rng.normal(size=n) * 3
    A1, e1 = lagrange_trace(chain, q, qd)
    A2, e2 = recursive(chain, q, qd)
    np.testing.assert_allclose(A1, A2, rtol=1e-10, atol=1e-10 * np.abs(A1).max())
    np.testing.assert_allclose(e1, e2, rtol=1e-10, atol=1e-10 * max(np.abs(e1).max(), 1.0))
    assert np.linalg.eigvalsh(A2).min() > 0  # the mass matrix is positive definite


@pytest.mark.parametrize("formulation", [lagrange_trace, recursive])
@pytest.mark.parametrize("parents", [None, (-1, 0, 0)])
def test_free_chain_conserves_energy(formulation, parents):
    """Without drives or friction, A qdd = e conserves kinetic + potential energy: a wrong sign in
    the velocity or the gravity terms would break it. Serial, and a tree of two branches."""
    serial = random_chain(np.random.default_rng(3), 3)
    chain = Chain(serial.links, serial.base, serial.gravity, parents)

    def rhs(t, y):
        A, e = formulation(chain, y[:3], y[3:])
        return np.concatenate((y[3:], np.linalg.solve(A, e)))

    y0 = np.array([0.3, -0.5, 1.0, 1.0, -2.0, 0.5])
    sol = solve_ivp(rhs, (0.0, 1.0), y0, method="DOP853", rtol=1e-11, atol=1e-12, dense_output=True)
    E = [sum(energy(chain, *np.split(sol.sol(t), 2))) for t in np.linspace(0.0, 1.0, 11)]
    scale = max(abs(v) for v in energy(chain, y0[:3], y0[3:]))
    assert np.ptp(E) <= 1e-8 * scale


def test_pendulum_closed_form():
    """One link, axis horizontal (global x), centre of mass at distance l on the link's x axis:
    A = J_c + m l^2 and e = -m g l cos(psi) with gravity -g along global z... in the axis frame."""
    m, l, J, g = 2.0, 0.4, 0.03, 9.81
    base = fixed([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])  # joint z axis = global x
    chain = Chain([Link(m=m, c=(l, 0.0, 0.0), I_c=np.diag([0.01, J, J]))], base=base, gravity=(0.0, 0.0, -g))
    for psi in (0.0, 0.7, 2.0):
        A, e = recursive(chain, [psi], [1.3])
        # link x axis = base y column rotated by psi: global (0, cos psi, sin psi); height z = l sin psi
        assert A[0, 0] == pytest.approx(J + m * l**2, rel=1e-12)
        assert e[0] == pytest.approx(-m * g * l * np.cos(psi), rel=1e-12, abs=1e-12)


def test_paper_transforms_of_chain_2():
    """The matrices printed in seed 002 Sect. 3 for chain 2, as B Rz(psi) with fixed B."""
    y0, z0, l21, l22 = 0.2, 0.1, 0.3, 0.25
    B21 = fixed(np.eye(3), (0.0, -y0, z0)) @ fixed([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    B22 = fixed([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]], (0.0, 0.0, l21))
    B23 = fixed(np.eye(3), (l22, 0.0, 0.0))
    for psi in (0.3, -1.1):
        c, s = np.cos(psi), np.sin(psi)
        printed21 = fixed(np.eye(3), (0.0, -y0, z0)) @ fixed([[s, c, 0.0], [0.0, 0.0, 1.0], [c, -s, 0.0]])
        printed22 = fixed([[c, -s, 0.0], [0.0, 0.0, 1.0], [-s, -c, 0.0]], (0.0, 0.0, l21))
        printed23 = fixed([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]], (l22, 0.0, 0.0))
        np.testing.assert_allclose(B21 @ rot_z(psi), printed21, atol=1e-15)
        np.testing.assert_allclose(B22 @ rot_z(psi), printed22, atol=1e-15)
        np.testing.assert_allclose(B23 @ rot_z(psi), printed23, atol=1e-15)


def test_bad_link_data_name_it():
    with pytest.raises(ValueError, match="m=0.0"):
        Link(m=0.0, c=(0, 0, 0), I_c=np.eye(3))
    with pytest.raises(ValueError, match="I_c"):
        Link(m=1.0, c=(0, 0, 0), I_c=-np.eye(3))


def test_tree_parents_are_checked_and_paths_follow_them():
    links = random_chain(np.random.default_rng(1), 4).links
    tree = Chain(links, parents=(-1, 0, -1, 1))
    assert list(tree.path(3)) == [0, 1, 3] and list(tree.path(2)) == [2]
    with pytest.raises(ValueError, match="parents"):
        Chain(links, parents=(-1, 2, 0, 1))
    with pytest.raises(ValueError, match="parents"):
        Chain(links, parents=(-1, 0))
