"""The coupled reaction-friction equations: convergence, and Painleve-type cases detected."""

import numpy as np
import pytest

from friction_joints.errors import IndeterminateFrictionError, InconsistentFrictionError
from friction_joints.friction import Coulomb
from friction_joints.planar import Body, PinInSlot, PlanarModel, absolute_dynamics
from friction_joints.planar.coupling import solve_coupled


def scalar_problem(beta):
    """f = f0 + beta |f|: the bilateral-guide prototype of the Painleve cases."""
    return lambda f: (np.array([abs(f[0])]), np.array([[np.sign(f[0])]])), np.array([[beta]])


def test_contraction_converges_to_the_unique_root():
    friction, B = scalar_problem(0.5)
    sol = solve_coupled(np.array([1.0]), B, friction, np.array([1.0]), [np.array([0])])
    assert sol.f[0] == pytest.approx(2.0, rel=1e-15) and sol.kappa == pytest.approx(0.5)
    sol = solve_coupled(np.array([-1.0]), B, friction, np.array([1.0]), [np.array([0])])
    assert sol.f[0] == pytest.approx(-1.0 / 1.5, rel=1e-15)


def test_no_solution_is_reported():
    friction, B = scalar_problem(2.0)  # f = 1 + 2|f| has no root
    with pytest.raises(InconsistentFrictionError, match="no solution"):
        solve_coupled(np.array([1.0]), B, friction, np.array([1.0]), [np.array([0])])


def test_several_solutions_are_reported():
    friction, B = scalar_problem(2.0)  # f = -1 + 2|f| has the roots 1 and -1/3
    with pytest.raises(IndeterminateFrictionError, match="2 solutions"):
        solve_coupled(np.array([-1.0]), B, friction, np.array([1.0]), [np.array([0])])


def painleve_rod(mu):
    """A rod (half-length l) whose end A is a pin in a horizontal slot on the ground, sliding, gravity -y."""
    m, l = 1.0, 0.5
    model = PlanarModel([Body("rod", m, m * l**2 / 3)],
                        [PinInSlot(1, 0, (-l, 0.0), (0.0, 0.0), (1.0, 0.0), law_t=Coulomb(mu, mu))],
                        gravity=(0.0, -9.81))
    return model, l


def rod_state(l, theta, vA, omega=0.0):
    x = np.array([l * np.cos(theta), l * np.sin(theta), theta])
    xd = np.array([vA - l * np.sin(theta) * omega, l * np.cos(theta) * omega, omega])
    return x, xd


def test_rod_in_slot_matches_hand_solution_below_critical_friction():
    """Slot normal force N of the rod sliding with omega = 0, from the hand equations below."""
    mu, theta = 0.3, 0.6
    model, l = painleve_rod(mu)
    x, xd = rod_state(l, theta, vA=1.0)
    sol = absolute_dynamics(model, x, xd, [])
    m, g, J = 1.0, 9.81, 1.0 * l**2 / 3
    # unknowns N (on rod, +y) and F = -mu |N| (sliding +x); constraint yA'' = 0 with omega = 0:
    # ydd_c = l cos th thdd; m ydd_c = N - m g; J thdd = (rA - rc) x (F, N) = l cos th ... evaluated generally:
    c, s = np.cos(theta), np.sin(theta)
    # moment of (F, N) at A about the centre: r = (-l c, -l s): r x F = (-l c) N - (-l s) F
    # m l c thdd = N - m g and J thdd = -l c N + l s F with F = -mu N (N > 0 assumed, checked):
    N = m * g / (1 + m * l * c * (l * c + mu * l * s) / J)
    assert N > 0
    assert sol.f[0] == pytest.approx(N, rel=1e-12)
    assert sol.f_mu[0] == pytest.approx(-mu * N, rel=1e-12)


def test_rod_in_slot_painleve_cases_raise():
    """Beyond the critical friction the bilateral slot gives no or two consistent normal forces."""
    model, l = painleve_rod(mu=5.0)
    raised = set()
    for theta in np.linspace(0.1, 1.4, 14):
        for vA in (-1.0, 1.0):
            x, xd = rod_state(l, theta, vA)
            try:
                sol = absolute_dynamics(model, x, xd, [])
            except (InconsistentFrictionError, IndeterminateFrictionError) as exc:
                raised.add(type(exc))
                continue
            # where it returns, the result is the unique root: it satisfies the equations of motion
            _, _, C, Cmu, xi = model.constraints(x, xd)
            res = model.M @ sol.xdd - model.h([]) - C.T @ sol.f - Cmu.T @ sol.f_mu
            assert np.max(np.abs(res)) < 1e-10
    assert raised == {InconsistentFrictionError, IndeterminateFrictionError}
