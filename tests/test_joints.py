"""Analytic joint Jacobians and xi against finite differences, for every joint type and ground joints."""

import numpy as np
import pytest

from friction_joints.friction import Coulomb
from friction_joints.planar import Body, PinInSlot, PlanarModel, Prismatic, Revolute

rng = np.random.default_rng(1)


def model_with(joint_factory):
    bodies = [Body("a", 1.0, 0.1), Body("b", 2.0, 0.2)]
    return PlanarModel(bodies, [joint_factory(1, 2), joint_factory(2, 0)])


FACTORIES = {
    "revolute": lambda i, j: Revolute(i, j, (0.3, -0.1), (-0.2, 0.4), Coulomb(0.2, 0.1), 0.05),
    "prismatic": lambda i, j: Prismatic(i, j, (0.1, 0.2), (-0.3, 0.1), (0.6, 0.8), 0.3, Coulomb(0.3, 0.2)),
    "prismatic_edges": lambda i, j: Prismatic(i, j, (0.1, 0.2), (-0.3, 0.1), (1.0, 0.2), 0.0,
                                              Coulomb(0.3, 0.2), edge_length=0.1),
    "pin_in_slot": lambda i, j: PinInSlot(i, j, (0.2, 0.0), (0.1, -0.3), (0.0, 1.0), Coulomb(0.3, 0.2),
                                          Coulomb(0.15, 0.1), 0.05),
}


@pytest.mark.parametrize("kind", FACTORIES)
def test_jacobians_and_xi_match_finite_differences(kind):
    model = model_with(FACTORIES[kind])
    for _ in range(20):
        x, xd = rng.normal(size=model.n), rng.normal(size=model.n)
        z, s, C, Cmu, xi = model.constraints(x, xd)
        eps = 1e-6
        Cfd = np.column_stack([(model.constraints(x + eps * e)[0] - model.constraints(x - eps * e)[0]) / (2 * eps)
                               for e in np.eye(model.n)])
        Cmufd = np.column_stack([(model.constraints(x + eps * e)[1] - model.constraints(x - eps * e)[1]) / (2 * eps)
                                 for e in np.eye(model.n)])
        np.testing.assert_allclose(C, Cfd, atol=1e-8, err_msg=f"C of {kind}")
        np.testing.assert_allclose(Cmu, Cmufd, atol=1e-8, err_msg=f"C_mu of {kind}")
        # xi = -Cdot xd, Cdot along the motion x + t xd
        Cdot = (model.constraints(x + eps * xd)[2] - model.constraints(x - eps * xd)[2]) / (2 * eps)
        np.testing.assert_allclose(xi, -Cdot @ xd, atol=1e-7, err_msg=f"xi of {kind}")


@pytest.mark.parametrize("kind", FACTORIES)
def test_friction_jacobian_and_lipschitz_bound(kind):
    model = model_with(FACTORIES[kind])
    for _ in range(50):
        f, df, sd = rng.normal(size=model.m), 1e-7 * rng.normal(size=model.m), rng.normal(size=model.l)
        f_mu, J = model.friction(f, sd)
        f_mu2, _ = model.friction(f + df, sd)
        np.testing.assert_allclose(f_mu2 - f_mu, J @ df, atol=1e-12)
        assert np.all(f_mu * sd <= 0.0), "friction must oppose slip"
        g = rng.normal(size=model.m)
        for joint, zs, ss in zip(model.joints, model.z_slices, model.s_slices):
            a = joint.friction(f[zs], sd[ss], static=True)[0]
            b = joint.friction(g[zs], sd[ss], static=True)[0]
            assert np.linalg.norm(a - b) <= joint.lipschitz() * np.linalg.norm(f[zs] - g[zs]) + 1e-15


def test_revolute_friction_is_the_paper_law():
    joint = Revolute(1, 0, (0.0, 0.0), (0.0, 0.0), Coulomb(0.15, 0.1), r=0.05)
    f_mu, _ = joint.friction(np.array([3.0, -4.0]), np.array([-2.0]))
    assert f_mu[0] == pytest.approx(+0.1 * 0.05 * 5.0)  # -sgn(sd) mu r sqrt(f1^2 + f2^2), seed 000 (2.5)


def test_pin_in_slot_friction_is_the_paper_law():
    joint = PinInSlot(1, 0, (0.0, 0.0), (0.0, 0.0), (1.0, 0.0), Coulomb(0.3, 0.2), Coulomb(0.15, 0.1), 0.05)
    f_mu, _ = joint.friction(np.array([-10.0]), np.array([1.0, -1.0]))
    assert f_mu[0] == pytest.approx(-0.2 * 10.0)
    assert f_mu[1] == pytest.approx(0.1 * 0.05 * np.sqrt(1 + 0.2**2) * 10.0)  # seed 000 (2.5) row 4


def test_prismatic_edge_model_carries_the_lock_moment():
    joint = Prismatic(1, 0, (0.0, 0.0), (0.0, 0.0), law=Coulomb(0.3, 0.2), edge_length=0.2)
    f_mu, _ = joint.friction(np.array([0.0, 1.0]), np.array([1.0]))
    assert f_mu[0] == pytest.approx(-0.2 * 2 * 1.0 / 0.2)  # two edge forces of 5 N


@pytest.mark.parametrize("make, name", [
    (lambda: Revolute(1, 0, (0, 0), (0, 0), Coulomb(0.1, 0.1), r=0.0), "r"),
    (lambda: Revolute(1, 1, (0, 0), (0, 0)), "body"),
    (lambda: Prismatic(1, 0, (0, 0), (0, 0), e_j=(0.0, 0.0)), "e_j"),
    (lambda: Body("link", -1.0, 0.1), "link.m"),
])
def test_bad_joint_parameters(make, name):
    with pytest.raises(ValueError, match=name):
        make()


@pytest.mark.parametrize("factory", ["dupont_two_mass", "offset_slider_crank", "slider_crank", "stacked_blocks"])
def test_xi_is_minus_cdot_xdot(factory):
    """PlanarModel.xi (and the xi of constraints) against a central difference of the Jacobian C
    along xdot: xi = -Cdot xdot = -(dC/dx . xdot) xdot, for every joint type of the seed mechanisms."""
    from friction_joints import mechanisms

    model = getattr(mechanisms, factory)().model
    rng = np.random.default_rng(7)
    h = 1e-6
    for _ in range(20):
        x, xd = rng.normal(size=model.n), rng.normal(size=model.n)
        Cdot = (model.constraints(x + h * xd)[2] - model.constraints(x - h * xd)[2]) / (2 * h)
        np.testing.assert_allclose(model.xi(x, xd), -Cdot @ xd, rtol=1e-7, atol=1e-7)
        np.testing.assert_array_equal(model.constraints(x, xd)[4], model.xi(x, xd))
