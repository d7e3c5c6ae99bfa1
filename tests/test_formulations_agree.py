"""The absolute formulation (seed 000 eq. 2.9) and the minimal form (eq. 5.4) give the same xdd, f and
f_mu at hundreds of random consistent states, with and without friction, in every slip direction."""

import numpy as np
import pytest

from friction_joints.planar import absolute_dynamics

from states import random_state


@pytest.mark.parametrize("friction", [True, False])
def test_absolute_and_minimal_forms_agree(mechanism_factory, friction):
    mech = mechanism_factory(friction=friction)
    rng = np.random.default_rng(7)
    signs_seen = set()
    for trial in range(150):
        q, u, tau = random_state(mech, rng)
        mini = mech.minimal.evaluate(q, u, tau, mech.partition)
        absol = absolute_dynamics(mech.model, mini.x, mini.xd, tau)
        where = f"{mech.name}, friction={friction}, trial {trial}, q={q}, u={u}"
        scale = 1.0 + np.max(np.abs(mini.xdd))
        np.testing.assert_allclose(absol.xdd, mini.xdd, rtol=1e-9, atol=1e-9 * scale, err_msg="xdd: " + where)
        fs = 1.0 + np.max(np.abs(mini.f))
        np.testing.assert_allclose(absol.f, mini.f, rtol=1e-9, atol=1e-9 * fs, err_msg="f: " + where)
        np.testing.assert_allclose(absol.f_mu, mini.f_mu, rtol=1e-9, atol=1e-9 * fs, err_msg="f_mu: " + where)
        # the minimal state is consistent: constraints hold at position and velocity level
        z, _, C, _, _ = mech.model.constraints(mini.x)
        assert np.max(np.abs(z)) < 1e-10 and np.max(np.abs(C @ mini.xd)) < 1e-9 * (1 + np.max(np.abs(u)))
        # the minimal-form accelerations satisfy the acceleration constraints C xdd = xi
        _, _, C, _, xi = mech.model.constraints(mini.x, mini.xd)
        np.testing.assert_allclose(C @ mini.xdd, xi, atol=1e-8 * scale, err_msg="C xdd = xi: " + where)
        signs_seen.add(tuple(np.sign(mini.sd)))
    if friction:
        assert len(signs_seen) >= 3, "the random states must cover several slip directions"


def test_forced_directions_and_static_level_agree(mechanism_factory):
    """The Sect. 5 stick-slip test evaluates friction at sd = 0 with given directions at the static level."""
    mech = mechanism_factory()
    rng = np.random.default_rng(3)
    for _ in range(40):
        q, u, tau = random_state(mech, rng)
        u = np.zeros_like(u)
        direction = rng.choice([-1.0, 1.0], size=mech.model.l)
        mini = mech.minimal.evaluate(q, u, tau, mech.partition, direction=direction, static=True)
        absol = absolute_dynamics(mech.model, mini.x, mini.xd, tau, direction=direction, static=True)
        np.testing.assert_allclose(absol.xdd, mini.xdd, rtol=1e-9, atol=1e-9 * (1 + np.abs(mini.xdd).max()))
        np.testing.assert_allclose(absol.f_mu, mini.f_mu, rtol=1e-9, atol=1e-9 * (1 + np.abs(mini.f).max()))
        # the static level is used: |f_mu| = mu_s * load, sign opposite to the given direction
        assert np.all(mini.f_mu * direction <= 0.0)


def test_friction_power_is_never_positive(mechanism_factory):
    mech = mechanism_factory()
    rng = np.random.default_rng(11)
    for _ in range(200):
        q, u, tau = random_state(mech, rng)
        sol = mech.minimal.evaluate(q, u, tau, mech.partition)
        assert sol.f_mu @ sol.sd <= 0.0


def test_power_balance_holds_at_every_state(mechanism_factory):
    """d/dt (E_kin + E_pot) = drive power + friction power: the ideal reactions do no work."""
    mech = mechanism_factory()
    rng = np.random.default_rng(5)
    model = mech.model
    for _ in range(100):
        q, u, tau = random_state(mech, rng)
        sol = mech.minimal.evaluate(q, u, tau, mech.partition)
        dEkin = sol.xd @ model.M @ sol.xdd
        dEpot = -sum(model.masses[i] * model.gravity @ sol.xd[3 * i : 3 * i + 2] for i in range(len(model.bodies)))
        drive = (model.H @ tau) @ sol.xd
        applied = (model.h_ext - np.concatenate([[b.m * model.gravity[0], b.m * model.gravity[1], 0.0]
                                                 for b in model.bodies])) @ sol.xd
        assert dEkin + dEpot == pytest.approx(drive + applied + sol.f_mu @ sol.sd,
                                              abs=1e-9 * (1 + abs(dEkin) + abs(drive)))
